"""Zero-shot audio classification with a CLAP-style dual encoder in fp16.

The audio tower has an export-friendly log-mel frontend (DFT and mel matrices as buffers, no stft),
followed by a Whisper encoder; the text tower is a CLIP text encoder. Clips are read from 16-bit wav
files."""
import math
import os
import tempfile
import wave

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from transformers import CLIPTextConfig, CLIPTextModelWithProjection, WhisperConfig
from transformers.models.whisper.modeling_whisper import WhisperEncoder

torch.manual_seed(0)
rng = np.random.default_rng(0)
SR, N_FFT, HOP, N_MELS, N_FRAMES = 16000, 400, 160, 40, 100


class LogMelFrontend(nn.Module):
    def __init__(self):
        super().__init__()
        n = torch.arange(N_FFT, dtype=torch.float32)
        k = torch.arange(N_FFT // 2 + 1, dtype=torch.float32)
        ang = 2 * math.pi * n[:, None] * k[None, :] / N_FFT
        self.register_buffer("window", torch.hann_window(N_FFT, periodic=True))
        self.register_buffer("cos_basis", torch.cos(ang))
        self.register_buffer("sin_basis", -torch.sin(ang))
        mel = torch.linspace(0, 2595 * math.log10(1 + SR / 2 / 700), N_MELS + 2)
        hz = 700 * (10 ** (mel / 2595) - 1)
        freqs = torch.linspace(0, SR / 2, N_FFT // 2 + 1)
        lower = (freqs[None, :] - hz[:-2, None]) / (hz[1:-1, None] - hz[:-2, None])
        upper = (hz[2:, None] - freqs[None, :]) / (hz[2:, None] - hz[1:-1, None])
        self.register_buffer("mel_fb", torch.clamp(torch.minimum(lower, upper), min=0).t().contiguous())

    def forward(self, wav):
        wav = F.pad(wav, (N_FFT // 2, N_FFT // 2), mode="reflect")
        frames = wav.unfold(-1, N_FFT, HOP)[:, :N_FRAMES] * self.window
        power = (frames @ self.cos_basis) ** 2 + (frames @ self.sin_basis) ** 2
        log_spec = torch.clamp(power @ self.mel_fb, min=1e-10).log10()
        log_spec = torch.maximum(log_spec, log_spec.amax(dim=(1, 2), keepdim=True) - 8.0)
        return ((log_spec + 4.0) / 4.0).transpose(1, 2)          # (b, mels, frames)


class AudioTower(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.frontend = LogMelFrontend()
        self.encoder = WhisperEncoder(WhisperConfig(num_mel_bins=N_MELS, d_model=64, encoder_layers=2,
                                                    encoder_attention_heads=4, encoder_ffn_dim=128,
                                                    max_source_positions=N_FRAMES // 2))
        self.proj = nn.Linear(64, dim, bias=False)

    def forward(self, wav):
        h = self.encoder(self.frontend(wav)).last_hidden_state
        return self.proj(h.mean(dim=1))


audio_tower = AudioTower().half().eval()
text_tower = CLIPTextModelWithProjection(CLIPTextConfig(
    vocab_size=300, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
    max_position_embeddings=16, projection_dim=32, pad_token_id=0, bos_token_id=1, eos_token_id=2)).half().eval()

# write a few test clips as 16-bit PCM wav files
tmp = tempfile.TemporaryDirectory()
paths, labels = [], []
for i in range(6):
    label = i % 3
    t = np.arange(SR) / SR
    sig = 0.3 * np.sin(2 * np.pi * (220 * (label + 1)) * t) + 0.02 * rng.standard_normal(SR)
    path = os.path.join(tmp.name, f"clip{i}.wav")
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(SR)
        w.writeframes((sig * 32767).astype(np.int16).tobytes())
    paths.append(path)
    labels.append(label)


def read_wav(path):
    with wave.open(path, "rb") as w:
        pcm = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16)
    return torch.from_numpy(pcm.copy())


class_prompts = torch.randint(3, 300, (3, 8))  # "the sound of a {low,mid,high} tone"
with torch.no_grad():
    text_emb = F.normalize(text_tower(input_ids=class_prompts).text_embeds, dim=-1)
    wavs = torch.stack([read_wav(p) for p in paths]).to(torch.float16)
    audio_emb = F.normalize(audio_tower(wavs), dim=-1)
    scores = 100.0 * audio_emb @ text_emb.t()
    pred = scores.argmax(dim=-1)
print("scores", scores[0].tolist())
print("accuracy", (pred == torch.tensor(labels)).float().mean().item())
