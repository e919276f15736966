import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

SR, N_FFT, HOP, N_MELS, SECONDS, N_TOK = 16000, 400, 160, 32, 4.5, 4
VOCAB = 9
BLANK = 0


def log_mel(wav):
    spec = torch.stft(wav.float(), N_FFT, HOP, window=torch.hann_window(N_FFT), return_complex=True).abs().pow(2)
    m = torch.linspace(0, 2595 * math.log10(1 + SR / 2 / 700), N_MELS + 2)
    hz = 700 * (10 ** (m / 2595) - 1)
    f = torch.linspace(0, SR / 2, N_FFT // 2 + 1)
    fb = torch.minimum((f - hz[:-2, None]) / (hz[1:-1, None] - hz[:-2, None]),
                       (hz[2:, None] - f) / (hz[2:, None] - hz[1:-1, None])).clamp(min=0)
    return torch.log(fb @ spec + 1e-6).transpose(1, 2)


def add_mains_hum(wav, gen, freq=50.0):
    t = torch.arange(wav.size(-1), dtype=wav.dtype, device=wav.device) / SR
    level = 0.02 + 0.05 * torch.rand(wav.size(0), 1, generator=gen)
    return wav + (level * torch.sin(2 * math.pi * freq * t)).to(wav.dtype)


def make_corpus(n, gen):
    n_samp, seg = int(SECONDS * SR), int(SECONDS * SR) // N_TOK
    t = torch.arange(seg) / SR
    tokens = torch.randint(1, VOCAB, (n, N_TOK), generator=gen)
    env = torch.hann_window(seg)
    wavs = torch.stack([torch.cat([0.3 * env * torch.sin(2 * math.pi * (200 + 140 * k) * t) for k in row]) for row in tokens.tolist()])
    wavs = F.pad(wavs, (0, n_samp - wavs.size(1))) + 0.005 * torch.randn(n, n_samp, generator=gen)
    return wavs.half(), tokens


class Transducer(nn.Module):
    def __init__(self, d=96):
        super().__init__()
        self.sub = nn.Sequential(nn.Conv1d(N_MELS, d, 3, 2, 1), nn.ReLU(), nn.Conv1d(d, d, 3, 2, 1), nn.ReLU())
        self.enc = nn.LSTM(d, d, batch_first=True)
        self.emb = nn.Embedding(VOCAB, d)
        self.pred = nn.LSTM(d, d, batch_first=True)
        self.joint = nn.Sequential(nn.Tanh(), nn.Linear(d, VOCAB))

    def encode(self, feats):
        return self.enc(self.sub(feats.transpose(1, 2)).transpose(1, 2))[0]

    def forward(self, feats, tokens):
        enc = self.encode(feats)
        pred_in = F.pad(tokens, (1, 0), value=BLANK)
        pred = self.pred(self.emb(pred_in))[0]
        return self.joint(enc.unsqueeze(2) + pred.unsqueeze(1)).log_softmax(-1)


def rnnt_loss(log_probs, tokens):
    B, T, U1, _ = log_probs.shape
    blank = log_probs[..., BLANK]
    emit = log_probs[:, :, :-1].gather(-1, tokens[:, None, :, None].expand(B, T, U1 - 1, 1)).squeeze(-1)
    alpha = [[None] * U1 for _ in range(T)]
    for t in range(T):
        for u in range(U1):
            if t == 0 and u == 0:
                alpha[t][u] = torch.zeros(B)
                continue
            paths = []
            if t > 0:
                paths.append(alpha[t - 1][u] + blank[:, t - 1, u])
            if u > 0:
                paths.append(alpha[t][u - 1] + emit[:, t, u - 1])
            alpha[t][u] = torch.logsumexp(torch.stack(paths), 0)
    return -(alpha[T - 1][U1 - 1] + blank[:, T - 1, U1 - 1]).mean()


@torch.no_grad()
def greedy_decode(model, feats, max_symbols=3):
    hyps = []
    for enc in model.encode(feats):
        hyp, state, last = [], None, torch.tensor([[BLANK]])
        pred, state = model.pred(model.emb(last), state)
        for frame in enc:
            for _ in range(max_symbols):
                k = model.joint(frame + pred[0, -1]).argmax().item()
                if k == BLANK:
                    break
                hyp.append(k)
                pred, state = model.pred(model.emb(torch.tensor([[k]])), state)
        hyps.append(hyp)
    return hyps


def main():
    gen = torch.Generator().manual_seed(0)
    train_wav, train_tok = make_corpus(48, gen)
    test_wav, test_tok = make_corpus(8, gen)
    model = Transducer()
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    for epoch in range(2):
        for i in range(0, len(train_wav), 8):
            feats = log_mel(add_mains_hum(train_wav[i:i + 8], gen))
            loss = rnnt_loss(model(feats, train_tok[i:i + 8]), train_tok[i:i + 8])
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            opt.step()
        hyps = greedy_decode(model, log_mel(test_wav))
        acc = sum(h == r for h, r in zip(hyps, test_tok.tolist())) / len(hyps)
        print(f"epoch {epoch} rnnt loss {loss.item():.3f} sentence acc {acc:.2f}")


if __name__ == "__main__":
    main()
