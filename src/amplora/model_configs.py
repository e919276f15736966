"""The configs of the two built-in models, `smollm2-135m` (embedded) and `tiny`, readable without loading either:
the doctor plans memory from them, and train/ may build from them (it keeps its own copies for now)."""
from __future__ import annotations

EMBEDDED_NAME = "smollm2-135m"
EMBEDDED_ALIASES = {EMBEDDED_NAME, "smollm2-135m-instruct", "default", "embedded"}
TINY_NAME = "tiny"

# SmolLM2-135M-Instruct as the embedded GGUF converts (the dimensions; ids and rope as in its config.json)
EMBEDDED_CONFIG = {
    "model_type": "llama", "vocab_size": 49152, "hidden_size": 576, "intermediate_size": 1536,
    "num_hidden_layers": 30, "num_attention_heads": 9, "num_key_value_heads": 3, "head_dim": 64,
    "hidden_act": "silu", "max_position_embeddings": 8192, "tie_word_embeddings": True, "attention_bias": False,
    "mlp_bias": False, "rms_norm_eps": 1e-5,
}
# train/tiny_model.py's model: a byte-level vocabulary (256 bytes + 3 ChatML specials)
TINY_CONFIG = {
    "model_type": "llama", "vocab_size": 259, "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
    "num_attention_heads": 4, "num_key_value_heads": 2, "max_position_embeddings": 2048,
    "tie_word_embeddings": True,
}


def builtin_config(name: str) -> dict | None:
    """The config dict of a built-in model name (any alias), or None."""
    key = str(name).strip().lower()
    if key in EMBEDDED_ALIASES:
        return dict(EMBEDDED_CONFIG)
    if key == TINY_NAME:
        return dict(TINY_CONFIG)
    return None
