import math
import os
import tempfile
import wave

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)

SR, N_FFT, HOP, N_MELS = 16000, 480, 160, 40
WORDS = ["on", "off", "stop", "go"]


def write_corpus(root, n_per_word, rng):
    t = np.arange(SR) / SR
    for w, word in enumerate(WORDS):
        for k in range(n_per_word):
            f0 = 180 + 120 * w + rng.normal(0, 8)
            env = np.exp(-((t - rng.uniform(0.3, 0.7)) ** 2) / 0.02)
            sig = env * (np.sin(2 * math.pi * f0 * t) + 0.5 * np.sin(2 * math.pi * (2 + w % 2) * f0 * t))
            pcm = np.clip(0.4 * sig + 0.01 * rng.standard_normal(SR), -1, 1) * 32767
            with wave.open(os.path.join(root, f"{word}_{k:03d}.wav"), "wb") as f:
                f.setnchannels(1)
                f.setsampwidth(2)
                f.setframerate(SR)
                f.writeframes(pcm.astype(np.int16).tobytes())


class KeywordFolder(Dataset):
    def __init__(self, root, files):
        self.root, self.files = root, files

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        with wave.open(os.path.join(self.root, self.files[i]), "rb") as f:
            pcm = np.frombuffer(f.readframes(f.getnframes()), dtype=np.int16).copy()
        return torch.from_numpy(pcm), WORDS.index(self.files[i].split("_")[0])


class DSCNN(nn.Module):
    def __init__(self, ch=64, n_classes=len(WORDS)):
        super().__init__()
        m = torch.linspace(0, 2595 * math.log10(1 + SR / 2 / 700), N_MELS + 2)
        hz = 700 * (10 ** (m / 2595) - 1)
        f = torch.linspace(0, SR / 2, N_FFT // 2 + 1)
        fb = torch.minimum((f - hz[:-2, None]) / (hz[1:-1, None] - hz[:-2, None]),
                           (hz[2:, None] - f) / (hz[2:, None] - hz[1:-1, None])).clamp(min=0)
        self.register_buffer("fb", fb)
        self.register_buffer("window", torch.hann_window(N_FFT))
        self.stem = nn.Sequential(nn.Conv2d(1, ch, (10, 4), stride=2, padding=(5, 1)), nn.BatchNorm2d(ch), nn.ReLU())
        blocks = []
        for _ in range(3):
            blocks += [nn.Conv2d(ch, ch, 3, padding=1, groups=ch), nn.BatchNorm2d(ch), nn.ReLU(),
                       nn.Conv2d(ch, ch, 1), nn.BatchNorm2d(ch), nn.ReLU()]
        self.blocks = nn.Sequential(*blocks)
        self.fc = nn.Linear(ch, n_classes)

    def forward(self, wav):
        spec = torch.stft(wav, N_FFT, HOP, window=self.window, return_complex=True).abs().pow(2)
        x = torch.log(self.fb @ spec + 1e-6).unsqueeze(1)
        x = self.blocks(self.stem(x))
        return self.fc(x.mean((2, 3)))


def main():
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as root:
        write_corpus(root, 40, rng)
        files = sorted(os.listdir(root))
        rng.shuffle(files)
        train_dl = DataLoader(KeywordFolder(root, files[:128]), batch_size=16, shuffle=True)
        test_dl = DataLoader(KeywordFolder(root, files[128:]), batch_size=32)
        model = DSCNN()
        opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
        for epoch in range(3):
            model.train()
            for wav, label in train_dl:
                loss = F.cross_entropy(model(wav), label)
                opt.zero_grad()
                loss.backward()
                opt.step()
            model.eval()
            correct = 0
            with torch.no_grad():
                for wav, label in test_dl:
                    correct += (model(wav).argmax(-1) == label).sum().item()
            print(f"epoch {epoch} loss {loss.item():.4f} test acc {correct / len(test_dl.dataset):.3f}")


if __name__ == "__main__":
    main()
