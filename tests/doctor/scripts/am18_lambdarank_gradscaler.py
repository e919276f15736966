import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(18)

N_Q, LIST, N_FEAT, SIGMA = 400, 20, 16, 1.0


def search_log():
    w = rng.normal(size=N_FEAT)
    frames = []
    for q in range(N_Q):
        x = rng.normal(size=(LIST, N_FEAT))
        grade = np.digitize(x @ w + rng.normal(0, 1.0, LIST), [-1.0, 1.0, 2.5, 4.0])
        f = pd.DataFrame(x, columns=[f"f{i}" for i in range(N_FEAT)])
        f["qid"], f["grade"], f["shown_pos"] = q, grade, rng.permutation(LIST)
        frames.append(f)
    return pd.concat(frames, ignore_index=True)


def dcg_discount(n):
    return 1.0 / torch.log2(torch.arange(n, dtype=torch.float32) + 2.0)


def lambdarank_loss(scores, grade):
    scores = scores.float()
    gain = 2.0 ** grade - 1
    ideal = (gain.sort(-1, descending=True).values * dcg_discount(LIST)).sum(-1, keepdim=True).clamp_min(1e-6)
    rank = scores.argsort(-1, descending=True).argsort(-1)
    disc = dcg_discount(LIST)[rank]
    delta = ((gain[:, :, None] - gain[:, None, :]) * (disc[:, :, None] - disc[:, None, :])).abs() / ideal[..., None]
    better = (grade[:, :, None] > grade[:, None, :]).float()
    diff = scores[:, :, None] - scores[:, None, :]
    return (better * delta * F.softplus(-SIGMA * diff)).sum((1, 2)).mean()


def ndcg10(scores, grade):
    top = scores.float().topk(10, -1).indices
    gain = 2.0 ** grade - 1
    dcg = (gain.gather(-1, top) * dcg_discount(10)).sum(-1)
    idcg = (gain.sort(-1, descending=True).values[:, :10] * dcg_discount(10)).sum(-1)
    return (dcg / idcg.clamp_min(1e-6)).mean()


df = search_log()
X = torch.tensor(df[[f"f{i}" for i in range(N_FEAT)]].to_numpy(), dtype=torch.float32).view(N_Q, LIST, N_FEAT)
G = torch.tensor(df["grade"].to_numpy(), dtype=torch.float32).view(N_Q, LIST)
tr, va = slice(0, 320), slice(320, N_Q)

model = nn.Sequential(nn.Linear(N_FEAT, 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 1))
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
scaler = torch.amp.GradScaler("cpu")

for epoch in range(8):
    perm = torch.randperm(320)
    for s in range(0, 320, 32):
        b = perm[s:s + 32]
        with torch.autocast("cpu", dtype=torch.float16):
            scores = model(X[b]).squeeze(-1)
        loss = lambdarank_loss(scores, G[b])
        opt.zero_grad()
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        scaler.step(opt)
        scaler.update()
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.float16):
        val = ndcg10(model(X[va]).squeeze(-1), G[va])
    print(f"epoch {epoch} lambdarank loss {loss.item():.4f} val NDCG@10 {val.item():.4f} scale {scaler.get_scale():.0f}")
