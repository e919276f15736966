import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


class SignSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.where(x >= 0, torch.ones_like(x), -torch.ones_like(x))

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * (x.abs() <= 1).to(g.dtype)


class BinConv2d(nn.Conv2d):
    def forward(self, x):
        alpha = self.weight.abs().mean(dim=(1, 2, 3), keepdim=True).detach()
        w = SignSTE.apply(self.weight) * alpha
        return F.conv2d(SignSTE.apply(x), w, None, self.stride, self.padding)


def bin_block(c_in, c_out, pool):
    layers = [BinConv2d(c_in, c_out, 3, padding=1, bias=False), nn.BatchNorm2d(c_out), nn.Hardtanh()]
    if pool:
        layers.append(nn.MaxPool2d(2))
    return nn.Sequential(*layers)


class BinaryCNN(nn.Module):
    def __init__(self, n_classes=4):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.Hardtanh())
        self.body = nn.Sequential(bin_block(16, 32, True), bin_block(32, 32, True), bin_block(32, 48, False))
        self.head = nn.Linear(48, n_classes)

    def forward(self, x):
        h = self.body(self.stem(x))
        return self.head(h.mean(dim=(2, 3)))


def shapes_dataset(n=384, size=16):
    y = torch.randint(0, 4, (n,))
    xs = torch.arange(size).float()
    gy, gx = torch.meshgrid(xs, xs, indexing="ij")
    imgs = torch.stack([
        (gx < size / 2).float(), (gy < size / 2).float(),
        ((gx - size / 2) ** 2 + (gy - size / 2) ** 2 < 20).float(), ((gx + gy) % 4 < 2).float(),
    ])[y]
    return (imgs + 0.3 * torch.randn_like(imgs)).unsqueeze(1), y


x, y = shapes_dataset()
loader = DataLoader(TensorDataset(x, y), batch_size=64, shuffle=True)

model = BinaryCNN().half()
master = [p.detach().float().clone().requires_grad_(True) for p in model.parameters()]
opt = torch.optim.Adam(master, lr=2e-3)
scale, growth_interval, good_steps = 2.0 ** 12, 20, 0
fp16_max = torch.finfo(torch.float16).max

for epoch in range(3):
    total, n, skipped = 0.0, 0, 0
    for xb, yb in loader:
        logits = model(xb.half())
        loss = F.cross_entropy(logits.float(), yb)
        model.zero_grad(set_to_none=True)
        (loss * scale).backward()
        grads = [p.grad.float() / scale for p in model.parameters()]
        if not all(torch.isfinite(g).all() for g in grads):
            scale /= 2.0
            good_steps = 0
            skipped += 1
            continue
        for m, g in zip(master, grads):
            m.grad = g
        opt.step()
        opt.zero_grad(set_to_none=True)
        with torch.no_grad():
            for m, p in zip(master, model.parameters()):
                p.copy_(m.clamp(-fp16_max, fp16_max))
        good_steps += 1
        if good_steps % growth_interval == 0:
            scale = min(scale * 2.0, 2.0 ** 15)
        total += loss.item() * yb.numel()
        n += yb.numel()
    print(f"epoch {epoch} loss {total / max(n, 1):.4f} scale {scale:.0f} skipped {skipped}")

model.eval()
with torch.no_grad():
    logits = model(x[:256].half()).float()
    val = F.cross_entropy(logits, y[:256])
print(f"eval loss {val.item():.4f} acc {(logits.argmax(1) == y[:256]).float().mean().item():.3f}")
