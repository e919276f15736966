"""The `train` subcommand: its flags (each overrides the config file only when given) and the resume logic."""
from __future__ import annotations

import argparse
import os
import sys

from amplora.precision import PRESET_NAMES

# (flag, config field, type, help); every flag defaults to "not given" so that it only overrides when present;
# --help shows the default each one overrides (from TrainConfig, or DEFAULT_TEXT where it depends on the run)
TRAIN_FLAGS = [
    ("--model", "model", str, "smollm2-135m (embedded), tiny (seconds-long smoke test), a local HF model dir, a "
                              ".gguf file, or a model id already in the Hugging Face cache (never downloaded)"),
    ("--data", "data", str, "training data: .jsonl, .json, .parquet, .csv, .arrow files or a save_to_disk dir; "
                            "several: comma-separated or the flag repeated"),
    ("--eval-data", "eval_data", str, "held-out data, in any form the training data takes"),
    ("--data-format", "data_format", str, "auto | alpaca | chat | sharegpt | prompt-completion | text (auto: "
                                          "from each record's fields)"),
    ("--chat-template", "chat_template", str, "chatml | llama3 | zephyr | a Jinja file: replaces the tokenizer's "
                                              "template (for base models without one)"),
    ("--method", "method", str, "lora | dora"),
    ("--quantize", "quantize", str, "none | nf4 (frozen base in bitsandbytes NF4: QLoRA / QDoRA)"),
    ("--precision", "precision", str, f"{' | '.join(PRESET_NAMES)}"),
    ("--device", "device", str, "auto | cpu | cuda | cuda:N"),
    ("--strategy", "strategy", str, "under torchrun: auto | fsdp (FSDP2, sharded) | ddp (replicated); auto is "
                                    "fsdp, or ddp for an nf4 base / fp16-mixed"),
    ("--r", "r", int, "adapter rank"),
    ("--alpha", "alpha", float, "adapter alpha (scaling alpha/r)"),
    ("--dropout", "dropout", float, "adapter dropout"),
    ("--targets", "targets", str, "all-linear, comma-separated module-name suffixes, or a regex"),
    ("--modules-to-save", "modules_to_save", str, "modules trained whole besides the adapters (PEFT's "
                                                  "modules_to_save), comma-separated: e.g. lm_head"),
    ("--bias", "bias", str, "none | lora_only | all: which biases train (PEFT's bias)"),
    ("--exclude-modules", "exclude_modules", str, "module-name suffixes (comma-separated) or a regex left without "
                                                  "adapters"),
    ("--rank-pattern", "rank_pattern", str, "per-module rank, name=r pairs: q_proj=8,v_proj=4 (PEFT's "
                                            "rank_pattern)"),
    ("--alpha-pattern", "alpha_pattern", str, "per-module alpha, name=alpha pairs (PEFT's alpha_pattern)"),
    ("--lr", "lr", float, "peak learning rate (AdamW, warmup then cosine)"),
    ("--weight-decay", "weight_decay", float, "AdamW weight decay"),
    ("--warmup-ratio", "warmup_ratio", float, "fraction of steps spent warming up"),
    ("--max-steps", "max_steps", int, "optimizer steps (0: use --epochs)"),
    ("--epochs", "epochs", float, "passes over the training data (sets --max-steps 0 unless given)"),
    ("--batch-size", "batch_size", int, "examples per micro-batch"),
    ("--grad-accum", "grad_accum", int, "micro-batches per optimizer step"),
    ("--max-grad-norm", "max_grad_norm", float, "gradient clipping norm"),
    ("--max-length", "max_length", int, "tokens per example; longer ones are truncated (and counted)"),
    ("--eval-every", "eval_every", int, "held-out loss + sample generations every N steps (0: off)"),
    ("--eval-limit", "eval_limit", int, "held-out examples scored before/after (0: all)"),
    ("--eval-loss-limit", "eval_loss_limit", int, "held-out examples in the periodic eval loss"),
    ("--eval-batch-size", "eval_batch_size", int, "prompts per batch in greedy generation"),
    ("--eval-split", "eval_split", float, "fraction of --data held out when --eval-data is not given"),
    ("--samples", "samples", int, "sample generations shown at each periodic eval"),
    ("--max-new-tokens", "max_new_tokens", int, "generation length for eval and samples"),
    ("--log-every", "log_every", int, "log the training loss every N steps"),
    ("--loss-chunk-rows", "loss_chunk_rows", int, "answer positions per fp32 output-head chunk in the loss"),
    ("--save-every", "save_every", int, "checkpoint every N steps (0: only the final adapter)"),
    ("--output", "output", str, "output directory"),
    ("--resume", "resume", str, "continue a run from its output dir or one of its checkpoints"),
    ("--seed", "seed", int, "random seed (data order, adapter init)"),
    ("--init-loss-scale", "init_loss_scale", float, "fp16-mixed: initial dynamic loss scale"),
]


