import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, grad, vmap

torch.manual_seed(0)

TASKS, K_SUPPORT, K_QUERY = 8, 10, 15
INNER_LR, INNER_STEPS = 0.02, 3


class SineRegressor(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(1, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(), nn.Linear(hidden, 1)
        )

    def forward(self, x):
        return self.net(x)


def sample_sine_tasks(n_tasks):
    amp = torch.rand(n_tasks, 1, 1) * 4.9 + 0.1
    phase = torch.rand(n_tasks, 1, 1) * torch.pi
    xs = torch.rand(n_tasks, K_SUPPORT, 1) * 10 - 5
    xq = torch.rand(n_tasks, K_QUERY, 1) * 10 - 5
    return xs, amp * torch.sin(xs + phase), xq, amp * torch.sin(xq + phase)


model = SineRegressor()
meta_params = dict(model.named_parameters())
meta_opt = torch.optim.Adam(meta_params.values(), lr=1e-3)


def mse(params, x, y):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        pred = functional_call(model, params, (x,))
    return F.mse_loss(pred.float(), y)


def fomaml_task(params, xs, ys, xq, yq):
    fast = {n: p.detach() for n, p in params.items()}
    for _ in range(INNER_STEPS):
        g = grad(mse)(fast, xs, ys)
        fast = {n: fast[n] - INNER_LR * g[n] for n in fast}
    q_grads = grad(mse)(fast, xq, yq)
    return q_grads, mse(fast, xq, yq)


per_task = vmap(fomaml_task, in_dims=(None, 0, 0, 0, 0))

for it in range(60):
    xs, ys, xq, yq = sample_sine_tasks(TASKS)
    grads, q_losses = per_task(meta_params, xs, ys, xq, yq)
    meta_opt.zero_grad()
    for n, p in meta_params.items():
        p.grad = grads[n].mean(0).to(p.dtype)
    meta_opt.step()
    if it % 10 == 0:
        print(f"iter {it:3d}  post-adaptation query mse {q_losses.mean().item():.4f}")

xs, ys, xq, yq = sample_sine_tasks(4)
with torch.no_grad():
    before = torch.stack([mse(meta_params, xq[i], yq[i]) for i in range(4)]).mean()
_, after = per_task(meta_params, xs, ys, xq, yq)
print(f"held-out tasks: mse before adaptation {before.item():.4f}, after {after.mean().item():.4f}")
assert all(p.dtype == torch.float32 for p in model.parameters())
