"""Measured memory (progress line, metrics.jsonl, summary.json, report.html) and the TensorBoard event files."""
from __future__ import annotations

import json
import mmap
import sys

import pytest
import torch

from amplora.train import memory_meter
from amplora.train.memory_meter import MemoryMeter
from amplora.train.tensorboard_log import MISSING, TensorBoardLog

from .conftest import FAST, read_metrics, run_cli

MB = 2**20


def _resident(n: int) -> mmap.mmap:
    """n bytes of fresh resident memory: an anonymous mapping of its own (malloc could hand back pages that are
    resident already, and keep them after a free), written so that its pages count."""
    block = mmap.mmap(-1, n)
    block.write(b"\x01" * n)
    return block


def test_a_run_records_memory_everywhere_and_writes_tensorboard(tmp_path, alpaca_file, capsys):
    pytest.importorskip("tensorboard")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    out = tmp_path / "run"
    assert run_cli("train", *FAST, "--data", alpaca_file, "--output", out, "--exact-match") == 0
    assert "mem " in capsys.readouterr().out  # the logged step lines carry it (the bar does, on a terminal)

    records = read_metrics(out)
    measured = [r for r in records if r["kind"] in ("before", "train", "after")]
    assert [r["kind"] for r in measured] == ["before", "train", "train", "train", "after"]
    for r in measured:
        assert r["mem_device"] == "cpu" and "mem_reserved_bytes" not in r
        assert 10 * MB < r["mem_current_bytes"] <= r["mem_peak_bytes"]  # RSS: torch alone is more than 10 MB

    memory = json.loads((out / "summary.json").read_text())["memory"]
    assert memory["device"] == "cpu" and "RSS" in memory["measured"]
    assert memory["train_peak_bytes"] == max(r["mem_peak_bytes"] for r in measured if r["kind"] == "train")
    assert memory["peak_bytes"] == max(memory["startup_peak_bytes"], *(r["mem_peak_bytes"] for r in measured))
    assert 0 < memory["estimate"]["tensor_peak_bytes"] < memory["train_peak_bytes"]  # tensors only vs the process
    html = (out / "report.html").read_text()
    assert "<h2>Memory: peak " in html and "estimated " in html and "measured peak " in html
    assert html.count("data:image/png;base64,") == 2  # loss/score curves, memory curve

    events = EventAccumulator(str(out / "tensorboard"))
    events.Reload()
    train = [r for r in records if r["kind"] == "train"]
    losses = events.Scalars("train/loss")
    assert [e.step for e in losses] == [r["step"] for r in train]
    assert [e.value for e in losses] == pytest.approx([r["loss"] for r in train], rel=1e-6)
    peaks = events.Scalars("memory/peak_GiB")
    assert [e.value for e in peaks] == pytest.approx([r["mem_peak_bytes"] / 2**30 for r in measured], rel=1e-6)
    assert [e.step for e in events.Scalars("score/exact_match")] == [0, 3]  # before and after
    assert {"train/lr", "train/grad_norm", "train/tokens_per_s", "eval/loss"} <= set(events.Tags()["scalars"])


def test_each_record_holds_the_peak_of_its_own_window():
    meter = MemoryMeter(torch.device("cpu"))
    meter.record()  # ends the window of the process so far
    block = _resident(96 * MB)
    block.close()
    first = meter.record()
    assert first["mem_peak_bytes"] - first["mem_current_bytes"] > 80 * MB  # freed, but the peak saw it
    second = meter.record()
    assert second["mem_peak_bytes"] < first["mem_peak_bytes"] - 80 * MB  # a new window forgot it
    assert meter.peak_by_rank == [meter.run_peak] and meter.run_peak >= first["mem_peak_bytes"]
    assert meter.exact_peak


def test_without_a_resettable_peak_the_window_peak_is_sampled(monkeypatch):
    monkeypatch.setattr(memory_meter, "_reset_hwm", lambda: False)
    meter = MemoryMeter(torch.device("cpu"))
    meter.record()
    meter.record()  # the reset was refused: from here peaks are sampled at step ends
    block = _resident(96 * MB)
    seen = meter.now()["current"]  # a step end while the block is alive
    block.close()
    window = meter.record()
    assert window["mem_peak_bytes"] >= seen > window["mem_current_bytes"] + 80 * MB
    assert not meter.exact_peak and "lower bound" in meter.describe()


def test_progress_text_names_current_peak_and_reserved():
    assert memory_meter.line({"current": 300 * MB, "peak": 512 * MB}) == "mem 0.29 GB (peak 0.50)"
    cuda = {"current": 3 * 2**30, "peak": 4 * 2**30, "reserved": 5 * 2**30, "ranks_peak": 6 * 2**30}
    assert memory_meter.line(cuda) == "alloc 3.00 GB (peak 4.00), reserved 5.00 GB, max over ranks 6.00 GB"


def test_without_tensorboard_nothing_is_written_and_one_note_says_so(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "torch.utils.tensorboard", None)  # its import now fails as if missing
    notes = []
    log = TensorBoardLog(tmp_path / "tensorboard", note=notes.append)
    log.write({"kind": "train", "step": 1, "loss": 1.0})
    log.close()
    assert notes == [MISSING] and not log.available and not (tmp_path / "tensorboard").exists()


def test_a_resumed_log_replaces_what_the_killed_run_logged_after_its_checkpoint(tmp_path):
    """As metrics.jsonl (truncate_metrics): a run killed after step 4, resumed from its step-2 checkpoint."""
    pytest.importorskip("tensorboard")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    killed = TensorBoardLog(tmp_path)
    for step in (1, 2, 3, 4):
        killed.write({"kind": "train", "step": step, "loss": 10.0 + step})
    killed.close()
    resumed = TensorBoardLog(tmp_path, purge_step=3)
    for step in (3, 4, 5):
        resumed.write({"kind": "train", "step": step, "loss": 20.0 + step})
    resumed.close()
    events = EventAccumulator(str(tmp_path))
    events.Reload()
    assert [(e.step, e.value) for e in events.Scalars("train/loss")] == [(1, 11), (2, 12), (3, 23), (4, 24), (5, 25)]
