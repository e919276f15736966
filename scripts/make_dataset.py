#!/usr/bin/env python3
"""Generate amplora's bundled dataset: PyTorch precision errors -> one-line structured triage.

Each example is a short traceback tail (the failing call site and the error line, in the wording PyTorch,
transformers and bitsandbytes really use) and its triage:

    kind=dtype_mismatch; dtypes=bf16,fp32; phase=forward; fix=autocast

Every field can be read off the input: `kind` from the error text, `dtypes` are the dtypes the message names
(normalized: Float/float -> fp32, BFloat16 -> bf16, Half -> fp16, in the order they appear, `none` when none are
named), `phase` from the call site (forward, backward, generate, optimizer, init, eval), `fix` from the kind (and,
for dtype mismatches, the phase). The score is the exact match of the whole line plus per-field accuracy.

Deterministic (fixed seed), stdlib only, written from scratch for amplora (Apache-2.0, like the project).
Run: python scripts/make_dataset.py  (writes src/amplora/data/precision_triage_{train,eval}.jsonl)
"""
from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

SYSTEM = "Triage PyTorch precision errors."
SEED = 20241122
N_TRAIN, N_EVAL = 800, 150
OUT_DIR = Path(__file__).resolve().parent.parent / "src" / "amplora" / "data"

# How each dtype may be spelled in a message, and its canonical name in the triage line.
SPELLINGS = {
    "fp32": ["Float", "float", "c10::Float", "torch.float32"],
    "bf16": ["BFloat16", "c10::BFloat16", "torch.bfloat16"],
    "fp16": ["Half", "c10::Half", "torch.float16"],
}
TENSOR_TYPES = {"fp32": "FloatTensor", "bf16": "BFloat16Tensor", "fp16": "HalfTensor"}

CALL_SITES = {
    "forward": ["outputs = model(**batch)", "logits = model(input_ids).logits", "out = self.base_layer(x)",
                "hidden = layer(hidden, attention_mask)", "result = self.lora_B(self.lora_A(x)) * self.scaling",
                "loss = model(**inputs).loss", "h = self.mlp(self.post_attention_layernorm(h))"],
    "backward": ["loss.backward()", "scaler.scale(loss).backward()", "accelerator.backward(loss)",
                 "(loss / grad_accum).backward()", "torch.autograd.backward(loss)"],
    "generate": ["out = model.generate(**enc, max_new_tokens=64)", "ids = model.generate(input_ids, do_sample=False)",
                 "samples = trainer.model.generate(**batch)", "text = pipe(prompt)[0]['generated_text']"],
    "optimizer": ["scaler.unscale_(optimizer)", "scaler.step(optimizer)", "optimizer.step()",
                  "torch.nn.utils.clip_grad_norm_(params, 1.0)"],
    "init": ["model = get_peft_model(model, lora_config)", "U, S, Vh = torch.linalg.svd(weight)",
             "model = AutoModelForCausalLM.from_pretrained(name, dtype=dtype)", "model.to(device)",
             "Q, R = torch.linalg.qr(weight)"],
    "eval": ["preds = logits.argmax(-1).cpu().numpy()", "metrics = compute_metrics(eval_pred)",
             "arr = hidden.detach().cpu().numpy()"],
}
FUNCS = {"forward": ["forward", "_forward", "__call__", "training_step", "compute_loss"],
         "backward": ["training_step", "train_step", "fit", "_inner_training_loop"],
         "generate": ["on_evaluate", "sample", "log_samples", "predict"],
         "optimizer": ["training_step", "optimizer_step", "step", "_inner_training_loop"],
         "init": ["__init__", "setup", "build_model", "main", "load"],
         "eval": ["evaluate", "compute_metrics", "eval_loop", "on_evaluate"]}
FILES = ["train.py", "finetune.py", "run_sft.py", "trainer.py", "lora.py", "main.py", "sft.py", "model.py"]
DEVICES = ["cuda:0 and cpu", "cpu and cuda:0", "cuda:1 and cuda:0", "cuda:0 and cuda:1", "meta and cpu"]
GPUS = [("Tesla T4", "7.5"), ("Tesla V100-SXM2-16GB", "7.0"), ("Quadro RTX 6000", "7.5"),
        ("GeForce GTX 1080 Ti", "6.1"), ("Tesla P100-PCIE-16GB", "6.0")]
HALF = ["fp16", "bf16"]


def pick_pair(rng):
    a, b = rng.sample(["fp32", "bf16", "fp16"], 2) if rng.random() < 0.3 else rng.sample([("bf16", "fp32"),
                                                                                          ("fp32", "bf16"),
                                                                                          ("fp16", "fp32"),
                                                                                          ("fp32", "fp16")], 1)[0]
    return a, b


