import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint
from torch.utils.data import Dataset, DataLoader

torch.manual_seed(0)
rng = np.random.default_rng(11)
N_SPK, N_MELS = 12, 24
SPK_TIMBRE = rng.normal(0, 2.0, size=(N_SPK, N_MELS))


def synth_logmel(spk, n_frames):
    """Log-mel frames: a speaker timbre times a voiced/silent envelope, with VAD-trimmed silence."""
    voiced = rng.random(n_frames) < 0.7
    if rng.random() < 0.03:
        voiced[:] = False
    frames = np.full((n_frames, N_MELS), -11.5)
    frames[voiced] = SPK_TIMBRE[spk] + rng.normal(0, 0.6, size=(voiced.sum(), N_MELS))
    return frames - frames.mean(0, keepdims=True)


class Utterances(Dataset):
    def __init__(self, n):
        self.spk = rng.integers(0, N_SPK, n)
        self.feats = [synth_logmel(s, rng.integers(40, 120)) for s in self.spk]

    def __len__(self):
        return len(self.spk)

    def __getitem__(self, i):
        return torch.from_numpy(self.feats[i]).float(), int(self.spk[i])


def collate(batch):
    feats, spk = zip(*batch)
    lengths = torch.tensor([f.shape[0] for f in feats])
    x = torch.zeros(len(feats), N_MELS, int(lengths.max()))
    for i, f in enumerate(feats):
        x[i, :, :f.shape[0]] = f.t()
    return x, lengths, torch.tensor(spk)


class TDNNBlock(nn.Module):
    def __init__(self, cin, cout, k, d):
        super().__init__()
        self.conv = nn.Conv1d(cin, cout, k, dilation=d, padding=d * (k - 1) // 2, bias=False)

    def forward(self, x):
        return F.gelu(self.conv(x))


class StatsPool(nn.Module):
    def __init__(self, eps=1e-10):
        super().__init__()
        self.eps = eps

    def forward(self, h, lengths):
        mask = (torch.arange(h.shape[-1])[None] < lengths[:, None]).to(h.dtype).unsqueeze(1)
        n = mask.sum(-1)
        mean = (h * mask).sum(-1) / n
        var = (((h - mean.unsqueeze(-1)) * mask) ** 2).sum(-1) / n
        return torch.cat([mean, torch.sqrt(var + self.eps)], dim=-1)


class XVector(nn.Module):
    def __init__(self, dim=64):
        super().__init__()
        self.frame_layers = nn.Sequential(TDNNBlock(N_MELS, dim, 5, 1), TDNNBlock(dim, dim, 3, 2),
                                          TDNNBlock(dim, dim, 3, 3))
        self.pool = StatsPool()
        self.embedding = nn.Linear(2 * dim, dim)
        self.classifier = nn.Linear(dim, N_SPK)

    def forward(self, x, lengths):
        h = checkpoint(self.frame_layers, x, use_reentrant=False)
        return self.classifier(F.relu(self.embedding(self.pool(h, lengths))))


train_dl = DataLoader(Utterances(480), batch_size=32, shuffle=True, collate_fn=collate)
model = XVector()
opt = torch.optim.Adam(model.parameters(), lr=3e-3)

for epoch in range(3):
    losses, correct, seen = [], 0, 0
    for x, lengths, spk in train_dl:
        with torch.autocast("cpu", dtype=torch.float16):
            logits = model(x, lengths)
        loss = F.cross_entropy(logits.float(), spk)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        correct += (logits.argmax(1) == spk).sum().item()
        seen += len(spk)
    print(f"epoch {epoch} loss {np.mean(losses):.4f} train_acc {correct / seen:.3f}")
