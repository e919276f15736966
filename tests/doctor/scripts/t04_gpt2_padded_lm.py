"""Causal LM fine-tuning of a tiny GPT-2 on variable-length sequences, padded by hand."""
import numpy as np
import torch
from transformers import GPT2Config, GPT2LMHeadModel

torch.manual_seed(0)
rng = np.random.default_rng(0)

PAD = 0


def fake_tokenized_corpus(n=64):
    return [list(rng.integers(1, 256, size=rng.integers(5, 30))) for _ in range(n)]


def collate(seqs):
    L = max(len(s) for s in seqs)
    ids = np.zeros((len(seqs), L))
    mask = np.zeros((len(seqs), L))
    for i, s in enumerate(seqs):
        ids[i, :len(s)] = s
        mask[i, :len(s)] = 1
    input_ids = torch.from_numpy(ids)
    attention_mask = torch.from_numpy(mask)
    labels = input_ids.clone().long()
    labels[attention_mask == 0] = -100
    return input_ids, attention_mask, labels


def main():
    cfg = GPT2Config(n_embd=64, n_layer=2, n_head=4, vocab_size=256, n_positions=64,
                     bos_token_id=0, eos_token_id=0)
    model = GPT2LMHeadModel(cfg)
    opt = torch.optim.AdamW(model.parameters(), lr=5e-4)
    corpus = fake_tokenized_corpus()
    for step in range(4):
        batch = corpus[step * 8:(step + 1) * 8]
        input_ids, attention_mask, labels = collate(batch)
        out = model(input_ids=input_ids, attention_mask=attention_mask, labels=labels)
        opt.zero_grad()
        out.loss.backward()
        opt.step()
        print(f"step {step} loss {out.loss.item():.4f}")


if __name__ == "__main__":
    main()
