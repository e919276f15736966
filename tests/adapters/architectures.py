"""The causal-LM families the architecture suite runs: one tiny random-init config each (test_architectures.py).

Each row is a transformers config class and the kwargs that make it tiny (hidden 64, 2 layers, vocab 256): the
families issue 20 names and those PEFT's TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING lists with a causal LM
in transformers. `XFAIL` holds the families that cannot pass yet, each with why.
"""
from __future__ import annotations

import torch
import transformers
from transformers import AutoModelForCausalLM

from .conftest import VOCAB, widen_weights

_IDS = dict(vocab_size=VOCAB, pad_token_id=0, bos_token_id=1, eos_token_id=2, tie_word_embeddings=False)
# Llama-style names: most families since Llama read these
_LLAMA = dict(_IDS, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
              num_key_value_heads=2, max_position_embeddings=64)
_GPT = dict(_IDS, n_embd=64, n_layer=2, n_head=4, n_positions=64)  # GPT-2-style names

FAMILIES: dict[str, tuple[str, dict]] = {
    "llama": ("LlamaConfig", _LLAMA),
    "mistral": ("MistralConfig", _LLAMA),
    # MoE: the experts are 3-D parameters, not Linear modules; all-linear adapts attention and shared experts (and
    # the Mamba mixer's in_proj in Nemotron-H), as PEFT's all-linear does
    "mixtral": ("MixtralConfig", dict(_LLAMA, num_local_experts=4, num_experts_per_tok=2)),
    "qwen2": ("Qwen2Config", _LLAMA),
    "qwen3": ("Qwen3Config", dict(_LLAMA, head_dim=16)),
    "qwen3_moe": ("Qwen3MoeConfig", dict(_LLAMA, head_dim=16, num_experts=4, num_experts_per_tok=2,
                                         moe_intermediate_size=64, decoder_sparse_step=1)),
    "gemma": ("GemmaConfig", dict(_LLAMA, head_dim=16)),
    "gemma2": ("Gemma2Config", dict(_LLAMA, head_dim=16, sliding_window=8)),
    "gemma3_text": ("Gemma3TextConfig", dict(_LLAMA, head_dim=16, sliding_window=8)),
    "phi3": ("Phi3Config", dict(_LLAMA, num_key_value_heads=4)),  # fused qkv_proj and gate_up_proj
    "phi": ("PhiConfig", _LLAMA),
    "stablelm": ("StableLmConfig", _LLAMA),
    "starcoder2": ("Starcoder2Config", _LLAMA),
    "olmo": ("OlmoConfig", _LLAMA),
    "olmo2": ("Olmo2Config", _LLAMA),
    "cohere": ("CohereConfig", _LLAMA),
    "granite": ("GraniteConfig", _LLAMA),
    "smollm3": ("SmolLM3Config", _LLAMA),
    "opt": ("OPTConfig", dict(_IDS, hidden_size=64, ffn_dim=128, num_hidden_layers=2, num_attention_heads=4,
                               word_embed_proj_dim=64, max_position_embeddings=64)),
    "gpt_neox": ("GPTNeoXConfig", dict(_LLAMA, num_key_value_heads=4)),
    "falcon": ("FalconConfig", dict(_IDS, hidden_size=64, num_hidden_layers=2, num_attention_heads=4)),
    "bloom": ("BloomConfig", dict(_IDS, hidden_size=64, n_layer=2, n_head=4)),
    "gptj": ("GPTJConfig", dict(_GPT, rotary_dim=8)),
    "codegen": ("CodeGenConfig", dict(_GPT, rotary_dim=8, n_ctx=64)),
    "gpt_neo": ("GPTNeoConfig", dict(_IDS, hidden_size=64, num_layers=2, num_heads=4, max_position_embeddings=64,
                                     attention_types=[[["global", "local"], 1]], window_size=8)),
    "gpt_bigcode": ("GPTBigCodeConfig", _GPT),
    "mpt": ("MptConfig", dict(_IDS, d_model=64, n_heads=4, n_layers=2, max_seq_len=64, expansion_ratio=2)),
    "gpt2": ("GPT2Config", _GPT),
    "llama4_text": ("Llama4TextConfig", dict(_LLAMA, head_dim=16, intermediate_size_mlp=128, num_local_experts=4,
                                             attention_chunk_size=8)),
    "gemma4_text": ("Gemma4TextConfig", dict(_LLAMA, head_dim=16, sliding_window=8, vocab_size_per_layer_input=VOCAB,
                                             hidden_size_per_layer_input=16)),
    "nemotron_h": ("NemotronHConfig", dict(_IDS, hidden_size=64, layers_block_type=["mamba", "moe", "attention", "mlp"],
                                           num_attention_heads=4, num_key_value_heads=2, head_dim=16,
                                           intermediate_size=128, mamba_num_heads=8, mamba_head_dim=16,
                                           ssm_state_size=16, n_groups=1, chunk_size=8,
                                           n_routed_experts=4, moe_intermediate_size=64,
                                           moe_shared_expert_intermediate_size=64, max_position_embeddings=64)),
    "rwkv": ("RwkvConfig", dict(_IDS, hidden_size=64, attention_hidden_size=64, intermediate_size=128,
                                num_hidden_layers=2, context_length=64,
                                rescale_every=0)),  # see test_rwkv_rescaled_layers
}

# "family" or "family-method": why it cannot pass yet
XFAIL: dict[str, str] = {}
# models that add into an adapted layer's output in place (Falcon: mlp_output += attention_output; Llama 4's MoE:
# out.add_(routed_out) into shared_expert's down_proj), which the fused DoRA node keeps for the magnitude gradient
IN_PLACE = ["falcon", "llama4_text"]
# bf16 tolerance where the family alone, without amplora, is further than TOL[bf16] from its fp32 twin
BF16_TOL = {"gemma4_text": 1e-1}  # plain transformers Gemma 4 in bf16: 5.2e-2 from the same bf16 weights in fp32


def tiny(family: str, seed: int = 0) -> torch.nn.Module:
    """The family's tiny causal LM, fp32, eval mode, weights widened so its logits are not flat."""
    config_class, kwargs = FAMILIES[family]
    config = getattr(transformers, config_class)(**kwargs)
    torch.manual_seed(seed)
    model = AutoModelForCausalLM.from_config(config).eval()
    widen_weights(model)
    return model
