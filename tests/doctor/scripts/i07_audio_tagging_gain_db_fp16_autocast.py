"""CNN sound-event tagger (PANNs-style) trained with fp16 autocast + GradScaler on CPU.
Augmentation: random gain in dB and background-noise mixing at a random SNR.  The mel
filterbank is a frozen Linear layer inside the model."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
SR, N_FFT, HOP, N_MELS, N_CLASSES = 16000, 1024, 320, 64, 5


def mel_weights():
    hz2mel = lambda f: 2595.0 * math.log10(1.0 + f / 700.0)
    m = torch.linspace(hz2mel(50.0), hz2mel(SR / 2), N_MELS + 2)
    hz = 700.0 * (10 ** (m / 2595.0) - 1.0)
    f = torch.linspace(0, SR / 2, N_FFT // 2 + 1)
    lo = (f[None] - hz[:-2, None]) / (hz[1:-1, None] - hz[:-2, None])
    hi = (hz[2:, None] - f[None]) / (hz[2:, None] - hz[1:-1, None])
    return torch.clamp(torch.minimum(lo, hi), min=0.0)


def event(cls, n):
    """class-dependent harmonic events with an onset envelope."""
    t = torch.arange(n) / SR
    f0 = 120.0 * (cls + 1)
    x = sum(torch.sin(2 * math.pi * k * f0 * t) / k for k in range(1, 6))
    env = torch.exp(-3.0 * (t % 0.5))
    return x * env


def augment(wav):
    gain_db = torch.empty(wav.shape[0], 1).uniform_(-6.0, 12.0)
    wav = wav * 10.0 ** (gain_db / 20.0)
    noise = torch.randn_like(wav)
    snr_db = torch.empty(wav.shape[0], 1).uniform_(5.0, 30.0)
    p_sig = wav.pow(2).mean(-1, keepdim=True)
    p_noise = noise.pow(2).mean(-1, keepdim=True)
    noise = noise * torch.sqrt(p_sig / (p_noise * 10.0 ** (snr_db / 10.0)))
    return (wav + noise).clamp(-1.0, 1.0)


def make_batch(bs, n=SR):
    labels = torch.randint(0, N_CLASSES, (bs,))
    wav = torch.stack([event(int(c), n) for c in labels])
    wav = 0.5 * wav / wav.abs().amax(-1, keepdim=True)  # peak-normalise to -6 dBFS
    return augment(wav), labels


class ConvBlock(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.c1 = nn.Conv2d(cin, cout, 3, padding=1, bias=False)
        self.b1 = nn.BatchNorm2d(cout)
        self.c2 = nn.Conv2d(cout, cout, 3, padding=1, bias=False)
        self.b2 = nn.BatchNorm2d(cout)

    def forward(self, x):
        x = F.relu(self.b1(self.c1(x)))
        x = F.relu(self.b2(self.c2(x)))
        return F.avg_pool2d(x, 2)


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("window", torch.hann_window(N_FFT))
        self.mel = nn.Linear(N_FFT // 2 + 1, N_MELS, bias=False)
        self.mel.weight.data.copy_(mel_weights())
        self.mel.weight.requires_grad_(False)
        self.bn0 = nn.BatchNorm2d(N_MELS)
        self.blocks = nn.Sequential(ConvBlock(1, 16), ConvBlock(16, 32))
        self.fc = nn.Linear(32, N_CLASSES)

    def forward(self, wav):
        spec = torch.stft(wav.float(), N_FFT, HOP, window=self.window, return_complex=True)
        power = spec.abs().pow(2).transpose(1, 2)  # (B, T, F)
        mel = self.mel(power)  # (B, T, n_mels)
        logmel = 10.0 * torch.log10(mel.clamp(min=1e-10))
        x = self.bn0(logmel.transpose(1, 2).unsqueeze(-1)).squeeze(-1).transpose(1, 2).unsqueeze(1)
        x = self.blocks(x)
        x = x.mean(dim=3)
        x = x.amax(dim=2) + x.mean(dim=2)
        return self.fc(x)


model = Tagger()
opt = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-3)
scaler = torch.amp.GradScaler("cpu")

for step in range(12):
    wav, labels = make_batch(8)
    with torch.autocast("cpu", dtype=torch.float16):
        logits = model(wav)
        loss = F.cross_entropy(logits.float(), labels)
    opt.zero_grad()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    acc = (logits.argmax(-1) == labels).float().mean().item()
    print(f"step {step:2d} loss {loss.item():.4f} acc {acc:.2f} scale {scaler.get_scale():.0f}")
model.eval()
wav, labels = make_batch(16)
with torch.no_grad(), torch.autocast("cpu", dtype=torch.float16):
    logits = model(wav)
print(f"eval acc {(logits.argmax(-1) == labels).float().mean().item():.2f}  mean logit {logits.float().mean().item():.3f}")
print("finished")
