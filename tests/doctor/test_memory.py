"""The memory plan: the estimate against the measured tensor peak of real amplora steps (small models), the
`amplora doctor --model` table, and device=auto's choice."""
from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from amplora.cli import main
from amplora.doctor.memory import Settings, estimate
from amplora.doctor.memory_plan import MemoryPlanError, pick_device, plan
from amplora.errors import AmploraError
from amplora.model_configs import TINY_CONFIG

BENCH = Path(__file__).parents[2] / "bench"


def _bench():
    sys.path.insert(0, str(BENCH))  # memory_estimate imports speed_worker from beside it
    spec = importlib.util.spec_from_file_location("bench_memory_estimate", BENCH / "memory_estimate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("config, settings", [
    (TINY_CONFIG, dict(method="lora", precision="fp32", batch_size=4, max_length=128)),
    (TINY_CONFIG, dict(method="dora", precision="bf16-true", batch_size=4, max_length=64,
                       activation_checkpointing=True)),
    ({**TINY_CONFIG, "num_hidden_layers": 3, "vocab_size": 1000, "tie_word_embeddings": False},
     dict(method="lora", precision="fp32", batch_size=2, max_length=128, quantize="nf4", loss_chunk_rows=64)),
])
def test_estimate_within_15_percent_of_the_measured_tensor_peak(config, settings):
    bench = _bench()
    measured = bench.measure(config, settings)
    est = estimate(config, **settings).total
    assert abs(est / measured - 1) <= 0.15, (est, measured)


def test_settings_move_the_estimate_the_way_they_should():
    run = Settings(precision="fp32", batch_size=8, max_length=256)
    base = estimate(TINY_CONFIG, settings=run)
    assert estimate(TINY_CONFIG, settings=run, batch_size=16).total > base.total
    assert estimate(TINY_CONFIG, settings=run, activation_checkpointing=True).total < base.total
    nf4 = estimate(TINY_CONFIG, settings=run, quantize="nf4")
    assert nf4.parts["frozen weights"] < base.parts["frozen weights"]
    bf16 = estimate(TINY_CONFIG, settings=run, precision="bf16-true")
    assert bf16.parts["activations"] < base.parts["activations"]
    dora = estimate(TINY_CONFIG, settings=run, method="dora")
    assert dora.parts["adapters"] > base.parts["adapters"]
    assert estimate(TINY_CONFIG, settings=run, device="cuda:0").overhead > 0 == base.overhead


def test_bad_settings_are_one_line_errors():
    with pytest.raises(AmploraError, match="unknown method"):
        estimate(TINY_CONFIG, method="ia3")
    with pytest.raises(AmploraError, match="matched no Linear"):
        estimate(TINY_CONFIG, targets=["nope_proj"])
    with pytest.raises(AmploraError, match="batch_size"):
        estimate(TINY_CONFIG, batch_size=0)


def test_a_family_without_a_formula_is_planned_from_its_meta_model():
    phi3 = {"model_type": "phi3", "vocab_size": 300, "hidden_size": 64, "intermediate_size": 128,
            "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 4, "pad_token_id": 0}
    est = estimate(phi3, batch_size=2, max_length=32)
    assert est.total > 0 and est.notes


def test_cli_table_for_tiny(capsys):
    assert main(["doctor", "--model", "tiny", "--batch-size", "4", "--max-length", "64"]) == 0
    out = capsys.readouterr().out
    assert "estimate" in out and "free" in out
    assert any(line.startswith("cpu ") and " yes" in line for line in out.splitlines())


def test_cli_json_for_a_config_directory(tmp_path, capsys):
    (tmp_path / "config.json").write_text(json.dumps(TINY_CONFIG))
    assert main(["doctor", "--model", str(tmp_path), "--json", "--precision", "bf16-true"]) == 0
    cpu = [d for d in json.loads(capsys.readouterr().out)["devices"] if d["device"] == "cpu"][0]
    assert cpu["fits"] is True and cpu["estimate"]["total"] > 0


def test_cli_reports_a_run_that_fits_nowhere(capsys):
    assert main(["doctor", "--model", "tiny", "--batch-size", "64", "--max-length", "1000000"]) == 6
    assert "none fits" in capsys.readouterr().out


def test_unknown_model_is_a_one_line_error(tmp_path):
    assert main(["doctor", "--model", str(tmp_path / "missing")]) == 2


def test_pick_device_skips_a_device_the_run_does_not_fit_on():
    big = Settings(precision="fp32", batch_size=64, max_length=2048)
    need = estimate(TINY_CONFIG, settings=big).total
    devices = [("cuda:0", "small GPU", need // 2), ("cuda:1", "big GPU", need * 4), ("cpu", "host", need * 8)]
    # cuda:1 carries the CUDA allowance on top of the tensor peak: four times the peak covers it here
    assert pick_device(TINY_CONFIG, big, devices) == "cuda:1"
    assert pick_device(TINY_CONFIG, big, devices[:1] + devices[2:]) == "cpu"


def test_pick_device_refuses_a_run_that_fits_nowhere_and_names_the_first_fix():
    big = Settings(precision="fp32", batch_size=64, max_length=2048)
    need = estimate(TINY_CONFIG, settings=big).total
    with pytest.raises(MemoryPlanError) as e:
        pick_device(TINY_CONFIG, big, [("cpu", "host", need * 6 // 10)])
    assert "\n" not in str(e.value) and "fits on no device" in str(e.value)
    assert "--batch-size 32 --grad-accum 2" in e.value.table
    rows = plan(TINY_CONFIG, big, [("cpu", "host", need * 6 // 10)])
    assert rows[0].fits is False and rows[0].fix.startswith("--batch-size")
