"""What a run leaves behind: summary.json and report.html when it finishes; OUTPUT/adapter-last-good and a
divergence record when it diverges; and the before/after score lines it prints."""
from __future__ import annotations

import shutil
from typing import TYPE_CHECKING

from amplora import atomic
from amplora.errors import TrainingDiverged
from amplora.train import checkpoint, report
from amplora.train.metric import summary as score_line

if TYPE_CHECKING:
    from amplora.train.config import TrainConfig
    from amplora.train.distributed import Dist
    from amplora.train.run import Data, Inputs, Setting

LAST_GOOD = "adapter-last-good"  # a diverged run's output: the newest checkpoint's adapter
REPORT_EXAMPLES = 12  # held-out samples shown in the report


def summary(s: Setting, lm, inputs: Inputs, data: Data, bookkeeping: dict, after: dict, history: list,
            throughput: dict, n_params: int, wall: float) -> dict:
    """The finished run's summary: what summary.json holds (less the history) and report.html shows."""
    cfg, total_steps, scored = s.cfg, data.total_steps, data.scored
    before = bookkeeping["before"]
    samples = [{"step": r["step"], "prompt": x["prompt"], "output": x["output"]}
               for r in history if r.get("kind") == "eval" for x in r.get("samples", [])]
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
        "examples": [{"prompt": last_user_text(e.prompt), "reference": e.answer} for e in scored[:REPORT_EXAMPLES]],
        "policy": _policy(s),
        "data": {"train": inputs.train_name, "held-out": inputs.held_name, **data.stats.as_dict(),
                 "max_length": cfg.max_length, "packing": cfg.packing, "held-out scored": len(scored)},
        "facts": {"model": lm.name, "method": cfg.method, "quantize": cfg.quantize, "r": cfg.r, "alpha": cfg.alpha,
                  "trainable parameters": n_params, "steps": total_steps,
                  "batch": batch_text(cfg, s.d), "processes": s.d.describe(), "lr": cfg.lr,
                  "skipped (non-finite) steps": bookkeeping.get("skipped_steps", 0),
                  "train seconds (this process)": throughput["train_seconds"],
                  "tokens/s (this process)": throughput["tokens_per_s"],
                  "eval seconds before / after": eval_seconds,
                  "wall time (s)": round(wall, 1), "output": cfg.output},
        "config": cfg.as_dict(),
    }


def checkpointing(model) -> bool:
    """Whether activation checkpointing is on: the model's own state, not the flag (transformers 5 renamed it)."""
    name = "is_activation_checkpointing" if hasattr(model, "is_activation_checkpointing") \
        else "is_gradient_checkpointing"
    return bool(getattr(model, name, False))


def write(s: Setting, result: dict) -> None:
    """summary.json and report.html (rank 0)."""
    out = s.out
    atomic.write_json(out / "summary.json", {k: v for k, v in result.items() if k not in ("history",)})
    report.write(out / "report.html", result)
    s.console.print(f"adapter: {out / 'adapter'}   report: {out / 'report.html'}   "
                    f"wall time {result['facts']['wall time (s)']} s")


def diverged(e: TrainingDiverged, s: Setting, metrics, lm, bookkeeping, total_steps) -> TrainingDiverged:
    """A diverged run writes no OUTPUT/adapter. The newest checkpoint at or before the divergence (each one's
    forward was checked finite before it was written) is copied to OUTPUT/adapter-last-good; metrics.jsonl and
    summary.json record the divergence. Returns the error the CLI prints (exit 5)."""
    cfg, d, out = s.cfg, s.d, s.out
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
            "policy": _policy(s),
            "facts": {"model": lm.name, "method": cfg.method, "steps": total_steps, "diverged at step": e.step,
                      "lr": cfg.lr, "skipped (non-finite) steps": bookkeeping.get("skipped_steps", 0),
                      "output": cfg.output},
            "config": cfg.as_dict()})
    return TrainingDiverged(e.step, e.reason, outcome)


def no_score() -> dict:
    """--no-exact-match: the score fields, empty (exact_match None); the held-out loss is added by the caller."""
    return {"n": 0, "exact_match": None, "fields": {}, "field_accuracy": None, "predictions": [], "seconds": 0.0}


def score_text(result: dict) -> str:
    loss = result.get("eval_loss")
    loss_text = f"held-out loss {loss:.4f}" if isinstance(loss, float) else "held-out loss -"
    return loss_text if result["exact_match"] is None else f"{score_line(result)}, {loss_text}"


def scores(result: dict) -> dict:
    return {k: result[k] for k in ("exact_match", "fields", "field_accuracy", "n", "seconds", "eval_loss")}


def batch_text(cfg: TrainConfig, d: Dist) -> str:
    text = f"{cfg.batch_size} x {cfg.grad_accum} accumulation"
    if d.enabled:
        text += f" x {d.world} processes = {cfg.batch_size * cfg.grad_accum * d.world} examples"
    return text


def _loss(result: dict) -> str:
    loss = result.get("eval_loss")
    return f"{loss:.4f}" if isinstance(loss, float) else "-"


def _policy(s: Setting) -> dict:
    return {"device": str(s.device), **s.policy.as_dict(), "describe": s.policy.describe()}


def last_user_text(messages) -> str:
    users = [m["content"] for m in messages if m["role"] == "user"]
    return users[-1] if users else ""
