import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
PAD, BOS, V = 0, 1, 130  # 128 MIDI pitches + pad + bos


class Block(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.h, self.dh = h, d // h
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.ff = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x, attn_mask):
        B, T, D = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(B, T, 3, self.h, self.dh).permute(2, 0, 3, 1, 4)
        s = (q @ k.transpose(-1, -2)) * self.dh ** -0.5
        s = s.masked_fill(~attn_mask[:, None], torch.finfo(s.dtype).min)
        y = s.float().softmax(-1).to(v.dtype) @ v
        x = x + self.proj(y.transpose(1, 2).reshape(B, T, D))
        return x + self.ff(self.ln2(x))


class MelodyLM(nn.Module):
    def __init__(self, d=96, h=4, n=3, max_len=128):
        super().__init__()
        self.emb, self.pos = nn.Embedding(V, d), nn.Embedding(max_len, d)
        self.blocks = nn.ModuleList(Block(d, h) for _ in range(n))
        self.ln_f, self.head = nn.LayerNorm(d), nn.Linear(d, V)

    def forward(self, ids, pad_mask):
        T = ids.shape[1]
        pos_ids = (pad_mask.long().cumsum(-1) - 1).clamp(min=0)
        causal = torch.ones(T, T, dtype=torch.bool).tril()
        attn_mask = causal[None] & pad_mask[:, None, :]
        attn_mask |= torch.eye(T, dtype=torch.bool)[None]
        x = self.emb(ids) + self.pos(pos_ids)
        for b in self.blocks:
            x = b(x, attn_mask)
        return self.head(self.ln_f(x))


def left_pad(seqs):
    L = max(len(s) for s in seqs)
    ids = torch.full((len(seqs), L), PAD)
    mask = torch.zeros(len(seqs), L, dtype=torch.bool)
    for i, s in enumerate(seqs):
        ids[i, L - len(s):] = torch.tensor(s)
        mask[i, L - len(s):] = True
    return ids, mask


def top_p_filter(logits, top_p):
    sorted_logits, order = logits.sort(-1, descending=True)
    cum = sorted_logits.softmax(-1).cumsum(-1)
    drop = cum - sorted_logits.softmax(-1) > top_p
    sorted_logits = sorted_logits.masked_fill(drop, float("-inf"))
    return torch.full_like(logits, float("-inf")).scatter(-1, order, sorted_logits)


@torch.inference_mode()
def sample(model, prompts, n_new=32, temperature=0.9, top_p=0.92):
    ids, mask = left_pad(prompts)
    total_logp = torch.zeros(ids.shape[0])
    for _ in range(n_new):
        logits = model(ids, mask)[:, -1].float() / temperature
        logits[:, PAD] = float("-inf")
        logits[:, BOS] = float("-inf")
        filt = top_p_filter(logits, top_p)
        nxt = torch.multinomial(filt.softmax(-1), 1)
        total_logp += filt.log_softmax(-1).gather(-1, nxt).squeeze(-1)
        ids = torch.cat([ids, nxt], 1)
        mask = torch.cat([mask, torch.ones_like(nxt, dtype=torch.bool)], 1)
    return ids, mask, total_logp / n_new


model = MelodyLM().to(torch.bfloat16).eval()
prompts = [[BOS] + torch.randint(50, 80, (n,)).tolist() for n in (5, 12, 8, 17, 3, 9)]
ids, mask, mean_logp = sample(model, prompts)
for i in range(len(prompts)):
    notes = ids[i][mask[i]].tolist()[1:]
    print(f"melody {i}: len {len(notes)}  last notes {notes[-8:]}  mean logp {mean_logp[i].item():.3f}")
print(f"batch mean token logp {mean_logp.mean().item():.4f}  finite={bool(torch.isfinite(mean_logp).all())}")
