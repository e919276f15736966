import copy
import torch
from transformers import Qwen2Config, Qwen2ForCausalLM, StaticCache

torch.manual_seed(0)
config = Qwen2Config(
    vocab_size=800, hidden_size=64, intermediate_size=160, num_hidden_layers=2,
    num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=512,
    sliding_window=None, use_sliding_window=False, tie_word_embeddings=True,
)
model = Qwen2ForCausalLM(config).eval()
MAX_LEN = 96

SYSTEM_PROMPT = torch.randint(3, 800, (1, 24))


def build_prefix_cache(model, system_ids):
    cache = StaticCache(config=model.config, max_cache_len=MAX_LEN)
    with torch.no_grad():
        model(input_ids=system_ids, cache=cache, use_cache=True,
              cache_position=torch.arange(system_ids.shape[1]))
    return cache


prefix_cache = build_prefix_cache(model, SYSTEM_PROMPT)
print("prefix cached tokens:", int(prefix_cache.get_seq_length()))

model = model.to(torch.bfloat16)
print("serving dtype:", next(model.parameters()).dtype)


@torch.no_grad()
def serve(user_ids, max_new=20, temperature=0.8, top_p=0.9):
    cache = copy.deepcopy(prefix_cache)
    start = SYSTEM_PROMPT.shape[1]
    pos = torch.arange(start, start + user_ids.shape[1])
    logits = model(input_ids=user_ids, cache=cache, use_cache=True, cache_position=pos).logits[:, -1]
    out, logprob = [], 0.0
    cur = start + user_ids.shape[1]
    for _ in range(max_new):
        scores = logits.float() / temperature
        probs = torch.softmax(scores, dim=-1)
        sorted_p, idx = probs.sort(descending=True)
        keep = sorted_p.cumsum(-1) - sorted_p < top_p
        sorted_p = sorted_p * keep
        choice = torch.multinomial(sorted_p / sorted_p.sum(), 1)
        tok = idx.gather(-1, choice)
        logprob += torch.log(probs.gather(-1, tok)).item()
        out.append(tok.item())
        logits = model(input_ids=tok, cache=cache, use_cache=True,
                       cache_position=torch.tensor([cur])).logits[:, -1]
        cur += 1
    return out, logprob


for r in range(3):
    user = torch.randint(3, 800, (1, int(torch.randint(5, 15, ()))))
    toks, lp = serve(user)
    print(f"request {r}: {toks[:10]} ... logprob {lp:.3f} ({lp / len(toks):.3f}/tok)")
