import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(8)

N_SESSIONS, LIST_LEN, N_FEAT = 3000, 30, 12


def simulate_click_log():
    w = rng.normal(size=N_FEAT)
    x = rng.normal(size=(N_SESSIONS, LIST_LEN, N_FEAT))
    rel = 1 / (1 + np.exp(-(x @ w) / 2))
    last_seen = rng.geometric(0.65, N_SESSIONS) - 1
    pos = np.arange(LIST_LEN)
    examined = pos[None, :] <= last_seen[:, None]
    clicks = examined & (rng.random((N_SESSIONS, LIST_LEN)) < rel)
    log = pd.DataFrame({
        "session": np.repeat(np.arange(N_SESSIONS), LIST_LEN),
        "position": np.tile(pos, N_SESSIONS),
        "click": clicks.ravel(),
        "last_seen": np.repeat(last_seen, LIST_LEN),
    })
    return x, rel, log


def continuation_rates(log):
    log = log.assign(reached=log["last_seen"] >= log["position"], moved_on=log["last_seen"] > log["position"])
    rates = log.groupby("position")[["reached", "moved_on"]].mean()
    return (rates["moved_on"] / rates["reached"].clip(lower=1e-6)).clip(0.05, 0.99).to_numpy()


class CascadePropensity(nn.Module):
    def __init__(self, cont):
        super().__init__()
        self.register_buffer("cont", torch.tensor(cont, dtype=torch.float32))

    def forward(self):
        shifted = torch.cat([torch.ones(1, dtype=self.cont.dtype), self.cont[:-1]])
        return torch.cumprod(shifted, dim=0)


class IPSRanker(nn.Module):
    def __init__(self, cont):
        super().__init__()
        self.scorer = nn.Sequential(nn.Linear(N_FEAT, 64), nn.ReLU(), nn.Linear(64, 1))
        self.propensity = CascadePropensity(cont)

    def forward(self, x):
        return self.scorer(x).squeeze(-1), self.propensity()


x, rel, log = simulate_click_log()
cont = continuation_rates(log)
print("estimated continuation rate (first 5 positions):", np.round(cont[:5], 3))

X = torch.tensor(x, dtype=torch.float32)
C = torch.tensor(log["click"].to_numpy().reshape(N_SESSIONS, LIST_LEN), dtype=torch.float32)
print("clicks per position:", C.sum(0)[:8].tolist())

model = IPSRanker(cont).half()
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for epoch in range(4):
    perm = torch.randperm(N_SESSIONS)
    for s in range(0, N_SESSIONS, 200):
        b = perm[s:s + 200]
        logits, exam = model(X[b].half())
        ips = C[b].half() / exam[None, :]
        loss = -(ips * F.logsigmoid(logits) + (1 - ips) * F.logsigmoid(-logits)).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} IPS pointwise loss {loss.item():.4f}")

with torch.no_grad():
    logits, _ = model(X[:500].half())
    top1 = logits.float().argmax(-1)
    print("mean true relevance of top-1:", rel[np.arange(500), top1.numpy()].mean(), "logged:", rel[:500, 0].mean())
