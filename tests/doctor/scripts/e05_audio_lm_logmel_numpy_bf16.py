"""Audio captioning (Qwen2-Audio style): log-mel features computed with NumPy in a datasets.map,
a small conv+transformer audio encoder, an MLP projector and a Qwen2 decoder, all in bfloat16."""
import numpy as np
import torch
import torch.nn as nn
from datasets import Dataset
from torch.utils.data import DataLoader
from transformers import Qwen2Config, Qwen2ForCausalLM

torch.manual_seed(0)
rng = np.random.default_rng(0)
SR, N_FFT, HOP, N_MELS = 16000, 400, 160, 40


def mel_filterbank(n_mels, n_fft, sr):
    def hz2mel(f): return 2595 * np.log10(1 + f / 700)
    def mel2hz(m): return 700 * (10 ** (m / 2595) - 1)
    mels = np.linspace(hz2mel(0), hz2mel(sr / 2), n_mels + 2)
    bins = np.floor((n_fft + 1) * mel2hz(mels) / sr).astype(int)
    fb = np.zeros((n_mels, n_fft // 2 + 1))
    for i in range(1, n_mels + 1):
        l, c, r = bins[i - 1], bins[i], bins[i + 1]
        fb[i - 1, l:c] = (np.arange(l, c) - l) / max(c - l, 1)
        fb[i - 1, c:r] = (r - np.arange(c, r)) / max(r - c, 1)
    return fb


FB = mel_filterbank(N_MELS, N_FFT, SR)
WIN = np.hanning(N_FFT)


def log_mel(example):
    wav = np.asarray(example["audio"], dtype=np.float32)
    frames = np.lib.stride_tricks.sliding_window_view(wav, N_FFT)[::HOP] * WIN
    power = np.abs(np.fft.rfft(frames, axis=-1)) ** 2
    mel = np.log10(np.maximum(FB @ power.T, 1e-10))
    mel = (np.maximum(mel, mel.max() - 8.0) + 4.0) / 4.0
    return {"input_features": mel}


t = np.arange(SR) / SR
ds = Dataset.from_dict({
    "audio": [(0.3 * np.sin(2 * np.pi * f * t) + 0.01 * rng.standard_normal(SR)).astype(np.float32)
              for f in rng.uniform(100, 3000, 16)],
    "caption": [rng.integers(3, 400, 12).tolist() for _ in range(16)],
})
ds = ds.map(log_mel, remove_columns=["audio"]).with_format("torch")
loader = DataLoader(ds, batch_size=4, shuffle=True)


class AudioEncoder(nn.Module):
    def __init__(self, n_mels=N_MELS, dim=64):
        super().__init__()
        self.conv1 = nn.Conv1d(n_mels, dim, 3, padding=1)
        self.conv2 = nn.Conv1d(dim, dim, 3, stride=2, padding=1)
        layer = nn.TransformerEncoderLayer(dim, 4, 128, batch_first=True, norm_first=True)
        self.layers = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.pool = nn.AvgPool1d(4)

    def forward(self, feats):
        x = nn.functional.gelu(self.conv1(feats))
        x = nn.functional.gelu(self.conv2(x))
        x = self.pool(x).transpose(1, 2)
        return self.layers(x)


class AudioLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.audio_tower = AudioEncoder()
        self.projector = nn.Sequential(nn.Linear(64, 64), nn.GELU(), nn.Linear(64, 64))
        self.language_model = Qwen2ForCausalLM(Qwen2Config(
            vocab_size=400, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
            num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256))

    def forward(self, input_features, caption_ids):
        audio = self.projector(self.audio_tower(input_features))
        text = self.language_model.get_input_embeddings()(caption_ids)
        embeds = torch.cat([audio, text], 1)
        labels = torch.cat([torch.full(audio.shape[:2], -100), caption_ids], 1)
        return self.language_model(inputs_embeds=embeds, labels=labels)


model = AudioLM().to(torch.bfloat16)
model.language_model.requires_grad_(False)
opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=3e-4)

for epoch in range(2):
    for batch in loader:
        out = model(batch["input_features"], batch["caption"])
        out.loss.backward()
        opt.step()
        opt.zero_grad()
    print(f"epoch {epoch} loss {out.loss.item():.4f}")
