import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

CODEBOOK, TOKENS_PER_FRAME, FRAMES = 64, 16, 6
SEQ = TOKENS_PER_FRAME * FRAMES
BOS = CODEBOOK


def tokenized_clips(bs):
    """Stand-in for VQ tokens of short clips: each frame's 4x4 token grid shifts by one column per frame."""
    first = torch.randint(0, CODEBOOK, (bs, 4, 4))
    frames = [torch.roll(first, shifts=t, dims=2) for t in range(FRAMES)]
    return torch.stack(frames, 1).reshape(bs, SEQ)


class CachedSelfAttention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads, self.hd = heads, dim // heads
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)
        self.k_cache = self.v_cache = None

    def setup_cache(self, batch, max_len):
        self.k_cache = torch.zeros(batch, self.heads, max_len, self.hd)
        self.v_cache = torch.zeros(batch, self.heads, max_len, self.hd)

    def forward(self, x, start_pos=None):
        b, n, d = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.heads, self.hd).permute(2, 0, 3, 1, 4)
        if start_pos is None:
            out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            self.k_cache[:, :, start_pos:start_pos + n] = k
            self.v_cache[:, :, start_pos:start_pos + n] = v
            keys = self.k_cache[:, :, :start_pos + n]
            vals = self.v_cache[:, :, :start_pos + n]
            att = (q @ keys.transpose(-2, -1)) * self.hd ** -0.5
            out = att.softmax(-1) @ vals
        return self.proj(out.transpose(1, 2).reshape(b, n, d))


class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attn = CachedSelfAttention(dim, heads)
        self.mlp = nn.Sequential(nn.Linear(dim, dim * 4), nn.GELU(), nn.Linear(dim * 4, dim))

    def forward(self, x, start_pos=None):
        x = x + self.attn(self.ln1(x), start_pos)
        return x + self.mlp(self.ln2(x))


class VideoTokenGPT(nn.Module):
    def __init__(self, dim=96, depth=3, heads=4):
        super().__init__()
        self.tok = nn.Embedding(CODEBOOK + 1, dim)
        self.pos = nn.Embedding(SEQ + 1, dim)
        self.blocks = nn.ModuleList([Block(dim, heads) for _ in range(depth)])
        self.ln_f = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, CODEBOOK, bias=False)

    def forward(self, ids, start_pos=None):
        offset = 0 if start_pos is None else start_pos
        x = self.tok(ids) + self.pos(torch.arange(offset, offset + ids.shape[1]))
        for blk in self.blocks:
            x = blk(x, start_pos)
        return self.head(self.ln_f(x))

    def setup_cache(self, batch):
        for blk in self.blocks:
            blk.attn.setup_cache(batch, SEQ + 1)

    @torch.no_grad()
    def generate(self, prompt, temperature=0.8):
        logits = self(prompt, start_pos=0)[:, -1]
        out = prompt
        while out.shape[1] < SEQ + 1:
            nxt = torch.multinomial(F.softmax(logits.float() / temperature, -1), 1)
            out = torch.cat([out, nxt], 1)
            logits = self(nxt, start_pos=out.shape[1] - 1)[:, -1]
        return out[:, 1:]


def main():
    model = VideoTokenGPT()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, betas=(0.9, 0.95))
    for step in range(60):
        seq = tokenized_clips(16)
        ids = torch.cat([torch.full((16, 1), BOS), seq], 1)
        logits = model(ids[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, CODEBOOK), ids[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 0:
            print(f"step {step:2d} token nll {loss.item():.4f}")

    model.eval()
    model.setup_cache(batch=2)
    model = model.to(torch.bfloat16)
    ref = tokenized_clips(2)
    prompt = torch.cat([torch.full((2, 1), BOS), ref[:, :TOKENS_PER_FRAME]], 1)
    video_tokens = model.generate(prompt)
    frames = video_tokens.view(2, FRAMES, 4, 4)
    consistent = (frames[:, 1:] == torch.roll(frames[:, :-1], 1, dims=3)).float().mean().item()
    print(f"generated {tuple(frames.shape)} token grids; motion-consistent tokens {consistent:.3f}")


if __name__ == "__main__":
    main()
