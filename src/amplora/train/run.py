"""`amplora train`: validate everything, score the held-out split, train, score again, write the outputs.

Order matters for "nothing half-written": config, data, model, adapters and tokenization are all checked before
the output directory receives its first file (its lock file aside: output_dir.py locks the directory for the whole
run). Under torchrun every rank runs this same function (distributed.py); rank 0 alone writes files and prints.
"""
from __future__ import annotations

import random
import shutil
import time
from pathlib import Path

import torch

import amplora
from amplora.precision import resolve, resolve_device
from amplora.doctor.memory import Settings
from amplora.errors import AmploraError, TrainingDiverged
from amplora.train import atomic, checkpoint, memory_meter, output_dir, report
from amplora.train import distributed as dist_
from amplora.train.batches import BatchPlan, make_rows
from amplora.train.config import TrainConfig, dump_yaml
from amplora.train.chat_templates import read_chat_template
from amplora.train.dataset import data_paths, load_splits
from amplora.train.encoding import encode_all
from amplora.train.generation import evaluate
from amplora.train.loop import Loop, MetricsLog
from amplora.train.metric import summary as score_line
from amplora.train.model_loader import canonical_model_name, load_model, model_directory
from amplora.train.optim import build_optimizer, build_scheduler
from amplora.train.progress import TrainProgress, make_console
from amplora.train.tensorboard_log import TensorBoardLog

REPORT_EXAMPLES = 12  # held-out samples shown in the report
LAST_GOOD = "adapter-last-good"  # a diverged run's output: the newest checkpoint's adapter


def _set_initial_scale(scaler, init_scale: float | None) -> None:
    if init_scale is not None and scaler.is_enabled():
        state = scaler.state_dict()
        state["scale"] = float(init_scale)
        scaler.load_state_dict(state)


def _last_user_text(messages) -> str:
    users = [m["content"] for m in messages if m["role"] == "user"]
    return users[-1] if users else ""


def _keep_global_batch(cfg: TrainConfig, resume_state: dict, world: int, console) -> None:
    """--resume on another number of processes: keep the checkpointed run's micro-batches per step (its global
    batch) by changing the per-process gradient accumulation, so the run continues on the very same data."""
    per_step = resume_state["bookkeeping"].get("micro_batches_per_step", cfg.grad_accum)
    if per_step == cfg.grad_accum * world:
        return
    if per_step % world:
        raise AmploraError(f"--resume: the checkpoint takes {per_step} micro-batches of {cfg.batch_size} per step; "
                           f"{world} processes cannot split that evenly (use a process count dividing {per_step})")
    console.print(f"resume on {world} process{'es' if world > 1 else ''}: gradient accumulation {cfg.grad_accum} -> "
                  f"{per_step // world}, keeping the global batch of {per_step * cfg.batch_size}")
    cfg.grad_accum = per_step // world


def train(cfg: TrainConfig, quiet: bool = False, resume_state: dict | None = None, restart: bool = False) -> dict:
    """Run a full training job described by `cfg`; returns the run summary (also written to summary.json).
    restart: cfg.output holds a run killed before its first checkpoint, which this one replaces from step 0."""
    d = dist_.from_env()
    lock: list[output_dir.RunLock] = []  # _train locks the output directory (rank 0); freed here however it ends
    try:
        return _train(cfg, d, quiet, resume_state, lock, restart)
    except Exception as e:
        # the writes atomic.py and MetricsLog do not make themselves (the final adapter): one line, not a traceback
        reason = atomic.write_failure(e, Path(cfg.output)) if lock else None
        if reason is None:
            raise
        where = getattr(e, "filename", None)
        raise AmploraError(f"{where}: {reason}" if where else f"cannot write to {cfg.output}: {reason}") from None
    finally:
        for held in lock:
            held.release()
        dist_.shutdown(d)


