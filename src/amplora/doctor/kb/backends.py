"""Backends that lack a dtype: NCCL, cuBLAS, cuFFT, TF32, xFormers, Triton, flash attention / SDPA (exported
models, ONNX Runtime and TensorRT, are in exported.py)."""
from __future__ import annotations

from amplora.doctor.kb.entry import make as _e
from amplora.doctor.kb.patterns import (CUDA_INIT_FAILED, EXCEPTION_NAMED, HALF_EVIDENCE, HALF_WORDS, NO_BF16_GPU,
                                        ONLY_HALF_FAILS, OTHER_GPU, PRECISION_RULED_OUT)

# backends without a dtype
BACKENDS = (
    _e("xla-mixed-dtype", "mismatch", "XLA refused an op on two floating types",
       r"Seen floating point types of different precisions in|but mixed precision is disallowed",
       "XLA's compiler (TPU, Trainium, other PJRT devices) refuses an HLO op whose operands have two floating types, "
       "here a tensor kept or produced in f32 (a constant, a buffer, a matmul result) meeting bf16 tensors in the "
       "lowered graph.",
       "Give the operands one dtype: cast the odd tensor (`.to(x.dtype)`), load the model in one dtype, or run under "
       "`torch.autocast('xla', dtype=torch.bfloat16)`; with older torch_xla, `XLA_USE_BF16=1` makes every float "
       "tensor bf16 on the device."),
    _e("xla-fp16", "backend", "float16 on a TPU (XLA), which has bfloat16 instead",
       r"Unsupported XLA type \d+", context=r"\b(Half|f16|fp16|float16)\b",
       cause="The XLA device (a TPU) has no float16: a tensor cast to fp16 (`.half()`, 16-bit AMP such as Lightning's "
       "`precision=16`) reached the TPU, whose 16-bit float type is bfloat16.",
       fix="Use bf16 on TPUs (`precision='bf16-mixed'` / `'bf16-true'`, `torch.bfloat16`, `XLA_USE_BF16=1` with older "
       "torch_xla) instead of fp16."),
    _e("cutlass-accumulator", "backend", "CUTLASS has no kernel for these element and accumulator dtypes",
       r"No kernel configuration found for supported data type and layout combination",
       "CUTLASS has no kernel for this combination of element dtypes, accumulator and layouts: with only "
       "`element=torch.bfloat16` (or fp16) given, the accumulator defaults to the same 16-bit type, and CUTLASS's "
       "bf16 GEMMs accumulate in fp32.",
       "Pass an fp32 accumulator (`element_accumulator=torch.float32`) and a layout combination CUTLASS lists for "
       "that architecture."),
    _e("collective-bool", "backend", "a bool tensor sent through a collective backend without a bool type",
       r"\A(?=.*\b(torch\.)?bool\b)(?=.*(Invalid scalar type|Unsupported dtype|not supported|Unconvertible NCCL type))"
       r"(?=.*\b(gloo|nccl|broadcast|all_reduce|all_gather|sync\w*|DDP|collective\w*)\b)",
       "Collective backends move a fixed set of dtypes: NCCL has no bool type, gloo's dispatch has no case for bool "
       "(nor bf16 in older releases), and wrappers such as pynccl map only the NCCL types, so a bool buffer (an "
       "attention-mask buffer, as in GPT-2) is not supported when DDP broadcasts buffers or a weight sync sends a "
       "state_dict uncast.",
       "Send bool tensors as uint8 (`t.to(torch.uint8)`, or a `view(torch.uint8)` of the raw bytes) and convert back "
       "after, or leave buffers out (`DistributedDataParallel(..., broadcast_buffers=False)`)."),
    _e("gloo-bf16", "backend", "gloo has no collectives for bf16",
       r"Invalid scalar type",
       context=r"\bgloo\b|torch[\\/.]distributed|all_gather|all_reduce|broadcast|\bDDP\b|strategy|torchmetrics|"
       # a model-parallel checkpoint (fairscale's parallel embedding) run in bf16 on the CPU, where gloo is used
       r"\A(?=.*\b(BF16|bf16|bfloat16)\b)(?=.*\bCPU\b)(?=.*\b(13B|70B|model[- ]parallel|shards?|embedding)\b)",
       cause="The gloo backend (the default on Windows, and for CPU tensors) cannot broadcast, all-reduce or "
       "all-gather bfloat16 tensors (bf16 is not supported by its collectives in those releases): DDP broadcasting "
       "a bf16 model's parameters and buffers at setup, or a metric library gathering bf16 states, fails with "
       "'Invalid scalar type'.",
       fix="Use NCCL on Linux GPUs; under gloo keep what is communicated fp32: load the model in fp32 and train "
       "with bf16 mixed precision (`precision='bf16-mixed'`, not `'bf16-true'`; autocast), cast metric states to "
       "float before syncing, or train on a single device without DDP."),
    _e("gloo-half-sums", "backend", "gloo's float16 all-reduce giving wrong sums",
       r"\A(?=.*\bgloo\b)(?=.*\b(float16|fp16|half)\b)(?=.*\b(didn'?t match|mismatch\w*|wrong|incorrect|"
       r"differ\w*|unexpected)\b)",
       unless=EXCEPTION_NAMED + r"|Invalid scalar type",
       cause="gloo (torch.distributed's CPU backend) sums float16 tensors with its own half type, whose arithmetic "
       "rounded differently from torch's in older releases, so some elements of an fp16 all-reduce came out wrong; "
       "newer torch builds make gloo use torch's half type.",
       fix="All-reduce in float32 on gloo (`y = x.float(); dist.all_reduce(y); x.copy_(y)`), or upgrade torch."),
    _e("gloo-cuda-tensor", "device", "CUDA tensors given to a gloo path that reads host memory",
       r"\A(?=.*(ProcessGroupGloo|\bgloo::))(?=.*\b(CUDA|cuda) tensors?\b)(?=.*(SIGSEGV|[Ss]egmentation fault|"
       r"segfault\w*|crash\w*))",
       "This gloo collective (the coalesced all-gather, among others) runs on the CPU and copies a CUDA tensor's "
       "device pointer as if it were host memory, so CUDA tensors given to a gloo process group crash it; gloo "
       "handles CUDA tensors only in some collectives.",
       "Use NCCL for CUDA tensors, or move them to the CPU for the gloo collective (`t.cpu()`) and copy the result "
       "back to the GPU."),
    _e("pg-invalid-tensor-type", "device", "a process group given a tensor that is not on its device",
       r"ProcessGroup\w+::\w+: invalid tensor type at index \d+",
       "The process group's collective checks that every tensor is a dense tensor on its own device (XPU for XCCL, "
       "CUDA for NCCL), and the one at that index is not: most often a CPU tensor given as the gather or scatter "
       "output (or input) while the group runs on the GPU.",
       "Allocate every tensor of the collective on the group's device (`torch.empty(..., device=x.device)` for the "
       "gather list), or use a gloo group for CPU tensors."),
    _e("collective-dtype-mismatch", "mismatch", "a collective whose tensors differ in dtype across ranks or outputs",
       r"\A(?=.*\b(all_gather\w*|broadcast|all_reduce|reduce_scatter\w*|all_to_all\w*|dist\.gather|dist\.scatter)\b)"
       r"(?=.*(\b(different|wrong|another) (d(ata ?)?type|type)\b|\bdtype mismatch|\b(float32|float16|half|bf16|"
       r"bfloat16) to (int64|int32|long|float16|float32)\b))(?=.*\b(garbage|wrong (results?|values?)|silently|"
       r"TypeError|should raise)\b)",
       unless=EXCEPTION_NAMED,
       cause="torch.distributed collectives move raw bytes and (in those releases) did not check that every rank's "
       "tensor, and the output list, share one dtype: a float16 input gathered into float32 outputs, or a float32 "
       "tensor broadcast into an int64 one, is reinterpreted bit for bit (a dtype mismatch) and reads as garbage.",
       fix="Give the tensor the same dtype (and shape) on every rank and in the output list (`[torch.empty_like(x) "
       "for _ in range(world_size)]`), casting before the collective if needed; newer torch raises on the mismatch."),
    _e("nccl-bf16", "backend", "NCCL has no collectives for this dtype",
       r"Unconvertible NCCL type|not supported for NCCL process group|Unsupported data type for NCCL process group|"
       r"\bType \w+ is not supported in NCCL mode\b|"
       r"NCCL.{0,100}(BFloat16|bfloat16|bf16).{0,60}(not supported|unsupported)|"
       r"NCCL\w*.{0,60}(does not|doesn't) support (BFloat16|bfloat16|bf16)",
       "NCCL communicates only its own types (others are not supported): bfloat16 needs NCCL 2.10 or newer (torch "
       "1.9 on; torch 1.8 and before cannot send bf16 gradients), and complex tensors (ComplexFloat, a "
       "complex-valued layer's parameters), int16 (Short) and other types torch has are not NCCL types at all.",
       "Cast around the collective and back: bf16 → upgrade torch (or `dist.all_reduce(t.float())`); complex → "
       "send `torch.view_as_real(t)` (two float32 per value) and `torch.view_as_complex` it after (DDP does this "
       "for complex parameters in recent torch); int16 → int32 (`t.int()`), bool → uint8; or send the raw bytes "
       "(`t.view(torch.uint8)`) and view them back, or use the gloo backend for such tensors."),
    _e("cudnn-half-arch", "device-capability", "cuDNN has no half-precision path for this GPU architecture",
       r"CUDNN_STATUS_ARCH_MISMATCH",
       "cuDNN refused a half-precision (fp16) convolution on this GPU architecture: its fp16 math paths need a "
       "newer GPU (fp16 arithmetic from Pascal, sm_60, on; tensor-core paths from Volta), so an older GPU such as a "
       "Maxwell or Kepler card runs fp16 convolutions only where the framework computes them in fp32.",
       "Run the convolutions in fp32 on this GPU (`model.float()`, no `.half()`), or upgrade torch, whose fp16 "
       "convolutions fall back to fp32 math where the GPU lacks fp16 arithmetic.", context=HALF_WORDS),
    _e("cudnn-half-unsupported", "device-capability", "cuDNN has no kernel for this half-precision configuration",
       r"CUDNN_STATUS_NOT_SUPPORTED",
       "cuDNN refused the half-precision (fp16) convolution as configured: older cuDNN / CUDA releases, and some "
       "GPUs, lack fp16 kernels for this layer's shape, stride or algorithm (an experimental fp16 build needs the "
       "newest CUDA and cuDNN); the same network in fp32 runs.",
       "Upgrade CUDA and cuDNN to the releases the fp16 build was made for, or run that layer (or the model) in "
       "fp32; in PyTorch `torch.backends.cudnn.enabled = False` for the failing layer tells whether cuDNN is the "
       "cause.",
       context=r"\bfp16\b|float16|\bhalf\b|_fp16\b|\bfp16_",
       # cuDNN's fused attention graph has no plan on some GPUs whatever the dtype
       unless=r"No execution plans support the graph|cudnn_att"),
    _e("cublas-bf16", "device-capability", "cuBLAS has no bf16 GEMM on this GPU",
       r"(CU|HIP|ROC)BLAS_STATUS_NOT_SUPPORTED.{0,600}((CUDA|HIP)_R_16BF|bf16|bfloat16)|"
       r"((CUDA|HIP)_R_16BF|bf16|bfloat16).{0,600}(CU|HIP|ROC)BLAS_STATUS_NOT_SUPPORTED",
       "cuBLAS has no bf16 (CUDA_R_16BF) GEMM on GPUs older than Ampere (compute capability < 8.0, such as "
       "Maxwell, Pascal, Volta or Turing cards), and hipBLAS none on older AMD GPUs, so a bf16 model's matmuls "
       "fail there.",
       "Use fp16 (with loss scaling for training) or fp32 on this GPU: `torch_dtype=torch.float16`, "
       "`fp16=True` instead of `bf16=True`; `amplora doctor` shows what the GPU supports.",
       unless=r"\bint8_(bfloat16|float16|float32)\b"),  # CTranslate2's int8 compute types: its own entry
    _e("cublas-fp16", "device-capability", "cuBLAS has no fp16 GEMM of this kind on this GPU",
       r"CUBLAS_STATUS_NOT_SUPPORTED when calling `?cublasGemm(Ex|StridedBatchedEx)\([^\n]{0,200}?\bCUDA_R_16F\b",
       "cuBLAS refused an fp16 (CUDA_R_16F) GEMM on this GPU: cards older than Pascal's fp16 support (Maxwell "
       "GTX 9xx and earlier, compute capability below 6.0) have no half-precision GEMM of this kind, and some "
       "library builds ask for tensor-op algorithms the card lacks.",
       "Compute in fp32 on this GPU (the tool's compute dtype / `torch_dtype=torch.float32`, `--fp32` or "
       "`--no-half`), or use a newer GPU; `amplora doctor` shows what the GPU supports."),
    _e("fft-half", "backend", "cuFFT in half precision",
       r"cuFFT only supports dimensions whose sizes are powers of two when computing in half precision|"
       r"(cu|hip)FFT doesn'?t support .{0,60}(half|bfloat16)|Unsupported dtype (Half|BFloat16)|"
       r"MKL FFT doesn'?t support tensors of type:? (Half|BFloat16)|"
       r"\A(?=.*MKL FFT doesn'?t support tensors? of type)(?=.*(?<![A-Za-z0-9])(bfloat16|bf16|float16|fp16|half)"
       r"(?![A-Za-z0-9]))|"
       r"\"\w*(fft|stft)\w*\" not implemented for '(Half|BFloat16|ComplexHalf)\b'?|"
       # told in words: "requires powers of 2 to work on half-precision tensors", "fft with float16 is not supported"
       r"powers? of (2|two)\b[^\n]{0,100}\b(half|fp16|float16)\b|"
       r"\b(half|fp16|float16)\b[^\n]{0,100}powers? of (2|two)\b|"
       r"\b(fft|stft)\w*\b[^\n]{0,60}\b(half|fp16|float16)\b[^\n]{0,80}\b(not supported|unsupported)\b|"
       r"\b(bfloat16|bf16|half|fp16|float16)\b[^\n]{0,20}\bnot (being )?supported by (the )?(torch\.)?(cu)?fft\b",
       "An FFT / STFT ran in fp16 (autocast or a half model): cuFFT computes half precision only for "
       "power-of-two signal sizes (and on compute capability >= 5.3), the CPU's FFT (MKL, pocketfft) does not "
       "support half-precision or complex-half FFTs at all, nor does MPS, and bf16 FFTs do not exist.",
       "Compute the FFT in fp32: `torch.fft.rfft(x.float(), ...)` inside `torch.autocast('cuda', enabled=False)`, "
       "then cast the result back; or pad the signal to a power-of-two size.",
       context=r"fft|stft|spectral|\bComplex(64|128)?\b|\bcomplex(64|128)\b",
       unless=r"CUFFT_INTERNAL_ERROR|plan cache"),
    # torch's cuFFT plan cache keyed by shape only (before 1.1): a plan made on one GPU run on another
    _e("cufft-plan-other-gpu", "device", "a cuFFT plan made on one GPU used on another",
       r"\A(?=.*\bcuFFT error: CUFFT_\w+)(?=.*(\bplan cache\b|\bcontext[- ]aware\b|\b(second|another|other) GPU\b|"
       + OTHER_GPU + "))",
       "cuFFT plans belong to the GPU (CUDA context) they were made on; torch's plan cache in older releases was "
       "keyed by the transform's shape only, so a same-shaped FFT on another GPU reused a plan made for the first "
       "and cuFFT failed to execute it.",
       "Upgrade torch (the plan cache is per device since 1.1); on an old torch clear the cache before switching "
       "GPUs (`torch.backends.cuda.cufft_plan_cache.clear()`), or make the tensors' GPU current "
       "(`torch.cuda.set_device(x.device)`) and run each GPU's FFTs in their own process."),
    # oneDNN (mkldnn) on a CPU or torch build without a bf16 primitive for the op
    # oneDNN's inner product (linear) with input and weights of two dtypes: an IPEX bf16 model outside autocast
    _e("onednn-mixed-primitive", "mismatch", "oneDNN given input and weights of two dtypes",
       r"could not create a primitive descriptor for an? (inner product|matmul)\b",
       unless=r"\b(bf16|bfloat16|BFloat16)\b",
       cause="oneDNN (mkldnn, under torch on the CPU and IPEX) could not build the inner-product (linear) primitive "
       "because its input and weights are not the same dtype: a model optimized or cast to bfloat16 (IPEX "
       "`ipex.optimize(dtype=torch.bfloat16)`) called with fp32 inputs outside autocast, or the reverse.",
       fix="Give both one dtype: run the model under `torch.autocast('cpu', dtype=torch.bfloat16)` (`torch.cpu.amp."
       "autocast()`) with `torch.no_grad()`, or cast the inputs (or the model back) so they match."),
    # a bf16 convolution on the CPU that is wrong, not just imprecise: oneDNN's kernel on that CPU
    _e("onednn-bf16-wrong", "cpu-kernel", "a bf16 convolution on the CPU giving wrong values",
       r"\A(?=.*\b(incorrect|wrong|unexpected)\b[^\n]{0,30}\b(bf16|bfloat16)\b[^\n]{0,30}"
       r"\b(results?|outputs?|values?)\b)"
       r"(?=.*\bconv\w*)",
       unless=r"\b(cuda|gpu|mps)\b",
       cause="bf16 convolutions on the CPU run through oneDNN (mkldnn), and a result that is wrong rather than a "
       "few bf16 rounding steps off points at that kernel misbehaving on this CPU (a missing or emulated bf16 "
       "instruction path).",
       fix="Check with oneDNN off (`torch.backends.mkldnn.enabled = False`) or in float32; report it with the CPU "
       "model and torch version, and meanwhile run that conv in float32 or with mkldnn disabled."),
    # oneDNN's RNN primitive: the cell-state dtype an engine expects differs from the one given
    _e("onednn-rnn-cell-state", "mismatch", "an RNN cell state in another dtype than the engine expects",
       r"\A(?=.*\bcell state\b)(?=.*\b(f16|fp16|float16|half)\b)(?=.*\b(f32|fp32|float32)\b)"
       r"(?=.*\b(nan|nans|wrong|incorrect)\b)",
       unless=EXCEPTION_NAMED,
       cause="The RNN primitive reads its LSTM cell state in the dtype the engine expects: oneDNN keeps the cell "
       "state f32 on the CPU, but its GPU engines' f16 LSTM expects an f16 cell state, so an f32 cell-state buffer "
       "beside f16 data is misread and gives NaN.",
       fix="Give the cell state the dtype the engine's configuration expects (f16 with f16 data on GPU engines, f32 "
       "on the CPU), as the primitive descriptor reports (`query_md`), or run the RNN in f32."),
    _e("cusparse-half-type", "device-capability", "a cuSPARSE routine given a half-precision type it does not support",
       r"On entry to cusparse\w+\(\).{0,300}\b(CUDA_R_16F|CUDA_C_16F|CUDA_R_16BF)\b.{0,200}"
       r"(not supported|illegal value)",
       "This cuSPARSE routine does not support that 16-bit type: some routines (ConstrainedGeMM) take no CUDA_R_16F "
       "at all, and bf16 (CUDA_R_16BF) sparse matmuls need compute capability 8.0 (Ampere) or newer.",
       "Use float32 data for that routine, or a GPU of compute capability 8.0+ for bf16; fp16 where the routine "
       "lists it."),
    _e("onednn-bf16-primitive", "cpu-kernel", "oneDNN has no bf16 primitive for this op on this CPU",
       r"\A(?=.*could not create a primitive descriptor)(?=.*\b(bf16|bfloat16|BFloat16)\b)",
       "CPU ops in bf16 (LSTM and other RNNs, some convolutions) go through oneDNN (mkldnn), which in that torch "
       "release or on that CPU (without AVX512-BF16 / AMX) has no bf16 primitive for the op, so it cannot build "
       "one; the same model runs on the GPU.",
       "Keep that module in float32 on the CPU (`lstm.float()` and `x.float()`, casting back after), run it on the "
       "GPU, or upgrade torch (later oneDNN releases add bf16 RNN primitives)."),
    _e("tf32-hint", "device-capability", "fp32 matmuls are not using TF32 tensor cores",
       r"has Tensor Cores\. To properly utilize them, you should set .?torch\.set_float32_matmul_precision|"
       r"TensorFloat32 tensor cores for float32 matrix multiplication available but not enabled|"
       r"Tensor cores are available but not enabled\. Consider setting torch\.backends\.cuda\.matmul\.allow_tf32|"
       r"You should set .?torch\.set_float32_matmul_precision\(\s*'medium' \| 'high'\s*\)",
       "This GPU (Ampere or newer) can run fp32 matmuls on TF32 tensor cores, but `float32_matmul_precision` "
       "is 'highest', so they run in full fp32: a speed hint, not an error.",
       "Allow TF32 if ~10-bit mantissa matmuls are fine for you: `torch.set_float32_matmul_precision('high')` "
       "(or train in bf16 mixed precision); keep 'highest' where exact fp32 matters.",
       unless=r"out of memory|OutOfMemoryError"),
    _e("tf32-pre-ampere", "device-capability", "TF32 needs an Ampere or newer GPU",
       r"\btf32\b.{0,120}(Ampere|requires|not supported|no effect|unsupported|only)|"
       r"TensorFloat-?32.{0,120}(Ampere|not supported|no effect|unsupported|requires)|"
       r"allow_tf32.{0,120}(no effect|not supported|Ampere|ignored)",
       "TF32 is a tensor-core mode of Ampere and newer GPUs (compute capability >= 8.0); on older GPUs the TF32 "
       "flags have no effect, and HF `--tf32` refuses to start.",
       "Drop `--tf32` / `tf32=True` (or set it False) on this GPU; fp32 math is unaffected; for speed use fp16 "
       "mixed precision (`fp16=True`) there.",
       # TF32 used on an Ampere GPU is the other story (results that differ)
       unless=CUDA_INIT_FAILED + r"|\b(defaults? to|uses?|using|used|runs? in)\b[^\n]{0,30}\b(tf32|"
       r"tensorfloat-?32)\b[^\n]{0,20}\bon (Ampere|A100|RTX ?30)"),
    # AMD's libraries: what each datatype runs through
    _e("hipblaslt-compute-type", "backend", "hipBLASLt has no algorithm for this compute type",
       r"No algorithm was found for the case:[^\n]{0,120}compute_type=\w+",
       cause="hipBLASLt implements GEMMs only for the datatype and compute-type combinations in its support table; "
       "FP16 (or BF16) as the compute type (accumulating in half precision) is not supported, so no algorithm "
       "matches.",
       fix="Accumulate in FP32: compute type FP32 (`HIPBLAS_COMPUTE_32F`) with FP16 / BF16 inputs and outputs, or "
       "upgrade to a hipBLASLt that falls back from FP16 to FP32 compute."),
    _e("rocblas-fp8-removed", "backend", "rocBLAS no longer does fp8 GEMMs",
       r"rocBLAS[^\n]{0,60}\bno longer supports FP8\b",
       cause="ROCm 7 removed rocBLAS's FP8 GEMMs; fp8 (float8) matrix multiplies go through hipBLASLt now, so a "
       "tool or test still calling rocBLAS for fp8 fails.",
       fix="Run fp8 GEMMs through hipBLASLt (the tool's hipBLASLt option or config), or stay on a ROCm release "
       "before 7 for rocBLAS fp8."),
    _e("miopen-fp16-rounding", "backend", "MIOpen's fp16 convolution rounds more than a reference",
       r"\A(?=.*\bMIOpen\b)(?=.*\b(fp16|float16|half)\b)(?=.*\b(toleran\w*|rounding|mismatch\w*|accuracy)\b)",
       unless=EXCEPTION_NAMED + r"|out of memory",
       cause="MIOpen picks a convolution solver per shape, and for some fp16 convolutions (3x3 depthwise) a "
       "Winograd solver whose fp16 rounding error is several times that of a correctly rounded result, so outputs "
       "differ from cuDNN's or a native kernel's by more than an fp16-sized tolerance.",
       fix="Disable the Winograd solvers for that run (`MIOPEN_DEBUG_CONV_WINOGRAD=0`) or let MIOpen choose by "
       "accuracy (`MIOPEN_FIND_MODE=NORMAL`); compare fp16 results with a tolerance of a few fp16 steps; or compute "
       "that convolution in fp32."),
    _e("cusparselt-dtype", "backend", "cuSPARSELt's 2:4 sparse matmul refused these dtypes",
       r"operation not supported when calling `?cusparseLt\w*",
       cause="cuSPARSELt runs 2:4 semi-structured sparse matmuls only for some dtypes on each GPU and release: "
       "fp16, bf16 and int8 (and fp8 on Hopper), while fp32 inputs are not supported on every GPU and version "
       "(H100 with cuSPARSELt 0.6), so the descriptor init fails.",
       fix="Run the sparse matmul in fp16 or bf16 (`to_sparse_semi_structured(w.half())`, inputs cast to the same "
       "dtype), or int8; keep fp32 on the dense path (or the CUTLASS backend: "
       "`SparseSemiStructuredTensor._FORCE_CUTLASS = True`)."),
)

