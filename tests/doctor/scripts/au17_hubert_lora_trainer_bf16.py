import math
import tempfile

import numpy as np
import torch
from peft import LoraConfig, get_peft_model
from transformers import HubertConfig, HubertForCTC, Trainer, TrainingArguments

torch.manual_seed(0)

SR = 16000
CHARS = ["<pad>", "|", "k", "a", "t", "s"]
FREQ = {c: 250.0 + 170.0 * i for i, c in enumerate(CHARS[2:])}


class ToneWords(torch.utils.data.Dataset):
    def __init__(self, n, seed):
        rng = np.random.default_rng(seed)
        self.items = []
        for _ in range(n):
            word = "".join(rng.choice(CHARS[2:], size=rng.integers(2, 5)))
            t = np.arange(int(0.12 * SR)) / SR
            wav = np.concatenate([0.4 * np.sin(2 * math.pi * FREQ[c] * t) * np.hanning(len(t)) for c in word])
            wav = (wav - wav.mean()) / (wav.std() + 1e-7) + 0.01 * rng.standard_normal(len(wav))
            self.items.append((wav.astype(np.float32), [CHARS.index(c) for c in word]))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        wav, ids = self.items[i]
        return {"input_values": wav, "labels": ids}


def collate(batch):
    n = max(len(b["input_values"]) for b in batch)
    u = max(len(b["labels"]) for b in batch)
    x = torch.zeros(len(batch), n)
    mask = torch.zeros(len(batch), n, dtype=torch.long)
    labels = torch.full((len(batch), u), -100)
    for i, b in enumerate(batch):
        x[i, : len(b["input_values"])] = torch.from_numpy(b["input_values"])
        mask[i, : len(b["input_values"])] = 1
        labels[i, : len(b["labels"])] = torch.tensor(b["labels"])
    return {"input_values": x, "attention_mask": mask, "labels": labels}


def main():
    config = HubertConfig(
        vocab_size=len(CHARS), hidden_size=64, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=128, conv_dim=(32, 32, 32), conv_stride=(5, 4, 4), conv_kernel=(10, 8, 4),
        num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=4, feat_extract_norm="layer",
        do_stable_layer_norm=True, mask_time_prob=0.0, pad_token_id=0, ctc_loss_reduction="mean",
    )
    model = HubertForCTC(config)
    model.freeze_feature_encoder()
    lora = LoraConfig(r=8, lora_alpha=16, lora_dropout=0.0, target_modules=["q_proj", "v_proj"],
                      modules_to_save=["lm_head"])
    model = get_peft_model(model, lora)
    model.print_trainable_parameters()

    with tempfile.TemporaryDirectory() as out_dir:
        args = TrainingArguments(
            output_dir=out_dir, per_device_train_batch_size=8, per_device_eval_batch_size=8,
            num_train_epochs=5, learning_rate=2e-3, bf16=True, use_cpu=True, logging_steps=8,
            save_strategy="no", report_to=[], remove_unused_columns=False, seed=0, dataloader_num_workers=0,
        )
        trainer = Trainer(model=model, args=args, train_dataset=ToneWords(64, 0), eval_dataset=ToneWords(16, 1),
                          data_collator=collate)
        result = trainer.train()
        metrics = trainer.evaluate()
    print(f"train loss {result.training_loss:.4f} eval loss {metrics['eval_loss']:.4f}")


if __name__ == "__main__":
    main()
