"""How much of an adapter step the adapter's own GEMMs take, against the floor's step: the least ratio to the floor
that an adapter config can reach at the rate this machine's GEMM libraries run them (issue #5).

    .venv/bin/python bench/gemm_share.py --dtype bf16                       # amplora LoRA, 4x256, r=16
    .venv/bin/python bench/gemm_share.py --dtype fp32 --steady-heap --reps 5

One process builds the floor and the config as bench/speed_worker.py does (same model, input, loss, optimizer).
The floor's steps are timed without a profiler (median). The config's steps then run under torch.profiler, and
each matmul (aten::mm / addmm / addmm_) is sorted by its shape (M×K times K×N) against one profiled floor step:
- "base": as many GEMMs of each shape as the floor runs (the frozen layers and the LM head);
- "adapter": every other one (the adapter's products, which have r, 2·r or 3·r columns or rows).
For each kind: the self time summed over one step (the least over --reps steps), the GFLOPs and their rate. The
adapter GEMMs' time over the floor's step is a lower bound on the config's ratio to the floor, before any other
work the adapter adds; the line below it says what they would take at the base GEMMs' rate.
"""
from __future__ import annotations

import argparse
import collections
import os
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from speed import STEADY_HEAP  # noqa: E402  (glibc settings under which a step faults in no fresh pages)

GEMMS = ("aten::mm", "aten::addmm", "aten::addmm_")


def gemm_shape(name: str, shapes) -> tuple[int, int, int] | None:
    """(M, K, N) of a profiled matmul, from its input shapes; None for any other op."""
    if name not in GEMMS:
        return None
    a, b = (shapes[0], shapes[1]) if name == "aten::mm" else (shapes[1], shapes[2])
    return a[0], a[1], b[1]


def account(gemms, base_shapes: collections.Counter) -> dict:
    """{kind: [ms, GFLOP, calls]} over one step's GEMMs ((M, K, N), self time in µs): the first GEMMs of each shape,
    up to the floor's count of that shape, are the base's."""
    left = collections.Counter(base_shapes)
    out = {"adapter": [0.0, 0.0, 0], "base": [0.0, 0.0, 0]}
    for mkn, self_us in gemms:
        kind = "base" if left[mkn] > 0 else "adapter"
        left[mkn] -= kind == "base"
        acc = out[kind]
        acc[0] += self_us / 1e3
        acc[1] += 2 * mkn[0] * mkn[1] * mkn[2] / 1e9
        acc[2] += 1
    return out


def profiled_gemms(step) -> list[tuple]:
    """((M, K, N), self time in µs) of every matmul of one step."""
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        step()
    return [(gemm_shape(e.name, e.input_shapes), e.self_cpu_time_total) for e in prof.events() if e.name in GEMMS]


def measure(args) -> dict:
    """The floor's median step (s) and the config's least per-step GEMM time by kind."""
    import torch

    import speed_worker

    if args.threads:
        torch.set_num_threads(args.threads)
    wargs, _ = speed_worker.parse(["--config", args.config, "--dtype", args.dtype, "--batch", str(args.batch),
                                   "--seq", str(args.seq), "--r", str(args.r), "--no-flops"]
                                  + ["--random-init"] * args.random_init + ["--narrow"] * args.narrow)
    dtype = {"fp32": torch.float32, "bf16": torch.bfloat16}[args.dtype]
    device = torch.device("cpu")
    floor = speed_worker.prepare("floor", wargs, dtype, device)[1]
    config = speed_worker.prepare(args.config, wargs, dtype, device)[1]
    for step in (floor, config):
        for _ in range(args.warmup):
            step()
    base_shapes = collections.Counter(mkn for mkn, _ in profiled_gemms(floor))
    times = [speed_worker.timed(floor, cuda=False)[1] for _ in range(args.reps)]  # wall seconds
    best: dict = {}
    for _ in range(args.reps):
        for kind, (ms, gflop, calls) in account(profiled_gemms(config), base_shapes).items():
            if kind not in best or ms < best[kind][0]:
                best[kind] = [ms, gflop, calls]
    return {"floor_s": statistics.median(times), "floor_times": times, **best}


def report(res: dict, args) -> str:
    floor_ms = res["floor_s"] * 1e3
    rows = [f"{args.config}, {args.dtype}, {args.batch}x{args.seq}, r={args.r}: floor step {floor_ms:.0f} ms "
            f"(median of {len(res['floor_times'])}){' with a steady heap' if args.steady_heap else ''}",
            "", "| GEMMs | calls | ms per step | GFLOP | GFLOP/s | × floor step |", "|---|---:|---:|---:|---:|---:|"]
    for kind in ("base", "adapter"):
        ms, gflop, calls = res[kind]
        rows.append(f"| {kind} | {calls} | {ms:.0f} | {gflop:.1f} | {gflop / ms * 1e3:.0f} | {ms / floor_ms:.3f} |")
    ms, gflop, _ = res["adapter"]
    at_base_rate = gflop / (res["base"][1] / res["base"][0])
    rows += ["", f"The adapter's GEMMs alone: {ms / floor_ms:.1%} of the floor's step, so this config's step is at "
             f"least {1 + ms / floor_ms:.3f}× the floor's at this rate; at the base GEMMs' rate they would take "
             f"{at_base_rate:.0f} ms ({at_base_rate / floor_ms:.1%})."]
    return "\n".join(rows)


def parse(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", default="amplora-lora", help="an adapter config of bench/speed_worker.py")
    ap.add_argument("--dtype", default="fp32", choices=("fp32", "bf16"))
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--seq", type=int, default=256)
    ap.add_argument("--r", type=int, default=16)
    ap.add_argument("--reps", type=int, default=3, help="timed floor steps and profiled config steps")
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--steady-heap", action="store_true", help="no fresh pages per step (see bench/README.md)")
    ap.add_argument("--random-init", action="store_true", help="SmolLM2-135M's architecture, random weights")
    ap.add_argument("--narrow", action="store_true", help="SmolLM2-135M's layout at width 64 (a quick check)")
    args = ap.parse_args(argv)
    if args.config == "floor":
        ap.error("--config: an adapter config; the floor is measured anyway")
    return args


def main(argv=None) -> None:
    args = parse(argv)
    if args.steady_heap and os.environ.get("GLIBC_TUNABLES") != STEADY_HEAP:  # glibc reads it at start only
        cmd = [sys.executable, str(Path(__file__).resolve()), *(sys.argv[1:] if argv is None else argv)]
        os.execve(sys.executable, cmd, {**os.environ, "GLIBC_TUNABLES": STEADY_HEAP})
    print(report(measure(args), args), flush=True)


if __name__ == "__main__":
    main()
