"""PPO with GAE on a vectorised NumPy cart-pole, policy/value forward under CPU bf16 autocast.
Observations are float64 from NumPy and normalised with running statistics kept in float64."""
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
rng = np.random.default_rng(0)
N_ENVS, T, OBS, N_ACT = 8, 128, 4, 2


class VecCartPole:
    def __init__(self, n):
        self.n = n
        self.s = rng.uniform(-0.05, 0.05, (n, 4))
        self.t = np.zeros(n, dtype=np.int64)

    def step(self, a):
        x, v, th, w = self.s.T
        f = np.where(a == 1, 10.0, -10.0)
        tmp = (f + 0.05 * w ** 2 * np.sin(th)) / 1.1
        wacc = (9.8 * np.sin(th) - np.cos(th) * tmp) / (0.5 * (4 / 3 - 0.1 * np.cos(th) ** 2 / 1.1))
        xacc = tmp - 0.05 * wacc * np.cos(th) / 1.1
        self.s = np.stack([x + 0.02 * v, v + 0.02 * xacc, th + 0.02 * w, w + 0.02 * wacc], 1)
        self.t += 1
        done = (np.abs(self.s[:, 0]) > 2.4) | (np.abs(self.s[:, 2]) > 0.21) | (self.t >= 200)
        self.s[done] = rng.uniform(-0.05, 0.05, (done.sum(), 4))
        self.t[done] = 0
        return self.s.copy(), np.ones(self.n), done


class RunningMeanStd:
    def __init__(self, shape):
        self.mean, self.var, self.count = np.zeros(shape), np.ones(shape), 1e-4

    def update(self, x):
        bm, bv, bc = x.mean(0), x.var(0), x.shape[0]
        delta, tot = bm - self.mean, self.count + bc
        self.mean = self.mean + delta * bc / tot
        self.var = (self.var * self.count + bv * bc + delta ** 2 * self.count * bc / tot) / tot
        self.count = tot

    def normalize(self, x):
        return np.clip((x - self.mean) / np.sqrt(self.var + 1e-8), -10, 10)


class ActorCritic(nn.Module):
    def __init__(self):
        super().__init__()
        self.pi = nn.Sequential(nn.Linear(OBS, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, N_ACT))
        self.v = nn.Sequential(nn.Linear(OBS, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 1))

    def forward(self, x):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits, v = self.pi(x), self.v(x)
        return logits.float(), v.float().squeeze(-1)


model = ActorCritic()
opt = torch.optim.Adam(model.parameters(), lr=3e-4, eps=1e-5)
env = VecCartPole(N_ENVS)
rms = RunningMeanStd(OBS)
raw = env.s.copy()
rms.update(raw)
obs = torch.as_tensor(rms.normalize(raw), dtype=torch.float32)
gamma, lam, clip_eps = 0.99, 0.95, 0.2
ep_len = np.zeros(N_ENVS)
finished = []

for update in range(12):
    b_o, b_a, b_lp, b_v, b_r, b_d = [], [], [], [], [], []
    for t in range(T):
        with torch.no_grad():
            logits, v = model(obs)
        dist = torch.distributions.Categorical(logits=logits)
        a = dist.sample()
        raw, r, done = env.step(a.numpy())
        ep_len += 1
        finished += list(ep_len[done]); ep_len[done] = 0
        rms.update(raw)
        b_o.append(obs); b_a.append(a); b_lp.append(dist.log_prob(a)); b_v.append(v)
        b_r.append(torch.as_tensor(r, dtype=torch.float32)); b_d.append(torch.as_tensor(done, dtype=torch.float32))
        obs = torch.as_tensor(rms.normalize(raw), dtype=torch.float32)
    with torch.no_grad():
        _, last_v = model(obs)
    adv = torch.zeros(T, N_ENVS)
    last_gae = torch.zeros(N_ENVS)
    for t in reversed(range(T)):
        next_v = last_v if t == T - 1 else b_v[t + 1]
        nonterminal = 1.0 - b_d[t]
        delta = b_r[t] + gamma * next_v * nonterminal - b_v[t]
        last_gae = delta + gamma * lam * nonterminal * last_gae
        adv[t] = last_gae
    ret = adv + torch.stack(b_v)
    O, A, LP = torch.stack(b_o).flatten(0, 1), torch.stack(b_a).flatten(), torch.stack(b_lp).flatten()
    ADV, RET = adv.flatten(), ret.flatten()
    for epoch in range(4):
        for mb in torch.randperm(T * N_ENVS).split(256):
            logits, v = model(O[mb])
            dist = torch.distributions.Categorical(logits=logits)
            mb_adv = (ADV[mb] - ADV[mb].mean()) / (ADV[mb].std() + 1e-8)
            ratio = (dist.log_prob(A[mb]) - LP[mb]).exp()
            pg_loss = torch.max(-mb_adv * ratio, -mb_adv * ratio.clamp(1 - clip_eps, 1 + clip_eps)).mean()
            v_loss = 0.5 * (v - RET[mb]).pow(2).mean()
            loss = pg_loss + 0.5 * v_loss - 0.01 * dist.entropy().mean()
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 0.5)
            opt.step()
    assert torch.isfinite(loss)
    mean_len = np.mean(finished[-20:]) if finished else 0.0
    print(f"update {update} loss {loss.item():.4f} mean episode length {mean_len:.1f}")
print("done")
