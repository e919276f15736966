import torch
import torch.nn as nn

torch.manual_seed(0)

N_WAY, K_SHOT, N_QUERY, DIM = 5, 5, 8, 24


def episode():
    centers = torch.randn(N_WAY, DIM) * 1.5
    support = centers[:, None] + 0.6 * torch.randn(N_WAY, K_SHOT, DIM)
    yq = torch.arange(N_WAY).repeat_interleave(N_QUERY)
    query = centers[yq] + 0.6 * torch.randn(len(yq), DIM)
    return support, query, yq


class Embedding(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(DIM, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())

    def forward(self, x):
        return self.net(x)


class RelationModule(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(3 * hidden, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, pairs):
        return torch.sigmoid(self.net(pairs)).squeeze(-1)


class RelationNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = Embedding()
        self.relation = RelationModule()

    def forward(self, support, query):
        n_way, k_shot, _ = support.shape
        class_repr = self.embed(support.flatten(0, 1)).view(n_way, k_shot, -1).mean(1)
        q = self.embed(query)
        c = class_repr[None].expand(len(q), -1, -1)
        qq = q[:, None].expand(-1, n_way, -1)
        pairs = torch.cat([c, qq, (c - qq).abs()], dim=-1)
        return self.relation(pairs)


def binary_cross_entropy(p, target):
    return -(target * torch.log(p) + (1 - target) * torch.log(1 - p)).mean()


model = RelationNet()
opt = torch.optim.Adam(model.parameters(), lr=3e-3)

for ep in range(150):
    support, query, yq = episode()
    target = torch.nn.functional.one_hot(yq, N_WAY).float()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        scores = model(support, query)
        loss = binary_cross_entropy(scores, target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if ep % 15 == 0:
        acc = (scores.argmax(-1) == yq).float().mean().item()
        print(f"episode {ep:3d}  bce {loss.item():.4f}  acc {acc:.3f}")

model.eval()
with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
    support, query, yq = episode()
    scores = model(support, query)
    target = torch.nn.functional.one_hot(yq, N_WAY).float()
    print(f"eval bce {binary_cross_entropy(scores, target).item():.4f}  acc {(scores.argmax(-1) == yq).float().mean().item():.3f}")
