"""Knowledge base of precision/device error messages: what each means and how to fix it.

Entries are tried in order; the first whose `match` regex hits the text (and whose `context` regex, when given,
hits it too) wins. Backend- and context-specific entries come before the generic ones they refine; a
context-specific story needs evidence in the text (a `context`), otherwise the generic entry answers and says
what the message alone cannot tell. `kind` groups entries for the live diagnosis in diagnose.py, which refines
cause and fix with real names. Causes are one sentence (the live diagnosis prints them as such).
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

    def hits(self, text: str) -> bool:
        return bool(self.match.search(text)) and (self.context is None or bool(self.context.search(text)))


def _e(key, kind, title, match, cause, fix, context=None):
    return Entry(key, kind, title, re.compile(match, _I), cause, fix, re.compile(context, _I) if context else None)


_MATMUL = (r"(mat1 and mat2|m1 and m2|self and mat2|mat2 and self|both vectors|"
           r"a and b) (must )?(to )?have the same dtype|expected (m1|mat1) and (m2|mat2)|"
           r"expected both vectors to have same dtype")
# integer storage of packed quantized weights (bitsandbytes uint8/int8, int8 GEMM); case-sensitive so the English
# "byte" / "char" of other messages does not count
_PACKED = r"(?-i:unsigned char|signed char|\bByte\b|\bChar\b|\bu?int8\b|\bQU?Int8\b|Int8|UInt8)"
_QUANT_CONTEXT = r"bitsandbytes|\bbnb\b|4bit|8bit|Linear4bit|Linear8bit|Params4bit|quantiz|qweight|gptq|awq|int8"
_QUANT_KERNEL = (r"\b(awq\w*|\w*_awq\w*|gptq\w*|\w*marlin\w*|exllama\w*|exl2|machete|quantization method|"
                 r"gemm_forward_cuda|gemv_forward_cuda|q4_matmul)")
_LOW = r"(float16|bfloat16|\bfp16\b|\bbf16\b|\bHalf\b|float32|\bfp32\b|dtype)"
# legacy tensor type names carry the device: torch.cuda.HalfTensor is on a GPU, torch.HalfTensor on the CPU
_GPU_TYPE = r"(torch\.cuda\.\w+Tensor|\bCUDA\w+(Type|Tensor)\b|\b(MPS|XPU)\w+Type\b)"
_CPU_TYPE = r"(torch\.(?!cuda\.)[A-Z]\w*Tensor|\bCPU\w+(Type|Tensor)\b)"

ENTRIES: tuple[Entry, ...] = (
    # ---- loss scaling ----------------------------------------------------------------------------------------
    _e("amp-unscale-bf16", "scaler", "GradScaler used with bf16 gradients",
       r"_amp_\w+\"? not implemented for '?BFloat16",
       "GradScaler (fp16 loss scaling, switched on by fp16 mixed-precision settings) got bf16 gradients: bf16 "
       "parameters (a model cast with `.to(torch.bfloat16)`) trained with fp16 AMP settings, while bf16 has fp32's "
       "range and does not need a scaler.",
       "Remove the GradScaler for bf16 (`GradScaler(enabled=False)`, or call `loss.backward()` and "
       "`optimizer.step()` directly); with HF Trainer / Accelerate use `bf16=True, fp16=False` "
       "(`mixed_precision='bf16'`); if you do want fp16 AMP, keep the trainable parameters fp32 instead of casting "
       "the model to bf16."),
    _e("unscale-fp16", "scaler", "GradScaler cannot unscale fp16 gradients",
       r"\bAt+e?m?p?t*ing to unscale\s+(FP16|half)\s*grad",
       "The trainable parameters themselves are fp16, so their gradients are fp16 and the GradScaler refuses to "
       "unscale them (loss scaling needs fp32 master weights).",
       "Keep trainable parameters (adapters) in fp32 and let autocast run the matmuls in fp16: e.g. "
       "`for p in trainable: p.data = p.data.float()`, PEFT's default `autocast_adapter_dtype=True`, or "
       "`amplora.apply(model, precision='fp16-mixed')`; do not cast the model you train with `.half()`."),
    _e("no-inf-checks", "scaler", "GradScaler found no gradients to check",
       r"No inf checks were recorded for this optimizer",
       "`scaler.step(optimizer)` found no parameter with a gradient: nothing trainable received a gradient "
       "(all frozen, or the loss did not depend on the trainable parameters).",
       "Make sure the adapters are trainable (`requires_grad=True`), are in the optimizer, and that the loss was "
       "computed through them; call `scaler.scale(loss).backward()` before `scaler.step(optimizer)`."),
    # ---- quantized weights and their kernels --------------------------------------------------------------------
    _e("bnb-compute-dtype", "quantized", "bitsandbytes 4-bit layer computes in another dtype than its input",
       r"Input type into Linear\w*bit\w* is torch\.\w+, but bnb_4bit_compute_d?type",
       "A bitsandbytes 4-bit layer dequantizes its weights to `bnb_4bit_compute_dtype` (float32 by default) while "
       "the activations arrive in fp16/bf16, so every matmul runs in fp32 after a cast: slow, not wrong.",
       "Set the compute dtype to the activations' dtype: `BitsAndBytesConfig(load_in_4bit=True, "
       "bnb_4bit_compute_dtype=torch.bfloat16)` (or `torch.float16` on GPUs without bf16), matching the model's "
       "`torch_dtype`."),
    _e("packed-quant-weight", "quantized", "packed quantized weights used as plain weights",
       rf"({_MATMUL}).{{0,80}}{_PACKED}|expected scalar type (Half|BFloat16) but found (?-i:Char|Byte)|"
       r"\"(addmm|mm|bmm|matmul|baddbmm|addmv|linear)\w*\" not implemented for '(Byte|Char)'|"
       r"weight type \((c10::)?(signed char|unsigned char|Char|Byte|torch\.\w*(Byte|Char)Tensor)\)|"
       rf"not implemented for '(Byte|Char)'.{{0,200}}({_QUANT_CONTEXT})|({_QUANT_CONTEXT}).{{0,400}}"
       rf"not implemented for '(Byte|Char)'",
       "A quantized layer's packed integer weight (bitsandbytes packs 4-/8-bit weights into uint8/int8 storage) "
       "reached a float matmul as if it were a plain weight: the model was cast or moved around its quantization "
       "backend (`model.half()`, `.to(dtype)`), custom code used `layer.weight` directly, or a quantized "
       "checkpoint was loaded into plain `nn.Linear` layers.",
       "Do not cast the packed weight: load the model through its quantization backend "
       "(`from_pretrained(..., quantization_config=BitsAndBytesConfig(..., bnb_4bit_compute_dtype=torch.bfloat16))`"
       " with bitsandbytes installed), call the quantized module instead of `F.linear(x, layer.weight)`, or "
       "dequantize first (`bnb.functional.dequantize_4bit(w.data, w.quant_state)`, PEFT's "
       "`dequantize_module_weight`); set the compute dtype to the activations' dtype.",
       context=None),
    _e("quant-kernel-dtype", "quantized", "GPTQ/AWQ/Marlin/ExLlama kernels need fp16 (or bf16) activations",
       rf"{_QUANT_KERNEL}.{{0,300}}{_LOW}|{_LOW}.{{0,300}}{_QUANT_KERNEL}",
       "The quantized GEMM kernels compute in half precision only: GPTQ, AWQ and ExLlama kernels want float16 "
       "activations, Marlin float16 or bfloat16, so a float32 model (the default dtype) or bf16 (vLLM's default "
       "for bf16 checkpoints) on an fp16-only kernel is refused.",
       "Load the model in the kernel's dtype: `torch_dtype=torch.float16` in `from_pretrained` (AWQ, GPTQ, "
       "ExLlama), or `dtype='float16'` / `--dtype half` in vLLM; Marlin accepts float16 or bfloat16 but never "
       "float32."),
    # ---- backends without a dtype -------------------------------------------------------------------------------
    _e("nccl-bf16", "backend", "this NCCL has no bf16 collectives",
       r"Unconvertible NCCL type|not supported for NCCL process group|"
       r"NCCL.{0,100}(BFloat16|bfloat16|bf16).{0,60}(not supported|unsupported)",
       "torch was built with an NCCL older than 2.10 (torch 1.8 and before), which has no bfloat16 type for "
       "all_reduce / send / recv, so bf16 gradients or tensors cannot be communicated.",
       "Upgrade torch (its NCCL >= 2.10 has bf16 collectives), or communicate in fp32/fp16: cast before the "
       "collective (`dist.all_reduce(t.float())`), or train with fp16 mixed precision / fp32 gradients."),
    _e("cublas-bf16", "device-capability", "cuBLAS has no bf16 GEMM on this GPU",
       r"CUBLAS_STATUS_NOT_SUPPORTED.{0,600}(CUDA_R_16BF|bf16|bfloat16)|"
       r"(CUDA_R_16BF|bf16|bfloat16).{0,600}CUBLAS_STATUS_NOT_SUPPORTED",
       "cuBLAS has no bf16 (CUDA_R_16BF) GEMM on GPUs older than Ampere (compute capability < 8.0, such as "
       "Maxwell, Pascal, Volta or Turing cards), so a bf16 model's matmuls fail there.",
       "Use fp16 (with loss scaling for training) or fp32 on this GPU: `torch_dtype=torch.float16`, "
       "`fp16=True` instead of `bf16=True`; `amplora doctor` shows what the GPU supports."),
    _e("fft-half", "backend", "cuFFT in half precision",
       r"cuFFT only supports dimensions whose sizes are powers of two when computing in half precision|"
       r"cuFFT doesn'?t support .{0,60}half|Unsupported dtype (Half|BFloat16)|"
       r"\"\w*(fft|stft)\w*\" not implemented for '(Half|BFloat16|ComplexHalf)'",
       "An FFT / STFT ran in fp16 (autocast or a half model): cuFFT computes half precision only for "
       "power-of-two signal sizes (and on compute capability >= 5.3), and bf16 FFTs do not exist.",
       "Compute the FFT in fp32: `torch.fft.rfft(x.float(), ...)` inside `torch.autocast('cuda', enabled=False)`, "
       "then cast the result back; or pad the signal to a power-of-two size.", context=r"fft|stft"),
    _e("tf32-hint", "device-capability", "fp32 matmuls are not using TF32 tensor cores",
       r"has Tensor Cores\. To properly utilize them, you should set .?torch\.set_float32_matmul_precision|"
       r"TensorFloat32 tensor cores for float32 matrix multiplication available but not enabled",
       "This GPU (Ampere or newer) can run fp32 matmuls on TF32 tensor cores, but `float32_matmul_precision` "
       "is 'highest', so they run in full fp32: a speed hint, not an error.",
       "Allow TF32 if ~10-bit mantissa matmuls are fine for you: `torch.set_float32_matmul_precision('high')` "
       "(or train in bf16 mixed precision); keep 'highest' where exact fp32 matters."),
    _e("tf32-pre-ampere", "device-capability", "TF32 needs an Ampere or newer GPU",
       r"\btf32\b.{0,120}(Ampere|requires|not supported|no effect|unsupported|only)|"
       r"TensorFloat-?32.{0,120}(Ampere|not supported|no effect|unsupported|requires)|"
       r"allow_tf32.{0,120}(no effect|not supported|Ampere|ignored)",
       "TF32 is a tensor-core mode of Ampere and newer GPUs (compute capability >= 8.0); on older GPUs the TF32 "
       "flags have no effect, and HF `--tf32` refuses to start.",
       "Drop `--tf32` / `tf32=True` (or set it False) on this GPU; fp32 math is unaffected; for speed use fp16 "
       "mixed precision (`fp16=True`) there."),
    _e("mps-float64", "device-capability", "MPS has no float64",
       r"MPS.{0,160}(float64|Double)|(float64|\bDouble\b).{0,100}\bMPS\b",
       "A float64 (double) tensor or model went to Apple's MPS device, which has no float64: NumPy arrays and "
       "Python floats default to float64, and `model.double()` makes it float64 too.",
       "Use float32 before moving to MPS: `torch.from_numpy(a).float()`, `a.astype(np.float32)`, "
       "`model.float()`, or `torch.set_default_dtype(torch.float32)`."),
    _e("mps-bf16", "device-capability", "MPS without bf16",
       r"MPS.{0,160}(BFloat16|bf16)|(BFloat16|\bbf16\b).{0,100}\bMPS\b",
       "bfloat16 on Apple's MPS device needs macOS 14 (Sonoma) or newer and a recent torch; on older systems MPS "
       "has no bf16 and a bf16 tensor or model cannot be moved there.",
       "Load the model in float16 or float32 on MPS (`torch_dtype=torch.float16`), or upgrade to macOS 14+ "
       "with torch >= 2.1."),
    _e("onnx-input-dtype", "onnx", "ONNX Runtime got an input of another dtype than the model was exported with",
       r"Unexpected input data type",
       "The ONNX model's inputs were exported in one dtype (float16 for a `--half` / fp16 export, float32 "
       "otherwise) and the application feeds another: ONNX Runtime never casts inputs.",
       "Feed the exported dtype (`x.astype(np.float16)` for an fp16 model, `np.float32` otherwise; check "
       "`sess.get_inputs()[0].type`), or convert the model with fp32 inputs and outputs kept "
       "(`float16.convert_float_to_float16(model, keep_io_types=True)`)."),
    _e("onnx-type-mismatch", "onnx", "an fp16 ONNX graph with a type mismatch inside",
       r"Type \(tensor\(\w+\)\) of (output|input) arg .{0,300}does not match expected type|"
       r"Type parameter \(\w+\) of Optype \(\w+\) bound to different types",
       "A half-precision ONNX conversion left a Cast whose fp16 output feeds an op still typed float32 (or the "
       "reverse), typically around a norm or a Resize kept in fp32.",
       "Convert with `onnxconverter_common.float16.convert_float_to_float16(model, keep_io_types=True, "
       "op_block_list=[...])` keeping the offending ops in fp32, or export the torch model in fp16 directly "
       "(`model.half()` before `torch.onnx.export`), or keep the fp32 model."),
    _e("onnx-no-kernel", "onnx", "ONNX Runtime has no kernel for this op in this dtype",
       r"Type 'tensor\(\w+\)' of input parameter .{0,200} is invalid|Could not find an implementation for \w+\(\d+\)",
       "ONNX Runtime has no kernel for this op in the graph's tensor type on this execution provider: bfloat16 "
       "is barely supported (Conv, most ops), and many float16 kernels exist only on the CUDA provider.",
       "Export in a supported dtype: float32 (or float16 for the CUDA execution provider) instead of bf16, or "
       "keep that op in fp32 with a Cast around it (`op_block_list` when converting to fp16)."),
    _e("triton-server-bf16", "onnx", "the Triton Inference Server backend has no BF16 inputs",
       r"unsupported datatype TYPE_BF16|TYPE_BF16.{0,100}(not supported|unsupported)",
       "The Triton Inference Server backend serving this model (the ONNX Runtime backend among others) does not "
       "accept BF16 inputs or outputs.",
       "Declare and export the model's inputs as FP16 or FP32 (`TYPE_FP16` / `TYPE_FP32` in config.pbtxt) and "
       "cast to bf16 inside the model if it needs it."),
    _e("tensorrt-dtype", "backend", "TensorRT precision not supported here",
       r"(bf16|bfloat16|fp8|int8|fp16|float16|half)\w*.{0,120}(not supported|unsupported|does not support|"
       r"doesn'?t support|not available)|(not supported|unsupported|does not support).{0,80}(bf16|bfloat16|fp8|"
       r"int8|fp16|float16|half)|platformHasFast(Fp16|Int8)",
       "TensorRT (or this GPU under TensorRT) cannot build that precision: bf16 needs TensorRT >= 9 on Ampere "
       "or newer, fast fp16/int8 need GPUs with those tensor cores, fp8 needs Ada/Hopper.",
       "Build the engine in a precision the GPU has (drop `--bf16`/`--fp8`; fp16 on Volta/Turing, fp32 "
       "otherwise), and export the ONNX model in fp16/fp32.", context=r"TensorRT|\bTRT\b|trtexec"),
    _e("triton-kernel-dtype", "backend", "a Triton kernel uses a dtype this GPU lacks",
       r"type fp8\w+ not supported in this architecture|Unsupported conversion from '?(bf16|f16|fp8\w*)|"
       r"(fp8e4nv|fp8e5|bf16|bfloat16)\w*.{0,120}(not supported|unsupported)",
       "A Triton kernel (torch.compile / inductor or a fused kernel) uses a dtype the GPU architecture cannot "
       "run: bf16 needs compute capability >= 8.0 (Ampere), fp8 e4nv needs >= 8.9 (Ada/Hopper).",
       "Run in fp16 or fp32 on this GPU (`torch_dtype=torch.float16`), or skip the Triton path (no "
       "`torch.compile`, another attention / kernel backend).", context=r"triton|fp8e\w+"),
    # ---- NaN / overflow ----------------------------------------------------------------------------------------
    _e("multinomial-nan", "overflow", "sampling from NaN/inf probabilities",
       r"probability tensor contains either .?inf.?, .?nan.? or",
       "`torch.multinomial` (sampling in `generate()`) got probabilities with inf/NaN: the logits became NaN "
       "upstream, almost always an fp16 overflow in the forward pass (fp16 tops out at 65504; fine-tuned or "
       "merged weights make it likelier).",
       "Run generation in bf16 (`torch_dtype=torch.bfloat16`) or fp32 on GPUs without bf16 instead of fp16, and "
       "check the logits (`torch.isnan(logits).any()`); greedy decoding only hides the NaN."),
    # ---- meta tensors ------------------------------------------------------------------------------------------
    _e("meta-state-dict", "device", "a state dict of meta tensors (no data)",
       r"Cannot copy out of meta tensor", context=r"state_dict|While copying the parameter",
       cause="The tensors being loaded are themselves on the meta device (a state dict taken from a model "
       "built with `init_empty_weights` / `device='meta'` that was never materialized), so there is no data to "
       "copy into the parameters.",
       fix="Load real weights: take the state dict from a materialized model or the checkpoint file; to load "
       "real tensors into a model built on meta use `model.load_state_dict(sd, assign=True)`."),
    _e("meta-copy", "device", "a model with weights still on meta was moved",
       r"Cannot copy out of meta tensor",
       "A module whose weights are still on the meta device (no data) was moved or cast with `.to()`: a model "
       "loaded with `device_map` / offloading keeps offloaded weights on meta until its hooks load them, and "
       "`init_empty_weights` models have no data until loaded.",
       "Do not `.to()` a model dispatched with `device_map` (accelerate places it; give enough memory or drop "
       "`device_map` to load it whole); for a model built on meta use `model.to_empty(device=...)` and then "
       "load the weights (`load_state_dict` / `load_checkpoint_and_dispatch`)."),
    _e("meta-device", "device", "parameters left on the meta device",
       r"Tensor on device meta is not on the expected device|is not on the expected device meta|"
       r"expected device meta|invalid gradient.{0,300}device=meta|two devices, \S*meta|meta and (cuda|cpu)|"
       r"(cuda|cpu)(:\d+)? and meta\b|cannot be called on meta tensors",
       "Some parameters or buffers are still on the meta device (never loaded): keys missing from the "
       "checkpoint after a partial `load_state_dict(..., assign=True, strict=False)` or `init_empty_weights`, "
       "or weights offloaded by `device_map='auto'`.",
       "Check what was not loaded (`missing = model.load_state_dict(sd, strict=False, assign=True).missing_keys`) "
       "and load or initialise those (`model.to_empty(device=...)` then init); with `device_map` give enough GPU "
       "memory or an `offload_folder` so every weight is materialized."),
    # ---- devices -----------------------------------------------------------------------------------------------
    _e("generator-device", "device", "a random generator on the wrong device",
       r"Expected a '\w+' device type for generator but found '\w+'",
       "A `torch.Generator` on one device was passed to an op running on another: DataLoader / RandomSampler "
       "draw `randperm` on the CPU, so a cuda generator (or `torch.set_default_device('cuda')`) breaks them, "
       "and a CPU generator cannot drive `torch.randn(..., device='cuda')`.",
       "Create the generator on the device of the op it drives: `torch.Generator(device='cpu')` for "
       "DataLoader / samplers (`DataLoader(..., generator=torch.Generator(device='cpu'))`), "
       "`torch.Generator(device='cuda')` for GPU sampling; do not set cuda as the default device for data "
       "loading."),
    _e("numpy-device", "device", "`.numpy()` of a GPU tensor",
       r"can'?t convert \S+ device type tensor to numpy|can'?t convert (CUDA|MPS|XPU) tensor to numpy",
       "NumPy can only read host memory, and the tensor lives on a GPU (or MPS) device, so `.numpy()` / "
       "`np.asarray` / a NumPy function on it fails.",
       "Copy it to the CPU first: `t.detach().cpu().numpy()` (and `.float()` before for bf16)."),
    _e("deserialize-cuda", "device", "a CUDA checkpoint loaded where CUDA is not available",
       r"Attempting to deserialize object on (a )?CUDA device",
       "The checkpoint was saved from CUDA tensors, and this torch cannot see that GPU (CPU-only wheel, no "
       "driver, or fewer GPUs than when saved).",
       "Load with `torch.load(path, map_location='cpu')` (or `map_location='cuda:0'`), or install a CUDA build "
       "of torch if the GPU should be visible."),
    _e("type-device-mismatch", "device", "a GPU tensor and a CPU tensor of the same kind",
       rf"{_GPU_TYPE}[^\n]{{0,120}}{_CPU_TYPE}|{_CPU_TYPE}[^\n]{{0,120}}{_GPU_TYPE}",
       "This is a device mismatch, not a dtype one: the type names carry the device (`torch.cuda.HalfTensor` "
       "is on the GPU, `torch.HalfTensor` on the cpu, `MPSFloatType` on MPS), and one side, usually the weights "
       "of a module left on the CPU, offloaded, or created after `model.to(device)`, is on the cpu while the "
       "other is on cuda (or mps).",
       "Move the module and its input to one device: `model.to('cuda')` (after adding every submodule), "
       "`x = x.to(next(model.parameters()).device)`; with offloading, let the pipeline place the module."),
    _e("numpy-bf16", "numpy", "NumPy has no bfloat16",
       r"(Got )?unsupported ScalarType BFloat16|can'?t convert.{0,40}bfloat16|bfloat16.{0,40}numpy",
       "`.numpy()` (or `np.asarray`) of a bf16 tensor: NumPy has no bfloat16 dtype.",
       "Convert first: `t.float().numpy()` (or `t.to(torch.float32).cpu().numpy()`)."),
    # ---- norms, in-place, out= ---------------------------------------------------------------------------------
    _e("cpu-mixed-norm", "mismatch", "CPU norm with input and parameters of different dtypes",
       r"mixed dtype \(CPU\)",
       "On the CPU, layer_norm / group_norm / batch_norm accept a bf16/fp16 input only with float32 (Float) "
       "weight and bias, or all in one dtype; here the norm's parameters and its input disagree, often a norm "
       "module left on the CPU in half precision while the rest of the model moved.",
       "Give the norm and its input one dtype (`x.to(norm.weight.dtype)`, or `norm.float()` with a float32 "
       "input), or run the region under `torch.autocast('cpu', dtype=torch.bfloat16)`; if the model should "
       "run on the GPU, move it there (`model.to('cuda')`)."),
    _e("inplace-int", "out-buffer", "a float result written into an integer tensor",
       r"result type \w+ can'?t be cast to the desired output type (Long|long int|long|Int|int|Byte|Char|Short|"
       r"Bool|unsigned char)\b",
       "An in-place op (`add_`, `clamp_`, `mul_`, `+=`, `/=`) or an `out=` would store a floating-point result in "
       "an integer (Long / int64) tensor, which torch refuses to do implicitly, such as averaging a state dict "
       "that contains BatchNorm's `num_batches_tracked` or clamping int64 indices with float bounds.",
       "Compute out of place and convert explicitly (`x = (x + y).long()`), use integer arguments "
       "(`idx.clamp_(0, int(hi))`), and skip integer buffers when averaging or scaling weights "
       "(`if v.is_floating_point(): ...`)."),
    _e("out-dtype", "out-buffer", "an out= / in-place buffer has another dtype than the result",
       r"Expected out tensor to have dtype|result type \w+ can'?t be cast to the desired output type",
       "An op wrote its result into a preallocated `out=` buffer or in place into a tensor of another dtype; "
       "autocast never casts `out=` arguments or in-place ops, so fused kernels and custom backward passes hit "
       "this.",
       "Allocate the buffer in the result's dtype (`torch.empty_like(x, dtype=result_dtype)`) or compute "
       "out-of-place and cast once (`buf.copy_(result)` / `return grad.to(x.dtype)`)."),
    # ---- device capability, attention ----------------------------------------------------------------------------
    _e("fp16-needs-gpu", "device-capability", "fp16 mixed precision needs a GPU",
       r"(fp16|bf16|Mixed precision training).{0,200}(requires a GPU|can only be used on CUDA)",
       "fp16 mixed precision (AMP with a GradScaler) and half-precision evaluation need a CUDA (or similar) "
       "device, and this run is on the CPU or MPS.",
       "Run on the GPU (check `torch.cuda.is_available()`), or drop `--fp16`: on the CPU use bf16 "
       "(`bf16=True` / `torch.autocast('cpu', dtype=torch.bfloat16)`) or fp32."),
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
       "Load the model in bf16/fp16 (`torch_dtype=torch.bfloat16`) or run under `torch.autocast`, or fall back "
       "to `attn_implementation='sdpa'`/`'eager'`."),
    _e("sdpa-mask-dtype", "attention", "attention mask of another dtype than the query",
       r"Expected attn_mask dtype to be bool or|mismatched key_padding_mask and attn_mask",
       "scaled_dot_product_attention takes a bool mask or a float mask in the query's dtype; an additive mask "
       "built in fp32 (or two masks of different types) met fp16/bf16 queries.",
       "Pass a bool mask, or build the additive mask in the query dtype: `mask.to(q.dtype)` filled with "
       "`torch.finfo(q.dtype).min` instead of -inf/-1e9; give `key_padding_mask` and `attn_mask` one type."),
    _e("sdpa-no-kernel", "attention", "no attention kernel accepts these inputs",
       r"No available kernel\. +Aborting execution",
       "scaled_dot_product_attention was restricted to backends (such as `sdpa_kernel(FLASH_ATTENTION)`) that "
       "cannot run these inputs; the warnings printed just before say why, most often fp32 inputs where flash "
       "needs fp16/bf16, or an unsupported mask / head size.",
       "Run attention in fp16/bf16 (load the model in bf16 or use `torch.autocast`), or allow the math / "
       "memory-efficient backends (`sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.MATH])`)."),
    _e("attention-dtype", "attention", "attention inputs of different dtypes",
       r"Expected query, key,? and value to have the same dtype|query and key must have the same dtype|"
       r"q, ?k, ?v must have the same dtype",
       "query, key and value of scaled_dot_product_attention came in different dtypes, typically a KV cache or "
       "rotary embedding kept in fp32 while the projections run in bf16/fp16.",
       "Cast the cache / rotary outputs to the query dtype (`k = k.to(q.dtype)`), or run the whole forward "
       "under one autocast region."),
    # ---- custom kernels, cudnn backward, integers ----------------------------------------------------------------
    _e("custom-ext-dtype", "mismatch", "a custom C++/CUDA extension got another dtype than it was written for",
       r"data_ptr<\w+>|\bdata<\w+>\(\)|expected scalar type (Float|Half|BFloat16|Double) but found "
       r"(Float|Half|BFloat16|Double)",
       "A custom C++/CUDA extension op is written for one dtype (usually float32) and received fp16/bf16 tensors "
       "from autocast or a half model; autocast does not cast the inputs of custom ops.",
       "Make the extension's autograd.Function cast its inputs: `@torch.amp.custom_fwd(device_type='cuda', "
       "cast_inputs=torch.float32)` on forward and `@torch.amp.custom_bwd(device_type='cuda')` on backward; or "
       "call it with `.float()` inputs inside `torch.autocast('cuda', enabled=False)` and cast the result back.",
       context=r"data_ptr|\bdata<|\w_ext\b|_ext\.|_cuda\.|\.cu:\d|csrc|(?<!torch)\._C\.|\bops/|"
       r"custom (cuda |c\+\+ )?(op|kernel|extension)"),
    _e("grad-output-type", "backward-dtype", "a convolution's backward got a gradient of another dtype",
       r"'grad_output' to have the same type as tensor for argument #\d+ '(weight|input)'",
       "In the backward of a convolution, the incoming gradient (grad_output) and the weight have different "
       "dtypes: part of the graph was cast to half with `.half()` outside autocast while the conv weights stayed "
       "fp32 (or the reverse).",
       "Keep a module's weights and activations in one dtype: use `torch.autocast` instead of manual `.half()` "
       "casts of activations or losses, or cast the whole module consistently (`model.half()` with fp16 "
       "inputs)."),
    _e("long-indices", "index", "indices/targets must be Long (int64)",
       r"'indices' to have one of the following scalar types: Long|tensors used as indices must be long|"
       r"expected scalar type Long but found|scalar type Long but got|"
       r"(target|index|indices)\w* .{0,40}(must be|to be|should be) .{0,20}(long|int64)|"
       r"index_select\(\): Expected dtype int(32|64)|Expected dtype int64 for index|"
       r"\"(nll_loss|cross_entropy|multi_margin|multilabel_margin)\w*\" not implemented for '\w+'",
       "An index, embedding input or class-index loss target is a float or an int32 (Int) tensor where int64 "
       "(Long) is needed: NumPy's default int is int32 on Windows, and nll_loss / cross_entropy targets and "
       "embedding / gather indices must be Long.",
       "Make token ids, labels and indices `torch.long`: `target = target.long()` (or `dtype=torch.int64` when "
       "building them); never cast the whole batch dict with `.to(dtype)`, cast only floating tensors."),
    _e("packed-quant-context", "quantized", "packed quantized weights used as plain weights",
       rf"({_MATMUL}|expected scalar type|same dtype|same scalar type|should be the same).{{0,120}}{_PACKED}|"
       rf"{_PACKED}.{{0,120}}({_MATMUL}|same dtype|should be the same)",
       "A quantized layer's packed integer weight (uint8/int8 storage) met float activations: the quantized "
       "model was cast or used outside its quantization backend, or a quantized checkpoint was loaded into plain "
       "layers.",
       "Do not cast the packed weight: load the model through its quantization backend (bitsandbytes / GPTQ "
       "with `quantization_config` and the compute dtype set to the activations' dtype), call the quantized "
       "module, or dequantize the weight first.", context=_QUANT_CONTEXT),
    _e("int-input", "mismatch", "an integer tensor reached a floating-point op",
       r"not implemented for '(Long|Int|Bool|Short|Byte|Char)'|could not infer output dtype\. Input dtype must be "
       r"either a floating point|expected scalar type (Float|Half|BFloat16|Double) but found (Long|Int|Byte|Char|"
       r"Bool)|Input type \(\S*(Byte|Long|Int|Char)\w*\) and (weight|bias) type",
       "A floating-point op (a layer, matmul, mean, init) got an integer or bool tensor: data built from integer "
       "values (`torch.tensor([1, 2])`, uint8 images, NumPy int arrays) was never converted to float.",
       "Convert the input to the model's float dtype: `x = x.float()` (uint8 images: `x.float() / 255`), or "
       "`x.to(model.dtype)`; keep only indices and labels integer."),
    _e("index-dtype", "index", "index/scatter source and destination dtypes differ",
       r"scatter\w*\(\): Expected self\.dtype to be equal to src\.dtype|"
       r"Index put requires the source and destination dtypes match|"
       r"index_(add|copy|put|fill)_?\(\).{0,80}(same (scalar )?type|dtype)|"
       r"masked_(scatter|fill)\w*.{0,60}(same dtype|dtype)|Expected self\.dtype to be equal to src\.dtype",
       "An index_put / scatter / index_add wrote values of one dtype into a tensor of another (these ops never "
       "promote), such as fp32 updates into a bf16 cache or buffer.",
       "Cast the source to the destination's dtype: `dest.index_put_(idx, src.to(dest.dtype))` / "
       "`scatter_(dim, idx, src.to(dest.dtype))`."),
    _e("found-dtype-backward", "backward-dtype", "a gradient of another dtype in backward",
       r"Found dtype (\w+) but expected (\w+)",
       "In backward, a gradient came out in another dtype than its forward tensor: typically a loss between "
       "tensors of different dtypes (an fp32/fp64 target with a bf16/fp16 prediction) or a custom "
       "`autograd.Function.backward` returning a gradient of the wrong dtype.",
       "Compute the loss in one dtype (`loss_fn(pred.float(), target.float())`), and in custom backward passes "
       "return `grad.to(input.dtype)` for each input."),
    _e("float-double", "mismatch", "float64 (Double) data meets float32 weights",
       r"(?=[^\n]*(Double|double|float64))(?=[^\n]*\b(Float|float|float32)\b)"
       r"(?![^\n]*(Half|BFloat16|bfloat16|float16))[^\n]*\b(dtype|scalar type|type)\b",
       "A float64 (Double) tensor met float32 (Float) weights: tensors built from NumPy arrays or Python data "
       "default to float64 (`torch.from_numpy`, `torch.tensor(np_array)`), or part of the model was `.double()`.",
       "Make the data float32 where it enters: `torch.from_numpy(a).float()`, `a.astype(np.float32)`, "
       "`torch.tensor(a, dtype=torch.float32)`; use `model.double()` only if you want float64 throughout."),
    # ---- dtype mismatches with a known story (needs evidence in the text) ---------------------------------------
    _e("s001-generate-outside-autocast", "mismatch", "generate() outside the training autocast",
       _MATMUL, "Training runs inside autocast but `generate()` (for example from a callback) runs outside it, "
       "so fp32 activations from upcast norms or adapters meet bf16/fp16 weights.",
       "Run generation under the training precision: `with torch.autocast(device_type, dtype=...): "
       "model.generate(...)`, or let amplora enforce the policy at the model boundary (`amplora.apply`).",
       context=r"generate|callback"),
    _e("s000-dora-magnitude", "mismatch", "DoRA magnitude / weight norm in fp32 fed to a bf16 matmul",
       _MATMUL, "The DoRA magnitude / weight-norm path is computed in fp32 and its result is fed back into a "
       "bf16/fp16 matmul.",
       "Compute the norm in fp32 if you like, then `.to(x.dtype)` the rescaled weight before the matmul; "
       "amplora's DoRA does exactly this.", context=r"dora|magnitude|weight_norm|lora_magnitude"),
    _e("s004-backward-mixed-amp", "mismatch", "autocast and non-autocast tensors mixed in backward",
       _MATMUL + r"|c10::Half != float|float != c10::Half",
       "In backward, half-precision tensors saved inside an autocast region meet fp32 tensors from outside it (an "
       "fp32 adapter or a tensor computed outside autocast, or a custom kernel's backward).",
       "Run forward and backward of a module in one autocast region, keep trainable params fp32 and cast them at "
       "use (`w.to(x.dtype)`); custom autograd Functions need `torch.amp.custom_fwd` / `custom_bwd`.",
       context=r"backward|autograd"),
    # ---- generic ------------------------------------------------------------------------------------------------
    _e("matmul-dtype", "mismatch", "matmul operands of two dtypes",
       _MATMUL, "A matmul/linear got operands of two dtypes outside autocast; the message does not say which "
       "operand is off, most often an fp32 tensor (an upcast norm output, an fp32 adapter, a buffer) meeting "
       "bf16/fp16 weights, or fp16 activations meeting weights kept in another dtype.",
       "Cast at the boundary: `.to(x.dtype)` the odd tensor before the matmul (or load the model in one "
       "`torch_dtype`), or run the forward under `torch.autocast(device_type, dtype=...)`; "
       "`amplora doctor run` names the tensor and the module."),
    _e("device-mismatch", "device", "tensors on different devices",
       r"Expected all tensors to be on the same device|is not on the expected device|"
       r"(on|at) (the )?(same|different) devices?|Input and parameter tensors are not at the same device|"
       r"indices should be either on cpu or on the same device|to have the same device as tensor|"
       r"Expected object of device type \w+ but got device type|expected device \S+ but got|"
       r"Placeholder storage has not been allocated on MPS device|"
       r"invalid gradient.{0,300}device=(?P<dev>\w+).{0,300}but got.{0,300}device=(?!(?P=dev)\b)\w+",
       "An op got tensors on two devices: with cpu on one side, that is usually the tensor that was not moved "
       "(the inputs or labels not sent to the GPU, a module, adapter or buffer created after `model.to(device)` "
       "or kept on the CPU); with two GPUs (cuda:0 and cuda:1), a model split by `device_map` got its inputs "
       "on the wrong GPU or a module was placed by hand.",
       "Move the model and every input to one device (`model.to(device)`, `batch = {k: v.to(device) for k, v "
       "in batch.items()}`, inputs to `model.device` with `device_map`); create new tensors with "
       "`device=x.device`; pin the GPU with `CUDA_VISIBLE_DEVICES`."),
    _e("conv-type", "mismatch", "conv input and weight/bias types differ",
       r"Input type \(.*?\) and (weight|bias) type \(.*?\) should be the same|"
       r"Input and (weight|bias) (type|dtype)s? (should|must) be the same|"
       r"to have the same type as tensor for argument #\d+ '(weight|bias)'",
       "A convolution got an input of another dtype than its weight or bias: the model was cast (`model.half()`, "
       "`torch_dtype`) but the input was not, or the input was cast and a layer was not.",
       "Give input and layer the same dtype: `x.to(conv.weight.dtype)` (or `conv.to(x.dtype)`), or run under "
       "`torch.autocast`, which casts both."),
    _e("cuda-kernel-dtype", "cpu-kernel", "no GPU kernel for this op in this dtype",
       r"\"\w*(cuda|cudnn|gpu)\w*\" not implemented for '(Half|BFloat16|ComplexHalf)'",
       "This GPU op has no kernel for that half-precision dtype in this torch build or extension (bf16 kernels "
       "are missing in older torch and in many custom CUDA ops).",
       "Run that op in fp32: `.float()` its inputs inside `torch.autocast('cuda', enabled=False)` and cast the "
       "result back; a custom op can do it with `@torch.amp.custom_fwd(device_type='cuda', "
       "cast_inputs=torch.float32)`; or upgrade torch."),
    _e("cpu-half-kernel", "cpu-kernel", "no fp16/bf16 CPU kernel for this op",
       r"not implemented for '(Half|BFloat16)'|Low precision dtypes not supported|"
       r"(Half|BFloat16) (is )?not supported on CPU",
       "This op has no fp16/bf16 kernel on the CPU, so an fp16 model running on the CPU (older torch lacks Half "
       "GEMM `addmm_impl_cpu_`, conv and LayerNorm kernels) or an SVD/QR-based init (PiSSA, OLoRA; torch still "
       "lacks half `linalg.svd`, `linalg.qr`, `linalg.inv`) fails.",
       "Run fp16 models on the GPU (check that CUDA is visible) or keep the model fp32 on the CPU "
       "(`model.float()`, `torch_dtype=torch.float32`; `precision='auto'` picks it), or bf16 where the CPU "
       "supports it; for a single op compute it in fp32 and cast back (`torch.linalg.svd(W.float())` then "
       "`.to(W.dtype)`); torch >= 2.2 has Half CPU GEMM; if the op ran on a GPU, it lacks that dtype in this "
       "torch version: compute it in fp32 or upgrade."),
    _e("expected-scalar-type", "mismatch", "an op expected another dtype",
       r"expected scalar type (\w+) but found (\w+)|expected (\w+) but found (\w+)",
       "An op (a conv, norm, loss or custom kernel) received a tensor of another dtype than the others, usually "
       "because only part of the model or inputs was cast or code ran outside autocast; the message names the "
       "two dtypes but not which tensor is off.",
       "Cast the odd tensor at the boundary (`x.to(layer.weight.dtype)`, or load the model in one `torch_dtype`),"
       " or run that region under `torch.autocast`; `amplora doctor run` shows which operand is off."),
    _e("fp16-overflow", "overflow", "value too large for fp16 / overflow to inf/NaN",
       r"cannot be converted to type (c10::)?(Half|at::Half|BFloat16)\w* without overflow|"
       r"returned nan values|nan values in its|Gradient overflow|loss (is|became) (nan|inf)|"
       r"found (nan|inf) in (the )?(grad|loss)|(nan|inf) (loss|gradient)s? (detected|encountered)|"
       r"\b\w*loss['\"]?\s*[=:]\s*['\"]?nan\b",
       "The loss or a value went inf/NaN, most often an fp16 overflow (fp16 tops out at 65504: large "
       "activations, logits, attention masks filled with -1e9, or unscaled fp16 gradients); the text alone "
       "cannot rule out a too high learning rate or bad data.",
       "Use bf16 where the hardware has it (same range as fp32) or fp32 (full precision), keep losses/softmax/"
       "masks in fp32 (`torch.finfo(x.dtype).min` instead of -1e9), and use dynamic loss scaling "
       "(`GradScaler`) with fp16."),
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
       "kernel for); the message alone does not say which tensor is off or why.",
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
