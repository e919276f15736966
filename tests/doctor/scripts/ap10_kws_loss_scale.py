import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

N_MELS = 40
N_FRAMES = 50
KEYWORDS = ["yes", "no", "up", "down", "left", "right", "_silence_"]


def synth_features(n, rng):
    feats = rng.normal(0.0, 1.0, size=(n, N_MELS, N_FRAMES)).astype(np.float32)
    labels = rng.integers(0, len(KEYWORDS), size=n)
    for i, lab in enumerate(labels):
        band = slice(4 * lab, 4 * lab + 6)
        feats[i, band, 10:40] += 2.0
    return torch.from_numpy(feats), torch.from_numpy(labels).long()


class SpecAugment(nn.Module):
    def __init__(self, f=6, t=8):
        super().__init__()
        self.f, self.t = f, t

    def forward(self, x):
        if not self.training:
            return x
        x = x.clone()
        for b in range(x.shape[0]):
            f0 = np.random.randint(0, N_MELS - self.f)
            t0 = np.random.randint(0, N_FRAMES - self.t)
            x[b, f0:f0 + self.f] = 0
            x[b, :, t0:t0 + self.t] = 0
        return x


class TDNN(nn.Module):
    def __init__(self, d=128):
        super().__init__()
        self.augment = SpecAugment()
        self.frames = nn.Sequential(
            nn.Conv1d(N_MELS, d, 5, padding=2), nn.ReLU(), nn.BatchNorm1d(d),
            nn.Conv1d(d, d, 3, dilation=2, padding=2), nn.ReLU(), nn.BatchNorm1d(d),
            nn.Conv1d(d, d, 3, dilation=3, padding=3), nn.ReLU(), nn.BatchNorm1d(d),
        )
        self.segment = nn.Linear(2 * d, d)
        self.out = nn.Linear(d, len(KEYWORDS))

    def forward(self, x):
        h = self.frames(self.augment(x))
        stats = torch.cat([h.mean(-1), h.std(-1)], dim=-1)
        return self.out(F.relu(self.segment(stats)))


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    rng = np.random.default_rng(0)
    feats, labels = synth_features(96, rng)

    model = TDNN().half()
    master = [p.detach().clone().float().requires_grad_(True) for p in model.parameters()]
    opt = torch.optim.SGD(master, lr=0.05, momentum=0.9)
    loss_scale = 2.0 ** 16

    for epoch in range(3):
        perm = torch.randperm(len(feats))
        for step in range(0, len(feats), 16):
            idx = perm[step:step + 16]
            x, y = feats[idx].half(), labels[idx]
            logits = model(x)
            loss = F.cross_entropy(logits, y)
            model.zero_grad(set_to_none=True)
            (loss * loss_scale).backward()
            for m, p in zip(master, model.parameters()):
                m.grad = p.grad.float() / loss_scale
            opt.step()
            with torch.no_grad():
                for m, p in zip(master, model.parameters()):
                    p.copy_(m)
            if step % 32 == 0:
                print(f"epoch {epoch} step {step // 16} loss {loss.item():.4f}")

    model.eval()
    with torch.no_grad():
        acc = (model(feats.half()).argmax(-1) == labels).float().mean().item()
    print(f"train accuracy {acc:.3f}")


if __name__ == "__main__":
    main()
