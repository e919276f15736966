"""Dueling double DQN with a small CNN on uint8 frames, trained through accelerate with bf16 mixed
precision; Polyak-averaged target network; actions stored as int64, frames scaled inside the model."""
import copy
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from accelerate import Accelerator

torch.manual_seed(0)
rng = np.random.default_rng(0)
N_ACT, SIZE = 3, 32


class CatchEnv:
    """Ball falls from the top; move the paddle (bottom row) to catch it. uint8 frames, 2 stacked."""

    def reset(self):
        self.ball = [0, int(rng.integers(SIZE))]
        self.paddle = SIZE // 2
        self.prev = self._render()
        return np.stack([self.prev, self.prev])

    def _render(self):
        f = np.zeros((SIZE, SIZE), dtype=np.uint8)
        f[self.ball[0], self.ball[1]] = 255
        f[-1, max(0, self.paddle - 2):self.paddle + 3] = 255
        return f

    def step(self, a):
        self.paddle = int(np.clip(self.paddle + (a - 1) * 2, 0, SIZE - 1))
        self.ball[0] += 1
        cur = self._render()
        frames = np.stack([self.prev, cur])
        self.prev = cur
        done = self.ball[0] >= SIZE - 1
        r = (1.0 if abs(self.ball[1] - self.paddle) <= 2 else -1.0) if done else 0.0
        return frames, r, done


class DuelingQ(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(2, 16, 4, stride=2), nn.ReLU(), nn.Conv2d(16, 32, 3, stride=2), nn.ReLU())
        self.value = nn.Sequential(nn.Linear(32 * 7 * 7, 128), nn.ReLU(), nn.Linear(128, 1))
        self.adv = nn.Sequential(nn.Linear(32 * 7 * 7, 128), nn.ReLU(), nn.Linear(128, N_ACT))

    def forward(self, frames):
        h = self.conv(frames.float() / 255.0).flatten(1)
        v, a = self.value(h), self.adv(h)
        return v + a - a.mean(1, keepdim=True)


accelerator = Accelerator(cpu=True, mixed_precision="bf16")
q = DuelingQ()
opt = torch.optim.Adam(q.parameters(), lr=2.5e-4)
q, opt = accelerator.prepare(q, opt)
q_target = copy.deepcopy(accelerator.unwrap_model(q)).requires_grad_(False)

cap = 5000
buf_o = np.zeros((cap, 2, SIZE, SIZE), dtype=np.uint8)
buf_o2 = np.zeros_like(buf_o)
buf_a = np.zeros(cap, dtype=np.int64)
buf_r = np.zeros(cap, dtype=np.float32)
buf_d = np.zeros(cap, dtype=np.float32)
n = 0
env = CatchEnv()
obs = env.reset()
eps, gamma, tau = 1.0, 0.99, 0.01
returns, ep_ret = [], 0.0
for step in range(1200):
    if rng.random() < eps:
        a = int(rng.integers(N_ACT))
    else:
        with torch.no_grad():
            a = int(q(torch.from_numpy(obs)[None]).argmax())
    nobs, r, done = env.step(a)
    buf_o[n % cap], buf_a[n % cap], buf_r[n % cap], buf_o2[n % cap], buf_d[n % cap] = obs, a, r, nobs, done
    n += 1
    ep_ret += r
    if done:
        returns.append(ep_ret); ep_ret = 0.0
        obs = env.reset()
    else:
        obs = nobs
    eps = max(0.05, eps - 1 / 600)
    if n < 200 or step % 2:
        continue

    idx = rng.integers(0, min(n, cap), 64)
    o, a_b, r_b, o2, d_b = (torch.from_numpy(x[idx]) for x in (buf_o, buf_a, buf_r, buf_o2, buf_d))
    with torch.no_grad():
        next_a = q(o2).argmax(1, keepdim=True)                      # online net selects
        next_q = q_target(o2).gather(1, next_a).squeeze(1).float()  # target net evaluates
        y = r_b + gamma * (1 - d_b) * next_q
    q_sa = q(o).gather(1, a_b[:, None]).squeeze(1).float()
    loss = F.smooth_l1_loss(q_sa, y)
    opt.zero_grad()
    accelerator.backward(loss)
    accelerator.clip_grad_norm_(q.parameters(), 10.0)
    opt.step()
    with torch.no_grad():
        for tp, p in zip(q_target.parameters(), accelerator.unwrap_model(q).parameters()):
            tp.lerp_(p, tau)
    if step % 200 == 0:
        assert torch.isfinite(loss)
        print(f"step {step} loss {loss.item():.4f} eps {eps:.2f} recent return {np.mean(returns[-10:]):.2f}")
print("done; episodes", len(returns), "last-20 mean return", np.mean(returns[-20:]))
