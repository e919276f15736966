"""Recurrent PPO (GRU actor-critic) fine-tuned from a behaviour-cloning checkpoint. The agent is created
with accelerate's init_empty_weights() so the pretrained weights are not initialised twice, then loaded
from safetensors with assign=True."""
import os
import tempfile
import numpy as np
import torch
import torch.nn as nn
from accelerate import init_empty_weights
from safetensors.torch import save_file, load_file

torch.manual_seed(0)
rng = np.random.default_rng(0)
OBS, HID, N_ACT, N_ENVS, T = 8, 64, 4, 8, 32


class GRUAgent(nn.Module):
    def __init__(self, with_value=True):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(OBS, HID), nn.ReLU())
        self.gru = nn.GRU(HID, HID, batch_first=True)
        self.policy_head = nn.Linear(HID, N_ACT)
        if with_value:
            self.value_head = nn.Linear(HID, 1)

    def forward(self, obs_seq, h0):
        x, h = self.gru(self.encoder(obs_seq), h0)
        return self.policy_head(x), self.value_head(x).squeeze(-1), h


# ---- a behaviour-cloning run produced this checkpoint (policy only, no value head) ----
tmp = tempfile.TemporaryDirectory()
ckpt_dir = tmp.name
bc = GRUAgent(with_value=False)
save_file(bc.state_dict(), os.path.join(ckpt_dir, "bc_policy.safetensors"))

# ---- PPO fine-tuning ----
with init_empty_weights():
    agent = GRUAgent()
state = load_file(os.path.join(ckpt_dir, "bc_policy.safetensors"))
missing, unexpected = agent.load_state_dict(state, strict=False, assign=True)
print("missing keys:", missing)
opt = torch.optim.Adam(agent.parameters(), lr=2.5e-4)


class PartialObsEnv:
    def reset(self):
        self.goal = rng.integers(0, N_ACT, N_ENVS)
        return self._obs(show=True)

    def _obs(self, show):
        o = rng.normal(scale=0.1, size=(N_ENVS, OBS))
        if show:
            o[np.arange(N_ENVS), self.goal] += 1.0
        return o

    def step(self, a, t):
        r = (a == self.goal).astype(np.float64)
        return self._obs(show=False), r


env = PartialObsEnv()
for update in range(5):
    obs = env.reset()
    h = torch.zeros(1, N_ENVS, HID)
    traj_o, traj_a, traj_lp, traj_v, traj_r = [], [], [], [], []
    for t in range(T):
        o = torch.as_tensor(obs, dtype=torch.float32).unsqueeze(1)
        with torch.no_grad():
            logits, value, h = agent(o, h)
        dist = torch.distributions.Categorical(logits=logits.squeeze(1))
        a = dist.sample()
        obs, r = env.step(a.numpy(), t)
        traj_o.append(o); traj_a.append(a); traj_lp.append(dist.log_prob(a)); traj_v.append(value.squeeze(1))
        traj_r.append(torch.as_tensor(r, dtype=torch.float32))
    rewards, values = torch.stack(traj_r, 1), torch.stack(traj_v, 1)
    returns = torch.zeros_like(rewards)
    running = torch.zeros(N_ENVS)
    for t in reversed(range(T)):
        running = rewards[:, t] + 0.99 * running
        returns[:, t] = running
    adv = returns - values
    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    obs_seq, acts, old_lp = torch.cat(traj_o, 1), torch.stack(traj_a, 1), torch.stack(traj_lp, 1)
    for epoch in range(4):
        logits, v, _ = agent(obs_seq, torch.zeros(1, N_ENVS, HID))
        dist = torch.distributions.Categorical(logits=logits)
        ratio = (dist.log_prob(acts) - old_lp).exp()
        pg = -torch.min(ratio * adv, ratio.clamp(0.8, 1.2) * adv).mean()
        loss = pg + 0.5 * (v - returns).pow(2).mean() - 0.01 * dist.entropy().mean()
        opt.zero_grad(); loss.backward(); nn.utils.clip_grad_norm_(agent.parameters(), 0.5); opt.step()
    print(f"update {update} mean reward {rewards.mean().item():.3f} loss {loss.item():.4f}")
print("done")
