"""Serve a tiny Llama that was trained in bf16, loading it in float16 for inference.

The first block writes the "trained" checkpoint (bf16). Trained LLMs develop a
few very large residual-stream features ("massive activations"); we reproduce
that by scaling the MLP of layer 1 the way training typically ends up.
"""
import os
import tempfile
import torch
from safetensors.torch import save_file, load_file
from transformers import LlamaConfig, LlamaForCausalLM, GenerationConfig

torch.manual_seed(0)
cfg = LlamaConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                  num_attention_heads=4, num_key_value_heads=4, vocab_size=256,
                  max_position_embeddings=128, bos_token_id=1, eos_token_id=2, pad_token_id=0)

# ---- checkpoint produced by a bf16 training run -------------------------
path = os.path.join(tempfile.mkdtemp(), "model.safetensors")
trained = LlamaForCausalLM(cfg).to(torch.bfloat16)
with torch.no_grad():
    mlp = trained.model.layers[1].mlp
    mlp.up_proj.weight[:, :8] *= 200.0
    mlp.down_proj.weight[5, :] *= 3.0e5    # one massive residual channel
sd = {k: v.contiguous() for k, v in trained.state_dict().items()}
save_file(sd, path)
del trained

# ---- inference script ----------------------------------------------------
model = LlamaForCausalLM(cfg)
model.load_state_dict(load_file(path))
model = model.to(torch.float16).eval()

gen_cfg = GenerationConfig(max_new_tokens=20, do_sample=True, top_k=50, temperature=0.8,
                           pad_token_id=0, eos_token_id=2)
prompts = torch.randint(3, 256, (2, 12))
with torch.no_grad():
    out = model.generate(prompts, attention_mask=torch.ones_like(prompts), generation_config=gen_cfg)
print(out.shape)
print(out[:, prompts.shape[1]:].tolist())
