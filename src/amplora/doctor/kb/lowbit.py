"""float8 as a storage dtype that PyTorch neither promotes nor computes with in most ops, the fp8 formats of AMD
GPUs (fnuz), and ROCm GPUs whose bf16 support a library misjudges."""
from __future__ import annotations

from amplora.doctor.kb.entry import make as _e

_ROCM = (r"\b(ROCm|HIP|hipblas\w*|rocblas|hipDataType|gfx9\d\d|gfx1\d\d\d|MI\d{3}X?|AMD (GPU|Radeon|Instinct)|Radeon|"
         r"RX ?[67]\d{3}|7900 ?XTX?)\b")
_OCP_FP8 = r"Float8_e4m3fn(?!uz)\b|float8_e4m3fn(?!uz)\b|Float8_e5m2(?!fnuz)\b|float8_e5m2(?!fnuz)\b"

LOWBIT = (
    _e("fp8-rocm-fnuz", "device-capability", "OCP float8 on an AMD GPU that computes the fnuz formats",
       rf"(?:{_OCP_FP8}).{{0,400}}{_ROCM}|{_ROCM}.{{0,400}}(?:{_OCP_FP8})|"
       rf"Cannot convert ScalarType (?:{_OCP_FP8}) to hipDataType|\"_tunable_scaled_gemm\" not implemented for",
       "AMD MI300-series GPUs (gfx942, ROCm) compute fp8 in the fnuz formats (float8_e4m3fnuz / float8_e5m2fnuz), "
       "not the OCP float8_e4m3fn / e5m2 that NVIDIA GPUs and most fp8 checkpoints use, so hipBLASLt has no GEMM "
       "for them there (only MI350 / gfx950 and newer ROCm take the OCP formats).",
       "On MI300 ask for the fnuz dtypes (`torch.float8_e4m3fnuz`; torchao: "
       "`float8_dynamic_activation_float8_weight(torch.float8_e4m3fnuz, torch.float8_e4m3fnuz)`; vLLM converts "
       "fp8 checkpoints itself on ROCm), or keep the model in bf16/fp16."),
    _e("quant-method-cpu-dtype", "quantized", "a GPU-only quantization on vLLM's CPU backend",
       r"is not supported for quantization method \w+",
       context=r"not supported on CPU|cpu_executor|CPU backend|VLLM_TARGET_DEVICE=cpu|device[ =:'\"]+cpu\b",
       cause="vLLM's CPU backend runs models in bf16 (it casts fp16 to bf16 because it has no fp16 CPU kernels), "
       "while the GPTQ/AWQ kernels of this quantization method accept only fp16, so the quantized model cannot "
       "run on the CPU backend at all.",
       fix="Run the GPTQ/AWQ model on a GPU, or on the CPU use an unquantized (bf16) model or a quantization the "
       "CPU backend supports (its docs list them; GGUF through llama.cpp is another CPU route)."),
    _e("fp8-no-promotion", "mismatch", "float8 met another dtype (PyTorch does not promote float8)",
       r"Promotion for Float8 Types is not supported|"
       r"(mat1 and mat2|self and mat2|m1 and m2)[^\n]{0,80}\bFloat8_\w+",
       "A float8 tensor (a base model stored in float8_e4m3fn to save memory, as ComfyUI, kohya, OneTrainer, "
       "diffusers' layerwise casting or torchao do) met a tensor of another dtype in an op that was not on the "
       "path that upcasts it (a LoRA/DoRA weight norm, a merge, a custom op); fp8 is a storage format that "
       "PyTorch never promotes implicitly.",
       "Upcast the fp8 tensor to the compute dtype first (`w.to(torch.bfloat16)`, times its scale if it has "
       "one), enable the tool's upcast for that module (fp8 'weight dtype' with compute in bf16/fp16), or load "
       "the base model in bf16/fp16 when training DoRA or merging."),
    _e("fp8-no-kernel", "cpu-kernel", "no kernel for this op in float8",
       r"not implemented for '?(Float8_\w+)'?",
       "float8 is a storage dtype: PyTorch implements few ops for it (casts, `_scaled_mm` on fp8 GPUs), so "
       "creating, filling, indexing or doing arithmetic on a float8 tensor (often on the CPU, where even `fill` / "
       "`zeros` lack fp8 kernels in older torch) finds no kernel.",
       "Create and compute in bf16/fp32 and cast to fp8 at the end (`torch.zeros(n, dtype=torch.bfloat16)"
       ".to(torch.float8_e4m3fn)`), upcast before arithmetic (`w.to(torch.bfloat16)`), or upgrade torch (newer "
       "releases add fp8 kernels); keep fp8 tensors on a GPU with fp8 support for fp8 matmuls."),
    _e("rocm-bf16-rdna2", "device-capability", "bf16 on an AMD GPU without bf16 arithmetic (RDNA 2 and older)",
       r"Cannot select: intrinsic %llvm\.amdgcn\.[\w.]*bf16|"
       r"\bgfx(10\d\d|90[0-8])\b.{0,300}\b(bf16|bfloat16|BFloat16)\b|"
       r"\b(bf16|bfloat16|BFloat16)\b.{0,300}\bgfx(10\d\d|90[0-8])\b",
       "AMD RDNA 2 (gfx10xx, RX 6000) and older GPUs have no bf16 arithmetic, although "
       "`torch.cuda.is_bf16_supported()` reports True on ROCm builds; a compiled kernel (Triton, hipBLASLt) that "
       "emits bf16 instructions then fails to build or run.",
       "Load and train in fp16 (or fp32) on these GPUs (`torch_dtype=torch.float16`, `precision='fp16-mixed'`); "
       "bf16 needs RDNA 3 (gfx11xx) or CDNA 2/3 (MI200/MI300)."),
    _e("rocm-bf16-check", "device-capability", "a library's bf16 check misjudges a ROCm GPU",
       r"(bf16|bfloat16)\b.{0,80}(not available|not supported|unsupported|requires)",
       context=_ROCM,
       cause="On a ROCm build of torch `torch.version.cuda` is None and CUDA capability checks do not apply, so a "
       "library that decides bf16 support from the CUDA version or compute capability refuses bf16 on AMD GPUs "
       "that have it (RDNA 3 such as the RX 7900 XTX, MI200/MI300), while RDNA 2 and older really lack it.",
       fix="Check the GPU itself (`torch.cuda.is_bf16_supported()`, `amplora doctor`); on RDNA 3 / MI200+ upgrade "
       "the library (torchtune, accelerate and others fixed their ROCm check) or skip its CUDA-version check; on "
       "RDNA 2 and older use fp16 or fp32."),
)
