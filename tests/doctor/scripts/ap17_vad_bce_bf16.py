import math

import torch
import torch.nn as nn

SR, HOP, N_FFT, N_MELS = 16000, 160, 400, 32


class LogMel(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("window", torch.hann_window(N_FFT))
        fb = torch.zeros(N_MELS, N_FFT // 2 + 1)
        edges = torch.linspace(0, N_FFT // 2, N_MELS + 2).long()
        for m in range(N_MELS):
            fb[m, edges[m]:edges[m + 2] + 1] = 1.0
        self.register_buffer("fb", fb / fb.sum(-1, keepdim=True))

    def forward(self, wav):
        with torch.autocast("cpu", enabled=False):
            spec = torch.stft(wav, N_FFT, HOP, window=self.window, return_complex=True)
            return torch.log(self.fb @ spec.abs().pow(2) + 1e-6)


class VADNet(nn.Module):
    def __init__(self, ch=64):
        super().__init__()
        self.frontend = LogMel()
        self.body = nn.Sequential(
            nn.Conv1d(N_MELS, ch, 3, padding=1), nn.ReLU(),
            nn.Conv1d(ch, ch, 3, padding=1), nn.ReLU(),
        )
        self.head = nn.Conv1d(ch, 1, 1)

    def forward(self, wav):
        return self.head(self.body(self.frontend(wav))).squeeze(1)


def frame_bce(logits, target, eps=1e-6):
    p = torch.sigmoid(logits).clamp(eps, 1 - eps)
    return -(target * torch.log(p) + (1 - target) * torch.log(1 - p)).mean()


def make_batch(g, B=8, n=16000):
    wav = 0.005 * torch.randn(B, n, generator=g)
    labels = torch.zeros(B, n // HOP + 1)
    t = torch.arange(n) / SR
    for b in range(B):
        s = int(torch.randint(0, n // 2, (1,), generator=g))
        e = s + int(torch.randint(n // 8, n // 2, (1,), generator=g))
        f0 = 100 + 150 * torch.rand(1, generator=g).item()
        voiced = 0.5 * torch.sin(2 * math.pi * f0 * t) + 0.2 * torch.sin(2 * math.pi * 3 * f0 * t)
        wav[b, s:e] += voiced[s:e]
        labels[b, s // HOP:e // HOP + 1] = 1.0
    return wav, labels


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    model = VADNet()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    for step in range(40):
        wav, labels = make_batch(g)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits = model(wav)
            loss = frame_bce(logits, labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 5 == 0 or step == 39:
            print(f"step {step} vad bce {loss.item():.4f}")

    model.eval()
    wav, labels = make_batch(g)
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        pred = model(wav) > 0
    print(f"frame accuracy {(pred.float() == labels).float().mean().item():.3f}")


if __name__ == "__main__":
    main()
