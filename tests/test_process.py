"""What importing amplora does to the user's process (nothing), and what the command line sets for itself."""
from __future__ import annotations

import os
import subprocess
import sys


def _python(code: str, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    out = subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_importing_amplora_sets_no_environment_and_loads_torch_lazily():
    out = _python("import os, sys, amplora\n"
                  "print('torch' in sys.modules)\n"
                  "amplora.apply, amplora.resolve, amplora.AmploraError\n"
                  "print('torch' in sys.modules, os.environ.get('OMP_WAIT_POLICY'))")
    assert out.splitlines() == ["False", "True None"]


def test_every_exported_name_resolves():
    out = _python("import amplora\nprint(all(getattr(amplora, n) is not None for n in amplora.__all__))")
    assert out == "True"


def test_the_command_line_sets_its_process_environment(tmp_path):
    script = tmp_path / "env.py"
    script.write_text("import os\nprint('OMP', os.environ.get('OMP_WAIT_POLICY'))\n")
    out = _python("import runpy, sys\nsys.argv = ['amplora', 'doctor', 'run', sys.argv[1]]\n"
                  "runpy.run_module('amplora', run_name='__main__')", str(script))
    assert "OMP PASSIVE" in out
