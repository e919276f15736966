"""Credit-scoring MLP trained from a `datasets` table, then a data-valuation pass:
per-example gradient norms (torch.func vmap + grad) on a held-out audit set, used to
flag influential / mislabeled applications."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from datasets import Dataset
from torch.func import functional_call, grad, vmap
from torch.utils.data import DataLoader

torch.manual_seed(0)
rng = np.random.default_rng(0)
N_FEAT = 10
W_TRUE = rng.normal(size=N_FEAT)


def make_table(n):
    x = rng.normal(size=(n, N_FEAT))
    logits = x @ W_TRUE + 0.5 * np.sin(3 * x[:, 0])
    y = (rng.random(n) < 1 / (1 + np.exp(-logits))).astype(np.int64)
    return x, y


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(N_FEAT, 32)
        self.fc2 = nn.Linear(32, 32)
        self.out = nn.Linear(32, 2)

    def forward(self, x):
        return self.out(F.relu(self.fc2(F.relu(self.fc1(x)))))


def main():
    x, y = make_table(2000)
    ds = Dataset.from_dict({"features": x.tolist(), "label": y.tolist()}).with_format("torch")
    loader = DataLoader(ds, batch_size=64, shuffle=True)

    model = Scorer()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    for epoch in range(3):
        for batch in loader:
            loss = F.cross_entropy(model(batch["features"]), batch["label"])
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {epoch} loss {loss.item():.4f}")

    # ---- data valuation on the audit set ----
    model.eval()
    params = {k: v.detach() for k, v in model.named_parameters()}
    buffers = {k: v.detach() for k, v in model.named_buffers()}

    def loss_one(p, b, xi, yi):
        logits = functional_call(model, (p, b), (xi.unsqueeze(0),))
        return F.cross_entropy(logits, yi.unsqueeze(0))

    per_sample_grad = vmap(grad(loss_one), in_dims=(None, None, 0, 0))

    ax, ay = make_table(256)
    ay[:8] = 1 - ay[:8]  # a few deliberately flipped labels the audit should surface
    audit_x, audit_y = torch.from_numpy(ax), torch.from_numpy(ay)

    norms = []
    for i in range(0, len(audit_x), 64):
        g = per_sample_grad(params, buffers, audit_x[i : i + 64], audit_y[i : i + 64])
        sq = sum(v.flatten(1).pow(2).sum(1) for v in g.values())
        norms.append(sq.sqrt())
    norms = torch.cat(norms)
    top = norms.topk(10).indices
    print("most influential audit rows:", sorted(top.tolist()))
    print("flipped rows found:", sum(int(i < 8) for i in top.tolist()), "/ 8")


if __name__ == "__main__":
    main()
