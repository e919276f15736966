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


@pytest.mark.parametrize("model, lora_goal, peft_goal", [("smollm2-135m", 1.3, 1.6), ("llama-3.2-1b", 1.1, 1.5)])
def test_gpu_goals_are_per_model_and_compare_with_peft(model, lora_goal, peft_goal):
    rows = {}
    for config, step in (("floor", 0.10), ("peft-lora", 0.20), ("amplora-lora", 0.125)):
        rows[("bf16", config)] = dict(row(step, step, step), cuda_peak_gb=1.0, tokens_per_s=1024 / step)
    line, = speed.goal_lines(rows, cuda=True, model=model)
    assert f"goal ≤ {lora_goal}: " in line
    assert f"1.60× PEFT's tokens/s (goal ≥ {peft_goal}: met)" in line
    rows[("bf16", "amplora-lora")]["tokens_per_s"] = 1024 / 0.2
    line, = speed.goal_lines(rows, cuda=True, model=model)
    assert f"1.00× PEFT's tokens/s (goal ≥ {peft_goal}: missed)" in line


def test_the_1b_class_config_is_llama_3_2_1b():
    """bench/llama-3.2-1b-config.json builds Llama-3.2-1B's architecture (1.236 B parameters, tied head)."""
    torch = pytest.importorskip("torch")
    spec = importlib.util.spec_from_file_location("bench_worker", Path(speed.__file__).with_name("speed_worker.py"))
    worker = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(worker)
    model = worker.load_base(torch.bfloat16, torch.device("meta"), True, model="llama-3.2-1b")
    assert sum(p.numel() for p in model.parameters()) == 1_235_814_400
    assert model.config.num_hidden_layers == 16 and model.config.num_key_value_heads == 8
    assert model.config.tie_word_embeddings


def test_compiled_workers_report_what_undoes_the_compile():
    log = ("W1126 torch/_dynamo hit config.recompile_limit (8)\nstep 1 ok\n"
           "skipping cudagraphs due to mutated inputs (1 instances)\n")
    assert speed.compile_notes(log) == ["W1126 torch/_dynamo hit config.recompile_limit (8)",
                                        "skipping cudagraphs due to mutated inputs (1 instances)"]
    assert speed.compile_notes("step 1 ok\n") == []


def test_worker_command_carries_the_model_and_compile_flags():
    args = speed.argparse.Namespace(device="cuda", batch=8, seq=1024, r=16, warmup=3, threads=0, checkpointing=False,
                                    compile=True, compile_mode="reduce-overhead", compile_regions=True,
                                    model="llama-3.2-1b", random_init=True, narrow=False)
    cmd = speed.worker_cmd("amplora-lora", "bf16", args, 10)
    assert cmd[cmd.index("--compile-mode") + 1] == "reduce-overhead" and "--compile-regions" in cmd
    assert cmd[cmd.index("--model") + 1] == "llama-3.2-1b" and "--compile" in cmd
    args.compile, args.compile_mode, args.compile_regions = False, None, False
    assert not {"--compile", "--compile-mode", "--compile-regions"} & set(speed.worker_cmd("floor", "bf16", args, 10))
