"""The output directory: one run at a time (an OS lock), and failed writes (disk full, file size limit) end the run
with a one-line error and leave nothing that blocks running the same command again."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from amplora.errors import AmploraError
from amplora.train import checkpoint, output_dir

from .conftest import FAST, read_metrics, run_cli

ENV = {**os.environ, "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1", "PYTHONDONTWRITEBYTECODE": "1"}
# Keeps training (and checkpointing every 2 steps) until killed.
LONG = ["train", "--model", "tiny", "--max-steps", "100000", "--batch-size", "2", "--save-every", "2",
        "--eval-every", "0", "--eval-limit", "1", "--max-new-tokens", "2", "--quiet"]


def _snapshot(root: Path) -> dict:
    """Every entry under `root` (hidden ones included) with its bytes and modification time."""
    out = {}
    for parent, dirs, files in os.walk(root):
        for name in dirs + files:
            p = Path(parent) / name
            st = p.lstat()
            out[str(p.relative_to(root))] = (st.st_mtime_ns, p.read_bytes() if p.is_file() else None)
    return out


def _error_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert err.startswith("amplora: error: ") and "\n" not in err, err
    return err


def _wait(predicate, proc: subprocess.Popen, timeout: float = 300.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        if proc.poll() is not None:
            raise AssertionError(f"helper process ended early: {proc.stderr.read().decode()[-2000:]}")
        time.sleep(0.02)
    raise AssertionError("timed out waiting for the helper process")


def _kill(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait()


def test_second_run_on_a_running_dir_is_refused_and_touches_nothing(tmp_path, alpaca_file, capsys):
    out = tmp_path / "run"
    holder = subprocess.Popen([sys.executable, "-m", "amplora", *LONG, "--data", str(alpaca_file),
                               "--output", str(out)], env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        _wait(lambda: checkpoint.checkpoint_dirs(out / "checkpoints"), holder)
        os.kill(holder.pid, signal.SIGSTOP)  # still holds the lock, but writes nothing while we look
        before = _snapshot(out)
        for extra in ([], ["--overwrite"]):
            assert run_cli("train", *FAST, "--data", alpaca_file, "--output", out, *extra) == 2
            err = _error_line(capsys)
            assert f"output directory {out} is in use by another run (pid {holder.pid})" in err, err
        assert run_cli("train", "--resume", out) == 2  # finding its checkpoint would prune the holder's files
        assert f"{out} is in use by another run (pid {holder.pid})" in _error_line(capsys)
        assert _snapshot(out) == before
    finally:
        _kill(holder)  # SIGKILL: the kernel drops the lock with the process
    assert holder.returncode == -signal.SIGKILL
    assert run_cli("train", *FAST, "--data", alpaca_file, "--output", out, "--overwrite", "--quiet") == 0
    assert (out / "adapter" / "adapter_model.safetensors").is_file()
    assert not (out / output_dir.LOCK_NAME).exists()  # released at the end of the run
    assert [r["kind"] for r in read_metrics(out)][0] == "before"  # the killed run's log is gone


def _hold_lock(out: Path) -> subprocess.Popen:
    """Another process holding `out` through the library's own lock, until killed."""
    code = ("import sys, time; from pathlib import Path; from amplora.train import output_dir; "
            "output_dir.claim(Path(sys.argv[1]), resuming=True, overwrite=False); print('locked', flush=True); "
            "time.sleep(3600)")
    proc = subprocess.Popen([sys.executable, "-c", code, str(out)], env=ENV, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdout.readline().strip() == b"locked", proc.stderr.read().decode()[-2000:]
    return proc


def test_resume_of_a_held_dir_is_refused_then_works_once_the_holder_is_killed(tmp_path, alpaca_file, capsys):
    out = tmp_path / "run"
    assert run_cli("train", *FAST, "--save-every", "1", "--data", alpaca_file, "--output", out, "--quiet") == 0
    holder = _hold_lock(out)
    try:
        before = _snapshot(out)
        assert run_cli("train", "--resume", out / "checkpoints" / "step-000003", "--quiet") == 2
        assert f"output directory {out} is in use by another run (pid {holder.pid})" in _error_line(capsys)
        assert _snapshot(out) == before
    finally:
        _kill(holder)
    assert run_cli("train", "--resume", out, "--quiet") == 0
    assert not (out / output_dir.LOCK_NAME).exists()


def test_lock_is_exclusive_follows_the_umask_and_leaves_nothing(tmp_path):
    out = tmp_path / "a" / "b"
    old = os.umask(0o027)
    try:
        lock = output_dir.claim(out, resuming=False, overwrite=False)
    finally:
        os.umask(old)
    try:
        assert (out / output_dir.LOCK_NAME).read_text() == f"{os.getpid()}\n"
        assert (out / output_dir.LOCK_NAME).stat().st_mode & 0o777 == 0o640
        assert not output_dir.holds_run(out)
        with pytest.raises(AmploraError, match=f"in use by another run \\(pid {os.getpid()}\\)"):
            output_dir.claim(out, resuming=True, overwrite=True)  # flock: a second open file conflicts too
    finally:
        lock.release()
    assert not (tmp_path / "a").exists()  # created only for the lock: gone with it
    out.mkdir(parents=True)
    output_dir.claim(out, resuming=False, overwrite=False).release()
    assert out.is_dir() and not any(out.iterdir())  # the user's own directory stays, empty


def test_a_run_that_died_before_its_first_checkpoint_does_not_block_the_next(tmp_path, alpaca_file):
    out = tmp_path / "run"
    (out / "checkpoints" / ".step-000002.x1y2.tmp" / "adapter").mkdir(parents=True)  # cut short by a SIGKILL
    (out / "config.yaml").write_text("model: tiny\n")
    (out / "metrics.jsonl").write_text('{"kind": "before", "step": 0}\n{"kind": "train", "st')
    (out / ".amplora.lock").write_text("999999\n")  # its holder is dead: the file is not the lock
    assert run_cli("train", *FAST, "--data", alpaca_file, "--output", out, "--quiet") == 0
    records = read_metrics(out)  # every line parses: nothing of the dead run is left in the log
    assert records[0]["kind"] == "before" and records[-1]["kind"] == "after"
    assert not (out / "checkpoints").exists() and not (out / ".amplora.lock").exists()


# --- failed writes ------------------------------------------------------------------------------------------------

def _no_debris(out: Path) -> None:
    """What a failed write may leave: whole files only, no temporaries, no empty file, no partial log line."""
    for parent, dirs, files in os.walk(out):
        for name in dirs + files:
            assert ".tmp" not in name and ".old-" not in name and name != output_dir.LOCK_NAME, \
                f"left behind: {Path(parent) / name}"
        for name in files:
            assert (Path(parent) / name).stat().st_size > 0, f"empty file left: {Path(parent) / name}"
    if (out / "metrics.jsonl").exists():
        text = (out / "metrics.jsonl").read_text()
        assert text.endswith("\n") and all(json.loads(line) for line in text.splitlines())


# (file size limit in bytes, flags, what the error names): per file, so each case fails at one kind of write
FSIZE_CASES = {
    "config.yaml": (400, ["--save-every", "0"], "{out}/config.yaml: File too large"),  # 600 bytes and more
    "metrics.jsonl": (1100, ["--save-every", "0", "--max-steps", "8"],  # config ~800 (paths), log ~1500
                      "{out}/metrics.jsonl: File too large"),
    "checkpoint": (50_000, ["--save-every", "1"], "{out}/checkpoints/step-000001: File too large"),
    "adapter": (50_000, ["--save-every", "0"], "cannot write {out}/adapter: File too large"),  # 134 kB
}


@pytest.mark.parametrize("case", list(FSIZE_CASES))
def test_file_size_limit_is_a_one_line_error_and_the_same_command_runs_again(tmp_path, alpaca_file, case):
    """RLIMIT_FSIZE needs no privileges: with SIGXFSZ ignored, a write past the limit fails with EFBIG."""
    limit, flags, needle = FSIZE_CASES[case]
    out = tmp_path / "run"
    args = ["train", *FAST, *flags, "--data", str(alpaca_file), "--output", str(out), "--quiet"]
    code = ("import resource, signal, sys; signal.signal(signal.SIGXFSZ, signal.SIG_IGN); "
            f"resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit})); "
            "from amplora.cli import main; sys.exit(main(sys.argv[1:]))")
    proc = subprocess.run([sys.executable, "-c", code, *args], env=ENV, capture_output=True, text=True,
                          timeout=600)
    err = proc.stderr.strip()
    assert proc.returncode == 2, err[-3000:]
    assert "Traceback" not in err and err.splitlines()[-1].startswith("amplora: error: cannot write"), err[-3000:]
    assert needle.format(out=out) in err.splitlines()[-1], err[-3000:]
    _no_debris(out)
    assert run_cli(*args) == 0  # the very same command, without the limit
    assert (out / "adapter").is_dir() and read_metrics(out)[-1]["kind"] == "after"


@pytest.fixture
def small_disk(tmp_path):
    """A real full disk: a tmpfs of a few pages (root only, and where mounting is allowed)."""
    mnt = tmp_path / "disk"
    mnt.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    tried = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mnt)], capture_output=True)
    if tried.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {tried.stderr.decode().strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def test_disk_full_is_a_one_line_error_and_the_same_command_runs_once_there_is_room(small_disk, alpaca_file,
                                                                                    capsys):
    out = small_disk / "run"
    args = ["train", *FAST, "--save-every", "1", "--data", alpaca_file, "--output", out, "--quiet"]
    assert run_cli(*args) == 2  # config and log fit in 256 kB, the first checkpoint (570 kB) does not
    assert f"cannot write {out}/checkpoints/step-000001: No space left on device" in _error_line(capsys)
    _no_debris(out)
    subprocess.run(["mount", "-o", "remount,size=8m", str(small_disk)], check=True)
    assert run_cli(*args) == 0
    assert (out / "adapter").is_dir() and read_metrics(out)[-1]["kind"] == "after"


def test_only_rank_0_probes_a_resumed_directory(tmp_path):
    # under torchrun rank 0 may lock the directory before rank 1 reaches its probe: that lock is its own run's
    with output_dir.claim(tmp_path, resuming=True, overwrite=False):
        output_dir.refuse_if_in_use(tmp_path, rank=1)
        with pytest.raises(AmploraError, match="in use by another run"):
            output_dir.refuse_if_in_use(tmp_path, rank=0)
