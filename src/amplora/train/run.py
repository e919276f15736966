"""`amplora train`: validate everything, score the held-out split, train, score again, write the outputs.

Order matters for "nothing half-written": config, data, model, adapters and tokenization are all checked before
the output directory receives its first file.
"""
from __future__ import annotations

import random
import time
from pathlib import Path

import torch

import amplora
from amplora.precision import resolve, resolve_device
from amplora.train import atomic, checkpoint, output_dir, report
from amplora.train.batches import BatchPlan, make_rows
from amplora.train.config import TrainConfig, dump_yaml
from amplora.train.dataset import load_splits
from amplora.train.encoding import encode_all
from amplora.train.generation import evaluate
from amplora.train.loop import Loop, MetricsLog
from amplora.train.metric import summary as score_line
from amplora.train.model_loader import canonical_model_name, load_model
from amplora.train.optim import build_optimizer, build_scheduler
from amplora.train.progress import TrainProgress, make_console

REPORT_EXAMPLES = 12  # held-out samples shown in the report


def _set_initial_scale(scaler, init_scale: float | None) -> None:
    if init_scale is not None and scaler.is_enabled():
        state = scaler.state_dict()
        state["scale"] = float(init_scale)
        scaler.load_state_dict(state)


def _last_user_text(messages) -> str:
    users = [m["content"] for m in messages if m["role"] == "user"]
    return users[-1] if users else ""


def train(cfg: TrainConfig, quiet: bool = False, resume_state: dict | None = None) -> dict:
    """Run a full training job described by `cfg`; returns the run summary (also written to summary.json)."""
    t0 = time.perf_counter()
    console = make_console(quiet)
    # 1. everything that can be wrong with the input, before writing anything
    train_ex, held_ex, train_name, held_name = load_splits(cfg.data, cfg.eval_data, cfg.eval_split, cfg.seed)
    canonical_model_name(cfg.model)
    device = resolve_device(cfg.device)
    policy = resolve(cfg.precision, device=device)
    for key in ("data", "eval_data"):  # absolute in config.yaml, so --resume works from any directory
        if getattr(cfg, key):
            setattr(cfg, key, str(Path(getattr(cfg, key)).resolve()))
    out = Path(cfg.output or output_dir.default_output())
    cfg.output = str(out)
    output_dir.check_output(out, resuming=resume_state is not None, overwrite=cfg.overwrite)

    random.seed(cfg.seed)
    torch.manual_seed(cfg.seed)
    console.print(f"amplora train: model {cfg.model}, {cfg.method}"
                  f"{' + nf4 base' if cfg.quantize == 'nf4' else ''}, device {device}, precision {policy.describe()}")
    lm = load_model(cfg.model)
    model, tokenizer = lm.model.to(device), lm.tokenizer
    amplora.apply(model, method=cfg.method, r=cfg.r, alpha=cfg.alpha, targets=cfg.targets, dropout=cfg.dropout,
                  quantize=None if cfg.quantize == "none" else cfg.quantize, precision=policy)
    named_params = amplora.trainable_parameters(model)
    encoded, stats = encode_all(tokenizer, train_ex, cfg.max_length)
    rows = make_rows(encoded, cfg.max_length, cfg.packing)
    pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    plan = BatchPlan(rows, cfg.batch_size, cfg.seed, pad_id, cfg.packing)
    total_steps = cfg.total_steps(plan.per_epoch)
    scored = held_ex[: cfg.eval_limit] if cfg.eval_limit else held_ex
    eval_encoded, _ = encode_all(tokenizer, held_ex[: cfg.eval_loss_limit], cfg.max_length) \
        if cfg.eval_loss_limit else ([], None)
    optimizer = build_optimizer([p for _, p in named_params], cfg.lr, cfg.weight_decay)
    scheduler = build_scheduler(optimizer, total_steps, cfg.warmup_ratio)
    scaler = policy.grad_scaler(device)
    _set_initial_scale(scaler, cfg.init_loss_scale)

    # 2. the output directory gets its first files only now
    if cfg.overwrite and resume_state is None:
        output_dir.clear_previous_run(out)
    out.mkdir(parents=True, exist_ok=True)
    metrics = MetricsLog(out / "metrics.jsonl")
    start_step, bookkeeping = 0, {"skipped_steps": 0}
    if resume_state is not None:
        checkpoint.restore(resume_state, named_params, optimizer, scheduler, scaler)
        start_step, bookkeeping = resume_state["step"], dict(resume_state["bookkeeping"])
        metrics.truncate_after(start_step)
        console.print(f"resumed from step {start_step} ({out})")
    else:
        metrics.path.write_text("")
    atomic.write_text(out / "config.yaml", dump_yaml(cfg))  # on resume too: flags may have changed something
    n_params = sum(p.numel() for _, p in named_params)
    console.print(f"data: {stats.examples} train examples ({stats.truncated} truncated at {cfg.max_length} tokens, "
                  f"{stats.dropped} dropped), {len(scored)} held-out scored; {n_params:,} trainable parameters; "
                  f"{total_steps} steps of {cfg.batch_size}x{cfg.grad_accum}")

    loop = Loop(cfg, model, tokenizer, plan, named_params, optimizer, scheduler, scaler, device, out, lm.name,
                metrics, progress=None, bookkeeping=bookkeeping,
                eval_rows=make_rows(eval_encoded, cfg.max_length, False),
                sample_prompts=[(e.prompt, _last_user_text(e.prompt)) for e in held_ex[: cfg.samples]])
    gen_args = (cfg.max_new_tokens, cfg.eval_batch_size, cfg.max_length)
    if "before" not in bookkeeping:
        console.print(f"scoring {len(scored)} held-out examples before training...")
        bookkeeping["before"] = evaluate(model, tokenizer, scored, *gen_args)
        bookkeeping["before"]["eval_loss"] = loop.eval_loss()
        metrics.write({"kind": "before", "step": 0, **_scores(bookkeeping["before"])})
    console.print(f"before: {score_line(bookkeeping['before'])}")

    with TrainProgress(console, total_steps, start_step) as progress:
        loop.progress = progress
        throughput = loop.run(start_step, total_steps)
    amplora.save_adapter(model, out / "adapter", base_model_name_or_path=lm.name)  # refuses NaN/Inf

    after = evaluate(model, tokenizer, scored, *gen_args)
    after["eval_loss"] = loop.eval_loss()
    metrics.write({"kind": "after", "step": total_steps, **_scores(after)})
    console.print(f"after:  {score_line(after)}")

    summary = _summary(cfg, lm, device, policy, stats, train_name, held_name, bookkeeping, after,
                       scored, metrics.read(), throughput, total_steps, n_params, time.perf_counter() - t0)
    atomic.write_json(out / "summary.json", {k: v for k, v in summary.items() if k not in ("history",)})
    report.write(out / "report.html", summary)
    console.print(f"adapter: {out / 'adapter'}   report: {out / 'report.html'}   "
                  f"wall time {summary['facts']['wall time (s)']} s")
    return summary


