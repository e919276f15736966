import torch
from transformers import (
    LlamaConfig, LlamaForCausalLM, DynamicCache, LogitsProcessor, LogitsProcessorList,
)

torch.manual_seed(0)
config = LlamaConfig(
    vocab_size=600, hidden_size=64, intermediate_size=176, num_hidden_layers=2,
    num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=512,
    rope_scaling={"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 128},
    pad_token_id=0, bos_token_id=1, eos_token_id=2,
)
model = LlamaForCausalLM(config).to(torch.bfloat16).eval()


class PresenceAndBias(LogitsProcessor):
    def __init__(self, presence=0.4, frequency=0.2, logit_bias=None):
        self.presence, self.frequency = presence, frequency
        self.logit_bias = logit_bias or {}

    def __call__(self, input_ids, scores):
        scores = scores.float()
        counts = torch.zeros_like(scores)
        counts.scatter_add_(1, input_ids, torch.ones_like(input_ids, dtype=scores.dtype))
        scores = scores - self.presence * (counts > 0).to(scores.dtype) - self.frequency * counts
        if self.logit_bias:
            idx = torch.tensor(list(self.logit_bias.keys()))
            val = torch.tensor(list(self.logit_bias.values()), dtype=scores.dtype)
            scores[:, idx] += val
        return scores


class MinP(LogitsProcessor):
    def __init__(self, min_p=0.05):
        self.min_p = min_p

    def __call__(self, input_ids, scores):
        probs = torch.softmax(scores.float(), dim=-1)
        thresh = self.min_p * probs.max(dim=-1, keepdim=True).values
        return scores.masked_fill(probs < thresh, torch.finfo(scores.dtype).min)


processors = LogitsProcessorList([
    PresenceAndBias(logit_bias={5: 2.0, 17: -100.0, 2: -5.0}),
    MinP(0.05),
])

prompts = [torch.randint(3, 600, (n,)) for n in (9, 14, 6)]
width = max(len(p) for p in prompts)
input_ids = torch.full((len(prompts), width), config.pad_token_id)
attention_mask = torch.zeros_like(input_ids)
for i, p in enumerate(prompts):
    input_ids[i, width - len(p):] = p
    attention_mask[i, width - len(p):] = 1

with torch.no_grad():
    cache = DynamicCache(config=config)
    out = model.generate(
        input_ids=input_ids, attention_mask=attention_mask, cache=cache,
        max_new_tokens=24, do_sample=True, temperature=0.8, top_k=50,
        logits_processor=processors, output_scores=True, return_dict_in_generate=True,
    )
    new_tokens = out.sequences[:, width:]
    full_mask = torch.cat([attention_mask, torch.ones_like(new_tokens)], dim=1)
    logits = model(out.sequences, attention_mask=full_mask).logits.float()
    logp = torch.log_softmax(logits[:, width - 1:-1], dim=-1)
    tok_lp = logp.gather(-1, new_tokens[..., None]).squeeze(-1)

for i in range(len(prompts)):
    ppl = torch.exp(-tok_lp[i].mean())
    print(f"request {i}: {new_tokens[i, :8].tolist()} logprob {tok_lp[i].sum().item():.3f} ppl {ppl.item():.2f}")
print("banned token 17 generated:", bool((new_tokens == 17).any()))
print("cache length:", cache.get_seq_length())
