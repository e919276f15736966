"""Improved-DDPM cosine noise schedule (Nichol & Dhariwal 2021), epsilon-prediction U-Net
trained with the HF Trainer (bf16 autocast on CPU), then ancestral DDPM sampling.
"""
import math
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from datasets import Dataset
from transformers import Trainer, TrainingArguments

torch.manual_seed(0)
T = 1000


def cosine_betas(timesteps, s=0.008):
    steps = torch.arange(timesteps + 1, dtype=torch.float32) / timesteps
    f = torch.cos((steps + s) / (1 + s) * math.pi / 2) ** 2
    alphas_cumprod = f / f[0]
    return 1 - alphas_cumprod[1:] / alphas_cumprod[:-1]


betas = cosine_betas(T)
alphas = 1.0 - betas
alphas_cumprod = torch.cumprod(alphas, 0)
alphas_cumprod_prev = torch.cat([torch.ones(1), alphas_cumprod[:-1]])
posterior_variance = betas * (1 - alphas_cumprod_prev) / (1 - alphas_cumprod)


class EpsUNet(nn.Module):
    def __init__(self, ch=32):
        super().__init__()
        self.temb = nn.Sequential(nn.Linear(32, ch * 2), nn.SiLU(), nn.Linear(ch * 2, ch))
        self.inc = nn.Conv2d(3, ch, 3, padding=1)
        self.d1 = nn.Conv2d(ch, ch * 2, 4, 2, 1)
        self.m = nn.Conv2d(ch * 2, ch * 2, 3, padding=1)
        self.u1 = nn.ConvTranspose2d(ch * 2, ch, 4, 2, 1)
        self.outc = nn.Conv2d(ch * 2, 3, 3, padding=1)
        self.gn1, self.gn2 = nn.GroupNorm(8, ch), nn.GroupNorm(8, ch * 2)

    def eps(self, x, t):
        f = torch.exp(-math.log(10000) * torch.arange(16, device=x.device) / 16)
        a = t.float()[:, None] * f[None]
        e = self.temb(torch.cat([a.sin(), a.cos()], 1))[:, :, None, None]
        h0 = F.silu(self.gn1(self.inc(x) + e))
        h = F.silu(self.gn2(self.d1(h0)))
        h = F.silu(self.m(h)) + h
        h = torch.cat([self.u1(h), h0], 1)
        return self.outc(h)

    def forward(self, pixel_values):
        x0 = pixel_values
        t = torch.randint(0, T, (x0.shape[0],), device=x0.device)
        noise = torch.randn_like(x0)
        a = alphas_cumprod.to(x0.device)[t].view(-1, 1, 1, 1)
        x_t = a.sqrt() * x0 + (1 - a).sqrt() * noise
        return {"loss": F.mse_loss(self.eps(x_t, t).float(), noise)}


def checkerboards(n):
    k = torch.randint(1, 4, (n,))
    yy, xx = torch.meshgrid(torch.arange(8), torch.arange(8), indexing="ij")
    out = []
    for i in range(n):
        board = (((yy // k[i]) + (xx // k[i])) % 2).float() * 2 - 1
        out.append(board[None].repeat(3, 1, 1) * torch.rand(3, 1, 1))
    return torch.stack(out)


ds = Dataset.from_dict({"pixel_values": checkerboards(512).numpy()}).with_format("torch")
model = EpsUNet()
args = TrainingArguments(output_dir=tempfile.mkdtemp(prefix="cosine_ddpm_"), per_device_train_batch_size=32,
                         num_train_epochs=1, learning_rate=3e-4, bf16=True, use_cpu=True, logging_steps=4,
                         save_strategy="no", report_to=[], remove_unused_columns=False, disable_tqdm=True)
Trainer(model=model, args=args, train_dataset=ds).train()


@torch.no_grad()
def p_sample_loop(model, shape):
    model.eval()
    x = torch.randn(shape)
    for i in reversed(range(T)):
        t = torch.full((shape[0],), i, dtype=torch.long)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            eps = model.eps(x, t).float()
        mean = (x - betas[i] / (1 - alphas_cumprod[i]).sqrt() * eps) / alphas[i].sqrt()
        if i > 0:
            x = mean + posterior_variance[i].sqrt() * torch.randn_like(x)
        else:
            x = mean
    return x


samples = p_sample_loop(model, (4, 3, 8, 8))
imgs = ((samples.clamp(-1, 1) + 1) * 127.5).round().to(torch.uint8)
print("sampled", tuple(imgs.shape), "pixel mean", imgs.float().mean().item())
print("done")
