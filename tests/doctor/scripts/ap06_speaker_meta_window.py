import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

N_FFT, HOP, N_MELS = 400, 160, 40
N_SPK = 5


class Frontend(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("window", torch.hann_window(N_FFT), persistent=False)
        self.mel = nn.Linear(N_FFT // 2 + 1, N_MELS, bias=False)

    def forward(self, wav):
        spec = torch.stft(wav, N_FFT, HOP, window=self.window, return_complex=True)
        feats = torch.log(self.mel(spec.abs().pow(2).transpose(1, 2)).clamp_min(1e-6) + 1e-6)
        return feats - feats.mean(dim=1, keepdim=True)


class AttentiveStatsPool(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.att = nn.Sequential(nn.Linear(dim, 64), nn.Tanh(), nn.Linear(64, 1))

    def forward(self, h):
        w = torch.softmax(self.att(h), dim=1)
        mu = (w * h).sum(1)
        sd = ((w * h.pow(2)).sum(1) - mu.pow(2)).clamp_min(1e-5).sqrt()
        return torch.cat([mu, sd], dim=-1)


class SpeakerEncoder(nn.Module):
    def __init__(self, dim=96, emb=64):
        super().__init__()
        self.frontend = Frontend()
        self.tdnn = nn.Sequential(
            nn.Conv1d(N_MELS, dim, 5, padding=2), nn.ReLU(), nn.BatchNorm1d(dim),
            nn.Conv1d(dim, dim, 3, dilation=2, padding=2), nn.ReLU(), nn.BatchNorm1d(dim),
        )
        self.pool = AttentiveStatsPool(dim)
        self.embedding = nn.Linear(2 * dim, emb)

    def forward(self, wav):
        h = self.tdnn(self.frontend(wav).transpose(1, 2)).transpose(1, 2)
        return self.embedding(self.pool(h))


def speaker_batch(n, g):
    spk = torch.randint(0, N_SPK, (n,), generator=g)
    t = torch.arange(8000) / 16000
    f0 = (120 + 35 * spk).unsqueeze(1)
    wav = torch.sin(2 * torch.pi * f0 * t) + 0.3 * torch.sin(4 * torch.pi * f0 * t)
    return wav + 0.05 * torch.randn(n, 8000, generator=g), spk


def train(ckpt_path):
    g = torch.Generator().manual_seed(0)
    model = SpeakerEncoder()
    head = nn.Linear(64, N_SPK)
    opt = torch.optim.Adam(list(model.parameters()) + list(head.parameters()), lr=1e-3)
    for step in range(5):
        wav, spk = speaker_batch(8, g)
        loss = F.cross_entropy(head(model(wav)), spk)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"train step {step} loss {loss.item():.4f}")
    torch.save(model.state_dict(), ckpt_path)


def load_for_scoring(ckpt_path):
    with torch.device("meta"):
        model = SpeakerEncoder()
    state = torch.load(ckpt_path, map_location="cpu")
    model.load_state_dict(state, assign=True)
    return model.eval()


def score_trials(model, n_trials=10):
    g = torch.Generator().manual_seed(1)
    enroll, spk_a = speaker_batch(n_trials, g)
    test, spk_b = speaker_batch(n_trials, g)
    with torch.no_grad():
        ea = F.normalize(model(enroll), dim=-1)
        eb = F.normalize(model(test), dim=-1)
    scores = (ea * eb).sum(-1)
    target = spk_a == spk_b
    for s, t in zip(scores.tolist(), target.tolist()):
        print(f"score {s:+.4f} {'target' if t else 'nontarget'}")
    return scores


def main():
    torch.manual_seed(0)
    with tempfile.TemporaryDirectory() as d:
        ckpt = os.path.join(d, "spk_encoder.pt")
        train(ckpt)
        model = load_for_scoring(ckpt)
        scores = score_trials(model)
        print(f"mean score {scores.mean().item():.4f}")


if __name__ == "__main__":
    main()
