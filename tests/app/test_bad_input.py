"""Bad input to the app commands: a one-line error, exit 2 (argparse's usage error for out-of-range counts)."""
from __future__ import annotations

import pytest

from .conftest import run_cli


def test_inference_commands_reject_bad_adapter(tmp_path, capsys):
    assert run_cli("generate", "--adapter", tmp_path, "hello") == 2
    assert "no adapter_config.json" in capsys.readouterr().err
    assert run_cli("merge", "--adapter", tmp_path, "--out", tmp_path / "m") == 2
    assert "no adapter_config.json" in capsys.readouterr().err


@pytest.mark.parametrize("command,flag,value", [
    ("eval", "--batch-size", "0"), ("eval", "--limit", "-1"), ("eval", "--max-length", "0"),
    ("eval", "--max-new-tokens", "0"), ("generate", "--max-new-tokens", str(2**40)),
])
def test_inference_counts_out_of_range_are_usage_errors(tmp_path, capsys, command, flag, value):
    extra = ["hello"] if command == "generate" else []
    with pytest.raises(SystemExit) as e:
        run_cli(command, "--adapter", tmp_path, flag, value, *extra)
    assert e.value.code == 2
    assert f"argument {flag}: must be an integer from" in capsys.readouterr().err
