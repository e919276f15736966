import math
import os
import tempfile
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
LOOKBACK, HORIZON = 64, 16


class SinusoidalPositions(nn.Module):
    def __init__(self, d_model, max_len=512):
        super().__init__()
        pos = torch.arange(max_len).unsqueeze(1)
        div = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, d_model)
        pe[:, 0::2] = torch.sin(pos * div)
        pe[:, 1::2] = torch.cos(pos * div)
        self.register_buffer("pe", pe, persistent=False)

    def forward(self, x):
        return x + self.pe[: x.shape[1]]


class Forecaster(nn.Module):
    def __init__(self, n_series=3, d_model=64, n_layers=2):
        super().__init__()
        self.register_buffer("mean", torch.zeros(n_series))
        self.register_buffer("std", torch.ones(n_series))
        self.embed = nn.Linear(n_series, d_model)
        self.positions = SinusoidalPositions(d_model)
        layer = nn.TransformerEncoderLayer(d_model, 4, 128, dropout=0.1, batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, n_layers, enable_nested_tensor=False)
        self.head = nn.Linear(d_model, HORIZON * n_series)

    def forward(self, x):
        x = (x - self.mean) / self.std
        h = self.encoder(self.positions(self.embed(x)))
        out = self.head(h[:, -1]).view(x.shape[0], HORIZON, -1)
        return out * self.std + self.mean


def make_data(n_steps=6000):
    t = torch.arange(n_steps, dtype=torch.float32)
    s1 = 20 + 5 * torch.sin(2 * math.pi * t / 24) + torch.randn(n_steps)
    s2 = 100 + 30 * torch.sin(2 * math.pi * t / 168) + 3 * torch.randn(n_steps)
    s3 = 0.5 * s1 + 0.1 * s2 + torch.randn(n_steps)
    return torch.stack([s1, s2, s3], dim=-1)


def sample_windows(series, n):
    starts = torch.randint(0, series.shape[0] - LOOKBACK - HORIZON, (n,)).tolist()
    x = torch.stack([series[s:s + LOOKBACK] for s in starts])
    y = torch.stack([series[s + LOOKBACK:s + LOOKBACK + HORIZON] for s in starts])
    return x, y


def train(series, ckpt_path):
    model = Forecaster()
    train_part = series[: int(0.8 * len(series))]
    model.mean.copy_(train_part.mean(0))
    model.std.copy_(train_part.std(0))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(150):
        x, y = sample_windows(train_part, 32)
        loss = F.mse_loss((model(x) - model.mean) / model.std, (y - model.mean) / model.std)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 50 == 0:
            print(f"step {step} loss {loss.item():.4f}")
    torch.save(model.state_dict(), ckpt_path)


def load_for_inference(ckpt_path):
    with torch.device("meta"):
        model = Forecaster()
    state = torch.load(ckpt_path, map_location="cpu", weights_only=True)
    model.load_state_dict(state, assign=True)
    return model.eval()


def main():
    series = make_data()
    ckpt = os.path.join(tempfile.mkdtemp(), "forecaster.pt")
    train(series, ckpt)
    model = load_for_inference(ckpt)
    test_part = series[int(0.8 * len(series)):]
    x, y = sample_windows(test_part, 128)
    with torch.no_grad():
        pred = model(x)
    mae = (pred - y).abs().mean(dim=(0, 1))
    print("test MAE per series", [round(v, 3) for v in mae.tolist()])


if __name__ == "__main__":
    main()
