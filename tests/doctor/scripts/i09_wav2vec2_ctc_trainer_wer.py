"""Fine-tune a tiny wav2vec2 CTC model with the HF Trainer on synthetic 'spelled' tone
sequences stored in a datasets.Dataset; evaluate with a hand-written WER metric."""
import math
import tempfile

import numpy as np
import torch
from datasets import Dataset
from transformers import Trainer, TrainingArguments, Wav2Vec2Config, Wav2Vec2ForCTC

torch.manual_seed(0)
rng = np.random.default_rng(0)
SR = 16000
LETTERS = list("abcdefg")
PAD_ID = 0
VOCAB = {"<pad>": PAD_ID, "|": 1, **{c: i + 2 for i, c in enumerate(LETTERS)}}
ID2CH = {v: k for k, v in VOCAB.items()}


def make_example():
    words = ["".join(rng.choice(LETTERS, size=rng.integers(1, 3))) for _ in range(rng.integers(1, 3))]
    text = " ".join(words)
    chars = [c for c in text]
    seg = int(0.12 * SR)
    t = np.arange(seg) / SR
    pieces = []
    for c in chars:
        if c == " ":
            pieces.append(np.zeros(seg // 2))
        else:
            f = 250 + 80 * LETTERS.index(c)
            pieces.append(0.4 * np.hanning(seg) * np.sin(2 * math.pi * f * t))
    wav = np.concatenate(pieces) + 0.005 * rng.standard_normal(sum(len(p) for p in pieces))
    wav = (wav - wav.mean()) / (wav.std() + 1e-7)  # zero-mean unit-var, like Wav2Vec2FeatureExtractor
    return {"input_values": wav.astype(np.float32), "labels": [VOCAB["|" if c == " " else c] for c in chars], "text": text}


train_ds = Dataset.from_list([make_example() for _ in range(48)])
eval_ds = Dataset.from_list([make_example() for _ in range(12)])


def collate(features):
    lens = [len(f["input_values"]) for f in features]
    T = max(lens)
    x = torch.zeros(len(features), T)
    for i, f in enumerate(features):
        x[i, : lens[i]] = torch.tensor(f["input_values"], dtype=torch.float32)
    L = max(len(f["labels"]) for f in features)
    labels = torch.full((len(features), L), -100)
    for i, f in enumerate(features):
        labels[i, : len(f["labels"])] = torch.tensor(f["labels"])
    # group-norm wav2vec2 variants are trained on zero-padded input without an attention mask
    return {"input_values": x, "labels": labels}


def decode(ids):
    out, prev = [], None
    for i in ids:
        if i != prev and i != PAD_ID:
            out.append(ID2CH[i])
        prev = i
    return "".join(out).replace("|", " ").strip()


def wer(ref, hyp):
    r, h = ref.split(), hyp.split()
    d = list(range(len(h) + 1))
    for i in range(1, len(r) + 1):
        prev, d[0] = d[0], i
        for j in range(1, len(h) + 1):
            prev, d[j] = d[j], min(d[j] + 1, d[j - 1] + 1, prev + (r[i - 1] != h[j - 1]))
    return d[len(h)] / max(1, len(r))


def compute_metrics(pred):
    ids = np.argmax(pred.predictions, axis=-1)
    labels = pred.label_ids
    scores = []
    for p, l in zip(ids, labels):
        ref = decode([int(x) for x in l if x != -100])
        scores.append(wer(ref, decode(p.tolist())))
    return {"wer": float(np.mean(scores))}


config = Wav2Vec2Config(
    vocab_size=len(VOCAB), hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
    conv_dim=(32, 32, 32), conv_stride=(5, 4, 4), conv_kernel=(10, 4, 4), num_conv_pos_embeddings=16,
    num_conv_pos_embedding_groups=4, feat_extract_norm="group", do_stable_layer_norm=False,
    mask_time_prob=0.05, mask_time_length=2, ctc_loss_reduction="mean", ctc_zero_infinity=True,
    pad_token_id=PAD_ID,
)
model = Wav2Vec2ForCTC(config)

with tempfile.TemporaryDirectory() as out_dir:
    args = TrainingArguments(
        output_dir=out_dir, per_device_train_batch_size=8, per_device_eval_batch_size=6, learning_rate=1e-3,
        max_steps=18, warmup_steps=3, logging_steps=6, eval_strategy="no", save_strategy="no",
        report_to=[], use_cpu=True, dataloader_num_workers=0, remove_unused_columns=False, seed=0,
    )
    trainer = Trainer(model=model, args=args, train_dataset=train_ds, eval_dataset=eval_ds,
                      data_collator=collate, compute_metrics=compute_metrics)
    trainer.train()
    metrics = trainer.evaluate()
print({k: round(v, 4) for k, v in metrics.items() if isinstance(v, float)})
