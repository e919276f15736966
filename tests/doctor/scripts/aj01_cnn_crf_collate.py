import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
VOCAB, NUM_TAGS, FEAT_DIM = 300, 5, 4


class ToyNER(Dataset):
    def __init__(self, n, seed):
        rng = np.random.default_rng(seed)
        self.items = []
        for _ in range(n):
            length = int(rng.integers(5, 16))
            toks = rng.integers(1, VOCAB, size=length)
            shape_feats = rng.normal(size=(length, FEAT_DIM))
            tags = (toks + (shape_feats[:, 0] > 0)) % NUM_TAGS
            self.items.append((toks, shape_feats, tags))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


def collate(batch):
    max_len = max(len(b[0]) for b in batch)
    toks = torch.zeros(len(batch), max_len, dtype=torch.long)
    feats = torch.zeros(len(batch), max_len, FEAT_DIM, dtype=torch.float32)
    tags = torch.zeros(len(batch), max_len, dtype=torch.long)
    mask = torch.zeros(len(batch), max_len, dtype=torch.bool)
    for i, (t, f, y) in enumerate(batch):
        n = len(t)
        toks[i, :n] = torch.as_tensor(t)
        feats[i, :n] = torch.as_tensor(f, dtype=torch.float32)
        tags[i, :n] = torch.as_tensor(y)
        mask[i, :n] = True
    return toks, feats, tags, mask


class CRF(nn.Module):
    def __init__(self, num_tags):
        super().__init__()
        self.start = nn.Parameter(torch.zeros(num_tags))
        self.end = nn.Parameter(torch.zeros(num_tags))
        self.trans = nn.Parameter(torch.randn(num_tags, num_tags) * 0.1)

    def nll(self, emissions, tags, mask):
        emissions = emissions.float()
        B, T, K = emissions.shape
        ar = torch.arange(B)
        score = self.start[tags[:, 0]] + emissions[ar, 0, tags[:, 0]]
        alpha = self.start + emissions[:, 0]
        for t in range(1, T):
            m = mask[:, t]
            step = self.trans[tags[:, t - 1], tags[:, t]] + emissions[ar, t, tags[:, t]]
            score = score + step * m
            nxt = torch.logsumexp(alpha.unsqueeze(2) + self.trans + emissions[:, t].unsqueeze(1), dim=1)
            alpha = torch.where(m.unsqueeze(1), nxt, alpha)
        last = tags[ar, mask.sum(1) - 1]
        score = score + self.end[last]
        log_z = torch.logsumexp(alpha + self.end, dim=1)
        return (log_z - score).mean()


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, 32, padding_idx=0)
        self.conv1 = nn.Conv1d(32 + FEAT_DIM, 64, kernel_size=3, padding=1)
        self.conv2 = nn.Conv1d(64, 64, kernel_size=3, padding=1)
        self.proj = nn.Linear(64, NUM_TAGS)
        self.crf = CRF(NUM_TAGS)

    def forward(self, toks, feats):
        x = torch.cat([self.emb(toks), feats], dim=-1)
        h = torch.relu(self.conv1(x.transpose(1, 2)))
        h = torch.relu(self.conv2(h)) + h
        return self.proj(h.transpose(1, 2))


model = Tagger()
opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
loader = DataLoader(ToyNER(256, 1), batch_size=32, shuffle=True, collate_fn=collate)

for epoch in range(3):
    total = 0.0
    for toks, feats, tags, mask in loader:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            emissions = model(toks, feats)
        loss = model.crf.nll(emissions, tags, mask)
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        opt.step()
        total += loss.item()
    print(f"epoch {epoch} crf nll {total / len(loader):.4f}")

with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "cnn_crf.pt")
    torch.save(model.state_dict(), path)
    print("saved", os.path.getsize(path), "bytes")
