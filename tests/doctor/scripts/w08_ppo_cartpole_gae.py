import math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical

torch.manual_seed(0)
rng = np.random.default_rng(0)


class CartPole:
    def __init__(self):
        self.g, self.mc, self.mp, self.l, self.f, self.dt = 9.8, 1.0, 0.1, 0.5, 10.0, 0.02
        self.reset()

    def reset(self):
        self.s = rng.uniform(-0.05, 0.05, 4)
        self.t = 0
        return self.s.astype(np.float32)

    def step(self, a):
        x, xd, th, thd = self.s
        force = self.f if a == 1 else -self.f
        ct, st = math.cos(th), math.sin(th)
        tmp = (force + self.mp * self.l * thd ** 2 * st) / (self.mc + self.mp)
        tha = (self.g * st - ct * tmp) / (self.l * (4 / 3 - self.mp * ct ** 2 / (self.mc + self.mp)))
        xa = tmp - self.mp * self.l * tha * ct / (self.mc + self.mp)
        self.s = np.array([x + self.dt * xd, xd + self.dt * xa, th + self.dt * thd, thd + self.dt * tha])
        self.t += 1
        done = abs(self.s[0]) > 2.4 or abs(self.s[2]) > 0.21 or self.t >= 200
        return self.s.astype(np.float32), 1.0, done


class ActorCritic(nn.Module):
    def __init__(self, obs_dim=4, n_actions=2, hidden=64):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh())
        self.policy_head = nn.Linear(hidden, n_actions)
        self.value_head = nn.Linear(hidden, 1)

    def forward(self, obs):
        h = self.body(obs)
        return self.policy_head(h), self.value_head(h).squeeze(-1)


def compute_gae(rewards, values, dones, last_value, gamma=0.99, lam=0.95):
    adv = np.zeros(len(rewards))
    gae = 0.0
    for t in reversed(range(len(rewards))):
        next_v = last_value if t == len(rewards) - 1 else values[t + 1]
        nonterminal = 1.0 - dones[t]
        delta = rewards[t] + gamma * next_v * nonterminal - values[t]
        gae = delta + gamma * lam * nonterminal * gae
        adv[t] = gae
    return adv, adv + np.asarray(values)


def main():
    env, net = CartPole(), ActorCritic()
    opt = torch.optim.Adam(net.parameters(), lr=3e-4)
    obs = env.reset()
    ep_returns, ep_ret = [], 0.0
    for update in range(5):
        buf_obs, buf_act, buf_logp, buf_rew, buf_val, buf_done = [], [], [], [], [], []
        for _ in range(256):
            with torch.no_grad():
                logits, value = net(torch.as_tensor(obs))
                dist = Categorical(logits=logits)
                action = dist.sample()
            nxt, r, done = env.step(action.item())
            buf_obs.append(obs); buf_act.append(action); buf_logp.append(dist.log_prob(action))
            buf_rew.append(r); buf_val.append(value.item()); buf_done.append(float(done))
            ep_ret += r
            obs = nxt
            if done:
                ep_returns.append(ep_ret); ep_ret = 0.0
                obs = env.reset()
        with torch.no_grad():
            last_value = net(torch.as_tensor(obs))[1].item()
        adv, ret = compute_gae(buf_rew, buf_val, buf_done, last_value)
        obs_t = torch.as_tensor(np.stack(buf_obs))
        act_t, old_logp = torch.stack(buf_act), torch.stack(buf_logp)
        adv_t, ret_t = torch.from_numpy(adv), torch.from_numpy(ret)
        adv_t = (adv_t - adv_t.mean()) / (adv_t.std() + 1e-8)
        for epoch in range(4):
            for mb in torch.randperm(256).split(64):
                logits, values = net(obs_t[mb])
                dist = Categorical(logits=logits)
                ratio = torch.exp(dist.log_prob(act_t[mb]) - old_logp[mb])
                surr = torch.min(ratio * adv_t[mb], ratio.clamp(0.8, 1.2) * adv_t[mb])
                policy_loss = -surr.mean()
                value_loss = F.huber_loss(values, ret_t[mb])
                loss = policy_loss + 0.5 * value_loss - 0.01 * dist.entropy().mean()
                opt.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(net.parameters(), 0.5)
                opt.step()
        print(f"update {update} loss {loss.item():.4f} mean return {np.mean(ep_returns[-10:] or [0]):.1f}")


if __name__ == "__main__":
    main()
