import copy
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(0)

VOCAB, D, N_LAYER, N_HEAD, MAX_LEN = 96, 64, 2, 4, 48
PAD, IGNORE = 0, -100


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1 = nn.LayerNorm(D)
        self.attn = nn.MultiheadAttention(D, N_HEAD, batch_first=True)
        self.ln2 = nn.LayerNorm(D)
        self.mlp = nn.Sequential(nn.Linear(D, 4 * D), nn.GELU(), nn.Linear(4 * D, D))

    def forward(self, x, causal):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, attn_mask=causal, need_weights=False)[0]
        return x + self.mlp(self.ln2(x))


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(VOCAB, D)
        self.wpe = nn.Embedding(MAX_LEN, D)
        self.blocks = nn.ModuleList([Block() for _ in range(N_LAYER)])
        self.ln_f = nn.LayerNorm(D)
        self.lm_head = nn.Linear(D, VOCAB, bias=False)
        self.lm_head.weight = self.wte.weight

    def forward(self, idx):
        T = idx.shape[1]
        causal = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
        x = self.wte(idx) + self.wpe(torch.arange(T))
        for blk in self.blocks:
            x = blk(x, causal)
        return self.lm_head(self.ln_f(x))


def make_pairs(n):
    pairs = []
    for _ in range(n):
        prompt = rng.integers(3, VOCAB, size=rng.integers(6, 14))
        chosen = np.sort(rng.integers(3, VOCAB, size=rng.integers(8, 20)))
        rejected = rng.integers(3, VOCAB, size=rng.integers(8, 20))
        pairs.append((prompt, chosen, rejected))
    return pairs


def collate(batch):
    seqs, labels = [], []
    for prompt, chosen, rejected in batch:
        for resp in (chosen, rejected):
            seqs.append(np.concatenate([prompt, resp]))
            labels.append(np.concatenate([np.full(len(prompt), IGNORE), resp]))
    L = max(len(s) for s in seqs)
    ids = np.full((len(seqs), L), PAD, dtype=np.int32)
    lab = np.full((len(seqs), L), IGNORE, dtype=np.int32)
    for i, (s, l) in enumerate(zip(seqs, labels)):
        ids[i, : len(s)] = s
        lab[i, : len(l)] = l
    return torch.from_numpy(ids), torch.from_numpy(lab)


def sequence_logps(model, ids, labels):
    logits = model(ids)[:, :-1]
    targets = labels[:, 1:]
    tok_logp = -F.cross_entropy(logits.transpose(1, 2), targets, ignore_index=IGNORE, reduction="none")
    return tok_logp.sum(-1)


def dpo_loss(pol_c, pol_r, ref_c, ref_r, beta=0.1):
    logits = beta * ((pol_c - pol_r) - (ref_c - ref_r))
    return -F.logsigmoid(logits).mean(), (logits > 0).float().mean()


policy = TinyLM()
ref = copy.deepcopy(policy).eval().requires_grad_(False)
opt = torch.optim.AdamW(policy.parameters(), lr=3e-4, weight_decay=0.0)
pairs = make_pairs(64)
BS = 8
steps_per_epoch = math.ceil(len(pairs) / BS)

for epoch in range(2):
    for i in range(steps_per_epoch):
        ids, labels = collate(pairs[i * BS : (i + 1) * BS])
        pol = sequence_logps(policy, ids, labels)
        with torch.no_grad():
            rl = sequence_logps(ref, ids, labels)
        loss, acc = dpo_loss(pol[0::2], pol[1::2], rl[0::2], rl[1::2])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
        opt.step()
    print(f"epoch {epoch} dpo loss {loss.item():.4f} reward acc {acc.item():.2f}")
