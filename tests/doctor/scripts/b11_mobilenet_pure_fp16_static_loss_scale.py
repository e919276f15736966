"""Pure-fp16 training of a small MobileNet-style CNN, ported from an old apex "O2"-style recipe:
fp16 weights, fp16 master copy skipped, static loss scaling, gradient accumulation over 2
micro-batches and gradient clipping on the unscaled gradients."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
DTYPE = torch.float16
LOSS_SCALE = 2.0 ** 16
ACCUM = 2


def dw_sep(cin, cout, stride):
    return nn.Sequential(
        nn.Conv2d(cin, cin, 3, stride, 1, groups=cin, bias=False), nn.BatchNorm2d(cin), nn.ReLU6(inplace=True),
        nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU6(inplace=True))


class MobileNetV1(nn.Module):
    def __init__(self, num_classes=10, width=(16, 32, 64, 64)):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width[0], 3, 2, 1, bias=False), nn.BatchNorm2d(width[0]), nn.ReLU6(inplace=True))
        layers = []
        for cin, cout in zip(width[:-1], width[1:]):
            layers.append(dw_sep(cin, cout, 2 if cout != cin else 1))
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Sequential(nn.Dropout(0.1), nn.Linear(width[-1], num_classes))

    def forward(self, x):
        x = self.features(self.stem(x))
        return self.classifier(x.mean((2, 3)))


model = MobileNetV1().to(DTYPE).to(memory_format=torch.channels_last)
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=4e-5, nesterov=True)

images = torch.randn(128, 3, 32, 32)
labels = torch.randint(0, 10, (128,))

model.train()
step = 0
for epoch in range(2):
    perm = torch.randperm(128)
    for i, start in enumerate(range(0, 128, 16)):
        idx = perm[start:start + 16]
        x = images[idx].to(DTYPE).contiguous(memory_format=torch.channels_last)
        loss = F.cross_entropy(model(x), labels[idx], label_smoothing=0.1) / ACCUM
        (loss * LOSS_SCALE).backward()
        if (i + 1) % ACCUM == 0:
            for p in model.parameters():
                if p.grad is not None:
                    p.grad.div_(LOSS_SCALE)
            gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=2.0)
            opt.step()
            opt.zero_grad(set_to_none=True)
            step += 1
            print(f"epoch {epoch} step {step} loss {loss.item() * ACCUM:.4f} grad-norm {gnorm.item():.3f}")
