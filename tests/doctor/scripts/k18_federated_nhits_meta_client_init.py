"""Cross-silo federated training of an N-HiTS-style forecaster (multi-rate pooling MLP stacks).
To keep memory low with many simulated silos, client replicas are instantiated on the meta device
and then filled from the broadcast global weights."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(0)
CONTEXT, HORIZON, N_SILOS = 96, 24, 6


class NHiTSBlock(nn.Module):
    def __init__(self, pool, n_coeff, hidden=64):
        super().__init__()
        self.pool = pool
        self.mlp = nn.Sequential(nn.Linear(CONTEXT // pool, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.backcast_coef = nn.Linear(hidden, CONTEXT // pool)
        self.forecast_coef = nn.Linear(hidden, n_coeff)

    def forward(self, x):
        h = self.mlp(F.max_pool1d(x.unsqueeze(1), self.pool).squeeze(1))
        back = F.interpolate(self.backcast_coef(h).unsqueeze(1), size=CONTEXT, mode="linear").squeeze(1)
        fore = F.interpolate(self.forecast_coef(h).unsqueeze(1), size=HORIZON, mode="linear").squeeze(1)
        return back, fore


class NHiTS(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([NHiTSBlock(8, 3), NHiTSBlock(4, 6), NHiTSBlock(1, 24)])

    def forward(self, x):
        level = x[:, -1:]
        residual, forecast = x - level, 0
        for b in self.blocks:
            back, fore = b(residual)
            residual = residual - back
            forecast = forecast + fore
        return forecast + level


def silo_data(k, n=300):
    t = np.arange(n + CONTEXT + HORIZON)
    s = 0.02 * k * t / 100 + np.sin(2 * np.pi * t / 24 + k) + 0.1 * rng.standard_normal(len(t))
    X = np.stack([s[i : i + CONTEXT] for i in range(n)]).astype(np.float32)
    Y = np.stack([s[i + CONTEXT : i + CONTEXT + HORIZON] for i in range(n)]).astype(np.float32)
    return torch.from_numpy(X), torch.from_numpy(Y)


silos = [silo_data(k) for k in range(N_SILOS)]
global_model = NHiTS()


def make_client(global_state):
    with torch.device("meta"):
        client = NHiTS()  # no real allocation until weights arrive
    client.load_state_dict(global_state)
    return client


for rnd in range(3):
    g_state = global_model.state_dict()
    new_states, losses = [], []
    for X, Y in silos:
        client = make_client(g_state)
        opt = torch.optim.Adam(client.parameters(), lr=1e-3)
        for _ in range(10):
            idx = torch.randint(0, len(X), (32,))
            loss = F.l1_loss(client(X[idx]), Y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        new_states.append(client.state_dict())
        losses.append(loss.item())
    avg = {k: torch.stack([sd[k].float() for sd in new_states]).mean(0) for k in g_state}
    global_model.load_state_dict(avg)
    print(f"round {rnd}: mean client L1 {np.mean(losses):.4f}")
