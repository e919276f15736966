"""Subcommands that use a trained adapter: `generate`, `chat`, `merge`, `eval`."""
from __future__ import annotations

import argparse

from amplora.precision import PRESET_NAMES


def _count(low: int):
    """argparse type: an integer in [low, 2**31-1] (a bad value is argparse's one-line usage error, exit 2)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None
        if not low <= value <= 2**31 - 1:
            raise argparse.ArgumentTypeError(f"must be an integer from {low} to {2**31 - 1}, got {value}")
        return value

    parse.__name__ = "count"
    return parse


def _inference_args(p) -> None:
    p.add_argument("--adapter", help="adapter directory (e.g. runs/train-.../adapter)")
    p.add_argument("--model", help="base model (default: the one the adapter records)")
    p.add_argument("--precision", default="auto", help=f"{' | '.join(PRESET_NAMES)}")
    p.add_argument("--device", default="auto", help="auto | cpu | cuda | cuda:N")
    p.add_argument("--quantize", default=None, help="none | nf4 (default: as the adapter was trained)")
    p.add_argument("--max-new-tokens", type=_count(1), default=128)
    p.add_argument("--chat-template", help="chatml | llama3 | zephyr | a Jinja file (default: the one the adapter "
                   "was trained with, else the tokenizer's own)")


def _dispatch(name: str):
    def run(args) -> int:
        from amplora.app import commands

        return getattr(commands, name)(args)

    return run


def register(sub) -> None:
    p = sub.add_parser("generate", help="answer one prompt with a trained adapter")
    _inference_args(p)
    p.add_argument("--system", help="system message")
    p.add_argument("prompt", nargs="+", help="the prompt")
    p.set_defaults(func=_dispatch("cmd_generate"))

    p = sub.add_parser("chat", help="interactive chat with a trained adapter (/reset, /exit)")
    _inference_args(p)
    p.add_argument("--system", help="system message")
    p.set_defaults(func=_dispatch("cmd_chat"))

    p = sub.add_parser("merge", help="fold an adapter into its base and write a Hugging Face model directory")
    p.add_argument("--adapter", required=True, help="adapter directory")
    p.add_argument("--out", required=True, help="new directory for the merged model")
    p.add_argument("--model", help="base model (default: the one the adapter records)")
    p.add_argument("--dtype", default="fp32", help="fp32 | bf16 | fp16 (weights of the merged model)")
    p.set_defaults(func=_dispatch("cmd_merge"))

    p = sub.add_parser("eval", help="score an adapter on held-out data (exact match + per-field accuracy)")
    _inference_args(p)
    p.set_defaults(max_new_tokens=32)
    p.add_argument("--data", help="JSONL to score (default: the bundled held-out split)")
    p.add_argument("--limit", type=_count(0), default=0, help="score only the first N examples (0: all)")
    p.add_argument("--batch-size", type=_count(1), default=50)
    p.add_argument("--max-length", type=_count(1), default=1024)
    p.add_argument("--json", action="store_true", help="print the scores as JSON")
    p.set_defaults(func=_dispatch("cmd_eval"))
