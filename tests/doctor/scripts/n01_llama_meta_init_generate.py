"""Fine-tune a tiny Llama, export it with safetensors, then reload it for serving.

The serving side builds the model skeleton on the meta device (no random init, no
double memory) and assigns the checkpoint tensors directly into it.
"""
import os
import tempfile

import torch
from safetensors.torch import load_file, save_file
from transformers import LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)

config = LlamaConfig(
    vocab_size=128,
    hidden_size=64,
    intermediate_size=128,
    num_hidden_layers=2,
    num_attention_heads=4,
    num_key_value_heads=2,
    max_position_embeddings=64,
    tie_word_embeddings=False,
)


def make_batch(bs=8, seq=24):
    # toy "language": arithmetic progressions mod vocab
    start = torch.randint(0, config.vocab_size, (bs, 1))
    step = torch.randint(1, 5, (bs, 1))
    return (start + step * torch.arange(seq)) % config.vocab_size


def train(model, steps=30):
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    model.train()
    for step in range(steps):
        ids = make_batch()
        out = model(input_ids=ids, labels=ids)
        out.loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        if step % 10 == 0:
            print(f"step {step:3d}  loss {out.loss.item():.4f}")


def export(model, path):
    sd = {k: v.detach().contiguous() for k, v in model.state_dict().items()}
    save_file(sd, path, metadata={"format": "pt"})
    print(f"saved {len(sd)} tensors -> {os.path.basename(path)}")


def load_for_serving(path):
    # skeleton on meta: no allocation, no init, weights come straight from the file
    with torch.device("meta"):
        model = LlamaForCausalLM(config)
    state = load_file(path, device="cpu")
    missing, unexpected = model.load_state_dict(state, strict=False, assign=True)
    print("missing:", missing, "unexpected:", unexpected)
    return model.eval()


def main():
    model = LlamaForCausalLM(config)
    train(model)
    with tempfile.TemporaryDirectory() as tmp:
        ckpt = os.path.join(tmp, "model.safetensors")
        export(model, ckpt)
        served = load_for_serving(ckpt)
        prompt = make_batch(bs=2, seq=6)
        with torch.no_grad():
            gen = served.generate(
                prompt,
                attention_mask=torch.ones_like(prompt),
                max_new_tokens=8,
                do_sample=False,
                pad_token_id=0,
            )
        print("prompt:", prompt.tolist())
        print("generated:", gen[:, prompt.shape[1]:].tolist())


if __name__ == "__main__":
    main()
