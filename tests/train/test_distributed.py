"""`torchrun -m amplora train` on 2 CPU processes (gloo), the tiny model: FSDP2 and DDP match one process taking
the same global batch, the adapter loads in PEFT, a killed 2-rank run resumes on 2 ranks or on 1, and a rank that
dies ends the job instead of hanging it."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

from amplora.errors import AmploraError
from amplora.train import checkpoint
from amplora.train.config import build_config
from amplora.train.distributed import Dist, choose_strategy, gather, shard
from amplora.train.run import _keep_global_batch
from amplora.train.tiny_model import build_model, build_tokenizer

from .conftest import read_metrics

STEPS = 8
# global batch 8 everywhere: 2 per micro-batch x 2 accumulation x 2 ranks, or 2 x 4 x 1 process
COMMON = ["train", "--model", "tiny", "--max-steps", str(STEPS), "--batch-size", "2", "--lr", "5e-3",
          "--eval-every", "4", "--eval-limit", "3", "--eval-loss-limit", "3", "--samples", "2",
          "--max-new-tokens", "3", "--log-every", "1", "--save-every", "2", "--precision", "fp32",
          "--exact-match"]
TWO_RANKS = ["--grad-accum", "2"]
ONE_PROCESS = ["--grad-accum", "4"]
# fp32 unless a test says otherwise (`auto` would follow the machine). The runs differ only in the order gradients
# are summed (per rank, then reduced across ranks), a few float32 roundings per step. Measured: losses 3e-7
# relative, weights 7e-6 absolute — Adam divides by sqrt(v), which magnifies rounding in near-zero gradients;
# 5e-5 is 0.1% of what lr 5e-3 x 8 steps can move.
LOSS_RTOL = 1e-5
WEIGHT_ATOL = 5e-5
# bf16-true: the same fp32 reordering, but the adapters' fp32 updates are then rounded into bf16 activations and
# bf16-GEMM gradients, so a last-bit difference can flip a bf16 rounding, and Adam turns a flipped near-zero gradient
# into a full-size step. Measured (FSDP / DDP): losses up to 1e-3 / 2e-3 relative (bf16 eps is 8e-3), weights up to
# 1.0e-4 absolute; 5e-4 is 1.25% of what lr 5e-3 x 8 steps can move a weight.
BF16_LOSS_RTOL = 1e-2
BF16_WEIGHT_ATOL = 5e-4
ENV = {**os.environ, "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1", "PYTHONUNBUFFERED": "1"}


def torchrun_cmd(nproc: int, *args, launch=("--standalone",), program=("-m", "amplora")) -> list[str]:
    """torchrun with nproc processes on this node running `program args` (by default `-m amplora`)."""
    return [sys.executable, "-m", "torch.distributed.run", *launch, "--nproc_per_node", str(nproc),
            *program, *[str(a) for a in args]]


def run(cmd: list[str], timeout: float = 300) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, env=ENV, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}"
    return proc


def train_losses(run_dir: Path) -> list[float]:
    return [r["loss"] for r in read_metrics(run_dir) if r["kind"] == "train"]


def adapter(run_dir: Path) -> dict[str, torch.Tensor]:
    return load_file(str(run_dir / "adapter" / "adapter_model.safetensors"))


def assert_same_adapter(a: dict, b: dict, atol: float) -> None:
    assert sorted(a) == sorted(b)
    for key in a:
        torch.testing.assert_close(a[key], b[key], rtol=0, atol=atol, msg=key)


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    from .conftest import alpaca_rows, write_jsonl

    return write_jsonl(tmp_path_factory.mktemp("data") / "alpaca.jsonl", alpaca_rows(40))


@pytest.fixture(scope="module")
def singles(tmp_path_factory, data):
    """The references: one process, the same global batch, one run per precision (made on first use)."""
    made: dict[str, Path] = {}

    def get(precision: str = "fp32") -> Path:
        if precision not in made:
            out = tmp_path_factory.mktemp(f"single-{precision}") / "run"
            run([sys.executable, "-m", "amplora", *COMMON, *ONE_PROCESS, "--data", data, "--output", out,
                 "--precision", precision])
            made[precision] = out
        return made[precision]

    return get


@pytest.fixture(scope="module")
def single(singles) -> Path:
    return singles("fp32")


@pytest.mark.slow
@pytest.mark.parametrize("strategy, precision, loss_rtol, weight_atol", [
    ("fsdp", "fp32", LOSS_RTOL, WEIGHT_ATOL), ("ddp", "fp32", LOSS_RTOL, WEIGHT_ATOL),
    ("fsdp", "bf16-true", BF16_LOSS_RTOL, BF16_WEIGHT_ATOL)])
def test_two_ranks_match_one_process_with_the_same_global_batch(tmp_path, data, singles, strategy, precision,
                                                                loss_rtol, weight_atol):
    out, single = tmp_path / strategy, singles(precision)
    proc = run(torchrun_cmd(2, *COMMON, *TWO_RANKS, "--strategy", strategy, "--data", data, "--output", out,
                            "--precision", precision))
    assert f"2 processes, {strategy}" in proc.stdout
    assert proc.stdout.count("amplora train: model tiny") == 1  # rank 0 alone prints
    assert json.loads((out / "summary.json").read_text())["policy"]["name"] == precision

    ours, ref = train_losses(out), train_losses(single)
    assert len(ours) == len(ref) == STEPS
    torch.testing.assert_close(torch.tensor(ours), torch.tensor(ref), rtol=loss_rtol, atol=0)
    assert ref[-1] < ref[0]  # it learned something, so matching trajectories mean something
    assert_same_adapter(adapter(out), adapter(single), weight_atol)

    # held-out scoring and periodic samples were gathered from both ranks, in order
    summary, ref_summary = json.loads((out / "summary.json").read_text()), json.loads((single / "summary.json").read_text())
    assert summary["after"]["predictions"] == ref_summary["after"]["predictions"]
    assert summary["facts"]["batch"] == "2 x 2 accumulation x 2 processes = 8 examples"
    # memory: every rank measured its own, rank 0 wrote all of them (a rank that sent nothing would read 0)
    for record in [r for r in read_metrics(out) if r["kind"] in ("before", "train", "after")]:
        per_rank = record["mem_peak_bytes_by_rank"]
        assert len(per_rank) == 2 and min(per_rank) > 0 and record["mem_peak_bytes"] == max(per_rank)
    assert len(summary["memory"]["peak_bytes_by_rank"]) == 2 and "max over ranks" in proc.stdout
    evals = [r for r in read_metrics(out) if r["kind"] == "eval"]
    assert [s["output"] for s in evals[0]["samples"]] == \
        [s["output"] for s in [r for r in read_metrics(single) if r["kind"] == "eval"][0]["samples"]]
    ref_eval = [r for r in read_metrics(single) if r["kind"] == "eval"][0]["eval_loss"]
    assert evals[0]["eval_loss"] == pytest.approx(ref_eval, rel=loss_rtol)

    # the checkpoints and final adapter are ordinary PEFT files, in the same form as one process writes
    assert sorted(p.name for p in (out / "checkpoints").iterdir()) == ["step-000006", "step-000008"]
    peft = pytest.importorskip("peft")
    model = peft.PeftModel.from_pretrained(build_model(build_tokenizer()), str(out / "adapter"))
    state = peft.get_peft_model_state_dict(model)
    ours = adapter(out)
    assert sorted(state) == sorted(ours)
    for key, value in ours.items():
        assert torch.equal(state[key], value), key


@pytest.mark.slow
def test_qdora_on_two_ranks_picks_ddp_and_matches_one_process(tmp_path, data):
    """An NF4 base cannot be sharded: `auto` replicates it (DDP), and QDoRA still matches one process."""
    args = [*COMMON, "--max-steps", "4", "--method", "dora", "--quantize", "nf4", "--eval-every", "0",
            "--save-every", "0", "--data", data]
    proc = run(torchrun_cmd(2, *args, *TWO_RANKS, "--output", tmp_path / "two"))
    assert "2 processes, ddp" in proc.stdout
    run([sys.executable, "-m", "amplora", *args, *ONE_PROCESS, "--output", tmp_path / "one"])
    torch.testing.assert_close(torch.tensor(train_losses(tmp_path / "two")),
                               torch.tensor(train_losses(tmp_path / "one")), rtol=LOSS_RTOL, atol=0)
    ours, ref = adapter(tmp_path / "two"), adapter(tmp_path / "one")
    assert any(k.endswith("lora_magnitude_vector") for k in ours)
    assert_same_adapter(ours, ref, WEIGHT_ATOL)


def _processes():
    """(pid, state, ppid, process group) of every process, from /proc/PID/stat."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            state, ppid, pgrp = (entry / "stat").read_text().rsplit(")", 1)[1].split()[:3]
        except (OSError, ValueError):  # gone meanwhile
            continue
        yield int(entry.name), state, int(ppid), int(pgrp)


