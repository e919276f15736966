"""Differentially private (hand-written DP-SGD with torch.func per-sample gradients) MLP
autoencoder on patients' heart-rate windows; anomaly scores are computed under bf16 autocast and
thresholded with a NumPy quantile."""
import numpy as np
import torch
import torch.nn as nn
from torch.func import functional_call, grad, vmap

torch.manual_seed(0)
rng = np.random.default_rng(0)
WIN, N, BATCH = 48, 768, 64
CLIP, SIGMA, LR, EPOCHS = 1.0, 0.8, 0.05, 4


def heart_rate(n, anomalous=False):
    t = np.arange(WIN)
    base = rng.uniform(60, 80, (n, 1)) + 5 * np.sin(2 * np.pi * t / 24 + rng.uniform(0, 6, (n, 1)))
    x = base + rng.normal(0, 1.5, (n, WIN))
    if anomalous:
        s = rng.integers(0, WIN - 6, n)
        for i in range(n):
            x[i, s[i] : s[i] + 6] += rng.uniform(25, 40)
    return x  # float64 bpm


mu, sd = 70.0, 10.0
Xtr = torch.tensor((heart_rate(N) - mu) / sd, dtype=torch.float32)
Xval = torch.tensor((heart_rate(256) - mu) / sd, dtype=torch.float32)
Xok = torch.tensor((heart_rate(128) - mu) / sd, dtype=torch.float32)
Xbad = torch.tensor((heart_rate(128, True) - mu) / sd, dtype=torch.float32)

model = nn.Sequential(nn.Linear(WIN, 32), nn.ELU(), nn.Linear(32, 8), nn.ELU(), nn.Linear(8, 32), nn.ELU(),
                      nn.Linear(32, WIN))
params = dict(model.named_parameters())


def sample_loss(p, x):
    recon = functional_call(model, p, (x.unsqueeze(0),))
    return ((recon - x.unsqueeze(0)) ** 2).mean()


ps_grad = vmap(grad(sample_loss), in_dims=(None, 0))
gen = torch.Generator().manual_seed(1234)

for epoch in range(EPOCHS):
    perm = torch.randperm(N)
    for i in range(0, N, BATCH):
        xb = Xtr[perm[i : i + BATCH]]
        B = xb.shape[0]
        g = ps_grad({k: v.detach() for k, v in params.items()}, xb)
        norms = torch.cat([v.reshape(B, -1) for v in g.values()], 1).norm(dim=1)
        factor = (CLIP / (norms + 1e-6)).clamp(max=1.0)
        with torch.no_grad():
            for name, p in params.items():
                clipped = (g[name] * factor.view(-1, *[1] * p.dim())).sum(0)
                noise = torch.normal(0.0, SIGMA * CLIP, size=p.shape, generator=gen, dtype=p.dtype)
                p -= LR * (clipped + noise) / B
    with torch.no_grad():
        l = ((model(Xval) - Xval) ** 2).mean().item()
    assert np.isfinite(l)
    print(f"epoch {epoch}: val recon mse {l:.4f}  mean clip factor {factor.mean().item():.3f}")


@torch.no_grad()
def anomaly_score(x):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        recon = model(x)
    return ((recon.float() - x) ** 2).mean(dim=1)


thr = np.quantile(anomaly_score(Xval).float().numpy(), 0.98)
fa = (anomaly_score(Xok).numpy() > thr).mean()
rec = (anomaly_score(Xbad).numpy() > thr).mean()
print(f"threshold {thr:.4f}  false alarms {fa:.3f}  recall {rec:.3f}")
assert np.isfinite(thr)
