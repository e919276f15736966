import math
import random

import torch
from transformers import BartConfig, BartForConditionalGeneration

torch.manual_seed(0)
random.seed(0)

VOCAB, PAD, BOS, EOS = 320, 1, 0, 2
LOSS_SCALE = 2.0 ** 16


def make_doc(rng):
    """A 'document' of 3 sentences; the summary is its first sentence (lead-1)."""
    sents = [[rng.randint(4, VOCAB - 1) for _ in range(rng.randint(3, 6))] for _ in range(3)]
    doc = [BOS] + [t for s in sents for t in s + [3]] + [EOS]
    summary = [BOS] + sents[0] + [EOS]
    return doc, summary


def batchify(pairs):
    src_len = max(len(d) for d, _ in pairs)
    tgt_len = max(len(s) for _, s in pairs)
    src = torch.full((len(pairs), src_len), PAD, dtype=torch.long)
    tgt = torch.full((len(pairs), tgt_len), PAD, dtype=torch.long)
    for i, (d, s) in enumerate(pairs):
        src[i, : len(d)] = torch.tensor(d)
        tgt[i, : len(s)] = torch.tensor(s)
    labels = tgt.masked_fill(tgt == PAD, -100)
    return src, (src != PAD).long(), labels


rng = random.Random(5)
train_pairs = [make_doc(rng) for _ in range(128)]
val_pairs = [make_doc(rng) for _ in range(16)]

config = BartConfig(
    vocab_size=VOCAB, d_model=64, encoder_layers=2, decoder_layers=2,
    encoder_attention_heads=4, decoder_attention_heads=4,
    encoder_ffn_dim=128, decoder_ffn_dim=128, max_position_embeddings=64,
    pad_token_id=PAD, bos_token_id=BOS, eos_token_id=EOS,
    decoder_start_token_id=EOS, forced_bos_token_id=BOS,
)
model = BartForConditionalGeneration(config).half()
params = [p for p in model.parameters() if p.requires_grad]
optimizer = torch.optim.SGD(params, lr=0.05, momentum=0.9)

BATCH = 16
for epoch in range(3):
    model.train()
    random.shuffle(train_pairs)
    losses = []
    for i in range(0, len(train_pairs), BATCH):
        src, mask, labels = batchify(train_pairs[i:i + BATCH])
        loss = model(input_ids=src, attention_mask=mask, labels=labels).loss
        (loss * LOSS_SCALE).backward()
        for p in params:
            if p.grad is not None:
                p.grad.div_(LOSS_SCALE)
        torch.nn.utils.clip_grad_norm_(params, max_norm=1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        losses.append(loss.item())
    print(f"epoch {epoch}: loss {sum(losses) / len(losses):.4f} (first {losses[0]:.4f}, last {losses[-1]:.4f})")

model.eval()
src, mask, labels = batchify(val_pairs)
with torch.no_grad():
    val_loss = model(input_ids=src, attention_mask=mask, labels=labels).loss.item()
    summaries = model.generate(input_ids=src[:4], attention_mask=mask[:4], num_beams=2, max_length=10)
print(f"val loss {val_loss:.4f}  ppl {math.exp(min(val_loss, 50)):.2f}")
for s, g in zip(src[:2].tolist(), summaries[:2].tolist()):
    print("doc:", [t for t in s if t != PAD][:10], "-> summary:", g)
