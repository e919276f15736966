"""The doctor's memory estimate against the measured tensor peak of amplora training steps (CPU).

    PYTHONPATH=src python bench/memory_estimate.py            # the table of docs/memory.md
    PYTHONPATH=src python bench/memory_estimate.py --quick    # the tiny-model rows only (seconds)

Each configuration runs in its own process: a model with random weights built from its config (memory does not
depend on the weights' values), amplora.apply, the trainer's chunked fp32 loss, AdamW, a warmup step (AdamW's
state then exists), then one measured step. The measured peak is bench/speed_worker.py's tensor peak: the tensors
that live between steps, counted once per storage, plus the highest point of the step's own allocations as the
profiler records them. Every position is an answer token (the worst case the estimate plans for).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
sys.path.insert(0, str(Path(__file__).parent))

SMOLLM2 = "smollm2-135m"
TINY = {"model_type": "llama", "vocab_size": 259, "hidden_size": 64, "intermediate_size": 128,
        "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "tie_word_embeddings": True,
        "max_position_embeddings": 2048}
# a second small shape (wider, deeper, untied, no grouped-query attention) so a formula fitted on one shape is
# checked on another
SMALL = {"model_type": "llama", "vocab_size": 1000, "hidden_size": 128, "intermediate_size": 352,
         "num_hidden_layers": 3, "num_attention_heads": 4, "num_key_value_heads": 4, "tie_word_embeddings": False,
         "max_position_embeddings": 2048}

# (model, settings): at least eight, covering LoRA/DoRA, fp32/bf16-true, nf4, two batch sizes, checkpointing
CASES = [
    ("tiny", dict(method="lora", precision="fp32", batch_size=4, max_length=128)),
    ("tiny", dict(method="dora", precision="fp32", batch_size=8, max_length=128)),
    ("tiny", dict(method="lora", precision="bf16-true", batch_size=8, max_length=128,
                  activation_checkpointing=True)),
    ("small", dict(method="dora", precision="bf16-true", batch_size=4, max_length=256)),
    ("small", dict(method="lora", precision="fp32", batch_size=4, max_length=256, quantize="nf4")),
    ("small", dict(method="lora", precision="fp32", batch_size=8, max_length=128, activation_checkpointing=True,
                   loss_chunk_rows=256)),
    (SMOLLM2, dict(method="lora", precision="fp32", batch_size=2, max_length=256)),
    (SMOLLM2, dict(method="dora", precision="fp32", batch_size=4, max_length=256)),
]
QUICK = [c for c in CASES if c[0] != SMOLLM2]


def model_config(name: str) -> dict:
    if name == "tiny":
        return dict(TINY)
    if name == "small":
        return dict(SMALL)
    if name == SMOLLM2:
        return json.loads(Path(__file__).with_name("smollm2-135m-config.json").read_text())
    return json.loads((Path(name) / "config.json").read_text())


def prepare(config: dict, settings: dict):
    """A step closure over an amplora model built as the trainer builds it (train/run.py), holding what lives
    between steps in `step.holds` (speed_worker.tensor_peak's convention)."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    import amplora
    from amplora.train.chunked_loss import lm_loss_sum
    from amplora.train.optim import build_optimizer

    s = {"r": 16, "targets": "all-linear", "quantize": "none", "activation_checkpointing": False,
         "loss_chunk_rows": 1024, **settings}
    torch.manual_seed(0)
    cfg = dict(config)
    hf = AutoConfig.for_model(cfg.pop("model_type"), **cfg)
    model = AutoModelForCausalLM.from_config(hf, dtype=torch.float32).eval()
    model.config.use_cache = False
    amplora.apply(model, method=s["method"], r=s["r"], alpha=2 * s["r"], targets=s["targets"],
                  quantize=None if s["quantize"] == "none" else s["quantize"], precision=s["precision"])
    if s["activation_checkpointing"]:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    model.train()
    params = [p for p in model.parameters() if p.requires_grad]
    opt = build_optimizer(params, 1e-4, 0.0)
    gen = torch.Generator().manual_seed(1)
    b, n = s["batch_size"], s["max_length"]
    ids = torch.randint(hf.vocab_size, (b, n), generator=gen)
    mask = torch.ones_like(ids)
    mask[-1, n - n // 8:] = 0  # one padded row, as batches of unequal examples have: the model sees a mask
    labels = ids.masked_fill(mask == 0, -100)

    def step() -> float:
        loss_sum, count = lm_loss_sum(model, ids, labels, mask, chunk_rows=s["loss_chunk_rows"])
        (loss_sum / count).backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        return float(loss_sum.detach())

    step.holds = (model, opt, ids, mask, labels)
    return step


def measure(config: dict, settings: dict) -> float:
    """The tensor peak of one training step, in bytes (after a warmup step)."""
    from speed_worker import tensor_peak

    step = prepare(config, settings)
    step()
    return tensor_peak(step) * 2**30


def row(name: str, settings: dict) -> dict:
    from amplora.doctor.memory import estimate

    config = model_config(name)
    est = estimate(config, **settings)
    measured = measure(config, settings)
    return {"model": name, **settings, "estimate": est.total, "measured": measured,
            "error": est.total / measured - 1, "parts": est.parts}


def _worker(args) -> None:
    import torch

    torch.set_num_threads(args.threads)
    name, settings = json.loads(args.worker)
    print(json.dumps(row(name, settings)), flush=True)


def describe(r: dict) -> str:
    bits = [f"{r['method']}", r["precision"]]
    if r.get("quantize", "none") != "none":
        bits.append("nf4")
    bits.append(f"{r['batch_size']}x{r['max_length']}")
    if r.get("activation_checkpointing"):
        bits.append("ckpt")
    if "loss_chunk_rows" in r:
        bits.append(f"chunk {r['loss_chunk_rows']}")
    return ", ".join(bits)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="the tiny-model configurations only")
    ap.add_argument("--only", type=int, nargs="*", help="indices into the case list")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--json", action="store_true", help="one JSON line per configuration")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        _worker(args)
        return 0
    cases = QUICK if args.quick else CASES
    if args.only:
        cases = [CASES[i] for i in args.only]
    if not args.json:
        print("| model | configuration | estimate (MiB) | measured tensor peak (MiB) | error |")
        print("|---|---|---:|---:|---:|")
    worst = 0.0
    for name, settings in cases:
        out = subprocess.run([sys.executable, __file__, "--threads", str(args.threads), "--worker",
                              json.dumps([name, settings])], capture_output=True, text=True)
        if out.returncode:
            print(out.stderr[-2000:], file=sys.stderr)
            return 1
        r = json.loads(out.stdout.strip().splitlines()[-1])
        worst = max(worst, abs(r["error"]))
        if args.json:
            print(json.dumps(r), flush=True)
        else:
            print(f"| {name} | {describe(r)} | {r['estimate'] / 2**20:.1f} | {r['measured'] / 2**20:.1f} | "
                  f"{100 * r['error']:+.1f}% |", flush=True)
    print(f"worst error: {100 * worst:.1f}%", file=sys.stderr)
    return 0 if worst <= 0.15 else 1


if __name__ == "__main__":
    sys.exit(main())
