import io
import wave

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

SRC_SR = 8000
MODEL_SR = 16000
N_SPEAKERS = 4


def synth_wav_bytes(f0, seconds, rng):
    t = np.arange(int(SRC_SR * seconds)) / SRC_SR
    sig = 0.3 * np.sin(2 * np.pi * f0 * t) * (1 + 0.5 * np.sin(2 * np.pi * 3 * t))
    sig += 0.02 * rng.standard_normal(t.shape)
    pcm = (np.clip(sig, -1, 1) * 32767).astype("<i2")
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(SRC_SR)
        w.writeframes(pcm.tobytes())
    return buf.getvalue()


class TelephoneSpeakers(Dataset):
    def __init__(self, n=32):
        rng = np.random.default_rng(3)
        self.blobs, self.labels = [], []
        for i in range(n):
            spk = i % N_SPEAKERS
            self.blobs.append(synth_wav_bytes(110 + 45 * spk + rng.uniform(-5, 5), 0.5, rng))
            self.labels.append(spk)

    def __len__(self):
        return len(self.blobs)

    def __getitem__(self, i):
        with wave.open(io.BytesIO(self.blobs[i]), "rb") as w:
            frames = w.readframes(w.getnframes())
        pcm = np.frombuffer(frames, dtype=np.int16).copy()
        return torch.from_numpy(pcm), self.labels[i]


class Resample(nn.Module):
    def __init__(self, src, dst):
        super().__init__()
        self.factor = dst / src

    def forward(self, wav):
        return F.interpolate(wav.unsqueeze(1), scale_factor=self.factor, mode="linear",
                             align_corners=False).squeeze(1)


class SpeakerNet(nn.Module):
    def __init__(self, emb_dim=64):
        super().__init__()
        self.resample = Resample(SRC_SR, MODEL_SR)
        self.encoder = nn.Sequential(
            nn.Conv1d(1, 32, 80, stride=16), nn.ReLU(),
            nn.Conv1d(32, 64, 5, stride=2), nn.ReLU(),
            nn.Conv1d(64, 64, 3, stride=2), nn.ReLU(),
        )
        self.embed = nn.Linear(128, emb_dim)
        self.classifier = nn.Linear(emb_dim, N_SPEAKERS)

    def forward(self, pcm):
        wav = self.resample(pcm)
        wav = wav.float() / 32768.0
        h = self.encoder(wav.unsqueeze(1))
        stats = torch.cat([h.mean(-1), h.std(-1)], dim=-1)
        emb = self.embed(stats)
        return self.classifier(F.relu(emb)), emb


def main():
    torch.manual_seed(0)
    loader = DataLoader(TelephoneSpeakers(), batch_size=8, shuffle=True)
    model = SpeakerNet()
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    for epoch in range(4):
        losses = []
        for pcm, spk in loader:
            logits, _ = model(pcm)
            loss = F.cross_entropy(logits, spk)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        print(f"epoch {epoch} loss {np.mean(losses):.4f}")


if __name__ == "__main__":
    main()
