"""DQN with a small Nature-style CNN on an 84x84 uint8 frame environment; Q-network in bf16."""
import copy
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(0)
DTYPE = torch.bfloat16
N_ACT = 4


class FrameEnv:
    """A dot moves on a 42x42 screen; the agent steers it to the centre. Frames are uint8, stacked 4 deep."""

    def reset(self):
        self.pos = rng.integers(0, 42, 2)
        self.t = 0
        self.frames = [self._render()] * 4
        return np.stack(self.frames)

    def _render(self):
        f = np.zeros((42, 42), dtype=np.uint8)
        f[self.pos[0], self.pos[1]] = 255
        return f

    def step(self, a):
        self.pos = np.clip(self.pos + [(-1, 0), (1, 0), (0, -1), (0, 1)][a], 0, 41)
        self.t += 1
        self.frames = self.frames[1:] + [self._render()]
        r = -np.abs(self.pos - 21).sum() / 42.0
        return np.stack(self.frames), r, self.t >= 60


class QNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(4, 16, 8, stride=4)
        self.conv2 = nn.Conv2d(16, 32, 4, stride=2)
        self.fc = nn.Linear(32 * 3 * 3, 128)
        self.out = nn.Linear(128, N_ACT)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        return self.out(F.relu(self.fc(x.flatten(1))))


def preprocess(frames):
    return torch.as_tensor(frames).unsqueeze(0).to(DTYPE) / 255.0


class ReplayBuffer:
    def __init__(self, cap, shape):
        self.obs = np.zeros((cap, *shape), dtype=np.uint8)
        self.next_obs = np.zeros((cap, *shape), dtype=np.uint8)
        self.act = np.zeros(cap, dtype=np.int64)
        self.rew = np.zeros(cap, dtype=np.float32)
        self.done = np.zeros(cap, dtype=np.float32)
        self.n, self.cap = 0, cap

    def add(self, o, a, r, o2, d):
        i = self.n % self.cap
        self.obs[i], self.act[i], self.rew[i], self.next_obs[i], self.done[i] = o, a, r, o2, d
        self.n += 1

    def sample(self, bs):
        idx = rng.integers(0, min(self.n, self.cap), bs)
        return (torch.from_numpy(self.obs[idx]), torch.from_numpy(self.act[idx]), torch.from_numpy(self.rew[idx]),
                torch.from_numpy(self.next_obs[idx]), torch.from_numpy(self.done[idx]))


q = QNet().to(DTYPE)
q_target = copy.deepcopy(q)
opt = torch.optim.Adam(q.parameters(), lr=1e-4)
buf = ReplayBuffer(5000, (4, 42, 42))
env = FrameEnv()
obs = env.reset()
eps, gamma = 1.0, 0.99
for step in range(400):
    if rng.random() < eps:
        a = int(rng.integers(N_ACT))
    else:
        with torch.no_grad():
            a = int(q(preprocess(obs)).argmax())
    nobs, r, done = env.step(a)
    buf.add(obs, a, r, nobs, float(done))
    obs = env.reset() if done else nobs
    eps = max(0.05, eps - 0.005)

    if step >= 200 and step % 4 == 0:
        o, act, rew, o2, d = buf.sample(32)
        with torch.no_grad():
            target = rew.to(DTYPE) + gamma * (1 - d.to(DTYPE)) * q_target(o2).max(1).values
        qa = q(o).gather(1, act[:, None]).squeeze(1)
        loss = F.smooth_l1_loss(qa, target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 100 == 0:
            q_target.load_state_dict(q.state_dict())
            print(f"step {step} loss {loss.item():.4f} eps {eps:.2f}")
print("done")
