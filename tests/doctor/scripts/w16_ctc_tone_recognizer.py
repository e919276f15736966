import math
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

torch.manual_seed(0)
SR, N_FFT, HOP = 8000, 256, 128
TONES = [0.0, 400.0, 650.0, 900.0, 1300.0, 1800.0]


def synth_utterance():
    n_sym = torch.randint(2, 6, (1,)).item()
    labels = torch.randint(1, len(TONES), (n_sym,))
    chunks = []
    for lab in labels.tolist():
        dur = int(SR * (0.08 + 0.06 * torch.rand(1).item()))
        t = torch.arange(dur) / SR
        chunks.append(torch.sin(2 * math.pi * TONES[lab] * t) * torch.hann_window(dur))
        chunks.append(torch.zeros(int(SR * 0.03)))
    wav = torch.cat(chunks)
    return wav + 0.02 * torch.randn_like(wav), labels


def collate(batch):
    wavs, labels = zip(*batch)
    wav_lens = torch.tensor([w.numel() for w in wavs], dtype=torch.long)
    padded = torch.zeros(len(wavs), int(wav_lens.max()))
    for i, w in enumerate(wavs):
        padded[i, : w.numel()] = w
    targets = torch.cat(labels)
    target_lens = torch.tensor([l.numel() for l in labels], dtype=torch.long)
    return padded, wav_lens, targets, target_lens


class LogSpec(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("window", torch.hann_window(N_FFT))

    def forward(self, wav, lens):
        with torch.autocast("cpu", enabled=False):
            spec = torch.stft(wav.float(), N_FFT, HOP, window=self.window, return_complex=True)
            feats = torch.log(spec.abs().pow(2) + 1e-6)
            feats = (feats - feats.mean(dim=(1, 2), keepdim=True)) / (feats.std(dim=(1, 2), keepdim=True) + 1e-5)
        return feats, lens // HOP + 1


class CTCModel(nn.Module):
    def __init__(self, n_classes=len(TONES), hidden=96):
        super().__init__()
        self.frontend = LogSpec()
        self.proj = nn.Conv1d(N_FFT // 2 + 1, hidden, 3, padding=1)
        self.rnn = nn.GRU(hidden, hidden, batch_first=True, bidirectional=True)
        self.out = nn.Linear(2 * hidden, n_classes)

    def forward(self, wav, lens):
        feats, frame_lens = self.frontend(wav, lens)
        h = F.relu(self.proj(feats)).transpose(1, 2)
        h, _ = self.rnn(h)
        return self.out(h), frame_lens


def main():
    data = [synth_utterance() for _ in range(256)]
    loader = DataLoader(data, batch_size=16, shuffle=True, collate_fn=collate)
    model = CTCModel()
    opt = torch.optim.Adam(model.parameters(), lr=4e-3)
    accum = 2
    for epoch in range(8):
        for step, (wav, lens, targets, tlens) in enumerate(loader):
            with torch.autocast("cpu", dtype=torch.bfloat16):
                logits, frame_lens = model(wav, lens)
            log_probs = F.log_softmax(logits.float(), dim=-1).transpose(0, 1)
            loss = F.ctc_loss(log_probs, targets, frame_lens, tlens, blank=0, zero_infinity=True)
            (loss / accum).backward()
            if (step + 1) % accum == 0:
                nn.utils.clip_grad_norm_(model.parameters(), 5.0)
                opt.step()
                opt.zero_grad(set_to_none=True)
        print(f"epoch {epoch} ctc loss {loss.item():.4f}")
    wav, lens, targets, tlens = collate(data[:32])
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        logits, frame_lens = model(wav, lens)
    eval_loss = F.ctc_loss(F.log_softmax(logits.float(), -1).transpose(0, 1), targets, frame_lens, tlens, zero_infinity=True)
    print("eval ctc loss", eval_loss.item())


if __name__ == "__main__":
    main()
