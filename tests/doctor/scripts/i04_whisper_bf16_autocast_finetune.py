"""Fine-tune a tiny Whisper-style encoder-decoder with bf16 autocast (fp32 master
weights), then greedy-decode a held-out set and report WER."""
import math
import tempfile

import numpy as np
import torch
from safetensors.torch import load_model, save_model
from transformers import WhisperConfig, WhisperForConditionalGeneration

torch.manual_seed(0)
rng = np.random.default_rng(0)

SR, N_FFT, HOP, N_MELS, N_FRAMES = 16000, 400, 160, 32, 100
VOCAB, PAD, BOS, EOS = 40, 0, 1, 2


def mel_filterbank():
    hz2mel = lambda f: 2595.0 * np.log10(1.0 + f / 700.0)
    mel2hz = lambda m: 700.0 * (10 ** (m / 2595.0) - 1.0)
    hz = mel2hz(np.linspace(hz2mel(0), hz2mel(SR / 2), N_MELS + 2))
    bins = np.fft.rfftfreq(N_FFT, 1.0 / SR)
    fb = np.zeros((N_MELS, len(bins)))
    for i in range(N_MELS):
        up = (bins - hz[i]) / (hz[i + 1] - hz[i])
        down = (hz[i + 2] - bins) / (hz[i + 2] - hz[i + 1])
        fb[i] = np.maximum(0, np.minimum(up, down))
    return torch.from_numpy(fb).float()


FB = mel_filterbank()
WIN = torch.hann_window(N_FFT)


def log_mel(wave_np):
    x = torch.from_numpy(wave_np.astype(np.float32))
    spec = torch.stft(x, N_FFT, HOP, window=WIN, return_complex=True)[..., :N_FRAMES]
    mel = FB @ spec.abs().pow(2)
    lm = torch.clamp(mel, min=1e-10).log10()
    lm = torch.maximum(lm, lm.max() - 8.0)
    return (lm + 4.0) / 4.0


def synth(tokens):
    t = np.arange(SR) / SR
    w = np.zeros(SR)
    seg = SR // len(tokens)
    for k, tok in enumerate(tokens):
        w[k * seg:(k + 1) * seg] = 0.3 * np.sin(2 * np.pi * (180 + 45 * tok) * t[k * seg:(k + 1) * seg])
    return w + 0.005 * rng.standard_normal(SR)


def batch(bs):
    toks = [list(rng.integers(3, 10, size=rng.integers(2, 4))) for _ in range(bs)]
    feats = torch.stack([log_mel(synth(t)) for t in toks])
    L = max(len(t) for t in toks) + 1
    labels = torch.full((bs, L), -100)
    for i, t in enumerate(toks):
        labels[i, : len(t) + 1] = torch.tensor(t + [EOS])
    return feats, labels, toks


def wer(ref, hyp):
    d = np.arange(len(hyp) + 1)
    for i, r in enumerate(ref, 1):
        prev, d[0] = d[0], i
        for j, h in enumerate(hyp, 1):
            prev, d[j] = d[j], min(d[j] + 1, d[j - 1] + 1, prev + (r != h))
    return d[len(hyp)] / max(1, len(ref))


config = WhisperConfig(
    vocab_size=VOCAB, num_mel_bins=N_MELS, d_model=64, encoder_layers=2, decoder_layers=2,
    encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=128, decoder_ffn_dim=128,
    max_source_positions=N_FRAMES // 2, max_target_positions=16, pad_token_id=PAD, bos_token_id=BOS,
    eos_token_id=EOS, decoder_start_token_id=BOS, suppress_tokens=[], begin_suppress_tokens=[],
)
model = WhisperForConditionalGeneration(config)
opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=0.01)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 5))

model.train()
for step in range(25):
    feats, labels, _ = batch(8)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = model(input_features=feats, labels=labels)
    loss = out.loss.float()
    opt.zero_grad(set_to_none=True)
    loss.backward()
    gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    sched.step()
    assert torch.isfinite(loss) and torch.isfinite(gn)
    if step % 5 == 0:
        print(f"step {step:2d} loss {loss.item():.3f} grad_norm {gn.item():.2f}")

# checkpoint round trip (fp32 safetensors)
with tempfile.TemporaryDirectory() as d:
    path = f"{d}/model.safetensors"
    save_model(model, path)
    reloaded = WhisperForConditionalGeneration(config)
    missing, unexpected = load_model(reloaded, path)
    assert not unexpected, unexpected
reloaded.eval()


@torch.no_grad()
def greedy_decode(m, feats, max_len=6):
    enc = m.model.encoder(feats).last_hidden_state
    ys = torch.full((feats.shape[0], 1), BOS)
    for _ in range(max_len):
        logits = m(encoder_outputs=(enc,), decoder_input_ids=ys).logits[:, -1]
        ys = torch.cat([ys, logits.argmax(-1, keepdim=True)], dim=1)
    out = []
    for row in ys[:, 1:].tolist():
        out.append(row[: row.index(EOS)] if EOS in row else row)
    return out


feats, _, refs = batch(16)
hyps = greedy_decode(reloaded, feats)
scores = [wer(r, h) for r, h in zip(refs, hyps)]
print(f"eval WER {100 * np.mean(scores):.1f}%")
