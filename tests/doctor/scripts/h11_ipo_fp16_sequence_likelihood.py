"""IPO (identity preference optimisation) on a tiny Phi-3 model kept in fp16.

The response likelihood pi(y|x) is computed from the token probabilities over the
response span, for policy and frozen reference, on chosen and rejected pairs.
"""
import copy
import random

import torch
from transformers import Phi3Config, Phi3ForCausalLM

torch.manual_seed(0)
random.seed(0)

VOCAB = 256
TAU = 0.1
BATCH = 4
STEPS = 6
PROMPT_LEN = 6
RESP_LEN = 10


def make_pairs():
    ids_c, ids_r = [], []
    for _ in range(BATCH):
        prompt = [random.randint(1, VOCAB - 1) for _ in range(PROMPT_LEN)]
        chosen = [(prompt[-1] + i) % VOCAB for i in range(RESP_LEN)]
        rejected = [random.randint(1, VOCAB - 1) for _ in range(RESP_LEN)]
        ids_c.append(prompt + chosen)
        ids_r.append(prompt + rejected)
    return torch.tensor(ids_c + ids_r)


def response_log_likelihood(model, ids):
    logits = model(input_ids=ids).logits[:, PROMPT_LEN - 1 : -1]
    probs = torch.softmax(logits, dim=-1)
    tok_probs = torch.gather(probs, 2, ids[:, PROMPT_LEN:, None]).squeeze(-1)
    seq_prob = tok_probs.prod(dim=-1)
    return torch.log(seq_prob)


def main():
    cfg = Phi3Config(
        vocab_size=VOCAB,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=4,
        max_position_embeddings=64,
        original_max_position_embeddings=64,
        pad_token_id=0,
        bos_token_id=1,
        eos_token_id=2,
    )
    policy = Phi3ForCausalLM(cfg).half()
    ref = copy.deepcopy(policy).eval().requires_grad_(False)
    opt = torch.optim.SGD(policy.parameters(), lr=1e-2, momentum=0.9)

    for step in range(STEPS):
        ids = make_pairs()
        ll = response_log_likelihood(policy, ids)
        with torch.no_grad():
            ref_ll = response_log_likelihood(ref, ids)
        h = (ll[:BATCH] - ref_ll[:BATCH]) - (ll[BATCH:] - ref_ll[BATCH:])
        loss = ((h - 1 / (2 * TAU)) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step} ipo loss {loss.item():.4f} h {h.float().mean().item():.4f}")
    print("done")


if __name__ == "__main__":
    main()
