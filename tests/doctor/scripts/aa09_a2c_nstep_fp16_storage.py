"""A2C with n-step bootstrapped returns on a NumPy 'brick breaker' with unclipped game-score rewards.
Rollout storage is kept in fp16 to save memory (many parallel envs)."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(0)
N_ENVS, N_STEPS, OBS, N_ACT = 16, 128, 10, 3
STORAGE_DTYPE = torch.float16


class BrickBreaker:
    """Reward is the game score: 100-900 points per brick row, several bricks per frame late in the level."""

    def __init__(self, n):
        self.n = n
        self.paddle = np.zeros(n)
        self.ball = rng.uniform(-1, 1, (n, 2))
        self.level = np.ones(n)

    def obs(self):
        return np.concatenate([self.paddle[:, None], self.ball, self.level[:, None], rng.normal(size=(self.n, OBS - 4))], 1)

    def step(self, a):
        self.paddle = np.clip(self.paddle + (a - 1) * 0.1, -1, 1)
        self.ball = np.clip(self.ball + rng.normal(scale=0.1, size=(self.n, 2)), -1, 1)
        hit = np.abs(self.ball[:, 0] - self.paddle) < 0.5
        bricks = rng.integers(0, 3, self.n) * hit
        reward = bricks * 100.0 * rng.integers(1, 10, self.n) * self.level
        self.level = np.minimum(self.level + 0.01, 3.0)
        done = rng.random(self.n) < 0.002
        return self.obs(), reward, done


class ActorCritic(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(OBS, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU())
        self.pi = nn.Linear(128, N_ACT)
        self.v = nn.Linear(128, 1)

    def forward(self, x):
        h = self.body(x)
        return self.pi(h), self.v(h).squeeze(-1)


class RolloutStorage:
    def __init__(self):
        self.obs = torch.zeros(N_STEPS + 1, N_ENVS, OBS, dtype=STORAGE_DTYPE)
        self.rewards = torch.zeros(N_STEPS, N_ENVS, dtype=STORAGE_DTYPE)
        self.masks = torch.ones(N_STEPS + 1, N_ENVS, dtype=STORAGE_DTYPE)
        self.actions = torch.zeros(N_STEPS, N_ENVS, dtype=torch.long)
        self.returns = torch.zeros(N_STEPS + 1, N_ENVS, dtype=STORAGE_DTYPE)

    def compute_returns(self, next_value, gamma):
        self.returns[-1] = next_value
        for t in reversed(range(N_STEPS)):
            self.returns[t] = self.rewards[t] + gamma * self.returns[t + 1] * self.masks[t + 1]


model = ActorCritic()
opt = torch.optim.RMSprop(model.parameters(), lr=7e-4, alpha=0.99, eps=1e-5)
env = BrickBreaker(N_ENVS)
storage = RolloutStorage()
storage.obs[0] = torch.as_tensor(env.obs())

for update in range(6):
    for t in range(N_STEPS):
        with torch.no_grad():
            logits, _ = model(storage.obs[t].float())
            a = (logits - torch.log(-torch.log(torch.rand_like(logits)))).argmax(-1)  # Gumbel-max sample
        o, r, d = env.step(a.numpy())
        storage.obs[t + 1] = torch.as_tensor(o)
        storage.rewards[t] = torch.as_tensor(r)
        storage.masks[t + 1] = torch.as_tensor(1.0 - d)
        storage.actions[t] = a
    with torch.no_grad():
        _, next_v = model(storage.obs[-1].float())
    storage.compute_returns(next_v, gamma=0.99)

    logits, values = model(storage.obs[:-1].float().flatten(0, 1))
    logp = F.log_softmax(logits, -1)
    act_logp = logp.gather(1, storage.actions.flatten()[:, None]).squeeze(1)
    returns = storage.returns[:-1].flatten().float()
    advantages = returns - values
    value_loss = advantages.pow(2).mean()
    policy_loss = -(advantages.detach() * act_logp).mean()
    entropy = -(logp.exp() * logp).sum(-1).mean()
    loss = policy_loss + 0.5 * value_loss - 0.01 * entropy
    opt.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 0.5)
    opt.step()
    storage.obs[0] = storage.obs[-1]
    storage.masks[0] = storage.masks[-1]
    print(f"update {update} value_loss {value_loss.item():.1f} policy_loss {policy_loss.item():.3f} "
          f"max_return {storage.returns.float().max().item():.1f}")
print("done")
