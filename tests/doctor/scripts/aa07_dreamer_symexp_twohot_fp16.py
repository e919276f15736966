"""Dreamer-style agent: RSSM world model (GRU + categorical latents), symlog targets, two-hot reward/value
heads, KL balancing, and an actor-critic trained in imagination. Everything in fp16 via .half()."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
np.random.seed(0)
OBS, ACT, DET, CLS, CAT, HID, H = 8, 3, 64, 4, 4, 64, 8
STOCH = CLS * CAT


def symlog(x):
    return torch.sign(x) * torch.log1p(x.abs())


def symexp(x):
    return torch.sign(x) * (torch.exp(x.abs()) - 1)


class TwoHotHead(nn.Module):
    """Predicts a categorical over bins that live in symexp space (as in DreamerV3)."""

    def __init__(self, inp, n_bins=41):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(inp, HID), nn.SiLU(), nn.Linear(HID, n_bins))
        self.register_buffer("bins", symexp(torch.linspace(-20.0, 20.0, n_bins)))

    def mean(self, x):
        probs = F.softmax(self.net(x), -1)
        return (probs * self.bins).sum(-1)

    def loss(self, x, target):
        # two-hot encode the target on the bins
        logits = self.net(x)
        idx = torch.bucketize(target, self.bins).clamp(1, len(self.bins) - 1)
        lo, hi = self.bins[idx - 1], self.bins[idx]
        w_hi = ((target - lo) / (hi - lo)).clamp(0, 1)
        twohot = F.one_hot(idx - 1, len(self.bins)) * (1 - w_hi)[..., None] + F.one_hot(idx, len(self.bins)) * w_hi[..., None]
        return -(twohot * F.log_softmax(logits, -1)).sum(-1).mean()


class RSSM(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(OBS, HID), nn.SiLU())
        self.img_in = nn.Sequential(nn.Linear(STOCH + ACT, HID), nn.SiLU())
        self.gru = nn.GRUCell(HID, DET)
        self.prior = nn.Linear(DET, STOCH)
        self.post = nn.Linear(DET + HID, STOCH)
        self.dec = nn.Sequential(nn.Linear(DET + STOCH, HID), nn.SiLU(), nn.Linear(HID, OBS))
        self.reward = TwoHotHead(DET + STOCH)

    @staticmethod
    def sample(logits):
        logits = logits.view(*logits.shape[:-1], CLS, CAT)
        probs = F.softmax(logits, -1)
        gumbel = -torch.log(-torch.log(torch.rand_like(logits).clamp(1e-4, 1 - 1e-4)))
        idx = (logits + gumbel).argmax(-1)
        onehot = F.one_hot(idx, CAT).to(probs.dtype)
        return (onehot + probs - probs.detach()).flatten(-2)

    def img_step(self, h, z, a):
        h = self.gru(self.img_in(torch.cat([z, a], -1)), h)
        return h, self.prior(h)


def kl_cat(lhs, rhs):
    lp = F.log_softmax(lhs.view(*lhs.shape[:-1], CLS, CAT), -1)
    lq = F.log_softmax(rhs.view(*rhs.shape[:-1], CLS, CAT), -1)
    return (lp.exp() * (lp - lq)).sum((-2, -1))


class ToyEnv:
    def reset(self):
        self.s = np.random.randn(OBS)
        return self.s.copy()

    def step(self, a):
        self.s = 0.95 * self.s + 0.1 * np.tanh(np.pad(a, (0, OBS - ACT))) + 0.05 * np.random.randn(OBS)
        return self.s.copy(), float(np.exp(-np.sum(self.s ** 2)) * 10.0)


wm = RSSM().half()
actor = nn.Sequential(nn.Linear(DET + STOCH, HID), nn.SiLU(), nn.Linear(HID, ACT), nn.Tanh()).half()
critic = TwoHotHead(DET + STOCH).half()
wm_opt = torch.optim.Adam(wm.parameters(), lr=3e-4, eps=1e-5)
ac_opt = torch.optim.Adam(list(actor.parameters()) + list(critic.parameters()), lr=1e-4, eps=1e-5)

# collect a few random episodes
env = ToyEnv()
episodes = []
for _ in range(8):
    o, obs, acts, rews = env.reset(), [], [], []
    for t in range(32):
        a = np.random.uniform(-1, 1, ACT)
        obs.append(o); acts.append(a)
        o, r = env.step(a)
        rews.append(r)
    episodes.append((np.array(obs), np.array(acts), np.array(rews)))

B, T = 8, 16
for it in range(60):
    ep = [episodes[np.random.randint(len(episodes))] for _ in range(B)]
    st = np.random.randint(0, 32 - T, B)
    obs = torch.as_tensor(np.stack([e[0][s:s + T] for e, s in zip(ep, st)]), dtype=torch.float16)
    act = torch.as_tensor(np.stack([e[1][s:s + T] for e, s in zip(ep, st)]), dtype=torch.float16)
    rew = torch.as_tensor(np.stack([e[2][s:s + T] for e, s in zip(ep, st)]), dtype=torch.float16)

    # ---- world model: observe ----
    h = torch.zeros(B, DET, dtype=torch.float16)
    z = torch.zeros(B, STOCH, dtype=torch.float16)
    feats, dyn_kl, rep_kl = [], 0.0, 0.0
    for t in range(T):
        h, prior_logits = wm.img_step(h, z, act[:, t - 1] if t > 0 else torch.zeros_like(act[:, 0]))
        post_logits = wm.post(torch.cat([h, wm.enc(symlog(obs[:, t]))], -1))
        z = wm.sample(post_logits)
        # KL balancing with free bits
        dyn_kl = dyn_kl + kl_cat(post_logits.detach(), prior_logits).clamp(min=1.0).mean()
        rep_kl = rep_kl + kl_cat(post_logits, prior_logits.detach()).clamp(min=1.0).mean()
        feats.append(torch.cat([h, z], -1))
    feat = torch.stack(feats, 1)
    recon = F.mse_loss(wm.dec(feat), symlog(obs))
    rew_loss = wm.reward.loss(feat, rew)
    wm_loss = recon + rew_loss + (0.5 * dyn_kl + 0.1 * rep_kl) / T
    wm_opt.zero_grad()
    wm_loss.backward()
    torch.nn.utils.clip_grad_norm_(wm.parameters(), 100.0)
    wm_opt.step()

    # ---- imagination ----
    start = feat.detach().reshape(B * T, -1)
    h, z = start[:, :DET], start[:, DET:]
    img_feats, img_rews = [start], []
    for k in range(H):
        a = actor(img_feats[-1])
        h, prior_logits = wm.img_step(h, z, a)
        z = wm.sample(prior_logits)
        f = torch.cat([h, z], -1)
        img_feats.append(f)
        img_rews.append(wm.reward.mean(f))
    values = torch.stack([critic.mean(f) for f in img_feats])
    lam, gamma = 0.95, 0.99
    ret = values[-1]
    returns = []
    for k in reversed(range(H)):
        ret = img_rews[k] + gamma * ((1 - lam) * values[k + 1] + lam * ret)
        returns.append(ret)
    returns = torch.stack(returns[::-1])
    scale = torch.quantile(returns.detach().float(), 0.95) - torch.quantile(returns.detach().float(), 0.05)
    adv = (returns - values[:-1]) / max(1.0, scale.item())
    actor_loss = -adv.mean()
    critic_loss = critic.loss(torch.stack(img_feats[:-1]).detach(), returns.detach())
    ac_opt.zero_grad()
    (actor_loss + critic_loss).backward()
    ac_opt.step()
    if it % 20 == 0:
        print(f"it {it} wm {wm_loss.item():.3f} recon {recon.item():.3f} actor {actor_loss.item():.3f} critic {critic_loss.item():.3f}")

print("done", wm_loss.item(), actor_loss.item())
