"""Implicit Q-Learning (expectile value regression + advantage-weighted policy extraction) on an offline
dataset from a NumPy 2-D navigation task. The target Q network is kept in bf16 since it is only used for
inference; soft updates use lerp_."""
import copy
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(0)
OBS, ACT = 4, 2


def make_dataset(n=20000):
    o = rng.uniform(-1, 1, (n, OBS))
    a = np.clip(-o[:, :2] + 0.4 * rng.normal(size=(n, ACT)), -1, 1)
    o2 = o.copy()
    o2[:, :2] += 0.1 * a
    r = -np.linalg.norm(o2[:, :2], axis=1)
    d = np.linalg.norm(o2[:, :2], axis=1) < 0.05
    return {k: torch.as_tensor(v, dtype=torch.float32) for k, v in dict(o=o, a=a, r=r, o2=o2, d=d).items()}


def mlp(i, o):
    return nn.Sequential(nn.Linear(i, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, o))


class TwinQ(nn.Module):
    def __init__(self):
        super().__init__()
        self.q1, self.q2 = mlp(OBS + ACT, 1), mlp(OBS + ACT, 1)

    def forward(self, o, a):
        x = torch.cat([o, a], -1)
        return torch.min(self.q1(x), self.q2(x)).squeeze(-1)


q = TwinQ()
q_target = copy.deepcopy(q).requires_grad_(False).to(torch.bfloat16)
v = mlp(OBS, 1)
policy = nn.Sequential(mlp(OBS, ACT), nn.Tanh())
q_opt = torch.optim.Adam(q.parameters(), lr=3e-4)
v_opt = torch.optim.Adam(v.parameters(), lr=3e-4)
pi_opt = torch.optim.Adam(policy.parameters(), lr=3e-4)
data = make_dataset()
expectile, beta, gamma, tau = 0.7, 3.0, 0.99, 0.005


@torch.no_grad()
def soft_update(target, online, tau):
    for tp, p in zip(target.parameters(), online.parameters()):
        tp.lerp_(p, tau)


for step in range(300):
    idx = torch.randint(0, len(data["o"]), (256,))
    o, a, r, o2, d = (data[k][idx] for k in ("o", "a", "r", "o2", "d"))

    # value: expectile regression towards the target Q
    with torch.no_grad():
        tq = q_target(o.bfloat16(), a.bfloat16()).float()
    diff = tq - v(o).squeeze(-1)
    weight = torch.where(diff > 0, expectile, 1 - expectile)
    v_loss = (weight * diff.pow(2)).mean()
    v_opt.zero_grad(); v_loss.backward(); v_opt.step()

    # Q: TD towards V(s')
    with torch.no_grad():
        y = r + gamma * (1 - d) * v(o2).squeeze(-1)
    q_loss = F.mse_loss(q.q1(torch.cat([o, a], -1)).squeeze(-1), y) + F.mse_loss(q.q2(torch.cat([o, a], -1)).squeeze(-1), y)
    q_opt.zero_grad(); q_loss.backward(); q_opt.step()

    # policy extraction: advantage-weighted regression
    with torch.no_grad():
        w = torch.exp(beta * (tq - v(o).squeeze(-1))).clamp(max=100.0)
    pi_loss = (w * (policy(o) - a).pow(2).sum(-1)).mean()
    pi_opt.zero_grad(); pi_loss.backward(); pi_opt.step()

    soft_update(q_target, q, tau)
    if step % 100 == 0:
        print(f"step {step} v {v_loss.item():.4f} q {q_loss.item():.4f} pi {pi_loss.item():.4f}")
print("done")
