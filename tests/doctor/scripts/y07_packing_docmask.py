import math
import random

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
random.seed(0)
VOCAB, D, HEADS, LAYERS, PACK_LEN, EOS = 200, 64, 4, 2, 64, 1


def make_documents(n):
    docs = []
    for _ in range(n):
        length = random.randint(5, 30)
        start = random.randint(2, VOCAB - 1)
        docs.append([(start + 3 * i) % (VOCAB - 2) + 2 for i in range(length)] + [EOS])
    return docs


def pack(docs, pack_len):
    """Greedy packing into fixed rows; returns tokens, doc ids and per-doc positions."""
    rows, ids, pos = [], [], []
    cur, cur_id, cur_pos, doc_idx = [], [], [], 0
    for d in docs:
        d = d[:pack_len]
        if len(cur) + len(d) > pack_len:
            pad = pack_len - len(cur)
            rows.append(cur + [0] * pad); ids.append(cur_id + [-1] * pad); pos.append(cur_pos + [0] * pad)
            cur, cur_id, cur_pos = [], [], []
        cur += d; cur_id += [doc_idx] * len(d); cur_pos += list(range(len(d)))
        doc_idx += 1
    return torch.tensor(rows), torch.tensor(ids), torch.tensor(pos)


def document_mask(doc_ids):
    T = doc_ids.size(1)
    same_doc = doc_ids[:, :, None] == doc_ids[:, None, :]
    causal = torch.tril(torch.ones(T, T, dtype=torch.bool))
    return (same_doc & causal)[:, None]


class PackedAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(D, 3 * D, bias=False)
        self.out = nn.Linear(D, D, bias=False)

    def forward(self, x, mask):
        B, T, C = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, HEADS, C // HEADS).permute(2, 0, 3, 1, 4)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(C // HEADS)
        att = att.masked_fill(~mask, -1e9)
        att = att.softmax(-1)
        return self.out((att @ v).transpose(1, 2).reshape(B, T, C))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.n1, self.n2 = nn.LayerNorm(D), nn.LayerNorm(D)
        self.attn = PackedAttention()
        self.ff = nn.Sequential(nn.Linear(D, 4 * D), nn.GELU(), nn.Linear(4 * D, D))

    def forward(self, x, mask):
        x = x + self.attn(self.n1(x), mask)
        return x + self.ff(self.n2(x))


class PackedLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, D)
        self.pos = nn.Embedding(PACK_LEN, D)
        self.blocks = nn.ModuleList(Block() for _ in range(LAYERS))
        self.norm = nn.LayerNorm(D)
        self.lm_head = nn.Linear(D, VOCAB, bias=False)

    def forward(self, tokens, doc_ids, positions):
        mask = document_mask(doc_ids)
        x = self.tok(tokens) + self.pos(positions)
        for b in self.blocks:
            x = b(x, mask)
        return self.lm_head(self.norm(x))


tokens, doc_ids, positions = pack(make_documents(300), PACK_LEN)
labels = tokens.clone()
labels[:, :-1] = tokens[:, 1:]
labels[:, -1] = -100
labels[(doc_ids == -1) | (tokens == EOS)] = -100
print(f"packed {tokens.size(0)} rows, fill {(doc_ids >= 0).float().mean().item():.2%}")

model = PackedLM()
opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=0.01)
for step in range(40):
    idx = torch.randint(0, tokens.size(0), (16,))
    with torch.autocast("cpu", dtype=torch.float16):
        logits = model(tokens[idx], doc_ids[idx], positions[idx])
    loss = F.cross_entropy(logits.float().view(-1, VOCAB), labels[idx].view(-1), ignore_index=-100)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(f"step {step} loss {loss.item():.4f}")
print(f"final loss {loss.item():.4f}")
