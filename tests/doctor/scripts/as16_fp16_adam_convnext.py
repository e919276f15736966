import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(0)
NUM_CLASSES = 10


class Block(nn.Module):
    def __init__(self, dim, layer_scale=1e-2):
        super().__init__()
        self.dwconv = nn.Conv2d(dim, dim, 7, padding=3, groups=dim)
        self.norm = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.fc2 = nn.Linear(4 * dim, dim)
        self.gamma = nn.Parameter(layer_scale * torch.ones(dim))

    def forward(self, x):
        y = self.dwconv(x).permute(0, 2, 3, 1)
        y = self.fc2(F.gelu(self.fc1(self.norm(y))))
        return x + (self.gamma * y).permute(0, 3, 1, 2)


class MiniConvNeXt(nn.Module):
    def __init__(self, dims=(32, 64)):
        super().__init__()
        self.stem = nn.Conv2d(3, dims[0], 4, 4)
        self.stage1 = nn.Sequential(Block(dims[0]), Block(dims[0]))
        self.down = nn.Conv2d(dims[0], dims[1], 2, 2)
        self.stage2 = nn.Sequential(Block(dims[1]))
        self.norm = nn.LayerNorm(dims[1])
        self.head = nn.Linear(dims[1], NUM_CLASSES)

    def forward(self, x):
        x = self.stage2(self.down(self.stage1(self.stem(x))))
        return self.head(self.norm(x.mean((2, 3))))


def make_loader(n=192, bs=32, size=32):
    mean = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1) * 255
    std = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1) * 255
    imgs = torch.from_numpy(rng.integers(0, 256, (n, size, size, 3), dtype=np.uint8))
    labels = torch.from_numpy(rng.integers(0, NUM_CLASSES, n))
    for i in range(0, n, bs):
        x = (imgs[i:i + bs].permute(0, 3, 1, 2).float() - mean) / std
        yield x.contiguous(memory_format=torch.channels_last), labels[i:i + bs].long()


def main():
    model = MiniConvNeXt().to(memory_format=torch.channels_last).half()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.05)
    for epoch in range(3):
        losses = []
        for x, y in make_loader():
            logits = model(x.half())
            loss = F.cross_entropy(logits.float(), y, label_smoothing=0.1)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        print(f"epoch {epoch} first {losses[0]:.4f} last {losses[-1]:.4f} mean {np.mean(losses):.4f}")


if __name__ == "__main__":
    main()
