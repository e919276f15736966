"""Graph compilers and fusers (TorchScript's NNC, nvFuser, torch_xla, TVM, IREE / MLIR, Triton's lowering): the dtypes
their code generators handle, and the precision their fused kernels compute in."""
from __future__ import annotations

from amplora.doctor.kb.entry import make as _e
from amplora.doctor.kb.patterns import LOW_DTYPE_WORD

# CUDA's own spelling too, which the word edges of LOW_DTYPE_WORD do not take
_LOW = "(?:" + LOW_DTYPE_WORD + r"|(?<![A-Za-z0-9_])__half(?![A-Za-z0-9_]))"

COMPILERS = (
    _e("nnc-fuser-dtype", "backend", "TorchScript's fuser (NNC) mishandled a half-precision fusion",
       r"MALFORMED INPUT: bad dtype in \w+",
       "TorchScript's TensorExpr fuser (NNC), which fuses pointwise ops of a traced or scripted module on the GPU, "
       "built a fused kernel whose operands disagree in dtype: a bug of its fp16 / bf16 handling in this torch "
       "release (BatchNorm followed by ReLU in a half-precision module is a known case).",
       "Upgrade torch; meanwhile turn the fuser off (`torch._C._jit_set_texpr_fuser_enabled(False)`, or "
       "`with torch.jit.fuser('fuser0'):`), or run the traced module in fp32 or under `torch.autocast` instead of "
       "`.half()`."),
    _e("nvfuser-half-scalar", "backend", "nvFuser given a half-precision scalar it cannot print into a kernel",
       r"Invalid data type:? __(half|nv_bfloat16)\b",
       "nvFuser writes each fusion's scalars into the CUDA kernel it generates, and this release does not support "
       "reduced-precision (Half / BFloat16) scalar constants or inputs: a `__half` scalar is an unhandled data "
       "type there.",
       "Pass the scalar as a Python float (or a float32 / float64 0-dim tensor) and let type promotion keep the "
       "tensor's dtype; upgrade torch / nvFuser, which added reduced-precision scalars; or disable nvFuser for "
       "that function (`torch._C._jit_set_nvfuser_enabled(False)`)."),
    _e("nvfuser-bf16-fallback", "device-capability", "nvFuser cannot generate bf16 code for this GPU and falls back",
       r"\A(?=.*FALLBACK path has been taken)(?=.*\b(bf16|bfloat16)\b)",
       "nvFuser generates bfloat16 code only for GPUs with bf16 arithmetic (Ampere, compute capability 8.0, and "
       "newer): on a V100 (sm_70), a T4 or older, code generation for a fusion with bf16 inputs fails and the "
       "scripted function runs the unfused fallback.",
       "Use fp16 on GPUs before Ampere (or fp32), or an A100 / RTX 30xx or newer for bf16; a newer torch refuses "
       "to fuse bf16 there instead of warning."),
    _e("xla-env-reported-float32", "mismatch", "torch_xla's XLA_USE_BF16 / XLA_USE_FP16 reporting fp32",
       r"\A(?=.*\bXLA_USE_(BF16|FP16)\b)(?=.*\b(float32|upcast\w*)\b)",
       unless=r"(?<![A-Za-z0-9_])(nans?|infs?)(?![A-Za-z0-9_])|out of memory",
       cause="With the environment variable XLA_USE_BF16 / XLA_USE_FP16 set, torch_xla maps float32 to bf16 / fp16 "
       "on the device and reports such tensors to torch as float32 (upcast to the host type), so a dtype read in "
       "Python says float32 where bf16 / fp16 was asked for, and dtype checks and casts go wrong.",
       fix="Unset XLA_USE_BF16 / XLA_USE_FP16 and say the dtype in code (`model.to(torch.bfloat16)`, "
       "`torch.autocast('xla', dtype=torch.bfloat16)`), which newer torch_xla releases expect; the environment "
       "variables are deprecated."),
    _e("tvm-input-size-dtype", "mismatch", "a TVM module given an input array of another dtype than it was built for",
       r"\A(?=.*TVMArrayCopyFromTo: The size must exactly match)(?=.*\b(float64|double|float16|int64|astype)\b)",
       "The compiled TVM graph fixed each input's dtype and shape at build time, and `set_input` copies the array "
       "byte for byte: an array of a wider dtype (float64 where the graph takes float32 has twice the bytes) fails "
       "the size check.",
       "Cast the input to the dtype the module was built with (`x.astype('float32')`, the dtype given to "
       "`relay.frontend.from_*` in its shape dict), or build the module for float64 input."),
    _e("mlir-element-type", "backend", "an MLIR / IREE code generator without this element type",
       r"\bMMAMatrixType elements must be [A-Z0-9, ]+|"
       r"\A(?=.*failed to legalize operation '[\w.]+')(?=.*" + _LOW + ")",
       "The compiler's code generation path does not support this element type: MLIR's GPU tensor-core (MMA) "
       "matrices take only the listed types (SI8, UI8, I32, F16, F32), and targets such as Metal / SPIR-V in IREE "
       "have no bf16 arithmetic, so a bf16 matmul or cast cannot be lowered there.",
       "Compile for f16 or f32 on that target (convert the model or the compiler's precision setting), or "
       "upgrade IREE / the compiler to a release that lowers bf16 on it."),
    _e("triton-bf16-lowering", "backend", "this Triton build cannot lower a bf16 conversion",
       r"LLVM Translation failed for operation:? builtin\.unrealized_conversion_cast",
       context=_LOW,
       cause="The Triton compiler in use (an older release, or the ROCm fork pinned by this torch) does not support "
       "lowering this bf16 conversion to LLVM for the GPU, so a kernel Inductor or a library generated for bf16 "
       "inputs (a `triton_mm` template) fails to compile.",
       fix="Upgrade Triton together with torch (or the ROCm Triton pin), or keep that op out of bf16: compute it in "
       "fp16 / fp32, or turn off the Triton matmul templates (`torch._inductor.config.max_autotune_gemm_backends = "
       "'ATEN'`)."),
    _e("triton-branch-dtype", "mismatch", "a Triton kernel whose two branches give one value two dtypes",
       r"Mismatched type for \w+ between then block \(<[^>]*>\) and else block \(<[^>]*>\)",
       "Triton needs a variable to have one type on both sides of an `if`: here one branch loads it from one tensor "
       "(a cache or state kept in bf16 / fp32) and the other from the input in another dtype (fp16 activations), "
       "so the kernel was called with tensors of two dtypes.",
       "Cast inside the kernel so both branches agree (`tl.load(state_ptr).to(x.dtype)`), or give the state the "
       "input's dtype before the call (`cache.to(x.dtype)`, a cache dtype option equal to the model's)."),
    _e("triton-dot-tf32", "backend", "Triton's `tl.dot` computing float32 in TF32",
       r"\A(?=.*\b(tl\.dot|triton)\b)(?=.*\b(tl\.float32|float32|fp32)\b)(?=.*\b(steady |small |constant )?"
       r"(errors?|differ\w*|mismatch\w*|discrepanc\w*)\b)(?=.*\b(einsum|torch\.matmul|torch\.bmm|matmul|cuBLAS)\b)",
       unless=r"\w+(Error|Exception):|out of memory",
       cause="`tl.dot` on float32 inputs computes in TF32 on the tensor cores by default (`allow_tf32=True`, "
       "`input_precision='tf32'`), a 10-bit mantissa, so a Triton matmul differs from torch's full-precision "
       "float32 result by about 1e-3 relative, however carefully the variables are kept tl.float32.",
       fix="Ask for full float32 in the kernel: `tl.dot(a, b, input_precision='ieee')` (older Triton: "
       "`allow_tf32=False`), or `'tf32x3'` for near-fp32 accuracy at tensor-core speed; or compare with a "
       "TF32-sized tolerance."),
    _e("dynamo-accuracy-tolerance", "overflow", "a low-precision run outside the accuracy checker's tolerance",
       r"\bRMSE \(res-fp64\):[^\n]{0,200}\bres\.dtype: torch\.(bfloat16|float16)\b",
       "The accuracy checker of torch's benchmarks compares the compiled run with an fp64 reference by RMSE, and a "
       "bf16 / fp16 run carries its rounding error (bf16 keeps 8 bits of mantissa): a tolerance as tight as 1e-3 "
       "fails on precision alone, without a wrong kernel.",
       "Compare against the eager run in the same dtype, and judge with a tolerance sized to that dtype (bf16 about "
       "1e-2, fp16 1e-3); a result far outside it, or NaN, is a real bug to report."),
    # TVM-FFI's typed kernel arguments (SGLang's JIT kernels): one dtype per argument
    _e("tvm-ffi-tensor-dtype", "mismatch", "a JIT kernel's typed argument got a tensor of another dtype",
       r"Dtype value \[\w+\] not in the allowed options: \[",
       cause="The kernel was compiled (through TVM-FFI) for the dtypes it lists, and one argument came in another: "
       "typically one path now returns bf16 while a state buffer stays fp32 (or the reverse), and the kernel "
       "checks instead of casting, so the dtype mismatch fails the tensor match.",
       fix="Cast that argument to the dtype the kernel lists before the call (`x.to(state.dtype)`), or keep the "
       "buffers it reads in one dtype; if the call is inside a library (SGLang, a serving engine), upgrade it."),
)
