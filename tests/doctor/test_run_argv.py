"""`amplora doctor run [doctor options] SCRIPT ARGS...` hands the script exactly the argv `python SCRIPT ARGS...`
would: everything after SCRIPT verbatim, a literal `--` included; options before SCRIPT belong to the doctor."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from amplora.cli import main

DUMP = "import json, sys\njson.dump(sys.argv, open(sys.argv[0] + '.argv.json', 'w'))\n"


@pytest.fixture
def script(tmp_path):
    path = tmp_path / "s.py"
    path.write_text(DUMP)
    return path


def argv_seen(script) -> list[str]:
    return json.loads((script.parent / "s.py.argv.json").read_text())


@pytest.mark.parametrize("args", [
    ["--", "--lr", "1"], ["--lr", "1"], ["-h"], ["--json", "x"], ["--report", "--traceback"], ["a", "--", "b"],
    ["--"], ["--", "--"], [], ["-"],
])
def test_script_gets_what_python_would_give_it(script, args):
    subprocess.run([sys.executable, str(script), *args], check=True)
    want = argv_seen(script)
    assert main(["doctor", "run", str(script), *args]) == 0
    assert argv_seen(script) == want == [str(script), *args]


def test_doctor_options_go_before_the_script(script, tmp_path):
    report = tmp_path / "report.json"
    assert main(["doctor", "run", "--json", str(report), "--", str(script), "--json", "x"]) == 0
    assert argv_seen(script) == [str(script), "--json", "x"]
    assert json.loads(report.read_text())["args"] == ["--json", "x"]


def test_unknown_doctor_option_before_the_script(script, capsys):
    with pytest.raises(SystemExit) as e:
        main(["doctor", "run", "--lr", "1", str(script)])
    assert e.value.code == 2 and "--lr" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["doctor", "run"])
    assert "script" in capsys.readouterr().err