def _fitting_device(cfg: TrainConfig, name: str, console) -> str:
    """device=auto: the first device (CUDA before the CPU) the run's estimated peak memory fits on; a run that fits
    nowhere stops here, before any weight is loaded, with the per-device table (amplora doctor --model shows it).
    name: canonical_model_name(cfg.model)."""
    from amplora.doctor.memory_plan import MemoryPlanError, model_config, pick_device

    # the planner reads a config.json: a Hub id's snapshot, a GGUF file's converted directory (converted here)
    spec = name if name == cfg.model or Path(name).is_dir() else str(model_directory(name))
    try:
        return pick_device(model_config(spec), Settings.of(cfg))
    except MemoryPlanError as e:
        console.print(e.table)
        raise


def _train(cfg: TrainConfig, d: dist_.Dist, quiet: bool, resume_state: dict | None, lock: list,
           restart: bool = False) -> dict:
    t0 = time.perf_counter()
    console = make_console(quiet or not d.is_main)
    # 1. everything that can be wrong with the input, before writing anything
    train_ex, held_ex, train_name, held_name = load_splits(cfg.data, cfg.eval_data, cfg.eval_split, cfg.seed,
                                                           cfg.data_format)
    template = read_chat_template(cfg.chat_template)
    # plain-text records have no answer to generate: exact match and samples use the conversations only
    answered = [e for e in held_ex if not e.is_text]
    if cfg.exact_match and not answered:
        raise AmploraError("--exact-match: the held-out data is plain text, with no answers to match; "
                           "the held-out loss is measured without it (--no-exact-match)")
    model_name = canonical_model_name(cfg.model)
    device = resolve_device(_fitting_device(cfg, model_name, console) if cfg.device == "auto" and not d.enabled
                            else cfg.device)
    policy = resolve(cfg.precision, device=device)
    strategy = dist_.choose_strategy(cfg.strategy, cfg.quantize, policy.name) if d.enabled else "none"
    for key in ("data", "eval_data"):  # absolute in config.yaml, so --resume works from any directory
        if getattr(cfg, key):
            setattr(cfg, key, ",".join(str(Path(p).resolve()) for p in data_paths(getattr(cfg, key))))
    out = Path(cfg.output or output_dir.default_output())
    cfg.output = str(out)
    if d.is_main:  # a failure here ends rank 0, and torchrun then ends the others
        lock.append(output_dir.claim(out, resuming=resume_state is not None or restart, overwrite=cfg.overwrite))
    if resume_state is not None:
        _keep_global_batch(cfg, resume_state, d.world, console)
    device = dist_.init(d, device, strategy)

    random.seed(cfg.seed)
    torch.manual_seed(cfg.seed)  # the same on every rank: identical base and adapter initialization
    console.print(f"amplora train: model {cfg.model}, {cfg.method}"
                  f"{' + nf4 base' if cfg.quantize == 'nf4' else ''}, device {device}, precision {policy.describe()}"
                  + (f", {d.describe()}" if d.enabled else ""))
    if not d.is_main:
        dist_.barrier(d)  # rank 0 fills the converted-model cache first
    lm = load_model(cfg.model, chat_template=template,
                    need_template=any(not e.is_text for e in train_ex) or bool(answered))
    if d.is_main:
        dist_.barrier(d)
    model, tokenizer = lm.model.to(device), lm.tokenizer
    amplora.apply(model, method=cfg.method, r=cfg.r, alpha=cfg.alpha, targets=cfg.targets, dropout=cfg.dropout,
                  quantize=None if cfg.quantize == "none" else cfg.quantize, precision=policy)
    console.print(str(amplora.trainable_summary(model)), markup=False)
    if cfg.activation_checkpointing:  # non-reentrant: works with a frozen embedding, FSDP2 and the fused node
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    wrapped = dist_.wrap(model, d, cfg.loss_chunk_rows, device)
    if d.enabled:
        torch.manual_seed(cfg.seed + d.rank)  # dropout masks differ between ranks, as their data does
    named_params = amplora.trainable_parameters(model)  # after wrap: FSDP2 swaps in sharded parameters
    encoded, stats = encode_all(tokenizer, train_ex, cfg.max_length)
    rows = make_rows(encoded, cfg.max_length, cfg.packing)
    pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    plan = BatchPlan(rows, cfg.batch_size, cfg.seed, pad_id, cfg.packing)
    total_steps = cfg.total_steps(plan.per_epoch, d.world)
    scored = (answered[: cfg.eval_limit] if cfg.eval_limit else answered) if cfg.exact_match else []
    eval_encoded, _ = encode_all(tokenizer, held_ex[: cfg.eval_loss_limit], cfg.max_length) \
        if cfg.eval_loss_limit else ([], None)
    optimizer = build_optimizer([p for _, p in named_params], cfg.lr, cfg.weight_decay, model)
    scheduler = build_scheduler(optimizer, total_steps, cfg.warmup_ratio)
    scaler = policy.grad_scaler(device)
    _set_initial_scale(scaler, cfg.init_loss_scale)

    # 2. the output directory gets its first files only now
    if resume_state is None and d.is_main:  # files of a replaced run, or of one that died before its first
        output_dir.clear_previous_run(out)  # checkpoint (holds_run), must not mix with this run's
    if d.is_main:
        out.mkdir(parents=True, exist_ok=True)
    metrics = MetricsLog(out / "metrics.jsonl", enabled=d.is_main)
    start_step, bookkeeping = 0, {"skipped_steps": 0}
    if resume_state is not None:
        checkpoint.restore(resume_state, named_params, optimizer, scheduler, scaler)
        start_step, bookkeeping = resume_state["step"], dict(resume_state["bookkeeping"])
        if d.is_main:
            metrics.truncate_after(start_step)
        console.print(f"resumed from step {start_step} ({out})")
    if d.is_main:
        atomic.write_text(out / "config.yaml", dump_yaml(cfg))  # on resume too: flags may have changed something
    # a resumed run logs again after its checkpoint: TensorBoard hides the killed run's events from there on
    metrics.tensorboard = TensorBoardLog(out / "tensorboard", enabled=d.is_main, note=console.print,
                                         purge_step=start_step + 1 if resume_state is not None else None)
    meter = memory_meter.MemoryMeter(device, d)
    startup = meter.record()  # ends the window of imports and loading: scoring and training are measured apart
    n_params = sum(p.numel() for _, p in named_params)
    console.print(f"data: {stats.examples} train examples ({stats.truncated} truncated at {cfg.max_length} tokens, "
                  f"{stats.dropped} dropped), {len(scored)} held-out scored; {n_params:,} trainable parameters; "
                  f"{total_steps} steps of {_batch_text(cfg, d)}")

    loop = Loop(cfg, model, tokenizer, plan, named_params, optimizer, scheduler, scaler, device, out, lm.name,
                metrics, progress=None, bookkeeping=bookkeeping,
                eval_rows=make_rows(eval_encoded, cfg.max_length, False),
                sample_prompts=[(e.prompt, _last_user_text(e.prompt)) for e in answered[: cfg.samples]],
                wrapped=wrapped, dist=d, memory=meter)
    gen_args = (cfg.max_new_tokens, cfg.eval_batch_size, cfg.max_length, loop.generate)
    if "before" not in bookkeeping:
        if cfg.exact_match:
            console.print(f"scoring {len(scored)} held-out examples before training...")
        bookkeeping["before"] = evaluate(model, tokenizer, scored, *gen_args) if cfg.exact_match else _no_score()
        bookkeeping["before"]["eval_loss"] = loop.eval_loss()
        metrics.write({"kind": "before", "step": 0, **_scores(bookkeeping["before"]), **meter.record()})
    console.print(f"before: {_score_text(bookkeeping['before'])}")

    try:
        with TrainProgress(console, total_steps, start_step) as progress:
            loop.progress = progress
            throughput = loop.run(start_step, total_steps)
        final_loss = loop.eval_loss()
        # save_adapter refuses NaN/Inf weights; finite but huge weights still give NaN logits: check the forward
        loop.check_adapter(total_steps, final_loss)
    except (torch.OutOfMemoryError, RuntimeError) as e:  # out of memory: the doctor names phase, module, levers
        from amplora.doctor.oom import diagnose_oom
        oom = diagnose_oom(e, model=model, settings=Settings.of(cfg), device=str(device))
        if oom is None:
            raise
        raise OutOfMemory(f"out of memory: {oom.culprit}. {oom.fix}") from None
    except TrainingDiverged as e:
        if loop.origin is not None:  # the doctor's trace of the first non-finite step
            e = TrainingDiverged(e.step, f"{e.reason}; {loop.origin.summary()}")
        raise _diverged(e, cfg, d, out, metrics, lm, device, policy, bookkeeping, total_steps) from None
    amplora.save_adapter(model, out / "adapter", base_model_name_or_path=lm.name,  # refuses NaN/Inf
                         write=d.is_main)  # every rank joins the gather of shards

    after = evaluate(model, tokenizer, scored, *gen_args) if cfg.exact_match else _no_score()
    after["eval_loss"] = final_loss
    metrics.write({"kind": "after", "step": total_steps, **_scores(after), **meter.record()})
    metrics.close()
    console.print(f"after:  {_score_text(after)}")

    # the model's own state, not the flag (transformers 5 renamed the property)
    name = "is_activation_checkpointing" if hasattr(model, "is_activation_checkpointing") \
        else "is_gradient_checkpointing"
    checkpointing = bool(getattr(model, name, False))
    summary = _summary(cfg, d, lm, device, policy, stats, train_name, held_name, bookkeeping, after,
                       scored, metrics.read(), throughput, total_steps, n_params, time.perf_counter() - t0)
    summary["facts"]["activation checkpointing"] = checkpointing
    summary["memory"] = {**meter.summary(summary["history"], startup),
                         "estimate": memory_meter.estimate(cfg, device, policy.name)}
    if not d.is_main:
        return summary
    atomic.write_json(out / "summary.json", {k: v for k, v in summary.items() if k not in ("history",)})
    report.write(out / "report.html", summary)
    console.print(f"adapter: {out / 'adapter'}   report: {out / 'report.html'}   "
                  f"wall time {summary['facts']['wall time (s)']} s")
    return summary


