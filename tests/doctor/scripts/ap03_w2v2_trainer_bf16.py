import math
import tempfile

import numpy as np
import torch
from torch.utils.data import Dataset
from transformers import Trainer, TrainingArguments, Wav2Vec2Config, Wav2Vec2ForCTC

VOCAB = ["<pad>", "|"] + list("abcdefghijklmnop")
SR = 16000


class ToyASR(Dataset):
    def __init__(self, n=16):
        rng = np.random.default_rng(0)
        self.items = []
        for _ in range(n):
            n_words = rng.integers(1, 4)
            text = []
            for w in range(n_words):
                text += list(rng.integers(2, len(VOCAB), size=rng.integers(2, 4)))
                if w < n_words - 1:
                    text.append(1)
            seconds = 0.25 + 0.05 * len(text)
            t = np.arange(int(SR * seconds)) / SR
            wav = np.zeros_like(t)
            for k, tok in enumerate(text):
                wav += 0.1 * np.sin(2 * np.pi * (150 + 40 * tok) * t + k)
            wav += 0.01 * rng.standard_normal(t.shape)
            wav = (wav - wav.mean()) / (wav.std() + 1e-7)
            self.items.append({"input_values": wav.astype(np.float32), "labels": np.array(text)})

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


def collate(features):
    max_wav = max(len(f["input_values"]) for f in features)
    max_lab = max(len(f["labels"]) for f in features)
    wavs = torch.zeros(len(features), max_wav)
    mask = torch.zeros(len(features), max_wav, dtype=torch.long)
    labels = torch.full((len(features), max_lab), -100, dtype=torch.long)
    for i, f in enumerate(features):
        n = len(f["input_values"])
        wavs[i, :n] = torch.from_numpy(f["input_values"])
        mask[i, :n] = 1
        labels[i, : len(f["labels"])] = torch.from_numpy(f["labels"]).long()
    return {"input_values": wavs, "attention_mask": mask, "labels": labels}


def build_model():
    config = Wav2Vec2Config(
        vocab_size=len(VOCAB),
        hidden_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=128,
        conv_dim=(32, 32, 32),
        conv_stride=(5, 4, 4),
        conv_kernel=(10, 8, 4),
        num_conv_pos_embeddings=16,
        num_conv_pos_embedding_groups=4,
        feat_extract_norm="layer",
        do_stable_layer_norm=True,
        mask_time_prob=0.05,
        mask_time_length=2,
        ctc_loss_reduction="mean",
        pad_token_id=0,
    )
    return Wav2Vec2ForCTC(config)


def main():
    torch.manual_seed(0)
    model = build_model()
    train_ds = ToyASR()
    with tempfile.TemporaryDirectory() as out_dir:
        args = TrainingArguments(
            output_dir=out_dir,
            per_device_train_batch_size=4,
            learning_rate=3e-4,
            max_steps=6,
            warmup_steps=2,
            logging_steps=2,
            bf16=True,
            use_cpu=True,
            save_strategy="no",
            report_to=[],
            dataloader_num_workers=0,
        )
        trainer = Trainer(model=model, args=args, train_dataset=train_ds, data_collator=collate)
        result = trainer.train()
        print(f"final train loss {result.training_loss:.4f}")
        for rec in trainer.state.log_history:
            if "loss" in rec:
                print(f"step {rec['step']} loss {rec['loss']:.4f}")
                assert math.isfinite(rec["loss"])

    model.eval()
    batch = collate([train_ds[i] for i in range(4)])
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        logits = model(batch["input_values"], attention_mask=batch["attention_mask"]).logits
    pred = logits.float().argmax(-1)
    hyps = []
    for row in pred.tolist():
        out, prev = [], None
        for tok in row:
            if tok != prev and tok != 0:
                out.append(VOCAB[tok])
            prev = tok
        hyps.append("".join(out).replace("|", " "))
    print("greedy hypotheses:", hyps)


if __name__ == "__main__":
    main()
