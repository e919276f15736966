import math
import tempfile

import torch
import torch.nn as nn
from datasets import Dataset
from transformers import BertConfig, BertModel, Trainer, TrainingArguments

MAX_LEVEL = 16
BLOCK = 32
P_ZERO_PRIOR = 0.999


def make_blocks(n, seed):
    g = torch.Generator().manual_seed(seed)
    decay = torch.exp(-torch.arange(BLOCK) / 4.0)
    coeffs = torch.randn(n, BLOCK, generator=g) * decay * 0.8
    levels = torch.round(coeffs).abs().clamp(max=MAX_LEVEL - 1).long()
    context = torch.roll(levels, shifts=1, dims=1)
    context[:, 0] = 0
    is_zero = (levels == 0).float()
    return Dataset.from_dict({"context": context.tolist(), "is_zero": is_zero.tolist()})


class SignificanceRateModel(nn.Module):
    def __init__(self):
        super().__init__()
        cfg = BertConfig(vocab_size=MAX_LEVEL, hidden_size=48, num_hidden_layers=2, num_attention_heads=4,
                         intermediate_size=96, max_position_embeddings=BLOCK)
        self.encoder = BertModel(cfg, add_pooling_layer=False)
        self.flag_head = nn.Linear(cfg.hidden_size, 1)
        nn.init.zeros_(self.flag_head.weight)
        nn.init.constant_(self.flag_head.bias, math.log(P_ZERO_PRIOR / (1 - P_ZERO_PRIOR)))

    def forward(self, context, is_zero=None):
        h = self.encoder(input_ids=context).last_hidden_state
        logits = self.flag_head(h).squeeze(-1)
        p_zero = torch.sigmoid(logits)
        out = {"logits": logits}
        if is_zero is not None:
            bits = -(is_zero * torch.log2(p_zero) + (1 - is_zero) * torch.log2(1 - p_zero))
            out["loss"] = bits.sum(-1).mean() / BLOCK
        return out


def collate(features):
    return {"context": torch.tensor([f["context"] for f in features]),
            "is_zero": torch.tensor([f["is_zero"] for f in features])}


def main():
    torch.manual_seed(0)
    model = SignificanceRateModel()
    train_ds, eval_ds = make_blocks(128, seed=0), make_blocks(64, seed=1)
    with tempfile.TemporaryDirectory() as out_dir:
        args = TrainingArguments(
            output_dir=out_dir, per_device_train_batch_size=32, per_device_eval_batch_size=32,
            num_train_epochs=2, learning_rate=1e-3, logging_steps=2, bf16=True, use_cpu=True,
            save_strategy="no", report_to=[], disable_tqdm=True, remove_unused_columns=False,
            label_names=["is_zero"],
        )
        trainer = Trainer(model=model, args=args, train_dataset=train_ds, eval_dataset=eval_ds,
                          data_collator=collate)
        result = trainer.train()
        metrics = trainer.evaluate()
    print(f"train bits/flag {result.training_loss:.4f}, eval bits/flag {metrics['eval_loss']:.4f}")


if __name__ == "__main__":
    main()
