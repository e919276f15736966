import math
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(5)
np.random.seed(5)

ALPHA = 0.1


class PINN(nn.Module):
    def __init__(self, hidden=48, depth=4):
        super().__init__()
        layers, d = [], 2
        for _ in range(depth):
            layers += [nn.Linear(d, hidden), nn.Tanh()]
            d = hidden
        layers.append(nn.Linear(d, 1))
        self.net = nn.Sequential(*layers)

    def forward(self, x, t):
        return self.net(torch.cat([x, t], dim=1))


def pde_residual(model, x, t):
    x = x.requires_grad_(True)
    t = t.requires_grad_(True)
    u = model(x, t)
    u_t, u_x = torch.autograd.grad(u, (t, x), torch.ones_like(u), create_graph=True)
    u_xx = torch.autograd.grad(u_x, x, torch.ones_like(u_x), create_graph=True)[0]
    return u_t - ALPHA * u_xx


def initial_and_boundary(n_ic=128, n_bc=64):
    x_ic = np.linspace(0.0, 1.0, n_ic).reshape(-1, 1)
    u_ic = np.sin(np.pi * x_ic)
    t_bc = np.random.rand(n_bc, 1)
    x_bc = np.vstack([np.zeros((n_bc // 2, 1)), np.ones((n_bc - n_bc // 2, 1))])
    return (torch.from_numpy(x_ic), torch.zeros(n_ic, 1), torch.from_numpy(u_ic),
            torch.from_numpy(x_bc), torch.from_numpy(t_bc))


def exact(x, t):
    return torch.sin(math.pi * x) * torch.exp(-ALPHA * math.pi ** 2 * t)


def main():
    model = PINN()
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=300, gamma=0.5)
    x_ic, t_ic, u_ic, x_bc, t_bc = initial_and_boundary()
    for it in range(600):
        x_col = torch.rand(512, 1)
        t_col = torch.rand(512, 1)
        loss_pde = pde_residual(model, x_col, t_col).pow(2).mean()
        loss_ic = (model(x_ic, t_ic) - u_ic).pow(2).mean()
        loss_bc = model(x_bc, t_bc).pow(2).mean()
        loss = loss_pde + 10.0 * (loss_ic + loss_bc)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if it % 100 == 0:
            print(f"iter {it} pde {loss_pde.item():.2e} ic {loss_ic.item():.2e} bc {loss_bc.item():.2e}")
    with torch.no_grad():
        xs = torch.linspace(0, 1, 101).unsqueeze(1)
        for tv in (0.0, 0.5, 1.0):
            ts = torch.full_like(xs, tv)
            err = (model(xs, ts) - exact(xs, ts)).abs().max().item()
            print(f"t={tv:.1f} max abs error {err:.3e}")


if __name__ == "__main__":
    main()
