"""Tabular regression (predict monthly rent in EUR) with a half-precision MLP."""
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
rng = np.random.default_rng(1)

N_FEAT = 12


def load_data(n=512):
    X = rng.normal(size=(n, N_FEAT)).astype(np.float32)
    w = rng.normal(size=(N_FEAT,)).astype(np.float32)
    rent = 1400 + 350 * (X @ w) / np.sqrt(N_FEAT) + rng.normal(scale=50, size=n)
    return torch.from_numpy(X), torch.from_numpy(rent.astype(np.float32))


class RentModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(N_FEAT, 64), nn.ReLU(),
            nn.Linear(64, 64), nn.ReLU(),
        )
        self.out = nn.Linear(64, 1)

    def forward(self, x):
        return self.out(self.body(x)).squeeze(-1)


def train(model, X, y, epochs=2, bs=64, lr=1e-4):
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    loss_fn = nn.MSELoss()
    for ep in range(epochs):
        for i in range(0, len(X), bs):
            xb = X[i:i + bs].half()
            yb = y[i:i + bs].half()
            pred = model(xb)
            loss = loss_fn(pred, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {ep} loss {loss.item():.3f}")


if __name__ == "__main__":
    X, y = load_data()
    model = RentModel().half()
    train(model, X, y)
    print("done")
