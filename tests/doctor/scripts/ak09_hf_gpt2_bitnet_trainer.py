import tempfile
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments

torch.manual_seed(0)
np.random.seed(0)
VOCAB, SEQ = 300, 48


class BitLinear(nn.Module):
    """Ternary {-1, 0, +1} weights with absmean scale, int8 absmax activations (BitNet b1.58 style)."""

    def __init__(self, n_in, n_out, weight=None, bias=None):
        super().__init__()
        self.weight = nn.Parameter(weight.t().contiguous() if weight is not None else torch.randn(n_out, n_in) * 0.02)
        self.bias = nn.Parameter(bias.clone() if bias is not None else torch.zeros(n_out))

    def forward(self, x):
        w = self.weight
        gamma = w.abs().mean().clamp(min=1e-5)
        w_q = (w / gamma).round().clamp(-1, 1) * gamma
        w = w + (w_q - w).detach()
        s = 127.0 / x.abs().amax(dim=-1, keepdim=True).clamp(min=1e-5)
        x_q = (x * s).round().clamp(-128, 127) / s
        x = x + (x_q - x).detach()
        return F.linear(x, w, self.bias)


def bitnetify(model):
    for block in model.transformer.h:
        for name in ("c_fc", "c_proj"):
            conv = getattr(block.mlp, name)
            n_in, n_out = conv.weight.shape
            setattr(block.mlp, name, BitLinear(n_in, n_out, conv.weight.data, conv.bias.data))
    return model


class MotifDataset(torch.utils.data.Dataset):
    def __init__(self, n=256):
        motifs = np.random.randint(0, VOCAB, size=(16, 6))
        self.rows = []
        for _ in range(n):
            seq = np.concatenate([motifs[np.random.randint(16)] for _ in range(SEQ // 6)])
            self.rows.append({"input_ids": seq.astype(np.int64), "attention_mask": np.ones(SEQ, dtype=np.int64)})

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        return self.rows[i]


config = GPT2Config(vocab_size=VOCAB, n_positions=SEQ, n_embd=96, n_layer=2, n_head=4)
model = bitnetify(GPT2LMHeadModel(config)).to(torch.bfloat16)


def collate(features):
    batch = {k: torch.from_numpy(np.stack([f[k] for f in features])) for k in features[0]}
    batch["labels"] = batch["input_ids"].clone()
    return {k: v.to(model.dtype) for k, v in batch.items()}


with tempfile.TemporaryDirectory() as out_dir:
    args = TrainingArguments(
        output_dir=out_dir,
        per_device_train_batch_size=16,
        learning_rate=3e-3,
        max_steps=30,
        logging_steps=5,
        save_strategy="no",
        report_to=[],
        use_cpu=True,
        dataloader_num_workers=0,
    )
    trainer = Trainer(model=model, args=args, train_dataset=MotifDataset(), data_collator=collate)
    result = trainer.train()
    print(f"final train loss {result.training_loss:.4f}")
