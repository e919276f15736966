"""Text-to-image diffusion: a tiny CLIP text encoder (transformers, from a config) gives the
conditioning; a small DiT with cross-attention is trained in bf16 (epsilon prediction).
The text encoder is frozen and kept in fp32 for quality.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from transformers import CLIPTextConfig, CLIPTextModel

torch.manual_seed(0)

# ---------------------------------------------------------------- tiny "tokenizer"
WORDS = ["<pad>", "<bos>", "<eos>", "a", "red", "green", "blue", "square", "circle", "photo", "of"]
VOCAB = {w: i for i, w in enumerate(WORDS)}
MAX_LEN = 8


def tokenize(prompts):
    ids = []
    for p in prompts:
        toks = [VOCAB["<bos>"]] + [VOCAB[w] for w in p.split()] + [VOCAB["<eos>"]]
        ids.append(toks + [VOCAB["<pad>"]] * (MAX_LEN - len(toks)))
    return torch.tensor(ids)


text_cfg = CLIPTextConfig(vocab_size=len(WORDS), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                          num_attention_heads=4, max_position_embeddings=MAX_LEN, eos_token_id=VOCAB["<eos>"],
                          bos_token_id=VOCAB["<bos>"], pad_token_id=VOCAB["<pad>"], projection_dim=32)
text_encoder = CLIPTextModel(text_cfg).eval().requires_grad_(False)


# ---------------------------------------------------------------- denoiser
class CrossAttnBlock(nn.Module):
    def __init__(self, dim, ctx_dim, heads=4):
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(dim)
        self.attn1 = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.norm2 = nn.LayerNorm(dim)
        self.to_q = nn.Linear(dim, dim, bias=False)
        self.to_k = nn.Linear(ctx_dim, dim, bias=False)
        self.to_v = nn.Linear(ctx_dim, dim, bias=False)
        self.to_out = nn.Linear(dim, dim)
        self.norm3 = nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))
        self.ada = nn.Linear(dim, 2 * dim)

    def cross_attn(self, x, ctx):
        B, N, C = x.shape
        q = self.to_q(x).view(B, N, self.heads, -1).transpose(1, 2)
        k = self.to_k(ctx).view(B, ctx.shape[1], self.heads, -1).transpose(1, 2)
        v = self.to_v(ctx).view(B, ctx.shape[1], self.heads, -1).transpose(1, 2)
        o = F.scaled_dot_product_attention(q, k, v)
        return self.to_out(o.transpose(1, 2).reshape(B, N, C))

    def forward(self, x, temb, ctx):
        scale, shift = self.ada(F.silu(temb))[:, None].chunk(2, -1)
        h = self.norm1(x) * (1 + scale) + shift
        x = x + self.attn1(h, h, h, need_weights=False)[0]
        x = x + self.cross_attn(self.norm2(x), ctx)
        return x + self.ff(self.norm3(x))


class TextDiT(nn.Module):
    def __init__(self, dim=64, ctx_dim=32, patch=2, img=8, depth=2):
        super().__init__()
        self.patch, self.img, self.dim = patch, img, dim
        self.patch_embed = nn.Conv2d(3, dim, patch, stride=patch)
        self.pos_embed = nn.Parameter(torch.randn(1, (img // patch) ** 2, dim) * 0.02)
        self.time_embed = nn.Sequential(nn.Linear(dim, dim), nn.SiLU(), nn.Linear(dim, dim))
        self.blocks = nn.ModuleList([CrossAttnBlock(dim, ctx_dim) for _ in range(depth)])
        self.norm_out = nn.LayerNorm(dim)
        self.proj_out = nn.Linear(dim, 3 * patch * patch)

    def forward(self, x, t, encoder_hidden_states):
        B = x.shape[0]
        half = self.dim // 2
        f = torch.exp(-math.log(10000) * torch.arange(half) / half)
        a = t.float()[:, None] * f[None]
        temb = self.time_embed(torch.cat([a.cos(), a.sin()], -1).to(x.dtype))
        h = self.patch_embed(x).flatten(2).transpose(1, 2) + self.pos_embed
        for blk in self.blocks:
            h = blk(h, temb, encoder_hidden_states)
        h = self.proj_out(self.norm_out(h))
        g = self.img // self.patch
        h = h.view(B, g, g, 3, self.patch, self.patch).permute(0, 3, 1, 4, 2, 5)
        return h.reshape(B, 3, self.img, self.img)


COLORS = {"red": (1, -1, -1), "green": (-1, 1, -1), "blue": (-1, -1, 1)}


def make_batch(n):
    prompts, imgs = [], []
    yy, xx = torch.meshgrid(torch.linspace(-1, 1, 8), torch.linspace(-1, 1, 8), indexing="ij")
    for _ in range(n):
        c = list(COLORS)[torch.randint(0, 3, ()).item()]
        shape = ["square", "circle"][torch.randint(0, 2, ()).item()]
        mask = (xx.abs().maximum(yy.abs()) < 0.6) if shape == "square" else (xx ** 2 + yy ** 2 < 0.5)
        img = torch.tensor(COLORS[c], dtype=torch.float32)[:, None, None] * mask
        prompts.append(f"a photo of a {c} {shape}")
        imgs.append(img)
    return prompts, torch.stack(imgs)


T = 1000
ac = torch.cumprod(1 - torch.linspace(1e-4, 0.02, T), 0)
dtype = torch.bfloat16
unet = TextDiT().to(dtype)
opt = torch.optim.AdamW(unet.parameters(), lr=2e-4)

for step in range(20):
    prompts, x0 = make_batch(16)
    with torch.no_grad():
        encoder_hidden_states = text_encoder(tokenize(prompts)).last_hidden_state
    x0 = x0.to(dtype)
    t = torch.randint(0, T, (16,))
    noise = torch.randn_like(x0)
    a = ac[t].view(-1, 1, 1, 1).to(dtype)
    noisy = a.sqrt() * x0 + (1 - a).sqrt() * noise
    pred = unet(noisy, t, encoder_hidden_states)
    loss = F.mse_loss(pred.float(), noise.float())
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 5 == 0:
        print(f"step {step} loss {loss.item():.4f}")
print("done")
