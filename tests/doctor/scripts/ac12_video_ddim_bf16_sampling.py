import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

T_FRAMES, SIZE, NUM_TRAIN_STEPS = 8, 16, 1000


def moving_blobs(bs):
    t = torch.arange(T_FRAMES).float()[None, :, None, None]
    yy, xx = torch.meshgrid(torch.arange(SIZE).float(), torch.arange(SIZE).float(), indexing="ij")
    cx = torch.rand(bs)[:, None, None, None] * 8 + 2 + t
    cy = torch.rand(bs)[:, None, None, None] * 8 + 4
    blob = torch.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / 6.0)
    return (blob * 2 - 1).unsqueeze(1)  # (B, 1, T, H, W) in [-1, 1]


def timestep_embedding(t, dim):
    half = dim // 2
    freqs = torch.exp(-math.log(10000) * torch.arange(half, dtype=torch.float32) / half).to(t.device)
    args = t.float()[:, None] * freqs[None]
    return torch.cat([args.sin(), args.cos()], dim=-1)


class DiTBlock(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim, elementwise_affine=False)
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.norm2 = nn.LayerNorm(dim, elementwise_affine=False)
        self.mlp = nn.Sequential(nn.Linear(dim, dim * 4), nn.GELU(), nn.Linear(dim * 4, dim))
        self.ada = nn.Linear(dim, dim * 4)

    def forward(self, x, c):
        s1, b1, s2, b2 = self.ada(c)[:, None].chunk(4, dim=-1)
        h = self.norm1(x) * (1 + s1) + b1
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.mlp(self.norm2(x) * (1 + s2) + b2)


class VideoDiT(nn.Module):
    def __init__(self, dim=64, depth=3, heads=4, patch=4):
        super().__init__()
        self.patch, self.dim = patch, dim
        n_tokens = T_FRAMES * (SIZE // patch) ** 2
        self.embed = nn.Linear(patch * patch, dim)
        self.pos = nn.Parameter(torch.randn(1, n_tokens, dim) * 0.02)
        self.t_mlp = nn.Sequential(nn.Linear(dim, dim), nn.SiLU(), nn.Linear(dim, dim))
        self.blocks = nn.ModuleList([DiTBlock(dim, heads) for _ in range(depth)])
        self.out = nn.Linear(dim, patch * patch)

    def forward(self, x, t):
        b, p, g = x.shape[0], self.patch, SIZE // self.patch
        tok = x.view(b, T_FRAMES, g, p, g, p).permute(0, 1, 2, 4, 3, 5).reshape(b, -1, p * p)
        h = self.embed(tok) + self.pos
        c = self.t_mlp(timestep_embedding(t, self.dim).to(x.dtype))
        for blk in self.blocks:
            h = blk(h, c)
        out = self.out(h).view(b, T_FRAMES, g, g, p, p).permute(0, 1, 2, 4, 3, 5)
        return out.reshape(b, 1, T_FRAMES, SIZE, SIZE)  # predicts the clean video x0


class VideoDiffusion(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = VideoDiT()
        betas = torch.linspace(1e-4, 0.02, NUM_TRAIN_STEPS)
        self.register_buffer("alphas_cumprod", torch.cumprod(1 - betas, dim=0))

    def training_loss(self, x0):
        t = torch.randint(0, NUM_TRAIN_STEPS, (x0.shape[0],))
        ab = self.alphas_cumprod[t].view(-1, 1, 1, 1, 1)
        noise = torch.randn_like(x0)
        xt = ab.sqrt() * x0 + (1 - ab).sqrt() * noise
        return F.mse_loss(self.net(xt, t), x0)

    @torch.no_grad()
    def ddim_sample(self, shape, steps=25, eta=0.0):
        dtype = self.alphas_cumprod.dtype
        x = torch.randn(shape, dtype=dtype)
        timesteps = torch.linspace(NUM_TRAIN_STEPS - 1, 0, steps).round().long()
        for i, t in enumerate(timesteps):
            ab_t = self.alphas_cumprod[t]
            ab_prev = self.alphas_cumprod[timesteps[i + 1]] if i + 1 < steps else torch.ones((), dtype=dtype)
            x0 = self.net(x, t.expand(shape[0])).clamp(-1, 1)
            eps = (x - ab_t.sqrt() * x0) / (1 - ab_t).sqrt()
            sigma = eta * ((1 - ab_prev) / (1 - ab_t) * (1 - ab_t / ab_prev)).sqrt()
            x = ab_prev.sqrt() * x0 + (1 - ab_prev - sigma ** 2).sqrt() * eps + sigma * torch.randn_like(x)
        return x


def main():
    model = VideoDiffusion()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
    for step in range(40):
        loss = model.training_loss(moving_blobs(8))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 0:
            print(f"step {step:2d} x0-mse {loss.item():.4f}")

    model = model.to(torch.bfloat16).eval()
    video = model.ddim_sample((2, 1, T_FRAMES, SIZE, SIZE)).float()
    ref = moving_blobs(64)
    print(f"sample mean {video.mean().item():.4f} std {video.std().item():.4f} "
          f"(data mean {ref.mean().item():.4f} std {ref.std().item():.4f})")
    frame_diff = (video[:, :, 1:] - video[:, :, :-1]).abs().mean().item()
    print(f"temporal smoothness (mean |dframe|): {frame_diff:.4f}")


if __name__ == "__main__":
    main()
