import tempfile

import numpy as np
import torch
from torch.utils.data import Dataset
from transformers import Trainer, TrainingArguments, Wav2Vec2Config, Wav2Vec2ForCTC

torch.manual_seed(0)

SR = 4000
ALPHABET = ["<pad>", "|", "a", "b", "c", "d", "e"]
FREQS = {c: 300 + 150 * i for i, c in enumerate(ALPHABET[2:])}


class ToneSpeech(Dataset):
    """Each character is a 60 ms tone burst; words are separated by short silences."""

    def __init__(self, n, seed):
        g = np.random.default_rng(seed)
        self.items = []
        for _ in range(n):
            text = "".join(g.choice(list(FREQS), size=g.integers(2, 6)))
            t = np.arange(int(0.06 * SR)) / SR
            chunks = [np.sin(2 * np.pi * FREQS[c] * t) + 0.05 * g.standard_normal(len(t)) for c in text]
            audio = np.concatenate([np.concatenate([c, np.zeros(40)]) for c in chunks])
            self.items.append((audio, [ALPHABET.index(c) for c in text]))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        audio, ids = self.items[i]
        return {"input_values": audio, "labels": ids}


def collate_fn(features):
    max_audio = max(len(f["input_values"]) for f in features)
    max_lab = max(len(f["labels"]) for f in features)
    audio = np.zeros((len(features), max_audio))
    mask = np.zeros((len(features), max_audio), dtype=np.int64)
    labels = np.full((len(features), max_lab), -100, dtype=np.int64)
    for i, f in enumerate(features):
        x = f["input_values"]
        x = (x - x.mean()) / np.sqrt(x.var() + 1e-7)
        audio[i, : len(x)] = x
        mask[i, : len(x)] = 1
        labels[i, : len(f["labels"])] = f["labels"]
    return {
        "input_values": torch.from_numpy(audio),
        "attention_mask": torch.from_numpy(mask),
        "labels": torch.from_numpy(labels),
    }


config = Wav2Vec2Config(
    vocab_size=len(ALPHABET), hidden_size=48, num_hidden_layers=2, num_attention_heads=4,
    intermediate_size=96, conv_dim=(32, 32, 32), conv_stride=(5, 2, 2), conv_kernel=(10, 3, 3),
    num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=4, feat_extract_norm="layer",
    do_stable_layer_norm=True, mask_time_prob=0.0, pad_token_id=0, ctc_loss_reduction="mean",
    ctc_zero_infinity=True,
)
model = Wav2Vec2ForCTC(config)


def compute_metrics(pred):
    ids = pred.predictions.argmax(-1)
    errs = total = 0
    for p, l in zip(ids, pred.label_ids):
        p = [int(t) for j, t in enumerate(p) if t != 0 and (j == 0 or t != p[j - 1])]
        l = [int(t) for t in l if t != -100]
        errs += sum(a != b for a, b in zip(p, l)) + abs(len(p) - len(l))
        total += len(l)
    return {"cer": errs / max(total, 1)}


args = TrainingArguments(
    output_dir=tempfile.mkdtemp(),
    per_device_train_batch_size=8,
    per_device_eval_batch_size=8,
    num_train_epochs=2,
    learning_rate=1e-3,
    warmup_steps=2,
    logging_steps=4,
    eval_strategy="epoch",
    save_strategy="no",
    report_to=[],
    use_cpu=True,
    remove_unused_columns=False,
)
trainer = Trainer(
    model=model, args=args, data_collator=collate_fn,
    train_dataset=ToneSpeech(48, 0), eval_dataset=ToneSpeech(16, 1), compute_metrics=compute_metrics,
)
trainer.train()
print(trainer.evaluate())
