import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class OnePassBatchNorm(nn.Module):
    """Batch norm whose statistics can be folded into BNN sign thresholds at export."""

    def __init__(self, n, eps=1e-5, momentum=0.1):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(n))
        self.bias = nn.Parameter(torch.zeros(n))
        self.register_buffer("running_mean", torch.zeros(n))
        self.register_buffer("running_var", torch.ones(n))
        self.eps, self.momentum = eps, momentum

    def forward(self, x):
        if self.training:
            mean = x.mean(0)
            var = (x * x).mean(0) - mean * mean
            with torch.no_grad():
                self.running_mean.lerp_(mean.detach().to(self.running_mean.dtype), self.momentum)
                self.running_var.lerp_(var.detach().to(self.running_var.dtype), self.momentum)
        else:
            mean, var = self.running_mean, self.running_var
        return (x - mean) * torch.rsqrt(var + self.eps) * self.weight + self.bias


class BinAct(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.where(x >= 0, 1.0, -1.0).to(x.dtype)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * (1 - torch.tanh(x) ** 2)


class BinLinear(nn.Linear):
    def forward(self, x):
        scale = self.weight.abs().mean(1, keepdim=True).detach()
        wb = self.weight + (torch.sign(self.weight) * scale - self.weight).detach()
        return F.linear(BinAct.apply(x), wb, self.bias)


class EventBNN(nn.Module):
    def __init__(self, n_pix=16 * 16, hidden=256, n_classes=4):
        super().__init__()
        self.in_norm = OnePassBatchNorm(n_pix)
        self.fc1 = nn.Linear(n_pix, hidden)
        self.bn1 = OnePassBatchNorm(hidden)
        self.fc2 = BinLinear(hidden, hidden)
        self.bn2 = OnePassBatchNorm(hidden)
        self.head = nn.Linear(hidden, n_classes)

    def forward(self, frames):
        h = self.in_norm(frames.flatten(1))
        h = self.bn1(self.fc1(h))
        h = h + self.bn2(self.fc2(h))
        return self.head(torch.tanh(h))


def event_frames(n=128, size=16, offset=128):
    """Signed event accumulation frames stored the sensor way: uint8 with 128 meaning 'no events'."""
    y = torch.randint(0, 4, (n,))
    xs = torch.arange(size).float()
    gy, gx = torch.meshgrid(xs, xs, indexing="ij")
    direction = [gx, gy, size - 1 - gx, size - 1 - gy]
    edge = torch.stack([torch.exp(-((d - size / 2) ** 2) / 8.0) for d in direction])[y]
    on = torch.poisson(0.3 + 2.0 * edge)
    off = torch.poisson(0.3 + 2.0 * edge.flip(-1))
    frames = (offset + on - off).clamp(0, 255).to(torch.uint8)
    return frames, y


model = EventBNN().to(torch.bfloat16)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)

for step in range(40):
    frames, y = event_frames()
    logits = model(frames.to(torch.bfloat16))
    loss = F.cross_entropy(logits.float(), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        acc = (logits.argmax(1) == y).float().mean().item()
        print(f"step {step:2d} loss {loss.item():.4f} acc {acc:.3f}")

model.eval()
with torch.no_grad():
    frames, y = event_frames(512)
    logits = model(frames.to(torch.bfloat16)).float()
print(f"eval loss {F.cross_entropy(logits, y).item():.4f} acc {(logits.argmax(1) == y).float().mean().item():.3f}")
