"""Train a small ResNet-ish CNN, export the weights as a bfloat16 safetensors checkpoint,
then reload it for evaluation the fast way: build the model on the meta device (no
allocation) and materialise it with load_state_dict(..., assign=True)."""
import os
import tempfile
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from safetensors.torch import load_file, save_file

torch.manual_seed(0)


class ResBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(c)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(c)

    def forward(self, x):
        h = F.relu(self.bn1(self.conv1(x)))
        return F.relu(x + self.bn2(self.conv2(h)))


class SmallResNet(nn.Module):
    def __init__(self, n_classes=6):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU())
        self.layer1 = ResBlock(16)
        self.layer2 = ResBlock(16)
        self.head = nn.Linear(16, n_classes)

    def forward(self, x):
        x = self.layer2(F.max_pool2d(self.layer1(self.stem(x)), 2))
        return self.head(x.mean((2, 3)))


def make_data(n):
    y = torch.randint(0, 6, (n,))
    xs = torch.linspace(-1, 1, 20)
    gx, gy = torch.meshgrid(xs, xs, indexing="ij")
    freq = (y + 1).float()[:, None, None]
    x = torch.sin(freq * 3 * gx[None]) * torch.cos(freq * 2 * gy[None]) + 0.3 * torch.randn(n, 20, 20)
    return x.unsqueeze(1), y


def main():
    t0 = time.time()
    xtr, ytr = make_data(512)
    xte, yte = make_data(256)
    model = SmallResNet()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    for epoch in range(3):
        for i in range(0, 512, 64):
            loss = F.cross_entropy(model(xtr[i:i + 64]), ytr[i:i + 64])
            opt.zero_grad(); loss.backward(); opt.step()
        print(f"epoch {epoch} loss {loss.item():.4f}")

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.bf16.safetensors")
        sd = {k: (v.to(torch.bfloat16) if v.is_floating_point() else v) for k, v in model.state_dict().items()}
        save_file(sd, path)
        print(f"checkpoint: {os.path.getsize(path) / 1024:.1f} KiB")

        # ---- deployment side ----
        with torch.device("meta"):
            deployed = SmallResNet()
        deployed.load_state_dict(load_file(path), assign=True)
        deployed.eval()

        with torch.no_grad():
            acc = (deployed(xte).argmax(1) == yte).float().mean()
    print(f"deployed test acc {acc.item():.3f} ({time.time() - t0:.1f}s)")


if __name__ == "__main__":
    main()
