"""Knowledge base of classic precision/device error messages: what each means and how to fix it.

Entries are tried in order; the first whose `match` regex hits the text (and whose `context` regex, when given,
hits it too) wins. Context-specific entries (S000-S004) come before the generic ones they refine.
`kind` groups entries for the live diagnosis in diagnose.py, which refines cause and fix with real names.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

_I = re.IGNORECASE | re.DOTALL


@dataclass(frozen=True)
class Entry:
    key: str
    kind: str
    title: str
    match: re.Pattern
    cause: str
    fix: str
    context: re.Pattern | None = None
    ref: str = ""

    def hits(self, text: str) -> bool:
        return bool(self.match.search(text)) and (self.context is None or bool(self.context.search(text)))


def _e(key, kind, title, match, cause, fix, context=None, ref=""):
    return Entry(key, kind, title, re.compile(match, _I), cause, fix,
                 re.compile(context, _I) if context else None, ref)


_MATMUL = (r"(mat1 and mat2|m1 and m2|self and mat2|mat2 and self|both vectors|"
           r"a and b) (must )?(to )?have the same dtype|expected (m1|mat1) and (m2|mat2)|"
           r"expected both vectors to have same dtype")

ENTRIES: tuple[Entry, ...] = (
    _e("unscale-fp16", "scaler", "GradScaler cannot unscale fp16 gradients",
       r"Attempting to unscale FP16 gradients",
       "The trainable parameters themselves are fp16, so their gradients are fp16 and the GradScaler refuses to "
       "unscale them (loss scaling needs fp32 master weights).",
       "Keep trainable parameters (adapters) in fp32 and let autocast run the matmuls in fp16: e.g. "
       "`for p in trainable: p.data = p.data.float()`, PEFT's default `autocast_adapter_dtype=True`, or "
       "`amplora.apply(model, precision='fp16-mixed')`."),
    _e("no-inf-checks", "scaler", "GradScaler found no gradients to check",
       r"No inf checks were recorded for this optimizer",
       "`scaler.step(optimizer)` found no parameter with a gradient: nothing trainable received a gradient "
       "(all frozen, or the loss did not depend on the trainable parameters).",
       "Make sure the adapters are trainable (`requires_grad=True`), are in the optimizer, and that the loss was "
       "computed through them; call `scaler.scale(loss).backward()` before `scaler.step(optimizer)`."),
    _e("out-dtype", "out-buffer", "an out= / in-place buffer has another dtype than the result",
       r"Expected out tensor to have dtype|result type \w+ can'?t be cast to the desired output type",
       "An op wrote its result into a preallocated `out=` buffer or in place into a tensor of another dtype; "
       "autocast never casts `out=` arguments or in-place ops, so fused kernels and custom backward passes hit "
       "this (S002).",
       "Allocate the buffer in the result's dtype (`torch.empty_like(x, dtype=result_dtype)`) or compute "
       "out-of-place and cast once (`buf.copy_(result)` / `return grad.to(x.dtype)`).", ref="S002"),
    _e("bf16-gpu-unsupported", "device-capability", "this GPU has no (native) bf16",
       r"(bf16|bfloat16).{0,80}(not supported|only supported|requires|is not available|doesn't support|"
       r"compute capability|Ampere)|does not support bfloat16|setup doesn'?t support bf16",
       "bf16 needs a GPU of compute capability >= 8.0 (Ampere or newer); older GPUs lack bf16 kernels or only "
       "emulate them slowly.",
       "Use fp16 with loss scaling on this GPU (`precision='fp16-mixed'`, or `auto`, which picks it), or fp32; "
       "run `amplora doctor` to see what the device really supports."),
    _e("flash-attn-dtype", "attention", "flash attention needs fp16/bf16 (and a recent GPU)",
       r"flash ?attention.{0,120}(only support|supports? only|dtype|fp16|bf16|float16|bfloat16|Ampere)|"
       r"FlashAttention only supports",
       "Flash attention kernels exist only for fp16/bf16 inputs (and Ampere+ GPUs); fp32 activations, an fp32 "
       "model, or an older GPU cannot use them.",
       "Load the model in bf16/fp16 (`dtype=torch.bfloat16`) or run under `torch.autocast`, or fall back to "
       "`attn_implementation='sdpa'`/`'eager'`."),
    _e("attention-dtype", "mismatch", "attention inputs of different dtypes",
       r"Expected query, key,? and value to have the same dtype",
       "query, key and value of scaled_dot_product_attention came in different dtypes, typically a KV cache or "
       "rotary embedding kept in fp32 while the projections run in bf16/fp16.",
       "Cast the cache / rotary outputs to the query dtype (`k = k.to(q.dtype)`), or run the whole forward "
       "under one autocast region."),
    _e("s001-generate-outside-autocast", "mismatch", "generate() outside the training autocast (S001)",
       _MATMUL, "Training runs inside autocast but `generate()` (e.g. from a callback) runs outside it, so fp32 "
       "activations from upcast norms or adapters meet bf16/fp16 weights (S001).",
       "Run generation under the training precision: `with torch.autocast(device_type, dtype=...): "
       "model.generate(...)`, or let amplora enforce the policy at the model boundary (`amplora.apply`).",
       context=r"generate|callback", ref="S001"),
    _e("s000-dora-magnitude", "mismatch", "DoRA magnitude / weight norm in fp32 fed to a bf16 matmul (S000)",
       _MATMUL, "The DoRA magnitude / weight-norm path is computed in fp32 and its result is fed back into a "
       "bf16/fp16 matmul (S000).",
       "Compute the norm in fp32 if you like, then `.to(x.dtype)` the rescaled weight before the matmul; "
       "amplora's DoRA does exactly this.", context=r"dora|magnitude|weight_norm|lora_magnitude", ref="S000"),
    _e("s004-backward-mixed-amp", "mismatch", "mixed AMP / non-AMP tensors in backward (S004)",
       _MATMUL + r"|c10::Half != float|float != c10::Half",
       "In backward, fp16 tensors from an autocast region meet fp32 tensors saved outside it; with several GPUs "
       "this usually means the model or batch landed on another device than intended (S004).",
       "Run forward and backward in one autocast region on one pinned device (`CUDA_DEVICE_ORDER=PCI_BUS_ID`, "
       "`CUDA_VISIBLE_DEVICES=N`, `model.to(device)`), and check `amplora doctor` for mixed GPU models.",
       context=r"backward|autograd", ref="S004"),
    _e("matmul-dtype", "mismatch", "matmul operands of two dtypes",
       _MATMUL, "A matmul/linear got operands of two dtypes outside autocast: typically an fp32 tensor (an upcast "
       "norm output, an fp32 adapter or DoRA magnitude) meets bf16/fp16 weights.",
       "Cast at the boundary: `.to(x.dtype)` the fp32 result before the matmul, or run the forward under "
       "`torch.autocast(device_type, dtype=...)`; `amplora doctor run` names the tensor and the module.",
       ref="S000/S001"),
    _e("device-mismatch", "device", "tensors on different devices",
       r"Expected all tensors to be on the same device|is not on the expected device|"
       r"(on|at) (the )?(same|different) devices?|Input and parameter tensors are not at the same device|"
       r"indices should be either on cpu or on the same device|Cannot copy out of meta tensor|"
       r"Input type \(torch\.\w+\) and weight type \(torch\.cuda",
       "An op got tensors on different devices: part of the model or the batch was not moved (or is still on "
       "`meta` after an empty-weights / device_map load), or two GPUs were mixed (S004).",
       "Move the model and every input to one device (`model.to(device)`, `batch = {k: v.to(device) for k, v "
       "in batch.items()}`); pin the GPU (`CUDA_VISIBLE_DEVICES`, `CUDA_DEVICE_ORDER=PCI_BUS_ID`); a `meta` "
       "tensor means its weights were never loaded.", ref="S004"),
    _e("conv-type", "mismatch", "conv input and weight/bias types differ",
       r"Input type \(.*?\) and (weight|bias) type \(.*?\) should be the same|"
       r"Input and (weight|bias) (type|dtype)s? (should|must) be the same",
       "A convolution got an input of another dtype (or device) than its weight or bias.",
       "Cast the input to the layer's dtype (`x.to(conv.weight.dtype)`) or the layer to the input's "
       "(`conv.to(x.dtype)`); if one type says cuda and the other not, move both to one device."),
    _e("cpu-half-kernel", "cpu-kernel", "no fp16/bf16 CPU kernel for this op",
       r"not implemented for '(Half|BFloat16)'|Low precision dtypes not supported|"
       r"(Half|BFloat16) (is )?not supported on CPU",
       "This op has no fp16/bf16 kernel on the CPU (old torch lacked Half GEMM, `addmm_impl_cpu_`, S003; "
       "torch 2.13 still lacks `linalg.svd`, `linalg.qr`, `linalg.inv`), so SVD/QR-based inits (PiSSA, OLoRA) "
       "and fp16 models on CPU fail.",
       "Compute that op in fp32 and cast back (e.g. `torch.linalg.svd(W.float())` then `.to(W.dtype)`); for a "
       "GEMM (`addmm_impl_cpu_`) upgrade torch (>= 2.2 has Half CPU GEMM) or keep the model fp32/bf16 on CPU "
       "(`precision='auto'` picks fp32 on CPUs without native bf16).", ref="S003"),
    _e("long-indices", "index", "indices/targets must be Long (int64)",
       r"'indices' to have one of the following scalar types: Long|tensors used as indices must be long|"
       r"expected scalar type Long but found|scalar type Long but got|"
       r"(target|index|indices)\w* .{0,40}(must be|to be|should be) .{0,20}(long|int64)|"
       r"index_select\(\): Expected dtype int(32|64)|Expected dtype int64 for index",
       "An index, embedding input or loss target is a float (or int32 where int64 is needed); embeddings, "
       "gather/scatter and cross-entropy targets need integer (Long) tensors.",
       "Keep token ids, labels and indices `torch.long` (`ids.long()`); never cast the whole batch dict with "
       "`.to(dtype)` — cast only floating tensors."),
    _e("index-dtype", "index", "index/scatter source and destination dtypes differ",
       r"scatter\w*\(\): Expected self\.dtype to be equal to src\.dtype|"
       r"Index put requires the source and destination dtypes match|"
       r"index_(add|copy|put|fill)_?\(\).{0,80}(same (scalar )?type|dtype)|"
       r"masked_(scatter|fill)\w*.{0,60}(same dtype|dtype)|Expected self\.dtype to be equal to src\.dtype",
       "An index_put / scatter / index_add wrote values of one dtype into a tensor of another (these ops never "
       "promote), e.g. fp32 updates into a bf16 cache or buffer.",
       "Cast the source to the destination's dtype: `dest.index_put_(idx, src.to(dest.dtype))` / "
       "`scatter_(dim, idx, src.to(dest.dtype))`."),
    _e("expected-scalar-type", "mismatch", "an op expected another dtype",
       r"expected scalar type (\w+) but found (\w+)|expected (\w+) but found (\w+)",
       "An op (often a conv, norm, loss or custom kernel) received a tensor of another dtype than it expects, "
       "usually because only part of the model or inputs was cast, or code ran outside autocast.",
       "Cast the input to the expected dtype at the boundary (`x.to(layer.weight.dtype)`), or run that region "
       "under `torch.autocast`; `amplora doctor run` shows which operand is off."),
    _e("found-dtype-backward", "backward-dtype", "a gradient of another dtype in backward",
       r"Found dtype (\w+) but expected (\w+)",
       "In backward, a gradient came out in another dtype than its forward tensor: typically a loss between "
       "tensors of different dtypes (e.g. an fp32/fp64 target with a bf16/fp16 prediction) or a custom "
       "`autograd.Function.backward` returning a gradient of the wrong dtype.",
       "Compute the loss in one dtype (`loss_fn(pred.float(), target.float())`), and in custom backward passes "
       "return `grad.to(input.dtype)` for each input."),
    _e("fp16-overflow", "overflow", "value too large for fp16 / overflow to inf/NaN",
       r"cannot be converted to type (c10::)?(Half|at::Half|BFloat16)\w* without overflow|"
       r"returned nan values|nan values in its|Gradient overflow|loss (is|became) (nan|inf)|"
       r"found (nan|inf) in (the )?(grad|loss)|(nan|inf) (loss|gradient)s? (detected|encountered)",
       "fp16 tops out at 65504: a constant, activation, loss or gradient exceeded it (or a bf16/fp16 op "
       "produced inf/NaN), typically attention masks filled with -1e9, large logits or unscaled fp16 gradients.",
       "Use bf16 where the hardware has it (same range as fp32), keep losses/softmax/masks in fp32 "
       "(`torch.finfo(x.dtype).min` instead of -1e9), and use dynamic loss scaling (`GradScaler`) with fp16."),
    _e("numpy-bf16", "numpy", "NumPy has no bfloat16",
       r"(Got )?unsupported ScalarType BFloat16|can'?t convert.{0,40}bfloat16|bfloat16.{0,40}numpy",
       "`.numpy()` (or `np.asarray`) of a bf16 tensor: NumPy has no bfloat16 dtype.",
       "Convert first: `t.float().numpy()` (or `t.to(torch.float32).cpu().numpy()`)."),
    _e("cpu-autocast-dtype", "autocast", "CPU autocast with an unsupported dtype",
       r"In CPU autocast, but the target dtype is not supported|"
       r"CPU Autocast only supports dtype|Current CUDA Device does not support bfloat16",
       "Autocast was asked for a dtype the device does not support, so it silently disabled itself and the region "
       "ran in fp32 (mismatches follow).",
       "Use `torch.autocast('cpu', dtype=torch.bfloat16)` (or float16) on CPU, and on CUDA the dtype "
       "`amplora doctor` says the GPU supports."),
    _e("generic-dtype", "mismatch", "two dtypes met in one op",
       r"(dtype|scalar type|type).{0,60}(Half|BFloat16|Float|float16|bfloat16|float32|Double)\b.{0,60}"
       r"(Half|BFloat16|Float|float16|bfloat16|float32|Double)\b",
       "Two tensors of different floating dtypes met in one op outside autocast (or an op got a dtype it has no "
       "kernel for).",
       "Find the tensor that is off (`amplora doctor run script.py` names it) and cast it at the module boundary "
       "with `.to(x.dtype)`, or run the region under `torch.autocast`."),
)

GENERAL_ADVICE = (
    "Not a message the doctor knows. General advice: run the script under `amplora doctor run script.py` to get "
    "the module, op and operand dtypes; run `amplora doctor` to see what your device supports; keep trainable "
    "params fp32, run forward/backward/generate under one autocast region, and cast at module boundaries with "
    "`.to(x.dtype)`."
)


def lookup(text: str) -> Entry | None:
    """The first entry that matches `text` (an error message or a whole traceback), or None."""
    for entry in ENTRIES:
        if entry.hits(text):
            return entry
    return None


def by_key(key: str) -> Entry:
    for entry in ENTRIES:
        if entry.key == key:
            return entry
    raise KeyError(key)