def _wait_until_gone(pgid: int, timeout: float = 30) -> None:
    """Until no process of the group is running (zombies, waiting for a parent to reap them, count as gone)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not any(pgrp == pgid and state != "Z" for _, state, _, pgrp in _processes()):
            return
        time.sleep(0.01)
    raise AssertionError(f"processes of group {pgid} still running {timeout} s after SIGKILL")


def _kill_after_first_checkpoint(cmd: list[str], run_dir: Path) -> None:
    proc = subprocess.Popen(cmd, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 240
        while not checkpoint.checkpoint_dirs(run_dir / "checkpoints"):
            assert proc.poll() is None, proc.stderr.read().decode()[-3000:]
            assert time.monotonic() < deadline, "no checkpoint appeared"
            time.sleep(0.01)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # torchrun and both ranks, at once
        proc.wait()
        _wait_until_gone(proc.pid)  # the ranks too, not only torchrun: nothing may touch run_dir after this
    assert not (run_dir / "adapter").exists()
    assert int(checkpoint.checkpoint_dirs(run_dir / "checkpoints")[-1].name.split("-")[1]) < STEPS


@pytest.mark.slow
def test_killed_two_rank_run_resumes_on_two_ranks_and_on_one(tmp_path, data, single):
    straight, killed = tmp_path / "straight", tmp_path / "killed"
    args = [*COMMON, *TWO_RANKS, "--strategy", "fsdp", "--data", data]
    run(torchrun_cmd(2, *args, "--output", straight))
    _kill_after_first_checkpoint(torchrun_cmd(2, *args, "--output", killed), killed)
    shutil.copytree(killed, tmp_path / "killed-copy")

    # same world size: the same operations again, so the same adapter as the uninterrupted run
    run(torchrun_cmd(2, "train", "--resume", killed, "--quiet"))
    assert_same_adapter(adapter(killed), adapter(straight), 1e-6)
    assert train_losses(killed) == pytest.approx(train_losses(straight), rel=1e-6)

    # one process: accumulation 2 -> 4 keeps the global batch of 8, so the run continues on the same data
    proc = run([sys.executable, "-m", "amplora", "train", "--resume", tmp_path / "killed-copy"])
    assert "gradient accumulation 2 -> 4, keeping the global batch of 8" in proc.stdout
    resumed = tmp_path / "killed-copy"
    torch.testing.assert_close(torch.tensor(train_losses(resumed)), torch.tensor(train_losses(single)),
                               rtol=LOSS_RTOL, atol=0)
    assert_same_adapter(adapter(resumed), adapter(single), WEIGHT_ATOL)


def _rank_pid(parent: int, rank: int, timeout: float = 120) -> int:
    """The pid of the worker torchrun started with RANK=rank."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for pid, _, ppid, _ in _processes():
            try:
                environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
            except OSError:
                continue
            if ppid == parent and f"RANK={rank}".encode() in environ:
                return pid
        time.sleep(0.1)
    raise AssertionError(f"no worker with RANK={rank}")


