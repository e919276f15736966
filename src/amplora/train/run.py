"""`amplora train`: validate everything, score the held-out split, train, score again, write the outputs.

_train reads as the run, one step per function: inputs, set-up, model, data, optimization, outputs, the score
before, the loop, and the finish (adapter, scores after, summary: outcome.py).

Order matters for "nothing half-written": config, data, model, adapters and tokenization are all checked before
the output directory receives its first file (its lock file aside: output_dir.py locks the directory for the whole
run). Under torchrun every rank runs this same function (distributed.py); rank 0 alone writes files and prints.
"""
from __future__ import annotations

import random
import time
from dataclasses import dataclass
from pathlib import Path

import torch

import amplora
from amplora import atomic
from amplora.doctor.memory import Settings
from amplora.errors import AmploraError, TrainingDiverged
from amplora.precision import resolve, resolve_device
from amplora.train import checkpoint, compiled, memory_meter, outcome, output_dir
from amplora.train import distributed as dist_
from amplora.train.batches import BatchPlan, make_rows
from amplora.train.config import TrainConfig, dump_yaml
from amplora.train.chat_templates import read_chat_template
from amplora.train.dataset import data_paths, load_splits
from amplora.train.encoding import EncodingStats, encode_all
from amplora.train.generation import evaluate
from amplora.train.loop import HeldOut, Loop, Optimization
from amplora.train.metrics_log import MetricsLog, truncate_metrics
from amplora.train.model_loader import canonical_model_name, load_model, model_directory
from amplora.train.optim import build_optimizer, build_scheduler
from amplora.train.progress import TrainProgress, make_console
from amplora.train.tensorboard_log import TensorBoardLog


def train(cfg: TrainConfig, quiet: bool = False, resume_state: dict | None = None, restart: bool = False) -> dict:
    """Run a full training job described by `cfg`; returns the run summary (also written to summary.json).
    restart: cfg.output holds a run killed before its first checkpoint, which this one replaces from step 0."""
    d = dist_.from_env()
    lock: list[output_dir.RunLock] = []  # _train locks the output directory (rank 0); freed here however it ends
    try:
        if cfg.compile and d.enabled:
            raise AmploraError("compile runs in a single process: leave it off under torchrun")
        return _train(cfg, d, quiet, resume_state, lock, restart)
    except Exception as e:
        # a write that is not atomic.py's or MetricsLog's (making the output directory): one line, not a traceback
        reason = atomic.write_failure(e, Path(cfg.output)) if lock else None
        if reason is None:
            raise
        where = getattr(e, "filename", None)
        raise AmploraError(f"{where}: {reason}" if where else f"cannot write to {cfg.output}: {reason}") from None
    finally:
        for held in lock:
            held.release()
        dist_.shutdown(d)


@dataclass
class Inputs:
    """The data and chat template, read and checked before anything is written."""
    train: list
    held: list
    train_name: str
    held_name: str
    template: str | None
    answered: list  # held-out conversations: plain text has no answer to score or sample


@dataclass
class Setting:
    """Where and how the run goes, fixed by set-up: every later step reads it."""
    cfg: TrainConfig
    d: dist_.Dist
    console: object
    device: torch.device
    policy: object  # precision.Precision
    out: Path


@dataclass
class Data:
    """The training batches and what the run scores, encoded with the model's tokenizer."""
    plan: BatchPlan
    stats: EncodingStats
    total_steps: int
    scored: list  # held-out examples scored by exact match before and after (empty with --no-exact-match)
    held: HeldOut


def _train(cfg: TrainConfig, d: dist_.Dist, quiet: bool, resume_state: dict | None, lock: list,
           restart: bool = False) -> dict:
    t0 = time.perf_counter()
    console = make_console(quiet or not d.is_main)
    inputs = _read_inputs(cfg)
    s = _set_up(cfg, d, console, resume_state, restart, lock)
    lm, model, wrapped = _build_model(s, inputs)
    data = _encode(s, lm.tokenizer, inputs)
    opt = _optimization(s, model, data.total_steps)
    metrics, start_step, bookkeeping = _open_outputs(s, opt, resume_state)  # the first files only now
    meter = memory_meter.MemoryMeter(s.device, d)
    startup = meter.record()  # ends the window of imports and loading: scoring and training are measured apart
    console.print(f"data: {data.stats.examples} train examples ({data.stats.truncated} truncated at "
                  f"{cfg.max_length} tokens, {data.stats.dropped} dropped), {len(data.scored)} held-out scored; "
                  f"{data.total_steps} steps of {outcome.batch_text(cfg, d)}")  # trainable counts: _build_model
    loop = Loop(cfg, model, lm.tokenizer, wrapped, data.plan, opt, data.held, s.device, d, s.out, lm.name,
                metrics, meter, bookkeeping)
    _score_before(s, loop, data.scored)
    throughput, final_loss = _run_loop(s, loop, lm, start_step, data.total_steps)
    return _finish(s, loop, lm, inputs, data, throughput, final_loss, startup, time.perf_counter() - t0)


