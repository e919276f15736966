"""ORPO (odds-ratio preference optimisation) with the HF Trainer on a tiny Gemma model.

The preference data comes pre-tokenized as compact NumPy int32 .npy shards
(prompt+chosen, prompt+rejected, and labels with -100 on the prompt), memory-mapped. A custom
Trainer subclass computes the SFT NLL on the chosen response plus the odds-ratio
term, with bf16 mixed precision.
"""
import os
import tempfile

import numpy as np
import torch
import torch.nn.functional as F
from transformers import GemmaConfig, GemmaForCausalLM, Trainer, TrainingArguments

torch.manual_seed(0)
rng = np.random.default_rng(0)

VOCAB = 256
SEQ = 20
PROMPT = 8
LAMBDA = 0.1
N = 32


KEYS = ("chosen_ids", "rejected_ids", "chosen_labels", "rejected_labels")


def write_shards(path):
    rows = {k: [] for k in KEYS}
    for _ in range(N):
        prompt = rng.integers(4, VOCAB, PROMPT, dtype=np.int32)
        chosen = np.concatenate([prompt, np.full(SEQ - PROMPT, prompt[0], dtype=np.int32)])
        rejected = np.concatenate([prompt, rng.integers(4, VOCAB, SEQ - PROMPT, dtype=np.int32)])
        lab_c = chosen.copy()
        lab_c[:PROMPT] = -100
        lab_r = rejected.copy()
        lab_r[:PROMPT] = -100
        rows["chosen_ids"].append(chosen)
        rows["rejected_ids"].append(rejected)
        rows["chosen_labels"].append(lab_c)
        rows["rejected_labels"].append(lab_r)
    for k in KEYS:
        np.save(os.path.join(path, f"{k}.npy"), np.stack(rows[k]))


class PreferenceShards(torch.utils.data.Dataset):
    def __init__(self, path):
        self.arrays = {k: np.load(os.path.join(path, f"{k}.npy"), mmap_mode="r") for k in KEYS}

    def __len__(self):
        return len(self.arrays["chosen_ids"])

    def __getitem__(self, i):
        return {k: self.arrays[k][i] for k in KEYS}


def collate(features):
    return {k: torch.from_numpy(np.stack([f[k] for f in features])) for k in KEYS}


class ORPOTrainer(Trainer):
    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        ids = torch.cat([inputs["chosen_ids"], inputs["rejected_ids"]])
        labels = torch.cat([inputs["chosen_labels"], inputs["rejected_labels"]])
        logits = model(input_ids=ids).logits
        bs = inputs["chosen_ids"].size(0)

        shift_logits = logits[:, :-1].contiguous()
        shift_labels = labels[:, 1:].contiguous()

        # SFT term on the chosen half only
        nll = F.cross_entropy(
            shift_logits[:bs].reshape(-1, shift_logits.size(-1)),
            shift_labels[:bs].reshape(-1),
            ignore_index=-100,
        )

        mask = shift_labels != -100
        safe = shift_labels.clamp(min=0)
        tok_logp = torch.gather(shift_logits.float().log_softmax(-1), 2, safe.unsqueeze(-1)).squeeze(-1)
        avg_logp = (tok_logp * mask).sum(-1) / mask.sum(-1)
        log_odds = avg_logp - torch.log1p(-torch.exp(avg_logp))
        ratio = F.logsigmoid(log_odds[:bs] - log_odds[bs:])
        loss = nll - LAMBDA * ratio.mean()
        return (loss, {"logits": logits}) if return_outputs else loss


def main():
    cfg = GemmaConfig(
        vocab_size=VOCAB,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=1,
        head_dim=16,
        max_position_embeddings=64,
    )
    model = GemmaForCausalLM(cfg)
    with tempfile.TemporaryDirectory() as out_dir:
        write_shards(out_dir)
        ds = PreferenceShards(out_dir)
        args = TrainingArguments(
            output_dir=out_dir,
            per_device_train_batch_size=4,
            num_train_epochs=1,
            learning_rate=5e-5,
            bf16=True,
            use_cpu=True,
            logging_steps=2,
            save_strategy="no",
            report_to="none",
            remove_unused_columns=False,
            dataloader_num_workers=0,
        )
        trainer = ORPOTrainer(model=model, args=args, train_dataset=ds, data_collator=collate)
        trainer.train()
    print("done")


if __name__ == "__main__":
    main()
