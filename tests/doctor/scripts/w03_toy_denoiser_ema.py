import copy
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def two_moons(n):
    t = torch.rand(n) * math.pi
    upper = torch.stack([torch.cos(t), torch.sin(t)], dim=1)
    lower = torch.stack([1 - torch.cos(t), 0.5 - torch.sin(t)], dim=1)
    pts = torch.where((torch.rand(n) < 0.5)[:, None], upper, lower)
    return (pts + 0.05 * torch.randn_like(pts) - torch.tensor([0.5, 0.25])) * 2


class Denoiser(nn.Module):
    def __init__(self, hidden=128, n_steps=100):
        super().__init__()
        self.t_embed = nn.Embedding(n_steps, hidden)
        self.inp = nn.Linear(2, hidden)
        self.blocks = nn.ModuleList([nn.Sequential(nn.LayerNorm(hidden), nn.Linear(hidden, hidden), nn.GELU()) for _ in range(3)])
        self.head = nn.Linear(hidden, 2)

    def forward(self, x, t):
        h = self.inp(x) + self.t_embed(t)
        for blk in self.blocks:
            h = h + blk(h)
        return self.head(h)


class EMA:
    def __init__(self, model, decay=0.999, dtype=torch.bfloat16):
        self.decay = decay
        self.shadow = copy.deepcopy(model).to(dtype).eval()
        for p in self.shadow.parameters():
            p.requires_grad_(False)

    @torch.no_grad()
    def update(self, model):
        for ema_p, p in zip(self.shadow.parameters(), model.parameters()):
            ema_p.lerp_(p, 1.0 - self.decay)


def main():
    n_steps = 100
    betas = torch.linspace(1e-4, 0.05, n_steps)
    alphas = 1.0 - betas
    alpha_bar = torch.cumprod(alphas, dim=0)

    model = Denoiser(n_steps=n_steps)
    ema = EMA(model)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.0)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 50))

    data = two_moons(4096)
    for step in range(300):
        x0 = data[torch.randint(0, data.shape[0], (256,))]
        t = torch.randint(0, n_steps, (x0.shape[0],))
        noise = torch.randn_like(x0)
        ab = alpha_bar[t][:, None]
        x_t = ab.sqrt() * x0 + (1 - ab).sqrt() * noise
        loss = F.mse_loss(model(x_t, t), noise)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()
        ema.update(model)
        if step % 100 == 0:
            print(f"step {step} loss {loss.item():.4f} lr {sched.get_last_lr()[0]:.2e}")

    sampler = ema.shadow.float()
    x = torch.randn(512, 2)
    with torch.no_grad():
        for i in reversed(range(n_steps)):
            t = torch.full((x.shape[0],), i, dtype=torch.long)
            eps = sampler(x, t)
            x = (x - betas[i] / (1 - alpha_bar[i]).sqrt() * eps) / alphas[i].sqrt()
            if i > 0:
                x = x + betas[i].sqrt() * torch.randn_like(x)
    print("sample mean", x.mean(0).tolist(), "std", x.std(0).tolist())
    print("final loss", loss.item())


if __name__ == "__main__":
    main()
