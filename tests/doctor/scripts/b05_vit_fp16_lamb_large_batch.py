"""Large-batch ViT pre-training recipe: tiny ViT (transformers config, random init) trained in
pure fp16 with a hand-written LAMB optimizer, layer-wise trust ratio and linear warmup."""
import torch
import torch.nn.functional as F
from torch.optim import Optimizer
from transformers import ViTConfig, ViTForImageClassification

torch.manual_seed(0)


class Lamb(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = p.grad
                state = self.state[p]
                if not state:
                    state["step"] = 0
                    state["exp_avg"] = torch.zeros_like(p)
                    state["exp_avg_sq"] = torch.zeros_like(p)
                state["step"] += 1
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                bc1 = 1 - beta1 ** state["step"]
                bc2 = 1 - beta2 ** state["step"]
                update = (exp_avg / bc1) / ((exp_avg_sq / bc2).sqrt() + group["eps"])
                if group["weight_decay"] != 0:
                    update.add_(p, alpha=group["weight_decay"])
                w_norm = p.norm(2)
                u_norm = update.norm(2)
                trust_ratio = torch.where((w_norm > 0) & (u_norm > 0), w_norm / u_norm, torch.ones_like(w_norm))
                p.add_(update, alpha=-group["lr"] * trust_ratio.item())


config = ViTConfig(image_size=32, patch_size=4, num_channels=3, hidden_size=64, num_hidden_layers=3,
                   num_attention_heads=4, intermediate_size=128, num_labels=10)
model = ViTForImageClassification(config).half()

no_wd = ["bias", "layernorm", "position_embeddings", "cls_token"]
groups = [
    {"params": [p for n, p in model.named_parameters() if not any(k in n for k in no_wd)], "weight_decay": 0.02},
    {"params": [p for n, p in model.named_parameters() if any(k in n for k in no_wd)], "weight_decay": 0.0},
]
opt = Lamb(groups, lr=2e-3)
warmup = 4
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / warmup))

images = torch.randn(256, 3, 32, 32)
labels = torch.randint(0, 10, (256,))

model.train()
for step in range(6):
    idx = torch.randint(0, 256, (64,))
    out = model(pixel_values=images[idx].half(), labels=labels[idx])
    opt.zero_grad(set_to_none=True)
    out.loss.backward()
    opt.step()
    sched.step()
    print(f"step {step} loss {out.loss.item():.4f} lr {sched.get_last_lr()[0]:.2e}")
