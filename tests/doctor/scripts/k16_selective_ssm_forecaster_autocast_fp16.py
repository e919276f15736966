"""Mamba-style selective state-space forecaster (input-dependent step size, diagonal A) with a
parallel scan written as matmuls against a lower-triangular ones matrix. Trained with CPU
autocast in float16."""
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(0)
L, HORIZON, D = 96, 24, 32


class SelectiveSSM(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.in_proj = nn.Linear(d, 2 * d)
        self.dt_proj = nn.Linear(d, d)
        dt = torch.exp(torch.empty(d).uniform_(math.log(0.01), math.log(0.1)))
        with torch.no_grad():
            self.dt_proj.bias.copy_(dt + torch.log(-torch.expm1(-dt)))  # inverse softplus
        self.A_log = nn.Parameter(torch.log(torch.empty(d).uniform_(0.5, 4.0)))
        self.B_proj = nn.Linear(d, d)
        self.C_proj = nn.Linear(d, d)
        self.D = nn.Parameter(torch.ones(d))
        self.out_proj = nn.Linear(d, d)
        self.register_buffer("tril", torch.tril(torch.ones(L, L)), persistent=False)

    def scan(self, u, dt, Bt, Ct):
        # h_t = exp(S_t) * sum_{s<=t} exp(-S_s) * dt_s * B_s * u_s ,  S_t = sum_{s<=t} dt_s * A
        A = -torch.exp(self.A_log)
        S = self.tril @ (dt * A)                         # prefix sums along time, (B, L, D)
        inner = self.tril @ (torch.exp(-S) * dt * Bt * u)
        h = torch.exp(S) * inner
        return Ct * h + self.D * u

    def forward(self, x):
        u, gate = self.in_proj(x).chunk(2, dim=-1)
        u = F.silu(u)
        dt = F.softplus(self.dt_proj(u))
        y = self.scan(u, dt, self.B_proj(u), self.C_proj(u))
        return self.out_proj(y * F.silu(gate))


class SSMForecaster(nn.Module):
    def __init__(self, c_in=2):
        super().__init__()
        self.embed = nn.Linear(c_in, D)
        self.layers = nn.ModuleList([SelectiveSSM(D), SelectiveSSM(D)])
        self.norms = nn.ModuleList([nn.LayerNorm(D), nn.LayerNorm(D)])
        self.head = nn.Linear(D * L, HORIZON)

    def forward(self, x):
        h = self.embed(x)
        for norm, layer in zip(self.norms, self.layers):
            h = h + layer(norm(h))
        return self.head(h.flatten(1))


t = np.arange(6000)
target = np.sin(2 * np.pi * t / 48) + 0.5 * np.sin(2 * np.pi * t / 336) + 0.1 * rng.standard_normal(len(t))
covar = np.cos(2 * np.pi * t / 48)
series = np.stack([target, covar], 1).astype(np.float32)
starts = np.arange(0, 5000, 7)
X = torch.from_numpy(np.stack([series[s : s + L] for s in starts]))
Y = torch.from_numpy(np.stack([series[s + L : s + L + HORIZON, 0] for s in starts]))

model = SSMForecaster()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for epoch in range(2):
    perm = torch.randperm(len(X))
    running = []
    for i in range(0, len(X), 64):
        b = perm[i : i + 64]
        with torch.autocast("cpu", dtype=torch.float16):
            pred = model(X[b])
        loss = F.mse_loss(pred.float(), Y[b])
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        running.append(loss.item())
    print(f"epoch {epoch} train mse {np.mean(running):.4f}")
