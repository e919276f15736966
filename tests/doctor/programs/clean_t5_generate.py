"""A tiny T5 trained for a few steps, then asked to generate under bf16 autocast with a banned token (its score set
to -inf, which arms the watch): its relative-position buckets take log(0) = -inf for the zero offset on purpose
(masked by a `where` after), inside a forward that transformers wraps in a decorator. Nothing is wrong: the doctor
must exit 0."""
import torch
from transformers import T5Config, T5ForConditionalGeneration


def main():
    torch.manual_seed(0)
    cfg = T5Config(vocab_size=64, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4, decoder_start_token_id=0,
                   pad_token_id=0, eos_token_id=1)
    model = T5ForConditionalGeneration(cfg)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(3):
        src = torch.randint(2, 64, (4, 10))
        loss = model(input_ids=src, labels=src.flip(1)).loss
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step} loss {loss.item():.4f}")
    model.eval()
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        out = model.generate(torch.randint(2, 64, (2, 10)), max_new_tokens=8, num_beams=2, bad_words_ids=[[3]],
                             length_penalty=0.8)
    print("t5 run ok", tuple(out.shape))


if __name__ == "__main__":
    main()
