"""Tiny RNN-T (transducer) recogniser: conv + Transformer encoder, stateless (embedding +
causal conv, icefall-style) prediction network, additive joint network and a hand-written RNN-T forward-variable loss.  fp16 autocast + GradScaler."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
SR, N_FFT, HOP, N_MELS = 16000, 400, 160, 40
BLANK, VOCAB = 0, 8


def fbank():
    hz2mel = lambda f: 1127.0 * math.log(1 + f / 700.0)
    m = torch.linspace(hz2mel(20), hz2mel(SR / 2), N_MELS + 2)
    hz = 700.0 * (torch.exp(m / 1127.0) - 1)
    f = torch.linspace(0, SR / 2, N_FFT // 2 + 1)
    return torch.clamp(torch.minimum((f - hz[:-2, None]) / (hz[1:-1, None] - hz[:-2, None]),
                                     (hz[2:, None] - f) / (hz[2:, None] - hz[1:-1, None])), min=0)


FB, WIN = fbank(), torch.hann_window(N_FFT)


def features(wav):
    spec = torch.stft(wav, N_FFT, HOP, window=WIN, return_complex=True)
    lm = torch.log(FB @ spec.abs().pow(2) + 1e-6).transpose(1, 2)
    return (lm - lm.mean(1, keepdim=True)) / (lm.std(1, keepdim=True) + 1e-5)


def synth(bs):
    n = SR
    t = torch.arange(n) / SR
    wavs, tgts = [], []
    for _ in range(bs):
        k = int(torch.randint(2, 5, ()))
        lab = torch.randint(1, VOCAB, (k,))
        w = torch.zeros(n)
        seg = n // k
        for i, l in enumerate(lab.tolist()):
            w[i * seg:(i + 1) * seg] = 0.3 * torch.sin(2 * math.pi * (200 + 90 * l) * t[:seg])
        wavs.append(w + 0.01 * torch.randn(n))
        tgts.append(lab)
    U = max(len(x) for x in tgts)
    targets = torch.zeros(bs, U, dtype=torch.long)
    for i, x in enumerate(tgts):
        targets[i, : len(x)] = x
    return torch.stack(wavs), targets, torch.tensor([len(x) for x in tgts])


class Transducer(nn.Module):
    def __init__(self, d=64):
        super().__init__()
        self.sub = nn.Conv1d(N_MELS, d, 5, stride=4, padding=2)
        layer = nn.TransformerEncoderLayer(d, 4, 2 * d, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2)
        self.embed = nn.Embedding(VOCAB, d)
        self.pred_conv = nn.Conv1d(d, d, 2, groups=d // 4)  # context of 2 previous tokens
        self.joint_enc = nn.Linear(d, d)
        self.joint_pred = nn.Linear(d, d)
        self.joint_out = nn.Linear(d, VOCAB)

    def forward(self, feats, targets):
        enc = F.relu(self.sub(feats.transpose(1, 2))).transpose(1, 2)
        enc = self.encoder(enc)  # (B, T, d)
        pred_in = F.pad(targets, (2, 0), value=BLANK)  # blank-prefixed context
        emb = self.embed(pred_in).transpose(1, 2)
        pred = F.relu(self.pred_conv(emb)).transpose(1, 2)  # (B, U+1, d)
        joint = torch.tanh(self.joint_enc(enc).unsqueeze(2) + self.joint_pred(pred).unsqueeze(1))
        return self.joint_out(joint)  # (B, T, U+1, V)


def rnnt_loss(log_probs, targets, t_lens, u_lens):
    """Forward-variable recursion, vectorised over the batch."""
    B, T, U1, _ = log_probs.shape
    blank_lp = log_probs[..., BLANK]  # (B, T, U+1)
    emit_lp = torch.gather(log_probs[:, :, :-1], 3, targets[:, None, :, None].expand(B, T, U1 - 1, 1)).squeeze(-1)
    alpha = log_probs.new_full((B, T, U1), -1e10)
    alpha[:, 0, 0] = 0.0
    for t in range(T):
        for u in range(U1):
            if t == 0 and u == 0:
                continue
            from_blank = alpha[:, t - 1, u] + blank_lp[:, t - 1, u] if t > 0 else torch.full_like(alpha[:, 0, 0], -1e10)
            from_emit = alpha[:, t, u - 1] + emit_lp[:, t, u - 1] if u > 0 else torch.full_like(alpha[:, 0, 0], -1e10)
            alpha[:, t, u] = torch.logaddexp(from_blank, from_emit)
    b = torch.arange(B)
    final = alpha[b, t_lens - 1, u_lens] + blank_lp[b, t_lens - 1, u_lens]
    return -(final / u_lens).mean()


model = Transducer()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
scaler = torch.amp.GradScaler("cpu")

for step in range(8):
    wav, targets, u_lens = synth(4)
    feats = features(wav)
    with torch.autocast("cpu", dtype=torch.float16):
        logits = model(feats, targets)
        log_probs = logits.log_softmax(-1)
        t_lens = torch.full((wav.shape[0],), log_probs.shape[1], dtype=torch.long)
        loss = rnnt_loss(log_probs, targets, t_lens, u_lens)
    opt.zero_grad()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    print(f"step {step} rnnt loss/token {loss.item():.3f}")
