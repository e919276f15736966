"""Small Conformer-style CTC recogniser whose log-mel front end lives inside the model,
trained on synthetic 'phone' tone sequences.  Run in half precision to save memory."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

SR = 16000
N_FFT = 512
HOP = 160
N_MELS = 40
VOCAB = 12  # 0 = blank


def mel_fbank(n_mels, n_fft, sr):
    def hz2mel(f):
        return 1127.0 * math.log(1.0 + f / 700.0)

    m = torch.linspace(hz2mel(20.0), hz2mel(sr / 2), n_mels + 2)
    hz = 700.0 * (torch.exp(m / 1127.0) - 1.0)
    freqs = torch.linspace(0, sr / 2, n_fft // 2 + 1)
    lower = (freqs[None, :] - hz[:-2, None]) / (hz[1:-1, None] - hz[:-2, None])
    upper = (hz[2:, None] - freqs[None, :]) / (hz[2:, None] - hz[1:-1, None])
    return torch.clamp(torch.minimum(lower, upper), min=0.0)  # (n_mels, n_freq)


class LogMelFrontend(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("window", torch.hann_window(N_FFT))
        self.register_buffer("fbank", mel_fbank(N_MELS, N_FFT, SR))

    def forward(self, wav):
        spec = torch.stft(wav, N_FFT, HOP, window=self.window, return_complex=True)
        power = spec.real ** 2 + spec.imag ** 2
        mel = torch.matmul(self.fbank, power)
        return torch.log(mel + 1e-6).transpose(1, 2)  # (B, T, n_mels)


class ConvModule(nn.Module):
    def __init__(self, d, k=15):
        super().__init__()
        self.ln = nn.LayerNorm(d)
        self.pw1 = nn.Conv1d(d, 2 * d, 1)
        self.dw = nn.Conv1d(d, d, k, padding=k // 2, groups=d)
        self.bn = nn.BatchNorm1d(d)
        self.pw2 = nn.Conv1d(d, d, 1)

    def forward(self, x):
        y = self.ln(x).transpose(1, 2)
        y = F.glu(self.pw1(y), dim=1)
        y = self.pw2(F.silu(self.bn(self.dw(y))))
        return x + y.transpose(1, 2)


class ConformerBlock(nn.Module):
    def __init__(self, d, heads=4):
        super().__init__()
        self.ff1 = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, 4 * d), nn.SiLU(), nn.Linear(4 * d, d))
        self.ln_att = nn.LayerNorm(d)
        self.att = nn.MultiheadAttention(d, heads, batch_first=True)
        self.conv = ConvModule(d)
        self.ff2 = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, 4 * d), nn.SiLU(), nn.Linear(4 * d, d))
        self.ln_out = nn.LayerNorm(d)

    def forward(self, x):
        x = x + 0.5 * self.ff1(x)
        h = self.ln_att(x)
        x = x + self.att(h, h, h, need_weights=False)[0]
        x = self.conv(x)
        x = x + 0.5 * self.ff2(x)
        return self.ln_out(x)


class ConformerCTC(nn.Module):
    def __init__(self, d=64, layers=2):
        super().__init__()
        self.frontend = LogMelFrontend()
        self.subsample = nn.Sequential(
            nn.Conv2d(1, 8, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(8, 8, 3, stride=2, padding=1), nn.ReLU(),
        )
        self.proj = nn.Linear(8 * (N_MELS // 4), d)
        self.blocks = nn.ModuleList([ConformerBlock(d) for _ in range(layers)])
        self.head = nn.Linear(d, VOCAB)

    def forward(self, wav):
        feats = self.frontend(wav)
        feats = feats - feats.mean(dim=1, keepdim=True)
        x = self.subsample(feats.unsqueeze(1))  # (B, C, T/4, F/4)
        b, c, t, f = x.shape
        x = self.proj(x.permute(0, 2, 1, 3).reshape(b, t, c * f))
        for blk in self.blocks:
            x = blk(x)
        return self.head(x)


def synth_batch(bs, n_samples=SR):
    t = torch.arange(n_samples) / SR
    waves, targets, tlens = [], [], []
    for _ in range(bs):
        n = int(torch.randint(2, 6, ()))
        labels = torch.randint(1, VOCAB, (n,))
        seg = n_samples // n
        w = torch.zeros(n_samples)
        for k, lab in enumerate(labels.tolist()):
            f0 = 150.0 * lab
            w[k * seg:(k + 1) * seg] = 0.4 * torch.sin(2 * math.pi * f0 * t[k * seg:(k + 1) * seg])
        waves.append(w + 0.01 * torch.randn(n_samples))
        targets.append(labels)
        tlens.append(n)
    return torch.stack(waves), torch.cat(targets), torch.tensor(tlens)


model = ConformerCTC().half()
opt = torch.optim.AdamW(model.parameters(), lr=5e-4)
ctc = nn.CTCLoss(blank=0, zero_infinity=True)

for step in range(20):
    wav, targets, tlens = synth_batch(8)
    logits = model(wav.half())
    log_probs = logits.float().log_softmax(-1).transpose(0, 1)  # (T, B, V)
    in_lens = torch.full((wav.shape[0],), log_probs.shape[0], dtype=torch.long)
    loss = ctc(log_probs, targets, in_lens, tlens)
    opt.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
    opt.step()
    if step % 5 == 0:
        print(f"step {step:2d}  ctc {loss.item():.3f}")
print("done")
