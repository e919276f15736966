"""Tiny GPT-2 trained in two sessions. The first session writes a full training checkpoint
(model, optimizer, data-order generator, global RNG) slimmed to fp16 to save disk; the
second session resumes from it and continues training."""
import os
import tempfile

import torch
from torch.utils._pytree import tree_map
from torch.utils.data import DataLoader, TensorDataset
from transformers import GPT2Config, GPT2LMHeadModel

torch.manual_seed(0)

cfg = GPT2Config(vocab_size=96, n_positions=64, n_embd=64, n_layer=2, n_head=4,
                 resid_pdrop=0.1, embd_pdrop=0.1, attn_pdrop=0.0, bos_token_id=0, eos_token_id=1)


def make_corpus(n=256, seq=32):
    g = torch.Generator().manual_seed(123)
    base = torch.randint(3, cfg.vocab_size, (n, 1), generator=g)
    offs = torch.arange(seq).unsqueeze(0)
    return (base + offs * torch.randint(1, 4, (n, 1), generator=g)) % cfg.vocab_size


def build(data_gen):
    model = GPT2LMHeadModel(cfg)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    loader = DataLoader(TensorDataset(make_corpus()), batch_size=16, shuffle=True, generator=data_gen)
    return model, opt, loader


def train_steps(model, opt, loader, n_steps, start):
    model.train()
    step = start
    while step < start + n_steps:
        for (ids,) in loader:
            loss = model(input_ids=ids, labels=ids).loss
            loss.backward()
            opt.step()
            opt.zero_grad()
            step += 1
            if step % 10 == 0:
                print(f"step {step} loss {loss.item():.4f}")
            if step >= start + n_steps:
                break
    return step


def main():
    data_gen = torch.Generator().manual_seed(42)
    model, opt, loader = build(data_gen)
    step = train_steps(model, opt, loader, 30, 0)

    with tempfile.TemporaryDirectory() as tmp:
        ckpt_path = os.path.join(tmp, "ckpt.pt")
        ckpt = {
            "model": model.state_dict(),
            "optim": opt.state_dict(),
            "data_rng": data_gen.get_state(),
            "torch_rng": torch.get_rng_state(),
            "step": step,
        }
        ckpt = tree_map(lambda t: t.half() if isinstance(t, torch.Tensor) else t, ckpt)  # halve the file size
        torch.save(ckpt, ckpt_path)
        print(f"checkpoint at step {step}: {os.path.getsize(ckpt_path) // 1024} KB")
        del model, opt, loader

        # ---- session 2: resume ----
        data_gen = torch.Generator()
        model, opt, loader = build(data_gen)
        ckpt = torch.load(ckpt_path, weights_only=True)
        model.load_state_dict(ckpt["model"])
        opt.load_state_dict(ckpt["optim"])
        data_gen.set_state(ckpt["data_rng"])
        torch.set_rng_state(ckpt["torch_rng"])
        step = train_steps(model, opt, loader, 30, ckpt["step"])
        print("resumed run finished at step", step)


if __name__ == "__main__":
    main()
