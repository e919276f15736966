"""Rejection-sampling fine-tuning (best-of-n) with a small OPT policy served in fp16.

For each prompt we sample N completions with top-k / temperature sampling, score
them with a reward function, keep the best one and do an SFT step on it.
"""
import numpy as np
import torch
import torch.nn.functional as F
from transformers import OPTConfig, OPTForCausalLM

torch.manual_seed(0)
np.random.seed(0)

VOCAB = 200
N_SAMPLES = 4
MAX_NEW = 8
TOP_K = 20
TEMPERATURE = 0.8
NEG_INF = torch.finfo(torch.float32).min


def top_k_filter(logits, k):
    kth = torch.topk(logits, k, dim=-1).values[..., -1:]
    return logits.masked_fill(logits < kth, NEG_INF)


@torch.no_grad()
def sample_n(model, prompt, n):
    ids = prompt.repeat(n, 1)
    attn = torch.ones_like(ids)
    past = None
    step_ids = ids
    for _ in range(MAX_NEW):
        out = model(input_ids=step_ids, attention_mask=attn, past_key_values=past, use_cache=True)
        past = out.past_key_values
        logits = out.logits[:, -1, :] / TEMPERATURE
        logits = top_k_filter(logits, TOP_K)
        probs = torch.softmax(logits, dim=-1)
        nxt = torch.multinomial(probs.float(), 1)
        ids = torch.cat([ids, nxt], dim=1)
        attn = torch.cat([attn, torch.ones_like(nxt)], dim=1)
        step_ids = nxt
    return ids


def reward(resp):
    # numpy reward: prefer diverse, low-id tokens
    r = resp.numpy()
    return len(np.unique(r)) / len(r) - r.mean() / VOCAB


def main():
    cfg = OPTConfig(
        vocab_size=VOCAB,
        hidden_size=64,
        ffn_dim=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        max_position_embeddings=64,
        word_embed_proj_dim=64,
        pad_token_id=1,
        bos_token_id=2,
        eos_token_id=2,
    )
    policy = OPTForCausalLM(cfg).half()
    opt = torch.optim.SGD(policy.parameters(), lr=1e-2)
    prompts = [torch.randint(3, VOCAB, (1, 5)) for _ in range(4)]

    for rnd in range(2):
        policy.eval()
        best = []
        for p in prompts:
            cands = sample_n(policy, p, N_SAMPLES)
            scores = [reward(c[p.size(1):]) for c in cands]
            best.append(cands[int(np.argmax(scores))])
            print(f"round {rnd} best score {max(scores):.3f}")
        policy.train()
        batch = torch.stack(best)
        out = policy(input_ids=batch, labels=batch)
        opt.zero_grad()
        out.loss.backward()
        opt.step()
        print(f"round {rnd} sft loss {out.loss.item():.4f}")
    print("done")


if __name__ == "__main__":
    main()
