import math
import tempfile

import torch
import torch.nn.functional as F
from datasets import Dataset
from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments

CODEBOOK_SIZE = 256
NUM_QUANTIZERS = 2
FRAMES = 32


def synth_codec_tokens(num_clips, seed):
    g = torch.Generator().manual_seed(seed)
    clips = []
    for _ in range(num_clips):
        base = torch.randint(0, CODEBOOK_SIZE, (1,), generator=g)
        drift = torch.randint(-3, 4, (FRAMES,), generator=g).cumsum(0)
        coarse = (base + drift) % CODEBOOK_SIZE
        fine = (coarse * 7 + torch.randint(0, 4, (FRAMES,), generator=g)) % CODEBOOK_SIZE
        tokens = torch.stack([coarse, fine + CODEBOOK_SIZE], dim=1).reshape(-1)
        clips.append(tokens.tolist())
    return Dataset.from_dict({"input_ids": clips})


def collate(features):
    ids = torch.tensor([f["input_ids"] for f in features], dtype=torch.long)
    return {"input_ids": ids, "labels": ids.clone()}


class BitsTrainer(Trainer):
    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        labels = inputs.pop("labels")
        outputs = model(**inputs)
        logits = outputs.logits[:, :-1].float()
        targets = labels[:, 1:]
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), targets.reshape(-1))
        return (loss, outputs) if return_outputs else loss


def main():
    torch.manual_seed(0)
    config = GPT2Config(
        vocab_size=CODEBOOK_SIZE * NUM_QUANTIZERS,
        n_positions=FRAMES * NUM_QUANTIZERS,
        n_embd=64, n_layer=2, n_head=4,
        bos_token_id=0, eos_token_id=0,
    )
    model = GPT2LMHeadModel(config)
    train_ds = synth_codec_tokens(64, seed=0)
    eval_ds = synth_codec_tokens(16, seed=1)

    with tempfile.TemporaryDirectory() as out_dir:
        args = TrainingArguments(
            output_dir=out_dir,
            per_device_train_batch_size=16,
            per_device_eval_batch_size=16,
            num_train_epochs=2,
            learning_rate=1e-3,
            warmup_steps=2,
            logging_steps=4,
            bf16=True,
            use_cpu=True,
            save_strategy="no",
            report_to=[],
            disable_tqdm=True,
            remove_unused_columns=False,
        )
        trainer = BitsTrainer(model=model, args=args, train_dataset=train_ds,
                              eval_dataset=eval_ds, data_collator=collate)
        result = trainer.train()
        metrics = trainer.evaluate()

    print(f"train loss {result.training_loss:.4f}")
    print(f"eval loss {metrics['eval_loss']:.4f} -> {metrics['eval_loss'] / math.log(2):.3f} bits/token")


if __name__ == "__main__":
    main()
