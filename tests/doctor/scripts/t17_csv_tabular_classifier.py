"""Iris-like tabular classification; data read from a CSV with numpy."""
import argparse
import io
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import Dataset, DataLoader

torch.manual_seed(0)


def fake_csv(n=300):
    rng = np.random.default_rng(0)
    buf = io.StringIO()
    buf.write("f0,f1,f2,f3,label\n")
    for _ in range(n):
        c = rng.integers(0, 3)
        f = rng.normal(loc=c, scale=0.7, size=4)
        buf.write(",".join(f"{v:.4f}" for v in f) + f",{c}\n")
    buf.seek(0)
    return buf


class CsvDataset(Dataset):
    def __init__(self, fh):
        arr = np.loadtxt(fh, delimiter=",", skiprows=1)
        self.x = arr[:, :4].astype(np.float32)
        self.y = arr[:, 4]

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--lr", type=float, default=1e-2)
    args = p.parse_args()

    ds = CsvDataset(fake_csv())
    dl = DataLoader(ds, batch_size=32, shuffle=True)
    model = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 3))
    crit = nn.CrossEntropyLoss()
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    for epoch in range(args.epochs):
        total = 0.0
        for xb, yb in dl:
            logits = model(xb)
            loss = crit(logits, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
        print(f"epoch {epoch} loss {total / len(dl):.4f}")


if __name__ == "__main__":
    main()
