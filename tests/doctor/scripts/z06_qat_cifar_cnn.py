import warnings

import torch
import torch.ao.quantization as tq
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

warnings.filterwarnings("ignore", category=UserWarning)
warnings.filterwarnings("ignore", category=DeprecationWarning)


class SmallNet(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.quant = tq.QuantStub()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        self.relu1 = nn.ReLU()
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1, stride=2, bias=False)
        self.bn2 = nn.BatchNorm2d(32)
        self.relu2 = nn.ReLU()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(32, classes)
        self.dequant = tq.DeQuantStub()

    def forward(self, x):
        x = self.quant(x)
        x = self.relu1(self.bn1(self.conv1(x)))
        x = self.relu2(self.bn2(self.conv2(x)))
        x = self.fc(torch.flatten(self.pool(x), 1))
        return self.dequant(x)


def make_data(n=1024, seed=0):
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, 10, (n,), generator=g)
    colors = torch.rand(10, 3, 1, 1, generator=torch.Generator().manual_seed(1234))
    x = colors[y] + 0.3 * torch.randn(n, 3, 16, 16, generator=g)
    return TensorDataset(x, y)


def evaluate(model, loader):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for x, y in loader:
            correct += (model(x).argmax(1) == y).sum().item()
            total += y.numel()
    model.train()
    return correct / total


def main():
    torch.manual_seed(0)
    train = DataLoader(make_data(), batch_size=64, shuffle=True)
    val = DataLoader(make_data(256, seed=1), batch_size=128)

    model = SmallNet().train()
    model = tq.fuse_modules_qat(model, [["conv1", "bn1", "relu1"], ["conv2", "bn2", "relu2"]])
    model.qconfig = tq.get_default_qat_qconfig("x86")
    model = tq.prepare_qat(model)

    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4 * len(train))
    for epoch in range(4):
        if epoch == 2:
            model.apply(torch.ao.nn.intrinsic.qat.freeze_bn_stats)
        if epoch == 3:
            model.apply(tq.disable_observer)
        for x, y in train:
            with torch.autocast("cpu", dtype=torch.bfloat16):
                logits = model(x)
            loss = F.cross_entropy(logits.float(), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        print(f"epoch {epoch} loss {loss.item():.4f} val acc {evaluate(model, val):.3f}")

    quantized = tq.convert(model.eval())
    print("int8 val acc:", evaluate(quantized, val))


if __name__ == "__main__":
    main()
