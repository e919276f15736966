import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class KFAC:
    """Minimal K-FAC preconditioner for nn.Linear layers (bias folded into A)."""

    def __init__(self, model, lr=0.05, damping=1e-2, stat_decay=0.95, update_freq=5):
        self.model, self.lr, self.damping = model, lr, damping
        self.stat_decay, self.update_freq = stat_decay, update_freq
        self.layers = [m for m in model.modules() if isinstance(m, nn.Linear)]
        self.a, self.g, self.A, self.G, self.inv = {}, {}, {}, {}, {}
        self.steps = 0
        for layer in self.layers:
            layer.register_forward_hook(self._save_input)

    def _save_input(self, module, inputs, output):
        if torch.is_grad_enabled():
            a = inputs[0].detach()
            self.a[module] = torch.cat([a, a.new_ones(a.shape[0], 1)], dim=1)
            output.register_hook(lambda g, m=module: self._save_grad(m, g))

    def _save_grad(self, module, grad_output):
        self.g[module] = grad_output.detach() * grad_output.shape[0]

    def _damping_eye(self, n):
        return torch.from_numpy(np.eye(n) * np.sqrt(self.damping))

    def _update_stats(self):
        for layer in self.layers:
            a, g = self.a[layer], self.g[layer]
            A_new = a.T @ a / a.shape[0]
            G_new = g.T @ g / g.shape[0]
            if layer not in self.A:
                self.A[layer], self.G[layer] = A_new, G_new
            else:
                self.A[layer].mul_(self.stat_decay).add_(A_new, alpha=1 - self.stat_decay)
                self.G[layer].mul_(self.stat_decay).add_(G_new, alpha=1 - self.stat_decay)

    def _update_inverses(self):
        for layer in self.layers:
            A, G = self.A[layer], self.G[layer]
            self.inv[layer] = (torch.linalg.inv(A + self._damping_eye(A.shape[0])),
                               torch.linalg.inv(G + self._damping_eye(G.shape[0])))

    @torch.no_grad()
    def step(self):
        self._update_stats()
        if self.steps % self.update_freq == 0:
            self._update_inverses()
        self.steps += 1
        for layer in self.layers:
            A_inv, G_inv = self.inv[layer]
            grad = torch.cat([layer.weight.grad, layer.bias.grad[:, None]], dim=1)
            nat = G_inv @ grad @ A_inv
            layer.weight.add_(nat[:, :-1], alpha=-self.lr)
            layer.bias.add_(nat[:, -1], alpha=-self.lr)

    def zero_grad(self):
        self.model.zero_grad(set_to_none=True)


def make_regression(n=2048, d=16, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, d, generator=g)
    w = torch.randn(d, 1, generator=g)
    y = torch.sin(x @ w) + 0.1 * torch.randn(n, 1, generator=g)
    return x, y


def main():
    torch.manual_seed(0)
    x, y = make_regression()
    model = nn.Sequential(nn.Linear(16, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 1))
    opt = KFAC(model, lr=0.05, damping=1e-2)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=128, shuffle=True)
    for epoch in range(3):
        total = 0.0
        for xb, yb in loader:
            loss = F.mse_loss(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * xb.shape[0]
        print(f"epoch {epoch} mse {total / len(x):.4f}")


if __name__ == "__main__":
    main()
