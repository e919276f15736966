"""Batch anomaly scoring of sensor windows with a GRU autoencoder-style forecaster.
The trained model is cast to bfloat16 and wrapped in torch.compile for serving;
windows arrive as NumPy arrays from the feature pipeline."""
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(0)
N_CH, WIN, HID = 8, 32, 32


class Forecaster(nn.Module):
    def __init__(self):
        super().__init__()
        self.in_proj = nn.Linear(N_CH, HID)
        self.gru = nn.GRU(HID, HID, batch_first=True)
        self.out = nn.Linear(HID, N_CH)

    def forward(self, x):
        h, _ = self.gru(torch.tanh(self.in_proj(x)))
        return self.out(h)


def sensor_windows(n, anomalous=False):
    t = np.arange(WIN)[None, :, None] + rng.uniform(0, 100, (n, 1, 1))
    phase = np.linspace(0, np.pi, N_CH)[None, None, :]
    x = np.sin(0.3 * t + phase) + 0.05 * rng.normal(size=(n, WIN, N_CH))
    if anomalous:
        x[:, WIN // 2:, 3] += 2.0
    return x  # float64, straight from NumPy


def main():
    t0 = time.time()
    model = Forecaster()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    for step in range(60):
        xb = torch.from_numpy(sensor_windows(32)).float()
        pred = model(xb[:, :-1])
        loss = F.mse_loss(pred, xb[:, 1:])
        opt.zero_grad(); loss.backward(); opt.step()
    print(f"train loss {loss.item():.5f}")

    serving = torch.compile(model.to(torch.bfloat16).eval())

    @torch.inference_mode()
    def score(windows: np.ndarray) -> np.ndarray:
        x = torch.from_numpy(windows)
        pred = serving(x[:, :-1])
        err = (pred.float() - x[:, 1:].float()).pow(2).mean((1, 2))
        return err.numpy()

    normal = score(sensor_windows(64))
    weird = score(sensor_windows(64, anomalous=True))
    print(f"mean score normal {normal.mean():.4f} anomalous {weird.mean():.4f} ({time.time() - t0:.1f}s)")


if __name__ == "__main__":
    main()
