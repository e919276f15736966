"""Neural SDF of a torus (IGR-style: surface points + normals + eikonal term), trained with
accelerate in bf16 mixed precision. Gradients w.r.t. the input points via autograd.grad."""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F
from accelerate import Accelerator

torch.manual_seed(0)
R_MAJ, R_MIN = 0.6, 0.25


def torus_surface(n):
    u = torch.rand(n) * 2 * math.pi
    v = torch.rand(n) * 2 * math.pi
    c = torch.stack([R_MAJ * torch.cos(u), R_MAJ * torch.sin(u), torch.zeros(n)], -1)
    nrm = torch.stack([torch.cos(v) * torch.cos(u), torch.cos(v) * torch.sin(u), torch.sin(v)], -1)
    return c + R_MIN * nrm, nrm


class SDF(nn.Module):
    def __init__(self, width=128, depth=4):
        super().__init__()
        layers, d = [], 3
        for _ in range(depth):
            layers += [nn.Linear(d, width), nn.Softplus(beta=100)]
            d = width
        self.net = nn.Sequential(*layers, nn.Linear(d, 1))
        # geometric initialisation (Atzmon & Lipman): start close to the SDF of a sphere
        for m in self.net:
            if isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, 0.0, math.sqrt(2) / math.sqrt(m.out_features))
                nn.init.zeros_(m.bias)
        last = self.net[-1]
        nn.init.normal_(last.weight, math.sqrt(math.pi) / math.sqrt(last.in_features), 1e-4)
        nn.init.constant_(last.bias, -0.5)

    def forward(self, x):
        return self.net(x).squeeze(-1)


def main():
    accelerator = Accelerator(cpu=True, mixed_precision="bf16")
    model = SDF()
    opt = torch.optim.Adam(model.parameters(), lr=5e-4)
    model, opt = accelerator.prepare(model, opt)
    surf, normals = torus_surface(8000)
    for step in range(40):
        idx = torch.randint(0, surf.shape[0], (512,))
        x_s = surf[idx].clone().requires_grad_(True)
        x_f = (torch.rand(512, 3) * 2 - 1).requires_grad_(True)
        with accelerator.autocast():
            sdf_s = model(x_s)
            sdf_f = model(x_f)
        g_s = torch.autograd.grad(sdf_s.float().sum(), x_s, create_graph=True)[0]
        g_f = torch.autograd.grad(sdf_f.float().sum(), x_f, create_graph=True)[0]
        loss_surf = sdf_s.float().abs().mean()
        loss_normal = (g_s - normals[idx]).norm(dim=-1).mean()
        loss_eik = ((torch.linalg.norm(g_f, dim=-1) - 1.0) ** 2).mean()
        loss = loss_surf + 0.5 * loss_normal + 0.1 * loss_eik
        opt.zero_grad()
        accelerator.backward(loss)
        opt.step()
        if step % 10 == 0:
            accelerator.print(f"step {step:3d} surf {loss_surf.item():.4f} normal {loss_normal.item():.4f} eik {loss_eik.item():.4f}")
    with torch.no_grad():
        probe = torch.tensor([[R_MAJ, 0.0, 0.0], [0.0, 0.0, 0.0], [R_MAJ + R_MIN, 0.0, 0.0]])
        accelerator.print("sdf at tube centre / origin / surface:", [round(v, 3) for v in model(probe).float().tolist()])


if __name__ == "__main__":
    main()
