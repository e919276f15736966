"""TD3 on a NumPy point-mass environment; actor and critics converted with .half() to save memory."""
import copy
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
np.random.seed(0)


class PointMass:
    obs_dim, act_dim = 4, 2

    def reset(self):
        self.pos = np.random.uniform(-1, 1, 2)
        self.vel = np.zeros(2)
        self.t = 0
        return np.concatenate([self.pos, self.vel])  # float64

    def step(self, a):
        self.vel = 0.9 * self.vel + 0.1 * np.clip(a, -1, 1)
        self.pos = self.pos + 0.1 * self.vel
        self.t += 1
        r = -np.sum(self.pos ** 2) - 0.01 * np.sum(a ** 2)
        return np.concatenate([self.pos, self.vel]), r, self.t >= 50


class Actor(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 2), nn.Tanh())

    def forward(self, o):
        return self.net(o)


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.q1 = nn.Sequential(nn.Linear(6, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))
        self.q2 = nn.Sequential(nn.Linear(6, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, o, a):
        x = torch.cat([o, a], -1)
        return self.q1(x), self.q2(x)


actor, critic = Actor().half(), Critic().half()
actor_t, critic_t = copy.deepcopy(actor), copy.deepcopy(critic)
actor_opt = torch.optim.Adam(actor.parameters(), lr=1e-3)
critic_opt = torch.optim.Adam(critic.parameters(), lr=1e-3)

replay = {k: [] for k in ("o", "a", "r", "o2", "d")}
env = PointMass()
o = env.reset()
gamma, tau, policy_noise, noise_clip, policy_delay = 0.99, 0.005, 0.2, 0.5, 2
for t in range(800):
    if t < 300:
        a = np.random.uniform(-1, 1, 2)
    else:
        with torch.no_grad():
            a = actor(torch.as_tensor(o, dtype=torch.float16)).float().numpy()
        a = np.clip(a + 0.1 * np.random.randn(2), -1, 1)
    o2, r, done = env.step(a)
    for k, v in zip(("o", "a", "r", "o2", "d"), (o, a, r, o2, float(done))):
        replay[k].append(v)
    o = env.reset() if done else o2

    if t < 300:
        continue
    idx = np.random.randint(0, len(replay["o"]), 100)
    ob, ac, rw, ob2, dn = (torch.as_tensor(np.asarray(replay[k])[idx], dtype=torch.float16) for k in ("o", "a", "r", "o2", "d"))
    with torch.no_grad():
        noise = (torch.randn_like(ac) * policy_noise).clamp(-noise_clip, noise_clip)
        a2 = (actor_t(ob2) + noise).clamp(-1, 1)
        tq1, tq2 = critic_t(ob2, a2)
        y = rw[:, None] + gamma * (1 - dn[:, None]) * torch.min(tq1, tq2)
    q1, q2 = critic(ob, ac)
    critic_loss = F.mse_loss(q1, y) + F.mse_loss(q2, y)
    critic_opt.zero_grad()
    critic_loss.backward()
    critic_opt.step()

    if t % policy_delay == 0:
        actor_loss = -critic(ob, actor(ob))[0].mean()
        actor_opt.zero_grad()
        actor_loss.backward()
        actor_opt.step()
        with torch.no_grad():
            for net, targ in ((actor, actor_t), (critic, critic_t)):
                for p, tp in zip(net.parameters(), targ.parameters()):
                    tp.mul_(1 - tau).add_(tau * p)
    if t % 250 == 0:
        print(f"t={t} critic_loss={critic_loss.item():.4f} actor_loss={actor_loss.item():.4f}")

print("final critic loss", critic_loss.item())
