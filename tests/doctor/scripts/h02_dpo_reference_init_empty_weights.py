"""DPO fine-tuning of a small Qwen2 policy against a frozen reference copy.

The reference model is built with accelerate's init_empty_weights so that the
second random init is skipped, then filled from the policy's state dict.
"""
import random

import torch
import torch.nn.functional as F
from accelerate import init_empty_weights
from transformers import Qwen2Config, Qwen2ForCausalLM

torch.manual_seed(0)
random.seed(0)

VOCAB = 256
PAD = 0
BETA = 0.1
BATCH = 4
STEPS = 12


def build_example():
    prompt = [random.randint(3, VOCAB - 1) for _ in range(random.randint(5, 9))]
    chosen = [prompt[-1]] * random.randint(3, 6) + [2]
    rejected = [random.randint(3, VOCAB - 1) for _ in range(random.randint(3, 6))] + [2]
    return prompt, chosen, rejected


def collate(examples):
    """Concatenate chosen and rejected into one batch; labels are -100 on the prompt and padding."""
    seqs, labels = [], []
    for key in ("chosen", "rejected"):
        for prompt, chosen, rejected in examples:
            resp = chosen if key == "chosen" else rejected
            seqs.append(prompt + resp)
            labels.append([-100] * len(prompt) + resp)
    L = max(len(s) for s in seqs)
    ids = torch.full((len(seqs), L), PAD, dtype=torch.long)
    lab = torch.full((len(seqs), L), -100, dtype=torch.long)
    att = torch.zeros((len(seqs), L), dtype=torch.long)
    for i, (s, l) in enumerate(zip(seqs, labels)):
        ids[i, : len(s)] = torch.tensor(s)
        lab[i, : len(l)] = torch.tensor(l)
        att[i, : len(s)] = 1
    return ids, att, lab


def get_batch_logps(logits, labels):
    labels = labels[:, 1:].clone()
    logits = logits[:, :-1, :]
    loss_mask = labels != -100
    labels[~loss_mask] = 0
    per_token_logps = torch.gather(logits.log_softmax(-1), 2, labels.unsqueeze(2)).squeeze(2)
    return (per_token_logps * loss_mask).sum(-1)


def dpo_loss(pc, pr, rc, rr, beta=BETA):
    pi_logratios = pc - pr
    ref_logratios = rc - rr
    logits = pi_logratios - ref_logratios
    losses = -F.logsigmoid(beta * logits)
    chosen_rewards = beta * (pc - rc).detach()
    rejected_rewards = beta * (pr - rr).detach()
    return losses.mean(), chosen_rewards, rejected_rewards


def main():
    cfg = Qwen2Config(
        vocab_size=VOCAB,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=128,
        tie_word_embeddings=False,
    )
    policy = Qwen2ForCausalLM(cfg)

    # reference: same weights, no grad. Skip the random init, we overwrite it anyway.
    with init_empty_weights():
        ref_model = Qwen2ForCausalLM(cfg)
    ref_model.load_state_dict(policy.state_dict())
    ref_model.eval()
    ref_model.requires_grad_(False)

    opt = torch.optim.AdamW(policy.parameters(), lr=5e-5)
    data = [build_example() for _ in range(BATCH * STEPS)]

    for step in range(STEPS):
        ids, att, lab = collate(data[step * BATCH : (step + 1) * BATCH])
        logits = policy(input_ids=ids, attention_mask=att).logits
        logps = get_batch_logps(logits, lab)
        pc, pr = logps[:BATCH], logps[BATCH:]

        with torch.no_grad():
            ref_logits = ref_model(input_ids=ids, attention_mask=att).logits
            ref_logps = get_batch_logps(ref_logits, lab)
        rc, rr = ref_logps[:BATCH], ref_logps[BATCH:]

        loss, cr, rj = dpo_loss(pc, pr, rc, rr)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 4 == 0:
            print(f"step {step} loss {loss.item():.4f} reward_acc {(cr > rj).float().mean().item():.2f}")
    print("done")


if __name__ == "__main__":
    main()
