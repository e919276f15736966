"""Small CNN: pretrain on synthetic shapes, publish a half-precision safetensors release,
then fine-tune from the release on a new label set."""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from safetensors.torch import load_file, save_file

torch.manual_seed(0)


class SmallCNN(nn.Module):
    def __init__(self, n_cls=4):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        )
        self.classifier = nn.Linear(32, n_cls)

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))


def shapes(n, n_cls):
    """Images with a bright square/bar/cross/dot pattern at a random location."""
    x = 0.1 * torch.randn(n, 1, 24, 24)
    y = torch.randint(0, n_cls, (n,))
    for i in range(n):
        r, c = torch.randint(4, 18, (2,)).tolist()
        k = y[i].item() % 4
        if k == 0:
            x[i, 0, r - 3 : r + 3, c - 3 : c + 3] += 1.0
        elif k == 1:
            x[i, 0, r, c - 4 : c + 4] += 1.0
        elif k == 2:
            x[i, 0, r - 4 : r + 4, c] += 1.0
            x[i, 0, r, c - 4 : c + 4] += 1.0
        else:
            x[i, 0, r - 1 : r + 1, c - 1 : c + 1] += 2.0
    return x, y


def fit(model, x, y, epochs, lr):
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    for ep in range(epochs):
        model.train()
        perm = torch.randperm(len(x))
        for i in range(0, len(x), 32):
            idx = perm[i : i + 32]
            loss = F.cross_entropy(model(x[idx]), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"  epoch {ep} loss {loss.item():.4f}")


def main():
    xs, ys = shapes(320, 4)
    base = SmallCNN(4)
    print("pretraining")
    fit(base, xs, ys, epochs=2, lr=0.05)

    with tempfile.TemporaryDirectory() as tmp:
        release = os.path.join(tmp, "smallcnn-fp16.safetensors")
        # release weights in half precision: half the download size
        save_file({k: v.half() if v.is_floating_point() else v for k, v in base.state_dict().items()}, release)
        print("release size (KB):", os.path.getsize(release) // 1024)

        # ---- downstream fine-tuning job ----
        model = SmallCNN(4)
        state = load_file(release)
        model.load_state_dict(state, assign=True)
        model.classifier = nn.Linear(32, 2)  # new 2-way task: "has a bar" vs not
        x2, y4 = shapes(160, 4)
        y2 = ((y4 == 1) | (y4 == 2)).long()
        print("fine-tuning")
        fit(model, x2, y2, epochs=2, lr=0.02)


if __name__ == "__main__":
    main()
