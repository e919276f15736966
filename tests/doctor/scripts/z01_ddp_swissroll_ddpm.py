import math
import socket

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def swiss_roll(n, seed=0):
    rng = np.random.default_rng(seed)
    t = 1.5 * np.pi * (1 + 2 * rng.random(n))
    pts = np.stack([t * np.cos(t), t * np.sin(t)], axis=1) / 10.0
    return torch.tensor(pts, dtype=torch.float32)


def timestep_embedding(t, dim):
    half = dim // 2
    freqs = torch.exp(-math.log(10000.0) * torch.arange(half, dtype=torch.float32) / half)
    args = t.float()[:, None] * freqs[None]
    return torch.cat([torch.sin(args), torch.cos(args)], dim=-1)


class Denoiser(nn.Module):
    def __init__(self, dim=2, hidden=128, temb=32):
        super().__init__()
        self.temb = temb
        self.net = nn.Sequential(
            nn.Linear(dim + temb, hidden), nn.SiLU(),
            nn.Linear(hidden, hidden), nn.SiLU(),
            nn.Linear(hidden, dim),
        )

    def forward(self, x, t):
        return self.net(torch.cat([x, timestep_embedding(t, self.temb)], dim=-1))


class GaussianDiffusion(nn.Module):
    def __init__(self, model, timesteps=200, beta_start=1e-4, beta_end=2e-2):
        super().__init__()
        self.model = model
        self.timesteps = timesteps
        betas = np.linspace(beta_start, beta_end, timesteps)
        alphas_cumprod = np.cumprod(1.0 - betas)
        self.register_buffer("betas", torch.from_numpy(betas))
        self.register_buffer("alphas_cumprod", torch.from_numpy(alphas_cumprod))
        self.register_buffer("sqrt_alphas_cumprod", torch.from_numpy(np.sqrt(alphas_cumprod)))
        self.register_buffer("sqrt_one_minus_alphas_cumprod", torch.from_numpy(np.sqrt(1.0 - alphas_cumprod)))

    def q_sample(self, x0, t, noise):
        a = self.sqrt_alphas_cumprod[t].unsqueeze(-1)
        s = self.sqrt_one_minus_alphas_cumprod[t].unsqueeze(-1)
        return a * x0 + s * noise

    def forward(self, x0):
        t = torch.randint(0, self.timesteps, (x0.size(0),), device=x0.device)
        noise = torch.randn_like(x0)
        x_t = self.q_sample(x0, t, noise)
        return F.mse_loss(self.model(x_t, t), noise)


def main():
    torch.manual_seed(0)
    dist.init_process_group("gloo", rank=0, world_size=1, init_method=f"tcp://127.0.0.1:{free_port()}")
    data = TensorDataset(swiss_roll(4096))
    sampler = DistributedSampler(data, num_replicas=dist.get_world_size(), rank=dist.get_rank(), shuffle=True)
    loader = DataLoader(data, batch_size=256, sampler=sampler, drop_last=True)

    diffusion = DDP(GaussianDiffusion(Denoiser()))
    opt = torch.optim.AdamW(diffusion.parameters(), lr=2e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=2e-3, total_steps=3 * len(loader))

    for epoch in range(3):
        sampler.set_epoch(epoch)
        running = 0.0
        for (x0,) in loader:
            loss = diffusion(x0)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(diffusion.parameters(), 1.0)
            opt.step()
            sched.step()
            running += loss.item()
        print(f"epoch {epoch} loss {running / len(loader):.4f} lr {sched.get_last_lr()[0]:.2e}")

    dist.destroy_process_group()


if __name__ == "__main__":
    main()
