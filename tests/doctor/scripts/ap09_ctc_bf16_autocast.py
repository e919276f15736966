import math

import torch
import torch.nn as nn
import torch.nn.functional as F

SR, N_FFT, HOP, N_MELS = 16000, 400, 160, 40
VOCAB = ["_"] + list("abcdefgh")


class LogMelSpecAug(nn.Module):
    def __init__(self, freq_mask=8, time_mask=10):
        super().__init__()
        self.freq_mask, self.time_mask = freq_mask, time_mask
        self.register_buffer("window", torch.hann_window(N_FFT))
        fb = torch.rand(N_MELS, N_FFT // 2 + 1).pow(4)
        self.register_buffer("fb", fb / fb.sum(-1, keepdim=True))

    def forward(self, wav):
        with torch.autocast("cpu", enabled=False):
            spec = torch.stft(wav.float(), N_FFT, HOP, window=self.window, return_complex=True)
            mel = self.fb @ spec.abs().pow(2)
            feats = torch.log(mel.clamp_min(torch.finfo(torch.float32).tiny)).transpose(1, 2)
            feats = (feats - feats.mean(1, keepdim=True)) / (feats.std(1, keepdim=True) + 1e-5)
        if self.training:
            B, T, Fdim = feats.shape
            f0 = torch.randint(0, Fdim - self.freq_mask, (B, 1, 1))
            t0 = torch.randint(0, max(T - self.time_mask, 1), (B, 1, 1))
            fidx = torch.arange(Fdim).view(1, 1, -1)
            tidx = torch.arange(T).view(1, -1, 1)
            mask = ((fidx >= f0) & (fidx < f0 + self.freq_mask)) | ((tidx >= t0) & (tidx < t0 + self.time_mask))
            feats = feats.masked_fill(mask, 0.0)
        return feats


class Encoder(nn.Module):
    def __init__(self, d=64, layers=2):
        super().__init__()
        self.frontend = LogMelSpecAug()
        self.subsample = nn.Conv1d(N_MELS, d, 3, stride=2, padding=1)
        self.layers = nn.ModuleList(
            [nn.TransformerEncoderLayer(d, 4, 128, dropout=0.1, batch_first=True) for _ in range(layers)])
        self.head = nn.Linear(d, len(VOCAB))

    def forward(self, wav, wav_lens):
        x = self.frontend(wav)
        x = self.subsample(x.transpose(1, 2)).transpose(1, 2)
        frame_lens = (wav_lens // HOP + 1 + 1) // 2
        pad = torch.arange(x.shape[1]).unsqueeze(0) >= frame_lens.unsqueeze(1)
        for layer in self.layers:
            x = layer(x, src_key_padding_mask=pad)
        return self.head(x), frame_lens


def make_batch(g, B=6):
    lens = torch.randint(6000, 9000, (B,), generator=g)
    wav = torch.zeros(B, int(lens.max()))
    texts = []
    for b, n in enumerate(lens.tolist()):
        text = torch.randint(1, len(VOCAB), (int(torch.randint(2, 5, (1,), generator=g)),), generator=g)
        seg = n // len(text)
        t = torch.arange(seg) / SR
        for k, tok in enumerate(text.tolist()):
            wav[b, k * seg:(k + 1) * seg] = 0.4 * torch.sin(2 * math.pi * (180 + 90 * tok) * t)
        wav[b, :n] += 0.02 * torch.randn(n, generator=g)
        texts.append(text)
    return wav, lens, torch.cat(texts), torch.tensor([len(t) for t in texts]), texts


def greedy(ids):
    out, prev = [], 0
    for i in ids:
        if i != prev and i != 0:
            out.append(i)
        prev = i
    return out


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    model = Encoder()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
    for step in range(8):
        wav, lens, targets, tlens, _ = make_batch(g)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits, frame_lens = model(wav, lens)
        log_probs = logits.float().log_softmax(-1).transpose(0, 1)
        loss = F.ctc_loss(log_probs, targets, frame_lens, tlens, blank=0, zero_infinity=True)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        opt.step()
        print(f"step {step} ctc loss {loss.item():.4f}")
        assert math.isfinite(loss.item())
    model.eval()
    wav, lens, _, _, texts = make_batch(g)
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        logits, frame_lens = model(wav, lens)
    hyps = [greedy(row[:n].tolist()) for row, n in zip(logits.float().argmax(-1), frame_lens)]
    print("hypotheses:", ["".join(VOCAB[i] for i in h) for h in hyps])
    print("references:", ["".join(VOCAB[i] for i in t.tolist()) for t in texts])


if __name__ == "__main__":
    main()
