"""C51 (categorical distributional DQN) with a dueling head on a NumPy chain environment; the replay buffer
is a set of NumPy arrays, the network runs under bf16 autocast."""
import copy
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(0)
N_STATES, N_ACT, ATOMS, V_MIN, V_MAX = 12, 2, 51, -10.0, 10.0
support = torch.linspace(V_MIN, V_MAX, ATOMS)
delta_z = (V_MAX - V_MIN) / (ATOMS - 1)


class Chain:
    def reset(self):
        self.s = 1
        return self.obs()

    def obs(self):
        o = np.zeros(N_STATES)
        o[self.s] = 1.0
        return o

    def step(self, a):
        self.s = max(0, min(N_STATES - 1, self.s + (1 if a == 1 else -1)))
        r = 1.0 if self.s == N_STATES - 1 else (0.01 if self.s == 0 else 0.0)
        return self.obs(), r, self.s in (0, N_STATES - 1)


class DuelingC51(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(N_STATES, 128), nn.ReLU())
        self.value = nn.Linear(128, ATOMS)
        self.adv = nn.Linear(128, N_ACT * ATOMS)

    def forward(self, x):
        h = self.body(x)
        v = self.value(h).view(-1, 1, ATOMS)
        a = self.adv(h).view(-1, N_ACT, ATOMS)
        return F.softmax((v + a - a.mean(1, keepdim=True)).float(), -1)  # (B, A, atoms)


net = DuelingC51()
target = copy.deepcopy(net)
opt = torch.optim.Adam(net.parameters(), lr=5e-4, eps=0.01 / 32)
cap = 10000
B_o = np.zeros((cap, N_STATES), dtype=np.float32)
B_o2 = np.zeros((cap, N_STATES), dtype=np.float32)
B_a = np.zeros(cap, dtype=np.int64)
B_r = np.zeros(cap)
B_d = np.zeros(cap)
n = 0
env = Chain()
o = env.reset()
gamma, eps = 0.99, 1.0
for step in range(600):
    if rng.random() < eps:
        a = int(rng.integers(N_ACT))
    else:
        with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
            a = int((net(torch.as_tensor(o, dtype=torch.float32)[None]) * support).sum(-1).argmax())
    o2, r, d = env.step(a)
    B_o[n], B_a[n], B_r[n], B_o2[n], B_d[n] = o, a, r, o2, d
    n += 1
    o = env.reset() if d else o2
    eps = max(0.05, eps - 0.003)
    if n < 128:
        continue

    idx = rng.integers(0, n, 32)
    obs, act = torch.from_numpy(B_o[idx]), torch.from_numpy(B_a[idx])
    rew, done, nobs = torch.from_numpy(B_r[idx]), torch.from_numpy(B_d[idx]), torch.from_numpy(B_o2[idx])
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        next_dist = target(nobs)
        next_a = (next_dist * support).sum(-1).argmax(1)
        next_dist = next_dist[torch.arange(32), next_a]  # (B, atoms)
        # project T z = r + gamma * z onto the fixed support
        Tz = (rew[:, None] + gamma * (1 - done[:, None]) * support[None]).clamp(V_MIN, V_MAX)
        b = (Tz - V_MIN) / delta_z
        l, u = b.floor().long(), b.ceil().long()
        l[(u > 0) & (l == u)] -= 1
        u[(l < ATOMS - 1) & (l == u)] += 1
        m = torch.zeros(32, ATOMS)
        offset = (torch.arange(32) * ATOMS)[:, None]
        m.view(-1).index_add_(0, (l + offset).view(-1), (next_dist * (u.float() - b)).view(-1))
        m.view(-1).index_add_(0, (u + offset).view(-1), (next_dist * (b - l.float())).view(-1))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        dist = net(obs)[torch.arange(32), act]
    loss = -(m * torch.log(dist.clamp(min=1e-6))).sum(-1).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 100 == 0:
        target.load_state_dict(net.state_dict())
        print(f"step {step} loss {loss.item():.4f} eps {eps:.2f}")
print("done")
