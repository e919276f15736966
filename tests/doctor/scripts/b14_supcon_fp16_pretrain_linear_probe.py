"""Supervised contrastive pre-training (SupCon, Khosla et al.) of a small CNN encoder with two
augmented views per image, followed by a linear probe. Encoder + projection head kept in fp16
to double the contrastive batch size."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
DTYPE = torch.float16
TAU = 0.07


class Encoder(nn.Module):
    def __init__(self, width=16, feat=64):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(3, width, 3, 1, 1), nn.BatchNorm2d(width), nn.ReLU(),
            nn.Conv2d(width, width * 2, 3, 2, 1), nn.BatchNorm2d(width * 2), nn.ReLU(),
            nn.Conv2d(width * 2, feat, 3, 2, 1), nn.BatchNorm2d(feat), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten())

    def forward(self, x):
        return self.net(x)


class SupConModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = Encoder()
        self.head = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 32))

    def forward(self, x):
        return F.normalize(self.head(self.encoder(x)), dim=-1)


def augment(x):
    flip = torch.rand(x.shape[0]) < 0.5
    x = torch.where(flip[:, None, None, None], x.flip(-1), x)
    dx, dy = torch.randint(-3, 4, (2,)).tolist()
    x = torch.roll(x, shifts=(dy, dx), dims=(2, 3))
    return x * (0.8 + 0.4 * torch.rand(x.shape[0], 3, 1, 1))   # colour jitter


def supcon_loss(z, labels):
    """z: (2B, d) L2-normalised, labels: (2B,)"""
    sim = z @ z.t() / TAU
    exp_sim = torch.exp(sim)
    self_mask = torch.eye(z.shape[0], dtype=torch.bool)
    pos_mask = (labels[:, None] == labels[None, :]) & ~self_mask
    denom = exp_sim.masked_fill(self_mask, 0).sum(1, keepdim=True)
    log_prob = sim - torch.log(denom)
    mean_log_prob_pos = (log_prob * pos_mask).sum(1) / pos_mask.sum(1).clamp_min(1)
    return -mean_log_prob_pos.mean()


images = torch.randn(192, 3, 32, 32)
labels = torch.randint(0, 6, (192,))
images += labels.view(-1, 1, 1, 1) * 0.2

model = SupConModel().to(DTYPE)
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
model.train()
for epoch in range(2):
    perm = torch.randperm(192)
    for it in range(0, 192, 48):
        idx = perm[it:it + 48]
        x = images[idx]
        views = torch.cat([augment(x), augment(x)]).to(DTYPE)
        z = model(views)
        loss = supcon_loss(z, labels[idx].repeat(2))
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"pretrain epoch {epoch} supcon loss {loss.item():.4f}")

# linear probe on frozen features (fp32 classifier)
model.eval()
with torch.no_grad():
    feats = model.encoder(images.to(DTYPE)).float()
probe = nn.Linear(feats.shape[1], 6)
popt = torch.optim.Adam(probe.parameters(), lr=1e-2)
for _ in range(20):
    ploss = F.cross_entropy(probe(feats), labels)
    popt.zero_grad()
    ploss.backward()
    popt.step()
acc = (probe(feats).argmax(-1) == labels).float().mean()
print(f"linear probe loss {ploss.item():.4f} acc {acc.item():.3f}")