def _scores(result: dict) -> dict:
    return {k: result[k] for k in ("exact_match", "fields", "field_accuracy", "n", "seconds", "eval_loss")}


def _summary(cfg, lm, device, policy, stats, train_name, held_name, bookkeeping, after, scored, history,
             throughput, total_steps, n_params, wall) -> dict:
    before = bookkeeping["before"]
    samples = [{"step": r["step"], "prompt": s["prompt"], "output": s["output"]}
               for r in history if r.get("kind") == "eval" for s in r.get("samples", [])]
    return {
        "model": lm.description,
        "status": f"{total_steps} steps; before {100 * before['exact_match']:.1f}% -> after "
                  f"{100 * after['exact_match']:.1f}% exact match on {len(scored)} held-out examples",
        "before": before, "after": after, "history": history, "samples": samples,
        "examples": [{"prompt": _last_user_text(e.prompt), "reference": e.answer} for e in scored[:REPORT_EXAMPLES]],
        "policy": {"device": str(device), **policy.as_dict(), "describe": policy.describe()},
        "data": {"train": train_name, "held-out": held_name, **stats.as_dict(), "max_length": cfg.max_length,
                 "packing": cfg.packing, "held-out scored": len(scored)},
        "facts": {"model": lm.name, "method": cfg.method, "quantize": cfg.quantize, "r": cfg.r, "alpha": cfg.alpha,
                  "trainable parameters": n_params, "steps": total_steps,
                  "batch": f"{cfg.batch_size} x {cfg.grad_accum} accumulation", "lr": cfg.lr,
                  "skipped (non-finite) steps": bookkeeping.get("skipped_steps", 0),
                  "train seconds (this process)": throughput["train_seconds"],
                  "tokens/s (this process)": throughput["tokens_per_s"],
                  "eval seconds before / after": f"{before['seconds']} / {after['seconds']}",
                  "wall time (s)": round(wall, 1), "output": cfg.output},
        "config": cfg.as_dict(),
    }
