"""FedAvg over 4 utility companies training a TSMixer-style forecaster. To halve upload size
clients send fp16 state dicts; the server averages them weighted by each client's sample count."""
import copy

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
rng = np.random.default_rng(0)
CONTEXT, HORIZON, C = 48, 12, 3


class MixerBlock(nn.Module):
    def __init__(self, t, c, hidden=32):
        super().__init__()
        self.norm_t = nn.LayerNorm(c)
        self.time_mlp = nn.Sequential(nn.Linear(t, hidden), nn.GELU(), nn.Linear(hidden, t))
        self.norm_c = nn.LayerNorm(c)
        self.chan_mlp = nn.Sequential(nn.Linear(c, hidden), nn.GELU(), nn.Linear(hidden, c))

    def forward(self, x):  # (B, T, C)
        x = x + self.time_mlp(self.norm_t(x).transpose(1, 2)).transpose(1, 2)
        return x + self.chan_mlp(self.norm_c(x))


class TSMixer(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.Sequential(MixerBlock(CONTEXT, C), MixerBlock(CONTEXT, C))
        self.temporal_proj = nn.Linear(CONTEXT, HORIZON)

    def forward(self, x):
        return self.temporal_proj(self.blocks(x).transpose(1, 2)).transpose(1, 2)


def utility_data(k, n_windows):
    t = np.arange(n_windows + CONTEXT + HORIZON)
    s = np.stack([np.sin(2 * np.pi * t / 24 + k + c) + 0.1 * rng.standard_normal(len(t)) for c in range(C)], 1)
    s = s.astype(np.float32)
    idx = np.arange(0, n_windows, max(1, n_windows // 512))  # local subsample per round
    X = np.stack([s[i : i + CONTEXT] for i in idx])
    Y = np.stack([s[i + CONTEXT : i + CONTEXT + HORIZON] for i in idx])
    return torch.from_numpy(X), torch.from_numpy(Y), n_windows


clients = [utility_data(k, n) for k, n in enumerate([21_000, 34_000, 17_500, 27_000])]


def client_round(global_state):
    uploads = []
    for X, Y, n in clients:
        model = TSMixer()
        model.load_state_dict(global_state)
        opt = torch.optim.Adam(model.parameters(), lr=2e-3)
        for _ in range(10):
            idx = torch.randint(0, len(X), (64,))
            loss = nn.functional.mse_loss(model(X[idx]), Y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        uploads.append(({k: v.half() for k, v in model.state_dict().items()}, n))
    return uploads


def server_aggregate(uploads):
    total = sum(n for _, n in uploads)
    keys = uploads[0][0].keys()
    return {k: sum(sd[k] * n for sd, n in uploads) / total for k in keys}


global_model = TSMixer()
for rnd in range(3):
    uploads = client_round(global_model.state_dict())
    global_model.load_state_dict(server_aggregate(uploads))  # copied into the fp32 global model
    with torch.no_grad():
        val = np.mean([nn.functional.mse_loss(global_model(X), Y).item() for X, Y, _ in clients])
    print(f"round {rnd}: weighted-FedAvg global val mse {val:.4f}")
