"""The optimization loop: grad accumulation, clipping, dynamic loss scaling, periodic eval, checkpoints.

No autocast and no dtype casts here: the model's precision policy (amplora.apply) decides every dtype, the loss
module computes the loss in fp32, and the optimizer only ever sees the fp32 adapter parameters.

Distributed (distributed.py): step s consumes the micro-batches s·G … s·G+G-1 of the run's fixed order, with
G = grad_accum × world; rank r takes every world-th of them. So a step sees the same examples whatever the world
size, and a run resumed on another number of processes (with G kept) continues on the very same data.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from pathlib import Path

import torch

from amplora.doctor.nonfinite import locate
from amplora.errors import TrainingDiverged
from amplora.train import checkpoint, compiled
from amplora.train import distributed as dist_
from amplora.train.batches import BatchPlan, collate
from amplora.train.config import TrainConfig
from amplora.train.distributed import Dist
from amplora.train.generation import eval_mode, generate
from amplora.train.memory_meter import MemoryMeter, line as memory_line
from amplora.train.metrics_log import MetricsLog

# Divergence (docs/train.md): this many optimizer steps in a row with a non-finite loss or gradients stop the run.
# One such step is skipped and training goes on (a bad batch); ten in a row is a model that no longer recovers.
MAX_NONFINITE_STEPS = 10


def _num(x: float) -> str:
    return "NaN" if math.isnan(x) else "Inf" if x == math.inf else "-Inf" if x == -math.inf else f"{x:.4g}"


@dataclass
class Optimization:
    """The trainable parameters and what updates them; a checkpoint saves and restores all four."""
    named_params: list
    optimizer: object
    scheduler: object
    scaler: object  # GradScaler, enabled for fp16 only

    @property
    def params(self) -> list:
        return [p for _, p in self.named_params]


@dataclass
class HeldOut:
    """What the loop's periodic evals use: held-out rows for the loss, a few prompts to answer."""
    rows: list = field(default_factory=list)  # encoded rows for the eval loss and the divergence probe
    samples: list = field(default_factory=list)  # (prompt messages, its last user text) generated at each eval


