"""Fine-grained recognition recipe: small EfficientNet-style backbone (MBConv + SE) with a
cosine-normalised classifier (scale s=30) trained with focal loss, whole model in fp16 to
halve activation memory."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
NUM_CLASSES = 20
DTYPE = torch.float16


class CosineClassifier(nn.Module):
    def __init__(self, in_features, num_classes, scale=30.0):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(num_classes, in_features) * 0.01)
        self.scale = scale

    def forward(self, feats):
        feats = F.normalize(feats, dim=-1)
        w = F.normalize(self.weight, dim=-1)
        return self.scale * feats @ w.t()


class FocalLoss(nn.Module):
    def __init__(self, gamma=2.0, alpha=0.25, eps=1e-8):
        super().__init__()
        self.gamma, self.alpha, self.eps = gamma, alpha, eps

    def forward(self, logits, target):
        probs = F.softmax(logits, dim=-1)
        pt = probs.gather(1, target[:, None]).squeeze(1)
        loss = -self.alpha * (1 - pt) ** self.gamma * torch.log(pt + self.eps)
        return loss.mean()


class SqueezeExcite(nn.Module):
    def __init__(self, ch, rd):
        super().__init__()
        self.reduce = nn.Conv2d(ch, rd, 1)
        self.expand = nn.Conv2d(rd, ch, 1)

    def forward(self, x):
        s = x.mean((2, 3), keepdim=True)
        return x * torch.sigmoid(self.expand(F.silu(self.reduce(s))))


class MBConv(nn.Module):
    def __init__(self, cin, cout, stride, expand=4):
        super().__init__()
        mid = cin * expand
        self.use_res = stride == 1 and cin == cout
        self.block = nn.Sequential(
            nn.Conv2d(cin, mid, 1, bias=False), nn.BatchNorm2d(mid), nn.SiLU(),
            nn.Conv2d(mid, mid, 3, stride, 1, groups=mid, bias=False), nn.BatchNorm2d(mid), nn.SiLU(),
            SqueezeExcite(mid, max(1, cin // 4)),
            nn.Conv2d(mid, cout, 1, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        out = self.block(x)
        return x + out if self.use_res else out


class EfficientNetLite(nn.Module):
    def __init__(self, num_classes, width=(16, 24, 40, 80), feat_dim=256):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width[0], 3, 2, 1, bias=False), nn.BatchNorm2d(width[0]), nn.SiLU())
        blocks, cin = [], width[0]
        for cout in width[1:]:
            blocks += [MBConv(cin, cout, 2), MBConv(cout, cout, 1)]
            cin = cout
        self.blocks = nn.Sequential(*blocks)
        self.head_conv = nn.Sequential(nn.Conv2d(cin, feat_dim, 1, bias=False), nn.BatchNorm2d(feat_dim), nn.SiLU())
        self.classifier = CosineClassifier(feat_dim, num_classes, scale=30.0)

    def forward(self, x):
        x = self.head_conv(self.blocks(self.stem(x)))
        return self.classifier(x.mean((2, 3)))


model = EfficientNetLite(NUM_CLASSES).to(DTYPE)

criterion = FocalLoss(gamma=2.0)
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

# synthetic fine-grained data: class-dependent colour blobs
labels = torch.randint(0, NUM_CLASSES, (160,))
images = torch.randn(160, 3, 32, 32) * 0.5
images[:, 0] += (labels[:, None, None].float() / NUM_CLASSES - 0.5) * 2

model.train()
for epoch in range(3):
    perm = torch.randperm(160)
    for it in range(0, 160, 32):
        idx = perm[it:it + 32]
        x = images[idx].to(DTYPE)
        y = labels[idx]
        logits = model(x)
        loss = criterion(logits, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        acc = (model(images.to(DTYPE)).argmax(-1) == labels).float().mean()
    print(f"epoch {epoch} loss {loss.item():.4f} train acc {acc.item():.3f}")
