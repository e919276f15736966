import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
D_IN, N_CLASSES, EMB = 40, 12, 32
device = "cuda" if torch.cuda.is_available() else "cpu"
amp_dtype = torch.float16


class SupConLoss(nn.Module):
    def __init__(self, temperature=0.1):
        super().__init__()
        self.temperature = temperature

    def forward(self, z, labels):
        n = z.shape[0]
        z = F.normalize(z, dim=-1)
        sim = z @ z.t() / self.temperature
        self_mask = torch.eye(n, dtype=torch.bool, device=z.device)
        sim = sim.masked_fill(self_mask, -1e9)
        pos = (labels[:, None] == labels[None, :]) & ~self_mask
        log_prob = sim - torch.logsumexp(sim, dim=1, keepdim=True)
        n_pos = pos.sum(1).clamp(min=1)
        return -((log_prob * pos).sum(1) / n_pos).mean()


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(D_IN, 128), nn.LayerNorm(128), nn.GELU(),
                                      nn.Linear(128, 128), nn.GELU())
        self.proj = nn.Sequential(nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, EMB))

    def forward(self, x):
        h = self.backbone(x)
        return h, self.proj(h)


protos = torch.randn(N_CLASSES, D_IN)


def two_views(n):
    y = torch.randint(0, N_CLASSES, (n,))
    base = protos[y] + 0.5 * torch.randn(n, D_IN)
    v1 = base * (torch.rand(n, D_IN) > 0.2) + 0.3 * torch.randn(n, D_IN)
    v2 = base * (torch.rand(n, D_IN) > 0.2) + 0.3 * torch.randn(n, D_IN)
    return v1, v2, y


model = Encoder().to(device)
criterion = SupConLoss(temperature=0.07)
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=200)

for step in range(200):
    v1, v2, y = two_views(128)
    x = torch.cat([v1, v2]).to(device)
    labels = torch.cat([y, y]).to(device)
    with torch.autocast(device_type=device, dtype=amp_dtype):
        _, z = model(x)
        loss = criterion(z, labels)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    sched.step()
    if step % 40 == 0:
        print(f"step {step:3d} supcon {loss.item():.4f} lr {sched.get_last_lr()[0]:.4f}")

# linear probe on frozen features
model.eval()
with torch.no_grad():
    xtr, _, ytr = two_views(2000)
    xte, _, yte = two_views(1000)
    ftr, _ = model(xtr.to(device))
    fte, _ = model(xte.to(device))
probe = nn.Linear(128, N_CLASSES).to(device)
popt = torch.optim.Adam(probe.parameters(), lr=1e-2)
for _ in range(200):
    ploss = F.cross_entropy(probe(ftr), ytr.to(device))
    popt.zero_grad()
    ploss.backward()
    popt.step()
acc = (probe(fte).argmax(-1).cpu() == yte).float().mean().item()
print(f"linear probe acc {acc:.3f}")
