import math

import torch
import torch.nn as nn
import torch.nn.functional as F

SR, N_FFT, HOP, N_MELS = 16000, 400, 160, 40
VOCAB = 12


def mel_fb(n_fft=N_FFT, n_mels=N_MELS, sr=SR):
    freqs = torch.linspace(0, sr / 2, n_fft // 2 + 1)
    mel = lambda f: 2595 * torch.log10(1 + f / 700)
    pts = torch.linspace(mel(torch.tensor(0.0)), mel(torch.tensor(sr / 2)), n_mels + 2)
    hz = 700 * (10 ** (pts / 2595) - 1)
    fb = torch.zeros(n_mels, freqs.numel())
    for i in range(n_mels):
        up = (freqs - hz[i]) / (hz[i + 1] - hz[i])
        down = (hz[i + 2] - freqs) / (hz[i + 2] - hz[i + 1])
        fb[i] = torch.clamp(torch.minimum(up, down), min=0)
    return fb


class LogMel(nn.Module):
    def __init__(self, eps=1e-10):
        super().__init__()
        self.eps = eps
        self.register_buffer("window", torch.hann_window(N_FFT))
        self.register_buffer("fb", mel_fb())

    def forward(self, wav):
        spec = torch.stft(wav.float(), N_FFT, HOP, window=self.window.float(), center=False,
                          return_complex=True)
        power = spec.abs().pow(2).to(self.fb.dtype)
        mel = torch.matmul(self.fb, power).transpose(1, 2)
        return torch.log(mel + self.eps)


class BiGRUCTC(nn.Module):
    def __init__(self, hidden=96):
        super().__init__()
        self.frontend = LogMel()
        self.norm = nn.LayerNorm(N_MELS)
        self.rnn = nn.GRU(N_MELS, hidden, num_layers=2, batch_first=True, bidirectional=True)
        self.out = nn.Linear(2 * hidden, VOCAB)

    def forward(self, wav):
        x = self.norm(self.frontend(wav))
        h, _ = self.rnn(x)
        return self.out(h)


def make_batch(g, batch=6):
    lens = torch.randint(5000, 9600, (batch,), generator=g)
    wav = torch.zeros(batch, int(lens.max()))
    texts, tlens = [], []
    for b, n in enumerate(lens.tolist()):
        t = torch.arange(n) / SR
        f = 200 + 50 * torch.randint(0, 8, (1,), generator=g).item()
        wav[b, :n] = 0.3 * torch.sin(2 * math.pi * f * t) + 0.05 * torch.randn(n, generator=g)
        k = int(torch.randint(2, 6, (1,), generator=g))
        texts.append(torch.randint(1, VOCAB, (k,), generator=g))
        tlens.append(k)
    frame_lens = (lens - N_FFT) // HOP + 1
    return wav, frame_lens, torch.cat(texts), torch.tensor(tlens)


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    model = BiGRUCTC().to(torch.float16)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for step in range(5):
        wav, frame_lens, targets, target_lens = make_batch(g)
        logits = model(wav.to(torch.float16))
        log_probs = logits.float().log_softmax(-1).transpose(0, 1)
        loss = F.ctc_loss(log_probs, targets, frame_lens, target_lens, blank=0)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step} ctc loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
