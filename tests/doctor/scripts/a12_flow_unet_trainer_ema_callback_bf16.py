"""Flow-matching (rectified flow) U-Net trained with the HF Trainer in pure bf16, with an
EMA of the denoiser kept in fp32 and updated by a TrainerCallback after every optimizer step.
"""
import copy
import math
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from datasets import Dataset
from transformers import Trainer, TrainerCallback, TrainingArguments

torch.manual_seed(0)
np.random.seed(0)


class TimeEmb(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim
        self.mlp = nn.Sequential(nn.Linear(dim, dim * 2), nn.SiLU(), nn.Linear(dim * 2, dim))

    def forward(self, t):
        half = self.dim // 2
        f = torch.exp(-math.log(10000) * torch.arange(half, device=t.device) / half)
        a = 1000 * t.float()[:, None] * f[None]
        return self.mlp(torch.cat([a.sin(), a.cos()], -1).to(self.mlp[0].weight.dtype))


class Res(nn.Module):
    def __init__(self, c, tdim):
        super().__init__()
        self.n1, self.c1 = nn.GroupNorm(8, c), nn.Conv2d(c, c, 3, padding=1)
        self.n2, self.c2 = nn.GroupNorm(8, c), nn.Conv2d(c, c, 3, padding=1)
        self.t = nn.Linear(tdim, c)

    def forward(self, x, te):
        h = self.c1(F.silu(self.n1(x))) + self.t(te)[:, :, None, None]
        return x + self.c2(F.silu(self.n2(h)))


class FlowUNet(nn.Module):
    def __init__(self, c=32, tdim=64):
        super().__init__()
        self.temb = TimeEmb(tdim)
        self.inp = nn.Conv2d(1, c, 3, padding=1)
        self.r1 = Res(c, tdim)
        self.down = nn.Conv2d(c, c, 4, stride=2, padding=1)
        self.r2 = Res(c, tdim)
        self.up = nn.ConvTranspose2d(c, c, 4, stride=2, padding=1)
        self.r3 = Res(c, tdim)
        self.out = nn.Conv2d(c, 1, 3, padding=1)

    def forward(self, pixel_values):
        x1 = pixel_values.to(self.inp.weight.dtype)
        x0 = torch.randn_like(x1)
        t = torch.rand(x1.shape[0], device=x1.device)
        tt = t.view(-1, 1, 1, 1).to(x1.dtype)
        x_t = (1 - tt) * x0 + tt * x1
        v = self.velocity(x_t, t)
        return {"loss": F.mse_loss(v.float(), (x1 - x0).float())}

    def velocity(self, x, t):
        te = self.temb(t)
        h = self.r1(self.inp(x), te)
        h = self.r3(self.up(self.r2(self.down(h), te)) + h, te)
        return self.out(F.silu(h))


class EMACallback(TrainerCallback):
    def __init__(self, model, decay=0.999):
        self.decay = decay
        self.ema = copy.deepcopy(model).float().eval().requires_grad_(False)  # keep the EMA in full precision

    @torch.no_grad()
    def on_step_end(self, args, state, control, model=None, **kwargs):
        ema_params = list(self.ema.parameters())
        model_params = list(model.parameters())
        torch._foreach_lerp_(ema_params, model_params, 1.0 - self.decay)


def make_digits(n, size=16):
    rng = np.random.default_rng(0)
    imgs = np.full((n, 1, size, size), -1.0, dtype=np.float32)
    for i in range(n):
        r = rng.integers(2, 8)
        c = rng.integers(2, 8)
        imgs[i, 0, r:r + 7, c] = 1.0
        imgs[i, 0, r, c:c + 5] = 1.0
    return imgs


train_ds = Dataset.from_dict({"pixel_values": make_digits(256)}).with_format("torch")

model = FlowUNet().to(torch.bfloat16)
ema_cb = EMACallback(model)
args = TrainingArguments(
    output_dir=tempfile.mkdtemp(prefix="flow_trainer_"),
    per_device_train_batch_size=32,
    max_steps=20,
    learning_rate=3e-4,
    logging_steps=5,
    save_strategy="no",
    report_to=[],
    use_cpu=True,
    remove_unused_columns=False,
    disable_tqdm=True,
)
trainer = Trainer(model=model, args=args, train_dataset=train_ds, callbacks=[ema_cb])
trainer.train()


@torch.no_grad()
def euler_sample(net, n=4, steps=16):
    x = torch.randn(n, 1, 16, 16)
    for i in range(steps):
        t = torch.full((n,), i / steps)
        x = x + net.velocity(x, t) / steps
    return x


imgs = euler_sample(ema_cb.ema)
print("uint8 samples", ((imgs.clamp(-1, 1) + 1) * 127.5).round().to(torch.uint8).shape)
print("done")
