"""v-prediction training of a small DiT (Peebles & Xie style) cast to bf16 to save memory.

The timestep embedder is copied from the DiT reference code.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
IMG, PATCH, DIM, DEPTH, HEADS = 16, 2, 96, 3, 4


def modulate(x, shift, scale):
    return x * (1 + scale.unsqueeze(1)) + shift.unsqueeze(1)


class TimestepEmbedder(nn.Module):
    def __init__(self, hidden_size, frequency_embedding_size=256):
        super().__init__()
        self.mlp = nn.Sequential(
            nn.Linear(frequency_embedding_size, hidden_size, bias=True),
            nn.SiLU(),
            nn.Linear(hidden_size, hidden_size, bias=True),
        )
        self.frequency_embedding_size = frequency_embedding_size

    @staticmethod
    def timestep_embedding(t, dim, max_period=10000):
        half = dim // 2
        freqs = torch.exp(
            -math.log(max_period) * torch.arange(start=0, end=half, dtype=torch.float32) / half
        ).to(device=t.device)
        args = t[:, None].float() * freqs[None]
        embedding = torch.cat([torch.cos(args), torch.sin(args)], dim=-1)
        return embedding

    def forward(self, t):
        t_freq = self.timestep_embedding(t, self.frequency_embedding_size)
        t_emb = self.mlp(t_freq)
        return t_emb


class DiTBlock(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim, elementwise_affine=False, eps=1e-6)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.norm2 = nn.LayerNorm(dim, elementwise_affine=False, eps=1e-6)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(approximate="tanh"), nn.Linear(4 * dim, dim))
        self.adaLN_modulation = nn.Sequential(nn.SiLU(), nn.Linear(dim, 6 * dim))
        self.heads = heads

    def attn(self, x):
        B, N, C = x.shape
        q, k, v = self.qkv(x).reshape(B, N, 3, self.heads, C // self.heads).permute(2, 0, 3, 1, 4)
        o = F.scaled_dot_product_attention(q, k, v)
        return self.proj(o.transpose(1, 2).reshape(B, N, C))

    def forward(self, x, c):
        sh_msa, sc_msa, g_msa, sh_mlp, sc_mlp, g_mlp = self.adaLN_modulation(c).chunk(6, dim=1)
        x = x + g_msa.unsqueeze(1) * self.attn(modulate(self.norm1(x), sh_msa, sc_msa))
        x = x + g_mlp.unsqueeze(1) * self.mlp(modulate(self.norm2(x), sh_mlp, sc_mlp))
        return x


class DiT(nn.Module):
    def __init__(self):
        super().__init__()
        self.x_embedder = nn.Linear(PATCH * PATCH * 3, DIM)
        self.pos_embed = nn.Parameter(torch.zeros(1, (IMG // PATCH) ** 2, DIM))
        self.t_embedder = TimestepEmbedder(DIM)
        self.blocks = nn.ModuleList([DiTBlock(DIM, HEADS) for _ in range(DEPTH)])
        self.norm_final = nn.LayerNorm(DIM, elementwise_affine=False, eps=1e-6)
        self.final = nn.Linear(DIM, PATCH * PATCH * 3)
        nn.init.normal_(self.pos_embed, std=0.02)

    def patchify(self, x):
        B, C, H, W = x.shape
        x = x.reshape(B, C, H // PATCH, PATCH, W // PATCH, PATCH).permute(0, 2, 4, 3, 5, 1)
        return x.reshape(B, (H // PATCH) * (W // PATCH), PATCH * PATCH * C)

    def unpatchify(self, x):
        B = x.shape[0]
        g = IMG // PATCH
        x = x.reshape(B, g, g, PATCH, PATCH, 3).permute(0, 5, 1, 3, 2, 4)
        return x.reshape(B, 3, IMG, IMG)

    def forward(self, x, t):
        x = self.x_embedder(self.patchify(x)) + self.pos_embed
        c = self.t_embedder(t)
        for blk in self.blocks:
            x = blk(x, c)
        return self.unpatchify(self.final(self.norm_final(x)))


T = 1000
betas = torch.linspace(1e-4, 0.02, T)
alphas_cumprod = torch.cumprod(1.0 - betas, 0)

dtype = torch.bfloat16
model = DiT().to(dtype)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4, eps=1e-6)

for step in range(20):
    x0 = (torch.rand(16, 3, 1, 1) * 2 - 1).expand(16, 3, IMG, IMG) + 0.05 * torch.randn(16, 3, IMG, IMG)
    x0 = x0.to(dtype)
    t = torch.randint(0, T, (16,))
    noise = torch.randn_like(x0)
    a = alphas_cumprod[t].to(dtype).view(-1, 1, 1, 1)
    x_t = a.sqrt() * x0 + (1 - a).sqrt() * noise
    v_target = a.sqrt() * noise - (1 - a).sqrt() * x0
    v_pred = model(x_t, t)
    loss = F.mse_loss(v_pred.float(), v_target.float())
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    if step % 5 == 0:
        print(f"step {step} loss {loss.item():.4f}")
print("done")
