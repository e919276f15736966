import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

N_WAY, K_SHOT, N_QUERY = 5, 3, 5
IMG = 16
N_CLASSES_TOTAL = 20


def make_class_bank(n_classes, per_class=20):
    protos = torch.randint(0, 256, (n_classes, 1, IMG, IMG)).float()
    images, labels = [], []
    for c in range(n_classes):
        noise = torch.randint(-90, 91, (per_class, 1, IMG, IMG)).float()
        images.append((protos[c] + noise).clamp(0, 255).to(torch.uint8))
        labels.append(torch.full((per_class,), c))
    return torch.cat(images), torch.cat(labels)


def sample_episode(images, labels):
    classes = torch.randperm(N_CLASSES_TOTAL)[:N_WAY]
    support, query = [], []
    for c in classes:
        idx = (labels == c).nonzero().squeeze(1)
        idx = idx[torch.randperm(len(idx))[: K_SHOT + N_QUERY]]
        support.append(images[idx[:K_SHOT]])
        query.append(images[idx[K_SHOT:]])
    support = torch.stack(support)
    query = torch.cat(query)
    query_y = torch.arange(N_WAY).repeat_interleave(N_QUERY)
    return support, query, query_y


def conv_block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))


class ProtoNet(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.encoder = nn.Sequential(conv_block(1, hidden), conv_block(hidden, hidden), nn.Flatten())
        self.scale = 1.0

    def embed(self, x):
        return self.encoder(x)

    def forward(self, support, query):
        n_way, k_shot = support.shape[:2]
        z_s = self.embed(support.flatten(0, 1)).view(n_way, k_shot, -1)
        prototypes = z_s.mean(1)
        z_q = self.embed(query)
        dists = (z_q.unsqueeze(1) - prototypes.unsqueeze(0)).pow(2).sum(-1)
        return -self.scale * dists


images, labels = make_class_bank(N_CLASSES_TOTAL)
model = ProtoNet().half()
opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)

for episode in range(20):
    support, query, query_y = sample_episode(images, labels)
    support = support.half()
    query = query.half()
    logits = model(support, query)
    loss = F.cross_entropy(logits, query_y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if episode % 5 == 0:
        acc = (logits.argmax(-1) == query_y).float().mean().item()
        print(f"episode {episode:3d}  loss {loss.item():.4f}  acc {acc:.3f}")

model.eval()
with torch.no_grad():
    accs = []
    for _ in range(5):
        support, query, query_y = sample_episode(images, labels)
        logits = model(support.half(), query.half())
        accs.append((logits.argmax(-1) == query_y).float().mean().item())
print(f"eval accuracy over 5 episodes: {sum(accs) / len(accs):.3f}")
