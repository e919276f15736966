import math
import torch
import torch.nn as nn

torch.manual_seed(0)

B, C, L, H = 32, 6, 96, 24
PATCH, STRIDE = 16, 8


def make_batch(n):
    t = torch.arange(L + H, dtype=torch.float32)
    phase = torch.rand(n, C, 1) * 2 * math.pi
    x = torch.sin(2 * math.pi * t / 24 + phase) * torch.linspace(0.5, 3, C).view(1, C, 1)
    x = x + 0.1 * torch.randn(n, C, L + H) + torch.linspace(-2, 5, C).view(1, C, 1)
    x[:, 3] = 21.0
    return x[..., :L], x[..., L:]


class RevIN(nn.Module):
    def __init__(self, num_channels, eps=1e-10, affine=True):
        super().__init__()
        self.eps = eps
        self.gamma = nn.Parameter(torch.ones(num_channels, 1))
        self.beta = nn.Parameter(torch.zeros(num_channels, 1))

    def norm(self, x):
        self.mean = x.mean(-1, keepdim=True).detach()
        self.std = torch.sqrt(x.var(-1, keepdim=True, unbiased=False) + self.eps).detach()
        return (x - self.mean) / self.std * self.gamma + self.beta

    def denorm(self, y):
        return (y - self.beta) / self.gamma * self.std + self.mean


class PatchTSTLite(nn.Module):
    def __init__(self, d_model=64, n_heads=4, n_layers=2):
        super().__init__()
        self.revin = RevIN(C)
        n_patches = (L - PATCH) // STRIDE + 1
        self.embed = nn.Linear(PATCH, d_model)
        self.pos = nn.Parameter(torch.randn(1, n_patches, d_model) * 0.02)
        layer = nn.TransformerEncoderLayer(d_model, n_heads, 2 * d_model, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, n_layers, enable_nested_tensor=False)
        self.head = nn.Linear(n_patches * d_model, H)

    def forward(self, x):
        b = x.shape[0]
        z = self.revin.norm(x)
        patches = z.unfold(-1, PATCH, STRIDE)
        tokens = self.embed(patches.reshape(b * C, -1, PATCH)) + self.pos
        h = self.encoder(tokens)
        y = self.head(h.flatten(1)).view(b, C, H)
        return self.revin.denorm(y)


model = PatchTSTLite().half()
opt = torch.optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)

for step in range(12):
    x, y = make_batch(B)
    x, y = x.half(), y.half()
    pred = model(x)
    loss = (pred.float() - y.float()).abs().mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 4 == 0 or step == 11:
        print(f"step {step:2d} mae {loss.item():.4f}")

with torch.no_grad():
    x, y = make_batch(8)
    pred = model(x.half()).float()
    print("eval mae per channel:", (pred - y).abs().mean(dim=(0, 2)).tolist())
