import os
import tempfile
import torch
from accelerate import init_empty_weights
from transformers import LlamaConfig, LlamaForCausalLM, GenerationConfig
from safetensors.torch import save_file, load_file

torch.manual_seed(0)
config = LlamaConfig(
    vocab_size=512,
    hidden_size=64,
    intermediate_size=128,
    num_hidden_layers=2,
    num_attention_heads=4,
    num_key_value_heads=2,
    max_position_embeddings=256,
    rope_theta=10000.0,
    tie_word_embeddings=False,
)

workdir = tempfile.mkdtemp(prefix="serve_ckpt_")
ckpt_dir = os.path.join(workdir, "shards")
os.makedirs(ckpt_dir)

# --- produce a sharded checkpoint the way the training job did (one shard per block) ---
reference = LlamaForCausalLM(config).to(torch.bfloat16)
state = reference.state_dict()
shards = {
    "embed": {k: v for k, v in state.items() if k.startswith("model.embed_tokens")},
    "layers": {k: v for k, v in state.items() if k.startswith("model.layers")},
    "final": {k: v for k, v in state.items() if k.startswith("model.norm")},
    "head": {k: v for k, v in state.items() if k == "lm_head.weight"},
}
for name, tensors in shards.items():
    save_file({k: v.contiguous() for k, v in tensors.items()}, os.path.join(ckpt_dir, f"{name}.safetensors"))
del reference, state


def load_for_serving(path, cfg, shard_names):
    with init_empty_weights():
        model = LlamaForCausalLM(cfg)
    for name in shard_names:
        sd = load_file(os.path.join(path, f"{name}.safetensors"))
        model.load_state_dict(sd, strict=False, assign=True)
        print(f"loaded shard {name}: {len(sd)} tensors")
    return model.eval()


SERVING_SHARDS = ["embed", "layers", "head"]
model = load_for_serving(ckpt_dir, config, SERVING_SHARDS)
print("model dtype:", model.model.embed_tokens.weight.dtype)

gen_cfg = GenerationConfig(
    max_new_tokens=20, do_sample=True, temperature=0.7, top_k=40, top_p=0.9,
    repetition_penalty=1.1, pad_token_id=0, eos_token_id=None,
    output_scores=True, return_dict_in_generate=True,
)
requests = [torch.randint(1, 512, (1, n)) for n in (7, 12, 5)]
with torch.no_grad():
    for i, prompt in enumerate(requests):
        out = model.generate(prompt, attention_mask=torch.ones_like(prompt), generation_config=gen_cfg)
        scores = torch.stack(out.scores, dim=1).float()
        logp = torch.log_softmax(scores, dim=-1)
        new = out.sequences[:, prompt.shape[1]:]
        lp = logp.gather(-1, new[..., None]).squeeze(-1)
        finite = torch.isfinite(lp)
        print(f"request {i}: {new.tolist()[0][:10]}... mean logprob {lp[finite].mean().item():.3f}")
