"""Several processes (torchrun): process group, FSDP2 / DDP wrapping, and the few collectives the trainer needs.

    torchrun --nproc_per_node 2 -m amplora train --strategy fsdp ...

One process per device (gloo on CPU, nccl on CUDA, chosen from the device). The trainer sees one object, `Dist`; in
a single process it is `Dist()` (world 1) and every helper here is a no-op, so the single-process path is the same
code. The model is wrapped as `chunked_loss.LossModel` (the LM plus its fp32 chunked loss) because the loss calls
the decoder and the output head directly, not `model.forward`: FSDP2 and DDP hook the root module's forward, so the
whole step — and generation — must go through one root forward for them to see it.
"""
from __future__ import annotations

import contextlib
import datetime
import gc
import os
from dataclasses import dataclass

import torch
import torch.distributed as dist
import torch.nn as nn

from amplora.adapters import policy_of
from amplora.errors import AmploraError
from amplora.train.chunked_loss import LossModel


@dataclass
class Dist:
    rank: int = 0
    world: int = 1
    local_rank: int = 0
    strategy: str = "none"  # none (one process) | fsdp | ddp

    @property
    def enabled(self) -> bool:
        return self.world > 1

    @property
    def is_main(self) -> bool:
        return self.rank == 0

    def describe(self) -> str:
        return f"{self.world} processes, {self.strategy}" if self.enabled else "1 process"


def from_env() -> Dist:
    """What torchrun set (WORLD_SIZE, RANK, LOCAL_RANK); world 1 when not launched by it."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    return Dist(rank=int(os.environ.get("RANK", "0")), world=world,
                local_rank=int(os.environ.get("LOCAL_RANK", "0")))


def choose_strategy(requested: str, quantize: str, precision_name: str) -> str:
    """FSDP2 by default; DDP where FSDP2 cannot shard what amplora builds. One-line errors for explicit misfits."""
    if requested == "fsdp" and quantize == "nf4":
        raise AmploraError("--strategy fsdp cannot shard a bitsandbytes NF4 base (its packed weights and quant "
                           "states are not DTensor-shardable); use --strategy ddp")
    if requested == "fsdp" and precision_name == "fp16-mixed":
        raise AmploraError("--strategy fsdp with fp16-mixed: the loss scaler's inf check would see only this "
                           "rank's gradient shard, so ranks could disagree on skipping a step; use --strategy "
                           "ddp or bf16")
    if requested == "auto":
        return "ddp" if quantize == "nf4" or precision_name == "fp16-mixed" else "fsdp"
    return requested


def init(d: Dist, device: torch.device, strategy: str) -> torch.device:
    """Join the process group; returns this rank's device (cuda:LOCAL_RANK on GPUs)."""
    if not d.enabled:
        return device
    if device.type == "cuda":
        device = torch.device("cuda", d.local_rank)
        torch.cuda.set_device(device)
    backend = "nccl" if device.type == "cuda" else "gloo"
    if not dist.is_initialized():
        # a rank stuck in a collective gives up after this long; torchrun normally ends the job much sooner
        dist.init_process_group(backend, timeout=datetime.timedelta(minutes=30))
    d.strategy = strategy
    return device


def shutdown(d: Dist) -> None:
    if d.enabled and dist.is_initialized():
        gc.collect()  # the run's FSDP/DDP state (reference cycles holding the process group) goes first
        dist.destroy_process_group()


def decoder_layers(model: nn.Module) -> list[nn.Module]:
    decoder = model.get_decoder() if hasattr(model, "get_decoder") else model
    layers = getattr(decoder, "layers", None)
    if not isinstance(layers, nn.ModuleList):
        raise AmploraError(f"--strategy fsdp: cannot find the decoder layers of {type(model).__name__} "
                           f"(expected model.get_decoder().layers); use --strategy ddp")
    return list(layers)


def wrap(model: nn.Module, d: Dist, chunk_rows: int, device: torch.device) -> nn.Module:
    """The module the loop calls: LossModel, sharded (FSDP2, per decoder layer plus the root) or replicated (DDP).
    Build the optimizer after this: FSDP2 replaces the parameters with sharded DTensors."""
    wrapped = LossModel(model, chunk_rows)
    if not d.enabled:
        return wrapped
    if d.strategy == "fsdp":
        from torch.distributed.fsdp import fully_shard

        mp = policy_of(model).fsdp_mixed_precision()  # the policy decides the gather and reduce dtypes
        for layer in decoder_layers(model):
            fully_shard(layer, mp_policy=mp)
        fully_shard(wrapped, mp_policy=mp)  # embeddings, final norm and the (often tied) head
        return wrapped
    from torch.nn.parallel import DistributedDataParallel as DDP

    # buffers (rotary tables, DoRA's ‖W‖²) are computed identically on every rank: no per-step broadcast
    return DDP(wrapped, device_ids=[device.index] if device.type == "cuda" else None, broadcast_buffers=False)


@contextlib.contextmanager
def grad_sync(wrapped: nn.Module, d: Dist, sync: bool):
    """Accumulation: reduce gradients only on the last micro-batch of a step."""
    if not d.enabled or sync:
        if d.strategy == "fsdp":
            wrapped.set_requires_gradient_sync(True)
        yield
    elif d.strategy == "fsdp":
        wrapped.set_requires_gradient_sync(False)
        yield
    else:
        with wrapped.no_sync():
            yield


def all_sum(values: list[float], d: Dist, device: torch.device) -> list[float]:
    if not d.enabled:
        return list(values)
    t = torch.tensor(values, dtype=torch.float64, device=device)
    dist.all_reduce(t)
    return t.tolist()


def barrier(d: Dist) -> None:
    if d.enabled:
        dist.barrier()


def shard(items: list, d: Dist) -> list:
    """This rank's share, items[rank::world], padded with copies of items[0] so that every rank holds the same
    count: ranks then run the same number of forwards, which FSDP's collectives require."""
    if not d.enabled or not items:
        return list(items)
    mine = items[d.rank::d.world]
    return mine + [items[0]] * (-(-len(items) // d.world) - len(mine))


def gather(mine: list, d: Dist, n: int) -> list:
    """Inverse of shard: every rank gets all n results in the original order."""
    if not d.enabled:
        return list(mine)
    parts: list = [None] * d.world
    dist.all_gather_object(parts, mine)
    return [parts[i % d.world][i // d.world] for i in range(n)]


def full_tensor(t: torch.Tensor) -> torch.Tensor:
    """A plain tensor from a possibly sharded one (a collective under FSDP2: every rank calls it)."""
    return t.full_tensor() if hasattr(t, "full_tensor") else t


def like_param(value: torch.Tensor, param: torch.Tensor) -> torch.Tensor:
    """A full tensor laid out as `param` is: this rank's shard when param is an FSDP2 DTensor."""
    if hasattr(param, "device_mesh") and value.shape == param.shape:
        from torch.distributed.tensor import distribute_tensor

        return distribute_tensor(value.to(param.device), param.device_mesh, param.placements)
    return value.to(param.device) if isinstance(value, torch.Tensor) else value