@dataclass
class Loop:
    cfg: TrainConfig
    model: object
    tokenizer: object
    wrapped: object  # chunked_loss.LossModel, possibly FSDP2-sharded or DDP-wrapped: what the steps call
    plan: BatchPlan
    opt: Optimization
    held: HeldOut
    device: torch.device
    dist: Dist
    output_dir: Path  # checkpoints go under it
    base_name: str  # recorded with each checkpoint's adapter
    metrics: MetricsLog
    memory: MemoryMeter  # run.py's meter (it also measures the scoring before and after)
    bookkeeping: dict  # saved in checkpoints: skipped steps, before scores...
    origin: object = field(default=None, init=False)  # where inf/NaN first appeared (doctor.nonfinite.NonFinite)

    @property
    def micro_per_step(self) -> int:
        return self.cfg.grad_accum * self.dist.world

    def step_once(self, step: int) -> dict:
        """One optimizer step over grad_accum micro-batches per rank; the loss is normalized by the answer tokens
        of the whole step (all ranks), so the update is the same as one process taking the same global batch."""
        ga, d = self.cfg.grad_accum, self.dist
        first = step * self.micro_per_step
        n_answer = max(1, sum(self.plan.answer_tokens(g) for g in range(first, first + self.micro_per_step)))
        loss_total, tokens = 0.0, 0
        for k in range(ga):
            batch = self.plan.batch(first + k * d.world + d.rank, self.device)
            tokens += batch.pop("tokens")
            if self.cfg.compile:
                compiled.step_begins(self.device)
            with dist_.grad_sync(self.wrapped, d, sync=k == ga - 1):
                loss_sum, _ = self.wrapped("loss", **batch)
                loss = loss_sum / n_answer
                # DDP and FSDP2 average gradients over ranks; × world turns that into the sum over the step
                self.opt.scaler.scale(loss * d.world if d.enabled else loss).backward()
            loss_total += float(loss.detach())
        loss_total, tokens = dist_.all_sum([loss_total, tokens], d, self.device)
        tokens = int(tokens)
        opt = self.opt
        opt.scaler.unscale_(opt.optimizer)
        grad_norm = torch.nn.utils.clip_grad_norm_(opt.params, self.cfg.max_grad_norm)
        finite = bool(torch.isfinite(grad_norm)) and math.isfinite(loss_total)
        scale = opt.scaler.get_scale() if opt.scaler.is_enabled() else None
        # fp16 gradients overflowing at a loss scale above 1 are the scaler backing off (it halves the scale and
        # the next steps recover), not divergence; at a scale of 1 or less the gradients themselves overflow
        backing_off = scale is not None and scale > 1 and math.isfinite(loss_total)
        if opt.scaler.is_enabled():
            opt.scaler.step(opt.optimizer)  # skips the update itself when unscale_ found inf/NaN
            opt.scaler.update()  # ...and then lowers the scale: the next steps recover
        elif finite:
            opt.optimizer.step()
        if finite:
            opt.scheduler.step()  # a skipped update does not use up the schedule (as transformers' Trainer)
        else:
            self.bookkeeping["skipped_steps"] = self.bookkeeping.get("skipped_steps", 0) + 1
        opt.optimizer.zero_grad(set_to_none=True)
        return {"loss": loss_total, "tokens": tokens, "grad_norm": float(grad_norm), "skipped": not finite,
                "loss_scale": scale, "nonfinite": not finite and not backing_off,
                "weights_finite": self.weights_finite() if finite else True}  # a skipped step changed nothing

    def locate_nonfinite(self, step: int, done: int, progress) -> None:
        """At the first non-finite step: re-run its first micro-batch op by op (the doctor) and say where inf/NaN
        first appeared. Single-process only: a sharded model's re-run would need every rank."""
        if self.dist.enabled:
            return
        batch = self.plan.batch(step * self.micro_per_step, self.device)
        batch.pop("tokens")
        self.origin = locate(self.model, lambda: self.wrapped("loss", **batch)[0])  # the plain LossModel here
        if self.origin is not None:
            progress.log(f"step {done}: {self.origin.summary()}")
            self.metrics.write({"kind": "nonfinite", "step": done, **self.origin.as_dict()})

    @torch.no_grad()
    def weights_finite(self) -> bool:
        """Whether every trainable tensor is finite, on every rank (each checks its own shards)."""
        local = [p.to_local() if hasattr(p, "to_local") else p for p in self.opt.params]
        bad = float(torch.stack([(~torch.isfinite(p.detach())).sum() for p in local]).sum()) if local else 0.0
        return dist_.all_sum([bad], self.dist, self.device)[0] == 0

    @torch.no_grad()
    def probe_loss(self) -> float:
        """Mean loss of one held-out batch (a training batch when there is no held-out set) through the current
        adapter: finite but huge weights (1e18 and up on the tiny model) still give NaN logits, caught here. Every
        rank scores the same batch, so every rank reaches the same verdict."""
        if self.held.rows:
            batch = collate(self.held.rows[:self.cfg.batch_size], self.plan.pad_id, False, self.device)
        else:
            batch = self.plan.batch(0, self.device)
        batch.pop("tokens")
        with eval_mode(self.model):
            loss_sum, n = self.wrapped("loss", **batch)
        total, count = dist_.all_sum([float(loss_sum), n], self.dist, self.device)
        return total / max(1, count)

    def check_adapter(self, step: int, held_out: float | None = None) -> None:
        """Raise TrainingDiverged unless the adapter's held-out loss (`held_out`, else one probe batch) is finite:
        called before every checkpoint and before the final adapter is written."""
        loss = held_out if held_out is not None else self.probe_loss()
        if not math.isfinite(loss):
            where = "held-out" if self.held.rows else "training-batch"
            raise TrainingDiverged(step, f"{where} loss is {_num(loss)} (the adapter's forward is not finite)")

    @torch.no_grad()
    def eval_loss(self) -> float | None:
        """Mean held-out token loss; distributed, each rank scores its share (same batch count on every rank)."""
        if not self.held.rows:
            return None
        d, bs = self.dist, self.cfg.batch_size
        mine, real = dist_.shard(self.held.rows, d), len(self.held.rows[d.rank::d.world])
        total, count = 0.0, 0
        with eval_mode(self.model):
            for i in range(0, len(mine), bs):
                rows = mine[i:min(i + bs, real)] or mine[i:i + bs]  # padding rows: run, then not counted
                batch = collate(rows, self.plan.pad_id, False, self.device)
                batch.pop("tokens")
                loss_sum, n = self.wrapped("loss", **batch)
                if i < real:
                    total, count = total + float(loss_sum), count + n
        total, count = dist_.all_sum([total, count], d, self.device)
        return total / max(1, count)

    def generate(self, prompts: list, max_new_tokens: int, batch_size: int, max_length: int) -> list[str]:
        """Greedy answers; distributed, each rank answers its share through the wrapped root (FSDP2 gathers the
        root's parameters there) with synced steps, then all ranks get all answers."""
        d = self.dist
        runner = (lambda **kw: self.wrapped("generate", **kw)) if d.enabled else None
        mine = generate(self.model, self.tokenizer, dist_.shard(prompts, d), max_new_tokens, batch_size,
                        max_length, self.device, runner=runner)
        return dist_.gather(mine, d, len(prompts))

    def periodic_eval(self, step: int, progress) -> float | None:
        """Held-out loss, and a few generations through the very model being trained (no autocast here)."""
        eval_loss = self.eval_loss()
        prompts = self.held.samples
        outputs = self.generate([p for p, _ in prompts], self.cfg.max_new_tokens, self.cfg.eval_batch_size,
                                self.cfg.max_length) if prompts else []
        samples = [{"prompt": text, "output": out} for (_, text), out in zip(prompts, outputs)]
        self.metrics.write({"kind": "eval", "step": step, "eval_loss": eval_loss, "samples": samples})
        shown = f"held-out loss {eval_loss:.4f}" if eval_loss is not None else "eval"
        progress.log(f"step {step}: {shown}" + (f"; sample: {outputs[0]!r}" if outputs else ""))
        return eval_loss

    def save(self, step: int) -> None:
        epoch, index = divmod(step * self.micro_per_step, self.plan.per_epoch)
        self.bookkeeping["data_position"] = {"micro_batch": step * self.micro_per_step, "epoch": epoch,
                                             "batch_in_epoch": index}  # order is a function of (seed, epoch)
        self.bookkeeping["micro_batches_per_step"] = self.micro_per_step  # kept when the world size changes
        rng = dist_.gather([checkpoint.rng_state()], self.dist, self.dist.world)  # one state per rank
        opt = self.opt
        checkpoint.save_checkpoint(self.output_dir, step, self.model, opt.named_params, opt.optimizer,
                                   opt.scheduler, opt.scaler, self.bookkeeping, self.base_name,
                                   write=self.dist.is_main, rng=rng if self.dist.enabled else None)

    def run(self, start_step: int, total_steps: int, progress) -> dict:
        """Train from `start_step` to `total_steps`, showing it on `progress` (a progress.TrainProgress); returns
        throughput facts for the report."""
        self.model.train()
        window, window_tokens, t_window = [], 0, time.perf_counter()
        t_start, tokens_all = time.perf_counter(), 0
        nonfinite_run = 0  # consecutive steps with a non-finite loss or gradients
        for step in range(start_step, total_steps):
            out = self.step_once(step)
            done = step + 1
            nonfinite_run = nonfinite_run + 1 if out["nonfinite"] else 0
            if (out["nonfinite"] or not out["weights_finite"]) and self.origin is None:
                self.locate_nonfinite(step, done, progress)
            window.append(out["loss"])
            window_tokens += out["tokens"]
            tokens_all += out["tokens"]
            elapsed = time.perf_counter() - t_window
            tps = window_tokens / elapsed if elapsed > 0 else 0.0
            progress.update(done, out["loss"], tps, self.memory.now())
            if out["skipped"]:
                progress.log(f"step {done}: non-finite gradients, update skipped"
                             + (f" (loss scale {out['loss_scale']:g} -> {self.opt.scaler.get_scale():g})"
                                if out["loss_scale"] is not None else ""))
            if done % self.cfg.log_every == 0 or done == total_steps:
                mean = sum(window) / len(window)
                mem_fields = self.memory.record()  # this window's peak; under torchrun a collective, every rank
                self.metrics.write({"kind": "train", "step": done, "loss": mean,
                                    "lr": self.opt.scheduler.get_last_lr()[0], "grad_norm": out["grad_norm"],
                                    "tokens_per_s": round(tps, 1), "loss_scale": out["loss_scale"],
                                    "skipped_steps": self.bookkeeping.get("skipped_steps", 0), **mem_fields})
                lr = self.opt.scheduler.get_last_lr()[0]
                progress.log(f"step {done}/{total_steps}  loss {mean:.4f}  lr {lr:.2e}  {tps:.0f} tok/s  "
                             f"{memory_line(self.memory.now())}")
                window, window_tokens, t_window = [], 0, time.perf_counter()
            if not out["weights_finite"]:
                raise TrainingDiverged(done, "the adapter weights became non-finite (Inf/NaN)")
            if nonfinite_run >= MAX_NONFINITE_STEPS:
                raise TrainingDiverged(done, f"{nonfinite_run} steps in a row had a non-finite loss or gradients "
                                             f"(loss {_num(out['loss'])}, gradient norm {_num(out['grad_norm'])})")
            if self.cfg.eval_every and done % self.cfg.eval_every == 0 and done != total_steps:
                eval_loss = self.periodic_eval(done, progress)
                if eval_loss is not None and not math.isfinite(eval_loss):
                    raise TrainingDiverged(done, f"held-out loss is {_num(eval_loss)}")
                self.model.train()
                t_window = time.perf_counter()  # eval time is not training throughput
            if self.cfg.save_every and done % self.cfg.save_every == 0:
                self.check_adapter(done)  # every checkpoint on disk holds an adapter whose forward is finite
                self.save(done)
        seconds = time.perf_counter() - t_start
        return {"train_seconds": round(seconds, 1), "train_tokens": tokens_all,
                "tokens_per_s": round(tokens_all / seconds, 1) if seconds > 0 else None}