def sp(rng, dtype):
    return rng.choice(SPELLINGS[dtype])


def name(dtype):
    """The ScalarType name PyTorch prints (Float, BFloat16, Half)."""
    return SPELLINGS[dtype][0]


# Each kind: (error text builder, phases it happens in, fix). A builder returns (error line, dtypes named).
def k_dtype_mismatch(rng):
    a, b = pick_pair(rng)
    templates = [
        lambda: f"RuntimeError: expected mat1 and mat2 to have the same dtype, but got: {sp(rng, a)} != {sp(rng, b)}",
        lambda: f"RuntimeError: self and mat2 must have the same dtype, but got {name(a)} and {name(b)}",
        lambda: f"RuntimeError: expected m1 and m2 to have the same dtype, but got: {sp(rng, a)} != {sp(rng, b)}",
        lambda: (f"RuntimeError: Expected query, key, and value to have the same dtype, but got query.dtype: "
                 f"{sp(rng, a)} key.dtype: {sp(rng, b)} and value.dtype: {sp(rng, b)} instead."),
        lambda: (f"RuntimeError: Input type (torch.cuda.{TENSOR_TYPES[a]}) and weight type "
                 f"(torch.cuda.{TENSOR_TYPES[b]}) should be the same"),
        lambda: f"RuntimeError: mat1 and mat2 must have the same dtype, but got {name(a)} and {name(b)}",
    ]
    return rng.choice(templates)(), [a, b]


def k_out_dtype(rng):
    a, b = pick_pair(rng)
    return f"RuntimeError: Expected out tensor to have dtype {sp(rng, a)}, but got {sp(rng, b)} instead", [a, b]


def k_cpu_half_kernel(rng):
    d = rng.choice(HALF)
    op = rng.choice(["addmm_impl_cpu_", "baddbmm_with_gemm", "LayerNormKernelImpl", "addmv_impl_cpu",
                     "slow_conv2d_cpu", "linalg_svd_cpu", "linalg_qr_cpu", "linalg_inv_ex_cpu"])
    name = {"fp16": "Half", "bf16": "BFloat16"}[d]
    return f"RuntimeError: \"{op}\" not implemented for '{name}'", [d]


def k_fp16_grads(rng):
    return "ValueError: Attempting to unscale FP16 gradients.", ["fp16"]


def k_device_mismatch(rng):
    arg = rng.choice(["mat1", "mat2", "index", "self", "weight"])
    meth = rng.choice(["wrapper_CUDA_addmm", "wrapper_CUDA__index_select", "wrapper_CUDA_mm", "wrapper_CUDA_bmm"])
    tail = rng.choice(["!", f"! (when checking argument for argument {arg} in method {meth})"])
    return f"RuntimeError: Expected all tensors to be on the same device, but found at least two devices, " \
           f"{rng.choice(DEVICES)}{tail}", []


def k_scalar_type(rng):
    a, b = pick_pair(rng)
    return f"RuntimeError: expected scalar type {name(a)} but found {name(b)}", [a, b]


def k_grad_dtype(rng):
    a, b = pick_pair(rng)
    return f"RuntimeError: Found dtype {name(a)} but expected {name(b)}", [a, b]


def k_overflow(rng):
    if rng.random() < 0.5:
        return "RuntimeError: value cannot be converted to type at::Half without overflow", ["fp16"]
    fn = rng.choice(["MulBackward0", "PowBackward0", "SoftmaxBackward0", "AddmmBackward0", "ExpBackward0"])
    return f"RuntimeError: Function '{fn}' returned nan values in its {rng.choice(['0th', '1st'])} output.", []


def k_index_dtype(rng):
    d = rng.choice(["fp32", "fp16", "bf16"])
    dev = rng.choice(["", "cuda."])
    return (f"RuntimeError: Expected tensor for argument #1 'indices' to have one of the following scalar types: "
            f"Long, Int; but got torch.{dev}{TENSOR_TYPES[d]} instead (while checking arguments for embedding)"), [d]


def k_scatter_dtype(rng):
    a, b = pick_pair(rng)
    op = rng.choice(["index_add_", "index_copy_", "scatter_add_", "index_put_"])
    return f"RuntimeError: {op}(): self ({name(a)}) and source ({name(b)}) must have same scalar type", [a, b]


def k_bf16_unsupported(rng):
    gpu, cc = rng.choice(GPUS)
    if rng.random() < 0.5:
        return (f"ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. "
                f"Your {gpu} GPU has compute capability {cc}."), ["bf16"]
    return "RuntimeError: Current CUDA Device does not support bfloat16. Please switch dtype to float16.", \
        ["bf16", "fp16"]


