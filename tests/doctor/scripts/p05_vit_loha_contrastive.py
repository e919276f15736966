"""Contrastive (SimCLR-style) adaptation of a small ViT with LoHa adapters."""
import torch
import torch.nn.functional as F
from transformers import ViTConfig, ViTModel
from peft import LoHaConfig, get_peft_model

torch.manual_seed(0)
IMG, BS, TAU = 32, 32, 0.07

config = ViTConfig(
    image_size=IMG, patch_size=8, num_channels=3, hidden_size=64, num_hidden_layers=2,
    num_attention_heads=4, intermediate_size=128,
)
backbone = ViTModel(config, add_pooling_layer=False).half()

loha_cfg = LoHaConfig(r=4, alpha=8, target_modules=["q_proj", "v_proj", "fc1", "fc2"], module_dropout=0.0)
model = get_peft_model(backbone, loha_cfg)
model.print_trainable_parameters()


class SoftmaxXent(torch.autograd.Function):
    """Cross-entropy over similarity logits without materialising log-probs for the graph."""

    @staticmethod
    def forward(ctx, logits, target):
        lse = torch.logsumexp(logits, dim=-1)
        loss = lse - logits.gather(1, target[:, None]).squeeze(1)
        ctx.save_for_backward(logits, target)
        return loss.mean()

    @staticmethod
    def backward(ctx, grad_out):
        logits, target = ctx.saved_tensors
        e = torch.exp(logits)
        probs = e / e.sum(dim=-1, keepdim=True)
        probs[torch.arange(target.numel()), target] -= 1.0
        return probs * (grad_out / target.numel()), None


def augment(x):
    flip = torch.rand(x.shape[0], 1, 1, 1) < 0.5
    x = torch.where(flip, x.flip(-1), x)
    shift = torch.randint(-3, 4, (2,))
    x = torch.roll(x, shifts=(int(shift[0]), int(shift[1])), dims=(-2, -1))
    return x + 0.05 * torch.randn_like(x)


def embed(pixels):
    h = model(pixel_values=pixels.half()).last_hidden_state[:, 0]
    return F.normalize(h, dim=-1)


prototypes = torch.rand(8, 3, IMG, IMG)
params = [p for p in model.parameters() if p.requires_grad]
optim = torch.optim.AdamW(params, lr=1e-3)

for step in range(25):
    model.train()
    idx = torch.randint(0, 8, (BS,))
    imgs = prototypes[idx] + 0.1 * torch.randn(BS, 3, IMG, IMG)
    z1, z2 = embed(augment(imgs)), embed(augment(imgs))
    logits = z1 @ z2.t() / TAU
    target = torch.arange(BS)
    loss = 0.5 * (SoftmaxXent.apply(logits, target) + SoftmaxXent.apply(logits.t(), target))
    optim.zero_grad(set_to_none=True)
    loss.backward()
    optim.step()
    if step % 5 == 0:
        with torch.no_grad():
            acc = (logits.argmax(-1) == target).float().mean()
        print(f"step {step} loss {loss.item():.4f} top1 {acc.item():.3f}")

print(f"final loss {loss.item():.4f}")
