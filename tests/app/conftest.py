"""The app's tests first train an adapter: they share the trainer tests' data helpers and in-process runner."""
from __future__ import annotations

from train.conftest import alpaca_rows, one_thread, run_cli, write_jsonl  # noqa: F401
