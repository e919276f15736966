import copy
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from accelerate import Accelerator

FEATURES = ["temp_c", "humidity", "wind_ms", "pressure_kpa", "rain_mm", "ctr", "hour_sin", "hour_cos"]


def make_data(n, seed):
    g = torch.Generator().manual_seed(seed)
    temp = 15 + 8 * torch.randn(n, generator=g)
    hum = 60 + 15 * torch.rand(n, generator=g)
    wind = 4 * torch.rand(n, generator=g)
    pres = 101.3 + 0.8 * torch.randn(n, generator=g)
    rain = torch.relu(3 * torch.randn(n, generator=g))
    ctr = 3e-6 + 1e-6 * torch.randn(n, generator=g)
    hour = 24 * torch.rand(n, generator=g)
    x = torch.stack([temp, hum, wind, pres, rain, ctr, torch.sin(hour / 3.82), torch.cos(hour / 3.82)], 1)
    y = 0.05 * temp - 0.02 * hum + 0.3 * rain.sqrt() + 2e5 * (ctr - 3e-6) + 0.5 * torch.sin(hour / 3.82)
    return x, y[:, None] + 0.05 * torch.randn(n, 1, generator=g)


class Regressor(nn.Module):
    def __init__(self, mean, std, d=64):
        super().__init__()
        self.register_buffer("mean", mean)
        self.register_buffer("std", std)
        self.net = nn.Sequential(nn.Linear(len(mean), d), nn.SiLU(), nn.Linear(d, d), nn.SiLU(), nn.Linear(d, 1))

    def forward(self, x):
        return self.net((x - self.mean) / self.std)


@torch.no_grad()
def fold_normalization(model):
    """Fold (x - mean) / std into the first Linear so the exported graph is a plain MLP."""
    folded = copy.deepcopy(model.net)
    w = folded[0].weight / model.std[None, :]
    folded[0].bias.sub_(w @ model.mean)
    folded[0].weight.copy_(w)
    return folded


def main():
    torch.manual_seed(0)
    x, y = make_data(4096, 0)
    xv, yv = make_data(512, 1)
    accelerator = Accelerator(mixed_precision="bf16", cpu=True)
    model = Regressor(x.mean(0), x.std(0))
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=128, shuffle=True)
    model, opt, loader = accelerator.prepare(model, opt, loader)
    for epoch in range(4):
        for xb, yb in loader:
            loss = F.mse_loss(model(xb).float(), yb)
            accelerator.backward(loss)
            opt.step()
            opt.zero_grad()
        accelerator.print(f"epoch {epoch} train mse {loss.item():.4f}")

    base = accelerator.unwrap_model(model).eval()
    with torch.no_grad():
        ref = F.mse_loss(base(xv), yv).item()
    exported = fold_normalization(base).half().eval()
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "regressor_fp16.pt")
        torch.save(exported.state_dict(), path)
        reloaded = copy.deepcopy(base.net).half()
        reloaded.load_state_dict(torch.load(path))
        print(f"exported {os.path.getsize(path)} bytes")
    with torch.no_grad():
        pred = reloaded(xv.half()).float()
        print(f"reference val mse {ref:.4f}")
        print(f"fp16 export val mse {F.mse_loss(pred, yv).item():.4f}")


if __name__ == "__main__":
    main()
