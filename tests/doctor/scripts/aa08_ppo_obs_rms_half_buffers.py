"""PPO on a NumPy 'cart on a track' task whose observations are in pixel units; observation normaliser
kept inside the policy as buffers so it is saved with the checkpoint; policy run in fp16 with .half()."""
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
np.random.seed(0)


class PixelCart:
    """Observation: cart x in pixels (0..600), velocity in px/s, pole angle, angular velocity."""

    def __init__(self, n):
        self.n = n

    def reset(self):
        self.x = np.random.uniform(250, 350, self.n)
        self.v = np.zeros(self.n)
        self.th = np.random.uniform(-0.05, 0.05, self.n)
        self.w = np.zeros(self.n)
        self.t = np.zeros(self.n, dtype=np.int64)
        return self._obs()

    def _obs(self):
        return np.stack([self.x, self.v, self.th, self.w], -1)

    def step(self, a):
        f = np.where(a == 1, 1.0, -1.0)
        self.v += 30.0 * f
        self.x += 0.02 * self.v
        self.w += 0.02 * (9.8 * np.sin(self.th) - 0.5 * f)
        self.th += 0.02 * self.w
        self.t += 1
        done = (np.abs(self.th) > 0.21) | (self.x < 0) | (self.x > 600) | (self.t >= 200)
        r = np.ones(self.n)
        for i in np.nonzero(done)[0]:
            self.x[i], self.v[i], self.th[i], self.w[i], self.t[i] = 300.0, 0.0, 0.0, 0.0, 0
        return self._obs(), r, done


class RunningNorm(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.register_buffer("mean", torch.zeros(dim))
        self.register_buffer("var", torch.ones(dim))
        self.register_buffer("count", torch.tensor(1e-4))

    @torch.no_grad()
    def update(self, x):
        b_mean = x.mean(0)
        b_var = (x ** 2).mean(0) - b_mean ** 2
        b_count = x.shape[0]
        delta = b_mean - self.mean
        tot = self.count + b_count
        self.mean += delta * b_count / tot
        m2 = self.var * self.count + b_var * b_count + delta ** 2 * self.count * b_count / tot
        self.var.copy_(m2 / tot)
        self.count.copy_(tot)

    def forward(self, x):
        return ((x - self.mean) / torch.sqrt(self.var + 1e-8)).clamp(-10, 10)


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.obs_norm = RunningNorm(4)
        self.pi = nn.Sequential(nn.Linear(4, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 2))
        self.v = nn.Sequential(nn.Linear(4, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 1))

    def forward(self, obs):
        x = self.obs_norm(obs)
        return self.pi(x), self.v(x).squeeze(-1)


policy = Policy().half()
opt = torch.optim.Adam(policy.parameters(), lr=3e-4, eps=1e-5)
N_ENVS, T = 8, 64
env = PixelCart(N_ENVS)
obs = env.reset()
gamma, lam, clip = 0.99, 0.95, 0.2

for update in range(10):
    buf_o, buf_a, buf_lp, buf_r, buf_d, buf_v = [], [], [], [], [], []
    for t in range(T):
        o = torch.as_tensor(obs, dtype=torch.float16)
        policy.obs_norm.update(o)
        with torch.no_grad():
            logits, v = policy(o)
            dist = torch.distributions.Categorical(logits=logits.float(), validate_args=False)
            a = (torch.rand(N_ENVS) < dist.probs[:, 1]).long()  # two actions: Bernoulli draw
        obs, r, done = env.step(a.numpy())
        buf_o.append(o); buf_a.append(a); buf_lp.append(dist.log_prob(a))
        buf_r.append(torch.as_tensor(r, dtype=torch.float32)); buf_d.append(torch.as_tensor(done, dtype=torch.float32)); buf_v.append(v.float())
    with torch.no_grad():
        _, last_v = policy(torch.as_tensor(obs, dtype=torch.float16))
    adv = torch.zeros(T, N_ENVS)
    gae = torch.zeros(N_ENVS)
    for t in reversed(range(T)):
        nv = last_v.float() if t == T - 1 else buf_v[t + 1]
        delta = buf_r[t] + gamma * nv * (1 - buf_d[t]) - buf_v[t]
        gae = delta + gamma * lam * (1 - buf_d[t]) * gae
        adv[t] = gae
    ret = adv + torch.stack(buf_v)
    O, A, LP = torch.stack(buf_o).flatten(0, 1), torch.stack(buf_a).flatten(), torch.stack(buf_lp).flatten()
    ADV, RET = adv.flatten(), ret.flatten()
    ADV = (ADV - ADV.mean()) / (ADV.std() + 1e-8)
    for epoch in range(4):
        for mb in torch.randperm(T * N_ENVS).split(128):
            logits, v = policy(O[mb])
            dist = torch.distributions.Categorical(logits=logits.float(), validate_args=False)
            ratio = (dist.log_prob(A[mb]) - LP[mb]).exp()
            pg = -torch.min(ratio * ADV[mb], ratio.clamp(1 - clip, 1 + clip) * ADV[mb]).mean()
            vf = 0.5 * (v.float() - RET[mb]).pow(2).mean()
            loss = pg + 0.5 * vf - 0.01 * dist.entropy().mean()
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            opt.step()
    print(f"update {update} loss {loss.item():.4f} obs_mean {policy.obs_norm.mean.tolist()} obs_var {policy.obs_norm.var.tolist()}")

print("done")