def _has_trained(out: Path) -> bool:
    try:
        return any(r["kind"] == "train" for r in read_metrics(out))
    except (OSError, json.JSONDecodeError):  # not there yet, or a line being written
        return False


@pytest.mark.slow
def test_a_rank_that_dies_ends_the_job_instead_of_hanging_it(tmp_path, data):
    out = tmp_path / "run"
    cmd = torchrun_cmd(2, *COMMON, *TWO_RANKS, "--max-steps", "100000", "--save-every", "0", "--data", data,
                       "--output", out)
    proc = subprocess.Popen(cmd, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        victim = _rank_pid(proc.pid, 1)
        deadline = time.monotonic() + 240
        while not _has_trained(out):
            assert proc.poll() is None and time.monotonic() < deadline, "training never started"
            time.sleep(0.05)
        os.kill(victim, signal.SIGKILL)  # rank 1 dies mid-training; rank 0 is inside (or entering) a collective
        t0 = time.monotonic()
        _, stderr = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        raise AssertionError("the job hung after a rank died")
    assert proc.returncode != 0
    assert time.monotonic() - t0 < 120
    assert "local_rank: 1" in stderr and "Signal 9" in stderr  # torchrun names the rank that failed, and why
    assert not (out / "adapter").exists()


@pytest.mark.slow
def test_two_nodes_through_torchruns_rendezvous_match_one_process(tmp_path, data, single):
    """The README's multi-node command, on this machine: two torchrun agents (one "node" each) that meet through a
    c10d rendezvous on a loopback port, one process per node."""
    import socket

    with socket.socket() as sock:  # a free loopback port for the rendezvous
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    out = tmp_path / "run"
    rendezvous = ("--nnodes", "2", "--rdzv-backend", "c10d", "--rdzv-endpoint", f"127.0.0.1:{port}",
                  "--rdzv-id", "amplora-test")
    node = torchrun_cmd(1, *COMMON, *TWO_RANKS, "--strategy", "fsdp", "--data", data, "--output", out,
                        launch=rendezvous)
    agents = [subprocess.Popen(node, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
              for _ in range(2)]
    try:
        outputs = [a.communicate(timeout=240) for a in agents]
    finally:
        for a in agents:
            a.kill()
    assert [a.returncode for a in agents] == [0, 0], "\n".join(err[-3000:] for _, err in outputs)
    assert sum("2 processes, fsdp" in o for o, _ in outputs) == 1  # one global rank 0 across the two nodes
    torch.testing.assert_close(torch.tensor(train_losses(out)), torch.tensor(train_losses(single)),
                               rtol=LOSS_RTOL, atol=0)
    assert_same_adapter(adapter(out), adapter(single), WEIGHT_ATOL)


# Rank 1 alone raises mid-training (its 5th micro-batch, i.e. in step 3), while rank 0 carries on into a collective.
FAULTY_RANK_1 = """
import os, runpy, sys
from amplora.train.batches import BatchPlan

if os.environ["RANK"] == "1":
    real, calls = BatchPlan.batch, []

    def batch(self, *args, **kwargs):
        calls.append(None)
        if len(calls) > 4:
            raise RuntimeError("injected fault: rank 1 could not build its micro-batch")
        return real(self, *args, **kwargs)

    BatchPlan.batch = batch
runpy.run_module("amplora", run_name="__main__", alter_sys=True)
"""


@pytest.mark.slow
def test_a_rank_that_raises_ends_the_job_with_that_ranks_error(tmp_path, data):
    script = tmp_path / "faulty_rank.py"
    script.write_text(FAULTY_RANK_1)
    out = tmp_path / "run"
    cmd = torchrun_cmd(2, *COMMON, *TWO_RANKS, "--save-every", "0", "--data", data, "--output", out,
                       program=(str(script),))
    t0 = time.monotonic()
    proc = subprocess.run(cmd, env=ENV, capture_output=True, text=True, timeout=180)
    assert proc.returncode != 0
    assert time.monotonic() - t0 < 180
    # torchrun reports the failing rank first, with the exception (via @record in amplora.__main__)
    assert "injected fault: rank 1 could not build its micro-batch" in proc.stderr
    assert "rank      : 1" in proc.stderr or "local_rank: 1" in proc.stderr, proc.stderr[-3000:]
    assert len([r for r in read_metrics(out) if r["kind"] == "train"]) == 2  # steps 1 and 2, then the fault
    assert not (out / "adapter").exists()


def test_strategy_choice_and_its_one_line_errors():
    assert choose_strategy("auto", "none", "bf16-true") == "fsdp"
    assert choose_strategy("auto", "nf4", "fp32") == "ddp"
    assert choose_strategy("auto", "none", "fp16-mixed") == "ddp"
    assert choose_strategy("ddp", "none", "fp32") == "ddp"
    with pytest.raises(AmploraError, match="use --strategy ddp"):
        choose_strategy("fsdp", "nf4", "fp32")
    with pytest.raises(AmploraError, match="fp16-mixed"):
        choose_strategy("fsdp", "none", "fp16-mixed")
    with pytest.raises(AmploraError, match="unknown strategy 'zero3'"):
        build_config({"strategy": "zero3"})


def test_resume_keeps_the_global_batch_or_says_why_it_cannot(capsys):
    from amplora.train.progress import make_console

    cfg = build_config({"grad_accum": 2, "batch_size": 4})
    state = {"bookkeeping": {"micro_batches_per_step": 4}}
    _keep_global_batch(cfg, state, 4, make_console())
    assert cfg.grad_accum == 1 and "keeping the global batch of 16" in capsys.readouterr().out
    with pytest.raises(AmploraError, match="3 processes cannot split that evenly"):
        _keep_global_batch(build_config({"grad_accum": 2}), state, 3, make_console())


def test_shard_and_gather_are_inverse_and_balanced():
    items = list(range(7))
    shares = [shard(items, Dist(rank=r, world=3)) for r in range(3)]
    assert [len(s) for s in shares] == [3, 3, 3]  # padded: every rank runs the same number of forwards
    assert shares[2] == [2, 5, 0]  # the last entry is padding (a copy of items[0])
    assert [shares[i % 3][i // 3] for i in range(7)] == items
    assert gather(items, Dist(), 7) == items
