"""Tiny Qwen2 (tied embeddings) fine-tuned with Accelerate, saved with
accelerator.save_model, then reloaded for inference with
init_empty_weights() skeleton + load_checkpoint_and_dispatch, and greedy generation is
checked against the in-memory model."""
import os
import tempfile

import torch
from accelerate import Accelerator, init_empty_weights, load_checkpoint_and_dispatch
from torch.utils.data import DataLoader, TensorDataset
from transformers import Qwen2Config, Qwen2ForCausalLM

torch.manual_seed(0)

config = Qwen2Config(
    vocab_size=120, hidden_size=64, intermediate_size=160, num_hidden_layers=2,
    num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
    tie_word_embeddings=True, bos_token_id=0, eos_token_id=1, pad_token_id=1,
)


def corpus(n=384, seq=24):
    start = torch.randint(2, config.vocab_size, (n, 1))
    step = torch.randint(1, 4, (n, 1))
    return 2 + (start + step * torch.arange(seq)) % (config.vocab_size - 2)


def main():
    accelerator = Accelerator(cpu=True)
    model = Qwen2ForCausalLM(config)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    loader = DataLoader(TensorDataset(corpus()), batch_size=16, shuffle=True)
    model, opt, loader = accelerator.prepare(model, opt, loader)

    model.train()
    for epoch in range(2):
        for i, (ids,) in enumerate(loader):
            loss = model(input_ids=ids, labels=ids).loss
            accelerator.backward(loss)
            accelerator.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            opt.zero_grad()
        accelerator.print(f"epoch {epoch} loss {loss.item():.4f}")

    prompt = corpus(n=2, seq=6)
    unwrapped = accelerator.unwrap_model(model).eval()
    with torch.no_grad():
        ref = unwrapped.generate(prompt, attention_mask=torch.ones_like(prompt), max_new_tokens=10, do_sample=False)

    with tempfile.TemporaryDirectory() as tmp:
        accelerator.save_model(model, tmp, safe_serialization=True)
        print("saved:", sorted(os.listdir(tmp)))

        with init_empty_weights():  # parameters on meta, buffers (rotary inv_freq) stay real
            served = Qwen2ForCausalLM(config)
        served.tie_weights()  # tie before loading: the checkpoint only stores embed_tokens
        served = load_checkpoint_and_dispatch(served, tmp, device_map={"": "cpu"},
                                              no_split_module_classes=["Qwen2DecoderLayer"])
        served.eval()
        assert served.lm_head.weight.data_ptr() == served.model.embed_tokens.weight.data_ptr()
        assert not any(t.is_meta for t in list(served.parameters()) + list(served.buffers()))

        with torch.no_grad():
            out = served.generate(prompt, attention_mask=torch.ones_like(prompt), max_new_tokens=10, do_sample=False)
        print("reference :", ref[:, 6:].tolist())
        print("reloaded  :", out[:, 6:].tolist())
        print("identical generations:", torch.equal(ref, out))


if __name__ == "__main__":
    main()
