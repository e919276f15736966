"""Train a desirable / undesirable classifier (KTO-style binary feedback) on a tiny
BLOOM backbone with accelerate, to be used later as a filter for rejection sampling.

Labels are binary thumbs-up / thumbs-down collected as a NumPy array.
"""
import numpy as np
import torch
import torch.nn.functional as F
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset
from transformers import BloomConfig, BloomForSequenceClassification

torch.manual_seed(0)
rng = np.random.default_rng(0)

VOCAB = 180
PAD = 3
SEQ = 16
N = 64


def make_feedback():
    ids = rng.integers(4, VOCAB, size=(N, SEQ))
    # "desirable" completions end with a low token id
    thumbs_up = (ids[:, -1] < VOCAB // 2).astype(np.float32)
    lengths = rng.integers(10, SEQ + 1, size=N)
    attn = (np.arange(SEQ)[None, :] < lengths[:, None]).astype(np.int64)
    ids = np.where(attn == 1, ids, PAD)
    return torch.from_numpy(ids), torch.from_numpy(attn), torch.from_numpy(thumbs_up)


def main():
    accelerator = Accelerator(cpu=True)
    cfg = BloomConfig(
        vocab_size=VOCAB,
        hidden_size=64,
        n_layer=2,
        n_head=4,
        pad_token_id=PAD,
        num_labels=1,
    )
    model = BloomForSequenceClassification(cfg).to(torch.bfloat16)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    ids, attn, labels = make_feedback()
    loader = DataLoader(TensorDataset(ids, attn, labels), batch_size=8, shuffle=True)
    model, opt, loader = accelerator.prepare(model, opt, loader)

    model.train()
    for epoch in range(2):
        total, correct, seen = 0.0, 0, 0
        for b_ids, b_attn, b_lab in loader:
            logits = model(input_ids=b_ids, attention_mask=b_attn).logits.squeeze(-1)
            p_desirable = torch.sigmoid(logits)
            loss = F.binary_cross_entropy(p_desirable, b_lab)
            accelerator.backward(loss)
            opt.step()
            opt.zero_grad()
            total += loss.item() * b_ids.size(0)
            correct += ((p_desirable > 0.5).float() == b_lab).sum().item()
            seen += b_ids.size(0)
        accelerator.print(f"epoch {epoch} bce {total / seen:.4f} acc {correct / seen:.3f}")
    accelerator.print("done")


if __name__ == "__main__":
    main()