def _read_inputs(cfg: TrainConfig) -> Inputs:
    """Everything that can be wrong with the data and template, before the model loads or a file is written."""
    train_ex, held_ex, train_name, held_name = load_splits(cfg.data, cfg.eval_data, cfg.eval_split, cfg.seed,
                                                           cfg.data_format)
    template = read_chat_template(cfg.chat_template)
    answered = [e for e in held_ex if not e.is_text]
    if cfg.exact_match and not answered:
        raise AmploraError("--exact-match: the held-out data is plain text, with no answers to match; "
                           "the held-out loss is measured without it (--no-exact-match)")
    return Inputs(train_ex, held_ex, train_name, held_name, template, answered)


def _set_up(cfg: TrainConfig, d: dist_.Dist, console, resume_state: dict | None, restart: bool,
            lock: list) -> Setting:
    """Device, precision and process group; the output directory locked (rank 0); seeds set."""
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
    return Setting(cfg, d, console, device, policy, out)


def _build_model(s: Setting, inputs: Inputs):
    """(the loaded model, the model with adapters, the module the loop calls: distributed.wrap's)."""
    cfg, d = s.cfg, s.d
    if not d.is_main:
        dist_.barrier(d)  # rank 0 fills the converted-model cache first
    lm = load_model(cfg.model, chat_template=inputs.template,
                    need_template=any(not e.is_text for e in inputs.train) or bool(inputs.answered))
    if d.is_main:
        dist_.barrier(d)
    model = lm.model.to(s.device)
    amplora.apply(model, method=cfg.method, r=cfg.r, alpha=cfg.alpha, targets=cfg.targets, dropout=cfg.dropout,
                  quantize=None if cfg.quantize == "none" else cfg.quantize, precision=s.policy,
                  modules_to_save=cfg.modules_to_save, bias=cfg.bias, exclude_modules=cfg.exclude_modules,
                  rank_pattern=cfg.rank_pattern, alpha_pattern=cfg.alpha_pattern)
    s.console.print(str(amplora.trainable_summary(model)), markup=False)
    if cfg.activation_checkpointing:  # non-reentrant: works with a frozen embedding, FSDP2 and the fused node
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    if cfg.compile:
        s.console.print(f"compiling {compiled.compile_layers(model, s.device)} decoder layers for training steps "
                        f"(the first steps take longer)", markup=False)
    wrapped = dist_.wrap(model, d, cfg.loss_chunk_rows, s.device)
    if d.enabled:
        torch.manual_seed(cfg.seed + d.rank)  # dropout masks differ between ranks, as their data does
    return lm, model, wrapped


def _encode(s: Setting, tokenizer, inputs: Inputs) -> Data:
    """Training rows in their batch order, the held-out rows and prompts, and the run's length in steps."""
    cfg = s.cfg
    encoded, stats = encode_all(tokenizer, inputs.train, cfg.max_length)
    rows = make_rows(encoded, cfg.max_length, cfg.packing)
    pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    plan = BatchPlan(rows, cfg.batch_size, cfg.seed, pad_id, cfg.packing, compiled.BUCKET if cfg.compile else 1)
    answered = inputs.answered
    scored = (answered[: cfg.eval_limit] if cfg.eval_limit else answered) if cfg.exact_match else []
    eval_encoded, _ = encode_all(tokenizer, inputs.held[: cfg.eval_loss_limit], cfg.max_length) \
        if cfg.eval_loss_limit else ([], None)
    held = HeldOut(make_rows(eval_encoded, cfg.max_length, False),
                   [(e.prompt, outcome.last_user_text(e.prompt)) for e in answered[: cfg.samples]])
    return Data(plan, stats, cfg.total_steps(plan.per_epoch, s.d.world), scored, held)


def _optimization(s: Setting, model, total_steps: int) -> Optimization:
    """AdamW over the adapter parameters, its warmup-then-cosine schedule, and fp16's loss scaler."""
    cfg = s.cfg
    named_params = amplora.trainable_parameters(model)  # after distributed.wrap: FSDP2 swaps in sharded ones
    optimizer = build_optimizer([p for _, p in named_params], cfg.lr, cfg.weight_decay, model)
    scheduler = build_scheduler(optimizer, total_steps, cfg.warmup_ratio)
    scaler = s.policy.grad_scaler(s.device)
    _set_initial_scale(scaler, cfg.init_loss_scale)
    return Optimization(named_params, optimizer, scheduler, scaler)


