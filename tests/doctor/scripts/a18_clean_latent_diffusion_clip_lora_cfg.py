"""Clean reference: text-conditioned latent diffusion in low precision.

* tiny VAE, fitted briefly in fp32 then frozen in bf16; latent scaling factor estimated with
  fp32 accumulators;
* tiny CLIP text encoder (transformers, from a config), frozen in fp16, its hidden states
  cast to the denoiser dtype; the empty prompt gives the null embedding for CFG;
* a bf16 cross-attention denoiser fine-tuned with LoRA (peft keeps the adapters in fp32);
* the LoRA weights round-trip through safetensors, then DDIM + CFG sampling, decode, uint8.
"""
import math
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from peft import LoraConfig, get_peft_model, get_peft_model_state_dict, set_peft_model_state_dict
from safetensors.torch import load_file, save_file
from transformers import CLIPTextConfig, CLIPTextModel

torch.manual_seed(0)
DT = torch.bfloat16

# ---------------------------------------------------------------- text encoder
WORDS = ["<pad>", "<bos>", "<eos>", "red", "green", "blue", "top", "bottom", "bar"]
VOCAB = {w: i for i, w in enumerate(WORDS)}
MAX_LEN = 6


def tokenize(prompts):
    rows = []
    for p in prompts:
        ids = [VOCAB["<bos>"]] + [VOCAB[w] for w in p.split()] + [VOCAB["<eos>"]]
        rows.append(ids + [VOCAB["<pad>"]] * (MAX_LEN - len(ids)))
    return torch.tensor(rows)


text_encoder = CLIPTextModel(CLIPTextConfig(
    vocab_size=len(WORDS), hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2,
    max_position_embeddings=MAX_LEN, bos_token_id=1, eos_token_id=2, pad_token_id=0)).half().eval().requires_grad_(False)


@torch.no_grad()
def encode_text(prompts):
    return text_encoder(tokenize(prompts)).last_hidden_state.to(DT)


# ---------------------------------------------------------------- data + VAE
COL = {"red": (1.0, -1.0, -1.0), "green": (-1.0, 1.0, -1.0), "blue": (-1.0, -1.0, 1.0)}


def make_batch(n):
    prompts, imgs = [], torch.full((n, 3, 16, 16), -1.0)
    for i in range(n):
        c = list(COL)[torch.randint(0, 3, ()).item()]
        pos = ["top", "bottom"][torch.randint(0, 2, ()).item()]
        rows = slice(2, 7) if pos == "top" else slice(9, 14)
        imgs[i, :, rows, 2:14] = torch.tensor(COL[c])[:, None, None]
        prompts.append(f"{c} {pos} bar")
    return prompts, imgs


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(3, 32, 4, 2, 1), nn.SiLU(), nn.Conv2d(32, 8, 3, padding=1))
        self.dec = nn.Sequential(nn.Conv2d(4, 32, 3, padding=1), nn.SiLU(), nn.ConvTranspose2d(32, 3, 4, 2, 1))

    def encode(self, x):
        mu, logvar = self.enc(x).chunk(2, 1)
        return mu, logvar.clamp(-30, 20)


vae = VAE()
vopt = torch.optim.Adam(vae.parameters(), lr=2e-3)
for _ in range(30):
    _, x = make_batch(32)
    mu, logvar = vae.encode(x)
    z = mu + (0.5 * logvar).exp() * torch.randn_like(mu)
    kl = 0.5 * (mu ** 2 + logvar.exp() - 1 - logvar).mean()
    loss = F.mse_loss(vae.dec(z), x) + 1e-4 * kl
    vopt.zero_grad()
    loss.backward()
    vopt.step()
vae = vae.to(DT).eval().requires_grad_(False)

with torch.no_grad():
    s1 = s2 = torch.zeros((), dtype=torch.float32)
    cnt = 0
    for _ in range(8):
        mu, _ = vae.encode(make_batch(64)[1].to(DT))
        s1 += mu.float().sum()
        s2 += mu.float().pow(2).sum()
        cnt += mu.numel()
    std = (s2 / cnt - (s1 / cnt) ** 2).sqrt()
    scaling_factor = (1.0 / std).item()
print(f"vae fitted, scaling factor {scaling_factor:.3f}")


