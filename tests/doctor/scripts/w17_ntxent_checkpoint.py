import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)


class ResidualMLPBlock(nn.Module):
    def __init__(self, dim, mult=2):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, dim * mult), nn.GELU(), nn.Linear(dim * mult, dim))

    def forward(self, x):
        return x + self.ff(self.norm(x))


class SimCLRNet(nn.Module):
    def __init__(self, in_dim=48, dim=128, depth=3, proj_dim=64):
        super().__init__()
        self.stem = nn.Linear(in_dim, dim)
        self.blocks = nn.ModuleList([ResidualMLPBlock(dim) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.projector = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, proj_dim))

    def encode(self, x):
        h = self.stem(x)
        for blk in self.blocks:
            h = checkpoint(blk, h, use_reentrant=False) if self.training else blk(h)
        return self.norm(h)

    def forward(self, x):
        return self.projector(self.encode(x))


def nt_xent(z1, z2, temperature=0.2):
    z = F.normalize(torch.cat([z1, z2], dim=0), dim=-1)
    n = z1.shape[0]
    logits = z @ z.T / temperature
    self_mask = torch.eye(2 * n, dtype=torch.bool)
    logits = logits.masked_fill(self_mask, torch.finfo(logits.dtype).min)
    targets = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)])
    return F.cross_entropy(logits.float(), targets)


def views(x):
    crop = (torch.rand_like(x) > 0.2).float()
    return x * crop + 0.25 * torch.randn_like(x)


@torch.no_grad()
def knn_accuracy(model, protos, n=400):
    model.eval()
    y = torch.randint(0, protos.shape[0], (n,))
    feats = F.normalize(model.encode(protos[y] + 0.6 * torch.randn(n, protos.shape[1])), dim=-1)
    sim = feats @ feats.T
    sim.fill_diagonal_(-2.0)
    acc = (y[sim.argmax(-1)] == y).float().mean().item()
    model.train()
    return acc


def main():
    protos = torch.randn(8, 48) * 1.5
    model = SimCLRNet()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05)
    scaler = torch.amp.GradScaler("cpu")
    total_steps, warmup = 80, 10
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min((s + 1) / warmup, 1.0))
    for step in range(total_steps):
        y = torch.randint(0, protos.shape[0], (128,))
        x = protos[y] + 0.6 * torch.randn(128, protos.shape[1])
        with torch.autocast("cpu", dtype=torch.float16):
            loss = nt_xent(model(views(x)), model(views(x)))
        opt.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(opt)
        scaler.update()
        sched.step()
        if step % 20 == 0:
            print(f"step {step} loss {loss.item():.4f} scale {scaler.get_scale():.0f} knn acc {knn_accuracy(model, protos):.3f}")
    print("final loss", loss.item())


if __name__ == "__main__":
    main()
