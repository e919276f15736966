"""SAC-Discrete on a toy 'Atari RAM' environment (128 uint8 bytes per observation), fp16 networks."""
import copy
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
DTYPE = torch.float16
N_ACTIONS = 6


class RamEnv:
    """Fake console: RAM bytes drift with the chosen action; reward for moving byte 17 towards 128."""

    def __init__(self, seed=0):
        self.rng = np.random.default_rng(seed)

    def reset(self):
        self.ram = self.rng.integers(0, 256, size=128, dtype=np.uint8)
        self.t = 0
        return self.ram.copy()

    def step(self, a):
        self.t += 1
        delta = self.rng.integers(-3, 4, size=128)
        delta[17] += (a - 2) * 4
        self.ram = np.clip(self.ram.astype(np.int64) + delta, 0, 255).astype(np.uint8)
        reward = -abs(int(self.ram[17]) - 128) / 128.0
        return self.ram.copy(), reward, self.t >= 100


def mlp(out):
    return nn.Sequential(nn.Linear(128, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, out))


actor = mlp(N_ACTIONS).to(DTYPE)
q1, q2 = mlp(N_ACTIONS).to(DTYPE), mlp(N_ACTIONS).to(DTYPE)
q1_t, q2_t = copy.deepcopy(q1), copy.deepcopy(q2)
log_alpha = torch.zeros(1, requires_grad=True)
target_entropy = 0.98 * -np.log(1.0 / N_ACTIONS)
pi_opt = torch.optim.Adam(actor.parameters(), lr=3e-4, eps=1e-4)
q_opt = torch.optim.Adam(list(q1.parameters()) + list(q2.parameters()), lr=3e-4, eps=1e-4)
a_opt = torch.optim.Adam([log_alpha], lr=3e-4)


def policy(obs):
    logits = actor(obs)
    probs = F.softmax(logits, dim=-1)
    log_probs = torch.log(probs + 1e-8)
    return probs, log_probs


cap = 5000
buf_o = np.zeros((cap, 128), dtype=np.uint8)
buf_o2 = np.zeros((cap, 128), dtype=np.uint8)
buf_a = np.zeros(cap, dtype=np.int64)
buf_r = np.zeros(cap, dtype=np.float32)
buf_d = np.zeros(cap, dtype=np.float32)
ptr = 0

env = RamEnv()
obs = env.reset()
gamma, tau = 0.99, 0.005
for step in range(400):
    with torch.no_grad():
        _, logp = policy(torch.as_tensor(obs, dtype=DTYPE).unsqueeze(0))
        gumbel = -torch.log(-torch.log(torch.rand(N_ACTIONS)))  # Gumbel-max sampling
        action = int((logp.float() + gumbel).argmax()) if step > 100 else int(np.random.randint(N_ACTIONS))
    nobs, rew, done = env.step(action)
    buf_o[ptr], buf_a[ptr], buf_r[ptr], buf_o2[ptr], buf_d[ptr] = obs, action, rew, nobs, float(done)
    ptr += 1
    obs = env.reset() if done else nobs

    if step < 200:
        continue
    idx = np.random.randint(0, ptr, size=64)
    o = torch.as_tensor(buf_o[idx], dtype=DTYPE)
    o2 = torch.as_tensor(buf_o2[idx], dtype=DTYPE)
    a = torch.as_tensor(buf_a[idx])
    r = torch.as_tensor(buf_r[idx], dtype=DTYPE)
    d = torch.as_tensor(buf_d[idx], dtype=DTYPE)
    alpha = log_alpha.exp().detach().to(DTYPE)

    with torch.no_grad():
        p2, lp2 = policy(o2)
        v2 = (p2 * (torch.min(q1_t(o2), q2_t(o2)) - alpha * lp2)).sum(-1)
        y = r + gamma * (1 - d) * v2
    qa1 = q1(o).gather(1, a[:, None]).squeeze(1)
    qa2 = q2(o).gather(1, a[:, None]).squeeze(1)
    q_loss = F.mse_loss(qa1, y) + F.mse_loss(qa2, y)
    q_opt.zero_grad()
    q_loss.backward()
    q_opt.step()

    p, lp = policy(o)
    with torch.no_grad():
        qmin = torch.min(q1(o), q2(o))
    pi_loss = (p * (alpha * lp - qmin)).sum(-1).mean()
    pi_opt.zero_grad()
    pi_loss.backward()
    pi_opt.step()

    entropy = -(p.detach() * lp.detach()).sum(-1)
    alpha_loss = (log_alpha * (entropy.float() - target_entropy)).mean()
    a_opt.zero_grad()
    alpha_loss.backward()
    a_opt.step()

    with torch.no_grad():
        for net, targ in ((q1, q1_t), (q2, q2_t)):
            for pp, tp in zip(net.parameters(), targ.parameters()):
                tp.mul_(1 - tau).add_(tau * pp)
    if step % 100 == 0:
        print(f"step {step} q_loss {q_loss.item():.3f} pi_loss {pi_loss.item():.3f} alpha {alpha.item():.3f} entropy {entropy.mean().item():.3f}")

print("done; alpha", log_alpha.exp().item())