def _open_outputs(s: Setting, opt: Optimization, resume_state: dict | None) -> tuple[MetricsLog, int, dict]:
    """The output directory's first files (config.yaml, the logs); a resumed run's state restored.
    Returns (the metrics log, the step to start from, the bookkeeping checkpoints carry)."""
    cfg, d, out = s.cfg, s.d, s.out
    if resume_state is None and d.is_main:  # files of a replaced run, or of one that died before its first
        output_dir.clear_previous_run(out)  # checkpoint (holds_run), must not mix with this run's
    if d.is_main:
        out.mkdir(parents=True, exist_ok=True)
    start_step, bookkeeping = 0, {"skipped_steps": 0}
    if resume_state is not None:
        checkpoint.restore(resume_state, opt.named_params, opt.optimizer, opt.scheduler, opt.scaler)
        start_step, bookkeeping = resume_state["step"], dict(resume_state["bookkeeping"])
        if d.is_main:
            truncate_metrics(out / "metrics.jsonl", start_step)
        s.console.print(f"resumed from step {start_step} ({out})")
    if d.is_main:
        atomic.write_text(out / "config.yaml", dump_yaml(cfg))  # on resume too: flags may have changed something
    # a resumed run logs again after its checkpoint: TensorBoard hides the killed run's events from there on
    tensorboard = TensorBoardLog(out / "tensorboard", enabled=d.is_main, note=s.console.print,
                                 purge_step=start_step + 1 if resume_state is not None else None)
    return MetricsLog(out / "metrics.jsonl", enabled=d.is_main, tensorboard=tensorboard), start_step, bookkeeping


def _run_loop(s: Setting, loop: Loop, lm, start_step: int, total_steps: int) -> tuple[dict, float | None]:
    """Train, then check the adapter's forward; returns (throughput facts, final held-out loss). Out of memory
    and divergence end here, each as its one-line error."""
    try:
        with TrainProgress(s.console, total_steps, start_step) as progress:
            throughput = loop.run(start_step, total_steps, progress)
        final_loss = loop.eval_loss()
        # save_adapter refuses NaN/Inf weights; finite but huge weights still give NaN logits: check the forward
        loop.check_adapter(total_steps, final_loss)
    except (torch.OutOfMemoryError, RuntimeError) as e:  # out of memory: the doctor names phase, module, levers
        from amplora.doctor.oom import diagnose_oom
        oom = diagnose_oom(e, model=loop.model, settings=Settings.of(s.cfg), device=str(s.device))
        if oom is None:
            raise
        raise OutOfMemory(f"out of memory: {oom.culprit}. {oom.fix}") from None
    except TrainingDiverged as e:
        if loop.origin is not None:  # the doctor's trace of the first non-finite step
            e = TrainingDiverged(e.step, f"{e.reason}; {loop.origin.summary()}")
        raise outcome.diverged(e, s, loop.metrics, lm, loop.bookkeeping, total_steps) from None
    return throughput, final_loss


def _score_before(s: Setting, loop: Loop, scored: list) -> None:
    """The held-out scores before training, once per run (a resumed run has them in its bookkeeping)."""
    if "before" not in loop.bookkeeping:
        if s.cfg.exact_match:
            s.console.print(f"scoring {len(scored)} held-out examples before training...")
        before = loop.bookkeeping["before"] = _score(loop, scored)
        before["eval_loss"] = loop.eval_loss()
        loop.metrics.write({"kind": "before", "step": 0, **outcome.scores(before), **loop.memory.record()})
    s.console.print(f"before: {outcome.score_text(loop.bookkeeping['before'])}")


def _finish(s: Setting, loop: Loop, lm, inputs: Inputs, data: Data, throughput: dict, final_loss: float | None,
            startup: dict, wall: float) -> dict:
    """The adapter, the scores after training, summary.json and report.html; returns the summary."""
    d, model, metrics, meter = s.d, loop.model, loop.metrics, loop.memory
    amplora.save_adapter(model, s.out / "adapter", base_model_name_or_path=lm.name,  # refuses NaN/Inf
                         write=d.is_main, chat_template=inputs.template)  # every rank joins the gather of shards
    after = _score(loop, data.scored)
    after["eval_loss"] = final_loss
    metrics.write({"kind": "after", "step": data.total_steps, **outcome.scores(after), **meter.record()})
    metrics.close()
    s.console.print(f"after:  {outcome.score_text(after)}")
    summary = outcome.summary(s, lm, inputs, data, loop.bookkeeping, after, metrics.read(), throughput,
                              _count(loop.opt), wall)
    summary["facts"]["activation checkpointing"] = outcome.checkpointing(model)
    summary["memory"] = {**meter.summary(summary["history"], startup),
                         "estimate": memory_meter.estimate(s.cfg, s.device, s.policy.name)}
    if d.is_main:
        outcome.write(s, summary)
    return summary


def _count(opt: Optimization) -> int:
    return sum(p.numel() for p in opt.params)


def _score(loop: Loop, scored: list) -> dict:
    """Exact match of greedy answers through the model being trained (empty with --no-exact-match)."""
    cfg = loop.cfg
    if not cfg.exact_match:
        return outcome.no_score()
    return evaluate(loop.model, loop.tokenizer, scored, cfg.max_new_tokens, cfg.eval_batch_size, cfg.max_length,
                    loop.generate)


class OutOfMemory(AmploraError):
    """Training ran out of memory; the line names the phase, the module and the levers (exit 6, as a run that
    does not fit)."""

    exit_code = 6


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


def _set_initial_scale(scaler, init_scale: float | None) -> None:
    if init_scale is not None and scaler.is_enabled():
        state = scaler.state_dict()
        state["scale"] = float(init_scale)
        scaler.load_state_dict(state)
