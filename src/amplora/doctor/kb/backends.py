"""Backends and devices that lack a dtype: NCCL, cuBLAS, cuFFT, TF32, MPS, ONNX Runtime, Triton, TensorRT, flash attention / SDPA."""
from __future__ import annotations

from amplora.doctor.kb.entry import make as _e

# backends without a dtype
BACKENDS = (
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
       "otherwise, int64 or int32 for ids) and the application feeds another (NumPy arrays default to float64 / "
       "double, and to int32 on Windows): ONNX Runtime never casts inputs.",
       "Feed the exported dtype (`x.astype(np.float32)` for float64 data, `x.astype(np.float16)` for an fp16 "
       "model; check "
       "`sess.get_inputs()[0].type`), or convert the model with fp32 inputs and outputs kept "
       "(`float16.convert_float_to_float16(model, keep_io_types=True)`)."),
    _e("onnx-graph-double-float", "onnx", "an ONNX graph half in float64, half in float32",
       r"bound to different types \(tensor\(double\) and tensor\(float\)|"
       r"bound to different types \(tensor\(float\) and tensor\(double\)",
       "One op of the ONNX graph gets a float64 (double) and a float32 tensor: the model was converted to "
       "float64 only in part (some initializers or inputs stayed float32, or a float64 constant or cast came in "
       "from NumPy data during export).",
       "Export the graph in one dtype: `model.float()` and float32 example inputs before `torch.onnx.export` "
       "(or cast every initializer when converting a graph to double), then feed inputs of that dtype."),
    _e("onnx-type-mismatch", "onnx", "an fp16 ONNX graph with a type mismatch inside",
       r"Type \(tensor\(\w+\)\) of (output|input) arg .{0,300}does not match expected type|"
       r"Type parameter \(\w+\) (of Optype \(\w+\) )?bound to different types",
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
    _e("tensorrt-fp16-range", "backend", "weights or values that do not fit fp16 in a TensorRT FP16 engine",
       r"outside (of )?(the )?fp16 range|Subnormal FP16 values|(weights|values).{0,60}(exceed|outside).{0,20}"
       r"(FP16|half) range|FP16 (overflow|underflow)",
       "An FP16 TensorRT engine stores weights (and computes) in fp16, and some do not fit: magnitudes above "
       "65504 overflow (the build fails), tiny ones become subnormal and lose precision (outputs drift from "
       "the fp32/ONNX model).",
       "Keep the affected layers in fp32 (`trtexec --fp16 --precisionConstraints=obey "
       "--layerPrecisions=<layer>:fp32`, or `layer.precision = trt.float32` with OBEY_PRECISION_CONSTRAINTS), "
       "build in fp32 (or bf16 where supported), or bring the weights into range (retrain with weight decay).",
       context=r"TensorRT|\bTRT\b|trtexec|engine"),
    _e("triton-kernel-dtype", "backend", "a Triton kernel uses a dtype this GPU lacks",
       r"type fp8\w+ not supported in this architecture|Unsupported conversion from '?(bf16|f16|fp8\w*)|"
       r"(fp8e4nv|fp8e5|bf16|bfloat16)\w*.{0,120}(not supported|unsupported)",
       "A Triton kernel (torch.compile / inductor or a fused kernel) uses a dtype the GPU architecture cannot "
       "run: bf16 needs compute capability >= 8.0 (Ampere), fp8 e4nv needs >= 8.9 (Ada/Hopper).",
       "Run in fp16 or fp32 on this GPU (`torch_dtype=torch.float16`), or skip the Triton path (no "
       "`torch.compile`, another attention / kernel backend).", context=r"triton|fp8e\w+"),
)

# device capability and attention kernels
CAPABILITY = (
    _e("fp16-needs-gpu", "device-capability", "fp16 mixed precision needs a GPU",
       r"(fp16|bf16|Mixed precision training).{0,200}(requires a GPU|can only be used on CUDA)",
       "fp16 mixed precision (AMP with a GradScaler) and half-precision evaluation need a CUDA (or similar) "
       "device, and this run is on the CPU or MPS.",
       "Run on the GPU (check `torch.cuda.is_available()`), or drop `--fp16`: on the CPU use bf16 "
       "(`bf16=True` / `torch.autocast('cpu', dtype=torch.bfloat16)`) or fp32."),
    _e("bf16-only-component", "mismatch", "a bf16-only component got tensors of another dtype",
       r"only bfloat ?16 (is |are )?supported|only supports? bfloat ?16|only bf16 (is |are )?supported",
       "A component that works only in bf16 got fp32 (or fp16) tensors: most often a bf16-only optimizer (a "
       "bf16 AdamW such as `adam_bfloat16` / AnyPrecisionAdamW with Kahan summation) given fp32 parameters or "
       "gradients, sometimes a bf16-only kernel; the message does not say which.",
       "Give it bf16: with a bf16-only optimizer keep the trained parameters and gradients bf16 (drop fp32 "
       "master / gradient precision settings such as `--gradient_precision=fp32`), or switch to an optimizer "
       "that takes fp32 parameters (`torch.optim.AdamW`); for a bf16-only kernel cast its inputs with "
       "`.to(torch.bfloat16)`."),
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
)
