"""GRPO on a small Mistral policy, starting from an SFT checkpoint in safetensors.

Stage 0 writes the "SFT" checkpoint (here: random init, bf16). Stage 1 loads it
the fast way (build on the meta device, then assign the loaded tensors) and runs
a few GRPO iterations: sample G completions per prompt, score them with a rule,
normalise rewards within each group, and take a clipped policy-gradient step.
"""
import json
import os
import tempfile

import torch
import torch.nn.functional as F
from safetensors.torch import load_file, save_file
from transformers import MistralConfig, MistralForCausalLM

torch.manual_seed(0)

VOCAB = 192
GROUP = 4
PROMPTS = 3
MAX_NEW = 8
CLIP = 0.2
ITERS = 3


def write_sft_checkpoint(path):
    cfg = MistralConfig(
        vocab_size=VOCAB,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=128,
        sliding_window=None,
    )
    model = MistralForCausalLM(cfg).to(torch.bfloat16)
    sd = {k: v.contiguous() for k, v in model.state_dict().items()}
    save_file(sd, os.path.join(path, "model.safetensors"), metadata={"format": "pt"})
    with open(os.path.join(path, "config.json"), "w") as f:
        json.dump(cfg.to_dict(), f)


def load_policy(path):
    with open(os.path.join(path, "config.json")) as f:
        cfg = MistralConfig.from_dict(json.load(f))
    # avoid a useless random init of every weight: build on meta, then take the checkpoint tensors
    with torch.device("meta"):
        model = MistralForCausalLM(cfg)
    state = load_file(os.path.join(path, "model.safetensors"))
    model.load_state_dict(state, assign=True)
    return model


@torch.no_grad()
def sample(model, prompt_ids, n, max_new):
    ids = prompt_ids.repeat(n, 1)
    for _ in range(max_new):
        logits = model(input_ids=ids).logits[:, -1, :].float()
        probs = torch.softmax(logits / 0.9, dim=-1)
        nxt = torch.multinomial(probs, 1)
        ids = torch.cat([ids, nxt], dim=1)
    return ids


def reward_fn(completion, target):
    return float((completion == target).sum().item() > 0)


def seq_logps(model, ids, prompt_len):
    logits = model(input_ids=ids).logits[:, :-1].float()
    tgt = ids[:, 1:]
    logp = torch.gather(logits.log_softmax(-1), 2, tgt.unsqueeze(-1)).squeeze(-1)
    return logp[:, prompt_len - 1 :]


def main():
    with tempfile.TemporaryDirectory() as d:
        write_sft_checkpoint(d)
        policy = load_policy(d)

    policy.train()
    opt = torch.optim.AdamW(policy.parameters(), lr=1e-5)
    prompts = [torch.randint(3, VOCAB, (1, 6)) for _ in range(PROMPTS)]

    for it in range(ITERS):
        batch_ids, batch_adv = [], []
        for p in prompts:
            comp = sample(policy, p, GROUP, MAX_NEW)
            target = int(p[0, 0])
            r = torch.tensor([reward_fn(c[p.size(1):], target) for c in comp])
            adv = (r - r.mean()) / (r.std() + 1e-4)
            batch_ids.append(comp)
            batch_adv.append(adv)

        total = 0.0
        for ids, adv in zip(batch_ids, batch_adv):
            with torch.no_grad():
                old = seq_logps(policy, ids, 6)
            new = seq_logps(policy, ids, 6)
            ratio = torch.exp(new - old)
            pg1 = ratio * adv[:, None]
            pg2 = torch.clamp(ratio, 1 - CLIP, 1 + CLIP) * adv[:, None]
            loss = -torch.min(pg1, pg2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
        print(f"iter {it} loss {total / PROMPTS:.4f}")
    print("done")


if __name__ == "__main__":
    main()
