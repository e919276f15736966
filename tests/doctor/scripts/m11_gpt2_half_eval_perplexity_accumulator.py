"""Train a tiny GPT-2 for a few steps with bf16 autocast, then compute held-out
perplexity.  Evaluation converts the model to fp16 to make it faster."""
import math
import torch
from transformers import GPT2Config, GPT2LMHeadModel

torch.manual_seed(0)
V, T, BS = 1000, 32, 8

cfg = GPT2Config(attn_implementation="eager", vocab_size=V, n_positions=64, n_embd=64, n_layer=2, n_head=4,
                 bos_token_id=0, eos_token_id=0)
model = GPT2LMHeadModel(cfg)


def make_stream(n_tokens, seed):
    g = torch.Generator().manual_seed(seed)
    # Zipf-ish unigram distribution with a little bigram structure
    probs = 1.0 / torch.arange(1, V + 1).float()
    toks = torch.multinomial(probs / probs.sum(), n_tokens, replacement=True, generator=g)
    toks[1::2] = (toks[0::2] * 7 + 3) % V
    return toks


train = make_stream(64 * BS * T, 1).view(-1, T)
held_out = make_stream(48 * BS * T, 2).view(-1, T)

opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
model.train()
for i in range(0, 32 * BS, BS):
    batch = train[i:i + BS]
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        loss = model(input_ids=batch, labels=batch).loss
    opt.zero_grad()
    loss.backward()
    opt.step()
print("last train loss", loss.item())

# ---- evaluation ----
model.half().eval()
nll_total, n_tokens = 0.0, 0
with torch.no_grad():
    for i in range(0, held_out.size(0), BS):
        batch = held_out[i:i + BS]
        logits = model(input_ids=batch).logits[:, :-1]
        log_probs = torch.log_softmax(logits, dim=-1)
        token_lp = log_probs.gather(-1, batch[:, 1:, None]).squeeze(-1)
        nll_total += -token_lp.sum()
        n_tokens += token_lp.numel()
ppl = math.exp(nll_total / n_tokens)
print(f"held-out tokens {n_tokens}  nll/token {float(nll_total) / n_tokens:.4f}  ppl {ppl:.2f}")
