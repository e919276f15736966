import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

SR = 16000
FRAME = 160


class FrameVAD(nn.Module):
    def __init__(self, ch=32):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv1d(1, ch, FRAME, stride=FRAME), nn.ReLU(),
            nn.Conv1d(ch, ch, 5, padding=2), nn.ReLU(),
            nn.Conv1d(ch, ch, 5, padding=2), nn.ReLU(),
        )
        self.classifier = nn.Conv1d(ch, 1, 1)

    def forward(self, wav):
        h = self.encoder(wav.unsqueeze(1))
        return self.classifier(h).squeeze(1)


def synth_batch(rng, batch=8, seconds=1.0):
    n = int(SR * seconds)
    wav = 0.01 * rng.standard_normal((batch, n))
    labels = np.zeros((batch, n // FRAME))
    t = np.arange(n) / SR
    for b in range(batch):
        start = rng.integers(0, n // 2)
        stop = start + rng.integers(n // 8, n // 2)
        f0 = rng.uniform(100, 250)
        speech = 0.3 * np.sin(2 * np.pi * f0 * t) * (1 + 0.3 * np.sin(2 * np.pi * 4 * t))
        wav[b, start:stop] += speech[start:stop]
        labels[b, start // FRAME: stop // FRAME] = 1
    return torch.from_numpy(wav).float(), torch.from_numpy(labels).float()


def main():
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    model = FrameVAD()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    for step in range(30):
        wav, labels = synth_batch(rng)
        loss = F.binary_cross_entropy_with_logits(model(wav), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 0:
            print(f"step {step} bce {loss.item():.4f}")

    model.eval()
    wav, labels = synth_batch(rng, batch=4)
    with torch.no_grad():
        acc = ((model(wav) > 0).float() == labels).float().mean().item()
    print(f"frame accuracy {acc:.3f}")

    t = np.arange(SR) / SR
    example = 0.3 * np.sin(2 * np.pi * 180 * t) + 0.01 * rng.standard_normal(SR)
    example = torch.from_numpy(example).unsqueeze(0)
    with tempfile.TemporaryDirectory() as d:
        exported = torch.export.export(model, (example,))
        path = os.path.join(d, "vad.pt2")
        torch.export.save(exported, path)
        reloaded = torch.export.load(path).module()
        probs = torch.sigmoid(reloaded(example))
        print(f"exported model speech ratio {(probs > 0.5).float().mean().item():.3f}")


if __name__ == "__main__":
    main()
