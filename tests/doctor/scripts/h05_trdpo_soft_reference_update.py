"""TR-DPO (trust-region DPO) on a small Phi model.

The policy is trained in bf16. The reference model is a copy kept in fp32 so its
log-probs are accurate; every SYNC_EVERY steps it is softly pulled towards the
policy: ref <- (1 - alpha) * ref + alpha * policy.
"""
import copy
import random

import torch
import torch.nn.functional as F
from transformers import PhiConfig, PhiForCausalLM

torch.manual_seed(0)
random.seed(0)

VOCAB = 224
BETA = 0.1
ALPHA = 0.6
SYNC_EVERY = 3
STEPS = 9
BATCH = 4


def make_batch():
    chosen, rejected, prompt_lens = [], [], []
    for _ in range(BATCH):
        prompt = [random.randint(2, VOCAB - 1) for _ in range(6)]
        good = sorted(random.sample(range(2, VOCAB), 6))
        bad = random.sample(range(2, VOCAB), 6)
        chosen.append(prompt + good)
        rejected.append(prompt + bad)
        prompt_lens.append(len(prompt))
    return torch.tensor(chosen + rejected), prompt_lens[0]


def sequence_logps(model, ids, prompt_len):
    logits = model(input_ids=ids).logits[:, :-1]
    logp = torch.log_softmax(logits.float(), dim=-1)
    tok = torch.gather(logp, 2, ids[:, 1:, None]).squeeze(-1)
    return tok[:, prompt_len - 1 :].sum(-1)


@torch.no_grad()
def soft_update(ref, policy, alpha):
    for p_ref, p in zip(ref.parameters(), policy.parameters()):
        p_ref.data.lerp_(p.data, alpha)


def main():
    cfg = PhiConfig(
        vocab_size=VOCAB,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        max_position_embeddings=64,
    )
    policy = PhiForCausalLM(cfg).to(torch.bfloat16)
    ref = copy.deepcopy(policy).float().eval()
    ref.requires_grad_(False)

    opt = torch.optim.AdamW(policy.parameters(), lr=1e-4)
    for step in range(1, STEPS + 1):
        ids, plen = make_batch()
        logps = sequence_logps(policy, ids, plen)
        with torch.no_grad():
            ref_logps = sequence_logps(ref, ids, plen)
        pc, pr = logps[:BATCH], logps[BATCH:]
        rc, rr = ref_logps[:BATCH], ref_logps[BATCH:]
        margin = (pc - rc) - (pr - rr)
        loss = -F.logsigmoid(BETA * margin).mean()

        opt.zero_grad()
        loss.backward()
        opt.step()

        if step % SYNC_EVERY == 0:
            soft_update(ref, policy, ALPHA)
            print(f"step {step}: reference synced")
        print(f"step {step} loss {loss.item():.4f} margin {margin.mean().item():.3f}")
    print("done")


if __name__ == "__main__":
    main()
