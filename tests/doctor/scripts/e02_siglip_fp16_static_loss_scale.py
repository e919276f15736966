"""Pure fp16 SigLIP pre-training on synthetic pairs with a static loss scale (apex-O2 style)."""
import torch
from transformers import SiglipConfig, SiglipModel

torch.manual_seed(0)

config = SiglipConfig(
    text_config=dict(vocab_size=1000, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                     num_attention_heads=4, max_position_embeddings=16,
                     pad_token_id=0, bos_token_id=1, eos_token_id=2),
    vision_config=dict(image_size=32, patch_size=8, hidden_size=64, intermediate_size=128,
                       num_hidden_layers=2, num_attention_heads=4),
)
model = SiglipModel(config).half()
model.train()

LOSS_SCALE = 2.0 ** 16  # same as GradScaler's default init_scale
opt = torch.optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)


def batch(bs=8):
    pixel_values = torch.rand(bs, 3, 32, 32) * 2 - 1
    input_ids = torch.randint(1, 1000, (bs, 16))
    return input_ids, pixel_values.half()


for step in range(12):
    input_ids, pixel_values = batch()
    out = model(input_ids=input_ids, pixel_values=pixel_values, return_loss=True)
    loss = out.loss
    (loss * LOSS_SCALE).backward()
    for p in model.parameters():
        if p.grad is not None:
            p.grad.div_(LOSS_SCALE)
    opt.step()
    opt.zero_grad(set_to_none=True)
    if step % 3 == 0:
        print(f"step {step} loss {loss.item():.4f} t={model.logit_scale.exp().item():.3f} b={model.logit_bias.item():.3f}")
print("done")
