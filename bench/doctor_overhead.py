"""Overhead of the precision doctor on a training step with no fault: floor vs `watch(nonfinite=False)` vs `watch()`
vs `watch(report=True)`. `watch()` minus `watch(nonfinite=False)` is the always-on part of non-finite tracing
(a loss check per outermost forward, a gradient check per backward, a weight check per optimizer step).

All four run in one process on the same model, interleaved round by round (the order rotating each round) so
machine drift and what the previous step left behind hit them equally. The median and the fastest step of each are
printed with their ratios to the floor's (the fastest is the least disturbed by other work on a shared machine).
Goals (issue 4): watch() <= 1.03x the floor, --report (watch(report=True)) <= 2x; non-finite tracing's always-on
part <= 5% of a step (issue 19).

    python bench/doctor_overhead.py                  # SmolLM2-135M-shaped random Llama, 4 x 256 tokens, LoRA r=16
    python bench/doctor_overhead.py --layers 30      # the full 30-layer shape (slower; same per-layer ratio)
    python bench/doctor_overhead.py --preset tiny    # a 2-layer toy: per-op overhead dominates, worst case
"""
from __future__ import annotations

import argparse
import contextlib
import statistics
import time

import torch
from transformers import LlamaConfig, LlamaForCausalLM

import amplora.doctor as doctor

PRESETS = {
    # SmolLM2-135M's shape (hidden 576, 9 heads / 3 kv heads, MLP 1536, vocab 49152), random init
    "smollm2": dict(hidden_size=576, intermediate_size=1536, num_attention_heads=9, num_key_value_heads=3,
                    vocab_size=49152, num_hidden_layers=4, batch=4, seq=256),
    "tiny": dict(hidden_size=64, intermediate_size=128, num_attention_heads=4, num_key_value_heads=2,
                 vocab_size=256, num_hidden_layers=2, batch=2, seq=32),
}


def build(preset: str, layers: int | None, batch: int | None, seq: int | None):
    cfg = dict(PRESETS[preset])
    b, t = batch or cfg.pop("batch"), seq or cfg.pop("seq")
    cfg.pop("batch", None), cfg.pop("seq", None)
    if layers:
        cfg["num_hidden_layers"] = layers
    torch.manual_seed(0)
    model = LlamaForCausalLM(LlamaConfig(**cfg, tie_word_embeddings=True))
    how = "full fine-tune"
    try:
        import amplora
        amplora.apply(model, method="lora", r=16, alpha=32, precision="fp32")
        how = "amplora LoRA r=16 all-linear, fp32"
    except Exception as e:  # the bench measures the doctor; any training step will do
        print(f"(amplora.apply unavailable: {type(e).__name__}: {e}; timing a full fine-tune step)")
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=1e-4)
    ids = torch.randint(0, cfg["vocab_size"], (b, t), generator=torch.Generator().manual_seed(0))

    def step():
        loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    return model, step, f"{cfg['num_hidden_layers']} layers, hidden {cfg['hidden_size']}, batch {b}x{t}, {how}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--preset", choices=sorted(PRESETS), default="smollm2")
    ap.add_argument("--layers", type=int)
    ap.add_argument("--batch", type=int)
    ap.add_argument("--seq", type=int)
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    args = ap.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    model, step, what = build(args.preset, args.layers, args.batch, args.seq)
    configs = {
        "floor": contextlib.nullcontext,
        "watch(nonfinite=False)": lambda: doctor.watch(model, nonfinite=False),
        "watch()": lambda: doctor.watch(model),
        "watch(report=True)": lambda: doctor.watch(model, report=True),
    }
    for ctx in configs.values():  # warm-up: allocator, kernels, lazy imports
        with ctx():
            step()
    times = {name: [] for name in configs}
    names = list(configs)
    for r in range(args.rounds):  # each round starts one config later: no config always follows the same one
        for name in names[r % len(names):] + names[:r % len(names)]:
            ctx = configs[name]
            with ctx():
                t0 = time.perf_counter()
                step()
                times[name].append(time.perf_counter() - t0)
    floor, best = statistics.median(times["floor"]), min(times["floor"])
    print(f"doctor overhead, {what}, torch {torch.__version__}, {torch.get_num_threads()} threads, "
          f"{args.rounds} rounds")
    print("| config | median step (s) | ratio to floor | fastest step (s) | ratio to floor |\n|---|---|---|---|---|")
    for name, ts in times.items():
        med, low = statistics.median(ts), min(ts)
        print(f"| {name} | {med:.4f} | {med / floor:.3f}x | {low:.4f} | {low / best:.3f}x |")


if __name__ == "__main__":
    main()
