import math
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, grad, vmap

torch.manual_seed(0)

N_WAY, K_SHOT, K_QUERY, DIM = 5, 4, 6, 16
TASKS_PER_BATCH = 4
INNER_STEPS = 2


class Learner(nn.Module):
    def __init__(self, dim, hidden, n_way):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.head = nn.Linear(hidden, n_way)

    def forward(self, x):
        return self.head(self.body(x))


def sample_tasks(n_tasks, dtype):
    xs_s, ys_s, xs_q, ys_q = [], [], [], []
    for _ in range(n_tasks):
        centers = torch.randn(N_WAY, DIM) * 2.0
        ys = torch.arange(N_WAY).repeat_interleave(K_SHOT)
        yq = torch.arange(N_WAY).repeat_interleave(K_QUERY)
        xs_s.append(centers[ys] + 0.5 * torch.randn(len(ys), DIM))
        xs_q.append(centers[yq] + 0.5 * torch.randn(len(yq), DIM))
        ys_s.append(ys)
        ys_q.append(yq)
    return (torch.stack(xs_s).to(dtype), torch.stack(ys_s),
            torch.stack(xs_q).to(dtype), torch.stack(ys_q))


model = Learner(DIM, 32, N_WAY).to(torch.bfloat16)
params = {n: p for n, p in model.named_parameters()}
meta_lrs = {n: torch.full(p.shape, 0.05, requires_grad=True) for n, p in params.items()}

meta_opt = torch.optim.Adam(list(params.values()) + list(meta_lrs.values()), lr=1e-3)


def task_loss(p, x, y):
    logits = functional_call(model, p, (x,))
    return F.cross_entropy(logits.float(), y)


def adapt_and_eval(p, lrs, xs, ys, xq, yq):
    fast = dict(p)
    for _ in range(INNER_STEPS):
        g = grad(task_loss)(fast, xs, ys)
        fast = {n: fast[n] - lrs[n] * g[n] for n in fast}
    logits = functional_call(model, fast, (xq,))
    loss = F.cross_entropy(logits.float(), yq)
    acc = (logits.argmax(-1) == yq).float().mean()
    return loss, acc


batched = vmap(adapt_and_eval, in_dims=(None, None, 0, 0, 0, 0))

for step in range(30):
    xs, ys, xq, yq = sample_tasks(TASKS_PER_BATCH, torch.bfloat16)
    losses, accs = batched(params, meta_lrs, xs, ys, xq, yq)
    meta_loss = losses.mean()
    meta_opt.zero_grad()
    meta_loss.backward()
    meta_opt.step()
    if step % 5 == 0:
        print(f"step {step:3d}  meta-loss {meta_loss.item():.4f}  query acc {accs.mean().item():.3f}")

with torch.no_grad():
    mean_lr = sum(v.mean().item() for v in meta_lrs.values()) / len(meta_lrs)
print(f"final mean inner lr {mean_lr:.4f}  (log {math.log(mean_lr):.3f})")
