import math
import torch
import torch.nn as nn
import torch.nn.functional as F


class GradNoise:
    """Annealed Gaussian gradient noise (Neelakantan et al.): std_t = sqrt(eta / (1 + t) ** gamma)."""

    def __init__(self, model, eta=0.01, gamma=0.55, seed=0):
        self.eta, self.gamma, self.t = eta, gamma, 0
        self.gen = torch.Generator().manual_seed(seed)
        self.handles = [p.register_hook(self._hook) for p in model.parameters() if p.requires_grad]

    def std(self):
        return math.sqrt(self.eta / (1 + self.t) ** self.gamma)

    def _hook(self, grad):
        return grad + self.std() * torch.randn(grad.shape, generator=self.gen)

    def tick(self):
        self.t += 1


class TCN(nn.Module):
    def __init__(self, c_in=3, ch=32, n_classes=4):
        super().__init__()
        layers = []
        for i, dil in enumerate([1, 2, 4, 8]):
            layers += [nn.Conv1d(c_in if i == 0 else ch, ch, 3, padding=dil, dilation=dil), nn.GroupNorm(4, ch),
                       nn.GELU()]
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(ch, n_classes)

    def forward(self, x):
        return self.head(self.body(x).mean(-1))


def make_series(n, T=96, seed=0):
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, 4, (n,), generator=g)
    t = torch.linspace(0, 1, T)
    freq = 2.0 + 3.0 * y.float()
    base = torch.sin(2 * math.pi * freq[:, None] * t[None])
    x = torch.stack([base, base.roll(5, -1), torch.cos(2 * math.pi * freq[:, None] * t[None])], 1)
    return x + 0.4 * torch.randn(n, 3, T, generator=g), y


def main():
    torch.manual_seed(0)
    x, y = make_series(512)
    xv, yv = make_series(128, seed=1)
    model = TCN().to(torch.bfloat16)
    noise = GradNoise(model, eta=0.01)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=64, shuffle=True)
    for epoch in range(3):
        model.train()
        for i, (xb, yb) in enumerate(loader):
            logits = model(xb.to(torch.bfloat16))
            loss = F.cross_entropy(logits.float(), yb)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 2.0)
            opt.step()
            noise.tick()
            if i % 4 == 0:
                print(f"epoch {epoch} it {i:2d} loss {loss.item():.4f} noise_std {noise.std():.4f}")
        model.eval()
        with torch.no_grad():
            acc = (model(xv.to(torch.bfloat16)).argmax(-1) == yv).float().mean().item()
        print(f"epoch {epoch} val acc {acc:.3f}")


if __name__ == "__main__":
    main()
