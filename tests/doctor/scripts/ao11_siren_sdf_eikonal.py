import math
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


class SineLayer(nn.Module):
    def __init__(self, fin, fout, w0=30.0, first=False):
        super().__init__()
        self.w0 = w0
        self.linear = nn.Linear(fin, fout)
        bound = 1 / fin if first else math.sqrt(6 / fin) / w0
        nn.init.uniform_(self.linear.weight, -bound, bound)

    def forward(self, x):
        return torch.sin(self.w0 * self.linear(x))


class SIREN_SDF(nn.Module):
    def __init__(self, width=64, depth=3):
        super().__init__()
        layers = [SineLayer(3, width, first=True)] + [SineLayer(width, width) for _ in range(depth - 1)]
        self.body = nn.Sequential(*layers)
        self.sdf_out = nn.Linear(width, 1)

    def forward(self, x):
        return self.sdf_out(self.body(x)).squeeze(-1)


def torus_surface(n):
    u, v = torch.rand(n) * 2 * math.pi, torch.rand(n) * 2 * math.pi
    R, r = 0.5, 0.2
    pts = torch.stack([(R + r * torch.cos(v)) * torch.cos(u), (R + r * torch.cos(v)) * torch.sin(u), r * torch.sin(v)], -1)
    normals = torch.stack([torch.cos(v) * torch.cos(u), torch.cos(v) * torch.sin(u), torch.sin(v)], -1)
    return pts, normals


def sdf_losses(model, surf, normals, free):
    x = torch.cat([surf, free]).requires_grad_(True)
    sdf = model(x)
    grad = torch.autograd.grad(sdf.sum(), x, create_graph=True)[0]
    n_s = surf.shape[0]
    loss_surf = sdf[:n_s].abs().mean()
    loss_normal = (1 - nn.functional.cosine_similarity(grad[:n_s], normals, dim=-1)).mean()
    loss_eik = ((grad.norm(dim=-1) - 1) ** 2).mean()
    loss_free = torch.exp(-40 * sdf[n_s:].abs()).mean()
    return loss_surf * 30 + loss_normal + 0.1 * loss_eik + 0.5 * loss_free


def main():
    pts, normals = torus_surface(2048)
    loader = DataLoader(TensorDataset(pts, normals), batch_size=256, shuffle=True)
    model = SIREN_SDF().half()
    opt = torch.optim.Adam(model.parameters(), lr=1e-4)
    scaler = torch.amp.GradScaler("cpu", init_scale=1024.0)
    for epoch in range(3):
        for step, (surf, nrm) in enumerate(loader):
            free = torch.rand(256, 3) * 2 - 1
            loss = sdf_losses(model, surf.half(), nrm.half(), free.half())
            opt.zero_grad(set_to_none=True)
            scaler.scale(loss).backward()
            scaler.unscale_(opt)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            scaler.step(opt)
            scaler.update()
            if step % 4 == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f} scale {scaler.get_scale():.0f}")


if __name__ == "__main__":
    main()
