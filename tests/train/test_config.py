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


# --- every value torch, the optimizer or the model would refuse later is refused here, naming key and source ---

@pytest.mark.parametrize("key, value, needle", [
    ("weight_decay", -0.1, "weight_decay must be at least 0, got -0.1"),  # AdamW's ValueError traceback before
    ("alpha", 1e308, "alpha must be at most 3.40282e+38"),  # "cannot be converted to type float without overflow"
    ("alpha", 0, "alpha must be greater than 0"),
    ("init_loss_scale", 1e300, "init_loss_scale must be at most"),
    ("init_loss_scale", 1e-320, "init_loss_scale must be at least"),
    ("epochs", 1e30, "epochs must be at most 1e+06"),  # a run that never ends
    ("epochs", -1, "epochs must be greater than 0"),  # even when max_steps decides the length
    ("max_steps", 10**30, "max_steps must be at most 2147483647"),
    ("batch_size", 10**12, "batch_size must be at most 2147483647"),
    ("max_length", 10**12, "max_length must be at most 2147483647"),
    ("r", 10**12, "r must be at most 65536"),
    ("seed", -1, "seed must be at least 0, got -1"),
    ("seed", 2**64, "seed must be at most 4294967295, got 18446744073709551616"),
    ("dropout", 1.0, "dropout must be less than 1"),
    ("warmup_ratio", -0.5, "warmup_ratio must be at least 0"),
    ("max_grad_norm", 0, "max_grad_norm must be greater than 0"),
    ("lr", 10**400, "lr must be a number"),  # float() overflowed: OverflowError traceback before
    ("data", "a\0b", "data must not contain a NUL character"),
    ("output", "runs/\0", "output must not contain a NUL character"),
    ("model", ["tiny"], "model must be a string, got a list"),
])
def test_out_of_range_values_name_key_and_source(tmp_path, key, value, needle):
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump({key: value}))
    with pytest.raises(AmploraError) as e:
        build_config(load_yaml(path), where=str(path))
    msg = str(e.value)
    assert needle in msg and "c.yaml" in msg and "\n" not in msg
    with pytest.raises(AmploraError, match=r"\(flags\)$"):  # a flag is named as a flag, even with a file given
        build_config(load_yaml(path) if key != "model" else {}, {key: value}, where=str(path))


def test_integers_are_read_exactly():
    big = 2**32 - 1
    assert build_config({"seed": big}).seed == big and build_config({"seed": str(big)}).seed == big
    assert build_config({"max_steps": "1e3"}).max_steps == 1000
    with pytest.raises(AmploraError, match="got 18446744073709551615 "):  # not 2**64, as float() would make it
        build_config({"seed": str(2**64 - 1)})


def test_yaml_constructor_failures_are_bad_yaml(tmp_path):
    path = tmp_path / "c.yaml"
    for text in ("seed: 2024-13-45\n", "seed: " + "9" * 5000 + "\n", "a: " + "[" * 5000 + "]" * 5000 + "\n",
                 "? [a, b]\n: 1\n"):
        path.write_text(text)
        with pytest.raises(AmploraError, match=r"(bad YAML|bad config) in .*c\.yaml"):
            load_yaml(path)


def test_config_file_must_be_a_regular_file(tmp_path):
    with pytest.raises(AmploraError, match="config file /dev/zero is a character device"):
        load_yaml("/dev/zero")


@pytest.mark.parametrize("targets, expected", [
    ("q_proj", {"q_proj"}),  # one bare suffix: as a one-element list (it matched nothing as a regex)
    ("layers.0.self_attn.q_proj", {"q_proj"}),
    (r".*\.(q|v)_proj", {"q_proj", "v_proj"}),  # anything with regex syntax is still a regex
    (["q_proj", "v_proj"], {"q_proj", "v_proj"}),
])
def test_a_single_suffix_is_a_suffix_in_the_library_and_the_cli(targets, expected, tmp_path, alpaca_file):
    import amplora
    from amplora.train.tiny_model import build_model, build_tokenizer

    model = amplora.apply(build_model(build_tokenizer()), r=2, targets=targets)
    assert {n.rsplit(".", 1)[-1] for n in amplora.lora_layers(model)} == expected
    if targets == "q_proj":
        from .conftest import FAST, run_cli

        assert run_cli("train", *FAST, "--max-steps", "1", "--targets", "q_proj", "--data", alpaca_file,
                       "--output", tmp_path / "run", "--quiet") == 0


def test_peft_options_from_a_file_or_flags(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("modules_to_save: [lm_head]\nrank_pattern: {q_proj: 8}\nexclude_modules: '.*layers\\.0\\..*'\n")
    cfg = build_config(load_yaml(path), {"bias": "LoRA_only", "alpha_pattern": "q_proj=16, v_proj=4"}, where=str(path))
    assert cfg.modules_to_save == ["lm_head"] and cfg.rank_pattern == {"q_proj": 8} and cfg.bias == "lora_only"
    assert cfg.alpha_pattern == {"q_proj": 16.0, "v_proj": 4.0}
    assert cfg.exclude_modules == ".*layers\\.0\\..*"  # a regex stays one string, as PEFT matches it
    assert build_config({}, {"exclude_modules": "down_proj,up_proj"}).exclude_modules == ["down_proj", "up_proj"]
    assert build_config({}, {}).modules_to_save is None and build_config({}, {}).bias == "none"


@pytest.mark.parametrize("values, needle", [
    ({"bias": "some"}, "unknown bias 'some'; valid: none, lora_only, all"),
    ({"rank_pattern": "q_proj"}, "rank_pattern must be name=number pairs"),
    ({"rank_pattern": {"q_proj": 0}}, "rank_pattern['q_proj'] must be greater than 0"),
    ({"rank_pattern": {"q_proj": "x"}}, "rank_pattern['q_proj'] must be an integer"),
    ({"modules_to_save": [1]}, "modules_to_save must be module names"),
])
def test_bad_peft_options_are_one_line_errors(values, needle):
    with pytest.raises(AmploraError) as e:
        build_config(values, {}, where="c.yaml")
    assert needle in str(e.value) and "\n" not in str(e.value)
