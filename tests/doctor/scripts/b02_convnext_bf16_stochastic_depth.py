"""Train a small hand-written ConvNeXt entirely in bfloat16 (weights + activations) with
stochastic depth, layer scale, AdamW, warmup + cosine schedule and grad clipping."""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
DTYPE = torch.bfloat16


class DropPath(nn.Module):
    """Stochastic depth per sample (when applied in main path of residual blocks)."""

    def __init__(self, drop_prob=0.0):
        super().__init__()
        self.drop_prob = drop_prob

    def forward(self, x):
        if self.drop_prob == 0.0 or not self.training:
            return x
        keep_prob = 1 - self.drop_prob
        shape = (x.shape[0],) + (1,) * (x.ndim - 1)
        random_tensor = keep_prob + torch.rand(shape, device=x.device)
        random_tensor.floor_()  # binarize
        return x.div(keep_prob) * random_tensor


class LayerNorm2d(nn.LayerNorm):
    def forward(self, x):
        x = x.permute(0, 2, 3, 1)
        x = F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)
        return x.permute(0, 3, 1, 2)


class Block(nn.Module):
    def __init__(self, dim, drop_path=0.0, ls_init=1e-6):
        super().__init__()
        self.dwconv = nn.Conv2d(dim, dim, kernel_size=7, padding=3, groups=dim)
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.pwconv1 = nn.Linear(dim, 4 * dim)
        self.act = nn.GELU()
        self.pwconv2 = nn.Linear(4 * dim, dim)
        self.gamma = nn.Parameter(ls_init * torch.ones(dim))
        self.drop_path = DropPath(drop_path)

    def forward(self, x):
        shortcut = x
        x = self.dwconv(x)
        x = x.permute(0, 2, 3, 1)
        x = self.pwconv2(self.act(self.pwconv1(self.norm(x))))
        x = self.gamma * x
        x = x.permute(0, 3, 1, 2)
        return shortcut + self.drop_path(x)


class ConvNeXt(nn.Module):
    def __init__(self, num_classes=10, depths=(2, 2), dims=(24, 48), drop_path_rate=0.1):
        super().__init__()
        self.downsample = nn.ModuleList()
        self.downsample.append(nn.Sequential(nn.Conv2d(3, dims[0], 4, stride=4), LayerNorm2d(dims[0], eps=1e-6)))
        for i in range(len(dims) - 1):
            self.downsample.append(nn.Sequential(LayerNorm2d(dims[i], eps=1e-6), nn.Conv2d(dims[i], dims[i + 1], 2, stride=2)))
        dpr = [x.item() for x in torch.linspace(0, drop_path_rate, sum(depths))]
        self.stages = nn.ModuleList()
        cur = 0
        for i, d in enumerate(depths):
            self.stages.append(nn.Sequential(*[Block(dims[i], dpr[cur + j]) for j in range(d)]))
            cur += d
        self.norm = nn.LayerNorm(dims[-1], eps=1e-6)
        self.head = nn.Linear(dims[-1], num_classes)

    def forward(self, x):
        for down, stage in zip(self.downsample, self.stages):
            x = stage(down(x))
        return self.head(self.norm(x.mean((-2, -1))))


def cosine_with_warmup(step, total, warmup):
    if step < warmup:
        return (step + 1) / warmup
    p = (step - warmup) / max(1, total - warmup)
    return 0.5 * (1 + math.cos(math.pi * p))


model = ConvNeXt().to(DTYPE)
decay, no_decay = [], []
for n, p in model.named_parameters():
    (no_decay if p.ndim <= 1 or n.endswith("gamma") else decay).append(p)
opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.05}, {"params": no_decay, "weight_decay": 0.0}], lr=4e-3)
TOTAL, WARMUP = 12, 3
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: cosine_with_warmup(s, TOTAL, WARMUP))

images = torch.randn(128, 3, 32, 32)
labels = torch.randint(0, 10, (128,))

model.train()
for step in range(TOTAL):
    idx = torch.randint(0, 128, (32,))
    x = images[idx].to(DTYPE)
    y = labels[idx]
    logits = model(x)
    loss = F.cross_entropy(logits.float(), y, label_smoothing=0.1)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    sched.step()
    print(f"step {step} lr {sched.get_last_lr()[0]:.2e} loss {loss.item():.4f}")
