import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
rng = np.random.default_rng(0)

VOCAB, D, SEQ = 100, 64, 24


class PreferencePairs(Dataset):
    def __init__(self, n, with_labels):
        self.a = rng.integers(0, VOCAB, size=(n, SEQ))
        self.b = rng.integers(0, VOCAB, size=(n, SEQ))
        self.b[:, -4:] = rng.integers(0, 10, size=(n, 4))
        self.labels = (self.a[:, -4:].mean(1) > self.b[:, -4:].mean(1)).astype(np.int32) if with_labels else None

    def __len__(self):
        return len(self.a)

    def __getitem__(self, i):
        item = {"a": self.a[i], "b": self.b[i]}
        if self.labels is not None:
            item["label"] = self.labels[i]
        return item


def collate(batch):
    out = {k: torch.as_tensor(np.stack([ex[k] for ex in batch])) for k in ("a", "b")}
    if "label" in batch[0]:
        out["label"] = torch.as_tensor(np.array([ex["label"] for ex in batch]))
    return out


class RewardModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, D)
        self.pos = nn.Parameter(torch.randn(SEQ, D) * 0.02)
        layer = nn.TransformerEncoderLayer(D, 4, 4 * D, dropout=0.0, batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2)
        self.score = nn.Linear(D, 1)

    def forward(self, ids):
        h = self.encoder(self.embed(ids) + self.pos)
        return self.score(h[:, -1]).squeeze(-1)


train = PreferencePairs(256, with_labels=True)
chosen_first = train.labels == 1
train.a, train.b = np.where(chosen_first[:, None], train.a, train.b), np.where(chosen_first[:, None], train.b, train.a)
train.labels = None
evalset = PreferencePairs(64, with_labels=True)

rm = RewardModel()
opt = torch.optim.AdamW(rm.parameters(), lr=1e-3)
for epoch in range(2):
    for batch in DataLoader(train, batch_size=32, shuffle=True, collate_fn=collate):
        r_c, r_r = rm(batch["a"]), rm(batch["b"])
        loss = -F.logsigmoid(r_c - r_r).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} bt loss {loss.item():.4f}")

rm.eval()
tot_loss, correct, n = 0.0, 0, 0
with torch.no_grad():
    for batch in DataLoader(evalset, batch_size=32, collate_fn=collate):
        logits = torch.stack([rm(batch["b"]), rm(batch["a"])], -1)
        tot_loss += F.cross_entropy(logits, batch["label"], reduction="sum").item()
        correct += (logits.argmax(-1) == batch["label"]).sum().item()
        n += len(batch["label"])
print(f"eval loss {tot_loss / n:.4f} acc {correct / n:.3f}")

with tempfile.TemporaryDirectory() as d:
    torch.save(rm.state_dict(), f"{d}/rm.pt")
