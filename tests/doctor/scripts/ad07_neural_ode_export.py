import os
import tempfile

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(7)
np.random.seed(7)
T_END, N_STEPS = 4.0, 25


def lotka_volterra(y, a=1.1, b=0.4, c=0.4, d=0.1):
    x, p = y[..., 0], y[..., 1]
    return torch.stack([a * x - b * x * p, d * x * p - c * p], -1)


def rk4(f, y0, t):
    ys = [y0]
    y = y0
    for i in range(t.shape[0] - 1):
        h = t[i + 1] - t[i]
        k1 = f(t[i], y)
        k2 = f(t[i] + h / 2, y + h / 2 * k1)
        k3 = f(t[i] + h / 2, y + h / 2 * k2)
        k4 = f(t[i] + h, y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        ys.append(y)
    return torch.stack(ys, 1)


def make_trajectories(n):
    y0 = 1.0 + 4.0 * torch.rand(n, 2)
    t = torch.linspace(0, T_END, N_STEPS)
    with torch.no_grad():
        ys = rk4(lambda _t, y: lotka_volterra(y), y0, t)
    return y0, ys + 0.02 * torch.randn_like(ys)


class ODEFunc(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
                                 nn.Linear(hidden, 2))

    def forward(self, t, y):
        return self.net(torch.log(y.clamp_min(1e-3))) * y


class NeuralODE(nn.Module):
    def __init__(self):
        super().__init__()
        self.func = ODEFunc()
        self.register_buffer("t", torch.linspace(0, T_END, N_STEPS))

    def forward(self, y0):
        return rk4(self.func, y0, self.t)


def main():
    y0, ys = make_trajectories(64)
    model = NeuralODE()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    for it in range(50):
        idx = torch.randint(0, 64, (16,))
        pred = model(y0[idx])
        loss = ((pred - ys[idx]) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if it % 15 == 0:
            print(f"iter {it} trajectory mse {loss.item():.4f}")

    model.eval()
    export_dir = tempfile.mkdtemp(prefix="node_export_")
    example_ic = torch.from_numpy(np.array([[2.0, 1.5], [3.0, 0.8]]))
    traced = torch.jit.trace(model, example_ic)
    path = os.path.join(export_dir, "lv_node.pt")
    traced.save(path)
    reloaded = torch.jit.load(path)
    with torch.no_grad():
        ref = model(y0[:4])
        out = reloaded(y0[:4])
    print(f"export max abs diff {(ref - out).abs().max().item():.2e}")


if __name__ == "__main__":
    main()
