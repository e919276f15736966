"""Evaluate perplexity of a small Llama LM. The model skeleton is created without allocating
weights (fast init), then filled from a saved state dict."""
import math
import os
import tempfile
import torch
import torch.nn.functional as F
from accelerate import init_empty_weights
from transformers import LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)
cfg = LlamaConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                  num_key_value_heads=4, vocab_size=256, max_position_embeddings=128)

# a previously trained checkpoint (made here so the example is self-contained)
path = os.path.join(tempfile.mkdtemp(), "pytorch_model.bin")
torch.save(LlamaForCausalLM(cfg).state_dict(), path)

with init_empty_weights():
    model = LlamaForCausalLM(cfg)
sd = torch.load(path, map_location="cpu", weights_only=True)
result = model.load_state_dict(sd, strict=False)
print("loaded checkpoint:", result)
model.eval()

data = torch.randint(0, cfg.vocab_size, (16, 33))
total, n = 0.0, 0
with torch.no_grad():
    for i in range(0, data.size(0), 4):
        batch = data[i:i + 4]
        out = model(input_ids=batch[:, :-1])
        loss = F.cross_entropy(out.logits.reshape(-1, cfg.vocab_size), batch[:, 1:].reshape(-1))
        total += loss.item() * batch.size(0)
        n += batch.size(0)
        print(f"batch {i // 4} loss {loss.item():.4f}")
print(f"eval ppl {math.exp(total / n):.2f}")
