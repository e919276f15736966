import math

import torch
from torch.utils.data import DataLoader, TensorDataset
from transformers import LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)

VOCAB, SEQ = 320, 64


def make_dataset(n, gen):
    base = torch.randint(4, VOCAB, (n, 8), generator=gen)
    reps = base.repeat(1, SEQ // 8)
    flip = torch.rand(reps.shape, generator=gen) < 0.05
    reps[flip] = torch.randint(4, VOCAB, (int(flip.sum()),), generator=gen)
    reps[:, 0] = 1  # bos
    return TensorDataset(reps)


def main():
    gen = torch.Generator().manual_seed(0)
    train_dl = DataLoader(make_dataset(384, gen), batch_size=16, shuffle=True, generator=gen)
    val_dl = DataLoader(make_dataset(96, gen), batch_size=32)

    cfg = LlamaConfig(vocab_size=VOCAB, hidden_size=128, intermediate_size=344, num_hidden_layers=4,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=SEQ,
                      bos_token_id=1, eos_token_id=2, pad_token_id=0, tie_word_embeddings=False)
    model = LlamaForCausalLM(cfg)
    model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    model.config.use_cache = False

    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, betas=(0.9, 0.95), weight_decay=0.1)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=2e-3, total_steps=2 * len(train_dl), pct_start=0.1)

    for epoch in range(2):
        model.train()
        running = 0.0
        for (ids,) in train_dl:
            with torch.autocast("cpu", dtype=torch.bfloat16):
                out = model(input_ids=ids, labels=ids)
            opt.zero_grad(set_to_none=True)
            out.loss.backward()
            gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            running += out.loss.item()
        model.eval()
        tot, n = 0.0, 0
        with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
            for (ids,) in val_dl:
                tot += model(input_ids=ids, labels=ids).loss.float().item() * len(ids)
                n += len(ids)
        val = tot / n
        print(f"epoch {epoch} train {running / len(train_dl):.4f} grad-norm {gnorm:.3f} "
              f"val {val:.4f} ppl {math.exp(val):.2f}")

    assert next(model.parameters()).dtype == torch.float32
    prompt = next(iter(val_dl))[0][:2, :16]
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        gen_ids = model.generate(prompt, max_new_tokens=16, do_sample=False, use_cache=True)
    print("generated", gen_ids[:, 16:].tolist())


if __name__ == "__main__":
    main()
