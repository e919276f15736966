"""Memory-frugal batched inference for a small ResNet: each stage is kept "offloaded"
(on the meta device, weights parked in a host-side store) and is materialised by a
forward-pre-hook just before it runs, then released again by a forward hook."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.short = nn.Sequential()
        if stride != 1 or cin != cout:
            self.short = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + self.short(x))


class TinyResNet(nn.Module):
    def __init__(self, n_cls=5):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU())
        self.stages = nn.ModuleList([
            nn.Sequential(BasicBlock(16, 16), BasicBlock(16, 16)),
            nn.Sequential(BasicBlock(16, 32, 2), BasicBlock(32, 32)),
            nn.Sequential(BasicBlock(32, 64, 2), BasicBlock(64, 64)),
        ])
        self.fc = nn.Linear(64, n_cls)

    def forward(self, x):
        x = self.stem(x)
        for s in self.stages:
            x = s(x)
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


class StageOffloader:
    """Keeps a stage's weights in a host store; the module itself lives on 'meta' when idle."""

    def __init__(self, module):
        self.module = module
        self.store = {n: p.detach().clone() for n, p in module.named_parameters()}
        module.register_forward_pre_hook(self.onload)
        module.register_forward_hook(self.offload)

    def onload(self, module, args):
        module.load_state_dict(self.store, strict=False, assign=True)

    def offload(self, module, args, output):
        module.to("meta")
        return output


def make_images(n):
    y = torch.randint(0, 5, (n,))
    x = torch.randn(n, 3, 32, 32) * 0.5
    x[:, y % 3] += (y.float() / 4).view(-1, 1, 1)
    return x, y


def main():
    model = TinyResNet()
    # quick training so BN statistics are meaningful
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    model.train()
    for step in range(15):
        x, y = make_images(32)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"train loss {loss.item():.3f}")

    model.eval()
    offloaders = [StageOffloader(stage) for stage in model.stages]  # stages are released after each use
    print("offloading", len(offloaders), "stages")

    xs, ys = make_images(96)
    correct = 0
    with torch.no_grad():
        for i in range(0, 96, 32):
            logits = model(xs[i : i + 32])
            correct += (logits.argmax(1) == ys[i : i + 32]).sum().item()
            print(f"batch {i // 32}: running acc {correct / (i + 32):.3f}")


if __name__ == "__main__":
    main()
