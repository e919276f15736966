"""Frame-level voice activity detection: log-mel -> dilated conv stack -> per-frame speech
logit, trained with BCE.  Model and features are kept entirely in float16 ("the VAD runs
in fp16 on the device, so train it in fp16 too").  Reports frame F1 on a held-out set."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
SR, N_FFT, HOP, N_MELS = 16000, 400, 160, 32
DTYPE = torch.float16


def fbank():
    hz2mel = lambda f: 2595 * math.log10(1 + f / 700)
    m = torch.linspace(hz2mel(40), hz2mel(7000), N_MELS + 2)
    hz = 700 * (10 ** (m / 2595) - 1)
    f = torch.linspace(0, SR / 2, N_FFT // 2 + 1)
    return torch.clamp(torch.minimum((f - hz[:-2, None]) / (hz[1:-1, None] - hz[:-2, None]),
                                     (hz[2:, None] - f) / (hz[2:, None] - hz[1:-1, None])), min=0)


FB, WIN = fbank(), torch.hann_window(N_FFT)


def make_example(sec=2.0):
    n = int(SR * sec)
    t = torch.arange(n) / SR
    labels = torch.zeros(n)
    wav = 0.02 * torch.randn(n) * (1 + 0.5 * torch.sin(2 * math.pi * 0.7 * t))  # babble-ish floor
    pos = int(torch.randint(0, SR // 4, ()))
    while pos < n:
        L = int(torch.randint(SR // 5, SR // 2, ()))
        end = min(n, pos + L)
        f0 = float(torch.empty(()).uniform_(100, 250))
        seg = t[pos:end]
        voiced = sum(torch.sin(2 * math.pi * k * f0 * seg) / k for k in range(1, 6))
        wav[pos:end] += 0.3 * voiced * torch.hann_window(end - pos)
        labels[pos:end] = 1
        pos = end + int(torch.randint(SR // 10, SR // 2, ()))
    spec = torch.stft(wav, N_FFT, HOP, window=WIN, return_complex=True)
    feats = torch.log(FB @ spec.abs().pow(2) + 1e-6)
    feats = (feats - feats.mean(-1, keepdim=True)) / (feats.std(-1, keepdim=True) + 1e-5)
    frame_lab = F.max_pool1d(labels[None, None], HOP, HOP, ceil_mode=True)[0, 0][: feats.shape[-1]]
    frame_lab = F.pad(frame_lab, (0, feats.shape[-1] - frame_lab.shape[0]))
    return feats, frame_lab


class VADNet(nn.Module):
    def __init__(self, c=48):
        super().__init__()
        layers = []
        cin = N_MELS
        for d in (1, 2, 4, 8):
            layers += [nn.Conv1d(cin, c, 3, dilation=d, padding=d), nn.BatchNorm1d(c), nn.ReLU()]
            cin = c
        self.body = nn.Sequential(*layers)
        self.head = nn.Conv1d(c, 1, 1)

    def forward(self, x):
        return self.head(self.body(x)).squeeze(1)


def batch(bs):
    ex = [make_example() for _ in range(bs)]
    return torch.stack([e[0] for e in ex]).to(DTYPE), torch.stack([e[1] for e in ex]).to(DTYPE)


model = VADNet().to(DTYPE)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)

for step in range(15):
    x, y = batch(8)
    logits = model(x)
    loss = F.binary_cross_entropy_with_logits(logits, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 3 == 0:
        print(f"step {step:2d} bce {loss.item():.4f}")

model.eval()
x, y = batch(8)
with torch.no_grad():
    pred = (torch.sigmoid(model(x)) > 0.5).float()
y = y.float()
tp = (pred * y).sum()
f1 = 2 * tp / (pred.sum() + y.sum())
print(f"held-out frame F1 {f1.item():.3f}  speech ratio {y.mean().item():.2f}")