# attention and compiled kernels (xFormers, Triton) without a dtype
KERNELS = (
    _e("triton-math-half", "backend", "a Triton math function given a bf16/fp16 operand",
       r"\btl\.(exp2?|log2?|sqrt|rsqrt|sin|cos|sigmoid|erf|tanh)\b[^\n]{0,120}\b(bf16|bfloat16|fp16|float16)\b|"
       r"\b(bf16|bfloat16|fp16|float16)\b[^\n]{0,120}\btl\.(exp2?|log2?|sqrt|rsqrt|sin|cos|sigmoid|erf|tanh)\b|"
       r"Failed to translate TritonGPU to LLVM IR|cannot be converted to LLVM IR|"
       # Inductor's generated kernel calling a libdevice function that has no bf16 / fp16 signature
       r"\bKeyError:? ['\"]?triton\.language\.(bfloat16|float16)\b",
       context=r"(?<![A-Za-z0-9_])(bf16|bfloat16|fp16|float16)(?![A-Za-z0-9_])",
       cause="Triton lowers its math functions (`tl.exp`, `tl.log`, `tl.sqrt`, `tl.sigmoid`...) for fp32/fp64 "
       "only: a bf16/fp16 operand loaded straight from a half-precision tensor fails to compile (an LLVM "
       "translation error in older releases, a dtype error in newer ones).",
       fix="Upcast inside the kernel: `x = tl.load(ptr).to(tl.float32)`, apply the math there, and cast the result "
       "back with `.to(out_ptr.dtype.element_ty)` when storing."),
    _e("ptx-bf16-needs-sm80", "device-capability", "a compiled kernel's bf16 instructions need an Ampere GPU",
       r"Feature '[^'\n]{0,40}\bbf16\b[^'\n]{0,40}' requires \.target sm_[89]\d\b",
       cause="A kernel compiled on this machine (Triton's, or an extension's PTX) uses bf16 instructions that exist "
       "only from compute capability 8.0 (Ampere) on, and this GPU is older (Turing RTX 20xx and T4, Volta V100, "
       "Pascal), so ptxas cannot build it: the model or the kernel runs in bf16 on a GPU without bf16.",
       fix="Run it in fp16 on this GPU (`torch_dtype=torch.float16`, the tool's dtype option), or in fp32 where a "
       "model trained in bf16 overflows fp16 (black images, NaN); or use an Ampere or newer GPU. A newer Triton "
       "emulates some bf16 conversions on older GPUs, so upgrading helps only for those."),
    _e("triton-bf16-codegen", "backend", "Triton's code for a bf16 conversion rejected by ptxas",
       r"Arguments mismatch for instruction '?cvt|Internal Triton PTX codegen error",
       context=r"(?<![A-Za-z0-9_])(bf16|bfloat16)(?![A-Za-z0-9_])",
       cause="Triton's code generator emitted a bf16 conversion (a `cvt` to or from bf16) that ptxas rejects: a "
       "compiler bug of that Triton release for bf16 on this GPU or PTX version, not a fault in the kernel's "
       "dtypes.",
       fix="Upgrade Triton (or the torch release that pins it); until then convert through fp32 differently or run "
       "that kernel in fp16 / fp32; on GPUs before Ampere Triton takes a software fallback for bf16 conversions."),
    # oneDNN's bf16 "fpmath" mode computes float32 matmuls with bf16 inputs on CPUs that have bf16 instructions
    _e("onednn-bf16-fpmath", "backend", "float32 matmuls on the CPU computed with bf16 inputs (oneDNN fpmath)",
       r"\bbf16 (downconversion|fpmath)\b|\bfpmath[_ ]mode\b[^\n]{0,60}\bbf16\b|\bbf16\b[^\n]{0,60}\bmkldnn_matmul\b|"
       r"\bmkldnn_matmul\b[^\n]{0,60}\bbf16\b",
       "On CPUs with bf16 instructions (AArch64 Neoverse, Intel AMX) oneDNN can compute float32 matmuls with bf16 "
       "inputs (its bf16 fpmath mode, 'bf32'), which PyTorch turns on with "
       "`torch.set_float32_matmul_precision('medium')`; some releases turned it on even at 'highest', so float32 "
       "results carry bf16 rounding.",
       "Keep `torch.set_float32_matmul_precision('highest')` and upgrade torch (the fix enables the bf16 path only "
       "for 'medium'); `ONEDNN_DEFAULT_FPMATH_MODE=STRICT` forces full float32 in oneDNN."),
    _e("tf32-matmul", "backend", "float32 matmuls run in TF32 on the GPU",
       r"Float32 matmul precision must be|get_float32_matmul_precision\(\)|"
       r"\b(float32|fp32)\b[^.\n]{0,40}\b(matmul|matrix|dot|mm)\w*[^.\n]{0,40}\b(different|lower|less|reduced)\s+"
       r"(precision|accuracy)|"
       r"\A(?=.*set_float32_matmul_precision\(\s*['\"](high|medium)['\"]\s*\))(?=.*(\bnot close\b|Mismatched elements|"
       r"\bdeviat\w*|\bdiffer\w*|\bmismatch\w*))|"
       # float32 matmul error larger than float32's own, on an Ampere-or-newer GPU or beyond a tolerance
       r"\A(?=.*\b(float32|fp32)\b)(?=.*\b(matmul\w*|matrix[- ](\w+[- ])?multiplication|gemm)\b)"
       r"(?=.*\b(toleran\w*|relative error|lower precision than expected|(higher|larger) than expected)\b)"
       r"(?=.*\b(RTX ?)?(30[5-9]0|40[6-9]0|A100|A10G?|A6000|H100|H200|L4|L40S?|Ampere|Ada|Hopper)\b|"
       r".*(float16|fp16)[^.\n]{0,30}\b(works|fine|correct)\b)|"
       # fp32 results on an Ampere-or-newer GPU that differ from older GPUs and the CPU, no half precision in sight
       r"\A(?=.*\b(RTX ?)?(30[5-9]0|30xx|40[6-9]0|A100|A10G?|A6000|A40|H100|H200|L4|L40S?)\b)"
       r"(?=.*(\b(results?|outputs?)\b[^.\n]{0,60}\b(totally |completely |very )?"
       r"(different|differ\w*|wrong|inaccurate)\b|\b(rounded|wrong|incorrect)\b[^.\n]{0,20}\b(results?|outputs?)\b|"
       r"\b(can'?t|cannot|not) get (the )?correct results\b))"
       r"(?!.*\b(bf16|bfloat16|half\(\)|amp|autocast|torch_dtype|int8|4-?bit|8-?bit)\b)|"
       # TF32 named as the cause of a difference, a loosened tolerance or a flag to remove
       r"\btolerances? for (tf32|TF32)\b|\b(tf32|TF32)\b[^\n]{0,30}\btolerances?\b|\baccount(ing)? for (tf32|TF32)\b|"
       r"\A(?=.*\b(tf32|TF32)\b)(?=.*\b(diverg\w*|differ\w*|mismatch\w*|deviat\w*)\b[^\n]{0,30}\bon (the )?GPU\b)|"
       r"\b(due to|because of|caused by) (tf32|TF32|tensorfloat-?32|TensorFloat-?32)\b|"
       r"\b(defaults? to|uses?|using|used|runs? in)\b[^\n]{0,30}\b(tf32|tensorfloat-?32)\b[^\n]{0,20}\bon "
       r"(Ampere|A100|RTX ?30)|"
       r"\A(?=.*NVIDIA_TF32_OVERRIDE\s*=\s*0)(?=.*\b(differ\w*|disappear\w*|mismatch\w*|wrong|abnormal|fix\w*)\b)|"
       r"\ballow_tf32\b[^\n]{0,40}\b(screw|mess|break|ruin|hurt)\w*|"
       r"hard-?coded\b[^\n]{0,60}\ballow_tf32\s*=\s*True|"
       r"\btl\.dot\b[^\n]{0,80}\b(tf32|input_precision)\b|"
       r"\b(downgrad\w*|silently)\b[^\n]{0,40}\bfp32 matmul precision\b|"
       r"\buses TF32 while\b|\b(compiled|inductor)\b[^\n]{0,80}\bTF32\b[^\n]{0,60}\b(diverg|differ|eager)\w*|"
       r"\A(?=.*allow_tf32\s*=\s*True)(?=.*\b(differ\w*|deviat\w*|mismatch\w*)\b)|"
       # Apple's MLX: float32 matmuls on newer GPUs in a TF32-class mode
       r"\A(?=.*\bMLX\b)(?=.*\bfloat32 (matmul|gemm)\b[^\n]{0,20}\b(loses?|lost|reduced) precision\b)|"
       # the error only on Ampere-or-newer GPUs and only in float32
       r"\A(?=.*\b(RTX ?30[5-9]0|A100|A6000|H100)\b[^\n]{0,20}\bGPU)(?=.*\bfloat32\b[^\n]{0,10}\(no error)",
       unless=r"\b(?!Assertion)\w+(Error|Exception):(?![^\n]*matmul precision)",
       cause="On Ampere and newer GPUs float32 matmuls may run in TF32 (a 10-bit mantissa): "
       "`torch.set_float32_matmul_precision('high' / 'medium')`, `allow_tf32=True` (the default for cuDNN "
       "convolutions, and for matmuls in torch 1.7-1.11) gives results that differ from the CPU's float32 by about "
       "1e-3 relative, and code that needs full float32 accuracy refuses it; TensorRT, ONNX Runtime, JAX / XLA, "
       "TensorFlow, Triton's `tl.dot` and Apple's MLX pick TF32 (or a TF32-class reduced precision) for float32 by "
       "default on such hardware, and a test tolerance made for float32 fails.",
       fix="Set `torch.set_float32_matmul_precision('highest')` (or `torch.backends.cuda.matmul.allow_tf32 = False` "
       "and `torch.backends.cudnn.allow_tf32 = False`, `fp32_precision = 'ieee'` in torch 2.9+) where accuracy "
       "matters, and do not set allow_tf32 on import in a library; keep 'high' elsewhere for speed. Elsewhere: "
       "`NVIDIA_TF32_OVERRIDE=0` turns TF32 off for every CUDA library, JAX takes `precision='highest'` "
       "(`jax_default_matmul_precision`), TensorFlow `tf.config.experimental.enable_tensor_float_32_execution(False)`"
       ", Triton `tl.dot(a, b, input_precision='ieee')`, MLX `MLX_ENABLE_TF32=0`; or loosen a test's tolerance for "
       "TF32."),
    _e("flash-attn-ln-types", "mismatch", "flash-attn's fused LayerNorm got a dtype combination it has no kernel for",
       r"Unsupported hidden_size or types:? ?\d*(BFloat16|Half|Float)",
       "flash-attn's fused dropout-add-LayerNorm (`dropout_add_layer_norm`, used by its fused GPT / BERT blocks) "
       "has kernels only for some hidden sizes and some combinations of weight, input, residual, output and "
       "compute types, spelled in the message (`5120BFloat16FloatFloatFloatFloat`: hidden 5120, bf16 weights with "
       "fp32 input, residual and output); a model loaded in bf16 whose activations stay fp32 gives such a "
       "combination.",
       "Give the input and residual the weight's dtype (`x.to(torch.bfloat16)`, or run under `torch.autocast` with "
       "that dtype), or keep the weights fp32 and cast only the input; a hidden size outside the built list needs "
       "the unfused `nn.LayerNorm` (turn off `fused_dropout_add_ln`)."),
    _e("apex-fused-layernorm", "mismatch", "apex's FusedLayerNorm under fp16",
       r"\bFusedLayerNorm\b", context=r"(?<![A-Za-z0-9_])(fp16|half|float16|Half|type|dtype|amp)(?![A-Za-z0-9_])",
       cause="apex's FusedLayerNorm (used by BERT-era code whenever apex is installed) takes its input and weight "
       "in one dtype, and under apex fp16 it gets fp16 activations with fp32 weights (or the reverse).",
       fix="Use `torch.nn.LayerNorm`, which handles mixed precision under autocast, or upgrade apex; or give the "
       "norm's input its weight's dtype."),
    _e("ext-built-without-half", "backend", "a CUDA extension built without half precision",
       r"(not|n't) (been )?(compiled|built) with (half|fp16|half[- ]precision)( precision)? support|"
       r"(compiled|built) without (half|fp16|half[- ]precision)( precision)? support",
       "The CUDA extension (tiny-cuda-nn and similar fused kernels) was built without its half-precision "
       "kernels, because the GPU it was built for has no usable fp16 path for them (tiny-cuda-nn needs compute "
       "capability >= 7.0: Pascal cards such as the GTX 10xx / TITAN Xp and older lack it).",
       "Run that part in fp32 (the project's single-precision / `--fp32` option, or fp32 inputs and parameters "
       "for the extension); on a GPU that has fp16 tensor cores rebuild the extension for its architecture "
       "(e.g. `TCNN_CUDA_ARCHITECTURES=86`)."),
    _e("grouped-mm-autocast", "autocast", "a MoE grouped GEMM got activations and expert weights of two dtypes",
       r"(dtype|type)s?\s+mismatch\w*[^\n]{0,80}\bgrouped[ _-]?(gemm|mm)\b|\bgrouped[ _-]?(gemm|mm)\b[^\n]{0,80}"
       r"\b(dtype|type)s?\b|\b_grouped_mm\b",
       "`torch._grouped_mm`, the grouped GEMM that runs a MoE layer's experts (transformers 5's MoE models, "
       "torchtitan), is not on autocast's cast lists: under `torch.autocast` fp32 activations (a norm's or the "
       "router's fp32 output) reach the bf16 expert weights unconverted, and it requires one dtype.",
       "Load the model in the dtype it computes in (`dtype=torch.bfloat16`) and drop the `torch.autocast` wrapper, "
       "or cast the hidden states to the experts' weight dtype before the grouped GEMM (`x.to(w.dtype)`); a "
       "transformers release that casts there fixes it for its models.",
       context=r"dtype|BFloat16|bfloat16|\bFloat\b|float32|\bbf16\b|Half|float16|autocast",
       unless=r"out of memory|shapes? |size mismatch|must be a multiple|alignment|stride"),
    _e("triton-dot-dtype", "backend", "a Triton kernel's dot got operands of two dtypes",
       r"First input \((\w+)\) and second input \((\w+)\) must have the same dtype|"
       r"Both operands must be same (dtype|type)\.? Got \w+ and \w+|"
       r"tl\.dot[^\n]{0,80}\b(fp8\w*|bf16|fp16|fp32) and (fp8\w*|bf16|fp16|fp32)\b|"
       r"lhs and rhs must have the same dtype|Block element type\(\w+\) and value element type\(\w+\) mismatch",
       "A Triton kernel (a fused LoRA / attention / quantization kernel of unsloth, liger, bitsandbytes, vLLM or a "
       "`torch.compile` graph) calls `tl.dot` on tiles of two dtypes, because the tensors it was given differ, such "
       "as fp32 adapter weights or activations with a bf16/fp16 base, or a kernel that hard-codes fp16 for some "
       "tiles while given fp32 inputs; Triton's dot never promotes, so the dtype mismatch fails.",
       "Give the kernel's inputs one dtype before the call (load the model and adapters in one `torch_dtype`, or "
       "`x.to(w.dtype)`); in your own kernel cast a tile before the dot (`tl.dot(a.to(b.dtype), b)`; arithmetic "
       "with a Python float promotes a tile to fp32), and keep the dot's fp32 accumulator, casting the result when "
       "storing (`acc.to(tl.bfloat16)`); or turn the fused kernel off for that dtype."),
    _e("xformers-dtype-device", "attention", "xFormers has no attention kernel for these dtypes / devices",
       r"No operator found for .?memory_efficient_attention\w*",
       "xFormers found no memory-efficient attention kernel for these inputs, and the reasons it lists include "
       "the dtype or the device: its fast kernels take only fp16/bf16 (float32 or float64 inputs are refused by "
       "most) and only CUDA tensors (device=cpu / mps are refused).",
       "Run attention in fp16/bf16 on the GPU (load the model or pipeline with `torch_dtype=torch.float16` and "
       "move it to 'cuda'), or turn xFormers off (`disable_xformers_memory_efficient_attention()`, use "
       "`attn_implementation='sdpa'`); if the reasons also say xFormers was built without CUDA, reinstall the "
       "xformers build that matches your torch.",
       context=r"dtype=torch\.(float32|float64)|device=(cpu|mps)\b",
       unless=r"wasn'?t buil[dt] with CUDA support|was not buil[dt] with CUDA support"),
    _e("cutlass-no-kernel", "attention", "no memory-efficient attention kernel for this dtype on this GPU",
       r"cutlassF: no kernel found to launch|cutlassB: no kernel found to launch",
       "The memory-efficient (CUTLASS) attention of xFormers or PyTorch's SDPA has no kernel for this dtype on "
       "this GPU: most often bf16 on a GPU older than Ampere (compute capability below 8.0: Turing RTX 20xx and T4, "
       "Volta V100, GTX 10xx), sometimes fp32 with a head size those kernels do not cover.",
       "On a GPU older than Ampere load the model in fp16 (`torch_dtype=torch.float16`) instead of bf16 (in fp32 "
       "where the model overflows fp16: black images, NaN), or "
       "choose another attention backend (`attn_implementation='eager'`, `sdpa_kernel(SDPBackend.MATH)`, "
       "`disable_xformers_memory_efficient_attention()`)."),
    _e("triton-atomic-bf16", "backend", "a Triton atomic without bf16",
       r"\batomic_\w+ (does not|doesn'?t) support (bf16|bfloat16)|\batomic_\w+ not supported for dtype (bf16|bfloat16)",
       "A Triton kernel accumulates with `tl.atomic_add` / `atomic_max` (typically a backward that sums gradients "
       "of a bias or of overlapping blocks), and Triton's atomics have no bf16 on this GPU or release.",
       "Run that kernel in fp32 (the safe choice; fp16 may overflow), or turn the Triton path off "
       "(`use_triton=False`, another attention implementation); upgrade triton, whose newer releases add bf16 "
       "atomics on recent GPUs."),
    _e("triton-fp8-convert", "backend", "a Triton fp8 conversion from a dtype it does not convert",
       r"\.to\(tl\.float8e4b15\)|convert_custom_float8|Unsupported conversion from '?(f8E\w+'? to|\w+'? to '?f8E)",
       "On GPUs before Ada (compute capability < 8.9, such as the A100) Triton converts to fp8 in software "
       "(`float8e4b15`), which takes only fp16 or fp32 sources: a bf16 tensor fails its assertion (and "
       "`float8e4nv` needs sm_89).",
       "Cast the bf16 values to fp16 or fp32 before the fp8 conversion (`x.to(tl.float32).to(tl.float8e4b15)`), or "
       "keep the cache / weights in bf16 on this GPU; upgrade the library if it has a fix for pre-Ada GPUs.",
       context=r"AssertionError|CompilationError|assert"),
    _e("triton-volta-mma", "backend", "Triton's compiler failing on a half-precision dot on a Volta GPU",
       r"Unexpected mma -> mma layout conversion",
       cause="Triton's compiler for Volta GPUs (V100, sm_70, its first-generation MMA) fails on the fp16 / "
       "mixed-precision dot products of some kernels (Mamba's selective scan and convolution, fused attention and "
       "linear-attention kernels): later Triton releases no longer build that Volta path well, so a kernel that "
       "compiles on Ampere asserts here, in the forward or the backward.",
       fix="On a V100 run that model in fp32 (no fp16 / autocast for it), or use the library's PyTorch reference "
       "path instead of its Triton kernels, or an Ampere or newer GPU; a Triton release the library pins for sm_70 "
       "may also compile it."),
    _e("triton-mma-old-gpu", "backend", "a Triton matmul kernel on a GPU without tensor cores",
       r"supportMMA|Unexpected MMA layout version",
       cause="Triton lowers fp16 / int8 matmuls (`tl.dot`, as in Triton GPTQ int4/int8 kernels) to tensor-core MMA "
       "instructions, which need compute capability 7.0 or newer (Volta); on a Pascal or older GPU (P40, P100, GTX "
       "10xx) Triton asserts here.",
       fix="Run on a GPU of compute capability 7.0 or newer, or use a non-Triton path there: the fp16 model, a CUDA "
       "kernel backend (exllama, bitsandbytes) or a newer Triton that falls back without MMA."),
    _e("bf16-atomic-add", "backend", "an atomic add on bf16 that this GPU has no instruction for",
       r"\A(?=.*((?<![A-Za-z])(v\d+)?bf16\b|\bbfloat16\b))(?=.*(ATOMIC_\w*ADD|atomic_?add|atomicAdd))"
       r"(?=.*(Cannot select|not supported|unsupported|no (such )?instruction))",
       "The GPU has no atomic add instruction for bfloat16 (AMD CDNA3 / gfx942 has packed fp16 and fp32 atomic adds "
       "only, older NVIDIA GPUs none for bf16), so a `tl.atomic_add`, `index_add_` or scatter-add on a bf16 tensor "
       "cannot be lowered: bf16 is not supported there.",
       "Accumulate into a float32 buffer and cast to bf16 afterwards (or use fp16 where its range suffices), or "
       "upgrade Triton / the library to a release that lowers bf16 atomics through a compare-and-swap loop."),
    _e("mfma-no-match", "backend", "an AMD matrix-core (MFMA) instruction missing for these input dtypes",
       r"No match found in MFMA database",
       "AMD Instinct matrix cores (MFMA) have instructions for some input dtype combinations only, and this `tl.dot` "
       "or GEMM asked for another: on MI300 (gfx942) the native fp8 types are the FNUZ variants (float8_e4m3fnuz / "
       "e5m2fnuz, Triton's fp8e4b8 / fp8e5b16), so the OCP float8_e4m3fn used on NVIDIA is not supported there (OCP "
       "fp8 arrived with MI350).",
       "Use the FNUZ fp8 dtypes on MI300 (`torch.float8_e4m3fnuz`), or cast the operands to fp16 / bf16 for that "
       "dot; check that both operands share a dtype the architecture supports."),
    # nvcc on generated or extension code that uses bf16 / half without its header (or its arch)
    _e("cuda-half-type-undefined", "backend", "CUDA code that uses bf16 / half without their header or arch",
       # (an unqualified `Half` from an older dispatch macro is a namespace problem, not this)
       r"error: identifier \"?(bfloat16|__nv_bfloat16|__nv_bfloat162|__half|__half2)\"? is undefined|"
       r"error: \"?(bfloat16|__nv_bfloat16)\"? is not a type name",
       "The generated or extension CUDA source uses the bf16 (or half) type without including its header "
       "(`cuda_bf16.h` / `cuda_fp16.h`), or compiles it for a CUDA version or GPU arch where that type is not "
       "supported (`__nv_bfloat16` needs CUDA 11 and sm_80 for its arithmetic), so nvcc reports it undefined.",
       "Add the header to the code generator or extension (`#include <cuda_bf16.h>`), upgrade the library whose "
       "codegen lacks it, build for an arch that has the type (`TORCH_CUDA_ARCH_LIST=8.0`), or run that op in fp16 "
       "/ fp32."),
    _e("triton-kernel-dtype", "backend", "a Triton kernel uses a dtype this GPU lacks",
       r"type fp8\w+ not supported in this architecture|Unsupported conversion from '?(bf16|f16|fp8\w*)|"
       r"LLVM ERROR: Cannot select:[^\n]{0,80}\bbf16\b|"
       r"(fp8e4nv|fp8e5|bf16|bfloat16)\w*.{0,120}(not supported|unsupported)|\bUnsupported dtype (fp8e4nv|fp8e5)\b",
       "A Triton kernel (torch.compile / inductor or a fused kernel) uses a dtype the GPU architecture cannot "
       "run: bf16 needs compute capability >= 8.0 (Ampere), fp8 e4nv needs >= 8.9 (Ada/Hopper).",
       "Run in fp16 or fp32 on this GPU (`torch_dtype=torch.float16`), or skip the Triton path (no "
       "`torch.compile`, another attention / kernel backend); for fp8 e4m3 below 8.9 use e5m2 (an fp8 KV cache: "
       "`--kv-cache-dtype fp8_e5m2`) or disable the fp8 option.", context=r"triton|fp8e\w+|LLVM ERROR",
       # a conversion from a dtype to itself is the compiler's own bug
       unless=r"No operator found for|Unsupported conversion from '?(\w+)'? to '?\1\b"),
    _e("fp16-only-crash", "backend", "a CUDA crash that only fp16 brings",
       r"illegal memory access|CUBLAS_STATUS_EXECUTION_FAILED|misaligned address|unspecified launch failure|"
       r"Segmentation fault|core dumped",
       context=ONLY_HALF_FAILS,
       cause="The process crashes in fp16 and runs in fp32: an fp16 kernel (apex, a fused or custom CUDA extension, "
       "a library's own half GEMM) that fails on this GPU or build (GPUs before Volta, GTX 10xx / 9xx, have no "
       "fast fp16 and some kernels are not built for them), or an fp16 overflow whose inf/NaN logits become "
       "out-of-range token ids or indices that a later gather or embedding reads out of bounds.",
       fix="Run in fp32 (drop `--fp16`, `data_type = fp32`), or in bf16 on a GPU that has it; to see which op "
       "fails, run with `CUDA_LAUNCH_BLOCKING=1`, and `amplora doctor run script.py` names the first non-finite "
       "value if an overflow comes first; upgrade the library whose kernel crashes."),
    _e("alibi-slopes-fp32", "attention", "ALiBi slopes cast to half precision for a kernel that takes float32",
       r"ALiBi slopes must have dtype fp32|\balibi[_ ]slopes\b[^\n]{0,60}\b(cast|converted)\b[^\n]{0,30}"
       r"\b(float16|fp16|half|bf16|bfloat16)\b",
       "flash-attn takes `alibi_slopes` in float32 only, and casting the attention module to fp16 / bf16 "
       "(`model.half()`, `.to(torch.bfloat16)`) also cast the slopes, registered as a buffer, to half precision.",
       "Cast the slopes back before the call (`alibi_slopes.to(torch.float32)`), keep them as a float32 attribute "
       "outside the cast, or upgrade the library whose attention module does this in forward."),
    _e("rotary-cos-sin-dtype", "attention", "a fused rotary kernel got q/k and cos/sin in two dtypes",
       r"Input and cos/sin must have the same dtype",
       "flash-attn's fused rotary embedding (`apply_rotary_emb`) takes the query or key and the cos/sin tables in "
       "the same dtype, and here one side was cast (a dtype mismatch): modeling code that upcasts q/k to float32 "
       "for rotary while the cos/sin cache stays bf16/fp16 (or a cache built in float32 beside half q/k), as in "
       "Qwen2.5-VL and Qwen2.5-Omni's flash-attention path.",
       "Cast the tables to the tensor they rotate (`cos, sin = cos.to(q.dtype), sin.to(q.dtype)`, `.type_as(q)`), "
       "or upgrade transformers to the release that does; `attn_implementation='sdpa'` avoids the fused kernel."),
    _e("conv-state-dtype", "attention", "a Mamba / causal-conv1d cache in another dtype than the activations",
       r"Expected conv_states?_?\.scalar_type\(\) == input_type|\bconv_states?\b[^.\n]{0,60}\b(dtype|scalar type)\b"
       r"[^.\n]{0,40}\b(mismatch|differ\w*)\b",
       "causal-conv1d's update kernel takes the cached conv state in the activations' dtype, and the cache was "
       "allocated in another: in the parameters' float32 while bf16 autocast makes the activations bf16 (Mamba-2's "
       "`generate` under `torch.autocast`), or in bf16 by a serving engine run with `--dtype half` (SGLang's "
       "`SGLANG_MAMBA_CONV_DTYPE`).",
       "Allocate the conv state in the activations' dtype: cast the model itself to bf16 for generation instead of "
       "autocast (`model.to(torch.bfloat16)`), or make the engine's conv-state dtype follow the serving dtype "
       "(`--dtype bfloat16`, or set `SGLANG_MAMBA_CONV_DTYPE` to the same dtype); upgrade for the fixed cache "
       "allocation."),
    _e("half-products-fp32-accumulate", "overflow", "bf16/fp16 products rounded before an fp32 accumulation",
       r"\b(round\w*|multipl\w*)\b[^.\n]{0,40}\b(BF16|bf16|FP16|fp16)\b[^.\n]{0,40}\b(before|then)\b[^.\n]{0,30}"
       r"\b(FP32|fp32|float32)\b[^.\n]{0,20}\baccumulat\w*",
       "The kernel accumulates in fp32 but multiplies its bf16/fp16 operands first, so each product is rounded to "
       "the half dtype's 8 or 11 significant bits before it is added, and the fp32 accumulator only keeps the "
       "rounding error.",
       "Cast both operands to fp32 before the multiply (`x.to(tl.float32) * w.to(tl.float32)` in Triton, "
       "`tl.dot(..., out_dtype=tl.float32)` for matrix products), or upgrade the library that fixed its kernel."),
    _e("kernel-bf16-only-in-words", "backend", "a custom CUDA kernel written for bf16 only",
       r"\A(?=.*(不(采用|使用|用)\s*(BF16|bf16)\s*\S{0,6}(报错|出错)|\b(errors?|fails?|crash\w*) (unless|without|when not) "
       r"(using |in )?(bf16|bfloat16)\b|\bonly (works|runs|supports?) (in |with )?(bf16|bfloat16)\b))"
       r"(?=.*((?<![A-Za-z])(CUDA|cpp)(?![A-Za-z])|\.cu\b|\bkernels?\b))",
       "The model's custom CUDA kernel (an RWKV or other linear-attention kernel compiled from .cu/.cpp sources) is "
       "written for bf16 tensors only, so running the model in fp32 or fp16 fails inside the kernel.",
       "Run the model in bf16 (on a GPU that has it), or change the kernel's element type and rebuild it (its "
       "typedef or template type set to float for fp32), or use the project's pure-PyTorch path for that layer."),
)

