"""Config: defaults <- YAML <- flags, coercion, one-line errors for anything unknown or ill-typed."""
from __future__ import annotations

import pytest
import yaml

from amplora.errors import AmploraError
from amplora.train.config import TrainConfig, build_config, load_yaml


def test_defaults_are_the_default_run():
    cfg = build_config()
    assert (cfg.model, cfg.method, cfg.precision, cfg.device, cfg.quantize) == \
        ("smollm2-135m", "lora", "auto", "auto", "none")
    assert cfg.data is None and cfg.max_steps > 0


def test_flags_override_file(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("lr: 2e-4\nmax-steps: 7\nmethod: dora\ntargets: [q_proj, v_proj]\npacking: yes\n")
    cfg = build_config(load_yaml(path), {"max_steps": 9})
    assert cfg.lr == pytest.approx(2e-4)  # YAML 1.1 reads 2e-4 as a string: coerced
    assert cfg.max_steps == 9 and cfg.method == "dora" and cfg.packing is True
    assert cfg.targets == ["q_proj", "v_proj"]


def test_comma_targets_flag_becomes_list():
    assert build_config(overrides={"targets": "q_proj,v_proj"}).targets == ["q_proj", "v_proj"]


def test_epochs_used_when_max_steps_is_zero():
    cfg = build_config(overrides={"max_steps": 0, "epochs": 2, "grad_accum": 2})
    assert cfg.total_steps(micro_batches_per_epoch=10) == 10
    assert build_config({"epochs": 1}).total_steps(micro_batches_per_epoch=7) == 7  # epochs alone: by epochs
    assert build_config({"epochs": 1, "max_steps": 3}).total_steps(micro_batches_per_epoch=7) == 3


def test_epochs_flag_beats_max_steps_in_file(tmp_path, alpaca_file):
    from .conftest import FAST, read_metrics, run_cli

    cfg = tmp_path / "c.yaml"
    cfg.write_text("max_steps: 50\n")
    args = [a for a in FAST if a not in ("--max-steps", "3")]
    out = tmp_path / "run"
    assert run_cli("train", cfg, *args, "--epochs", "1", "--batch-size", "4", "--data", alpaca_file,
                   "--output", out, "--quiet") == 0
    steps = [r["step"] for r in read_metrics(out) if r["kind"] == "train"]
    assert steps[-1] == 4  # 16 examples, 2 held out -> 14 train rows, batches of 4 -> 4 steps


def test_unknown_key_lists_valid_ones(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("lr: 1e-3\nlearning_rate: 3\n")
    with pytest.raises(AmploraError) as e:
        load_yaml(path)
    msg = str(e.value)
    assert "'learning_rate'" in msg and "valid:" in msg and "max_steps" in msg and "\n" not in msg


@pytest.mark.parametrize("text, needle", [
    ("lr: [1, 2\n", "bad YAML"),
    ("- a\n- b\n", "expected a mapping"),
    ("r: four\n", "r must be an integer"),
    ("lr: fast\n", "lr must be a number"),
    ("packing: maybe\n", "packing must be true or false"),
    ("method: qlora\n", "unknown method 'qlora'; valid: lora, dora"),
    ("precision: fp8\n", "unknown precision 'fp8'; valid: fp32, bf16-true, bf16-mixed, fp16-mixed, auto"),
    ("quantize: int8\n", "unknown quantize 'int8'; valid: none, nf4"),
    ("batch_size: 0\n", "batch_size must be at least 1"),
    ("max_steps:\n", "max_steps needs a value"),
])
def test_bad_values_are_one_line_errors(tmp_path, text, needle):
    path = tmp_path / "c.yaml"
    path.write_text(text)
    with pytest.raises(AmploraError) as e:
        build_config(load_yaml(path), where=str(path))
    assert needle in str(e.value) and "\n" not in str(e.value)


def test_bad_yaml_names_the_line(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("lr: 1e-3\nr: [8\nalpha: 16\n")
    with pytest.raises(AmploraError, match=r"bad YAML in .*c\.yaml at line \d+"):
        load_yaml(path)


def test_resolved_config_round_trips():
    cfg = build_config(overrides={"r": 4, "targets": "q_proj,v_proj"})
    again = build_config(yaml.safe_load(yaml.safe_dump(cfg.as_dict())))
    assert again == cfg and isinstance(again, TrainConfig)
