import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import Dataset, DataLoader

torch.manual_seed(0)
rng = np.random.default_rng(0)


def make_listings(n=3000):
    area = rng.normal(120, 35, n).clip(30, None)
    rooms = rng.integers(1, 7, n).astype(np.float64)
    age = rng.uniform(0, 80, n)
    dist = rng.exponential(8.0, n)
    district = rng.integers(0, 5, n)
    price = (2500 * area + 8000 * rooms - 900 * age - 3000 * dist
             + 20000 * district + rng.normal(0, 15000, n))
    numeric = np.column_stack([area, rooms, age, dist])
    onehot = np.eye(5)[district]
    return numeric, onehot, price


class ListingDataset(Dataset):
    def __init__(self, numeric, onehot, price, stats):
        mean, std, y_mean, y_std = stats
        self.x = np.concatenate([(numeric - mean) / std, onehot], axis=1)
        self.y = (price - y_mean) / y_std

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return torch.from_numpy(self.x[i]), torch.tensor(self.y[i], dtype=torch.float32)


class PriceRegressor(nn.Module):
    def __init__(self, n_in, hidden=64):
        super().__init__()
        self.inp = nn.Linear(n_in, hidden)
        self.hidden = nn.Linear(hidden, hidden)
        self.head = nn.Linear(hidden, 1)
        self.act = nn.SiLU()

    def forward(self, x):
        h = self.act(self.inp(x))
        h = self.act(self.hidden(h))
        return self.head(h).squeeze(-1)


numeric, onehot, price = make_listings()
split = 2400
stats = (numeric[:split].mean(0), numeric[:split].std(0), price[:split].mean(), price[:split].std())
train_ds = ListingDataset(numeric[:split], onehot[:split], price[:split], stats)
val_ds = ListingDataset(numeric[split:], onehot[split:], price[split:], stats)
train_dl = DataLoader(train_ds, batch_size=64, shuffle=True)
val_dl = DataLoader(val_ds, batch_size=256)

model = PriceRegressor(train_ds.x.shape[1])
opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
loss_fn = nn.SmoothL1Loss()

for epoch in range(8):
    model.train()
    total = 0.0
    for xb, yb in train_dl:
        pred = model(xb)
        loss = loss_fn(pred, yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item() * len(xb)
    model.eval()
    errs = []
    with torch.no_grad():
        for xb, yb in val_dl:
            errs.append((model(xb) - yb).abs().numpy() * stats[3])
    mae = np.concatenate(errs).mean()
    print(f"epoch {epoch} train_loss {total / len(train_ds):.4f} val_mae ${mae:,.0f}")
