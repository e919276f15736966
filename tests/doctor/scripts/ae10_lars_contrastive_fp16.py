import torch
import torch.nn as nn
import torch.nn.functional as F


class LARS(torch.optim.Optimizer):
    def __init__(self, params, lr=0.3, momentum=0.9, weight_decay=1e-6, eta=0.001):
        super().__init__(params, dict(lr=lr, momentum=momentum, weight_decay=weight_decay, eta=eta))

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                d_p = p.grad
                if p.ndim > 1:
                    d_p = d_p.add(p, alpha=group["weight_decay"])
                    w_norm, g_norm = p.norm(), d_p.norm()
                    trust = torch.where((w_norm > 0) & (g_norm > 0), group["eta"] * w_norm / g_norm,
                                        torch.ones_like(w_norm))
                    d_p = d_p.mul(trust)
                buf = self.state[p].setdefault("mu", torch.zeros_like(p))
                buf.mul_(group["momentum"]).add_(d_p)
                p.add_(buf, alpha=-group["lr"])


class Encoder(nn.Module):
    def __init__(self, d_in=32, d_hidden=128, d_proj=32):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(d_in, d_hidden), nn.BatchNorm1d(d_hidden), nn.ReLU(),
                                      nn.Linear(d_hidden, d_hidden), nn.BatchNorm1d(d_hidden), nn.ReLU())
        self.projector = nn.Sequential(nn.Linear(d_hidden, d_hidden), nn.ReLU(), nn.Linear(d_hidden, d_proj))

    def forward(self, x):
        return self.projector(self.backbone(x))


def augment(x, g):
    mask = (torch.rand(x.shape, generator=g) > 0.2).to(x.dtype)
    return x * mask + 0.1 * torch.randn(x.shape, generator=g).to(x.dtype)


def info_nce(z1, z2, temperature=0.07):
    z1, z2 = F.normalize(z1, dim=1), F.normalize(z2, dim=1)
    z = torch.cat([z1, z2])
    sim = z @ z.T / temperature
    n = z1.shape[0]
    self_mask = torch.eye(2 * n, dtype=torch.bool)
    exp_sim = torch.exp(sim).masked_fill(self_mask, 0.0)
    pos_idx = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)])
    pos = exp_sim[torch.arange(2 * n), pos_idx]
    return -torch.log(pos / exp_sim.sum(dim=1)).mean()


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    protos = torch.randn(8, 32, generator=g)
    data = protos[torch.randint(0, 8, (2048,), generator=g)] + 0.5 * torch.randn(2048, 32, generator=g)
    model = Encoder().half()
    opt = LARS(model.parameters(), lr=0.3)
    loader = torch.utils.data.DataLoader(data.half(), batch_size=128, shuffle=True, drop_last=True)
    for epoch in range(3):
        running = 0.0
        for i, xb in enumerate(loader):
            z1, z2 = model(augment(xb, g)), model(augment(xb, g))
            loss = info_nce(z1, z2)
            opt.zero_grad()
            loss.backward()
            opt.step()
            running += loss.item()
            if i % 5 == 0:
                print(f"epoch {epoch} it {i:2d} nce {loss.item():.4f}")
        print(f"epoch {epoch} mean nce {running / (i + 1):.4f}")


if __name__ == "__main__":
    main()
