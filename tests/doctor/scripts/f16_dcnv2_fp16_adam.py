"""DCN-v2 (deep & cross network) CTR model, whole model in fp16 with Adam."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(16)

FIELDS = [("user", 2000), ("item", 5000), ("shop", 300), ("city", 50), ("hour", 24)]
N_DENSE, D = 4, 8
n = 20000
sparse = np.stack([rng.integers(0, c, n) for _, c in FIELDS], 1)
dense = rng.normal(0, 1, (n, N_DENSE)).astype(np.float32)
logit = 1.2 * dense[:, 0] - 0.8 * (sparse[:, 3] < 10) + 0.5 * ((sparse[:, 1] % 11) == (sparse[:, 0] % 11))
y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(np.float32)


class CrossLayer(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.lin = nn.Linear(d, d)

    def forward(self, x0, x):
        return x0 * self.lin(x) + x


class DCNv2(nn.Module):
    def __init__(self):
        super().__init__()
        self.embs = nn.ModuleList(nn.Embedding(c, D) for _, c in FIELDS)
        d_in = D * len(FIELDS) + N_DENSE
        self.cross = nn.ModuleList(CrossLayer(d_in) for _ in range(3))
        self.deep = nn.Sequential(nn.Linear(d_in, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU())
        self.out = nn.Linear(d_in + 64, 1)

    def forward(self, sparse, dense):
        x0 = torch.cat([e(sparse[:, j]) for j, e in enumerate(self.embs)] + [dense.to(self.out.weight.dtype)], -1)
        x = x0
        for layer in self.cross:
            x = layer(x0, x)
        return self.out(torch.cat([x, self.deep(x0)], -1)).squeeze(-1)


model = DCNv2().half()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
S, X, Y = torch.from_numpy(sparse), torch.from_numpy(dense), torch.from_numpy(y)
train, val = slice(0, 16000), slice(16000, n)
for epoch in range(3):
    perm = torch.randperm(16000)
    losses = []
    for s in range(0, 16000, 1024):
        b = perm[s:s + 1024]
        loss = F.binary_cross_entropy_with_logits(model(S[b], X[b]).float(), Y[b])
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    with torch.no_grad():
        val_loss = F.binary_cross_entropy_with_logits(model(S[val], X[val]).float(), Y[val]).item()
    print(f"epoch {epoch} train loss {np.mean(losses):.4f} (first {losses[0]:.4f}, last {losses[-1]:.4f}) val logloss {val_loss:.4f}")
