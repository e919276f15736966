import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
rng = np.random.default_rng(3)

WIN, STEP = 64, 4
T = 6000
t = np.arange(T)
signal = np.sin(2 * np.pi * t / 50) + 0.5 * np.sin(2 * np.pi * t / 13) + rng.normal(0, 0.05, T)
test_signal = signal.copy()
anomaly_at = [4200, 4800, 5300]
for a in anomaly_at:
    test_signal[a:a + 20] += rng.normal(2.0, 0.5, 20)


def windows(x, win, step):
    x = np.ascontiguousarray(x, dtype=np.float32)
    n = (len(x) - win) // step + 1
    s = x.strides[0]
    return np.lib.stride_tricks.as_strided(x, shape=(n, win), strides=(step * s, s)).copy()


class ConvAE(nn.Module):
    def __init__(self, ch=32, latent=8):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv1d(1, ch, 5, stride=2, padding=2), nn.ReLU(),
            nn.Conv1d(ch, ch, 5, stride=2, padding=2), nn.ReLU(),
            nn.Conv1d(ch, latent, 3, padding=1),
        )
        self.decoder = nn.Sequential(
            nn.ConvTranspose1d(latent, ch, 4, stride=2, padding=1), nn.ReLU(),
            nn.ConvTranspose1d(ch, ch, 4, stride=2, padding=1), nn.ReLU(),
            nn.Conv1d(ch, 1, 3, padding=1),
        )

    def forward(self, x):
        return self.decoder(self.encoder(x))


train_w = torch.from_numpy(windows(signal[:4000], WIN, STEP)).unsqueeze(1).half()
val_w = torch.from_numpy(windows(signal[4000:], WIN, STEP)).unsqueeze(1).half()
test_w = torch.from_numpy(windows(test_signal[4000:], WIN, STEP)).unsqueeze(1).half()

model = ConvAE().half()
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
for epoch in range(5):
    perm = torch.randperm(len(train_w))
    total = 0.0
    for i in range(0, len(perm), 64):
        xb = train_w[perm[i:i + 64]]
        loss = nn.functional.mse_loss(model(xb).float(), xb.float())
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item() * len(xb)
    print(f"epoch {epoch} recon mse {total / len(train_w):.5f}")

model.eval()
with torch.no_grad():
    val_err = (model(val_w) - val_w).pow(2).mean(dim=(1, 2))
    threshold = torch.quantile(val_err, 0.995)
    test_err = (model(test_w) - test_w).pow(2).mean(dim=(1, 2))
flagged = (test_err > threshold).nonzero().squeeze(-1) * STEP + 4000
print(f"threshold {threshold.item():.5f}, flagged {len(flagged)} windows")
print("first flagged starts:", flagged[:10].tolist())
