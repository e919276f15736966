import math
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=512):
        super().__init__()
        pos = torch.arange(max_len).unsqueeze(1)
        div = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, d_model)
        pe[:, 0::2] = torch.sin(pos * div)
        pe[:, 1::2] = torch.cos(pos * div)
        self.register_buffer("pe", pe, persistent=False)

    def forward(self, x):
        return x + self.pe[: x.size(1)]


class Forecaster(nn.Module):
    def __init__(self, n_features=3, d_model=32, horizon=12):
        super().__init__()
        self.inp = nn.Linear(n_features, d_model)
        self.pos_enc = PositionalEncoding(d_model)
        layer = nn.TransformerEncoderLayer(d_model, 4, 64, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = nn.Linear(d_model, horizon * n_features)
        self.horizon, self.n_features = horizon, n_features

    def forward(self, x):
        h = self.encoder(self.pos_enc(self.inp(x)))
        return self.head(h[:, -1]).view(-1, self.horizon, self.n_features)


def make_series(gen, bs=32, lookback=48, horizon=12):
    t = torch.arange(lookback + horizon).float()
    phase = torch.rand(bs, 1, 3, generator=gen) * 6.28
    period = torch.tensor([24.0, 12.0, 7.0])
    series = torch.sin(2 * math.pi * t[None, :, None] / period + phase)
    series = series + 0.05 * torch.randn(series.shape, generator=gen)
    return series[:, :lookback], series[:, lookback:]


def train(model, opt, sched, gen, steps, start=0):
    for step in range(start, start + steps):
        x, y = make_series(gen)
        loss = F.mse_loss(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        opt.step()
        sched.step()
        if step % 20 == 0:
            print(f"step {step:3d} mse {loss.item():.4f} lr {sched.get_last_lr()[0]:.2e}")


def build(device=None):
    if device is None:
        model = Forecaster()
    else:
        with torch.device(device):
            model = Forecaster()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=40, gamma=0.5)
    return model, opt, sched


def main():
    torch.manual_seed(0)
    ckpt_dir = tempfile.mkdtemp(prefix="forecast_")
    path = os.path.join(ckpt_dir, "last.pt")
    gen = torch.Generator().manual_seed(0)

    model, opt, sched = build()
    train(model, opt, sched, gen, steps=60)
    torch.save({"model": model.state_dict(), "optim": opt.state_dict(), "sched": sched.state_dict(),
                "step": 60, "gen": gen.get_state(), "torch_rng": torch.get_rng_state()}, path)
    del model, opt, sched
    print("checkpoint written:", path)

    ckpt = torch.load(path, map_location="cpu", weights_only=True)
    model, _, _ = build(device="meta")
    model.load_state_dict(ckpt["model"], assign=True)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    opt.load_state_dict(ckpt["optim"])
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=40, gamma=0.5)
    sched.load_state_dict(ckpt["sched"])
    gen.set_state(ckpt["gen"])
    torch.set_rng_state(ckpt["torch_rng"])
    train(model, opt, sched, gen, steps=40, start=ckpt["step"])
    print("resumed training finished")


if __name__ == "__main__":
    main()