# runtimes and accelerators other than a CUDA GPU, where "no fp16/bf16 here" is not the GPU-generation story
_OTHER_RUNTIME = (r"\b(XNNPACK|ExecuTorch|DirectML|torch_dml|TPU|torch_xla|XLA|Ascend|NPU|opset|ONNX|TensorRT|TRT|"
                  r"OpenVINO|Core ?ML|TFLite|Vulkan|aclnn\w*|CANN|DT_BF16|DT_FLOAT16|EZ\d{4})\b")

_FP16_GPU_CAUSE = ("fp16 mixed precision (AMP with a GradScaler), half-precision evaluation and fp16 export (ONNX, "
                   "TensorRT) need a CUDA (or similar) device, and this run is on the CPU or MPS.")
_FP16_GPU_FIX = ("Run on the GPU (check `torch.cuda.is_available()`; an exporter takes `--device cuda` / `device=0`), or "
                 "drop `--fp16`: on the CPU use bf16 (`bf16=True` / `torch.autocast('cpu', dtype=torch.bfloat16)`) or "
                 "fp32.")

_REFUSAL = r"\b(not found|not supported|unsupported|not available|cannot|can'?t|invalid|unknown|missing)\b"

_BF16_GPU_CAUSE = ("bf16 needs a GPU of compute capability >= 8.0 (Ampere or newer); older GPUs (Turing T4 and RTX 20xx, "
                   "Volta V100, Pascal P100 and GTX 10xx) do not support it natively: they lack bf16 kernels or only "
                   "emulate them slowly, and tools have no settings for them in bf16.")
