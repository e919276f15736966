import os
import tempfile

import numpy as np
import torch
from transformers import GPT2Config, GPT2LMHeadModel

torch.manual_seed(0)
rng = np.random.default_rng(0)

VOCAB = 512
BLOCK = 64
BATCH = 8


def build_corpus(path, n_tokens=40_000):
    # tiny synthetic "language": repeating motifs plus noise, stored like nanoGPT's train.bin
    motifs = rng.integers(0, VOCAB, size=(32, 16))
    out = []
    while len(out) < n_tokens:
        m = motifs[rng.integers(0, len(motifs))]
        out.extend(m.tolist())
        out.extend(rng.integers(0, VOCAB, size=4).tolist())
    arr = np.array(out[:n_tokens], dtype=np.uint16)
    arr.tofile(path)
    return n_tokens


def get_batch(data):
    ix = rng.integers(0, len(data) - BLOCK - 1, size=BATCH)
    x = torch.stack([torch.from_numpy(data[i:i + BLOCK]) for i in ix])
    y = torch.stack([torch.from_numpy(data[i + 1:i + 1 + BLOCK]) for i in ix])
    return x, y


def main():
    tmp = tempfile.mkdtemp(prefix="gpt2_ckpt_")
    path = os.path.join(tmp, "train.bin")
    build_corpus(path)
    data = np.memmap(path, dtype=np.uint16, mode="r")
    split = int(0.9 * len(data))
    train_data, val_data = data[:split], data[split:]

    cfg = GPT2Config(vocab_size=VOCAB, n_positions=BLOCK, n_embd=96, n_layer=3, n_head=4,
                     resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)
    model = GPT2LMHeadModel(cfg)
    model.gradient_checkpointing_enable()
    model.config.use_cache = False
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)

    model.train()
    for step in range(30):
        x, y = get_batch(train_data)
        out = model(input_ids=x)
        logits = out.logits
        loss = torch.nn.functional.cross_entropy(logits.view(-1, VOCAB), y.view(-1).long())
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step % 10 == 0:
            print(f"step {step:3d} loss {loss.item():.4f}")

    model.eval()
    losses = []
    with torch.no_grad():
        for _ in range(5):
            x, y = get_batch(val_data)
            logits = model(input_ids=x).logits
            losses.append(torch.nn.functional.cross_entropy(logits.view(-1, VOCAB), y.view(-1).long()).item())
    print(f"val loss {sum(losses) / len(losses):.4f}")


if __name__ == "__main__":
    main()
