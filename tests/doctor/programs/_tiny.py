"""Shared helpers for the doctor's program corpus: a tiny random-init Llama and a toy batch."""
import torch
from transformers import LlamaConfig, LlamaForCausalLM


def tiny_llama(dtype=torch.float32, layers=2, seed=0):
    torch.manual_seed(seed)
    cfg = LlamaConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=layers, num_attention_heads=4,
                      num_key_value_heads=2, vocab_size=256, pad_token_id=0, eos_token_id=1, bos_token_id=2)
    return LlamaForCausalLM(cfg).to(dtype)


def batch(n=2, t=8, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(3, 256, (n, t), generator=g)
