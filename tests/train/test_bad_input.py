"""Bad input: one-line error on stderr, exit code 2, and nothing written to the output directory."""
from __future__ import annotations

import pytest

from .conftest import FAST, alpaca_rows, run_cli, write_jsonl


def _expect_error(capsys, args, needle, out):
    code = run_cli(*args)
    err = capsys.readouterr().err.strip()
    assert code == 2, err
    assert err.startswith("amplora: error: ") and "\n" not in err, err
    assert needle in err, err
    assert not out.exists(), "a failed run left its output directory behind"


CASES = {
    "malformed_jsonl": (lambda d: ["--data", write_jsonl(d / "x.jsonl", [alpaca_rows(1)[0], '{"instruction": "a",'])],
                        "x.jsonl:2: not valid JSON"),
    "empty_dataset": (lambda d: ["--data", write_jsonl(d / "x.jsonl", [""])], "x.jsonl has no examples"),
    "missing_field": (lambda d: ["--data", write_jsonl(d / "x.jsonl", [{"instruction": "hi"}])],
                      "x.jsonl:1: missing field 'output'"),
    "missing_file": (lambda d: ["--data", d / "none.jsonl"], "none.jsonl not found"),
    "bad_eval_data": (lambda d: ["--eval-data", write_jsonl(d / "e.jsonl", ['{"messages": 3}'])],
                      "e.jsonl:1: 'messages' must be a non-empty list"),
    "unknown_precision": (lambda d: ["--precision", "fp8"], "unknown precision 'fp8'; valid: fp32, bf16-true"),
    "unknown_method": (lambda d: ["--method", "ia3"], "unknown method 'ia3'; valid: lora, dora"),
    "unknown_quantize": (lambda d: ["--quantize", "int4"], "unknown quantize 'int4'; valid: none, nf4"),
    "unknown_model": (lambda d: ["--model", "gpt-17"], "unknown model 'gpt-17'"),
    "unknown_device": (lambda d: ["--device", "cuda:7"], "device 'cuda:7'"),
    "targets_match_nothing": (lambda d: ["--targets", "nothing_like_this"], "matched no Linear module"),
    "max_length_too_small": (lambda d: ["--max-length", "8"], "no example kept an answer token"),
    "bad_number": (lambda d: ["--lr", "-1"], "lr must be greater than 0, got -1 (flags)"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_bad_input_is_a_one_line_error_and_writes_nothing(tmp_path, capsys, alpaca_file, case):
    make_args, needle = CASES[case]
    out = tmp_path / "out"
    args = ["train", *FAST, "--data", alpaca_file, "--output", out, *make_args(tmp_path)]
    _expect_error(capsys, args, needle, out)


@pytest.mark.parametrize("text, needle", [
    ("lr: [1e-3\n", "bad YAML in"),
    ("learning_rate: 1e-3\n", "unknown config key 'learning_rate'"),
    ("precision: float8\n", "unknown precision 'float8'"),
])
def test_bad_yaml_config(tmp_path, capsys, alpaca_file, text, needle):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(text)
    out = tmp_path / "out"
    _expect_error(capsys, ["train", cfg, *FAST, "--data", alpaca_file, "--output", out], needle, out)


def test_unwritable_output_dir(tmp_path, capsys, alpaca_file):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    out = blocker / "run"  # a path under a regular file cannot be created, even by root
    _expect_error(capsys, ["train", *FAST, "--data", alpaca_file, "--output", out], "is not writable", out)
    out = tmp_path / "file2"
    out.write_text("x")
    code = run_cli("train", *FAST, "--data", alpaca_file, "--output", out)
    assert code == 2 and "is not writable" in capsys.readouterr().err and out.read_text() == "x"


def test_unwritable_output_leaves_created_parents_alone(tmp_path, capsys, alpaca_file):
    out = tmp_path / "a" / "b" / "c"
    # a valid run would create a/b/c; a failing one (bad method) must not leave a/ behind
    _expect_error(capsys, ["train", *FAST, "--data", alpaca_file, "--output", out, "--method", "x"],
                  "unknown method", tmp_path / "a")
