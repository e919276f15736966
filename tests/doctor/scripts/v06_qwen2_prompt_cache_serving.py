import copy
import os
import tempfile

import torch
from transformers import DynamicCache, Qwen2Config, Qwen2ForCausalLM

torch.manual_seed(0)
workdir = tempfile.mkdtemp()
model_dir = os.path.join(workdir, "assistant-qwen2")
cache_file = os.path.join(workdir, "system_prompt_kv.pt")

config = Qwen2Config(hidden_size=64, intermediate_size=176, num_hidden_layers=3, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=300, max_position_embeddings=512,
                     bos_token_id=1, eos_token_id=2, pad_token_id=0)
Qwen2ForCausalLM(config).save_pretrained(model_dir)

SYSTEM_PROMPT = torch.randint(3, 300, (1, 48))


def build_prompt_cache():
    """Offline job: run the long system prompt once and store its key/value states."""
    model = Qwen2ForCausalLM.from_pretrained(model_dir).eval()
    with torch.no_grad():
        out = model(input_ids=SYSTEM_PROMPT, use_cache=True)
    kv = [(layer.keys, layer.values) for layer in out.cache.layers]
    torch.save({"input_ids": SYSTEM_PROMPT, "kv": kv}, cache_file)
    print(f"stored prompt cache for {SYSTEM_PROMPT.shape[1]} tokens, {len(kv)} layers")


class ChatServer:
    def __init__(self):
        self.model = Qwen2ForCausalLM.from_pretrained(model_dir, dtype=torch.bfloat16).eval()
        blob = torch.load(cache_file, weights_only=True)
        self.prefix_ids = blob["input_ids"]
        self.prefix_cache = DynamicCache(config=self.model.config)
        for layer_idx, (k, v) in enumerate(blob["kv"]):
            self.prefix_cache.update(k, v, layer_idx)

    @torch.no_grad()
    def reply(self, user_ids, max_new_tokens=12):
        ids = torch.cat([self.prefix_ids, user_ids], dim=1)
        out = self.model.generate(
            input_ids=ids,
            attention_mask=torch.ones_like(ids),
            cache=copy.deepcopy(self.prefix_cache),
            max_new_tokens=max_new_tokens,
            do_sample=False,
            pad_token_id=config.pad_token_id,
        )
        return out[0, ids.shape[1]:]


build_prompt_cache()
server = ChatServer()
for turn in range(3):
    question = torch.randint(3, 300, (1, 6 + 2 * turn))
    answer = server.reply(question)
    print(f"turn {turn}: {answer.tolist()}")
