"""Tiny diffusion denoiser (UNet-style ResBlocks with timestep embedding) trained with
bf16 autocast.  ResBlocks use a home-grown gradient-checkpoint function (as in the
original guided-diffusion code) to cut activation memory."""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class CheckpointFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, run_function, length, *args):
        ctx.run_function = run_function
        ctx.input_tensors = list(args[:length])
        ctx.input_params = list(args[length:])
        with torch.no_grad():
            output_tensors = ctx.run_function(*ctx.input_tensors)
        return output_tensors

    @staticmethod
    def backward(ctx, *output_grads):
        ctx.input_tensors = [x.detach().requires_grad_(True) for x in ctx.input_tensors]
        with torch.enable_grad():
            shallow_copies = [x.view_as(x) for x in ctx.input_tensors]
            output_tensors = ctx.run_function(*shallow_copies)
        input_grads = torch.autograd.grad(output_tensors, ctx.input_tensors + ctx.input_params,
                                          output_grads, allow_unused=True)
        del ctx.input_tensors, ctx.input_params, output_tensors
        return (None, None) + input_grads


def checkpoint(func, inputs, params, flag):
    if flag:
        args = tuple(inputs) + tuple(params)
        return CheckpointFunction.apply(func, len(inputs), *args)
    return func(*inputs)


def timestep_embedding(t, dim):
    half = dim // 2
    freqs = torch.exp(-math.log(10000) * torch.arange(half, dtype=torch.float32) / half)
    args = t[:, None].float() * freqs[None]
    return torch.cat([torch.cos(args), torch.sin(args)], dim=-1)


class ResBlock(nn.Module):
    def __init__(self, ch, emb_ch, use_checkpoint=True):
        super().__init__()
        self.use_checkpoint = use_checkpoint
        self.in_layers = nn.Sequential(nn.GroupNorm(8, ch), nn.SiLU(), nn.Conv2d(ch, ch, 3, padding=1))
        self.emb_layers = nn.Sequential(nn.SiLU(), nn.Linear(emb_ch, ch))
        self.out_layers = nn.Sequential(nn.GroupNorm(8, ch), nn.SiLU(), nn.Conv2d(ch, ch, 3, padding=1))

    def forward(self, x, emb):
        return checkpoint(self._forward, (x, emb), self.parameters(), self.use_checkpoint)

    def _forward(self, x, emb):
        h = self.in_layers(x)
        h = h + self.emb_layers(emb)[:, :, None, None]
        h = self.out_layers(h)
        return x + h


class Denoiser(nn.Module):
    def __init__(self, ch=32, emb_ch=64):
        super().__init__()
        self.emb_ch = emb_ch
        self.time_embed = nn.Sequential(nn.Linear(emb_ch, emb_ch), nn.SiLU(), nn.Linear(emb_ch, emb_ch))
        self.inp = nn.Conv2d(3, ch, 3, padding=1)
        self.down = nn.Conv2d(ch, ch, 3, stride=2, padding=1)
        self.mid = nn.ModuleList([ResBlock(ch, emb_ch), ResBlock(ch, emb_ch)])
        self.up = nn.ConvTranspose2d(ch, ch, 4, stride=2, padding=1)
        self.out = nn.Sequential(nn.GroupNorm(8, ch), nn.SiLU(), nn.Conv2d(ch, 3, 3, padding=1))

    def forward(self, x, t):
        emb = self.time_embed(timestep_embedding(t, self.emb_ch))
        h = self.down(self.inp(x))
        for blk in self.mid:
            h = blk(h, emb)
        return self.out(self.up(h))


T_STEPS = 200
betas = torch.linspace(1e-4, 0.02, T_STEPS)
alphas_bar = torch.cumprod(1 - betas, 0)

model = Denoiser()
opt = torch.optim.AdamW(model.parameters(), lr=2e-4)
data = torch.tanh(torch.randn(128, 3, 16, 16))
for step in range(20):
    x0 = data[torch.randint(0, 128, (16,))]
    t = torch.randint(0, T_STEPS, (16,))
    noise = torch.randn_like(x0)
    ab = alphas_bar[t].view(-1, 1, 1, 1)
    xt = ab.sqrt() * x0 + (1 - ab).sqrt() * noise
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        pred = model(xt, t)
    loss = F.mse_loss(pred.float(), noise)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 5 == 0:
        print(f"step {step} loss {loss.item():.4f}")
