import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

N_WAY, K_SHOT, N_QUERY, IMG = 5, 5, 6, 16
N_CLASSES = 30


def class_bank():
    base = torch.rand(N_CLASSES, 1, IMG, IMG)
    return base


def episode(bank):
    classes = torch.randperm(N_CLASSES)[:N_WAY]
    protos = bank[classes]
    support = protos[:, None] + 0.25 * torch.randn(N_WAY, K_SHOT, 1, IMG, IMG)
    query = protos.repeat_interleave(N_QUERY, 0) + 0.25 * torch.randn(N_WAY * N_QUERY, 1, IMG, IMG)
    return support, query, torch.arange(N_WAY).repeat_interleave(N_QUERY)


class Encoder(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        layers, cin = [], 1
        for _ in range(3):
            layers += [nn.Conv2d(cin, hidden, 3, padding=1), nn.BatchNorm2d(hidden), nn.ReLU(), nn.MaxPool2d(2)]
            cin = hidden
        self.net = nn.Sequential(*layers, nn.Flatten())

    def forward(self, x):
        return self.net(x)


class ProtoNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = Encoder()

    def forward(self, support, query):
        n_way, k_shot = support.shape[:2]
        with torch.autocast("cpu", dtype=torch.bfloat16):
            z = self.encoder(torch.cat([support.flatten(0, 1), query]))
        z = z.float()
        z_support, z_query = z[: n_way * k_shot], z[n_way * k_shot:]
        prototypes = z_support.view(n_way, k_shot, -1).mean(1)
        return -torch.cdist(z_query, prototypes).pow(2)


bank = class_bank()
model = ProtoNet()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=20, gamma=0.5)

for ep in range(60):
    support, query, y = episode(bank)
    logits = model(support, query)
    loss = F.cross_entropy(logits, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
    if ep % 10 == 0:
        acc = (logits.argmax(-1) == y).float().mean().item()
        print(f"episode {ep:3d}  loss {loss.item():.4f}  acc {acc:.3f}")

model.eval()
accs, losses = [], []
with torch.no_grad():
    for _ in range(20):
        support, query, y = episode(bank)
        logits = model(support, query)
        losses.append(F.cross_entropy(logits, y).item())
        accs.append((logits.argmax(-1) == y).float().mean().item())
print(f"eval: loss {sum(losses) / len(losses):.4f}  acc {sum(accs) / len(accs):.3f}")
