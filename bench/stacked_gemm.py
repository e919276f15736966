"""Does x·Aᵀ cost less riding the frozen base GEMM (A stacked under W) than as its own r-wide GEMM? (issue #22)

    .venv/bin/python bench/stacked_gemm.py                    # fp32, SmolLM2-135M shapes, 4x256 tokens, r=16
    .venv/bin/python bench/stacked_gemm.py --dtype bf16 --tokens 8192

For each adapted projection group of a SmolLM2-135M layer (q/k/v, o, gate/up, down) this times, on the same input:
- separate: the base GEMM(s) x·Wᵀ and the adapter's down-projection x·Aᵀ as their own GEMMs (today's fused path:
  siblings share one A GEMM), and the input gradient dy·W + dh·A as two GEMMs;
- stacked: one GEMM against [W; A] (out+r rows) and one input-gradient GEMM [dy, dh]·[W; A].
- floor: the frozen base's GEMMs alone, as the model runs them, and with a sibling group's weights in one GEMM.
Each variant runs `--reps` times round-robin with the others; the least time per variant is reported (a shared machine only adds time), with the share
of the separate variant's time the stacking saves. The frozen base's own GEMMs are in both, so the saving is what
the adapter's r-wide GEMMs cost beyond riding the base GEMM.
"""
from __future__ import annotations

import argparse
import time

import torch

# SmolLM2-135M: hidden 576, 9 heads of 64 with 3 key/value heads, MLP 1536
GROUPS = {"qkv": (576, (576, 192, 192)), "o": (576, (576,)), "gate_up": (576, (1536, 1536)), "down": (1536, (576,))}


def timed(fn, reps: int) -> float:
    start = time.perf_counter()
    for _ in range(reps):
        fn()
    return (time.perf_counter() - start) / reps


def variants(x, dy, weights, a, dh):
    w_cat = torch.cat(weights)  # the base GEMMs of a sibling group as one (what stacking gives the base as well)
    stacked = torch.cat([w_cat, a])
    dy_dh = torch.cat([dy, dh], dim=1)

    def separate():
        for w in weights:
            x @ w.T
        x @ a.T
        dy @ w_cat + dh @ a

    def stacked_fn():
        x @ stacked.T
        dy_dh @ stacked

    def base_only():  # the frozen floor's GEMMs for this group
        for w in weights:
            x @ w.T
        dy @ w_cat

    def base_concatenated():  # the floor with a sibling group's weights in one GEMM: stacking's share of the gain
        x @ w_cat.T
        dy @ w_cat

    return {"floor": base_only, "floor-cat": base_concatenated, "separate": separate, "stacked": stacked_fn}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dtype", default="fp32", choices=("fp32", "bf16"))
    ap.add_argument("--tokens", type=int, default=1024)
    ap.add_argument("--r", type=int, default=16)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--threads", type=int, default=0)
    args = ap.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    dtype = {"fp32": torch.float32, "bf16": torch.bfloat16}[args.dtype]
    g = torch.Generator().manual_seed(0)
    print(f"{args.dtype}, {args.tokens} tokens, r={args.r}, {torch.get_num_threads()} threads, "
          f"best of {args.reps} rounds (ms per forward+input-gradient)")
    print("| group | floor | floor, siblings in one GEMM | separate | stacked | separate over floor | stacked |")
    print("|---|---|---|---|---|---|---|")
    totals = dict.fromkeys(("floor", "floor-cat", "separate", "stacked"), 0.0)
    for name, (d_in, outs) in GROUPS.items():
        r_total = args.r * len(outs)
        x = torch.randn(args.tokens, d_in, generator=g).to(dtype)
        weights = [torch.randn(o, d_in, generator=g).to(dtype) / d_in ** 0.5 for o in outs]
        a = torch.randn(r_total, d_in, generator=g).to(dtype) / d_in ** 0.5
        dy = torch.randn(args.tokens, sum(outs), generator=g).to(dtype)
        dh = torch.randn(args.tokens, r_total, generator=g).to(dtype)
        fns = variants(x, dy, weights, a, dh)
        for fn in fns.values():
            timed(fn, 2)  # warm-up
        samples = {k: [] for k in fns}
        for _ in range(args.reps):
            for k, fn in fns.items():
                samples[k].append(timed(fn, 1) * 1e3)
        med = {k: min(v) for k, v in samples.items()}  # the least: what the GEMMs take undisturbed
        for k in totals:
            totals[k] += med[k]
        row(name, med)
    row("layer", totals)


def row(name: str, ms: dict) -> None:
    print(f"| {name} | {ms['floor']:.2f} | {ms['floor-cat']:.2f} | {ms['separate']:.2f} | {ms['stacked']:.2f} | "
          f"{ms['separate'] / ms['floor'] - 1:+.1%} | {ms['stacked'] / ms['floor'] - 1:+.1%} |")


if __name__ == "__main__":
    main()
