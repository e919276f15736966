"""Neural SDF of a scanned room corner (coordinates in millimetres) with an eikonal regulariser.

Trained with accelerate; the network runs in fp16 to fit larger batches.
"""
import numpy as np
import torch
import torch.nn as nn
from accelerate import Accelerator

torch.manual_seed(0)
rng = np.random.default_rng(0)
SCENE_CENTER = np.array([1500.0, 1200.0, 1000.0])
SCENE_SCALE = 2000.0  # mm


def sample_surface(n):
    # floor (z=0) + two walls (x=0, y=0) of a 3m x 2.4m x 2m room corner, in mm
    which = rng.integers(0, 3, n)
    p = rng.uniform([0, 0, 0], [3000.0, 2400.0, 2000.0], size=(n, 3))
    p[which == 0, 2] = 0.0
    p[which == 1, 0] = 0.0
    p[which == 2, 1] = 0.0
    return p


class SDFNet(nn.Module):
    def __init__(self, width=128, depth=4):
        super().__init__()
        self.register_buffer("center", torch.tensor(SCENE_CENTER, dtype=torch.float32))
        layers, d = [], 3
        for _ in range(depth):
            layers += [nn.Linear(d, width), nn.Softplus(beta=100)]
            d = width
        self.mlp = nn.Sequential(*layers, nn.Linear(d, 1))

    def forward(self, x_mm):
        x = (x_mm - self.center) / SCENE_SCALE  # normalise to [-1, 1]
        return self.mlp(x).squeeze(-1)


def gradient(y, x):
    return torch.autograd.grad(y, x, grad_outputs=torch.ones_like(y), create_graph=True)[0]


def main():
    accelerator = Accelerator(cpu=True)
    model = SDFNet().half()
    opt = torch.optim.Adam(model.parameters(), lr=1e-4, eps=1e-4)
    model, opt = accelerator.prepare(model, opt)
    surf = torch.from_numpy(sample_surface(20000)).float()
    for step in range(25):
        idx = torch.randint(0, len(surf), (1024,))
        x_surf = surf[idx].half().requires_grad_(True)
        x_free = (torch.rand(1024, 3) * torch.tensor([3000.0, 2400.0, 2000.0])).half().requires_grad_(True)
        sdf_surf = model(x_surf)
        sdf_free = model(x_free)
        g = gradient(sdf_free, x_free)
        # |grad| w.r.t. the normalised coordinates (chain rule through x / SCENE_SCALE)
        g_norm = torch.sqrt((g ** 2).sum(-1) + 1e-12) * SCENE_SCALE
        loss_surf = sdf_surf.float().abs().mean()
        loss_eik = ((g_norm.float() - 1.0) ** 2).mean()
        loss = loss_surf + 0.1 * loss_eik
        opt.zero_grad()
        accelerator.backward(loss)
        opt.step()
        if step % 5 == 0:
            accelerator.print(f"step {step:3d} surf {loss_surf.item():.4f} eik {loss_eik.item():.4f}")
    w = accelerator.unwrap_model(model).mlp[0].weight
    accelerator.print("first layer weight mean", w.float().mean().item())


if __name__ == "__main__":
    main()
