"""`amplora` command line: each part registers its own subcommands (train/, app/, doctor/)."""
from __future__ import annotations

import argparse
import os
import sys

from amplora import __version__
from amplora.errors import AmploraError, TrainingDiverged


# Set by the command line only, before torch loads its OpenMP runtime: idle OpenMP threads sleep instead of
# spinning (on a shared CPU, spinning threads slowed training steps several times over). A library import sets nothing.
PROCESS_ENV = {"OMP_WAIT_POLICY": "PASSIVE"}


def set_process_env() -> None:
    for key, value in PROCESS_ENV.items():
        os.environ.setdefault(key, value)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="amplora",
        description="LoRA / DoRA / QLoRA fine-tuning where mixed precision simply works, plus a precision doctor.",
    )
    parser.add_argument("--version", action="version", version=f"amplora {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    from amplora.app.cli import register as register_app
    from amplora.doctor.cli import register as register_doctor
    from amplora.train.cli import register as register_train

    register_train(sub)
    register_app(sub)
    register_doctor(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    set_process_env()
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except AmploraError as e:
        rank = f" (rank {os.environ['RANK']})" if int(os.environ.get("WORLD_SIZE", "1")) > 1 else ""
        # a diverged run is not bad input: its line says what happened, not "error"
        print(f"amplora{rank}: {e}" if isinstance(e, TrainingDiverged) else f"amplora: error{rank}: {e}",
              file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print("amplora: interrupted", file=sys.stderr)
        return 130
