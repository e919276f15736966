"""Point-cloud auto-encoder (PointNet encoder + MLP decoder) trained with an entropic
earth mover's distance (Sinkhorn), everything in fp16 to fit the N x N transport plan."""
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
rng = np.random.default_rng(0)
N = 128
DT = torch.float16


def shape_batch(bs):
    out = []
    for _ in range(bs):
        p = rng.normal(size=(N, 3))
        p /= np.linalg.norm(p, axis=1, keepdims=True)
        p *= rng.uniform(0.6, 1.0, size=(1, 3))  # random ellipsoid
        out.append(p)
    return torch.tensor(np.stack(out), dtype=DT)


class AutoEncoder(nn.Module):
    def __init__(self, latent=64):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(3, 64), nn.ReLU(), nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, latent))
        self.dec = nn.Sequential(nn.Linear(latent, 256), nn.ReLU(), nn.Linear(256, N * 3))

    def forward(self, x):
        z = self.enc(x).max(1).values
        return self.dec(z).view(-1, N, 3)


def sinkhorn_emd(x, y, eps=0.05, iters=30):
    C = torch.cdist(x, y) ** 2  # (B, N, M)
    B, n, m = C.shape
    a = torch.full((B, n), 1.0 / n, dtype=x.dtype)
    b = torch.full((B, m), 1.0 / m, dtype=x.dtype)
    K = torch.exp(-C / eps)
    u = torch.ones_like(a)
    v = torch.ones_like(b)
    for _ in range(iters):
        u = a / (K @ v[..., None]).squeeze(-1)
        v = b / (K.transpose(1, 2) @ u[..., None]).squeeze(-1)
    P = u[..., None] * K * v[:, None, :]
    return (P * C).sum((1, 2)).mean()


def main():
    model = AutoEncoder().to(DT)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-4)
    for step in range(30):
        x = shape_batch(8)
        recon = model(x)
        loss = sinkhorn_emd(recon, x)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 5 == 0:
            print(f"step {step:3d} emd {loss.item():.5f}")
    print("done")


if __name__ == "__main__":
    main()
