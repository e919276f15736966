"""Secure-aggregation style federated averaging for GRU traffic forecasters at 4 road sensors:
each client quantises its model delta to fixed point and adds pairwise masks modulo 2^32 (the
masks cancel in the server's sum), so the server only sees the aggregate."""
import copy

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
rng = np.random.default_rng(0)
N_CLIENTS, ROUNDS, CONTEXT, HORIZON = 4, 2, 24, 6
FRAC_BITS = 16
RING_MASK = (1 << 32) - 1  # work in Z_{2^32}


class GRUForecaster(nn.Module):
    def __init__(self, hidden=24):
        super().__init__()
        self.gru = nn.GRU(1, hidden, batch_first=True)
        self.out = nn.Linear(hidden, HORIZON)

    def forward(self, x):
        _, h = self.gru(x.unsqueeze(-1))
        return self.out(h[-1])


def sensor(k, n=400):
    t = np.arange(n + CONTEXT + HORIZON)
    flow = np.sin(2 * np.pi * t / 24 + k) + 0.2 * np.sin(2 * np.pi * t / 168) + 0.1 * rng.standard_normal(len(t))
    X = np.stack([flow[i : i + CONTEXT] for i in range(n)]).astype(np.float32)
    Y = np.stack([flow[i + CONTEXT : i + CONTEXT + HORIZON] for i in range(n)]).astype(np.float32)
    return torch.from_numpy(X), torch.from_numpy(Y)


clients = [sensor(k) for k in range(N_CLIENTS)]


def local_train(model, X, Y, steps=15):
    model = copy.deepcopy(model)
    opt = torch.optim.Adam(model.parameters(), lr=5e-3)
    for _ in range(steps):
        idx = torch.randint(0, len(X), (32,))
        loss = nn.functional.mse_loss(model(X[idx]), Y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
    return model


def pair_mask(i, j, shape, rnd):
    g = torch.Generator().manual_seed(10_000 * rnd + 100 * i + j)  # seed agreed via key exchange
    return torch.randint(0, 1 << 32, shape, generator=g, dtype=torch.int64)


def masked_upload(k, delta, rnd, name_idx):
    q = torch.round(delta * (1 << FRAC_BITS))  # fixed point
    for j in range(N_CLIENTS):
        if j == k:
            continue
        m = pair_mask(min(k, j), max(k, j), delta.shape, rnd * 100 + name_idx)
        q = q + m if k < j else q - m
    return q & RING_MASK


global_model = GRUForecaster()
for rnd in range(ROUNDS):
    g_state = {k: v.clone() for k, v in global_model.state_dict().items()}
    local_models = [local_train(global_model, X, Y) for X, Y in clients]
    new_state = {}
    for n_idx, (name, g_param) in enumerate(g_state.items()):
        uploads = [masked_upload(k, m.state_dict()[name] - g_param, rnd, n_idx) for k, m in enumerate(local_models)]
        agg = torch.stack(uploads).sum(0) & RING_MASK
        agg = torch.where(agg >= (1 << 31), agg - (1 << 32), agg)  # signed
        new_state[name] = g_param + agg.double().div(1 << FRAC_BITS).div(N_CLIENTS).to(g_param.dtype)
    global_model.load_state_dict(new_state)
    with torch.no_grad():
        mse = np.mean([nn.functional.mse_loss(global_model(X), Y).item() for X, Y in clients])
    print(f"round {rnd}: global mse {mse:.4f}")