class OutOfMemory(AmploraError):
    """Training ran out of memory; the line names the phase, the module and the levers (exit 6, as a run that
    does not fit)."""

    exit_code = 6


def _diverged(e: TrainingDiverged, cfg, d, out: Path, metrics, lm, device, policy, bookkeeping,
              total_steps) -> TrainingDiverged:
    """A diverged run writes no OUTPUT/adapter. The newest checkpoint at or before the divergence (each one's
    forward was checked finite before it was written) is copied to OUTPUT/adapter-last-good; metrics.jsonl and
    summary.json record the divergence. Returns the error the CLI prints (exit 5)."""
    kept = [c for c in checkpoint.checkpoint_dirs(out / checkpoint.CHECKPOINTS)
            if checkpoint.step_of(c) <= e.step and (c / "adapter").is_dir()]
    good_step = checkpoint.step_of(kept[-1]) if kept else None
    if kept:
        outcome = f"kept the adapter of step {good_step} as {out / LAST_GOOD}"
    else:
        outcome = "no checkpoint to fall back on, so no adapter was written (--save-every N keeps one)"
    if d.is_main:
        if kept:
            with atomic.directory(out / LAST_GOOD) as tmp:
                shutil.copytree(kept[-1] / "adapter", tmp, dirs_exist_ok=True)
        else:
            shutil.rmtree(out / LAST_GOOD, ignore_errors=True)  # a resumed run's older fallback is not this run's
        record = {"step": e.step, "reason": e.reason, "last_good_step": good_step,
                  "adapter": str(out / LAST_GOOD) if kept else None}
        metrics.write({"kind": "diverged", **record})
        metrics.close()
        atomic.write_json(out / "summary.json", {
            "model": lm.description, "status": str(TrainingDiverged(e.step, e.reason, outcome)), "diverged": record,
            "before": bookkeeping["before"],
            "policy": {"device": str(device), **policy.as_dict(), "describe": policy.describe()},
            "facts": {"model": lm.name, "method": cfg.method, "steps": total_steps, "diverged at step": e.step,
                      "lr": cfg.lr, "skipped (non-finite) steps": bookkeeping.get("skipped_steps", 0),
                      "output": cfg.output},
            "config": cfg.as_dict()})
    return TrainingDiverged(e.step, e.reason, outcome)


