"""Offline AWAC on a NumPy reaching task: tanh-squashed Gaussian actor, twin critics, all in bf16."""
import copy
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(0)
DT = torch.bfloat16
LOG_2PI = float(np.log(2 * np.pi))
OBS, ACT = 6, 2


def collect_offline_dataset(n=4096):
    # scripted expert: proportional controller towards the goal, saturated to [-1, 1]
    obs = rng.normal(size=(n, OBS)) * 2.0
    act = np.clip(3.0 * (obs[:, 2:4] - obs[:, 0:2]) + 0.1 * rng.normal(size=(n, ACT)), -1.0, 1.0)
    nxt = obs.copy()
    nxt[:, 0:2] += 0.1 * act
    rew = -np.linalg.norm(nxt[:, 2:4] - nxt[:, 0:2], axis=1)
    done = (rew > -0.05).astype(np.float64)
    return obs, act, rew, nxt, done


def gaussian_log_prob(x, mu, log_std):
    return -0.5 * ((x - mu) / log_std.exp()).pow(2) - log_std - 0.5 * LOG_2PI


class TanhGaussianActor(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(OBS, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU())
        self.mu = nn.Linear(128, ACT)
        self.log_std = nn.Linear(128, ACT)

    def dist(self, obs):
        h = self.body(obs)
        log_std = self.log_std(h).clamp(-5.0, 2.0)
        return self.mu(h), log_std

    def log_prob(self, obs, act):
        # invert the squashing to score dataset actions; keep away from +-1
        act = act.clamp(-1.0 + 1e-6, 1.0 - 1e-6)
        pre_tanh = torch.atanh(act)
        logp = gaussian_log_prob(pre_tanh, *self.dist(obs)).sum(-1)
        logp = logp - torch.log(1.0 - act.pow(2) + 1e-6).sum(-1)
        return logp

    def sample(self, obs):
        mu, log_std = self.dist(obs)
        u = mu + log_std.exp() * torch.randn_like(mu)
        a = torch.tanh(u)
        logp = gaussian_log_prob(u, mu, log_std).sum(-1) - torch.log(1.0 - a.pow(2) + 1e-6).sum(-1)
        return a, logp


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.q1 = nn.Sequential(nn.Linear(OBS + ACT, 128), nn.ReLU(), nn.Linear(128, 1))
        self.q2 = nn.Sequential(nn.Linear(OBS + ACT, 128), nn.ReLU(), nn.Linear(128, 1))

    def forward(self, o, a):
        x = torch.cat([o, a], -1)
        return self.q1(x).squeeze(-1), self.q2(x).squeeze(-1)


actor = TanhGaussianActor().to(DT)
critic = Critic().to(DT)
critic_targ = copy.deepcopy(critic)
a_opt = torch.optim.Adam(actor.parameters(), lr=3e-4)
c_opt = torch.optim.Adam(critic.parameters(), lr=3e-4)

data = [torch.as_tensor(x, dtype=torch.float32).to(DT) for x in collect_offline_dataset()]
gamma, tau, lam = 0.99, 0.005, 1.0

for step in range(200):
    idx = torch.randint(0, data[0].shape[0], (256,))
    o, a, r, o2, d = (x[idx] for x in data)
    with torch.no_grad():
        a2, _ = actor.sample(o2)
        tq1, tq2 = critic_targ(o2, a2)
        y = r + gamma * (1 - d) * torch.min(tq1, tq2)
    q1, q2 = critic(o, a)
    c_loss = F.mse_loss(q1, y) + F.mse_loss(q2, y)
    c_opt.zero_grad()
    c_loss.backward()
    c_opt.step()

    # advantage-weighted actor update on the dataset actions
    with torch.no_grad():
        pi_a, _ = actor.sample(o)
        v = torch.min(*critic(o, pi_a))
        adv = torch.min(*critic(o, a)) - v
        w = F.softmax(adv / lam, dim=0)
    logp = actor.log_prob(o, a)
    a_loss = -(w * logp).sum()
    a_opt.zero_grad()
    a_loss.backward()
    a_opt.step()

    with torch.no_grad():
        for p, tp in zip(critic.parameters(), critic_targ.parameters()):
            tp.mul_(1 - tau).add_(tau * p)
    if step % 50 == 0:
        print(f"step {step} critic {c_loss.item():.4f} actor {a_loss.item():.4f}")

print("final actor loss", a_loss.item())
