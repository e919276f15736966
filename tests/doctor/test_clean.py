"""Clean programs: no fault, no false warning, the script's own output and exit code, via watch() and doctor run."""
from __future__ import annotations

import warnings

import pytest
import torch

from amplora.cli import main

from .conftest import CLEAN_SPECS, program_path, run_program

CLEAN = CLEAN_SPECS


@pytest.mark.parametrize("name", CLEAN)
def test_clean_program_under_watch_report(name, capsys):
    fault, watcher = run_program(name, report=True)
    assert fault is None
    table = watcher.flow_table()
    assert table, "the report saw the model's modules"
    assert watcher.flow_warnings() == []
    assert "run ok" in capsys.readouterr().out


def test_clean_amplora_lora_variant():
    fault, watcher = run_program("clean_amplora", "lora", report=True)
    assert fault is None and watcher.flow_warnings() == []


@pytest.mark.parametrize("name", CLEAN)
def test_clean_program_via_doctor_run(name, doctor_runs):
    proc, data = doctor_runs[name].result()
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert data["fault"] is None and data["warnings"] == []
    assert "run ok" in proc.stdout
    assert "no suspicious dtype mixes" in proc.stderr
    assert "precision fault" not in proc.stderr
    assert "TracerWarning" not in proc.stderr  # the doctor's own checks were not recorded into a traced graph


def test_traced_graph_holds_none_of_the_watch_checks(capsys):
    """Under `doctor run` (non-finite watch on), the module hooks see torch.jit.trace's forward: reading values there
    would record the doctor's own checks into the user's graph (TracerWarnings, constants baked in)."""
    trace = torch.jit.trace
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert main(["doctor", "run", str(program_path("clean_jit_trace"))]) == 0
    assert "run ok" in capsys.readouterr().out
    assert torch.jit.trace is trace  # the unwatched trace was for the run only
    assert [w for w in caught if issubclass(w.category, torch.jit.TracerWarning)] == []


def test_report_flags_the_s001_precursor():
    """The dtype-flow table flags the fp32 norm feeding a bf16 Linear outside autocast, before the fault."""
    fault, watcher = run_program("upcast_norms_generate", report=True)
    assert fault is not None
    warnings = watcher.flow_warnings()
    assert any(w.startswith("model.layers.0.input_layernorm: turns bf16 activations into fp32") for w in warnings)
    assert any(w.startswith("model.layers.0.self_attn.q_proj: receives fp32 activations") for w in warnings)
    rows = {r["module"]: r for r in watcher.flow_table()}
    assert rows["model.layers.0.input_layernorm"]["params"] == "fp32"
    assert rows["model.layers.0.self_attn.q_proj"]["autocast"] == "mixed"  # trained in autocast, sampled outside


def test_exit_code_args_and_stdout_pass_through(tmp_path, capsys):
    script = tmp_path / "exits.py"
    script.write_text("import sys\nprint('args', sys.argv[1:], __name__)\nsys.exit(int(sys.argv[1]))\n")
    assert main(["doctor", "run", str(script), "7", "--flag"]) == 7
    assert "args ['7', '--flag'] __main__" in capsys.readouterr().out
    script.write_text("print('done')\n")
    assert main(["doctor", "run", str(script)]) == 0


def test_other_exceptions_keep_their_traceback(tmp_path, capsys):
    script = tmp_path / "boom.py"
    script.write_text("import torch\ntorch.ones(2, 3) @ torch.ones(4, 5)\n")  # a shape error, not a precision fault
    assert main(["doctor", "run", str(script)]) == 1
    err = capsys.readouterr().err
    assert "Traceback" in err and "cannot be multiplied" in err
    assert "precision fault" not in err


def test_missing_script_is_a_one_line_error(capsys):
    assert main(["doctor", "run", "no/such/script.py"]) == 2
    assert capsys.readouterr().err.strip() == "amplora: error: no such script: no/such/script.py"


def test_program_paths_exist():
    for name in CLEAN:
        assert program_path(name).is_file()
