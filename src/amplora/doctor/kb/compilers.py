"""Graph compilers and fusers (TorchScript's NNC, nvFuser, torch_xla, TVM, IREE / MLIR, Triton's lowering): the dtypes
their code generators handle, and the precision their fused kernels compute in."""
from __future__ import annotations

from amplora.doctor.kb.entry import make as _e
from amplora.doctor.kb.patterns import EXCEPTION_NAMED, LOW_DTYPE_WORD

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
       "Python says float32 where bf16 / fp16 was asked for, and dtype checks and casts go wrong; a running sum "
       "(the Trainer's accumulated loss) is bf16 too and stops growing at 4096 (rounding, bf16's precision).",
       fix="Unset XLA_USE_BF16 / XLA_USE_FP16 and say the dtype in code (`model.to(torch.bfloat16)`, "
       "`torch.autocast('xla', dtype=torch.bfloat16)`), which newer torch_xla releases expect; the environment "
       "variables are deprecated; reset or keep accumulators small, or in real fp32."),
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
    _e("triton-dot-acc-dtype", "mismatch", "a `tl.dot` accumulator in another dtype than its `out_dtype`",
       r"\A(?=.*\btl\.dot\b)(?=.*\b(accumulator|acc)\b)(?=.*\bout_dtype\b)(?=.*\b(AssertionError|assert\w*|"
       r"error|fails?)\b)",
       "`tl.dot(a, b, acc)` computes in its `out_dtype` (tl.float32 unless given) and asserts that the accumulator "
       "has that dtype, so an fp16 (or bf16) accumulator with the default out_dtype fails a bare AssertionError "
       "while compiling, even where an fp16 dot is supported.",
       "Pass `out_dtype=tl.float16` (the accumulator's dtype, so they match) or keep the accumulator float32 "
       "(`tl.zeros(..., dtype=tl.float32)`) and cast the result once at the end."),
    _e("triton-loop-carried-dtype", "mismatch", "a Triton loop variable whose dtype changes inside the loop",
       r"Loop-carried variable \w+ has initial type <[^>]*> but is re-assigned to <[^>]*> in loop",
       "A variable carried through a Triton loop must keep one type, and an op in the loop gave it another: a "
       "division or an operation with an fp32 value computes in fp32 (there is no fp16 division in PTX, so "
       "Triton upcasts it), or a `tl.load` from a tensor of another dtype.",
       "Cast back inside the loop (`b = (b / a).to(tl.float16)`), or start the variable in the wider dtype "
       "(`b = b.to(tl.float32)` before the loop) and cast once after it."),
    _e("cudagraph-wrong-device", "device", "a CUDA graph captured on another GPU than its tensors",
       r"\A(?=.*\b(CUDAGraph\w*|cuda\.graph|graphs? capture)\b)(?=.*\bwrong (device|GPU)\b|"
       r".*torch\.cuda\.device\(\s*['\"]?cuda:\d)",
       unless=EXCEPTION_NAMED,
       cause="A CUDA graph records the work queued on the current device's capture stream: with another GPU current "
       "(`torch.cuda.device('cuda:1')`) than the one the tensors are on (cuda:0), their kernels are not captured, "
       "so the graph is empty and replaying it never updates the outputs, without an error.",
       fix="Capture on the tensors' own device (`with torch.cuda.device(x.device):` around `torch.cuda.graph(g)`), "
       "or make that GPU current first (`torch.cuda.set_device`)."),
    _e("cudagraph-cpu-skipped", "device", "CUDA graphs skipped because the inputs are on the CPU",
       r"\bskipping cudagraphs due to cpu device\b|"
       r"\A(?=.*mode\s*=\s*['\"]reduce-overhead['\"])(?=.*\bCUDAGraphs?\b)(?!.*(\.cuda\(|device\s*=|\.to\())"
       r"(?=.*\b(expected|should|but|instead|successful|no error)\b)",
       unless=EXCEPTION_NAMED + r"(?! Error: accessing tensor output of CUDAGraphs)",
       cause="torch.compile's `reduce-overhead` mode uses CUDA graphs only for CUDA tensors: with inputs on the CPU "
       "(`torch.randn(10, 10)` without `device=`) it skips cudagraphs and runs the compiled code without them, so "
       "nothing CUDA-graph specific (speed-up, the overwritten-output error) happens.",
       fix="Put the inputs and the model on the GPU (`device='cuda'`, `.cuda()`); `TORCH_LOGS=perf_hints` prints why "
       "cudagraphs were skipped."),
    _e("cudagraph-pageable-copy", "device", "a copy from pageable CPU memory inside CUDA graph capture",
       r"Cannot copy between CPU and CUDA tensors during CUDA graph capture",
       "Inside CUDA graph capture a copy between a CPU tensor in ordinary (pageable) memory and a CUDA tensor is "
       "not allowed (it would synchronise): a tensor built on the CPU (`torch.tensor(a_list, device=x.device)` "
       "builds it on the CPU first, then copies) or a CPU scalar reached the captured code.",
       "Make such tensors before capture and keep them on the GPU, or build them in pinned CPU memory "
       "(`torch.tensor(..., pin_memory=True)`, `t.pin_memory()`) and copy with `non_blocking=True`; a "
       "`torch.compile`d function first called inside the capture does such copies while it compiles: run it once "
       "before capturing."),
    # TransformerEngine: a graphed callable keeps the fp8 setting it was captured with
    _e("te-graphed-fp8", "backend", "a TransformerEngine graphed module that keeps its capture-time fp8 setting",
       r"\A(?=.*make_graphed_callables)(?=.*\bfp8\w*)",
       unless=EXCEPTION_NAMED,
       cause="TransformerEngine's `make_graphed_callables` replaces the module's forward with a replay of graphs "
       "captured inside `fp8_autocast` with the fp8 setting given at graph creation (`fp8_enabled`), so an outer "
       "`fp8_autocast(enabled=False)` around the call is ignored.",
       fix="Build the graphed callable with the setting wanted (`make_graphed_callables(..., fp8_enabled=False)`), "
       "keep one graphed copy per setting, or call the ungraphed module where fp8 must be off."),
    _e("triton-dot-tf32", "backend", "Triton's `tl.dot` computing float32 in TF32",
       r"\A(?=.*\b(tl\.dot|triton)\b)(?=.*\b(tl\.float32|float32|fp32)\b)(?=.*\b(steady |small |constant )?"
       r"(errors?|differ\w*|mismatch\w*|discrepanc\w*)\b)(?=.*\b(einsum|torch\.matmul|torch\.bmm|matmul|cuBLAS)\b)",
       unless=EXCEPTION_NAMED + r"|out of memory",
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
