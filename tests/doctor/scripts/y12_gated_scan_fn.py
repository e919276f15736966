import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, D, LAYERS, SEQ, BATCH = 64, 64, 2, 256, 8


class GatedScan(torch.autograd.Function):
    """h_t = a_t * h_{t-1} + u_t along dim 1."""

    @staticmethod
    def forward(ctx, a, u):
        h = torch.empty_like(u)
        state = torch.zeros_like(u[:, 0])
        for t in range(u.shape[1]):
            state = a[:, t] * state + u[:, t]
            h[:, t] = state
        ctx.save_for_backward(a, h)
        return h

    @staticmethod
    def backward(ctx, grad_h):
        a, h = ctx.saved_tensors
        decay = torch.cumprod(a, dim=1)
        acc = torch.flip(torch.cumsum(torch.flip(grad_h * decay, [1]), 1), [1])
        grad_u = acc / decay
        h_prev = torch.cat([torch.zeros_like(h[:, :1]), h[:, :-1]], dim=1)
        grad_a = grad_u * h_prev
        return grad_a, grad_u


class ScanMixer(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.in_proj = nn.Linear(d, 3 * d, bias=False)
        self.out_proj = nn.Linear(d, d, bias=False)
        self.decay_floor = 0.8

    def forward(self, x):
        u, f, g = self.in_proj(x).chunk(3, dim=-1)
        a = 1.0 - (1.0 - self.decay_floor) * torch.sigmoid(f)
        h = GatedScan.apply(a, (1.0 - a) * u)
        return self.out_proj(h * F.silu(g))


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm1, self.norm2 = nn.RMSNorm(D), nn.RMSNorm(D)
        self.mixer = ScanMixer(D)
        self.mlp = nn.Sequential(nn.Linear(D, 2 * D), nn.GELU(), nn.Linear(2 * D, D))

    def forward(self, x):
        x = x + self.mixer(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class ScanLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, D)
        self.layers = nn.ModuleList(Layer() for _ in range(LAYERS))
        self.norm = nn.RMSNorm(D)
        self.head = nn.Linear(D, VOCAB, bias=False)
        self.head.weight = self.embed.weight
        nn.init.normal_(self.embed.weight, std=0.02)

    def forward(self, idx):
        x = self.embed(idx)
        for layer in self.layers:
            x = layer(x)
        return self.head(self.norm(x))


def copy_task(bs):
    """Second half of each row repeats the first half."""
    half = torch.randint(1, VOCAB, (bs, SEQ // 2 + 1))
    seq = torch.cat([half, half], 1)[:, : SEQ + 1]
    return seq[:, :-1], seq[:, 1:]


model = ScanLM()
opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=0.0)
for step in range(12):
    x, y = copy_task(BATCH)
    with torch.autocast("cpu", dtype=torch.float16):
        logits = model(x)
    loss = F.cross_entropy(logits.float().reshape(-1, VOCAB), y.reshape(-1))
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    if step % 3 == 0:
        print(f"step {step:2d} loss {loss.item():.4f}")
print(f"final loss {loss.item():.4f}")
