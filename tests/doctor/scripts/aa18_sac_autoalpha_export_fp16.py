"""SAC with automatic entropy tuning on a NumPy point-mass task; networks run under bf16 autocast with
fp32 master weights, the tanh log-prob correction uses the numerically stable softplus form, and the
trained actor is exported to an fp16 safetensors file and reloaded (cast back to fp32) for evaluation."""
import copy
import math
import os
import tempfile
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from safetensors.torch import save_file, load_file

torch.manual_seed(0)
rng = np.random.default_rng(0)
OBS, ACT = 4, 2


class PointMass:
    def reset(self):
        self.s = rng.uniform(-1, 1, 4)
        self.t = 0
        return self.s.copy()

    def step(self, a):
        self.s[2:] = 0.9 * self.s[2:] + 0.1 * a
        self.s[:2] = np.clip(self.s[:2] + 0.1 * self.s[2:], -2, 2)
        self.t += 1
        return self.s.copy(), -float(np.sum(self.s[:2] ** 2)), self.t >= 50


class Actor(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(OBS, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU())
        self.mu, self.log_std = nn.Linear(64, ACT), nn.Linear(64, ACT)

    def forward(self, o, deterministic=False):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            h = self.body(o)
            mu, log_std = self.mu(h), self.log_std(h)
        mu, log_std = mu.float(), log_std.float().clamp(-5, 2)
        std = log_std.exp()
        u = mu if deterministic else mu + std * torch.randn_like(mu)
        logp = (-0.5 * ((u - mu) / std) ** 2 - log_std - 0.5 * math.log(2 * math.pi)).sum(-1)
        logp = logp - (2 * (math.log(2) - u - F.softplus(-2 * u))).sum(-1)
        return torch.tanh(u), logp


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.q1 = nn.Sequential(nn.Linear(OBS + ACT, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))
        self.q2 = copy.deepcopy(self.q1)
        for m in self.q2:
            if isinstance(m, nn.Linear):
                m.reset_parameters()

    def forward(self, o, a):
        x = torch.cat([o, a], -1)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            return self.q1(x).float().squeeze(-1), self.q2(x).float().squeeze(-1)


actor, critic = Actor(), Critic()
critic_t = copy.deepcopy(critic).requires_grad_(False)
log_alpha = torch.zeros((), requires_grad=True)
target_entropy = -float(ACT)
a_opt = torch.optim.Adam(actor.parameters(), lr=3e-4)
c_opt = torch.optim.Adam(critic.parameters(), lr=3e-4)
al_opt = torch.optim.Adam([log_alpha], lr=3e-4)

cap = 20000
B = {k: np.zeros((cap, d), dtype=np.float32) for k, d in (("o", OBS), ("a", ACT), ("r", 1), ("o2", OBS), ("d", 1))}
n = 0
env = PointMass()
o = env.reset()
gamma, tau = 0.99, 0.005
for step in range(1200):
    if step < 200:
        a = rng.uniform(-1, 1, ACT)
    else:
        with torch.no_grad():
            a = actor(torch.as_tensor(o, dtype=torch.float32)[None])[0][0].numpy()
    o2, r, d = env.step(a)
    for k, v in zip(("o", "a", "r", "o2", "d"), (o, a, r, o2, d)):
        B[k][n % cap] = v
    n += 1
    o = env.reset() if d else o2
    if step < 200:
        continue

    idx = rng.integers(0, min(n, cap), 128)
    ob, ac, rw, ob2, dn = (torch.from_numpy(B[k][idx]) for k in ("o", "a", "r", "o2", "d"))
    rw, dn = rw.squeeze(1), dn.squeeze(1)
    alpha = log_alpha.exp().detach()
    with torch.no_grad():
        a2, lp2 = actor(ob2)
        y = rw + gamma * (1 - dn) * (torch.min(*critic_t(ob2, a2)) - alpha * lp2)
    q1, q2 = critic(ob, ac)
    c_loss = F.mse_loss(q1, y) + F.mse_loss(q2, y)
    c_opt.zero_grad(); c_loss.backward(); c_opt.step()

    pi, lp = actor(ob)
    a_loss = (alpha * lp - torch.min(*critic(ob, pi))).mean()
    a_opt.zero_grad(); a_loss.backward(); a_opt.step()

    al_loss = -(log_alpha * (lp.detach() + target_entropy)).mean()
    al_opt.zero_grad(); al_loss.backward(); al_opt.step()

    with torch.no_grad():
        for p, tp in zip(critic.parameters(), critic_t.parameters()):
            tp.mul_(1 - tau).add_(tau * p)
    if step % 250 == 0:
        assert all(torch.isfinite(x) for x in (c_loss, a_loss, al_loss))
        print(f"step {step} critic {c_loss.item():.4f} actor {a_loss.item():.4f} alpha {alpha.item():.4f}")

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "actor_fp16.safetensors")
    save_file({k: v.half().contiguous() for k, v in actor.state_dict().items()}, path)
    deployed = Actor()
    deployed.load_state_dict(load_file(path))  # copies into the fp32 parameters
    deployed.eval()
    o, total = env.reset(), 0.0
    with torch.inference_mode():
        for t in range(50):
            a, _ = deployed(torch.as_tensor(o, dtype=torch.float32)[None], deterministic=True)
            o, r, d = env.step(a[0].numpy())
            total += r
    print(f"deployed policy return {total:.3f}, param dtype {next(deployed.parameters()).dtype}")
