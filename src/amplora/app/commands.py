"""`amplora generate`, `chat`, `merge` and `eval`: use a trained adapter with the base it was trained on.

The base comes from the adapter's `base_model_name_or_path` (`smollm2-135m`, `tiny` or a directory) unless
--model says otherwise; a run's config.yaml next to the adapter supplies the quantization it was trained with.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import torch
import yaml

import amplora
from amplora import atomic
from amplora.adapters.io import CHAT_TEMPLATE_NAME, read_config
from amplora.errors import AmploraError
from amplora.precision import parse_dtype, resolve, resolve_device
from amplora.train.chat_templates import read_chat_template
from amplora.train.dataset import BUNDLED_EVAL, EVAL_SPLITS, bundled_path, read_data
from amplora.train.generation import evaluate, generate
from amplora.train.metric import summary as score_line
from amplora.train.model_loader import EMBEDDED_NAME, load_model


def _adapter_facts(adapter: str | None) -> dict:
    """base model name and training quantization recorded with an adapter directory. The adapter's config is
    checked here (read_config: one-line errors naming the file and key) before anything is loaded."""
    if adapter is None:
        return {}
    directory = Path(adapter)
    if not directory.is_dir():
        raise AmploraError(f"--adapter {directory}: not a directory (an adapter directory holds "
                           "adapter_config.json and adapter_model.safetensors)")
    if not (directory / "adapter_config.json").is_file():
        raise AmploraError(f"--adapter {directory}: no adapter_config.json there (not an adapter directory)")
    base = read_config(directory).get("base_model_name_or_path")
    facts = {"base": base.strip() if isinstance(base, str) and base.strip() else None}
    facts["quantize"] = _run_quantize(directory.parent / "config.yaml")
    template = directory / CHAT_TEMPLATE_NAME
    facts["chat_template"] = read_chat_template(str(template)) if template.is_file() else None
    return facts


def _run_quantize(run_config: Path) -> str | None:
    """`quantize` from the run's config.yaml next to the adapter, when there is one. The file is optional context
    (an adapter copied elsewhere may sit next to an unrelated config.yaml): anything unusable is ignored."""
    try:
        if not run_config.is_file() or run_config.stat().st_size > (1 << 20):
            return None
        data = yaml.safe_load(run_config.read_text(encoding="utf-8"))
    except (OSError, ValueError, yaml.YAMLError, RecursionError):  # ValueError covers UnicodeDecodeError
        return None
    value = data.get("quantize") if isinstance(data, dict) else None
    return value if isinstance(value, str) else None


def load_for_inference(adapter: str | None, model: str | None, precision: str = "auto", device: str = "auto",
                       quantize: str | None = None, chat_template: str | None = None):
    """(model, tokenizer): the base named by --model or by the adapter, with the adapter applied (if any). The
    tokenizer's chat template: --chat-template, else the one the adapter was trained with, else the base's."""
    facts = _adapter_facts(adapter)
    template = read_chat_template(chat_template) if chat_template is not None else facts.get("chat_template")
    spec = model or facts.get("base")
    if adapter and not spec:
        raise AmploraError(f"--adapter {adapter}: adapter_config.json has no base_model_name_or_path; pass --model")
    dev = resolve_device(device)
    policy = resolve(precision, device=dev)
    lm = load_model(spec or EMBEDDED_NAME, chat_template=template)
    net = lm.model.to(dev)
    quantize = quantize if quantize is not None else facts.get("quantize")
    quantize = None if quantize in (None, "none") else quantize
    if adapter:
        amplora.load_adapter(net, adapter, precision=policy, quantize=quantize)
    else:
        amplora.apply(net, r=1, targets="all-linear", precision=policy, quantize=quantize)  # B=0: the base itself
    return net, lm.tokenizer


def _messages(prompt: str, system: str | None) -> list[dict]:
    return ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": prompt}]


def cmd_generate(args) -> int:
    prompt = " ".join(args.prompt).strip()
    if not prompt:
        raise AmploraError("generate needs a prompt, e.g. amplora generate --adapter runs/x/adapter \"...\"")
    model, tokenizer = load_for_inference(args.adapter, args.model, args.precision, args.device, args.quantize,
                                          args.chat_template)
    print(generate(model, tokenizer, [_messages(prompt, args.system)], args.max_new_tokens)[0])
    return 0


def cmd_chat(args) -> int:
    model, tokenizer = load_for_inference(args.adapter, args.model, args.precision, args.device, args.quantize,
                                          args.chat_template)
    history = [{"role": "system", "content": args.system}] if args.system else []
    interactive = sys.stdin.isatty()
    if interactive:
        print("amplora chat: type a message; /reset clears the conversation, /exit or Ctrl-D quits.")
    while True:
        try:
            line = input("you> " if interactive else "")
        except EOFError:
            break
        text = line.strip()
        if not text:
            continue
        if text in ("/exit", "/quit"):
            break
        if text == "/reset":
            history = history[:1] if args.system else []
            continue
        history.append({"role": "user", "content": text})
        answer = generate(model, tokenizer, [history], args.max_new_tokens)[0]
        history.append({"role": "assistant", "content": answer})
        print(f"model> {answer}" if interactive else answer, flush=True)
    return 0


def cmd_merge(args) -> int:
    out = Path(args.out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise AmploraError(f"--out {out} already exists and is not empty; choose a new directory")
    dtype = parse_dtype(args.dtype)
    # merge in fp32 on CPU, whatever the adapter was trained with; one cast to --dtype at the end
    model, tokenizer = load_for_inference(args.adapter, args.model, "fp32", "cpu", quantize="none")
    merged = amplora.merge(model)
    merged = merged.to(dtype)
    for name, p in merged.named_parameters():  # never write a non-finite model (an fp16 cast can overflow)
        if not torch.isfinite(p).all():
            raise AmploraError(f"--adapter {args.adapter}: the merged weight {name} is not finite in "
                               f"{args.dtype}; nothing written")
    merged.config.dtype = str(dtype).replace("torch.", "")
    with atomic.directory(out) as tmp:  # files get the umask's modes; a failed write is one line, nothing left
        merged.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
    print(f"merged model written to {out} ({args.dtype}); load it with AutoModelForCausalLM.from_pretrained")
    return 0


def cmd_eval(args) -> int:
    examples = [e for e in read_data(args.data or bundled_path(BUNDLED_EVAL), split_preference=EVAL_SPLITS)
                if not e.is_text]  # plain text has no answer to match
    if not examples:
        raise AmploraError(f"{args.data}: plain text only, no answers to score")
    if args.limit:
        examples = examples[: args.limit]
    model, tokenizer = load_for_inference(args.adapter, args.model, args.precision, args.device, args.quantize,
                                          args.chat_template)
    result = evaluate(model, tokenizer, examples, args.max_new_tokens, args.batch_size, args.max_length)
    if args.json:
        print(json.dumps({k: v for k, v in result.items() if k != "predictions"}))
    else:
        print(f"{args.data or 'bundled held-out split'}: {score_line(result)}")
    return 0
