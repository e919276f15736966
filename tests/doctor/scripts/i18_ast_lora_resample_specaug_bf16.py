"""Environmental-sound classification with a tiny Audio Spectrogram Transformer (AST) in
bf16 and LoRA adapters (peft).  Audio arrives at 44.1 kHz as NumPy arrays, is resampled to
16 kHz with a windowed-sinc polyphase filter, augmented (gain in dB, mixup), turned into
log-mel fbanks and SpecAugment-masked."""
import math
from fractions import Fraction

import numpy as np
import torch
import torch.nn.functional as F
from peft import LoraConfig, get_peft_model
from transformers import ASTConfig, ASTForAudioClassification

torch.manual_seed(0)
rng = np.random.default_rng(0)
SR_IN, SR = 44100, 16000
N_FFT, HOP, N_MELS, MAX_FRAMES = 400, 160, 64, 100
CLASSES = ["dog", "siren", "engine", "birds"]


# ---------------------------------- resampling ----------------------------------------
def sinc_resample_kernel(orig, new, zeros=8, rolloff=0.95):
    g = math.gcd(orig, new)
    orig, new = orig // g, new // g
    base = min(orig, new) * rolloff
    width = math.ceil(zeros * orig / base)
    idx = np.arange(-width, width + orig, dtype=np.float64)[None] / orig
    t = np.arange(0, -new, -1, dtype=np.float64)[:, None] / new + idx
    t = np.clip(t * base, -zeros, zeros)
    window = np.cos(t * np.pi / zeros / 2) ** 2
    kernel = np.sinc(t) * window * base / orig
    return torch.from_numpy(kernel).float().unsqueeze(1), width, orig, new  # fp32 kernel


KERNEL, WIDTH, ORIG, NEW = sinc_resample_kernel(SR_IN, SR)


def resample(wav):  # (B, N) float32
    n = wav.shape[-1]
    x = F.pad(wav.unsqueeze(1), (WIDTH, WIDTH + ORIG))
    y = F.conv1d(x, KERNEL.to(wav.dtype), stride=ORIG)  # (B, NEW, frames)
    y = y.transpose(1, 2).reshape(wav.shape[0], -1)
    return y[..., : math.ceil(NEW * n / ORIG)]


# ---------------------------------- data ------------------------------------------------
def clip(cls, sec=1.0):
    n = int(SR_IN * sec)
    t = np.arange(n) / SR_IN
    if cls == 0:   # barks
        x = np.sin(2 * np.pi * 600 * t) * (np.sin(2 * np.pi * 3 * t) > 0.7)
    elif cls == 1:  # siren sweep
        x = np.sin(2 * np.pi * (700 * t + 300 * np.sin(2 * np.pi * 0.8 * t) / (2 * np.pi * 0.8)))
    elif cls == 2:  # engine hum
        x = sum(np.sin(2 * np.pi * k * 55 * t) / k for k in range(1, 10))
    else:           # chirps
        x = np.sin(2 * np.pi * (3000 + 2000 * (t * 8 % 1)) * t) * ((t * 8 % 1) < 0.3)
    return (0.3 * x / (np.abs(x).max() + 1e-9) + 0.01 * rng.standard_normal(n)).astype(np.float32)


def fbank_bank():
    hz2mel = lambda f: 2595 * math.log10(1 + f / 700)
    m = torch.linspace(hz2mel(20), hz2mel(SR / 2), N_MELS + 2)
    hz = 700 * (10 ** (m / 2595) - 1)
    f = torch.linspace(0, SR / 2, N_FFT // 2 + 1)
    return torch.clamp(torch.minimum((f - hz[:-2, None]) / (hz[1:-1, None] - hz[:-2, None]),
                                     (hz[2:, None] - f) / (hz[2:, None] - hz[1:-1, None])), min=0)


FB, WIN = fbank_bank(), torch.hann_window(N_FFT)


def fbank(wav16):  # fp32 in, fp32 out: (B, frames, mels)
    spec = torch.stft(wav16, N_FFT, HOP, window=WIN, return_complex=True)
    lm = torch.log(FB @ spec.abs().pow(2) + 1e-6).transpose(1, 2)[:, :MAX_FRAMES]
    return (lm + 4.0) / 4.0


def spec_augment(x, F_max=8, T_max=10):
    B, T, Fm = x.shape
    f0 = torch.randint(0, Fm - F_max, (B, 1, 1))
    fw = torch.randint(0, F_max + 1, (B, 1, 1))
    t0 = torch.randint(0, T - T_max, (B, 1, 1))
    tw = torch.randint(0, T_max + 1, (B, 1, 1))
    fr, tr = torch.arange(Fm)[None, None], torch.arange(T)[None, :, None]
    mask = ((fr >= f0) & (fr < f0 + fw)) | ((tr >= t0) & (tr < t0 + tw))
    return x.masked_fill(mask, 0.0)


def make_batch(bs, train=True):
    y = rng.integers(0, len(CLASSES), size=bs)
    wav = torch.from_numpy(np.stack([clip(int(c)) for c in y]))
    if train:
        gain_db = torch.empty(bs, 1).uniform_(-6, 6)
        wav = (wav * 10 ** (gain_db / 20)).clamp(-1, 1)
    feats = fbank(resample(wav))
    target = F.one_hot(torch.from_numpy(y), len(CLASSES)).float()
    if train:
        lam = float(rng.beta(0.4, 0.4))
        perm = torch.randperm(bs)
        feats = lam * feats + (1 - lam) * feats[perm]
        target = lam * target + (1 - lam) * target[perm]
        feats = spec_augment(feats)
    return feats, target, torch.from_numpy(y)


# ---------------------------------- model -----------------------------------------------
config = ASTConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
                   patch_size=16, frequency_stride=12, time_stride=12, max_length=MAX_FRAMES,
                   num_mel_bins=N_MELS, num_labels=len(CLASSES))
base = ASTForAudioClassification(config).to(torch.bfloat16)
lora = LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"], modules_to_save=["classifier"])
model = get_peft_model(base, lora)
model.print_trainable_parameters()
trainable = [p for p in model.parameters() if p.requires_grad]
opt = torch.optim.AdamW(trainable, lr=3e-3)

for step in range(20):
    feats, target, _ = make_batch(8)
    logits = model(input_values=feats.to(torch.bfloat16)).logits
    loss = torch.sum(-target * F.log_softmax(logits.float(), dim=-1), dim=-1).mean()
    opt.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(trainable, 1.0)
    opt.step()
    if step % 5 == 0:
        print(f"step {step:2d} soft-CE {loss.item():.3f}")

model.eval()
feats, _, y = make_batch(16, train=False)
with torch.no_grad():
    pred = model(input_values=feats.to(torch.bfloat16)).logits.float().argmax(-1)
print(f"held-out accuracy {(pred == y).float().mean().item():.3f}")
