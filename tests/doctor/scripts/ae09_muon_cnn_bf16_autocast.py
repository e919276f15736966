import torch
import torch.nn as nn
import torch.nn.functional as F


def newton_schulz(G, steps=5, eps=1e-7):
    a, b, c = 3.4445, -4.7750, 2.0315
    X = G.bfloat16()
    tall = X.shape[0] > X.shape[1]
    if tall:
        X = X.T
    X = X / (X.norm() + eps)
    for _ in range(steps):
        A = X @ X.T
        X = a * X + (b * A + c * A @ A) @ X
    return X.T if tall else X


class Muon(torch.optim.Optimizer):
    def __init__(self, params, lr=0.02, momentum=0.95, nesterov=True, weight_decay=0.0):
        super().__init__(params, dict(lr=lr, momentum=momentum, nesterov=nesterov, weight_decay=weight_decay))

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                g = p.grad
                buf = self.state[p].setdefault("momentum_buffer", torch.zeros_like(g))
                buf.lerp_(g, 1 - group["momentum"])
                g = g.lerp(buf, group["momentum"]) if group["nesterov"] else buf
                g2d = g.reshape(g.shape[0], -1)
                upd = newton_schulz(g2d).to(p.dtype).view_as(p)
                upd *= max(1.0, g2d.shape[0] / g2d.shape[1]) ** 0.5
                p.mul_(1 - group["lr"] * group["weight_decay"])
                p.add_(upd, alpha=-group["lr"])


class SmallCNN(nn.Module):
    def __init__(self, n_classes=5):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.classifier = nn.Linear(32, n_classes)

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))


def make_images(n, n_classes=5, seed=0):
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, n_classes, (n,), generator=g)
    xs = torch.linspace(0, 1, 16)
    freq = (y + 1).float()[:, None, None]
    pattern = torch.sin(6.28 * freq * xs[None, :, None]) * torch.cos(6.28 * freq * xs[None, None, :])
    x = pattern[:, None].repeat(1, 3, 1, 1) + 0.3 * torch.randn(n, 3, 16, 16, generator=g)
    return x, y


def main():
    torch.manual_seed(0)
    x, y = make_images(1024)
    xv, yv = make_images(256, seed=1)
    model = SmallCNN()
    muon_params = [p for n, p in model.features.named_parameters() if p.ndim == 4 and n != "0.weight"]
    rest = [p for p in model.parameters() if all(p is not q for q in muon_params)]
    opts = [Muon(muon_params, lr=0.02, weight_decay=0.01),
            torch.optim.AdamW([{"params": rest, "lr": 3e-3}], weight_decay=0.01)]
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=64, shuffle=True)
    for epoch in range(3):
        model.train()
        for i, (xb, yb) in enumerate(loader):
            with torch.autocast("cpu", dtype=torch.bfloat16):
                logits = model(xb)
            loss = F.cross_entropy(logits.float(), yb)
            loss.backward()
            gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            for opt in opts:
                opt.step()
                opt.zero_grad(set_to_none=True)
            if i % 8 == 0:
                print(f"epoch {epoch} it {i:2d} loss {loss.item():.4f} grad_norm {gn.item():.3f}")
        model.eval()
        with torch.no_grad():
            val = F.cross_entropy(model(xv), yv).item()
        print(f"epoch {epoch} val loss {val:.4f}")


if __name__ == "__main__":
    main()
