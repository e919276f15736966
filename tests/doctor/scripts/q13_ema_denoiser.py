import copy
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
T_STEPS = 200


def two_moons(n):
    t = torch.rand(n) * math.pi
    upper = torch.rand(n) < 0.5
    x = torch.where(upper, torch.cos(t), 1 - torch.cos(t))
    y = torch.where(upper, torch.sin(t), 0.5 - torch.sin(t))
    return torch.stack([x, y], 1) + 0.05 * torch.randn(n, 2)


class Denoiser(nn.Module):
    def __init__(self, d=128):
        super().__init__()
        self.t_emb = nn.Embedding(T_STEPS, d)
        self.inp = nn.Linear(2, d)
        self.net = nn.Sequential(nn.SiLU(), nn.Linear(d, d), nn.SiLU(), nn.Linear(d, d), nn.SiLU(), nn.Linear(d, 2))

    def forward(self, x, t):
        return self.net(self.inp(x) + self.t_emb(t))


class EMA:
    def __init__(self, model, decay=0.999):
        self.decay = decay
        self.shadow = copy.deepcopy(model).half().eval().requires_grad_(False)

    @torch.no_grad()
    def update(self, model, step):
        d = min(self.decay, (1 + step) / (10 + step))
        for ema_p, p in zip(self.shadow.parameters(), model.parameters()):
            ema_p.lerp_(p.detach(), 1.0 - d)


betas = torch.linspace(1e-4, 0.02, T_STEPS)
alphas_bar = torch.cumprod(1 - betas, 0)

model = Denoiser()
ema = EMA(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=2e-3, total_steps=600)
data = two_moons(20000)

for step in range(600):
    x0 = data[torch.randint(0, len(data), (256,))]
    t = torch.randint(0, T_STEPS, (256,))
    noise = torch.randn_like(x0)
    ab = alphas_bar[t, None]
    xt = ab.sqrt() * x0 + (1 - ab).sqrt() * noise
    loss = F.mse_loss(model(xt, t), noise)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    sched.step()
    ema.update(model, step)
    if step % 100 == 0:
        print(f"step {step:3d} loss {loss.item():.4f}")


@torch.no_grad()
def sample(net, n=2000):
    dtype = next(net.parameters()).dtype
    x = torch.randn(n, 2)
    for i in reversed(range(T_STEPS)):
        t = torch.full((n,), i)
        eps = net(x.to(dtype), t).float()
        x = (x - betas[i] / (1 - alphas_bar[i]).sqrt() * eps) / (1 - betas[i]).sqrt()
        if i > 0:
            x = x + betas[i].sqrt() * torch.randn_like(x)
    return x


for name, net in [("online", model), ("ema", ema.shadow)]:
    xs = sample(net)
    d = torch.cdist(xs, data[:4000]).amin(1).mean().item()
    print(f"{name:6s} samples: mean dist to data {d:.4f}")
