import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

DIM, UNROLL, META_STEPS = 10, 8, 25


class LSTMOptimizer(nn.Module):
    """Coordinate-wise learned optimizer (Andrychowicz et al. 2016)."""

    def __init__(self, hidden=20, p=10.0):
        super().__init__()
        self.p = p
        self.lstm = nn.LSTM(2, hidden, num_layers=2)
        self.out = nn.Linear(hidden, 1)
        self.hidden = hidden

    def init_state(self, n_coords):
        dt = self.out.weight.dtype
        z = torch.zeros(2, n_coords, self.hidden, dtype=dt)
        return (z, z.clone())

    def preprocess(self, g):
        g = g.reshape(1, -1, 1)
        big = g.abs() >= torch.exp(torch.tensor(-self.p))
        log_part = torch.where(big, g.abs().clamp_min(1e-20).log() / self.p, torch.full_like(g, -1.0))
        sign_part = torch.where(big, g.sign(), g * torch.exp(torch.tensor(self.p)))
        return torch.cat([log_part, sign_part], dim=-1)

    def forward(self, grad, state):
        out, state = self.lstm(self.preprocess(grad), state)
        return 0.1 * self.out(out).reshape(grad.shape), state


def quadratic_problem():
    W = torch.randn(DIM, DIM)
    y = torch.randn(DIM)
    return lambda theta: ((W @ theta - y) ** 2).sum()


learned_opt = LSTMOptimizer().to(torch.bfloat16)
meta_opt = torch.optim.Adam(learned_opt.parameters(), lr=1e-3)

for meta_step in range(META_STEPS):
    f = quadratic_problem()
    theta = torch.zeros(DIM, requires_grad=True)
    state = learned_opt.init_state(DIM)
    meta_loss = 0.0
    for t in range(UNROLL):
        loss = f(theta)
        g, = torch.autograd.grad(loss, theta, retain_graph=True)
        update, state = learned_opt(g.detach(), state)
        theta = theta + update.float()
        meta_loss = meta_loss + f(theta)
    meta_opt.zero_grad()
    meta_loss.backward()
    meta_opt.step()
    if meta_step % 5 == 0:
        print(f"meta-step {meta_step:3d}  unrolled loss {meta_loss.item() / UNROLL:.4f}  final f {f(theta).item():.4f}")

f = quadratic_problem()
theta = torch.zeros(DIM, requires_grad=True)
state = learned_opt.init_state(DIM)
with torch.no_grad():
    start = f(theta).item()
for t in range(20):
    loss = f(theta)
    g, = torch.autograd.grad(loss, theta)
    with torch.no_grad():
        update, state = learned_opt(g, state)
    theta = (theta + update.float()).detach().requires_grad_()
print(f"held-out problem: f0 {start:.3f} -> f20 {f(theta).item():.3f}")
