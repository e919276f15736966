import os
import tempfile
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB, D, HEADS, LAYERS, MAX_LEN = 2000, 128, 4, 2, 96


class Rotary(nn.Module):
    def __init__(self, head_dim, base=10000.0):
        super().__init__()
        inv_freq = 1.0 / base ** (torch.arange(0, head_dim, 2).float() / head_dim)
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    def forward(self, x):
        T = x.shape[-2]
        t = torch.arange(T, dtype=torch.float32)
        freqs = torch.outer(t, self.inv_freq)
        cos, sin = freqs.cos(), freqs.sin()
        x1, x2 = x[..., 0::2], x[..., 1::2]
        return torch.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], -1).flatten(-2)


class EncoderLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv, self.out = nn.Linear(D, 3 * D), nn.Linear(D, D)
        self.rotary = Rotary(D // HEADS)
        self.norm1, self.norm2 = nn.LayerNorm(D), nn.LayerNorm(D)
        self.mlp = nn.Sequential(nn.Linear(D, 4 * D), nn.GELU(), nn.Linear(4 * D, D))

    def forward(self, x, pad_mask):
        B, T, _ = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(B, T, 3, HEADS, D // HEADS).permute(2, 0, 3, 1, 4)
        q, k = self.rotary(q), self.rotary(k)
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=~pad_mask[:, None, None, :])
        x = x + self.out(y.transpose(1, 2).reshape(B, T, D))
        return x + self.mlp(self.norm2(x))


class CrossEncoderReranker(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, D, padding_idx=0)
        self.segment = nn.Embedding(2, D)
        self.layers = nn.ModuleList(EncoderLayer() for _ in range(LAYERS))
        self.norm = nn.LayerNorm(D)
        self.score = nn.Linear(D, 1)

    def forward(self, ids, segments):
        pad_mask = ids.eq(0)
        x = self.embed(ids) + self.segment(segments)
        for layer in self.layers:
            x = layer(x, pad_mask)
        return self.score(self.norm(x[:, 0])).squeeze(-1)


def pack_pairs(query, passages, max_len=MAX_LEN):
    ids = torch.zeros(len(passages), max_len, dtype=torch.long)
    seg = torch.zeros_like(ids)
    for i, p in enumerate(passages):
        seq = [1] + query + [2] + p
        seq = seq[:max_len]
        ids[i, :len(seq)] = torch.tensor(seq)
        seg[i, len(query) + 2:len(seq)] = 1
    return ids, seg


torch.manual_seed(0)
ckpt_path = os.path.join(tempfile.mkdtemp(), "reranker.pt")
torch.save(CrossEncoderReranker().state_dict(), ckpt_path)
print(f"checkpoint written: {os.path.getsize(ckpt_path) / 1e6:.2f} MB")


def load_for_serving(path):
    t0 = time.time()
    with torch.device("meta"):
        model = CrossEncoderReranker()
    state = torch.load(path, map_location="cpu", weights_only=True)
    missing, unexpected = model.load_state_dict(state, strict=True, assign=True)
    print(f"loaded in {time.time() - t0:.3f}s (missing={len(missing)}, unexpected={len(unexpected)})")
    return model.eval()


reranker = load_for_serving(ckpt_path)
gen = torch.Generator().manual_seed(1)
query = torch.randint(3, VOCAB, (6,), generator=gen).tolist()
candidates = [torch.randint(3, VOCAB, (int(n),), generator=gen).tolist()
              for n in torch.randint(20, 80, (16,), generator=gen)]

with torch.inference_mode():
    ids, seg = pack_pairs(query, candidates)
    scores = reranker(ids, seg)
order = scores.argsort(descending=True)
for rank, idx in enumerate(order[:5].tolist()):
    print(f"rank {rank + 1}: passage {idx} score {scores[idx].item():.4f}")
