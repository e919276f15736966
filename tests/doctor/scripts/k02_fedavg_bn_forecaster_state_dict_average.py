"""Federated averaging (simulated in one process) of a small 1D-CNN forecaster with
BatchNorm, trained on per-site sensor series. Aggregation is weighted by client data size."""
import copy

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
rng = np.random.default_rng(0)

CONTEXT, HORIZON, N_CLIENTS, ROUNDS = 32, 8, 4, 3


class ConvForecaster(nn.Module):
    def __init__(self, ch=16):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv1d(1, ch, 5, padding=2),
            nn.BatchNorm1d(ch),
            nn.ReLU(),
            nn.Conv1d(ch, ch, 5, padding=2),
            nn.BatchNorm1d(ch),
            nn.ReLU(),
        )
        self.head = nn.Linear(ch * CONTEXT, HORIZON)

    def forward(self, x):  # x: (B, T)
        h = self.features(x.unsqueeze(1))
        return self.head(h.flatten(1))


def client_data(site, n):
    t = np.arange(n + CONTEXT + HORIZON)
    s = np.sin(2 * np.pi * t / (12 + 3 * site)) + 0.1 * rng.standard_normal(len(t))
    X = np.stack([s[i : i + CONTEXT] for i in range(n)]).astype(np.float32)
    Y = np.stack([s[i + CONTEXT : i + CONTEXT + HORIZON] for i in range(n)]).astype(np.float32)
    return torch.from_numpy(X), torch.from_numpy(Y)


clients = [client_data(k, n) for k, n in enumerate([300, 200, 400, 250])]
sizes = [len(c[0]) for c in clients]


def local_train(global_model, data, epochs=1):
    model = copy.deepcopy(global_model)
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    X, Y = data
    for _ in range(epochs):
        perm = torch.randperm(len(X))
        for i in range(0, len(X), 32):
            idx = perm[i : i + 32]
            loss = nn.functional.mse_loss(model(X[idx]), Y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
    return model.state_dict(), loss.item()


def fedavg(states, weights):
    total = float(sum(weights))
    avg = {k: torch.zeros_like(v) for k, v in states[0].items()}
    for sd, w in zip(states, weights):
        for k in avg:
            avg[k] += sd[k] * (w / total)
    return avg


global_model = ConvForecaster()
for rnd in range(ROUNDS):
    states, losses = [], []
    for data in clients:
        sd, l = local_train(global_model, data)
        states.append(sd)
        losses.append(l)
    global_model.load_state_dict(fedavg(states, sizes))
    global_model.eval()
    with torch.no_grad():
        val = np.mean([nn.functional.mse_loss(global_model(X), Y).item() for X, Y in clients])
    print(f"round {rnd}: client losses {np.round(losses, 4)} global val mse {val:.4f}")
