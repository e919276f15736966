import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

SR, FRAME, HOP, N_BANDS, CHUNK = 8000, 200, 80, 24, 25


def frame_features(wav):
    frames = wav.unfold(-1, FRAME, HOP) * torch.hann_window(FRAME)
    power = torch.fft.rfft(frames).abs().pow(2)
    bands = power[..., 1:97].reshape(*power.shape[:-1], N_BANDS, 4).sum(-1)
    return torch.log(bands + 1e-8)


class StreamingVAD(nn.Module):
    def __init__(self, hidden=64, layers=2):
        super().__init__()
        self.layers, self.hidden = layers, hidden
        self.norm = nn.LayerNorm(N_BANDS)
        self.gru = nn.GRU(N_BANDS, hidden, num_layers=layers, batch_first=True)
        self.classifier = nn.Linear(hidden, 1)

    def init_state(self, batch_size):
        return torch.zeros(self.layers, batch_size, self.hidden)

    def forward(self, feats, state=None):
        out, state = self.gru(self.norm(feats), state)
        return self.classifier(out).squeeze(-1), state


def make_clips(n, gen, seconds=2):
    n_samp = SR * seconds
    t = torch.arange(n_samp) / SR
    wavs, labels = [], []
    for _ in range(n):
        noise = (0.02 + 0.05 * torch.rand(1, generator=gen)) * torch.randn(n_samp, generator=gen)
        active = torch.zeros(n_samp)
        for _ in range(int(torch.randint(1, 4, (1,), generator=gen))):
            start = int(torch.randint(0, n_samp - SR // 2, (1,), generator=gen))
            active[start:start + int(torch.randint(SR // 8, SR // 2, (1,), generator=gen))] = 1.0
        f0 = 100 + 150 * torch.rand(1, generator=gen)
        voice = sum(torch.sin(2 * math.pi * k * f0 * t) / k for k in range(1, 6)) * 0.3
        wav = noise + voice * active
        frame_lab = active.unfold(-1, FRAME, HOP).mean(-1) > 0.5
        wavs.append(wav)
        labels.append(frame_lab.float())
    return torch.stack(wavs), torch.stack(labels)


@torch.no_grad()
def streaming_eval(model, feats, labels):
    model.eval()
    state = model.init_state(feats.size(0))
    logits = []
    for start in range(0, feats.size(1), CHUNK):
        chunk_logits, state = model(feats[:, start:start + CHUNK], state)
        logits.append(chunk_logits.float())
    logits = torch.cat(logits, 1)
    pred = logits > 0
    tp = (pred & labels.bool()).sum().item()
    precision = tp / max(pred.sum().item(), 1)
    recall = tp / max(labels.sum().item(), 1)
    return F.binary_cross_entropy_with_logits(logits, labels).item(), 2 * precision * recall / (precision + recall + 1e-9)


def main():
    gen = torch.Generator().manual_seed(0)
    train_wav, train_lab = make_clips(96, gen)
    test_wav, test_lab = make_clips(24, gen)
    train_feats, test_feats = frame_features(train_wav), frame_features(test_wav)
    model = StreamingVAD()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    for epoch in range(4):
        model.train()
        for i in range(0, len(train_feats), 16):
            logits, _ = model(train_feats[i:i + 16])
            loss = F.binary_cross_entropy_with_logits(logits, train_lab[i:i + 16])
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {epoch} train bce {loss.item():.4f}")

    model = model.to(torch.bfloat16)
    bce, f1 = streaming_eval(model, test_feats.to(torch.bfloat16), test_lab)
    print(f"streaming bf16 eval: bce {bce:.4f} F1 {f1:.3f}")


if __name__ == "__main__":
    main()
