"""Fine-tune a tiny Whisper-style model for a few steps, save it, then reload it in
fp16 for fast batch transcription of a small evaluation set."""
import math
import tempfile

import numpy as np
import torch
from transformers import WhisperConfig, WhisperForConditionalGeneration

torch.manual_seed(0)
np.random.seed(0)

SR = 16000
N_FFT = 400
HOP = 160
N_MELS = 40
N_FRAMES = 100  # 1 s of audio -> 100 frames (encoder expects 2 * max_source_positions)


def hz_to_mel(f):
    return 2595.0 * np.log10(1.0 + f / 700.0)


def mel_to_hz(m):
    return 700.0 * (10 ** (m / 2595.0) - 1.0)


def mel_filterbank(n_mels=N_MELS, n_fft=N_FFT, sr=SR):
    mels = np.linspace(hz_to_mel(0), hz_to_mel(sr / 2), n_mels + 2)
    hz = mel_to_hz(mels)
    bins = np.fft.rfftfreq(n_fft, 1.0 / sr)
    fb = np.zeros((n_mels, len(bins)), dtype=np.float32)
    for i in range(n_mels):
        lo, c, hi = hz[i], hz[i + 1], hz[i + 2]
        up = (bins - lo) / (c - lo)
        down = (hi - bins) / (hi - c)
        fb[i] = np.maximum(0, np.minimum(up, down))
    return torch.from_numpy(fb)


MEL_FB = mel_filterbank()
WINDOW = torch.hann_window(N_FFT)


def log_mel(wave: np.ndarray) -> torch.Tensor:
    """Whisper-style log-mel: log10 of clamped mel power, dynamic range 8, scaled."""
    x = torch.from_numpy(wave).float()
    spec = torch.stft(x, N_FFT, HOP, window=WINDOW, return_complex=True)
    power = spec[..., :-1].abs() ** 2
    mel = MEL_FB @ power
    logmel = torch.clamp(mel, min=1e-10).log10()
    logmel = torch.maximum(logmel, logmel.max() - 8.0)
    return (logmel + 4.0) / 4.0  # (n_mels, frames)


def synth_utterance(token_ids):
    """Each 'word' token becomes a short tone burst; silence between words."""
    t = np.arange(SR) / SR
    wave = np.zeros(SR, dtype=np.float32)
    seg = SR // (len(token_ids) + 1)
    for k, tok in enumerate(token_ids):
        f0 = 200 + 60 * tok
        s = (k + 1) * seg - seg // 2
        e = s + seg // 2
        wave[s:e] += 0.3 * np.sin(2 * math.pi * f0 * t[s:e]).astype(np.float32)
    wave += 0.01 * np.random.randn(SR).astype(np.float32)
    return wave


VOCAB = 60
BOS, EOS, PAD = 1, 2, 0

config = WhisperConfig(
    vocab_size=VOCAB,
    num_mel_bins=N_MELS,
    d_model=64,
    encoder_layers=2,
    decoder_layers=2,
    encoder_attention_heads=4,
    decoder_attention_heads=4,
    encoder_ffn_dim=128,
    decoder_ffn_dim=128,
    max_source_positions=N_FRAMES // 2,
    max_target_positions=32,
    pad_token_id=PAD,
    bos_token_id=BOS,
    eos_token_id=EOS,
    decoder_start_token_id=BOS,
    suppress_tokens=[],
    begin_suppress_tokens=[],
)


def make_batch(bs):
    feats, labels = [], []
    for _ in range(bs):
        toks = list(np.random.randint(3, 12, size=np.random.randint(2, 5)))
        feats.append(log_mel(synth_utterance(toks)))
        labels.append(toks + [EOS])
    maxlen = max(len(l) for l in labels)
    lab = torch.full((bs, maxlen), -100, dtype=torch.long)
    for i, l in enumerate(labels):
        lab[i, : len(l)] = torch.tensor(l)
    return torch.stack(feats), lab


# ---- short fine-tune in fp32 ----
model = WhisperForConditionalGeneration(config)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
model.train()
for step in range(6):
    feats, labels = make_batch(8)
    out = model(input_features=feats, labels=labels)
    out.loss.backward()
    opt.step()
    opt.zero_grad()
    print(f"step {step} loss {out.loss.item():.3f}")

with tempfile.TemporaryDirectory() as ckpt_dir:
    model.save_pretrained(ckpt_dir)

    # ---- evaluation: reload in half precision for faster decoding ----
    eval_model = WhisperForConditionalGeneration.from_pretrained(ckpt_dir, dtype=torch.float16)
    eval_model.eval()

    eval_feats, eval_labels = make_batch(4)
    with torch.no_grad():
        hyp = eval_model.generate(input_features=eval_feats, max_new_tokens=8)
    for h, ref in zip(hyp.tolist(), eval_labels.tolist()):
        print("hyp", h, "ref", [r for r in ref if r >= 0])
