import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

SR, N_FFT, HOP, N_MELS, N_PHONES = 8000, 256, 64, 40, 12


def target_mel(wav):
    spec = torch.stft(wav, N_FFT, HOP, window=torch.hann_window(N_FFT), return_complex=True).abs()
    m = torch.linspace(0, 2595 * math.log10(1 + SR / 2 / 700), N_MELS + 2)
    hz = 700 * (10 ** (m / 2595) - 1)
    f = torch.linspace(0, SR / 2, N_FFT // 2 + 1)
    fb = torch.minimum((f - hz[:-2, None]) / (hz[1:-1, None] - hz[:-2, None]),
                       (hz[2:, None] - f) / (hz[2:, None] - hz[1:-1, None])).clamp(min=0)
    return torch.log(torch.clamp(fb @ spec, min=1e-5)).transpose(0, 1)


def make_pairs(n, gen):
    pairs = []
    for _ in range(n):
        phones = torch.randint(1, N_PHONES, (int(torch.randint(4, 9, (1,), generator=gen)),), generator=gen)
        durs = torch.randint(3, 8, phones.shape, generator=gen)
        pieces = []
        for p, d in zip(phones.tolist(), durs.tolist()):
            t = torch.arange(d * HOP) / SR
            pieces.append(0.3 * torch.sin(2 * math.pi * (150 + 60 * p) * t) + 0.1 * torch.sin(2 * math.pi * (450 + 120 * p) * t))
        mel = target_mel(torch.cat(pieces))[: int(durs.sum())]
        pairs.append((phones, durs, mel))
    return pairs


def collate(pairs):
    phones = nn.utils.rnn.pad_sequence([p for p, _, _ in pairs], batch_first=True)
    durs = nn.utils.rnn.pad_sequence([d for _, d, _ in pairs], batch_first=True)
    mels = nn.utils.rnn.pad_sequence([m for _, _, m in pairs], batch_first=True)
    mel_mask = torch.arange(mels.size(1))[None] < durs.sum(1, keepdim=True)
    return phones, durs, mels, mel_mask


class FastSpeechLite(nn.Module):
    def __init__(self, d=96):
        super().__init__()
        self.embed = nn.Embedding(N_PHONES, d, padding_idx=0)
        self.encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(d, 2, 2 * d, 0.1, batch_first=True), 2)
        self.dur_pred = nn.Sequential(nn.Conv1d(d, d, 3, padding=1), nn.ReLU(), nn.Conv1d(d, 1, 1))
        self.decoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(d, 2, 2 * d, 0.1, batch_first=True), 2)
        self.mel_out = nn.Linear(d, N_MELS)

    def forward(self, phones, durs, n_frames):
        h = self.encoder(self.embed(phones), src_key_padding_mask=phones == 0)
        log_dur = self.dur_pred(h.transpose(1, 2)).squeeze(1)
        expanded = [torch.repeat_interleave(h[b], durs[b], dim=0) for b in range(h.size(0))]
        x = nn.utils.rnn.pad_sequence(expanded, batch_first=True)
        x = F.pad(x, (0, 0, 0, n_frames - x.size(1)))
        return self.mel_out(self.decoder(x)), log_dur


def main():
    gen = torch.Generator().manual_seed(0)
    data = make_pairs(96, gen)
    model = FastSpeechLite().half()
    opt = torch.optim.AdamW(model.parameters(), lr=5e-4, eps=1e-4)
    scaler = torch.amp.GradScaler("cpu", init_scale=1024.0)
    for epoch in range(3):
        for i in range(0, len(data), 16):
            phones, durs, mels, mask = collate(data[i:i + 16])
            mel_pred, log_dur = model(phones, durs, mels.size(1))
            mel_loss = F.l1_loss(mel_pred.float()[mask], mels[mask])
            dur_loss = F.mse_loss(log_dur.float()[phones > 0], torch.log1p(durs[phones > 0].float()))
            loss = mel_loss + dur_loss
            opt.zero_grad(set_to_none=True)
            scaler.scale(loss).backward()
            scaler.unscale_(opt)
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            scaler.step(opt)
            scaler.update()
        print(f"epoch {epoch} mel l1 {mel_loss.item():.4f} dur mse {dur_loss.item():.4f}")


if __name__ == "__main__":
    main()
