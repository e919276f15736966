"""MADDPG for 3 cooperative agents in a NumPy particle world. Decentralised actors run in fp32;
the centralised critics (joint obs + joint actions, the big networks) run in bf16."""
import copy
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(0)
N_AGENTS, OBS, ACT = 3, 6, 2
CRITIC_DTYPE = torch.bfloat16


class ParticleWorld:
    def reset(self):
        self.pos = rng.uniform(-1, 1, (N_AGENTS, 2))
        self.landmarks = rng.uniform(-1, 1, (N_AGENTS, 2))
        return self.obs()

    def obs(self):
        # each agent sees its position, its landmark and the centroid of the others (float64)
        cen = self.pos.mean(0, keepdims=True).repeat(N_AGENTS, 0)
        return [np.concatenate([self.pos[i], self.landmarks[i], cen[i]]) for i in range(N_AGENTS)]

    def step(self, actions):
        self.pos = np.clip(self.pos + 0.1 * np.stack(actions), -1.5, 1.5)
        r = -np.linalg.norm(self.pos - self.landmarks, axis=1).sum()
        return self.obs(), [r] * N_AGENTS


def mlp(i, o, out_act=None):
    layers = [nn.Linear(i, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, o)]
    return nn.Sequential(*layers, *( [out_act] if out_act else []))


actors = [mlp(OBS, ACT, nn.Tanh()) for _ in range(N_AGENTS)]
critics = [mlp(N_AGENTS * (OBS + ACT), 1).to(CRITIC_DTYPE) for _ in range(N_AGENTS)]
actors_t, critics_t = copy.deepcopy(actors), copy.deepcopy(critics)
a_opts = [torch.optim.Adam(a.parameters(), lr=1e-3) for a in actors]
c_opts = [torch.optim.Adam(c.parameters(), lr=1e-3) for c in critics]

buffer = []
env = ParticleWorld()
obs = env.reset()
for t in range(300):
    with torch.no_grad():
        acts = [np.clip(actors[i](torch.as_tensor(obs[i], dtype=torch.float32)).numpy() + 0.1 * rng.normal(size=ACT), -1, 1)
                for i in range(N_AGENTS)]
    nobs, rews = env.step(acts)
    buffer.append((np.stack(obs), np.stack(acts), np.array(rews), np.stack(nobs)))
    obs = env.reset() if t % 25 == 24 else nobs
    if len(buffer) < 64:
        continue

    batch = [buffer[j] for j in rng.integers(0, len(buffer), 64)]
    o, a, r, o2 = (torch.as_tensor(np.stack(x), dtype=torch.float32) for x in zip(*batch))
    for i in range(N_AGENTS):
        with torch.no_grad():
            a2 = torch.stack([actors_t[j](o2[:, j]) for j in range(N_AGENTS)], 1)
            joint_next = torch.cat([o2.flatten(1).to(CRITIC_DTYPE), a2.flatten(1)], -1)
            y = r[:, i:i + 1].to(CRITIC_DTYPE) + 0.95 * critics_t[i](joint_next)
        joint = torch.cat([o.flatten(1).to(CRITIC_DTYPE), a.flatten(1)], -1)
        c_loss = F.mse_loss(critics[i](joint), y)
        c_opts[i].zero_grad(); c_loss.backward(); c_opts[i].step()

        new_a = [actors[j](o[:, j]) if j == i else a[:, j] for j in range(N_AGENTS)]
        joint_pi = torch.cat([o.flatten(1).to(CRITIC_DTYPE), torch.stack(new_a, 1).flatten(1)], -1)
        a_loss = -critics[i](joint_pi).mean()
        a_opts[i].zero_grad(); a_loss.backward(); a_opts[i].step()
    if t % 50 == 0:
        print(f"t {t} critic loss {c_loss.item():.4f}")
print("done")
