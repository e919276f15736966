import os
import tempfile

import numpy as np
import torch
from transformers import WhisperConfig, WhisperFeatureExtractor, WhisperForConditionalGeneration

torch.manual_seed(0)
rng = np.random.default_rng(0)

SR = 4000
PAD, BOS, EOS = 0, 1, 2
TOKENS = list(range(3, 9))
FREQS = {t: 250 + 120 * i for i, t in enumerate(TOKENS)}

fe = WhisperFeatureExtractor(feature_size=16, sampling_rate=SR, hop_length=40, chunk_length=1, n_fft=128)
config = WhisperConfig(
    vocab_size=16, num_mel_bins=16, d_model=64, encoder_layers=2, decoder_layers=2,
    encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=128, decoder_ffn_dim=128,
    max_source_positions=50, max_target_positions=16, pad_token_id=PAD, bos_token_id=BOS,
    eos_token_id=EOS, decoder_start_token_id=BOS, begin_suppress_tokens=None, suppress_tokens=None,
)


def make_clip():
    seq = rng.choice(TOKENS, size=rng.integers(2, 5)).tolist()
    t = np.arange(int(0.15 * SR)) / SR
    audio = np.concatenate([np.sin(2 * np.pi * FREQS[s] * t) for s in seq])
    audio = audio + 0.02 * rng.standard_normal(len(audio))
    return audio.astype(np.float32), seq


def make_batch(n):
    clips = [make_clip() for _ in range(n)]
    feats = fe([a for a, _ in clips], sampling_rate=SR, return_tensors="pt").input_features
    tgt_len = max(len(s) for _, s in clips) + 2
    labels = torch.full((n, tgt_len), -100, dtype=torch.long)
    for i, (_, s) in enumerate(clips):
        labels[i, : len(s) + 1] = torch.tensor(s + [EOS])
    return feats, labels


model = WhisperForConditionalGeneration(config)
optimizer = torch.optim.AdamW(model.parameters(), lr=2e-3)
model.train()
for step in range(25):
    feats, labels = make_batch(16)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        logits = model(input_features=feats, labels=labels).logits
    loss = torch.nn.functional.cross_entropy(logits.float().flatten(0, 1), labels.flatten(), ignore_index=-100)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    optimizer.zero_grad()
    if step % 5 == 0:
        print(f"step {step:2d} loss {loss.item():.4f}")
assert torch.isfinite(loss)

save_dir = os.path.join(tempfile.mkdtemp(), "whisper-tones")
model.save_pretrained(save_dir)
fe.save_pretrained(save_dir)

infer = WhisperForConditionalGeneration.from_pretrained(save_dir, torch_dtype=torch.bfloat16).eval()
fe2 = WhisperFeatureExtractor.from_pretrained(save_dir)
clips = [make_clip() for _ in range(8)]
feats = fe2([a for a, _ in clips], sampling_rate=SR, return_tensors="pt").input_features.to(infer.dtype)
with torch.no_grad():
    out = infer.generate(input_features=feats, max_new_tokens=8, num_beams=2, output_scores=True,
                         return_dict_in_generate=True)
    scores = torch.stack([s.float() for s in out.scores])
print("generated:", out.sequences[:3].tolist())
print("reference:", [s for _, s in clips[:3]])
print("score range:", scores[torch.isfinite(scores)].min().item(), scores.max().item())
