"""A model built on meta and loaded with `load_state_dict(sd, assign=True, strict=False)` from a state dict that
lacks lm_head.weight: the forward runs (a CPU activation times a meta weight gives a CPU result), and the fault
surfaces only in the autograd engine: "MmBackward0 returned an invalid gradient ... expected device meta"."""
import torch
from transformers import LlamaForCausalLM
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding
from _tiny import batch, tiny_llama


def main():
    trained = tiny_llama(torch.float32)
    trained.config.tie_word_embeddings = False
    sd = {k: v for k, v in trained.state_dict().items() if not k.startswith("lm_head.")}  # a partial checkpoint
    with torch.device("meta"):
        model = LlamaForCausalLM(trained.config)
    model.load_state_dict(sd, assign=True, strict=False)
    model.model.rotary_emb = LlamaRotaryEmbedding(trained.config)  # its buffers are not in any state dict
    ids = batch()
    model(input_ids=ids, labels=ids).loss.backward()


if __name__ == "__main__":
    main()
