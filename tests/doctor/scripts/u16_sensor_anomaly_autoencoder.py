"""Autoencoder for multichannel sensor windows, trained fully in fp16 (weights + optimizer state)
to mimic a memory-constrained edge device."""
import torch
import torch.nn as nn

torch.manual_seed(0)
C, W = 6, 32


class AE(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv1d(C, 16, 5, padding=2), nn.Tanh(), nn.Conv1d(16, 8, 5, stride=2, padding=2), nn.Tanh())
        self.dec = nn.Sequential(nn.ConvTranspose1d(8, 16, 4, stride=2, padding=1), nn.Tanh(), nn.Conv1d(16, C, 5, padding=2))

    def forward(self, x):
        return self.dec(self.enc(x))


def windows(n=64):
    t = torch.linspace(0, 6.28, W)
    phase = torch.rand(n, C, 1) * 6.28
    return 0.01 * torch.sin(t + phase) + 0.001 * torch.randn(n, C, W)  # raw sensor units are tiny


model = AE().half()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_fn = nn.MSELoss()

for step in range(6):
    x = windows().half()
    recon = model(x)
    loss = loss_fn(recon.float(), x.float())
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.6f}")
