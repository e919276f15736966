"""Pairwise (Bradley-Terry) reward model training on a GPT-NeoX backbone in bf16.

Chosen / rejected completions share a prompt; the reward is read off the last
non-pad token of each sequence and trained with -logsigmoid(r_chosen - r_rejected).
"""
import math
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from transformers import GPTNeoXConfig, GPTNeoXModel

torch.manual_seed(0)
np.random.seed(0)
random.seed(0)

VOCAB = 200
PAD = 0
MAX_LEN = 24
BATCH = 8
STEPS = 20


def make_pairs(n):
    """Synthetic preference data: 'chosen' responses repeat the prompt's first token
    more often than 'rejected' ones."""
    pairs = []
    for _ in range(n):
        plen = random.randint(4, 8)
        prompt = np.random.randint(3, VOCAB, size=plen).tolist()
        key = prompt[0]
        rlen_c = random.randint(4, 10)
        rlen_r = random.randint(4, 10)
        chosen = [key if random.random() < 0.6 else random.randint(3, VOCAB - 1) for _ in range(rlen_c)]
        rejected = [random.randint(3, VOCAB - 1) for _ in range(rlen_r)]
        pairs.append((prompt + chosen, prompt + rejected))
    return pairs


def pad_batch(seqs):
    ids = torch.full((len(seqs), MAX_LEN), PAD, dtype=torch.long)
    mask = torch.zeros((len(seqs), MAX_LEN), dtype=torch.long)
    for i, s in enumerate(seqs):
        s = s[:MAX_LEN]
        ids[i, : len(s)] = torch.tensor(s)
        mask[i, : len(s)] = 1
    return ids, mask


class RewardModel(nn.Module):
    def __init__(self, backbone):
        super().__init__()
        self.backbone = backbone
        hidden = backbone.config.hidden_size
        self.reward_head = nn.Linear(hidden, 1)
        nn.init.normal_(self.reward_head.weight, std=1 / math.sqrt(hidden + 1))
        nn.init.zeros_(self.reward_head.bias)

    def forward(self, input_ids, attention_mask):
        out = self.backbone(input_ids=input_ids, attention_mask=attention_mask)
        hidden = out.last_hidden_state
        last = attention_mask.sum(-1) - 1
        pooled = hidden[torch.arange(hidden.size(0)), last]
        return self.reward_head(pooled).squeeze(-1)


def main():
    cfg = GPTNeoXConfig(
        vocab_size=VOCAB,
        hidden_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=128,
        max_position_embeddings=64,
        rotary_pct=0.25,
    )
    # keep the big part in bf16 to halve memory
    backbone = GPTNeoXModel(cfg).to(torch.bfloat16)
    model = RewardModel(backbone)
    model.train()

    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.0)
    data = make_pairs(BATCH * STEPS)

    for step in range(STEPS):
        batch = data[step * BATCH : (step + 1) * BATCH]
        c_ids, c_mask = pad_batch([c for c, _ in batch])
        r_ids, r_mask = pad_batch([r for _, r in batch])
        ids = torch.cat([c_ids, r_ids])
        mask = torch.cat([c_mask, r_mask])

        rewards = model(ids, mask)
        r_c, r_r = rewards[:BATCH], rewards[BATCH:]
        loss = -F.logsigmoid(r_c.float() - r_r.float()).mean()
        acc = (r_c > r_r).float().mean()

        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step % 5 == 0:
            print(f"step {step:3d} loss {loss.item():.4f} acc {acc.item():.2f} margin {(r_c - r_r).mean().item():.4f}")

    print("done")


if __name__ == "__main__":
    main()
