import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
AMP_DTYPE = torch.float16


def make_prototypes(n_classes=10, dim=64):
    return F.normalize(torch.randn(n_classes, dim), dim=-1) * 3.0


def augment(x):
    mask = (torch.rand_like(x) > 0.15).float()
    jitter = 0.3 * torch.randn_like(x)
    scale = 0.8 + 0.4 * torch.rand(x.shape[0], 1)
    return (x * mask + jitter) * scale


class Encoder(nn.Module):
    def __init__(self, dim=64, hidden=256, proj=64):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Linear(dim, hidden), nn.LayerNorm(hidden), nn.GELU(),
            nn.Linear(hidden, hidden), nn.LayerNorm(hidden), nn.GELU(),
        )
        self.projector = nn.Sequential(nn.Linear(hidden, hidden), nn.GELU(), nn.Linear(hidden, proj))

    def forward(self, x):
        return self.projector(self.backbone(x))


def info_nce(z1, z2, temperature=0.05):
    z1 = F.normalize(z1, dim=-1)
    z2 = F.normalize(z2, dim=-1)
    sim = z1 @ z2.T / temperature
    pos = torch.exp(torch.diagonal(sim))
    denom = torch.exp(sim).sum(dim=1)
    return -torch.log(pos / denom).mean()


@torch.no_grad()
def linear_probe_acc(encoder, protos, n=512):
    labels = torch.randint(0, protos.shape[0], (n,))
    x = protos[labels] + 0.5 * torch.randn(n, protos.shape[1])
    feats = F.normalize(encoder.backbone(x), dim=-1)
    centroids = torch.stack([feats[labels == c].mean(0) for c in range(protos.shape[0])])
    pred = (feats @ centroids.T).argmax(-1)
    return (pred == labels).float().mean().item()


def main():
    protos = make_prototypes()
    encoder = Encoder()
    opt = torch.optim.AdamW(encoder.parameters(), lr=1e-3, weight_decay=1e-4)
    warmup, total = 20, 80
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / warmup))
    for step in range(total):
        labels = torch.randint(0, protos.shape[0], (256,))
        x = protos[labels] + 0.5 * torch.randn(256, protos.shape[1])
        with torch.autocast("cpu", dtype=AMP_DTYPE):
            z1, z2 = encoder(augment(x)), encoder(augment(x))
            loss = 0.5 * (info_nce(z1, z2) + info_nce(z2, z1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()
        if step % 40 == 0:
            print(f"step {step} loss {loss.item():.4f} probe acc {linear_probe_acc(encoder, protos):.3f}")
    print("final loss", loss.item())


if __name__ == "__main__":
    main()
