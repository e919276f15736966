import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(1)
D_IN, D, N_CLASSES = 24, 64, 6


class SwitchFFN(nn.Module):
    """Top-2 MoE with expert capacity, load-balancing and router z-loss."""

    def __init__(self, d, hidden, n_experts=4, k=2, capacity_factor=1.25):
        super().__init__()
        self.n_experts, self.k, self.cf = n_experts, k, capacity_factor
        self.router = nn.Linear(d, n_experts, bias=False)
        self.w_in = nn.Parameter(torch.randn(n_experts, d, hidden) * d ** -0.5)
        self.w_out = nn.Parameter(torch.randn(n_experts, hidden, d) * hidden ** -0.5)

    def forward(self, x):
        n_tok, d = x.shape
        logits = self.router(x).float()
        probs = logits.softmax(-1)
        top_w, top_i = probs.topk(self.k, dim=-1)
        top_w = top_w / top_w.sum(-1, keepdim=True)

        capacity = int(self.cf * n_tok * self.k / self.n_experts)
        assign = F.one_hot(top_i, self.n_experts)                        # tok, k, E
        flat = assign.permute(1, 0, 2).reshape(-1, self.n_experts)       # k*tok, E
        position = (flat.cumsum(0) - 1) * flat
        keep = (position < capacity) & flat.bool()
        keep = keep.reshape(self.k, n_tok, self.n_experts).permute(1, 0, 2)
        position = position.reshape(self.k, n_tok, self.n_experts).permute(1, 0, 2)

        out = torch.zeros(n_tok, d, dtype=torch.float32)
        for e in range(self.n_experts):
            tok, slot = keep[:, :, e].nonzero(as_tuple=True)
            if tok.numel() == 0:
                continue
            h = F.gelu(x[tok] @ self.w_in[e]) @ self.w_out[e]
            out.index_add_(0, tok, h.float() * top_w[tok, slot, None])

        dropped = 1.0 - keep.any(-1).float().mean()
        frac = assign[:, 0].float().mean(0)
        balance = self.n_experts * (frac * probs.mean(0)).sum()
        z_loss = torch.logsumexp(logits, dim=-1).pow(2).mean()
        return out.to(x.dtype), balance, z_loss, dropped


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(D_IN, D)
        self.norm = nn.LayerNorm(D)
        self.moe = SwitchFFN(D, 2 * D)
        self.head = nn.Linear(D, N_CLASSES)

    def forward(self, x):
        h = self.inp(x)
        m, bal, z, drop = self.moe(self.norm(h))
        return self.head(h + m), bal, z, drop


centers = torch.randn(N_CLASSES, D_IN) * 2.0


def batch(n):
    y = torch.randint(0, N_CLASSES, (n,))
    return centers[y] + torch.randn(n, D_IN), y


model = Net()
opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
for step in range(150):
    x, y = batch(128)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        logits, bal, z, drop = model(x)
    ce = F.cross_entropy(logits.float(), y)
    loss = ce + 1e-2 * bal + 1e-3 * z
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    if step % 30 == 0:
        print(f"step {step:3d} ce {ce.item():.4f} balance {bal.item():.3f} z {z.item():.3f} dropped {drop.item():.3f}")

model.eval()
with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
    x, y = batch(1024)
    logits, bal, z, drop = model(x)
acc = (logits.float().argmax(-1) == y).float().mean().item()
final = F.cross_entropy(logits.float(), y).item()
print(f"eval loss {final:.4f} acc {acc:.3f} balance {bal.item():.3f} dropped {drop.item():.3f}")
assert torch.isfinite(torch.tensor(final))
