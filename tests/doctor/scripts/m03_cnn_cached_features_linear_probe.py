"""Linear-probe evaluation of a small CNN backbone.
Features for the whole data set are extracted once (under bf16 autocast, to save time)
and cached; the probe is then trained on the cached features."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def conv_bn(cin, cout, stride=1):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = conv_bn(3, 16)
        self.stage1 = nn.Sequential(conv_bn(16, 32, 2), conv_bn(32, 32))
        self.stage2 = nn.Sequential(conv_bn(32, 64, 2), conv_bn(64, 64))
        self.pool = nn.AdaptiveAvgPool2d(1)

    def forward(self, x):
        x = self.stage2(self.stage1(self.stem(x)))
        return self.pool(x).flatten(1)


# synthetic 10-class image data
N, NCLS = 512, 10
protos = torch.randn(NCLS, 3, 16, 16)
labels = torch.randint(0, NCLS, (N,))
images = protos[labels] + 0.5 * torch.randn(N, 3, 16, 16)

backbone = Backbone().eval()
for p in backbone.parameters():
    p.requires_grad_(False)

# 1) extract features once
feats = []
with torch.no_grad(), torch.autocast(device_type="cpu", dtype=torch.bfloat16):
    for i in range(0, N, 128):
        feats.append(backbone(images[i:i + 128]))
feats = torch.cat(feats)
print("cached features:", tuple(feats.shape))

# 2) train the probe on the cached features
probe = nn.Linear(feats.shape[1], NCLS)
opt = torch.optim.SGD(probe.parameters(), lr=0.1, momentum=0.9)
for epoch in range(20):
    perm = torch.randperm(N)
    for i in range(0, N, 64):
        idx = perm[i:i + 64]
        logits = probe(feats[idx])
        loss = F.cross_entropy(logits, labels[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
    if epoch % 5 == 0:
        print("epoch", epoch, "loss", loss.item())

acc = (probe(feats).argmax(1) == labels).float().mean()
print("probe accuracy", acc.item())