# ---------------------------------------------------------------- denoiser
class XBlock(nn.Module):
    def __init__(self, dim, ctx):
        super().__init__()
        self.n1, self.n2, self.n3 = nn.LayerNorm(dim), nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.to_q, self.to_k, self.to_v = nn.Linear(dim, dim), nn.Linear(ctx, dim), nn.Linear(ctx, dim)
        self.to_out = nn.Linear(dim, dim)
        self.ff = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))
        self.t = nn.Linear(dim, dim)

    def forward(self, x, temb, ctx):
        x = x + self.t(temb)[:, None]
        h = self.n1(x)
        q = self.to_q(h)[:, None]
        k, v = self.to_k(ctx)[:, None], self.to_v(ctx)[:, None]
        x = x + self.to_out(F.scaled_dot_product_attention(q, k, v)[:, 0])
        return x + self.ff(self.n2(x))


class LatentDenoiser(nn.Module):
    def __init__(self, dim=64, ctx=32):
        super().__init__()
        self.dim = dim
        self.proj_in = nn.Linear(4, dim)
        self.pos = nn.Parameter(torch.randn(1, 64, dim) * 0.02)
        self.blocks = nn.ModuleList([XBlock(dim, ctx) for _ in range(2)])
        self.proj_out = nn.Linear(dim, 4)

    def forward(self, z, t, ctx):
        B = z.shape[0]
        f = torch.exp(-math.log(10000) * torch.arange(self.dim // 2) / (self.dim // 2))
        a = t.float()[:, None] * f[None]
        temb = torch.cat([a.sin(), a.cos()], -1).to(self.pos.dtype)
        h = self.proj_in(z.flatten(2).transpose(1, 2)) + self.pos
        for b in self.blocks:
            h = b(h, temb, ctx)
        return self.proj_out(h).transpose(1, 2).reshape(B, 4, 8, 8)


T = 1000
ac = torch.cumprod(1 - torch.linspace(1e-4, 0.02, T), 0)
lora_cfg = LoraConfig(r=4, lora_alpha=8, target_modules=["to_q", "to_k", "to_v", "to_out"])
denoiser = get_peft_model(LatentDenoiser().to(DT), lora_cfg)  # adapters are created in fp32
opt = torch.optim.AdamW([p for p in denoiser.parameters() if p.requires_grad], lr=1e-3)
null_ctx = encode_text([""])

for step in range(25):
    prompts, x = make_batch(32)
    with torch.no_grad():
        z0 = vae.encode(x.to(DT))[0].float() * scaling_factor
    ctx = encode_text(prompts)
    drop = torch.rand(32) < 0.1
    ctx = torch.where(drop[:, None, None], null_ctx.expand_as(ctx), ctx)
    t = torch.randint(0, T, (32,))
    eps = torch.randn_like(z0)
    a = ac[t].view(-1, 1, 1, 1)
    zt = (a.sqrt() * z0 + (1 - a).sqrt() * eps).to(DT)
    loss = F.mse_loss(denoiser(zt, t, ctx).float(), eps)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 8 == 0:
        print(f"lora step {step} loss {loss.item():.4f}")

# ---------------------------------------------------------------- save / reload LoRA
tmp = tempfile.mkdtemp(prefix="ldm_lora_")
path = os.path.join(tmp, "lora.safetensors")
save_file({k: v.contiguous() for k, v in get_peft_model_state_dict(denoiser).items()}, path)
fresh = get_peft_model(LatentDenoiser().to(DT), lora_cfg)
fresh.base_model.model.load_state_dict(denoiser.base_model.model.state_dict(), strict=False)
set_peft_model_state_dict(fresh, load_file(path))
fresh.eval()


@torch.no_grad()
def ddim_cfg(net, prompts, steps=20, w=3.0):
    n = len(prompts)
    ctx = torch.cat([encode_text(prompts), null_ctx.expand(n, -1, -1)])
    z = torch.randn(n, 4, 8, 8)
    ts = torch.linspace(T - 1, 0, steps).round().long()
    for i, t in enumerate(ts):
        e_c, e_u = net(torch.cat([z, z]).to(DT), t.repeat(2 * n), ctx).float().chunk(2)
        eps = e_u + w * (e_c - e_u)
        a_t = ac[t]
        a_prev = ac[ts[i + 1]] if i + 1 < steps else torch.tensor(1.0)
        x0 = (z - (1 - a_t).sqrt() * eps) / a_t.sqrt()
        z = a_prev.sqrt() * x0 + (1 - a_prev).sqrt() * eps
    return z


z = ddim_cfg(fresh, ["red top bar", "blue bottom bar"])
with torch.no_grad():
    img = vae.dec((z / scaling_factor).to(DT)).float()
u8 = ((img.clamp(-1, 1) + 1) * 127.5).round().to(torch.uint8)
print("images", tuple(u8.shape), u8.dtype, int(u8.min()), int(u8.max()))
print("done")
