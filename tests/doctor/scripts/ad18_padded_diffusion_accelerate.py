import math
import os
import tempfile

import torch
import torch.nn as nn
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(18)
MAX_N, T = 10, 200


def padded_clusters(n):
    n_atoms = torch.randint(5, MAX_N + 1, (n,))
    mask = (torch.arange(MAX_N)[None] < n_atoms[:, None]).float()
    ang = torch.rand(n, MAX_N) * 2 * math.pi
    z = torch.rand(n, MAX_N) * 2 - 1
    r = 1.2 * n_atoms[:, None].float() ** (1 / 3)
    x = torch.stack([r * (1 - z ** 2).sqrt() * ang.cos(), r * (1 - z ** 2).sqrt() * ang.sin(), r * z], -1)
    x = x * mask[..., None]
    x = x - x.sum(1, keepdim=True) / mask.sum(1)[:, None, None]
    return x * mask[..., None], mask


class AtomTransformerDenoiser(nn.Module):
    def __init__(self, d=64, heads=4, layers=2):
        super().__init__()
        self.inp = nn.Linear(3 + 1, d)
        self.layers = nn.ModuleList([nn.ModuleDict({"qkv": nn.Linear(d, 3 * d), "o": nn.Linear(d, d),
                                                    "ff": nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(),
                                                                        nn.Linear(2 * d, d)),
                                                    "n1": nn.LayerNorm(d), "n2": nn.LayerNorm(d)})
                                     for _ in range(layers)])
        self.out = nn.Linear(d, 3)
        self.heads = heads

    def forward(self, x, t_frac, mask):
        b, n, _ = x.shape
        h = self.inp(torch.cat([x, t_frac[:, None, None].expand(b, n, 1)], -1))
        for blk in self.layers:
            q, k, v = blk["qkv"](blk["n1"](h)).view(b, n, 3, self.heads, -1).permute(2, 0, 3, 1, 4)
            scores = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
            scores = scores.masked_fill(mask[:, None, None, :] == 0, torch.finfo(scores.dtype).min)
            attn = torch.softmax(scores.float(), -1).to(v.dtype)
            h = h + blk["o"]((attn @ v).transpose(1, 2).reshape(b, n, -1))
            h = h + blk["ff"](blk["n2"](h))
        eps = self.out(h) * mask[..., None]
        return eps - eps.sum(1, keepdim=True) / mask.sum(1)[:, None, None] * mask[..., None]


def main():
    accelerator = Accelerator(mixed_precision="bf16", cpu=True)
    betas = torch.linspace(1e-4, 0.02, T, dtype=torch.float64)
    abar = torch.cumprod(1 - betas, 0).float()
    x, mask = padded_clusters(640)
    loader = DataLoader(TensorDataset(x, mask), batch_size=64, shuffle=True)
    model = AtomTransformerDenoiser()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    model, opt, loader = accelerator.prepare(model, opt, loader)

    for epoch in range(4):
        total = 0.0
        for x0, m in loader:
            t = torch.randint(0, T, (x0.shape[0],))
            a = abar[t][:, None, None]
            noise = torch.randn_like(x0) * m[..., None]
            noise = noise - noise.sum(1, keepdim=True) / m.sum(1)[:, None, None] * m[..., None]
            xt = a.sqrt() * x0 + (1 - a).sqrt() * noise
            pred = model(xt, t.float() / T, m)
            loss = (((pred.float() - noise) ** 2).sum(-1) * m).sum() / (3 * m.sum())
            opt.zero_grad()
            accelerator.backward(loss)
            opt.step()
            total += loss.item()
        accelerator.print(f"epoch {epoch} eps-mse {total / len(loader):.4f}")

    net = accelerator.unwrap_model(model).float().eval()
    _, m = padded_clusters(16)
    xs = torch.randn(16, MAX_N, 3) * m[..., None]
    with torch.no_grad():
        for t in reversed(range(T)):
            eps = net(xs, torch.full((16,), t / T), m)
            beta = betas[t].float()
            xs = (xs - beta / (1 - abar[t]).sqrt() * eps) / (1 - beta).sqrt()
            if t > 0:
                xs = xs + beta.sqrt() * torch.randn_like(xs) * m[..., None]
    radius = (xs.norm(dim=-1) * m).sum() / m.sum()
    accelerator.print(f"sampled mean radius {radius.item():.3f}")
    accelerator.save(net.state_dict(), os.path.join(tempfile.mkdtemp(prefix="accel_diff_"), "denoiser.pt"))


if __name__ == "__main__":
    main()
