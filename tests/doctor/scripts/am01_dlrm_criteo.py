import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import Dataset, DataLoader

torch.manual_seed(0)
rng = np.random.default_rng(0)

N_DENSE, N_SPARSE, BUCKETS, EMB = 13, 8, 5000, 16


def make_frame(n=4096):
    df = pd.DataFrame({f"I{i}": rng.lognormal(1.0, 1.2, n) for i in range(N_DENSE)})
    for j in range(N_SPARSE):
        df[f"C{j}"] = rng.integers(0, 10**6, n)
    df["label"] = (rng.random(n) < 0.25).astype(np.int64)
    for i in range(N_DENSE):
        df[f"I{i}"] = np.log1p(df[f"I{i}"])
    for j in range(N_SPARSE):
        df[f"C{j}"] = (df[f"C{j}"] * 2654435761) % BUCKETS
    return df


class CriteoFrame(Dataset):
    def __init__(self, df):
        self.dense = df[[f"I{i}" for i in range(N_DENSE)]].to_numpy()
        self.sparse = df[[f"C{j}" for j in range(N_SPARSE)]].to_numpy()
        self.y = df["label"].to_numpy()

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.dense[i], self.sparse[i], self.y[i]


def collate(batch):
    dense, sparse, y = zip(*batch)
    return (torch.from_numpy(np.stack(dense)),
            torch.from_numpy(np.stack(sparse)),
            torch.tensor(y, dtype=torch.float32))


def mlp(sizes):
    layers = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        layers += [nn.Linear(a, b), nn.ReLU()]
    return nn.Sequential(*layers[:-1])


class DLRM(nn.Module):
    def __init__(self):
        super().__init__()
        self.bottom_mlp = mlp([N_DENSE, 64, EMB])
        self.embeddings = nn.ModuleList(nn.EmbeddingBag(BUCKETS, EMB, mode="sum") for _ in range(N_SPARSE))
        n_vec = N_SPARSE + 1
        self.top_mlp = mlp([EMB + n_vec * (n_vec - 1) // 2, 64, 1])
        iu = torch.triu_indices(n_vec, n_vec, offset=1)
        self.register_buffer("iu", iu, persistent=False)

    def forward(self, dense, sparse):
        x = self.bottom_mlp(dense)
        embs = [emb(sparse[:, j:j + 1]) for j, emb in enumerate(self.embeddings)]
        feats = torch.stack([x] + embs, dim=1)
        inter = torch.bmm(feats, feats.transpose(1, 2))
        inter = inter[:, self.iu[0], self.iu[1]]
        return self.top_mlp(torch.cat([x, inter], dim=1)).squeeze(1)


df = make_frame()
loader = DataLoader(CriteoFrame(df), batch_size=256, shuffle=True, collate_fn=collate)
model = DLRM().to(torch.bfloat16)
opt = torch.optim.Adagrad(model.parameters(), lr=0.02)
loss_fn = nn.BCEWithLogitsLoss()

for epoch in range(2):
    total = 0.0
    for step, (dense, sparse, y) in enumerate(loader):
        logits = model(dense, sparse)
        loss = loss_fn(logits.float(), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
        if step % 8 == 0:
            print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
    print(f"epoch {epoch} mean loss {total / len(loader):.4f}")
