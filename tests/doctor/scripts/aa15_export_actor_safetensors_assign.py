"""Train a small deterministic policy by behaviour cloning, export it as a compact bf16 safetensors file
for deployment, then load it in the 'robot-side' inference loop and run an evaluation episode."""
import os
import tempfile
import numpy as np
import torch
import torch.nn as nn
from safetensors.torch import save_file, load_file

torch.manual_seed(0)
rng = np.random.default_rng(0)
OBS, ACT = 8, 3


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(OBS, 128), nn.LayerNorm(128), nn.ReLU(), nn.Linear(128, ACT), nn.Tanh())

    def forward(self, obs):
        return self.net(obs)


class ArmEnv:
    def reset(self):
        self.q = rng.uniform(-1, 1, ACT)
        self.target = rng.uniform(-1, 1, ACT)
        return self.obs()

    def obs(self):
        return np.concatenate([self.q, self.target, [np.linalg.norm(self.q - self.target), 1.0]])

    def step(self, a):
        self.q = np.clip(self.q + 0.1 * a, -1, 1)
        return self.obs(), -np.linalg.norm(self.q - self.target)


# --- training side ---
policy = Policy()
opt = torch.optim.Adam(policy.parameters(), lr=1e-3)
env = ArmEnv()
X = np.stack([env.reset() for _ in range(2048)])
Y = np.clip(5 * (X[:, ACT:2 * ACT] - X[:, :ACT]), -1, 1)
X, Y = torch.as_tensor(X, dtype=torch.float32), torch.as_tensor(Y, dtype=torch.float32)
for epoch in range(200):
    idx = torch.randint(0, len(X), (256,))
    loss = (policy(X[idx]) - Y[idx]).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
print(f"bc loss {loss.item():.4f}")

with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "policy_bf16.safetensors")
    save_file({k: v.to(torch.bfloat16).contiguous() for k, v in policy.state_dict().items()}, path,
              metadata={"obs_dim": str(OBS), "act_dim": str(ACT)})
    print("exported", os.path.getsize(path), "bytes")

    # --- deployment side: build on meta (no allocation), then adopt the checkpoint tensors ---
    with torch.device("meta"):
        deployed = Policy()
    deployed.load_state_dict(load_file(path), assign=True)
    deployed.eval()

    obs = env.reset()
    total = 0.0
    with torch.inference_mode():
        for t in range(50):
            a = deployed(torch.as_tensor(obs, dtype=torch.float32)).numpy()
            obs, r = env.step(a)
            total += r
    print(f"eval return {total:.3f}")
