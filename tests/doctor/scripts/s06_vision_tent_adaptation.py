import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
N_CLASSES = 10


def make_images(n, noise=0.3, shift=0.0):
    labels = torch.randint(0, N_CLASSES, (n,))
    yy, xx = torch.meshgrid(torch.linspace(-1, 1, 24), torch.linspace(-1, 1, 24), indexing="ij")
    theta = labels.float()[:, None, None] * torch.pi / N_CLASSES
    freq = 3.0 + (labels % 3).float()[:, None, None]
    pattern = torch.sin(freq * torch.pi * (xx * theta.cos() + yy * theta.sin()))
    rgb = torch.stack([pattern, pattern * (labels % 2).float()[:, None, None] * 2 - 1 + pattern, -pattern], 1)
    imgs = rgb + noise * torch.randn_like(rgb) + shift
    return imgs, labels


class CosineClassifier(nn.Module):
    def __init__(self, dim, n_classes, scale=30.0):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n_classes, dim) * 0.01)
        self.scale = scale

    def forward(self, x):
        return self.scale * F.normalize(x, dim=1) @ F.normalize(self.weight, dim=1).t()


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        def block(cin, cout):
            return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout),
                                 nn.ReLU(), nn.MaxPool2d(2))
        self.features = nn.Sequential(block(3, 16), block(16, 32), block(32, 64))
        self.classifier = CosineClassifier(64, N_CLASSES)

    def forward(self, x):
        return self.classifier(self.features(x).mean((2, 3)))


def accuracy(model, x, y, dtype=torch.float32):
    with torch.no_grad():
        return (model(x.to(dtype)).argmax(1) == y).float().mean().item()


def configure_tent(model):
    model.train()
    model.requires_grad_(False)
    params = []
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.track_running_stats = False
            m.running_mean, m.running_var = None, None
            m.weight.requires_grad_(True)
            m.bias.requires_grad_(True)
            params += [m.weight, m.bias]
    return params


def entropy(logits, eps=1e-8):
    p = logits.softmax(1)
    return -(p * torch.log(p + eps)).sum(1).mean()


x_train, y_train = make_images(2048)
model = SmallCNN()
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
for epoch in range(4):
    perm = torch.randperm(len(x_train))
    for i in range(0, len(x_train), 128):
        idx = perm[i:i + 128]
        loss = F.cross_entropy(model(x_train[idx]), y_train[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
model.eval()

x_shift, y_shift = make_images(512, noise=0.6, shift=0.4)
print(f"source acc {accuracy(model, *make_images(512)):.3f}  shifted acc (before) {accuracy(model, x_shift, y_shift):.3f}")

model = model.half()
params = configure_tent(model)
tta_opt = torch.optim.SGD(params, lr=1e-3, momentum=0.9)
for step, i in enumerate(range(0, len(x_shift), 64)):
    xb = x_shift[i:i + 64].half()
    loss = entropy(model(xb))
    tta_opt.zero_grad()
    loss.backward()
    tta_opt.step()
    print(f"tta step {step} entropy {loss.item():.4f}")
print(f"shifted acc (after tent) {accuracy(model, x_shift, y_shift, torch.float16):.3f}")