DEFAULT_TEXT = {
    "data": "the bundled precision-triage set",
    "eval_data": "the bundled held-out split, or --eval-split of --data",
    "max_steps": "60 on the bundled data; with --data, 0 (the length comes from --epochs and the data size)",
    "epochs": "1 when --max-steps is 0",
    "chat_template": "the tokenizer's own",
    "exact_match": "on for the bundled data, off for --data",
    "output": "runs/train-<timestamp>",
    "resume": "none",
    "init_loss_scale": "65536 (GradScaler's)",
    "modules_to_save": "none", "exclude_modules": "none", "rank_pattern": "none", "alpha_pattern": "none",
}
REPEATABLE = ("data", "eval_data")  # several files: --data a.jsonl --data b.parquet == --data a.jsonl,b.parquet


def _with_default(dest: str, help_text: str) -> str:
    from amplora.train.config import TrainConfig

    if dest in DEFAULT_TEXT:
        shown = DEFAULT_TEXT[dest]
    else:
        value = getattr(TrainConfig, dest)
        shown = str(value).lower() if isinstance(value, bool) else value
    return f"{help_text} (default: {str(shown).replace('%', '%%')})"


def cmd_train(args) -> int:
    from amplora.train.config import TrainConfig, build_config, load_yaml
    from amplora.train.run import train

    fields = set(TrainConfig.field_names())
    overrides = {k: v for k, v in vars(args).items() if k in fields}
    for key in REPEATABLE:
        if isinstance(overrides.get(key), list):
            overrides[key] = ",".join(overrides[key])
    if "epochs" in overrides and "max_steps" not in overrides:
        overrides["max_steps"] = 0  # --epochs means "train by epochs", whatever a config file says
    file_values = load_yaml(args.config) if args.config else {}
    resume_state, restart = None, False
    if overrides.get("resume") or file_values.get("resume"):
        from amplora.errors import AmploraError
        from amplora.train import checkpoint, output_dir

        output_dir.refuse_if_in_use(overrides.get("resume") or file_values["resume"],
                                    rank=int(os.environ.get("RANK", "0")))
        ckpt_dir, run_dir = checkpoint.find_checkpoint(overrides.get("resume") or file_values["resume"],
                                                       allow_none=True)
        saved = load_yaml(run_dir / "config.yaml") if (run_dir / "config.yaml").is_file() else {}
        file_values = {**saved, **file_values}  # the run's own config, then what this command adds
        overrides["output"] = str(run_dir)
        if ckpt_dir is not None:
            resume_state = checkpoint.load_for_resume(ckpt_dir)
        elif (run_dir / "adapter").exists() or (run_dir / "summary.json").exists():
            # a finished run without checkpoints: starting it again would replace its adapter
            raise AmploraError(f"--resume {run_dir}: the run there finished and left no checkpoint to continue "
                               f"from; use --output {run_dir} --overwrite to train it again")
        else:
            # killed before its first checkpoint: nothing to continue, so run its config again from the start
            restart = True
    cfg = build_config(file_values, overrides, where=str(args.config) if args.config else "flags")
    if restart and os.environ.get("RANK", "0") == "0":  # under torchrun, one line, not one per rank
        print(f"no checkpoint in {run_dir}: starting the run again from step 0", file=sys.stderr)
    train(cfg, quiet=args.quiet, resume_state=resume_state, restart=restart)
    return 0


def register(sub) -> None:
    p = sub.add_parser("train", help="fine-tune a model with LoRA/DoRA (default: the embedded SmolLM2-135M on the "
                                     "bundled dataset, offline, a few minutes on CPU)",
                       description="Fine-tune with LoRA / DoRA / QLoRA. Settings: defaults <- CONFIG (YAML) <- flags.")
    p.add_argument("config", nargs="?", metavar="CONFIG",
                   help="YAML file of settings (keys as the flags, e.g. lr: 1e-3)")
    for flag, dest, typ, help_text in TRAIN_FLAGS:
        p.add_argument(flag, dest=dest, type=typ, default=argparse.SUPPRESS, help=_with_default(dest, help_text),
                       action="append" if dest in REPEATABLE else "store")
    p.add_argument("--packing", dest="packing", action="store_true", default=argparse.SUPPRESS,
                   help=_with_default("packing", "pack several examples per row (they do not attend to each other)"))
    p.add_argument("--activation-checkpointing", dest="activation_checkpointing", action="store_true",
                   default=argparse.SUPPRESS, help=_with_default(
                       "activation_checkpointing", "recompute each decoder layer in backward instead of keeping "
                       "its activations (less memory, about 1.3x the step time)"))
    p.add_argument("--compile", dest="compile", action="store_true", default=argparse.SUPPRESS,
                   help=_with_default("compile", "torch.compile each decoder layer for the training steps; on a GPU "
                                      "its kernels replay as CUDA graphs (sequence lengths padded to multiples of 64)"))
    p.add_argument("--exact-match", dest="exact_match", action=argparse.BooleanOptionalAction,
                   default=argparse.SUPPRESS, help=_with_default(
                       "exact_match", "score greedy answers on the held-out examples before and after training "
                       "(the held-out loss is always measured)"))
    p.add_argument("--overwrite", dest="overwrite", action="store_true", default=argparse.SUPPRESS,
                   help=_with_default("overwrite", "replace a previous run in --output"))
    p.add_argument("--quiet", action="store_true", help="print less")
    p.set_defaults(func=cmd_train)
