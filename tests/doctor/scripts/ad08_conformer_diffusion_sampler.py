import math
import os
import tempfile

import torch
import torch.nn as nn

torch.manual_seed(8)
N_ATOMS = 8
T = 100


def random_rotation(n):
    q = torch.nn.functional.normalize(torch.randn(n, 4), dim=-1)
    a, b, c, d = q.unbind(-1)
    return torch.stack([a*a+b*b-c*c-d*d, 2*(b*c-a*d), 2*(b*d+a*c),
                        2*(b*c+a*d), a*a-b*b+c*c-d*d, 2*(c*d-a*b),
                        2*(b*d-a*c), 2*(c*d+a*b), a*a-b*b-c*c+d*d], -1).view(n, 3, 3)


def ring_conformers(n):
    ang = torch.arange(6) * (2 * math.pi / 6)
    ring = torch.stack([1.4 * torch.cos(ang), 1.4 * torch.sin(ang), 0.25 * (-1) ** torch.arange(6)], -1)
    subst = torch.stack([ring[0] * 1.75, ring[3] * 1.75])
    x = torch.cat([ring, subst]).expand(n, -1, -1) + 0.05 * torch.randn(n, N_ATOMS, 3)
    x = x @ random_rotation(n).transpose(1, 2)
    return x - x.mean(1, keepdim=True)


class Denoiser(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.atom_emb = nn.Parameter(torch.randn(N_ATOMS, hidden) * 0.1)
        self.t_emb = nn.Sequential(nn.Linear(16, hidden), nn.SiLU(), nn.Linear(hidden, hidden))
        self.edge = nn.Sequential(nn.Linear(2 * hidden + 1, hidden), nn.SiLU(), nn.Linear(hidden, hidden))
        self.coord = nn.Sequential(nn.Linear(hidden, hidden), nn.SiLU(), nn.Linear(hidden, 1))
        self.node = nn.Sequential(nn.Linear(2 * hidden, hidden), nn.SiLU(), nn.Linear(hidden, hidden))
        betas = torch.linspace(1e-4, 0.02, T)
        self.register_buffer("betas", betas)
        self.register_buffer("alphas_cumprod", torch.cumprod(1 - betas, 0))

    def time_features(self, t):
        freqs = torch.exp(torch.arange(8, dtype=self.betas.dtype) * -math.log(1000.0) / 8)
        ang = t[:, None].to(freqs.dtype) * freqs
        return torch.cat([ang.sin(), ang.cos()], -1)

    def forward(self, x, t):
        b, n, _ = x.shape
        h = self.atom_emb.expand(b, -1, -1) + self.t_emb(self.time_features(t))[:, None]
        for _ in range(2):
            diff = x[:, :, None] - x[:, None]
            d2 = (diff ** 2).sum(-1, keepdim=True)
            m = self.edge(torch.cat([h[:, :, None].expand(-1, -1, n, -1), h[:, None].expand(-1, n, -1, -1), d2], -1))
            h = h + self.node(torch.cat([h, m.mean(2)], -1))
        eps = (diff * self.coord(m)).mean(2)
        return eps - eps.mean(1, keepdim=True)


@torch.no_grad()
def sample(model, n):
    dtype = model.betas.dtype
    x = torch.randn(n, N_ATOMS, 3, dtype=dtype)
    x = x - x.mean(1, keepdim=True)
    for t in reversed(range(T)):
        tt = torch.full((n,), t)
        beta, abar = model.betas[t], model.alphas_cumprod[t]
        eps = model(x, tt)
        x = (x - beta / torch.sqrt(1 - abar) * eps) / torch.sqrt(1 - beta)
        if t > 0:
            z = torch.randn_like(x)
            x = x + torch.sqrt(beta) * (z - z.mean(1, keepdim=True))
    return x


def main():
    data = ring_conformers(512)
    model = Denoiser()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(150):
        x0 = data[torch.randint(0, len(data), (32,))]
        t = torch.randint(0, T, (32,))
        abar = model.alphas_cumprod[t][:, None, None]
        noise = torch.randn_like(x0)
        noise = noise - noise.mean(1, keepdim=True)
        xt = abar.sqrt() * x0 + (1 - abar).sqrt() * noise
        loss = ((model(xt, t) - noise) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 50 == 0:
            print(f"step {step} eps-mse {loss.item():.4f}")
    torch.save(model.state_dict(), os.path.join(tempfile.mkdtemp(prefix="diff_"), "denoiser.pt"))

    model = model.to(torch.bfloat16).eval()
    samples = sample(model, 16).float()
    radius = samples.norm(dim=-1).mean()
    bond = (samples[:, 0] - samples[:, 1]).norm(dim=-1).mean()
    print(f"generated {samples.shape[0]} conformers: mean radius {radius.item():.3f} ring bond {bond.item():.3f}")


if __name__ == "__main__":
    main()
