"""device=auto consults the memory plan: a run that fits on no device stops before any weight is loaded."""
from __future__ import annotations

from .conftest import FAST, run_cli


def test_a_run_that_fits_nowhere_is_refused_before_loading(tmp_path, capsys, alpaca_file):
    out = tmp_path / "run"
    code = run_cli("train", *FAST, "--data", alpaca_file, "--output", out, "--batch-size", 2**20,
                   "--max-length", 2**16)
    captured = capsys.readouterr()
    assert code == 6
    assert "fits on no device" in captured.err and len(captured.err.strip().splitlines()) == 1
    assert "cpu" in captured.out  # the per-device table, with the first setting to change
    assert not out.exists()

