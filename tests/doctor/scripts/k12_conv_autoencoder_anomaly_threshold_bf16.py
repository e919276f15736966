"""1D-conv autoencoder for anomaly detection on machine telemetry windows. The model runs in
bfloat16; the alert threshold is the 99th percentile of validation reconstruction errors."""
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
rng = np.random.default_rng(0)
WIN, CH = 64, 3


def telemetry(n, anomalous=False):
    t = np.linspace(0, 4 * np.pi, WIN)
    phase = rng.uniform(0, 2 * np.pi, (n, CH, 1))
    x = np.sin(t[None, None] + phase) + 0.05 * rng.standard_normal((n, CH, WIN))
    if anomalous:
        start = rng.integers(0, WIN - 10, n)
        for i, s in enumerate(start):
            x[i, :, s : s + 8] += rng.uniform(1.5, 3.0)
    return x.astype(np.float32)


class ConvAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(
            nn.Conv1d(CH, 16, 5, stride=2, padding=2), nn.ReLU(),
            nn.Conv1d(16, 8, 5, stride=2, padding=2), nn.ReLU(),
        )
        self.dec = nn.Sequential(
            nn.ConvTranspose1d(8, 16, 4, stride=2, padding=1), nn.ReLU(),
            nn.ConvTranspose1d(16, CH, 4, stride=2, padding=1),
        )

    def forward(self, x):
        return self.dec(self.enc(x))


dtype = torch.bfloat16
train = torch.from_numpy(telemetry(1024)).to(dtype)
val = torch.from_numpy(telemetry(256)).to(dtype)
test_normal = torch.from_numpy(telemetry(128)).to(dtype)
test_anom = torch.from_numpy(telemetry(128, anomalous=True)).to(dtype)

model = ConvAE().to(dtype)
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
for epoch in range(4):
    perm = torch.randperm(len(train))
    for i in range(0, len(train), 64):
        xb = train[perm[i : i + 64]]
        loss = nn.functional.mse_loss(model(xb), xb)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} recon mse {loss.item():.4f}")


@torch.no_grad()
def scores(x):
    return ((model(x) - x) ** 2).mean(dim=(1, 2))


model.eval()
val_scores = scores(val).cpu().numpy()
threshold = np.quantile(val_scores, 0.99)
flag_normal = scores(test_normal).cpu().numpy() > threshold
flag_anom = scores(test_anom).cpu().numpy() > threshold
print(f"threshold {threshold:.4f}  false-alarm rate {flag_normal.mean():.3f}  recall {flag_anom.mean():.3f}")
