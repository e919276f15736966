"""Speech enhancement with a small Conv-TasNet (learned encoder, TCN mask net, decoder):
train on float waveforms, write a test set of 16-bit PCM WAV files, then evaluate the
model in half precision and report SI-SDR / SI-SDR improvement."""
import math
import tempfile
import wave
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(0)
SR = 8000


def speech_like(n):
    t = np.arange(n) / SR
    f0 = rng.uniform(100, 220) * (1 + 0.05 * np.sin(2 * np.pi * 3 * t))
    ph = 2 * np.pi * np.cumsum(f0) / SR
    env = 0.5 * (1 + np.sin(2 * np.pi * rng.uniform(2, 5) * t)) ** 2
    s = env * sum(np.sin(k * ph) / k for k in range(1, 8))
    return 0.5 * s / np.abs(s).max()


def noisy_pair(n=SR, snr_db=None):
    s = speech_like(n)
    noise = rng.standard_normal(n)
    snr_db = rng.uniform(0, 10) if snr_db is None else snr_db
    noise *= np.sqrt((s ** 2).mean() / ((noise ** 2).mean() * 10 ** (snr_db / 10)))
    return (s + noise).astype(np.float32), s.astype(np.float32)


class TCNBlock(nn.Module):
    def __init__(self, c, h, dilation):
        super().__init__()
        self.inp = nn.Conv1d(c, h, 1)
        self.dw = nn.Conv1d(h, h, 3, dilation=dilation, padding=dilation, groups=h)
        self.n1, self.n2 = nn.GroupNorm(1, h), nn.GroupNorm(1, h)
        self.out = nn.Conv1d(h, c, 1)
        self.a1, self.a2 = nn.PReLU(), nn.PReLU()

    def forward(self, x):
        y = self.n1(self.a1(self.inp(x)))
        y = self.n2(self.a2(self.dw(y)))
        return x + self.out(y)


class ConvTasNet(nn.Module):
    def __init__(self, n_filters=64, kernel=16, bottleneck=32, hidden=64, blocks=4):
        super().__init__()
        self.encoder = nn.Conv1d(1, n_filters, kernel, stride=kernel // 2, bias=False)
        self.ln = nn.GroupNorm(1, n_filters)
        self.bottleneck = nn.Conv1d(n_filters, bottleneck, 1)
        self.tcn = nn.Sequential(*[TCNBlock(bottleneck, hidden, 2 ** i) for i in range(blocks)])
        self.mask = nn.Conv1d(bottleneck, n_filters, 1)
        self.decoder = nn.ConvTranspose1d(n_filters, 1, kernel, stride=kernel // 2, bias=False)

    def forward(self, mix):  # (B, N)
        w = F.relu(self.encoder(mix.unsqueeze(1)))
        m = torch.sigmoid(self.mask(self.tcn(self.bottleneck(self.ln(w)))))
        return self.decoder(w * m).squeeze(1)[..., : mix.shape[-1]]


def si_sdr(est, ref):
    est = est - est.mean(-1, keepdim=True)
    ref = ref - ref.mean(-1, keepdim=True)
    alpha = (est * ref).sum(-1, keepdim=True) / (ref * ref).sum(-1, keepdim=True)
    target = alpha * ref
    noise = est - target
    return 10 * torch.log10((target * target).sum(-1) / (noise * noise).sum(-1))


# ------------------------------ training (fp32) --------------------------------------
model = ConvTasNet()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(25):
    pairs = [noisy_pair() for _ in range(8)]
    mix = torch.from_numpy(np.stack([p[0] for p in pairs]))
    clean = torch.from_numpy(np.stack([p[1] for p in pairs]))
    loss = -si_sdr(model(mix), clean).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 5 == 0:
        print(f"step {step:2d}  SI-SDR {-loss.item():.2f} dB")


# ------------------------------ test set as 16-bit WAV files -------------------------
def write_wav(path, x):
    pcm = np.clip(np.round(x * 32767), -32768, 32767).astype(np.int16)
    with wave.open(str(path), "wb") as f:
        f.setnchannels(1)
        f.setsampwidth(2)
        f.setframerate(SR)
        f.writeframes(pcm.tobytes())


def read_wav(path):
    with wave.open(str(path), "rb") as f:
        return np.frombuffer(f.readframes(f.getnframes()), dtype=np.int16)


tmp = Path(tempfile.mkdtemp(dir=None))
for i in range(6):
    mix, clean = noisy_pair(snr_db=5.0)
    write_wav(tmp / f"{i:03d}_mix.wav", mix)
    write_wav(tmp / f"{i:03d}_clean.wav", clean)

# ------------------------------ evaluation in fp16 -----------------------------------
model = model.half().eval()
results = []
with torch.no_grad():
    for mix_path in sorted(tmp.glob("*_mix.wav")):
        mix = torch.from_numpy(read_wav(mix_path).copy()).half().unsqueeze(0)
        ref = torch.from_numpy(read_wav(str(mix_path).replace("_mix", "_clean")).copy()).half().unsqueeze(0)
        est = model(mix)
        sdr_in = si_sdr(mix, ref).item()
        sdr_out = si_sdr(est, ref).item()
        results.append((sdr_out, sdr_out - sdr_in))
        print(f"{mix_path.name}: SI-SDR {sdr_out:.2f} dB  (improvement {sdr_out - sdr_in:.2f} dB)")
print(f"mean SI-SDR {np.mean([r[0] for r in results]):.2f} dB, mean SI-SDRi {np.mean([r[1] for r in results]):.2f} dB")
for p in tmp.iterdir():
    p.unlink()
tmp.rmdir()
