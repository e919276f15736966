"""Perplexity evaluation of a tiny Mistral loaded in fp16 for speed.
Token-level NLL is summed over the whole eval set and divided at the end (exact corpus perplexity)."""
import math

import torch
import torch.nn.functional as F
from transformers import MistralConfig, MistralForCausalLM

torch.manual_seed(0)

config = MistralConfig(vocab_size=32000, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                       num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=512,
                       sliding_window=256, tie_word_embeddings=True)
model = MistralForCausalLM(config).to(torch.float16).eval()

# eval corpus: 10 batches of 6 x 128 tokens
g = torch.Generator().manual_seed(1)
corpus = torch.randint(0, config.vocab_size, (10 * 6, 129), generator=g)

total_nll, total_tokens = 0.0, 0
with torch.no_grad():
    for i in range(0, len(corpus), 6):
        chunk = corpus[i:i + 6]
        logits = model(input_ids=chunk[:, :-1]).logits
        nll = F.cross_entropy(logits.reshape(-1, config.vocab_size), chunk[:, 1:].reshape(-1), reduction="sum")
        total_nll += nll
        total_tokens += chunk[:, 1:].numel()
        print(f"chunk {i // 6:2d}  running ppl {torch.exp(total_nll / total_tokens).item():.1f}")

ppl = torch.exp(total_nll / total_tokens)
print(f"corpus perplexity: {ppl.item():.2f}  (uniform baseline {config.vocab_size})")