_BF16_GPU_FIX = ("Use fp16 with loss scaling on this GPU (`precision='fp16-mixed'` / `16-mixed`, `fp16=True`, or `auto`, "
                 "which picks it), or fp32; run `amplora doctor` to see what the device really supports.")

# device capability and attention kernels
CAPABILITY = (
    _e("deepspeed-fp16-capability", "device-capability", "DeepSpeed refuses fp16 on a GPU older than Volta",
       r"(Type )?fp16 is not supported",
       context=r"deepspeed|\bswift\b|\bzero[-_ ]?\d\b|ds_config|_do_sanity_check",
       cause="DeepSpeed's CUDA accelerator reports fp16 support only for GPUs of compute capability 7.0 or newer "
       "(Volta on), so on a Pascal or older card (P100, P40, GTX 10xx), or when CUDA is not detected, a config with "
       "fp16 enabled fails its check.",
       fix="Disable fp16 in the DeepSpeed config (`\"fp16\": {\"enabled\": false}`, `--torch_dtype float32`) and "
       "train in fp32, use a GPU of compute capability 7.0 or newer (T4, V100 and later), or train without "
       "DeepSpeed."),
    _e("fp16-needs-gpu", "device-capability", "fp16 mixed precision needs a GPU",
       r"(fp16|bf16|Mixed precision training).{0,200}(requires a GPU|can only be used on CUDA|"
       r"requires a device in \[[^\]]*\] \(not .?cpu)|"
       r"\b(fp16|float16|half)( precision)?( on (the )?(CPU|MPS))? (is )?not supported( on (the )?(CPU|MPS))?|"
       r"loaded with .?(torch_)?dtype=torch\.float16.? cannot run with .?cpu.? device|"
       r"Cannot use fp16 without (an )?accelerator|Accelerator is not detected, cannot perform low precision|"
       r"\b(FP16|half|float16)\b[\w =-]{0,40}\b(only (supported|compatible|available) (on|with)|"
       r"(supported|available) only (on|when \w+ on)) (a |the )?GPU|\b(fp16|float16)\b is for GPU only\b|"
       r"\bamp \+ cpu is not supported\b|\basked for \w* ?AMP on CPU, but AMP is only available on GPU|"
       # told in words: "`--device cpu` doesn't work due to missing fp16-support in pytorch"
       r"\A(?=.*\b(missing|lack(ing)? of) (fp16|float16|half)[- ](precision[- ])?support\b(?! for\b))(?=.*\bcpu\b)",
       _FP16_GPU_CAUSE, _FP16_GPU_FIX,
       unless=r"\bFP8\b|float8|with MPS device requires a Pytorch|is not an Optimizer|" + _OTHER_RUNTIME),
    # accelerate's and transformers' own checks list the devices they accept, NPU and XLA among them
    _e("fp16-needs-gpu-listed", "device-capability", "fp16 mixed precision needs a GPU",
       r"fp16 mixed precision requires a device in \([^)]*\) \(not .?\w+.?\)|"
       r"\([`']?--fp16[`']?\) and FP16 half precision evaluation ?\([`']?--fp16_full_eval[`']?\) can only be used on CUDA|"
       r"half=True only compatible with GPU",
       _FP16_GPU_CAUSE, _FP16_GPU_FIX),
    _e("bf16-only-component", "mismatch", "a bf16-only component got tensors of another dtype",
       r"only bfloat ?16 (is |are )?supported|only supports? bfloat ?16|only bf16 (is |are )?supported",
       "A component that works only in bf16 got fp32 (or fp16) tensors: most often a bf16-only optimizer (a "
       "bf16 AdamW such as `adam_bfloat16` / AnyPrecisionAdamW with Kahan summation) given fp32 parameters or "
       "gradients, sometimes a bf16-only kernel; the message does not say which.",
       "Give it bf16: with a bf16-only optimizer keep the trained parameters and gradients bf16 (drop fp32 "
       "master / gradient precision settings such as `--gradient_precision=fp32`), or switch to an optimizer "
       "that takes fp32 parameters (`torch.optim.AdamW`); for a bf16-only kernel cast its inputs with "
       "`.to(torch.bfloat16)`."),
    _e("fp8-gpu-unsupported", "device-capability", "this GPU has no fp8",
       r"_scaled_mm is only supported on (CUDA )?devices with compute capability|"
       r"FP8 quantized models requires a GPU|"
       r"\b(fp8|float8\w*)\b[^\n]{0,120}(compute capability|Minimum capability|not supported for the current GPU|"
       r"requires (an? )?(Ada|Hopper|H100|sm_?89|sm_?90))|"
       r"(compute capability|\bsm_?\d)[^\n]{0,40}(or higher|or newer|>=)[^\n]{0,20}required for (MX)?FP8\b|"
       r"\bFloat8\b[^\n]{0,60}\bonly supported on CUDA ?>= ?8\.9|"
       r"\b(float8|fp8)\b[^\n]{0,60}\bonly supported on (SM|sm_?) ?(89|90|8\.9)\b|"
       r"\A(?=.*(_scaled_mm|float8|\bfp8))(?=.*cutlass cannot initialize)",
       "fp8 (float8 e4m3 / e5m2) matmuls need a GPU with fp8 tensor cores: compute capability >= 8.9 (Ada, such as "
       "the RTX 4090 / L4 / L40) or 9.0 (Hopper H100); an A100 (8.0) does not have them, so Ampere and older GPUs "
       "cannot run fp8 checkpoints or fp8 quantization natively.",
       "Load the bf16/fp16 weights instead of the fp8 checkpoint (or `dtype='bfloat16'` without "
       "`quantization='fp8'` in vLLM), or use a weight-only quantization this GPU runs (int8 / 4-bit: "
       "bitsandbytes, GPTQ, AWQ); keep fp8 for Ada/Hopper GPUs, and on Ada (8.9) upgrade torch if it asks for "
       "9.0 (early releases gated `torch._scaled_mm` to Hopper); in ComfyUI and its model loaders pick "
       "`fp8_e4m3fn` rather than `fp8_e4m3fn_fast` (the fast mode runs fp8 matmuls, the plain one only stores the "
       "weights in fp8)."),
    # vLLM's per-method check, transformers' quantizers that need CUDA
    _e("quant-method-capability", "device-capability", "a low-precision format this GPU (or a host without one) "
       "cannot run",
       # (a low-precision float format; AWQ's or Marlin's int4 kernels needing a newer GPU are an architecture limit)
       r"\bquantization method \W?(mx|nv)?fp[468]\w*\W? is not supported for the current GPU\b|"
       r"\bUsing \w+ quantized models? requires an? (CUDA )?GPU\b",
       "The checkpoint's low-precision float format (mxfp4 / nvfp4, fp8) has kernels for some GPUs only: vLLM "
       "checks each method's minimum compute capability (printed as major*10+minor: 80 Ampere, 89 Ada, 90 Hopper, "
       "100 Blackwell), and transformers' MXFP4 and FP8 quantizers refuse to load without a CUDA GPU, so an older "
       "GPU or a CPU host is not supported.",
       "Use a checkpoint in a format this device runs (the bf16/fp16 weights, or a GPTQ/AWQ int4 build on older "
       "GPUs), dequantize on load where the library offers it (`Mxfp4Config(dequantize=True)` in transformers), or "
       "a newer GPU or a release that adds kernels for this one."),
    # fp8 weights on a GPU without fp8 tensor cores: dequantized for every matmul, so slower than bf16
    _e("fp8-emulated-slow", "device-capability", "fp8 weights that make a GPU without fp8 slower",
       r"\A(?=.*(?<![A-Za-z0-9_])(fp8|float8\w*)(?![A-Za-z0-9_]))(?=.*\b(slow\w*|no (speed ?up|acceleration|faster)|"
       r"(fails?|failed) to (accelerate|speed)|not faster)\b)(?=.*\b((RTX )?(20[5-8]0|30[5-9]0)( Ti)?|A100|A10G?|A6000|"
       r"V100|T4|Ampere|Turing|Volta|sm_?(7\d|8[06]))\b)",
       unless=EXCEPTION_NAMED + r"|out of memory",
       cause="fp8 matmuls need fp8 tensor cores (compute capability >= 8.9: Ada or Hopper); on an Ampere or older "
       "GPU the fp8 weights only save memory and are dequantized to fp16/bf16 before every matmul, so the model "
       "runs slower than without fp8.",
       fix="On this GPU load the bf16/fp16 weights (or a weight-only int8 / 4-bit quantization whose kernels it "
       "has); keep fp8 for Ada (sm_89) and newer GPUs."),
    # meta-pytorch/torchtune: `verify_bf16_support` asks more than the GPU
    _e("torchtune-bf16-check", "device-capability", "torchtune's bf16 check failed",
       r"bf16 precision was requested but not available on this hardware",
       "torchtune's bf16 check (`verify_bf16_support`) needs `torch.cuda.is_bf16_supported()` and also NCCL "
       "(`torch.distributed.is_nccl_available()`, NCCL >= 2.10), and older releases also a CUDA version "
       "(`torch.version.cuda`, which is None on ROCm builds): on a GPU that has bf16 (Ampere or newer, RDNA3/CDNA) "
       "the NCCL or version part fails, on a T4/V100 or the CPU the GPU itself has no bf16.",
       "Check `torch.cuda.is_bf16_supported()`: if it is False, set `dtype: fp32` (or fp16 where the recipe allows "
       "it); if it is True, the NCCL or CUDA-version part failed (Windows, a torch without NCCL, ROCm with an older "
       "torchtune): upgrade torchtune, or install a torch build with NCCL."),
    _e("tf-opkernel-dtype", "cpu-kernel", "a TensorFlow op with no kernel for this dtype on this device",
       r"\A(?=.*No registered '\w+' OpKernel for '\w+' devices compatible with node)"
       r"(?=.*\bT=DT_(HALF|BFLOAT16|DOUBLE)\b)|"
       # XLA's JIT devices, the dtype told in words: "... OpKernel for XLA_GPU_JIT" under a float64 title
       r"\A(?=.*No registered '\w+' OpKernel for '?XLA_\w+)(?=.*\b(float64|double|float16|half|bfloat16)\b)",
       "TensorFlow (or its device plugin: DirectML, Metal) has no kernel of this op for the requested dtype on "
       "that device: only the dtypes listed under 'Registered' exist there, and a float16 (mixed_float16), "
       "bfloat16 or float64 (double) model asks for another.",
       "Run the model, or that layer, in a registered dtype: float32 (`tf.keras.mixed_precision."
       "set_global_policy('float32')`, or `dtype='float32'` on the layer), or place the op on a device that has "
       "the kernel; a newer plugin may add it."),
    _e("cpu-bf16-isa", "device-capability", "bf16 on a CPU without the instructions oneDNN / IPEX need for it",
       r"\b(BF16|bf16)( weight prepack| path) needs the cpu support|\bonednn_has_bf16_support\(\)|"
       r"is_mkldnn_bf16_supported\(\)|"
       r"\A(?=.*\b(BF16|bf16|bfloat16)\w*)(?=.*\bAVX2\b[^.\n]{0,20}\b(cpu|only)\b|.*\b(cpu|CPU)\b[^.\n]{0,20}"
       r"\bAVX2\b)(?=.*\b(abort\w*|fatal|crash\w*|illegal instruction|won'?t run|not run|refuse\w*)\b)",
       "bf16 on this CPU needs AVX512 (BW, VL and DQ) or AVX-NE-CONVERT, which oneDNN and IPEX use to pack weights "
       "and compute in bf16; CPUs without them (Xeon E5 v3/v4, Ryzen before Zen 4, most desktop chips) refuse the "
       "bf16 path, and CPU runtimes' repacked bf16 types (llama.cpp forks' BF16_R16) need native bf16 support "
       "(AVX512-BF16) as well.",
       "Run in float32 on this CPU (`dtype=torch.float`, no bf16 autocast or `--bf16`), or turn weight prepacking off "
       "(`ipex.optimize(..., weights_prepack=False)`, vLLM's `VLLM_CPU_MOE_PREPACK=0`); `lscpu | grep avx512` shows "
       "what the CPU has; in llama.cpp keep a type the CPU runs (plain BF16 or a quant such as Q8_0), not a repacked "
       "bf16 one."),
    _e("directml-cpu-input", "device", "a DirectML op got a tensor on the CPU",
       r"unbox expects Dml at::Tensor|tensor\.device\(\)\.type\(\) == at::DeviceType::PrivateUse1 INTERNAL ASSERT",
       "A DirectML op got a tensor that is still on the CPU: the input (or a tensor made inside the model without "
       "`device=`) was not moved to the DirectML device (`privateuseone`), or only the output was moved.",
       "Move the model and every input to the DirectML device before the call: `dml = torch_directml.device()`, "
       "`model.to(dml)`, `x = x.to(dml)`; create new tensors with `device=x.device`."),
    _e("gaudi2d-bf16-only", "device-capability", "an fp32 op on Gaudi2D, whose matrix engine runs bf16 only",
       r"\A(?=.*\bGaudi ?2D\b)(?=.*(synNodeCreateWithId failed|synStatus \d+|\b(bf16|BF16|bfloat16)\b))",
       "Gaudi2D's matrix engine computes GEMMs and convolutions in bf16 only: an op left in fp32 (a bias or buffer "
       "kept fp32, a pipeline run without bf16 autocast) has no kernel there, so the graph fails to compile "
       "(`synNodeCreateWithId failed ... synStatus 26`).",
       "Run under bf16 autocast (`torch.autocast('hpu', dtype=torch.bfloat16)`, optimum-habana's `--bf16` / "
       "`use_torch_autocast`), or cast the whole model and its buffers to bf16."),
    _e("onednn-half-backward", "device-capability", "oneDNN runs bf16/fp16 forward only on this CPU",
       r"DNNL does not support (bf16|f16|bf16/f16) backward",
       "On CPUs whose only bf16/fp16 instructions are AVX2-VNNI-2 or AVX-512-FP16 (Lunar Lake, Arrow Lake, Meteor "
       "Lake and other client CPUs) oneDNN computes bf16/fp16 convolutions and matmuls in the forward pass only, so "
       "training (the backward pass) under CPU autocast in bf16 or fp16 fails there.",
       "Train in fp32 on that CPU (no `torch.autocast('cpu', ...)` around the training step) and keep bf16 "
       "autocast for inference, or upgrade torch (later releases fall back from oneDNN there)."),
    _e("cpu-bf16-reference-matmul", "cpu-kernel", "bf16 matmul on a CPU without oneDNN's bf16 path is inaccurate",
       r"\A(?=.*\b(bf16|bfloat16)\b)(?=.*\b(matmul|mm|bmm|GEMM|addmm)\b)(?=.*\b(CPU|mkldnn|onednn)\b)"
       r"(?=.*\b(incorrect|wrong|inaccura\w*)\b)",
       "On CPUs without AVX512-BF16 / AMX (or a torch built without mkldnn) bf16 matmul runs a reference kernel "
       "that is slow and accumulates in low precision, so long inner dimensions come out wrong (a sum of 1024 ones "
       "is not 1024); oneDNN's bf16 GEMM, used where the CPU has those instructions, accumulates in fp32.",
       "Compute the matmul in fp32 on such a CPU (`(a.float() @ b.float()).to(torch.bfloat16)`, or keep the model "
       "fp32), use a CPU with AVX512-BF16 / AMX (`torch.backends.mkldnn.is_available()`), or upgrade torch.",
       unless=r"OpenVINO|openvino|out of memory"),
    _e("bf16-gpu-unsupported", "device-capability", "this GPU has no (native) bf16",
       r"_check_if_gpu_supports_dtype|You can use float16 instead by explicitly setting the ?.?dtype.? flag|"
       # torch builds whose cuBLAS path had no bf16 GEMM (CUDA < 11, GPUs before Ampere)
       r"at::cuda::blas::gemm\w*(<[^>\n]*>)?: not implemented for (struct |class )?(c10::)?BFloat16|"
       r"(?<![A-Za-z0-9])(bf16|bfloat16)[^\n]{0,80}(not supported|only supported|"
       r"requires\b[^\n]{0,40}\b(GPU|CUDA|Ampere|"
       r"compute|device|newer|sm_?\d+|PyTorch|torch|target|hardware)|is not available|doesn't support|"
       r"compute capa(bility|city)|Ampere|on a device that does not support|(but |is )?not available on this hardware)|"
       r"(does not|doesn'?t|do not) support "
       r"[`'\"]?(pure_)?(bfloat16|bf16)|"
       r"setup doesn'?t support bf16|"
       r"(不支持|不支援|非対応|サポートされていません|지원하지 않|지원되지 않)\s*(bf16|bfloat16)|"
       r"(bf16|bfloat16)\s*(を|는|은|를)?\s*(不支持|不支援|非対応|はサポートされていません|サポートされていない|지원하지 않|지원되지 않)",
       _BF16_GPU_CAUSE, _BF16_GPU_FIX, unless=r"\bCPU\b(?!.{0,160}\b(GPU|cuda|CUDA)\b)|" + _OTHER_RUNTIME +
       # a bf16 guess beside another error that says what failed
       r"|an illegal memory access|CUDA error: out of memory|" + CUDA_INIT_FAILED +
       # a NaN reported from the fp16 run such a GPU needs: the NaN is what failed
       r"|\A(?=.*(\b(nan|inf)\b[^\n]{0,30}\b(loss|latents?|outputs?|gradients?)\b|\b(loss|latents?|outputs?)\b[^\n]{0,40}"
       r"\b(nan|inf)\b))(?=.*\b(fp16|float16)\b)"),
    # a message that names the GPU next to bf16 says which device it is, whatever else the text mentions
    _e("bf16-gpu-named", "device-capability", "bf16 asked of a GPU without native bf16",
       _REFUSAL + r"[^\n]{0,60}\b" + NO_BF16_GPU + r"\b[^\n]{0,60}\b(bf16|bfloat16)|"
       r"\b" + NO_BF16_GPU + r"\b[^\n]{0,60}\b(bf16|bfloat16)[\w-]*[^\n]{0,30}" + _REFUSAL + "|"
       r"\b" + NO_BF16_GPU + r"\b[^\n]{0,30}" + _REFUSAL + r"[^\n]{0,30}\b(bf16|bfloat16)\b|"
       r"\b(bf16|bfloat16)[\w-]*[^\n]{0,60}\b" + NO_BF16_GPU + r"\b[^\n]{0,30}" + _REFUSAL,
       _BF16_GPU_CAUSE, _BF16_GPU_FIX),
    _e("flash-attn-dtype", "attention", "flash attention needs fp16/bf16 (and a recent GPU)",
       r"flash[ _-]?attention.{0,120}(dtype|fp16|bf16|float16|bfloat16)|"
       r"(fp16|bf16|float16|bfloat16|float32|fp32)\b.{0,40}\bfor (the )?flash[ _-]?(attention|attn)|"
       r"Expected query, key and value to all be of dtype: \{Half, BFloat16\}|"
       r"q_dtype == torch::kFloat16 \|\| .{0,40}q_dtype == torch::kBFloat16|\bq must have dtype fp16 or bf16|"
       r"\b(fp32|float32)\b[^.\n]{0,40}\bflash[ _-]?(attn|attention)\w*\s*"
       r"(不可用|无法使用|unavailable|not (available|usable))|"
       r"\b(autocast|cast|upcast)\w* to (fp32|float32)\b[^.\n]{0,80}\b(crash\w*|fails?|errors?)\b[^.\n]{0,40}"
       r"\bflash[ _-]?(attn|attention)\b|"
       r"\bflash[ _-]?(attn|attention)\w*[^.\n]{0,30}\b(not|doesn'?t|does not|cannot|can'?t)\b[^.\n]{0,10}"
       r"\bsupports?\b[^.\n]{0,20}\b(float32|fp32)\b",  # told in words
       "Flash attention kernels exist only for fp16/bf16 inputs, bf16 only on Ampere or newer GPUs; fp32 "
       "activations, an fp32 model, or bf16 on an older GPU (T4, V100) cannot use them (PyTorch's SDPA then falls "
       "back to a slower kernel with this warning). transformers checks the weights' dtype when it loads the model: "
       "with fp32 weights kept on purpose and a forward under autocast (AMP bf16/fp16) the warning is expected and "
       "harmless, since autocast hands the kernel half-precision activations.",
       "Load the model in bf16/fp16 (`torch_dtype=torch.bfloat16`, fp16 on GPUs older than Ampere) or run under "
       "`torch.autocast`, or fall back to `attn_implementation='sdpa'`/`'eager'`; a warning at load time under "
       "AMP can be ignored."),
    _e("fp8-kv-cache-backend", "attention", "an fp8 KV cache with an attention backend that cannot read it",
       r"\bfp8 kv ?cache is not compatible with\b|\b(fp8|float8)\w*[^\n]{0,30}\bkv[_ -]?cache\b[^\n]{0,60}\b(is not "
       r"compatible with|not supported (by|with|for) (the )?(flashinfer|flash|attention|backend))",
       "This attention backend (flashinfer, a flash-context or flash-attention kernel in that build) has no kernel "
       "that reads an fp8 KV cache (keys and values stored as 8-bit, dequantized on the fly), so the fp8 cache is "
       "not compatible with it, not supported in that combination.",
       "Run the fp8 KV cache with an attention backend that supports it (the library's default paged attention, a "
       "build without flashinfer), or keep the cache in the model dtype (`--kv-cache-dtype auto`, bf16 / fp16)."),
    _e("flash-attn-on-cpu", "device", "Flash Attention 2 on a model that is still on the CPU",
       r"Flash Attention 2(\.0)? with a model not initialized on GPU|Flash ?Attention ?2 is not available on CPU",
       "The model was loaded with `attn_implementation='flash_attention_2'` but is still on the CPU, where no flash "
       "attention kernel exists; it fails or falls back until the model is moved.",
       "Load it straight onto the GPU (`device_map='cuda'` or `device_map='auto'` in `from_pretrained`) or call "
       "`model.to('cuda')` before the first forward, in fp16/bf16 (`torch_dtype=torch.bfloat16`); to run on the CPU "
       "load it with `attn_implementation='sdpa'` (or `'eager'`) instead."),
    _e("flash-attn-upcast-input", "attention", "fp32 hidden states reached Flash Attention and were cast back",
       r"input hidden states seems to be silently casted in float32",
       "Flash Attention runs only in fp16/bf16, and the hidden states reaching it were fp32 because layer norms or "
       "embeddings were upcast to fp32 (`prepare_model_for_kbit_training` does this for k-bit training) or the model "
       "was loaded in fp32; transformers casts them back to the half dtype on every call.",
       "Usually harmless; to avoid the casts load the model with `torch_dtype=torch.bfloat16` (or fp16) and train "
       "under `bf16=True` autocast, or call `prepare_model_for_kbit_training(model, use_gradient_checkpointing=True)` "
       "and then cast the norms back (`module.to(torch.bfloat16)`) when using Flash Attention."),
    _e("half-only-kernel", "attention", "a kernel that takes only fp16/bf16 got float32",
       r"(must|should) be (in )?(the )?(dtype of )?(torch\.)?(float16|fp16|half) or (torch\.)?(bfloat16|bf16)\b|"
       r"\bonly supports? (inputs? (of|in) )?(torch\.)?(fp16|float16|half) (and|or) (torch\.)?(bf16|bfloat16)\b|"
       r"\A(?=.*\b(sage\w*|dtype check)\b)(?=.*local variable '\w+' referenced before assignment)"
       r"(?=.*\b(fp32|float32)\b)",
       "This kernel (SageAttention, a flash or fused attention kernel, a quantized kernel) runs only on fp16/bf16 "
       "inputs and got float32 tensors: a model loaded or kept in fp32, or activations upcast to fp32 before the "
       "call, as a LayerNorm whose weights are in fp32 does to bf16 input (a version that had no branch for fp32 "
       "fails with an unrelated-looking error instead).",
       "Cast its inputs to fp16/bf16 before the call and the output back (`o = kernel(q.to(torch.bfloat16), ...)"
       ".to(q.dtype)`), load the model in bf16/fp16, or use another attention backend (SDPA) for that model; "
       "newer releases of such kernels convert fp32 inputs themselves."),
    _e("sdpa-mask-dtype", "attention", "attention mask of another dtype than the query",
       r"Expected attn_mask dtype to be bool or|mismatched key_padding_mask and attn_mask|"
       r"invalid dtype for bias - should match query",
       "scaled_dot_product_attention takes a bool mask or a float mask (its 'bias') in the query's dtype; an "
       "additive mask built in fp32 (or two masks of different types) met fp16/bf16 queries, as under autocast, "
       "where the query comes out half while a mask made by hand stays fp32 (torch.compile has mishandled a "
       "nested autocast region this way); or the reverse, a bf16 mask with a float32 query, when a norm whose weight "
       "stayed float32 (Llama's RMSNorm in some transformers releases) upcast the hidden states before attention.",
       "Pass a bool mask, or build the additive mask in the query dtype: `mask.to(q.dtype)` filled with "
       "`torch.finfo(q.dtype).min` instead of -inf/-1e9; give `key_padding_mask` and `attn_mask` one type; when "
       "the mask or bias is built inside a library (a serving engine's ALiBi bias, a model's own mask), upgrade it: "
       "such casts are often fixed in a later release."),
    _e("sdpa-no-kernel", "attention", "no attention kernel accepts these inputs",
       r"No available kernel\. +Aborting execution",
       "scaled_dot_product_attention was restricted to backends (such as the Flash Attention kernel alone, through "
       "`sdpa_kernel(FLASH_ATTENTION)` or a model's own switch) that cannot run these inputs on this machine; the "
       "warnings printed just before say why: fp32 inputs where flash needs fp16/bf16, a GPU or build without the "
       "flash kernel (the CPU, GPUs older than Ampere, some Windows builds), or an unsupported mask / head size.",
       "Run attention in fp16/bf16 (load the model in bf16 or use `torch.autocast`), or allow the math / "
       "memory-efficient backends (`sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.MATH])`; in a repository "
       "that forces flash, its switch for old GPUs or the math kernel)."),
    _e("attention-dtype", "attention", "attention inputs of different dtypes",
       r"Expected query, key,? and value to have the same dtype|query and key must have the same dtype|"
       r"q, ?k, ?v must have the same dtype|\A(?=.*\bquery\.dtype\s*:)(?=.*\bkey\.dtype\s*:)|"
       r"\A(?=.*\b(dtypes?|data ?types?) mismatch)(?=.*\b(memory_efficient_attention|scaled_dot_product_attention|"
       r"flash_attn_\w+)\b)",
       "query, key and value of an attention kernel (scaled_dot_product_attention, xformers, flash-attn) came in "
       "different dtypes, a mismatch the kernel does not cast away (it needs all three in the same dtype): typically "
       "a KV cache or rotary embedding kept in fp32 while the projections run in bf16/fp16, or an option that upcasts "
       "part of attention to fp32 (a web UI's 'upcast cross attention layer to float32') so query and key are fp32 "
       "and value half.",
       "Cast the cache / rotary outputs to the query dtype (`k = k.to(q.dtype)`, `v = v.to(q.dtype)`), turn off the "
       "partial upcast, or run the whole forward under one autocast region."),
)

