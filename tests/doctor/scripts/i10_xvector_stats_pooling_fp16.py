"""x-vector speaker embedding training (TDNN + statistics pooling + softmax classifier),
wespeaker-style SGD with momentum, model kept in fp16 to halve memory, followed by
cosine scoring of trial pairs and EER."""
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
SR, N_FFT, HOP, N_MELS, N_SPK = 16000, 400, 160, 30, 12


def fbank():
    hz2mel = lambda f: 2595 * math.log10(1 + f / 700)
    m = torch.linspace(hz2mel(20), hz2mel(7600), N_MELS + 2)
    hz = 700 * (10 ** (m / 2595) - 1)
    f = torch.linspace(0, SR / 2, N_FFT // 2 + 1)
    return torch.clamp(torch.minimum((f - hz[:-2, None]) / (hz[1:-1, None] - hz[:-2, None]),
                                     (hz[2:, None] - f) / (hz[2:, None] - hz[1:-1, None])), min=0)


FB, WIN = fbank(), torch.hann_window(N_FFT)
SPEAKERS = [(float(torch.empty(()).uniform_(90, 250)), torch.empty(3).uniform_(400, 3000)) for _ in range(N_SPK)]


def utterance(spk, sec=1.5):
    f0, formants = SPEAKERS[spk]
    n = int(SR * sec)
    t = torch.arange(n) / SR
    vib = 1 + 0.02 * torch.sin(2 * math.pi * float(torch.empty(()).uniform_(3, 6)) * t)
    src = sum(torch.sin(2 * math.pi * k * f0 * vib * t) / k for k in range(1, 8))
    mod = sum(torch.sin(2 * math.pi * fm * t) for fm in formants.tolist())
    w = src * (1 + 0.3 * mod) * (0.5 + 0.5 * torch.rand(()))
    return w / w.abs().max() * 0.5 + 0.003 * torch.randn(n)


def logmel(w):
    spec = torch.stft(w, N_FFT, HOP, window=WIN, return_complex=True)
    lm = torch.log(FB @ spec.abs().pow(2) + 1e-6)
    return lm - lm.mean(-1, keepdim=True)  # CMN, (n_mels, T)


class TDNN(nn.Module):
    def __init__(self, cin, cout, k, d):
        super().__init__()
        self.conv = nn.Conv1d(cin, cout, k, dilation=d)
        self.bn = nn.BatchNorm1d(cout)

    def forward(self, x):
        return self.bn(F.relu(self.conv(x)))


class StatsPool(nn.Module):
    def forward(self, x):
        mean = x.mean(dim=-1)
        var = (x * x).mean(dim=-1) - mean * mean
        std = torch.sqrt(var.clamp(min=1e-10))  # guard against tiny negative variances
        return torch.cat([mean, std], dim=-1)


class XVector(nn.Module):
    def __init__(self, c=128, emb=64):
        super().__init__()
        self.frame = nn.Sequential(TDNN(N_MELS, c, 5, 1), TDNN(c, c, 3, 2), TDNN(c, c, 3, 3), TDNN(c, c, 1, 1),
                                   TDNN(c, 3 * c, 1, 1))
        self.pool = StatsPool()
        self.segment = nn.Linear(6 * c, emb)

    def forward(self, x):
        return self.segment(self.pool(self.frame(x)))


DTYPE = torch.float16
model = XVector().to(DTYPE)
classifier = nn.Linear(64, N_SPK).to(DTYPE)
params = list(model.parameters()) + list(classifier.parameters())
opt = torch.optim.SGD(params, lr=0.05, momentum=0.9, weight_decay=1e-4, nesterov=True)

for step in range(14):
    y = torch.randint(0, N_SPK, (12,))
    x = torch.stack([logmel(utterance(int(s))) for s in y]).to(DTYPE)
    emb = model(x)
    logits = classifier(F.relu(emb))
    loss = F.cross_entropy(logits.float(), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 3 == 0:
        print(f"step {step:2d} ce loss {loss.item():.3f}")

# ---------------- verification trials with cosine scoring ----------------
model.eval()
enroll_spk = torch.arange(N_SPK).repeat_interleave(2)
with torch.no_grad():
    embs = model(torch.stack([logmel(utterance(int(s))) for s in enroll_spk]).to(DTYPE))
embs = F.normalize(embs.float(), dim=-1)
scores, labels = [], []
for i in range(len(enroll_spk)):
    for j in range(i + 1, len(enroll_spk)):
        scores.append(float(embs[i] @ embs[j]))
        labels.append(int(enroll_spk[i] == enroll_spk[j]))
scores, labels = np.array(scores), np.array(labels)
thr = np.sort(scores)
fars = np.array([(scores[labels == 0] >= t).mean() for t in thr])
frrs = np.array([(scores[labels == 1] < t).mean() for t in thr])
k = np.argmin(np.abs(fars - frrs))
print(f"EER {100 * (fars[k] + frrs[k]) / 2:.2f}%  mean target score {scores[labels == 1].mean():.3f}")
