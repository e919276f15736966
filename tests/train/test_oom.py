"""A training run that runs out of memory ends in one line naming the phase, module, peak, estimate and levers."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap

# The child loads torch and transformers first, then caps its address space a few hundred MiB above what it
# holds: the run's own allocations (a batch of 16 x 3000-token rows: ~2.5 GiB planned in fp32, named because `auto` is
# bf16-true on a CPU with AVX512-BF16) meet a real CPU OOM.
CHILD = textwrap.dedent("""
    import resource, sys
    import torch, transformers  # noqa: F401
    from amplora.cli import main
    size = next(int(l.split()[1]) * 1024 for l in open("/proc/self/status") if l.startswith("VmSize:"))
    limit = size + 600 * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    sys.exit(main(sys.argv[1:]))
""")


def test_out_of_memory_in_training_is_diagnosed(tmp_path):
    data = tmp_path / "long.jsonl"
    data.write_text("".join(json.dumps({"instruction": "x" * 3000, "output": "y"}) + "\n" for _ in range(16)))
    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-c", CHILD, "train", "--model", "tiny", "--data", str(data),
                           "--device", "cpu", "--precision", "fp32", "--batch-size", "16", "--max-length", "4096", "--max-steps", "1",
                           "--eval-limit", "1", "--eval-loss-limit", "1", "--samples", "0", "--output", str(out),
                           "--quiet"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 6, proc.stderr
    line = [l for l in proc.stderr.splitlines() if l.startswith("amplora:")]
    assert len(line) == 1 and "Traceback" not in proc.stderr
    assert line[0].startswith("amplora: error: out of memory: forward in model.model.layers.")
    assert "peak so far" in line[0] and "estimate for batch 16 x 4096 tokens" in line[0]
    assert "--batch-size 8 --grad-accum 2" in line[0] and "--activation-checkpointing" in line[0]
    assert not (out / "adapter").exists()
