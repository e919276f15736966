import math
import os
import tempfile
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def hadamard(n, device=None, dtype=torch.float32):
    h = torch.ones(1, 1, device=device, dtype=dtype)
    while h.shape[0] < n:
        h = torch.cat([torch.cat([h, h], 1), torch.cat([h, -h], 1)], 0)
    return h / math.sqrt(n)


class RandomizedHadamard(nn.Module):
    def __init__(self, dim, seed=1234):
        super().__init__()
        g = torch.Generator().manual_seed(seed)
        signs = torch.randint(0, 2, (dim,), generator=g).float() * 2 - 1
        self.register_buffer("signs", signs, persistent=False)

    def forward(self, x):
        return (x * self.signs) @ hadamard(x.shape[-1], x.device, x.dtype)


class FakeQuantAct(nn.Module):
    def __init__(self, bits=8, momentum=0.05):
        super().__init__()
        self.qmax = 2 ** bits - 1
        self.momentum = momentum
        self.register_buffer("lo", torch.tensor(0.0))
        self.register_buffer("hi", torch.tensor(0.0))
        self.register_buffer("zero_point", torch.tensor(0, dtype=torch.int32))

    def forward(self, x):
        if self.training:
            with torch.no_grad():
                lo, hi = x.min(), x.max()
                fresh = self.hi == self.lo
                self.lo.copy_(torch.where(fresh, lo, (1 - self.momentum) * self.lo + self.momentum * lo))
                self.hi.copy_(torch.where(fresh, hi, (1 - self.momentum) * self.hi + self.momentum * hi))
        scale = (self.hi - self.lo).clamp(min=1e-6) / self.qmax
        self.zero_point.copy_(torch.round(-self.lo / scale).clamp(0, self.qmax).to(torch.int32))
        return torch.fake_quantize_per_tensor_affine(x, scale, self.zero_point, 0, self.qmax)


class RotQuantBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.rot = RandomizedHadamard(dim)
        self.act_q = FakeQuantAct()
        self.fc = nn.Linear(dim, dim)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        return x + F.gelu(self.fc(self.act_q(self.rot(self.norm(x)))))


class RotQuantNet(nn.Module):
    def __init__(self, n_in=24, dim=64, n_classes=5, depth=3):
        super().__init__()
        self.embed = nn.Linear(n_in, dim)
        self.blocks = nn.ModuleList([RotQuantBlock(dim) for _ in range(depth)])
        self.head = nn.Linear(dim, n_classes)

    def forward(self, x):
        h = self.embed(x)
        for blk in self.blocks:
            h = blk(h)
        return self.head(h)


def batch(n=128, n_in=24, n_classes=5):
    y = torch.randint(0, n_classes, (n,))
    x = torch.randn(n, n_in) + 1.5 * F.one_hot(y, n_in).float()
    return x, y


model = RotQuantNet()
opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
for step in range(60):
    x, y = batch()
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 15 == 0:
        print(f"qat step {step:2d} loss {loss.item():.4f}")

with tempfile.TemporaryDirectory() as tmp:
    ckpt = os.path.join(tmp, "rotquant_w8a8.pt")
    torch.save(model.state_dict(), ckpt)
    with torch.device("meta"):
        deployed = RotQuantNet()
    deployed.load_state_dict(torch.load(ckpt, map_location="cpu"), assign=True)

deployed.eval()
x_val, y_val = batch(512)
with torch.no_grad():
    logits = deployed(x_val)
    val_loss = F.cross_entropy(logits, y_val)
acc = (logits.argmax(-1) == y_val).float().mean()
print(f"deployed eval loss {val_loss.item():.4f} acc {acc.item():.3f}")
