import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, D, D_STATE, LAYERS, SEQ, BATCH = 64, 64, 8, 2, 64, 8


class SelectiveSSM(nn.Module):
    def __init__(self, d, d_state, expand=2, dt_min=1e-3, dt_max=1e-1):
        super().__init__()
        inner = expand * d
        self.in_proj = nn.Linear(d, 2 * inner, bias=False)
        self.x_proj = nn.Linear(inner, 1 + 2 * d_state, bias=False)
        self.dt_proj = nn.Linear(1, inner)
        self.out_proj = nn.Linear(inner, d, bias=False)
        A = torch.arange(1, d_state + 1, dtype=torch.float32).repeat(inner, 1)
        self.A_log = nn.Parameter(torch.log(A))
        self.D = nn.Parameter(torch.ones(inner))
        dt = torch.exp(torch.rand(inner) * (math.log(dt_max) - math.log(dt_min)) + math.log(dt_min))
        with torch.no_grad():
            self.dt_proj.bias.copy_(dt + torch.log(-torch.expm1(-dt)))
        self.d_state = d_state

    def scan(self, x, dt, A, Bm, Cm):
        # x, dt: (B, T, E) ; A: (E, N) ; Bm, Cm: (B, T, N) -- all fp32
        dA = torch.exp(dt.unsqueeze(-1) * A)
        dBx = dt.unsqueeze(-1) * Bm.unsqueeze(2) * x.unsqueeze(-1)
        h = torch.zeros(x.size(0), x.size(2), self.d_state, dtype=x.dtype)
        ys = []
        for t in range(x.size(1)):
            h = dA[:, t] * h + dBx[:, t]
            ys.append((h * Cm[:, t].unsqueeze(1)).sum(-1))
        return torch.stack(ys, 1)

    def forward(self, u):
        x, z = self.in_proj(u).chunk(2, dim=-1)
        x = F.silu(x)
        dt_raw, Bm, Cm = self.x_proj(x).split([1, self.d_state, self.d_state], dim=-1)
        dt = F.softplus(self.dt_proj(dt_raw).float())
        A = -torch.exp(self.A_log.float())
        y = self.scan(x.float(), dt, A, Bm.float(), Cm.float())
        y = y + x.float() * self.D
        return self.out_proj((y * F.silu(z.float())).to(u.dtype))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.RMSNorm(D)
        self.mixer = SelectiveSSM(D, D_STATE)

    def forward(self, x):
        return x + self.mixer(self.norm(x))


class MambaLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, D)
        self.layers = nn.ModuleList(Block() for _ in range(LAYERS))
        self.norm_f = nn.RMSNorm(D)
        self.lm_head = nn.Linear(D, VOCAB, bias=False)
        self.lm_head.weight = self.embedding.weight
        nn.init.normal_(self.embedding.weight, std=0.02)

    def forward(self, idx):
        x = self.embedding(idx)
        for layer in self.layers:
            x = layer(x)
        return self.lm_head(self.norm_f(x))


def induction_batch(bs):
    seq = torch.randint(2, VOCAB, (bs, SEQ + 1))
    seq[:, SEQ // 2 :] = seq[:, : SEQ - SEQ // 2 + 1]
    return seq[:, :-1], seq[:, 1:]


model = MambaLM()
opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=25, pct_start=0.2)
for step in range(25):
    x, y = induction_batch(BATCH)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        logits = model(x)
    loss = F.cross_entropy(logits.float().reshape(-1, VOCAB), y.reshape(-1))
    opt.zero_grad(set_to_none=True)
    loss.backward()
    gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    sched.step()
    if step % 5 == 0:
        print(f"step {step:2d} loss {loss.item():.4f} grad_norm {gnorm.item():.3f}")
assert torch.isfinite(loss)
print(f"final loss {loss.item():.4f}")
