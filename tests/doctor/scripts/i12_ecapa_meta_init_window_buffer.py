"""Train a small ECAPA-style speaker encoder (SE-Res2 blocks + attentive statistics pooling),
export it to safetensors, then reload it the 'fast' way (construct on the meta device,
load_state_dict(assign=True)) for a cosine-scoring verification service."""
import math
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from safetensors.torch import load_file, save_file

torch.manual_seed(0)
SR, N_FFT, HOP, N_MELS, N_SPK = 16000, 512, 160, 40, 8


def mel_fb():
    hz2mel = lambda f: 2595 * math.log10(1 + f / 700)
    m = torch.linspace(hz2mel(20), hz2mel(7600), N_MELS + 2)
    hz = 700 * (10 ** (m / 2595) - 1)
    f = torch.linspace(0, SR / 2, N_FFT // 2 + 1)
    return torch.clamp(torch.minimum((f - hz[:-2, None]) / (hz[1:-1, None] - hz[:-2, None]),
                                     (hz[2:, None] - f) / (hz[2:, None] - hz[1:-1, None])), min=0)


class Fbank(nn.Module):
    """On-the-fly log-mel; window and filterbank are derived constants, so they are not
    stored in checkpoints."""

    def __init__(self):
        super().__init__()
        self.register_buffer("window", torch.hamming_window(N_FFT), persistent=False)
        self.register_buffer("fb", mel_fb(), persistent=False)

    def forward(self, wav):
        wav = torch.cat([wav[:, :1], wav[:, 1:] - 0.97 * wav[:, :-1]], dim=1)
        spec = torch.stft(wav, N_FFT, HOP, window=self.window, return_complex=True)
        lm = torch.log(self.fb @ spec.abs().pow(2) + 1e-6)
        return lm - lm.mean(-1, keepdim=True)


class SERes2Block(nn.Module):
    def __init__(self, c, scale=4, dilation=2):
        super().__init__()
        self.scale = scale
        w = c // scale
        self.conv_in = nn.Conv1d(c, c, 1)
        self.convs = nn.ModuleList([nn.Conv1d(w, w, 3, dilation=dilation, padding=dilation) for _ in range(scale - 1)])
        self.conv_out = nn.Conv1d(c, c, 1)
        self.bn = nn.BatchNorm1d(c)
        self.se = nn.Sequential(nn.Linear(c, c // 4), nn.ReLU(), nn.Linear(c // 4, c), nn.Sigmoid())

    def forward(self, x):
        h = F.relu(self.conv_in(x))
        chunks = torch.chunk(h, self.scale, dim=1)
        out, prev = [chunks[0]], None
        for i, conv in enumerate(self.convs):
            prev = chunks[i + 1] if prev is None else chunks[i + 1] + prev
            prev = F.relu(conv(prev))
            out.append(prev)
        h = self.bn(self.conv_out(torch.cat(out, dim=1)))
        h = h * self.se(h.mean(-1)).unsqueeze(-1)
        return x + h


class AttentiveStatsPool(nn.Module):
    def __init__(self, c, att=32):
        super().__init__()
        self.att = nn.Sequential(nn.Conv1d(c, att, 1), nn.Tanh(), nn.Conv1d(att, c, 1))

    def forward(self, x):
        w = torch.softmax(self.att(x), dim=-1)
        mu = (x * w).sum(-1)
        sg = torch.sqrt((((x ** 2) * w).sum(-1) - mu ** 2).clamp(min=1e-6))
        return torch.cat([mu, sg], dim=-1)


class ECAPALite(nn.Module):
    def __init__(self, c=64, emb=48):
        super().__init__()
        self.fbank = Fbank()
        self.stem = nn.Conv1d(N_MELS, c, 5, padding=2)
        self.blocks = nn.Sequential(SERes2Block(c, dilation=2), SERes2Block(c, dilation=3))
        self.pool = AttentiveStatsPool(c)
        self.bn_pool = nn.BatchNorm1d(2 * c)
        self.fc = nn.Linear(2 * c, emb)

    def forward(self, wav):
        x = F.relu(self.stem(self.fbank(wav)))
        x = self.blocks(x)
        return self.fc(self.bn_pool(self.pool(x)))


SPK_F0 = torch.linspace(90, 260, N_SPK)


def utterances(spk_ids, sec=1.0):
    n = int(SR * sec)
    t = torch.arange(n) / SR
    out = []
    for s in spk_ids.tolist():
        f0 = SPK_F0[s] * (1 + 0.03 * torch.randn(()))
        w = sum(torch.sin(2 * math.pi * k * f0 * t + torch.rand(()) * 6.28) / k ** 0.8 for k in range(1, 6))
        out.append(0.3 * w / w.abs().max() + 0.005 * torch.randn(n))
    return torch.stack(out)


# ------------------------------- training ---------------------------------------------
model = ECAPALite()
head = nn.Linear(48, N_SPK)
opt = torch.optim.Adam(list(model.parameters()) + list(head.parameters()), lr=2e-3)
for step in range(12):
    y = torch.randint(0, N_SPK, (16,))
    loss = F.cross_entropy(head(model(utterances(y))), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 4 == 0:
        print(f"step {step:2d} loss {loss.item():.3f}")

with tempfile.TemporaryDirectory() as d:
    ckpt = f"{d}/ecapa.safetensors"
    save_file(model.state_dict(), ckpt)

    # ------------------- serving: fast load without materialising random init ----------
    with torch.device("meta"):
        encoder = ECAPALite()
    encoder.load_state_dict(load_file(ckpt), assign=True)
    encoder.eval()

    enroll = utterances(torch.arange(N_SPK))
    test = utterances(torch.arange(N_SPK))
    with torch.no_grad():
        e = F.normalize(encoder(enroll), dim=-1)
        t = F.normalize(encoder(test), dim=-1)
    scores = t @ e.T
    print("identification accuracy", (scores.argmax(-1) == torch.arange(N_SPK)).float().mean().item())
