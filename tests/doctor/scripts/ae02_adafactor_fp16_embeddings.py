import math
import torch
import torch.nn as nn
import torch.nn.functional as F


class Adafactor(torch.optim.Optimizer):
    def __init__(self, params, lr=1e-2, eps=(1e-30, 1e-3), clip_threshold=1.0,
                 decay_rate=-0.8, weight_decay=0.0):
        defaults = dict(lr=lr, eps=eps, clip_threshold=clip_threshold,
                        decay_rate=decay_rate, weight_decay=weight_decay)
        super().__init__(params, defaults)

    @staticmethod
    def _rms(t):
        return t.norm(2) / (t.numel() ** 0.5)

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            eps1, eps2 = group["eps"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                g = p.grad
                state = self.state[p]
                factored = g.ndim >= 2
                if not state:
                    state["step"] = 0
                    if factored:
                        state["exp_avg_sq_row"] = torch.zeros(g.shape[:-1], dtype=p.dtype)
                        state["exp_avg_sq_col"] = torch.zeros(g.shape[:-2] + g.shape[-1:], dtype=p.dtype)
                    else:
                        state["exp_avg_sq"] = torch.zeros_like(p)
                state["step"] += 1
                beta2t = 1.0 - math.pow(state["step"], group["decay_rate"])
                sq = g * g + eps1
                if factored:
                    row, col = state["exp_avg_sq_row"], state["exp_avg_sq_col"]
                    row.mul_(beta2t).add_(sq.mean(dim=-1), alpha=1.0 - beta2t)
                    col.mul_(beta2t).add_(sq.mean(dim=-2), alpha=1.0 - beta2t)
                    r = (row / row.mean(dim=-1, keepdim=True)).rsqrt().unsqueeze(-1)
                    c = col.unsqueeze(-2).rsqrt()
                    update = g * r * c
                else:
                    v = state["exp_avg_sq"]
                    v.mul_(beta2t).add_(sq, alpha=1.0 - beta2t)
                    update = g * v.rsqrt()
                update.div_((self._rms(update) / group["clip_threshold"]).clamp_(min=1.0))
                lr = group["lr"] * max(eps2, self._rms(p).item())
                if group["weight_decay"]:
                    p.mul_(1 - group["weight_decay"] * lr)
                p.add_(update, alpha=-lr)


class BagClassifier(nn.Module):
    def __init__(self, vocab=2000, dim=64, n_classes=4):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.proj = nn.Linear(dim, dim)
        self.head = nn.Linear(dim, n_classes)

    def forward(self, tokens):
        h = self.embed(tokens).mean(dim=1)
        return self.head(torch.tanh(self.proj(h)))


def synthetic_batches(n_batches, bs=32, seq=24, vocab=2000, n_classes=4, seed=0):
    g = torch.Generator().manual_seed(seed)
    for _ in range(n_batches):
        y = torch.randint(0, n_classes, (bs,), generator=g)
        base = torch.randint(0, vocab // n_classes, (bs, seq), generator=g)
        tokens = base + y[:, None] * (vocab // n_classes)
        yield tokens, y


def main():
    torch.manual_seed(0)
    model = BagClassifier().half()
    opt = Adafactor(model.parameters(), lr=1e-2, weight_decay=0.01)
    for step, (tokens, y) in enumerate(synthetic_batches(60)):
        logits = model(tokens)
        loss = F.cross_entropy(logits, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 0:
            print(f"step {step:3d} loss {loss.item():.4f}")
    print(f"final loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
