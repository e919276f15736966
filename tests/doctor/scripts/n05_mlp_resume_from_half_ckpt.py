"""Tabular regression MLP. Stage 1 trains and saves a compact fp16 checkpoint;
stage 2 resumes from it with a fresh Adam for a few more epochs."""
import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(0)

N_FEAT = 12


def make_data(n):
    x = rng.normal(size=(n, N_FEAT)).astype(np.float32)
    w = np.linspace(-1, 1, N_FEAT).astype(np.float32)
    y = np.tanh(x @ w) + 0.5 * x[:, 0] * x[:, 1] + 0.05 * rng.normal(size=n).astype(np.float32)
    return torch.from_numpy(x), torch.from_numpy(y.astype(np.float32)).unsqueeze(1)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(N_FEAT, 64), nn.GELU(),
            nn.Linear(64, 64), nn.GELU(),
            nn.Linear(64, 1),
        )

    def forward(self, x):
        return self.net(x)


def run_epochs(model, opt, x, y, epochs, tag):
    dtype = next(model.parameters()).dtype
    for ep in range(epochs):
        perm = torch.randperm(len(x))
        tot = 0.0
        for i in range(0, len(x), 64):
            idx = perm[i : i + 64]
            xb, yb = x[idx].to(dtype), y[idx].to(dtype)
            loss = F.mse_loss(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item() * len(idx)
        print(f"[{tag}] epoch {ep} mse {tot / len(x):.5f}")


def main():
    x, y = make_data(1024)
    model = MLP()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    run_epochs(model, opt, x, y, 3, "stage1")

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "mlp_stage1.pt")
        torch.save({k: v.half() for k, v in model.state_dict().items()}, path)

        # ---- stage 2: resume ----
        model2 = MLP()
        model2.load_state_dict(torch.load(path, weights_only=True), assign=True)
        opt2 = torch.optim.Adam(model2.parameters(), lr=1e-3)
        run_epochs(model2, opt2, x, y, 3, "stage2")

        with torch.no_grad():
            pred = model2(x[:256].to(next(model2.parameters()).dtype)).float()
        print("final eval mse:", F.mse_loss(pred, y[:256]).item())


if __name__ == "__main__":
    main()
