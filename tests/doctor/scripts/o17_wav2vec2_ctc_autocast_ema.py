import copy

import numpy as np
import torch
from transformers import Wav2Vec2Config, Wav2Vec2ForCTC

torch.manual_seed(0)
rng = np.random.default_rng(0)

SR = 4000
VOCAB = ["<pad>", "|", "k", "l", "m", "n", "o"]
FREQ = {i: 350 + 140 * (i - 2) for i in range(2, len(VOCAB))}


def synth(ids):
    t = np.arange(int(0.05 * SR)) / SR
    parts = []
    for i in ids:
        parts.append(0.8 * np.sin(2 * np.pi * FREQ[i] * t))
        parts.append(np.zeros(30))
    x = np.concatenate(parts) + 0.03 * rng.standard_normal(sum(len(p) for p in parts))
    return ((x - x.mean()) / (x.std() + 1e-6)).astype(np.float32)


def make_batch(n):
    seqs = [rng.integers(2, len(VOCAB), size=rng.integers(2, 6)).tolist() for _ in range(n)]
    waves = [synth(s) for s in seqs]
    T = max(len(w) for w in waves)
    audio = torch.zeros(n, T, dtype=torch.float32)
    mask = torch.zeros(n, T, dtype=torch.long)
    labels = torch.full((n, max(len(s) for s in seqs)), -100, dtype=torch.long)
    for i, (w, s) in enumerate(zip(waves, seqs)):
        audio[i, : len(w)] = torch.from_numpy(w)
        mask[i, : len(w)] = 1
        labels[i, : len(s)] = torch.tensor(s)
    return audio, mask, labels


config = Wav2Vec2Config(
    vocab_size=len(VOCAB), hidden_size=48, num_hidden_layers=2, num_attention_heads=4,
    intermediate_size=96, conv_dim=(32, 32, 32), conv_stride=(5, 2, 2), conv_kernel=(10, 3, 3),
    num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=4, feat_extract_norm="layer",
    do_stable_layer_norm=True, mask_time_prob=0.05, mask_time_length=2, pad_token_id=0,
    ctc_loss_reduction="mean", ctc_zero_infinity=True,
)
model = Wav2Vec2ForCTC(config)
ema = copy.deepcopy(model).eval()
for p in ema.parameters():
    p.requires_grad_(False)
optimizer = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=0.01)
scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / 5))

model.train()
for step in range(30):
    audio, mask, labels = make_batch(12)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = model(input_values=audio, attention_mask=mask, labels=labels)
    loss = out.loss.float()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    scheduler.step()
    optimizer.zero_grad(set_to_none=True)
    with torch.no_grad():
        decay = min(0.99, (1 + step) / (10 + step))
        torch._foreach_lerp_(list(ema.parameters()), list(model.parameters()), 1.0 - decay)
    if step % 10 == 0 or step == 29:
        print(f"step {step:2d} ctc loss {loss.item():.4f}")
assert torch.isfinite(loss)


def greedy_decode(logits):
    out = []
    for row in logits.argmax(-1).tolist():
        toks = [t for j, t in enumerate(row) if t != 0 and (j == 0 or t != row[j - 1])]
        out.append("".join(VOCAB[t] for t in toks))
    return out


audio, mask, labels = make_batch(8)
with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
    ema_logits = ema(input_values=audio, attention_mask=mask).logits.float()
    eval_loss = ema(input_values=audio, attention_mask=mask, labels=labels).loss.float()
refs = ["".join(VOCAB[t] for t in row if t != -100) for row in labels.tolist()]
print(f"ema eval ctc loss {eval_loss.item():.4f}")
for hyp, ref in list(zip(greedy_decode(ema_logits), refs))[:3]:
    print(f"ref {ref:6s} hyp {hyp}")
assert torch.isfinite(ema_logits).all()
