"""Shared helpers for the trainer tests: small JSONL datasets and an in-process `amplora` runner."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import torch

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from amplora.cli import main  # noqa: E402

# A short run on the tiny model: a few steps, two held-out prompts, a few generated tokens.
FAST = ["--model", "tiny", "--max-steps", "3", "--batch-size", "2", "--eval-limit", "2", "--eval-every", "2",
        "--eval-loss-limit", "2", "--samples", "1", "--max-new-tokens", "4", "--log-every", "1"]


@pytest.fixture(autouse=True)
def one_thread():
    """One thread for these tests only: tiny matmuls gain nothing from two, and OpenMP threads spin-waiting
    on tiny ops slow down 10x and worse when other jobs share the cores. Restored for other test dirs."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def alpaca_rows(n: int = 16) -> list[dict]:
    """Short arithmetic questions: a real answer to learn, a few dozen bytes each (the tiny tokenizer is bytes)."""
    return [{"instruction": f"{a}+{b}?", "output": str(a + b)} for a, b in ((i % 7, (3 * i) % 5) for i in range(n))]


def chat_rows(n: int = 8) -> list[dict]:
    return [{"messages": [{"role": "system", "content": "Be brief."},
                          {"role": "user", "content": f"double {i}"},
                          {"role": "assistant", "content": str(2 * i)},
                          {"role": "user", "content": f"and triple {i}?"},
                          {"role": "assistant", "content": str(3 * i)}]} for i in range(n)]


def write_jsonl(path: Path, rows) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


@pytest.fixture
def alpaca_file(tmp_path) -> Path:
    return write_jsonl(tmp_path / "alpaca.jsonl", alpaca_rows())


@pytest.fixture
def chat_file(tmp_path) -> Path:
    return write_jsonl(tmp_path / "chat.jsonl", chat_rows())


def run_cli(*args) -> int:
    return main([str(a) for a in args])


@pytest.fixture
def amplora_cli():
    return run_cli


def read_metrics(output: Path) -> list[dict]:
    return [json.loads(line) for line in (output / "metrics.jsonl").read_text().splitlines()]
