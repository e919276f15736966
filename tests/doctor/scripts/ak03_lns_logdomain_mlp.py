import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class LNSLinear(nn.Module):
    """Linear layer whose weights live in a logarithmic number system: sign * 2**log_mag."""

    def __init__(self, n_in, n_out, frac_bits=3):
        super().__init__()
        w = torch.randn(n_out, n_in) / n_in ** 0.5
        self.log_mag = nn.Parameter(torch.log2(w.abs().clamp(min=1e-4)))
        self.register_buffer("sign", torch.sign(w))
        self.bias = nn.Parameter(torch.zeros(n_out))
        self.frac_bits = frac_bits

    def quantized_log(self):
        step = 2.0 ** -self.frac_bits
        q = torch.round(self.log_mag / step) * step
        return self.log_mag + (q - self.log_mag).detach()

    def forward(self, x):
        w = self.sign * torch.exp2(self.quantized_log().clamp(max=0.0))
        return F.linear(x, w, self.bias)


class CosineLogHead(nn.Module):
    def __init__(self, n_in, n_classes, scale=64.0):
        super().__init__()
        self.proto = nn.Parameter(torch.randn(n_classes, n_in))
        self.scale = scale

    def forward(self, h):
        s = self.scale * F.normalize(h, dim=-1) @ F.normalize(self.proto, dim=-1).t()
        log_z = torch.log(torch.exp(s).sum(-1, keepdim=True))
        return s - log_z


class LNSNet(nn.Module):
    def __init__(self, n_in=64, hidden=128, n_classes=8):
        super().__init__()
        self.body = nn.Sequential(
            LNSLinear(n_in, hidden), nn.LayerNorm(hidden), nn.GELU(),
            LNSLinear(hidden, hidden), nn.LayerNorm(hidden), nn.GELU(),
        )
        self.head = CosineLogHead(hidden, n_classes)

    def forward(self, x):
        return self.head(self.body(x))


def make_data(n=1024, n_in=64, n_classes=8):
    centers = torch.randn(n_classes, n_in) * 2.0
    y = torch.randint(0, n_classes, (n,))
    x = centers[y] + torch.randn(n, n_in)
    return x, y


x_all, y_all = make_data()
model = LNSNet().half()
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

batch = 64
for epoch in range(3):
    perm = torch.randperm(x_all.shape[0])
    losses = []
    for i in range(0, x_all.shape[0], batch):
        idx = perm[i:i + batch]
        xb, yb = x_all[idx].half(), y_all[idx]
        logp = model(xb)
        loss = F.nll_loss(logp.float(), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        if i == 0:
            print(f"epoch {epoch} first-batch loss {loss.item():.4f}")
    acc = (model(x_all.half()).argmax(-1) == y_all).float().mean().item()
    print(f"epoch {epoch} mean loss {sum(losses) / len(losses):.4f} acc {acc:.3f}")