# image-generation UIs that check for NaN themselves (AUTOMATIC1111 / Forge / SD.Next: `NansException`)
DIFFUSION = (
    _e("diffusers-offload-component", "device", "a pipeline component left on the CPU by CPU offloading",
       r"not implemented for '(Half|BFloat16)'|Expected all tensors to be on the same device|"
       r"(on|at) (the )?(same|different) devices?",
       context=r"enable_(model|sequential)_cpu_offload|\bcpu_offload\b",
       cause="With `enable_model_cpu_offload` / `enable_sequential_cpu_offload` accelerate's hooks move each "
       "component (text encoder, UNet / transformer, VAE) to the GPU only when it runs, and one was left on the "
       "CPU: a component called outside the pipeline (a text encoder used by hand), a pipeline also moved with "
       "`.to('cuda')`, or a diffusers / accelerate release whose hooks miss it; on the CPU its fp16 weights then "
       "find no Half kernel (LayerNorm) or meet CUDA inputs.",
       fix="Do not mix offloading with `pipe.to('cuda')`; call components through the pipeline, or move a "
       "component you call yourself to `pipe._execution_device`; if it started after an upgrade, use the diffusers "
       "release before it or the next one; without offloading (`pipe.to('cuda')`) everything is on one device."),
    _e("sd-nans-vae", "overflow", "the fp16 VAE produced NaN",
       r"all NaNs was produced in VAE|NaNs? (was |were )?produced in (the )?VAE|no-half-vae|"
       r"NaN (detected|found) in latents",  # kohya's trainers, caching latents
       "The VAE overflowed fp16's range (65504) while running in half precision: decoding, the image is NaN "
       "(black); encoding images into latents for training, the latents are NaN; the SD-XL and some SD-1.x VAEs "
       "are known to exceed fp16.",
       "Run the VAE in fp32 (`--no-half-vae`, `--no_half_vae` in kohya's trainers; in diffusers "
       "`pipe.vae.to(torch.float32)` or `upcast_vae()`), use bf16 "
       "where the GPU has it, or the fp16-fixed VAE (`madebyollin/sdxl-vae-fp16-fix`).",
       unless=PRECISION_RULED_OUT),
    _e("sd-nans-unet", "overflow", "the fp16 UNet produced NaN",
       r"all NaNs was produced in Unet|NaNs? (was |were )?produced in (the )?Unet",
       "The UNet overflowed fp16's range (65504) in half precision, usually in cross-attention, or the GPU runs "
       "half precision badly (GTX 16xx), so the sampled image is NaN (black).",
       "Upcast attention to fp32 (\"Upcast cross attention layer to float32\" / `--upcast-sampling`), run the UNet "
       "in bf16 on GPUs that have it, or in fp32 (`--no-half`) on GPUs without reliable fp16.",
       unless=PRECISION_RULED_OUT),
    _e("vae-nan-image", "overflow", "a NaN (black) image from a half-precision VAE",
       r"invalid value encountered in cast.{0,300}(images?\b|uint8|\* ?255)|"
       r"(images?\b|uint8|\* ?255).{0,600}invalid value encountered in cast|"
       r"\A(?=.*(black (output |result )?(images?|pictures?|outputs?)\b|"
       r"\b(images?|outputs?|pictures?|results?) (is |are |was |were |turns? |turned |comes out |came out )?"
       r"(all |completely |totally |just |only )?black\b))(?=.*(" + HALF_EVIDENCE + r"|\bnan\b|upcast|no[-_]half|\bSD ?XL))",  # the SDXL VAE overflows fp16
       context=r"\bVAE\b|SD ?XL|stable[ _-]?diffusion|diffusers|ComfyUI|img2img|txt2img|\bunet\b|image_processor|"
               r"\bFlux\b|\bSD ?(1\.5|2\.1|3)\b",
       unless=r"NSFW|safety[ _]checker|out of memory|OutOfMemoryError|" + PRECISION_RULED_OUT,
       cause="The generated image is NaN, which turns black when cast to 8 bits (NumPy warns 'invalid value "
       "encountered in cast'): almost always the VAE (the decoder, or the encoder for img2img) running in fp16 "
       "overflows past 65504 (the SDXL VAE is known for it, and a Core ML VAE compiled in fp16 does the same), less "
       "often the UNet in fp16 on GPUs with poor half support (GTX 16xx).",
       fix="Run the VAE in fp32 (diffusers: `pipe.vae.to(torch.float32)`, `force_upcast` / `upcast_vae()`; the web "
       "UIs: `--no-half-vae`; ComfyUI: `--fp32-vae`; Core ML: convert the VAE encoder/decoder with fp32 compute "
       "precision), use the fp16-fixed SDXL VAE (`madebyollin/sdxl-vae-fp16-fix`), or bf16 on GPUs that have it; "
       "if the VAE is fp32 already, upcast the UNet's attention or run it in fp32."),
    # the same black image from a super-resolution or restoration network
    _e("upscaler-nan-image", "overflow", "a NaN (black) image from a half-precision upscaler",
       r"invalid value encountered in cast|"
       r"\A(?=.*(black (output |result )?(images?|pictures?|outputs?|squares?)\b|"
       r"\b(images?|outputs?|pictures?|results?|textures?) (is |are |was |were |turns? |turned |comes out |came out )?"
       r"(all |completely |totally |just |only )?black\b))(?=.*(" + HALF_EVIDENCE + r"|\bnan\b|no[-_]half))",
       context=r"upscal\w*|ESRGAN|SwinIR|\bDAT\b|\bHAT\b|super[- ]?resolution|hires[ _.]fix|chaiNNer|BasicSR|"
               r"\brestor(e|ation|er)\b|GFPGAN|CodeFormer",
       unless=r"NSFW|safety[ _]checker|out of memory|OutOfMemoryError",
       cause="The upscaled or restored image is NaN, which turns black when cast to 8 bits (NumPy warns 'invalid "
       "value encountered in cast'): the super-resolution or restoration network (ESRGAN-style, and more often the "
       "transformer upscalers DAT, HAT and SwinIR) ran in fp16 and its activations overflowed past 65504.",
       fix="Run the upscaler in fp32 (the web UI's `--no-half`, the tool's half-precision / fp16 option off, "
       "`model.float()`), or in bf16 on GPUs that have it; smaller tiles do not help an overflow."),
    # ComfyUI's log line: storage dtype, then the dtype it computes in
    _e("comfy-manual-cast-fp32", "device-capability", "ComfyUI computes in float32 on a GPU without bf16",
       r"\bmanual cast: (torch\.)?float32\b",
       cause="ComfyUI stores the weights in the dtype it logs first (fp8 is storage only) and computes in the "
       "'manual cast' dtype it picks for the GPU: where bf16 is not supported (V100 and other pre-Ampere GPUs, "
       "compute capability below 8.0) and fp16 is not considered safe for the model (Flux and other large DiTs), it "
       "falls back to float32, slow and memory-hungry.",
       fix="Start ComfyUI with `--force-fp16` to compute in fp16 on such a GPU (watch for NaN / black images with "
       "models that overflow fp16), or use a GPU with bf16; fp8 weights save memory either way."),
)
