import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(14)


class Lion(torch.optim.Optimizer):
    def __init__(self, params, lr=1e-4, betas=(0.9, 0.99), weight_decay=0.0, state_dtype=torch.bfloat16):
        super().__init__(params, dict(lr=lr, betas=betas, weight_decay=weight_decay))
        self.state_dtype = state_dtype

    @torch.no_grad()
    def step(self, closure=None):
        loss = closure() if closure is not None else None
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if not state:
                    state["exp_avg"] = torch.zeros_like(p, dtype=self.state_dtype)
                exp_avg = state["exp_avg"]
                p.mul_(1 - group["lr"] * group["weight_decay"])
                update = (exp_avg * beta1 + p.grad * (1 - beta1)).sign()
                p.add_(update, alpha=-group["lr"])
                exp_avg.lerp_(p.grad, 1 - beta2)
        return loss


def make_table(n):
    num = torch.randn(n, 8)
    cat = torch.randint(0, 12, (n, 2))
    effect = torch.linspace(-1, 1, 12)
    y = num[:, 0] * num[:, 1] + torch.sin(num[:, 2]) + effect[cat[:, 0]] - 0.5 * effect[cat[:, 1]] ** 2
    return num, cat, y + 0.1 * torch.randn(n)


class TabularNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.cat_emb = nn.ModuleList([nn.Embedding(12, 8) for _ in range(2)])
        self.mlp = nn.Sequential(nn.Linear(8 + 16, 128), nn.SiLU(), nn.Dropout(0.1),
                                 nn.Linear(128, 64), nn.SiLU(), nn.Linear(64, 1))

    def forward(self, num, cat):
        embs = [emb(cat[:, i]) for i, emb in enumerate(self.cat_emb)]
        return self.mlp(torch.cat([num, *embs], dim=1)).squeeze(1)


def main():
    num, cat, y = make_table(8000)
    vnum, vcat, vy = make_table(1000)
    model = TabularNet()
    opt = Lion(model.parameters(), lr=3e-4, weight_decay=0.1)
    for epoch in range(10):
        model.train()
        total = 0.0
        for idx in torch.randperm(len(y)).split(256):
            with torch.autocast("cpu", dtype=torch.bfloat16):
                pred = model(num[idx], cat[idx])
            loss = F.mse_loss(pred.float(), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
        model.eval()
        with torch.no_grad():
            val = F.mse_loss(model(vnum, vcat), vy).item()
        print(f"epoch {epoch} train mse {total / len(y):.4f} val mse {val:.4f}")


if __name__ == "__main__":
    main()