def k_numpy_bf16(rng):
    return "TypeError: Got unsupported ScalarType BFloat16", ["bf16"]


def k_flash_attn(rng):
    if rng.random() < 0.5:
        return "RuntimeError: FlashAttention only support fp16 and bf16 data type", ["fp16", "bf16"]
    return "ValueError: Flash Attention 2 only supports torch.float16 and torch.bfloat16 dtypes", ["fp16", "bf16"]


KINDS = {
    # kind: (builder, phases, fix)
    "dtype_mismatch": (k_dtype_mismatch, ["forward", "backward", "generate"], "autocast"),
    "out_dtype": (k_out_dtype, ["backward"], "no_out_buffers"),
    "cpu_half_kernel": (k_cpu_half_kernel, ["forward", "init", "generate"], "fp32_on_cpu"),
    "fp16_grads": (k_fp16_grads, ["optimizer"], "fp32_master"),
    "device_mismatch": (k_device_mismatch, ["forward", "backward", "generate"], "pin_device"),
    "scalar_type": (k_scalar_type, ["forward", "backward"], "autocast"),
    "grad_dtype": (k_grad_dtype, ["backward"], "match_loss_dtypes"),
    "overflow": (k_overflow, ["forward", "backward", "optimizer"], "loss_scaling"),
    "index_dtype": (k_index_dtype, ["forward", "generate"], "long_indices"),
    "scatter_dtype": (k_scatter_dtype, ["forward", "backward"], "match_dtype"),
    "bf16_unsupported": (k_bf16_unsupported, ["init"], "fp16_mixed"),
    "numpy_bf16": (k_numpy_bf16, ["eval"], "float_before_numpy"),
    "flash_attn": (k_flash_attn, ["forward", "init"], "half_attention"),
}
# Kinds whose message only makes sense with particular call sites (SVD/QR kernels fail at init).
INIT_ONLY_OPS = ("linalg_svd_cpu", "linalg_qr_cpu", "linalg_inv_ex_cpu")


def fix_for(kind: str, phase: str) -> str:
    if kind == "dtype_mismatch" and phase == "generate":
        return "autocast_generate"  # the S001 situation: generate() outside the training precision
    return KINDS[kind][2]


def make_example(rng) -> tuple[str, str]:
    kind = rng.choice(list(KINDS))
    builder, phases, _ = KINDS[kind]
    error, dtypes = builder(rng)
    phase = "init" if any(op in error for op in INIT_ONLY_OPS) else rng.choice(phases)
    site = rng.choice(CALL_SITES[phase])
    if phase == "init" and kind == "cpu_half_kernel":  # SVD/QR kernels fail in linalg calls, GEMMs elsewhere
        linalg = "linalg" in error
        site = rng.choice([s for s in CALL_SITES["init"] if ("linalg" in s or "peft" in s) == linalg])
    trace = f'  File "{rng.choice(FILES)}", line {rng.randint(12, 640)}, in {rng.choice(FUNCS[phase])}\n    {site}'
    seen = []
    for d in dtypes:
        if d not in seen:
            seen.append(d)
    answer = f"kind={kind}; dtypes={','.join(seen) or 'none'}; phase={phase}; fix={fix_for(kind, phase)}"
    return f"{trace}\n{error}", answer


def as_record(user: str, answer: str) -> dict:
    return {"messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user},
                         {"role": "assistant", "content": answer}]}


def generate(seed: int = SEED, n_train: int = N_TRAIN, n_eval: int = N_EVAL) -> tuple[list[dict], list[dict]]:
    """Distinct inputs; the held-out split shares no input text with the training split."""
    rng = random.Random(seed)
    seen: set[str] = set()
    rows = []
    while len(rows) < n_train + n_eval:
        user, answer = make_example(rng)
        if user in seen:
            continue
        seen.add(user)
        rows.append(as_record(user, answer))
    return rows[:n_train], rows[n_train:]


def write_jsonl(path: Path, rows: list[dict]) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    tmp.replace(path)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out-dir", type=Path, default=OUT_DIR)
    ap.add_argument("--seed", type=int, default=SEED)
    args = ap.parse_args()
    train, held_out = generate(args.seed)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    write_jsonl(args.out_dir / "precision_triage_train.jsonl", train)
    write_jsonl(args.out_dir / "precision_triage_eval.jsonl", held_out)
    print(f"wrote {len(train)} train and {len(held_out)} held-out examples to {args.out_dir}")


if __name__ == "__main__":
    main()
