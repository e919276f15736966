import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

N_BINS, L, B = 64, 96, 32
EDGES = torch.linspace(-3, 3, N_BINS - 1)


def batch(n):
    t = torch.arange(L + 1, dtype=torch.float32)
    f = torch.rand(n, 1) * 0.2 + 0.05
    x = torch.sin(2 * math.pi * f * t) + 0.3 * torch.sin(2 * math.pi * 3 * f * t + 1.0)
    x = x + 0.1 * torch.randn(n, L + 1)
    x = (x - x.mean(1, keepdim=True)) / x.std(1, keepdim=True)
    return x[:, :-1], torch.bucketize(x[:, 1:].contiguous(), EDGES)


class CausalConv(nn.Module):
    def __init__(self, c_in, c_out, k, dilation):
        super().__init__()
        self.pad = (k - 1) * dilation
        self.conv = nn.Conv1d(c_in, c_out, k, dilation=dilation)

    def forward(self, x):
        return self.conv(F.pad(x, (self.pad, 0)))


class TCNBlock(nn.Module):
    def __init__(self, ch, k, dilation):
        super().__init__()
        self.c1 = CausalConv(ch, ch, k, dilation)
        self.c2 = CausalConv(ch, ch, k, dilation)

    def forward(self, x):
        return x + self.c2(F.gelu(self.c1(F.gelu(x))))


class BinnedTCN(nn.Module):
    def __init__(self, ch=32, k=3, levels=5, tau=0.03):
        super().__init__()
        self.inp = nn.Conv1d(1, ch, 1)
        self.blocks = nn.Sequential(*[TCNBlock(ch, k, 2 ** i) for i in range(levels)])
        self.proj = nn.Conv1d(ch, ch, 1)
        self.bin_emb = nn.Parameter(torch.randn(N_BINS, ch))
        self.tau = tau

    def forward(self, x):
        h = self.proj(self.blocks(self.inp(x.unsqueeze(1)))).transpose(1, 2)
        h = F.normalize(h, dim=-1)
        protos = F.normalize(self.bin_emb, dim=-1)
        logits = h @ protos.t() / self.tau
        e = torch.exp(logits)
        return e / e.sum(-1, keepdim=True)


model = BinnedTCN().half()
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

for step in range(20):
    x, target = batch(B)
    probs = model(x.half())
    p_true = probs.gather(-1, target.unsqueeze(-1)).squeeze(-1).float()
    loss = -(p_true + 1e-6).log().mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 5 == 0 or step == 19:
        print(f"step {step:2d} nll {loss.item():.4f}")

with torch.no_grad():
    x, target = batch(8)
    probs = model(x.half()).float()
    centers = torch.cat([EDGES[:1] - 0.05, (EDGES[1:] + EDGES[:-1]) / 2, EDGES[-1:] + 0.05])
    mean_pred = (probs * centers).sum(-1)
    acc = (probs.argmax(-1) == target).float().mean()
    print(f"eval top-1 bin acc {acc.item():.3f} mean-pred range {mean_pred.min().item():.2f}..{mean_pred.max().item():.2f}")
