"""`--model tiny`: a random-init two-layer Llama and a byte-level tokenizer, both built offline in well under a second.

A smoke test of the whole pipeline (it learns nothing useful). The weights come from a fixed seed that does not
depend on the run's seed, so `amplora generate --adapter DIR` rebuilds exactly the base a tiny adapter was
trained on.
"""
from __future__ import annotations

import torch

TINY_NAME = "tiny"
TINY_SEED = 1234
# wider than the usual 0.02: with a frozen tied head, logits of std-0.02 embeddings are too flat to learn from
INIT_STD = 0.2
SPECIAL_TOKENS = ["<|pad|>", "<|im_start|>", "<|im_end|>"]

# ChatML, like SmolLM2's template (without its default system prompt).
CHATML = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)


def build_tokenizer():
    """Byte-level: every byte is one token, so any text round-trips; ChatML special tokens on top."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    vocab = {tok: i for i, tok in enumerate(SPECIAL_TOKENS + alphabet)}
    core = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    core.decoder = decoders.ByteLevel()
    core.add_special_tokens(SPECIAL_TOKENS)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=core, pad_token="<|pad|>", bos_token="<|im_start|>", eos_token="<|im_end|>",
        model_max_length=2048,
    )
    tokenizer.chat_template = CHATML
    return tokenizer


def build_model(tokenizer):
    from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=2048, tie_word_embeddings=True,
        initializer_range=INIT_STD,
        pad_token_id=tokenizer.pad_token_id, bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id, dtype="float32",
    )
    with torch.random.fork_rng(devices=[]):  # same weights whatever the caller's RNG state
        torch.manual_seed(TINY_SEED)
        model = LlamaForCausalLM(config)
    model.generation_config = GenerationConfig(
        pad_token_id=tokenizer.pad_token_id, bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    return model.eval()
