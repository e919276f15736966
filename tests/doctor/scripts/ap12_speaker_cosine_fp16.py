import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

N_MELS = 40
N_SPK = 8


def kaldi_style_fbank(n_utts, spk_ids, rng, frames=120):
    """Stand-in for Kaldi fbank features (log energies of int16-scale audio, roughly 8..18)."""
    base = rng.normal(12.0, 1.5, size=(N_SPK, N_MELS)).astype(np.float32)
    feats = np.empty((n_utts, frames, N_MELS), dtype=np.float32)
    for i, s in enumerate(spk_ids):
        feats[i] = base[s] + rng.normal(0.0, 1.0, size=(frames, N_MELS))
    return torch.from_numpy(feats)


class XVector(nn.Module):
    def __init__(self, d=256, emb=256):
        super().__init__()
        self.tdnn = nn.Sequential(
            nn.Conv1d(N_MELS, d, 5, padding=2), nn.ReLU(),
            nn.Conv1d(d, d, 3, dilation=2, padding=2), nn.ReLU(),
            nn.Conv1d(d, d, 1), nn.ReLU(),
        )
        self.segment6 = nn.Linear(2 * d, emb)

    def forward(self, feats):
        h = self.tdnn(feats.transpose(1, 2))
        stats = torch.cat([h.mean(-1), h.std(-1)], dim=-1)
        return self.segment6(stats)


def embed_recording(model, feats, win=120, hop=20):
    windows = feats.unfold(0, win, hop).permute(0, 2, 1)
    return model(windows).sum(0)


def cosine_score(a, b):
    return (a * b).sum(-1) / (a.norm(dim=-1) * b.norm(dim=-1))


def compute_eer(scores, labels):
    order = np.argsort(-scores)
    labels = labels[order]
    tp = np.cumsum(labels) / max(labels.sum(), 1)
    fp = np.cumsum(1 - labels) / max((1 - labels).sum(), 1)
    fnr = 1 - tp
    idx = np.nanargmin(np.abs(fnr - fp))
    return (fnr[idx] + fp[idx]) / 2


def main():
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    spk = rng.integers(0, N_SPK, size=64)
    feats = kaldi_style_fbank(64, spk, rng)
    labels = torch.from_numpy(spk).long()

    model = XVector()
    classifier = nn.Linear(256, N_SPK)
    opt = torch.optim.Adam(list(model.parameters()) + list(classifier.parameters()), lr=1e-4)
    for epoch in range(3):
        for i in range(0, 64, 16):
            logits = classifier(F.relu(model(feats[i:i + 16])))
            loss = F.cross_entropy(logits, labels[i:i + 16])
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {epoch} loss {loss.item():.4f}")

    model = model.eval()
    enroll_spk = np.arange(N_SPK).repeat(2)
    test_spk = rng.integers(0, N_SPK, size=enroll_spk.size)
    enroll = kaldi_style_fbank(enroll_spk.size, enroll_spk, rng, frames=1200)
    test = kaldi_style_fbank(test_spk.size, test_spk, rng, frames=1200)
    with torch.no_grad(), tempfile.TemporaryDirectory() as d:
        bank = {
            "enroll": torch.stack([embed_recording(model, f) for f in enroll]).half(),
            "test": torch.stack([embed_recording(model, f) for f in test]).half(),
        }
        torch.save(bank, os.path.join(d, "embeddings.pt"))
        bank = torch.load(os.path.join(d, "embeddings.pt"))
        e_emb, t_emb = bank["enroll"], bank["test"]
        scores = cosine_score(e_emb, t_emb).float().numpy()
    trial_labels = (enroll_spk == test_spk).astype(np.float64)
    print(f"embedding norm (mean) {e_emb.float().norm(dim=-1).mean().item():.1f}")
    print(f"mean target score {scores[trial_labels == 1].mean() if trial_labels.any() else float('nan'):.4f}")
    print(f"mean nontarget score {scores[trial_labels == 0].mean():.4f}")
    print(f"EER {compute_eer(scores, trial_labels):.4f}")


if __name__ == "__main__":
    main()