def _no_score() -> dict:
    """--no-exact-match: the score fields, empty (exact_match None); the held-out loss is added by the caller."""
    return {"n": 0, "exact_match": None, "fields": {}, "field_accuracy": None, "predictions": [], "seconds": 0.0}


def _score_text(result: dict) -> str:
    loss = result.get("eval_loss")
    loss_text = f"held-out loss {loss:.4f}" if isinstance(loss, float) else "held-out loss -"
    return loss_text if result["exact_match"] is None else f"{score_line(result)}, {loss_text}"


def _scores(result: dict) -> dict:
    return {k: result[k] for k in ("exact_match", "fields", "field_accuracy", "n", "seconds", "eval_loss")}


def _batch_text(cfg: TrainConfig, d: dist_.Dist) -> str:
    text = f"{cfg.batch_size} x {cfg.grad_accum} accumulation"
    if d.enabled:
        text += f" x {d.world} processes = {cfg.batch_size * cfg.grad_accum * d.world} examples"
    return text


def _loss(result: dict) -> str:
    loss = result.get("eval_loss")
    return f"{loss:.4f}" if isinstance(loss, float) else "-"


def _summary(cfg, d, lm, device, policy, stats, train_name, held_name, bookkeeping, after, scored, history,
             throughput, total_steps, n_params, wall) -> dict:
    before = bookkeeping["before"]
    samples = [{"step": r["step"], "prompt": s["prompt"], "output": s["output"]}
               for r in history if r.get("kind") == "eval" for s in r.get("samples", [])]
    eval_seconds = f"{before['seconds']} / {after['seconds']}"
    if before["exact_match"] is None:  # --no-exact-match: the report shows the held-out loss curve only
        status = f"{total_steps} steps; held-out loss {_loss(before)} -> {_loss(after)}"
        before = after = None
    else:
        status = (f"{total_steps} steps; before {100 * before['exact_match']:.1f}% -> after "
                  f"{100 * after['exact_match']:.1f}% exact match on {len(scored)} held-out examples")
    return {
        "model": lm.description,
        "status": status,
        "before": before, "after": after, "history": history, "samples": samples,
        "examples": [{"prompt": _last_user_text(e.prompt), "reference": e.answer} for e in scored[:REPORT_EXAMPLES]],
        "policy": {"device": str(device), **policy.as_dict(), "describe": policy.describe()},
        "data": {"train": train_name, "held-out": held_name, **stats.as_dict(), "max_length": cfg.max_length,
                 "packing": cfg.packing, "held-out scored": len(scored)},
        "facts": {"model": lm.name, "method": cfg.method, "quantize": cfg.quantize, "r": cfg.r, "alpha": cfg.alpha,
                  "trainable parameters": n_params, "steps": total_steps,
                  "batch": _batch_text(cfg, d), "processes": d.describe(), "lr": cfg.lr,
                  "skipped (non-finite) steps": bookkeeping.get("skipped_steps", 0),
                  "train seconds (this process)": throughput["train_seconds"],
                  "tokens/s (this process)": throughput["tokens_per_s"],
                  "eval seconds before / after": eval_seconds,
                  "wall time (s)": round(wall, 1), "output": cfg.output},
        "config": cfg.as_dict(),
    }
