"""Hand-written DP-SGD (per-sample gradients with torch.func, clipping, Gaussian noise) for a
small arrhythmia classifier on ECG-like windows. The model is kept in bfloat16 to save memory."""
import numpy as np
import torch
import torch.nn as nn
from torch.func import functional_call, grad, vmap

torch.manual_seed(0)
rng = np.random.default_rng(0)

WIN, N = 64, 512
CLIP_NORM, NOISE_MULT, LR, BATCH = 1.0, 1.1, 0.5, 64


def make_ecg(n):
    t = np.linspace(0, 1, WIN)
    labels = rng.integers(0, 2, n)
    freq = np.where(labels == 1, 9.0, 5.0)[:, None]
    x = np.sin(2 * np.pi * freq * t[None]) + 0.3 * rng.standard_normal((n, WIN))
    return x.astype(np.float32), labels


X_np, y_np = make_ecg(N)

model = nn.Sequential(
    nn.Linear(WIN, 64), nn.Tanh(), nn.Linear(64, 32), nn.Tanh(), nn.Linear(32, 2)
).to(torch.bfloat16)

params = {k: v.detach() for k, v in model.named_parameters()}


def loss_one(p, x, y):
    logits = functional_call(model, p, (x.unsqueeze(0),))
    return nn.functional.cross_entropy(logits.float(), y.unsqueeze(0))


per_sample_grad = vmap(grad(loss_one), in_dims=(None, 0, 0))
opt = torch.optim.SGD(model.parameters(), lr=LR)


def dp_step(xb, yb):
    grads = per_sample_grad(params, xb, yb)  # dict name -> (B, *shape)
    B = xb.shape[0]
    flat = torch.cat([g.reshape(B, -1).float() for g in grads.values()], dim=1)
    norms = flat.norm(dim=1)
    factor = (CLIP_NORM / (norms + 1e-6)).clamp(max=1.0)
    for name, p in model.named_parameters():
        g = grads[name]
        clipped_sum = (g * factor.view(-1, *[1] * (g.dim() - 1)).to(g.dtype)).sum(0)
        noise = torch.normal(0.0, NOISE_MULT * CLIP_NORM, size=p.shape)
        p.grad = (clipped_sum + noise) / B
    opt.step()
    opt.zero_grad(set_to_none=True)
    return norms.mean().item()


X = torch.from_numpy(X_np).to(torch.bfloat16)
Y = torch.from_numpy(y_np).long()
for epoch in range(3):
    perm = torch.randperm(N)
    for i in range(0, N, BATCH):
        idx = perm[i : i + BATCH]
        mean_norm = dp_step(X[idx], Y[idx])
    with torch.no_grad():
        acc = (model(X).argmax(-1) == Y).float().mean().item()
    print(f"epoch {epoch}: mean per-sample grad norm {mean_norm:.3f}  train acc {acc:.3f}")
