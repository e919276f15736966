"""bench/speed.py's verdict and report lines, on rows as its workers return them (no model is run here)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location("bench_speed", Path(__file__).parents[2] / "bench" / "speed.py")
speed = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(speed)


def row(step, own, steady, cpu=None, rss=1.0, faults=200_000, sys_s=0.4):
    return {"step_s": step, "process_step_s": own, "steady_step_s": steady, "cpu_s": cpu or step,
            "peak_rss_gb": rss, "peak_live_gb": rss, "peak_tensors_gb": rss, "times": [step], "interleaved": True,
            "faults_per_step": faults, "sys_s": sys_s}


@pytest.mark.parametrize("ratios, expected", [
    ((1.05, 1.07, 1.08), "met"),
    ((1.05, 1.09, 1.2), "met by 1 of 3 measures"),
    ((1.09, 1.10), "missed"),
    ((1.05, None, 1.06), "met"),  # a measure not taken does not count
])
def test_verdict_counts_every_measure(ratios, expected):
    assert speed.verdict(1.08, *ratios) == expected


def test_the_steady_heap_ratio_joins_the_goal_verdict():
    rows = {("bf16", "floor"): row(2.0, 2.0, 2.0), ("bf16", "amplora-lora"): row(2.1, 2.1, 2.4)}
    line, = speed.goal_lines(rows, cuda=False)
    assert "1.200× with a steady heap" in line
    assert "goal ≤ 1.08: met by 3 of 4 measures" in line  # wall, CPU, own process met; steady heap missed
    del rows[("bf16", "amplora-lora")]["steady_step_s"]  # a run without --steady-heap: three measures
    line, = speed.goal_lines(rows, cuda=False)
    assert "steady heap" not in line and "goal ≤ 1.08: met)" in line


def test_fault_lines_give_each_configs_faults_and_system_time():
    rows = {("fp32", "floor"): row(4.0, 4.0, 4.0, faults=196_625, sys_s=0.39),
            ("fp32", "amplora-dora"): row(4.6, 4.6, 4.6, faults=202_452, sys_s=0.51)}
    assert speed.fault_lines(rows) == ["- fp32 page faults per step (system time), each config in its own process: "
                                       "floor 197 K (0.39 s), amplora-dora 202 K (0.51 s)"]
