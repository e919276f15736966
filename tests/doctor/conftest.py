"""Helpers for the doctor's tests: run a corpus program in-process under watch(), or via `amplora doctor run`."""
from __future__ import annotations

import json
import os
import runpy
import subprocess
import sys
import threading
from concurrent.futures import Future
from pathlib import Path

import pytest

from .forkrun import run_many

PROGRAMS = Path(__file__).parent / "programs"
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path, monkeypatch):
    """Kernel-probe caches go to a fresh directory per test."""
    monkeypatch.setenv("AMPLORA_CACHE", str(tmp_path / "cache"))


def program_path(name: str) -> Path:
    return PROGRAMS / f"{name}.py"


def run_program(name: str, *args: str, **watch_kwargs):
    """Run a corpus program as __main__ inside `amplora.doctor.watch()`. Returns (fault or None, watcher)."""
    import amplora.doctor as doctor

    path = program_path(name)
    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = [str(path), *args]
    sys.path.insert(0, str(PROGRAMS))
    watcher = doctor.watch(**watch_kwargs)
    try:
        with watcher:
            runpy.run_path(str(path), run_name="__main__")
    except doctor.PrecisionFault as fault:
        return fault, watcher
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path
    return None, watcher


def amplora_cli(*args: str, stdin: str | None = None, cwd: Path | None = None, env_extra: dict | None = None,
                timeout: int = 120) -> subprocess.CompletedProcess:
    """`python -m amplora ARGS` in a subprocess (the real entry point)."""
    env = dict(os.environ, PYTHONWARNINGS="ignore", **(env_extra or {}))
    return subprocess.run([sys.executable, "-m", "amplora", *args], input=stdin, capture_output=True, text=True,
                          cwd=cwd or REPO, env=env, timeout=timeout)




# every `doctor run` subprocess the suite makes: corpus programs (faulty; the --qr variant of svd_half_init runs
# in-process only) and clean programs (with --report); tiny models run fastest on one thread each
FAULTY_SPECS = ["upcast_norms_generate", "fused_backward_out_buffer", "svd_half_init",
                "fp16_trainable_gradscaler", "dora_fp32_magnitude", "meta_device_mismatch",
                "meta_partial_load_backward", "offload_state_dict_copy",
                "peft_generate_outside_autocast", "peft_fp16_adapters_gradscaler", "fp8_base_dora_norm",
                "fp8_cpu_arithmetic", "optimizer_state_lerp", "scaler_unscale_twice", "ema_bf16_foreach",
                "meta_nonpersistent_buffer", "kv_cache_fp32_buffer", "sample_fp16_temperature",
                "numpy_float64_schedule", "state_dict_average_int", "plain_attribute_table",
                "moe_router_fp32_weights", "stochastic_depth_fp32_mask", "assign_load_half_checkpoint"]
CLEAN_SPECS = ["clean_bf16_autocast", "clean_amplora", "clean_func_transforms", "clean_export",
               "clean_fastpath_encoder_autocast", "clean_fp16_dynamic_loss_scale", "clean_t5_generate",
               "clean_jit_trace"]
# programs whose values go inf/NaN while the script itself exits 0 (test_nonfinite.py)
NONFINITE_SPECS = ["nan_fp16_mlp_overflow", "nan_fp16_attention_mask", "nan_custom_backward", "nan_optimizer_step",
                   "nan_fp16_loss_outside_module", "nan_fp16_adam_eps", "nan_fp16_running_sum",
                   "nan_fp16_hand_optimizer_state", "nan_fp16_teacher_kl",
                   "nan_sqrt_zero_distance", "nan_fp16_static_loss_scale", "nan_fp16_rmsnorm_eps",
                   "nan_fp16_scan_backward", "nan_fp16_sigmoid_log", "nan_fp16_second_output",
                   "nan_fp16_custom_backward_loss", "nan_fp16_schedule_divisor", "nan_fp16_scale_buffer",
                   "nan_fp16_hook_penalty", "nan_degree_zero_power", "nan_fp16_cast_buffer",
                   "nan_fp16_shared_bias_grad", "nan_stale_class_weights",
                   "nan_fp16_gradient_penalty", "nan_fp16_every_step_skipped", "nan_fp16_state_dict_export",
                   "nan_fp16_sliding_window_norm", "nan_fp16_exp_kernel_scaling"]


@pytest.fixture(scope="session")
def doctor_runs(tmp_path_factory):
    """All `amplora doctor run`s at once, in the background while other tests run (most of their time would be
    imports: each is forked after one import of torch, tests/doctor/forkrun.py); per test:
    {spec: Future[(CompletedProcess, json)]}."""
    out = tmp_path_factory.mktemp("runs")
    cache = tmp_path_factory.mktemp("cache")
    specs = [(spec, True) for spec in CLEAN_SPECS] + [(spec, False) for spec in FAULTY_SPECS + NONFINITE_SPECS]
    futures = {spec: Future() for spec, _ in specs}

    def json_path(spec):
        return out / (spec.replace(" ", "_") + ".json")

    def argv(spec, report):
        name, *args = spec.split()
        flags = ["--report"] if report else []
        return ["doctor", "run", *flags, "--json", str(json_path(spec)), str(program_path(name)), *args]

    def run_all():
        try:
            procs = run_many([argv(spec, report) for spec, report in specs], cwd=REPO, workers=3, timeout=300,
                             env_extra={"AMPLORA_CACHE": str(cache), "OMP_NUM_THREADS": "1"})
            for (spec, _), proc in zip(specs, procs):
                path = json_path(spec)
                futures[spec].set_result((proc, json.loads(path.read_text()) if path.exists() else None))
        except BaseException as e:  # every test that waits for a run gets the failure
            for future in futures.values():
                if not future.done():
                    future.set_exception(e)

    thread = threading.Thread(target=run_all, daemon=True)
    thread.start()
    yield futures
    thread.join()
