import math
import os
import socket
import tempfile

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def two_moons(n, gen):
    label = torch.randint(0, 2, (n,), generator=gen)
    theta = torch.rand(n, generator=gen) * math.pi
    x = torch.stack([torch.cos(theta), torch.sin(theta)], 1)
    x = torch.where(label[:, None] == 1, torch.stack([1 - x[:, 0], 0.5 - x[:, 1]], 1), x)
    return x + 0.05 * torch.randn(n, 2, generator=gen), label


def cosine_alphas_cumprod(T, s=0.008):
    t = torch.linspace(0, T, T + 1, dtype=torch.float64) / T
    f = torch.cos((t + s) / (1 + s) * math.pi / 2) ** 2
    betas = (1 - f[1:] / f[:-1]).clamp(max=0.999)
    return torch.cumprod(1 - betas, 0).float()


class CondDenoiser(nn.Module):
    def __init__(self, hidden=128, classes=2, T=100):
        super().__init__()
        self.t_embed = nn.Embedding(T, hidden)
        self.y_embed = nn.Embedding(classes + 1, hidden)
        self.inp = nn.Linear(2, hidden)
        self.body = nn.Sequential(nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU(), nn.Linear(hidden, 2))

    def forward(self, x, t, y):
        return self.body(self.inp(x) + self.t_embed(t) + self.y_embed(y))


class Diffusion(nn.Module):
    def __init__(self, T=100, p_uncond=0.1):
        super().__init__()
        self.T, self.p_uncond = T, p_uncond
        self.net = CondDenoiser(T=T)
        self.register_buffer("alphas_cumprod", cosine_alphas_cumprod(T))

    def forward(self, x0, y):
        t = torch.randint(0, self.T, (x0.size(0),))
        ac = self.alphas_cumprod[t].unsqueeze(1).to(x0.dtype)
        noise = torch.randn_like(x0)
        x_t = ac.sqrt() * x0 + (1 - ac).sqrt() * noise
        y = torch.where(torch.rand(y.shape) < self.p_uncond, torch.full_like(y, 2), y)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            pred = self.net(x_t, t, y)
        return F.mse_loss(pred.float(), noise)


@torch.no_grad()
def sample(net, alphas_cumprod, y, guidance=1.0, gen=None):
    x = torch.randn(y.size(0), 2, generator=gen)
    for t in reversed(range(len(alphas_cumprod))):
        tt = torch.full_like(y, t)
        eps = (1 + guidance) * net(x, tt, y) - guidance * net(x, tt, torch.full_like(y, 2))
        ac = alphas_cumprod[t]
        ac_prev = alphas_cumprod[t - 1] if t > 0 else torch.tensor(1.0)
        x0 = ((x - (1 - ac).sqrt() * eps) / ac.sqrt()).clamp(-3, 3)
        x = ac_prev.sqrt() * x0 + (1 - ac_prev).sqrt() * eps
    return x


def main():
    torch.manual_seed(0)
    dist.init_process_group("gloo", rank=0, world_size=1, init_method=f"tcp://127.0.0.1:{free_port()}")
    gen = torch.Generator().manual_seed(0)
    diffusion = DDP(Diffusion())
    ema = [p.detach().clone() for p in diffusion.module.net.parameters()]
    opt = torch.optim.AdamW(diffusion.parameters(), lr=2e-3)
    total, warmup = 1000, 50
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min((s + 1) / warmup, 0.5 * (1 + math.cos(math.pi * s / total))))

    ckpt_path = os.path.join(tempfile.mkdtemp(prefix="ddpm_"), "ckpt.pt")
    for step in range(total):
        x0, y = two_moons(256, gen)
        loss = diffusion(x0, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(diffusion.parameters(), 1.0)
        opt.step()
        sched.step()
        with torch.no_grad():
            torch._foreach_lerp_(ema, [p.detach() for p in diffusion.module.net.parameters()], 0.01)
        if step % 200 == 0:
            print(f"step {step} loss {loss.item():.4f} lr {sched.get_last_lr()[0]:.2e}")
        if step == total // 2:
            torch.save({"model": diffusion.module.state_dict(), "ema": ema, "opt": opt.state_dict(),
                        "sched": sched.state_dict(), "rng": torch.get_rng_state()}, ckpt_path)

    ckpt = torch.load(ckpt_path, map_location="cpu", weights_only=True)
    restored = Diffusion()
    restored.load_state_dict(ckpt["model"])
    torch.set_rng_state(ckpt["rng"])
    with torch.no_grad():
        for p, e in zip(restored.net.parameters(), ema):
            p.copy_(e)
    samples = sample(restored.net, restored.alphas_cumprod, torch.tensor([0] * 200 + [1] * 200), gen=gen)
    print("final loss", round(loss.item(), 4), "sample mean", samples.mean(0).tolist(),
          "finite", bool(torch.isfinite(samples).all()))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
