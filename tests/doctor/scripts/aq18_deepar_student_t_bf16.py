import math
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import StudentT

torch.manual_seed(0)
N, T, CONTEXT, HORIZON, PATHS = 16, 600, 72, 24, 32

idx = pd.date_range("2023-01-01", periods=T, freq="h")
cal = torch.tensor(
    [[math.sin(2 * math.pi * h / 24), math.cos(2 * math.pi * h / 24), d / 6.0]
     for h, d in zip(idx.hour, idx.day_of_week)], dtype=torch.float32,
)
level = 50 + 30 * torch.rand(N, 1)
demand = level * (1 + 0.3 * cal[:, 0]) + 3 * torch.distributions.StudentT(3.0).sample((N, T))


class DeepARStudentT(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.rnn = nn.GRU(1 + cal.shape[1], hidden, num_layers=2, batch_first=True)
        self.proj = nn.Linear(hidden, 3)

    def forward(self, y_norm, cov, h0=None):
        out, h = self.rnn(torch.cat([y_norm.unsqueeze(-1), cov], -1), h0)
        loc, raw_scale, raw_df = self.proj(out).float().unbind(-1)
        scale = F.softplus(raw_scale) + 1e-4
        df = 2.0 + F.softplus(raw_df)
        return loc, scale, df, h


model = DeepARStudentT()
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
train_end = T - HORIZON

for step in range(30):
    s = torch.randint(0, train_end - CONTEXT - 1, (32,))
    rows = torch.randint(0, N, (32,))
    win = torch.stack([demand[r, a:a + CONTEXT + 1] for r, a in zip(rows.tolist(), s.tolist())])
    cov = torch.stack([cal[a + 1:a + CONTEXT + 1] for a in s.tolist()])
    scale = win[:, :-1].abs().mean(1, keepdim=True) + 1.0
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loc, sc, df, _ = model(win[:, :-1] / scale, cov)
    nll = -StudentT(df, loc, sc).log_prob(win[:, 1:] / scale).mean() + scale.log().mean()
    opt.zero_grad()
    nll.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 5.0)
    opt.step()
    if step % 10 == 0 or step == 29:
        print(f"step {step:2d} student-t nll {nll.item():.4f}")

model.eval()
with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
    hist = demand[:, train_end - CONTEXT:train_end]
    scale = hist.abs().mean(1, keepdim=True) + 1.0
    _, _, _, h = model(hist[:, :-1] / scale, cal[train_end - CONTEXT + 1:train_end].expand(N, -1, -1))
    h = h.repeat_interleave(PATHS, dim=1)
    last = (hist[:, -1:] / scale).repeat_interleave(PATHS, 0)
    samples = torch.empty(N * PATHS, HORIZON)
    for t in range(HORIZON):
        cov_t = cal[train_end + t].expand(N * PATHS, 1, -1)
        loc, sc, df, h = model(last, cov_t, h)
        draw = StudentT(df, loc, sc).sample().float()
        samples[:, t] = draw[:, 0]
        last = draw
samples = samples.view(N, PATHS, HORIZON) * scale.unsqueeze(-1)
truth = demand[:, train_end:]
crps = (samples - truth[:, None]).abs().mean(1) - 0.5 * (samples[:, :, None] - samples[:, None]).abs().mean((1, 2))
median = samples.median(1).values
naive = (hist[:, 24:] - hist[:, :-24]).abs().mean(1, keepdim=True)
print(f"CRPS {crps.mean().item():.3f} MASE {((median - truth).abs() / naive).mean().item():.3f}")
