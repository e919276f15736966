import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
SIZE = 6
MOVES = torch.tensor([[-1, 0], [1, 0], [0, -1], [0, 1]])
AMP_DTYPE = torch.float16


def make_walls():
    walls = torch.zeros(SIZE, SIZE, dtype=torch.bool)
    walls[2, 1:5] = True
    walls[4, 0:3] = True
    walls[1, 4] = True
    return walls


class GridEnv:
    def __init__(self, n_envs, walls):
        self.n, self.walls = n_envs, walls
        self.goal = torch.tensor([SIZE - 1, SIZE - 1])

    def reset(self):
        self.pos = torch.zeros(self.n, 2, dtype=torch.long)
        return self.obs()

    def obs(self):
        grid = torch.zeros(self.n, 3, SIZE, SIZE)
        grid[:, 0] = self.walls.float()
        grid[torch.arange(self.n), 1, self.pos[:, 0], self.pos[:, 1]] = 1.0
        grid[:, 2, self.goal[0], self.goal[1]] = 1.0
        return grid.flatten(1)

    def action_mask(self):
        nxt = self.pos[:, None, :] + MOVES[None]
        inside = ((nxt >= 0) & (nxt < SIZE)).all(-1)
        clipped = nxt.clamp(0, SIZE - 1)
        free = ~self.walls[clipped[..., 0], clipped[..., 1]]
        return inside & free

    def step(self, actions):
        self.pos = (self.pos + MOVES[actions]).clamp(0, SIZE - 1)
        at_goal = (self.pos == self.goal).all(-1)
        reward = torch.where(at_goal, torch.tensor(1.0), torch.tensor(-0.02))
        return self.obs(), reward, at_goal


class Policy(nn.Module):
    def __init__(self, hidden=128):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(3 * SIZE * SIZE, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.logits = nn.Linear(hidden, 4)

    def forward(self, obs, mask):
        logits = self.logits(self.net(obs))
        return logits + (1 - mask.to(logits.dtype)) * -1e9


def rollout(env, policy, horizon=20):
    obs = env.reset()
    logps, ents, rewards, alive = [], [], [], torch.ones(env.n)
    for _ in range(horizon):
        with torch.autocast("cpu", dtype=AMP_DTYPE):
            logits = policy(obs, env.action_mask())
        log_probs = F.log_softmax(logits, dim=-1)
        probs = log_probs.exp()
        gumbel = -torch.log(-torch.log(torch.rand(logits.shape).clamp_min(1e-9)))
        actions = (log_probs.detach().float() + gumbel).argmax(-1)
        logps.append(log_probs.gather(-1, actions[:, None]).squeeze(-1) * alive)
        ents.append(-(probs * log_probs).sum(-1) * alive)
        obs, r, done = env.step(actions)
        rewards.append(r * alive)
        alive = alive * (~done).float()
    return torch.stack(logps), torch.stack(ents), torch.stack(rewards)


def main():
    env, policy = GridEnv(64, make_walls()), Policy()
    opt = torch.optim.Adam(policy.parameters(), lr=1e-3)
    baseline = 0.0
    for it in range(40):
        logps, ents, rewards = rollout(env, policy)
        returns = rewards.flip(0).cumsum(0).flip(0)
        baseline = 0.9 * baseline + 0.1 * returns[0].mean().item()
        pg_loss = -(logps.float() * (returns - baseline)).sum(0).mean()
        loss = pg_loss - 0.01 * ents.float().sum(0).mean()
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
        opt.step()
        if it % 10 == 0:
            print(f"iter {it} loss {loss.item():.4f} return {returns[0].mean().item():.3f}")
    print("final loss", loss.item())


if __name__ == "__main__":
    main()
