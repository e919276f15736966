"""float8 as a storage dtype that PyTorch neither promotes nor computes with in most ops, the fp8 formats and fp8
hardware of AMD and NVIDIA GPUs (fnuz on MI300, OCP elsewhere, e4m3 only from Ada/Hopper), fp8 KV caches and fp8 fast
modes, accelerators without fp8, and ROCm GPUs whose bf16 support a library misjudges."""
from __future__ import annotations

from amplora.doctor.kb.entry import make as _e

_ROCM = (r"\b(ROCm|HIP|hipblas\w*|rocblas|hipDataType|gfx9\d\d|gfx1\d\d\d|MI\d{3}X?|AMD (GPU|Radeon|Instinct)|Radeon|"
         r"RX ?[67]\d{3}|7900 ?XTX?|W7900)\b")
_OCP_FP8 = r"Float8_e4m3fn(?!uz)\b|float8_e4m3fn(?!uz)\b|Float8_e5m2(?!fnuz)\b|float8_e5m2(?!fnuz)\b"
# AMD GPUs that take the OCP fp8 formats (MI350 / gfx950, RDNA 4 / gfx12xx), not MI300's fnuz
_OCP_AMD = r"\b(gfx950|gfx12\d\d|MI35\dX?|RDNA ?4|Navi ?4\d|RX ?9\d{3}|R9700)\b"
# AMD GPUs without fp8 matrix instructions (before MI300; Radeon before RDNA 4)
_OLD_AMD = (r"\b(gfx90[0-8a]|gfx10\d\d|gfx11\d\d|MI(100|2\d\dX?)|RX ?[67]\d{3}X?T?|7900 ?XTX?|W[67]\d{3}|"
            r"RDNA ?[123])\b")
# an op whose float8 kernel is missing everywhere (arithmetic, fill, plain mm): not a format question
_FP8_OTHER_KERNEL = r"\"(?!_tunable_scaled_gemm|_scaled_mm|_scaled_gemm)\w+\" not implemented for '?Float8"
# an fp8 KV cache (vLLM / SGLang `--kv-cache-dtype fp8`, a PagedAttention cache type)
_KV_CACHE = (r"kv[-_]cache[-_]dtype\W{1,4}fp8|fp8 kv[-_ ]?cache|kv[-_ ]?cache (quantization|type is f8)|"
             r"kv[-_ ]?cache\W{1,3}(dtype|type)\W{1,4}f(p)?8")
# tools with an fp8 'fast' mode that computes matmuls with torch._scaled_mm (diffusion UIs, video/Flux wrappers)
_FP8_FAST_TOOL = (r"--fast\b|_fast\b|fast ?mode|fastmode|fp8_matrix_mult|fp8 matmul|\bComfy\w*|\bcomfy\b|Sampler\b|"
                  r"\b(Flux|FLUX|flux\d?|Wan(Video)?|Hunyuan\w*|Cog(Video)?\w*|LTX\w*|FramePack|SD3|SDXL|unet)\b|"
                  r"diffusers|custom_nodes")

LOWBIT = (
    _e("fp8-kv-cache-vs-query", "attention", "an fp8 KV cache met attention inputs of another dtype",
       r"KV cache data type \w+ is not the same as input data type \w+|"
       rf"\A(?=.*(query and key must have the same dtype|Expected query, key,? and value to have the same dtype))"
       rf"(?=.*({_KV_CACHE}))",
       "The KV cache is stored in fp8 (e4m3, from `--kv-cache-dtype fp8` or an fp8 checkpoint's cache settings) "
       "while the query of some attention layers is fp16/bf16 and that kernel does not dequantize the cache: "
       "usually a speculative-decoding draft head (EAGLE, MTP) or a layer built without the fp8 cache.",
       "Give draft and target the same KV-cache dtype: drop `--kv-cache-dtype fp8` (leave it `auto`, the model's "
       "dtype) or build the engine without the fp8 KV cache for the draft layers, or upgrade the engine (fp8 KV "
       "caches for EAGLE drafters were fixed in later releases)."),
    _e("dlpack-fp8", "backend", "DLPack has no float8 dtypes",
       r"\b(float8|fp8)\w*\b[^\n]{0,30}\bnot supported by (dlpack|DLPack)\b|"
       r"\b(dlpack|DLPack)\b[^\n]{0,60}\b(does not|doesn'?t) support\b[^\n]{0,30}\b(float8|fp8)",
       "DLPack, the zero-copy exchange between PyTorch and other libraries (NumPy, CuPy, JAX, a safetensors or "
       "custom loader), had no codes for the float8 dtypes in the PyTorch release that raised this, so a float8 "
       "(fp8 / mxfp8) tensor cannot cross it.",
       "Upgrade PyTorch (recent releases export float8 through DLPack), or pass the raw bytes: "
       "`t.view(torch.uint8)` across DLPack and `.view(torch.float8_e4m3fn)` on the other side; or keep the fp8 "
       "weights in torch and load the fp16/bf16 model."),
    _e("fp8-matmul-bias-fp32", "backend", "an fp8 matmul with a bias and a float32 output",
       r"Bias is not supported when out_dtype is set to Float32",
       cause="An fp8 matmul (`torch._scaled_mm`: fp8 weights such as float8_e4m3fn in ComfyUI's fp8 'fast' "
       "modes or a patched fp8 linear) was asked for a float32 output together with a bias, a combination "
       "cuBLASLt does not take: the layer's compute dtype is fp32 because the model or its inputs are fp32.",
       fix="Run the model's compute in bf16 or fp16 (the weight/compute dtype option of the loader, "
       "`out_dtype=torch.bfloat16` for `_scaled_mm`), or load the weights in bf16/fp16 instead of the fp8 fast "
       "mode; adding the bias after an fp32 `_scaled_mm` without `bias=` also works."),
    _e("scaled-mm-cublas", "backend", "cuBLASLt refused an fp8 matmul's configuration",
       r"\A(?=.*(_scaled_mm|fp8|float8))(?=.*CUBLAS_STATUS_(INVALID_VALUE|NOT_SUPPORTED))(?!.*\b(byte "
       r"bound\w*|misalign\w*|align(ed|ment)|storage offset)\b)",
       "An fp8 matmul (`torch._scaled_mm`) reached cuBLASLt in a configuration it does not take: an fp8 output "
       "(the default when `out_dtype` is not given), block-wise scales, dimensions not multiples of 16, or a "
       "layout other than row-major `a` and column-major `b`.",
       "Pass `out_dtype=torch.bfloat16` (or float32), make both matrices' dimensions multiples of 16 and `b` "
       "column-major (`b.t().contiguous().t()`), and use tensor-wise or row-wise scales."),
    _e("fp8-rocm-fnuz", "device-capability", "an fp8 format this AMD GPU does not compute (fnuz vs OCP float8)",
       rf"(?:{_OCP_FP8}).{{0,400}}{_ROCM}|{_ROCM}.{{0,400}}(?:{_OCP_FP8})|"
       rf"Cannot convert ScalarType (?:{_OCP_FP8}) to hipDataType|\"_tunable_scaled_gemm\" not implemented for|"
       r"\bF8E\dM\dFNUZ\b[^\n]{0,120}not supported on non-gfx942|"
       rf"(float8_e[45]m[23]fnuz|Float8_e[45]m[23]fnuz|\bfnuz\b)[^\n]{{0,200}}(unsupported|not supported|"
       rf"not implemented)[^\n]{{0,200}}{_OCP_AMD}|"
       rf"{_OCP_AMD}[^\n]{{0,200}}(float8_e[45]m[23]fnuz|Float8_e[45]m[23]fnuz)"
       r"[^\n]{0,120}(unsupported|not supported|not implemented)",
       "AMD GPUs compute one fp8 family only: the MI300 series (gfx942: MI300X/MI300A/MI325X) takes the fnuz "
       "formats (float8_e4m3fnuz / float8_e5m2fnuz), while MI350 (gfx950) and RDNA 4 (gfx12, RX 9000) take the OCP "
       "float8_e4m3fn / float8_e5m2 that NVIDIA GPUs and most fp8 checkpoints use, so hipBLASLt has no fp8 GEMM "
       "for a tensor of the other family.",
       "Use the format of the GPU: on MI300/MI325 ask for the fnuz dtypes (`torch.float8_e4m3fnuz`; torchao: "
       "`float8_dynamic_activation_float8_weight(torch.float8_e4m3fnuz, torch.float8_e4m3fnuz)`; vLLM converts "
       "fp8 checkpoints to fnuz itself on ROCm), on MI350 / RDNA 4 `torch.float8_e4m3fn` / `torch.float8_e5m2`; "
       "choose it from `torch.cuda.get_device_properties(0).gcnArchName`, or keep the model in bf16/fp16.",
       unless=_FP8_OTHER_KERNEL),
    _e("fp8-kv-cache-flash-attn", "attention", "an fp8 KV cache given to a FlashAttention kernel without fp8",
       r"Cannot use FlashAttention(-\d)? backend for FP8 KV cache|"
       r"\A(?=.*(FlashAttention only supports? fp16 and bf16|inputs must have the same dtype))"
       r"(?=.*\b(fp8|float8)\b[^\n]{0,20}\b(kv|cache)\b)|"
       r"\A(?=.*(FlashAttention only supports? fp16 and bf16|inputs must have the same dtype))"
       r"(?=.*\bkv[-_ ]cache[-_ ]dtype\W{1,3}fp8)",
       "The KV cache is fp8 (`--kv-cache-dtype fp8`, or a checkpoint that asks for it) and the FlashAttention "
       "kernel picked (FA2, FA4, FA3 in some releases) has no fp8 path: it is not supported there, so the engine "
       "refuses that backend for an fp8 KV cache, the kernel accepts fp16 and bf16 only, or it leaves the query in "
       "bf16 while keys and values are fp8 and its q/k/v same-dtype check fails (a dtype mismatch).",
       "Choose an attention backend that reads an fp8 KV cache (FlashInfer or Triton: `--attention-backend`, "
       "`VLLM_ATTENTION_BACKEND=FLASHINFER`; FA3 on Hopper where the release supports it), or keep "
       "`--kv-cache-dtype auto` (a bf16 / fp16 cache) with FlashAttention."),
    # FlashAttention-3 reads an fp8 KV cache in e4m3 only
    _e("fa3-fp8-e4m3-only", "attention", "an fp8_e5m2 KV cache with FlashAttention-3, which reads e4m3 only",
       r"FlashAttention ?3 only supports fp8_e4m3",
       "FlashAttention-3's kernels read an fp8 KV cache in e4m3 only, so with `--kv-cache-dtype fp8_e5m2` the "
       "engine leaves fa3 and falls back to the slower Triton attention backend (or refuses).",
       "Use `--kv-cache-dtype fp8_e4m3` (or `fp8`) with the fa3 backend on Hopper, or keep e5m2 and accept the "
       "Triton backend."),
    _e("fp8-kv-cache", "device-capability", "an fp8 (e4m3) KV cache on a GPU or checkpoint that cannot take it",
       r"fp8_e5m2 kv-cache is not supported with fp8 checkpoints|"
       rf"(type fp8e4nv not supported in this architecture|fp8e4nv data type is not supported on CUDA arch|"
       rf"F8E4M3\w* not supported in (the )?CUDA backend)(?=.{{0,3000}}({_KV_CACHE}))|"
       rf"({_KV_CACHE}).{{0,3000}}(type fp8e4nv not supported in this architecture|fp8e4nv data type is not "
       rf"supported on CUDA arch|F8E4M3\w* not supported in (the )?CUDA backend)",
       "An fp8 KV cache (`--kv-cache-dtype fp8`, which means e4m3) needs e4m3 support in the attention kernels: "
       "NVIDIA compute capability >= 8.9 (Ada, Hopper) or an AMD MI300; on Ampere (RTX 30xx, A100), Turing, Volta and "
       "Radeon RDNA 3 Triton offers only fp8e5 (e5m2, plus fp8e4b15 on NVIDIA), so the e4m3 cache cannot be "
       "compiled; an fp8 checkpoint that carries KV-cache scales, in turn, needs the e4m3 cache, not e5m2.",
       "On these GPUs pass `--kv-cache-dtype fp8_e5m2` (vLLM; the engine's KV-cache dtype option elsewhere) or "
       "leave it `auto` (the model's dtype); keep `--kv-cache-dtype fp8` / `fp8_e4m3` for Ada, Hopper and MI300; "
       "with an fp8 checkpoint use `--kv-cache-dtype fp8` (or `auto`) instead of `fp8_e5m2`."),
    _e("fp8-rocm-unsupported", "device-capability", "fp8 on an AMD GPU (or ROCm build) without fp8 compute",
       r"type fp8e4b8 not supported in this architecture|"
       r"\b(fp8|fbgemm_fp8|fp8_\w+)\b quantization is (currently )?not supported (in|on) ROCm|"
       rf"type fp8e4\w* not supported in this architecture\. The supported fp8 dtypes are \('fp8e5',?\)"
       rf"(?=.{{0,3000}}{_ROCM})|{_ROCM}.{{0,3000}}type fp8e4\w* not supported in this architecture|"
       rf"_scaled_mm is only supported on[^\n]{{0,120}}MI300(?=.{{0,3000}}{_OLD_AMD})|"
       rf"{_OLD_AMD}.{{0,3000}}_scaled_mm is only supported on",
       "AMD GPUs before the MI300 series (MI100/MI200 = gfx908/gfx90a, Radeon RDNA 2/3) have no fp8 matrix "
       "instructions, so `torch._scaled_mm` refuses them ('ROCm MI300+') and Triton and hipBLASLt offer no e4m3 "
       "fp8 type there (Triton lists only fp8e5 for them); "
       "older vLLM ROCm builds had no fp8 weight quantization at all.",
       "Serve the bf16/fp16 checkpoint (or an int8 / 4-bit GPTQ or AWQ one) on these GPUs, or keep fp8 weights as "
       "storage only and compute in bf16/fp16 (no fp8 fast mode); fp8 compute needs an MI300 (fnuz) or MI350 / "
       "RDNA 4 (OCP fp8) with a recent ROCm and vLLM build; for an fp8 KV cache use `--kv-cache-dtype fp8_e5m2` or "
       "leave it `auto`."),
    _e("fp8-fast-matmul", "device-capability", "an fp8 fast mode (fp8 matmuls) on a GPU without fp8 tensor cores",
       r"_scaled_mm is only supported on (CUDA )?devices with compute capability",
       context=_FP8_FAST_TOOL,
       cause="An fp8 'fast' mode computes the matmuls themselves in fp8 with `torch._scaled_mm` (ComfyUI's `--fast` "
       "and the `fp8_e4m3fn_fast` weight dtype, the 'fp8 fastmode' / fp8 matmul options of video and Flux "
       "wrappers, fp8 linear patches), which needs fp8 tensor cores: NVIDIA compute capability 8.9 (RTX 40xx, L4, "
       "L40) or 9.0 (H100), or an AMD MI300; an RTX 30xx (8.6), 20xx or older cannot, and torch before 2.3 also "
       "refused 8.9.",
       fix="Keep the weights stored in fp8 but compute in bf16/fp16: choose the plain `fp8_e4m3fn` weight dtype "
       "(not `..._fast`), turn the fp8 fast mode off (ComfyUI: run without `--fast` or its `fp8_matrix_mult` "
       "option), or load the fp16/bf16 model; on an RTX 40xx / L4 that gets '>= 9.0' upgrade torch (2.3+ runs "
       "`_scaled_mm` on sm_89)."),
    # TensorRT-LLM's fp8 context attention exists for Hopper only (fp8 GEMMs also run on Ada)
    _e("fp8-rowwise-bf16-output", "backend", "row-wise scaled fp8 matmul with a non-bf16 output",
       r"Only bf16 high precision output types are supported for row-?wise scaling",
       "`torch._scaled_mm` with row-wise scales (torchao's rowwise float8 recipe) produces bf16 output only, and the "
       "model or its tensors are float32 (or fp16).",
       "Run the rowwise float8 layers with bf16 as the high-precision dtype (`model.to(torch.bfloat16)` or bf16 "
       "autocast), use tensorwise scaling for float32 models, or a torchao release that computes in bf16 and casts "
       "back."),
    _e("bits-dtype-copy", "backend", "a tensor subclass exposing a raw bits dtype (bits2x4, bits4x2)",
       r"\bnot implemented for 'Bits\w+'|does not support casting bits types to different bits types",
       "The bits dtypes (`torch.bits2x4`, `bits4x2`, `bits8`, `bits16`) are raw storage types without arithmetic or "
       "casts; a tensor subclass (torchao's NF4Tensor in early releases) reported its dtype as `bits2x4`, so "
       "`copy_` / `.to()` between it and a bf16 tensor fails.",
       "Upgrade torchao (NF4Tensor reports the dtype it was built from, bf16 / fp16 / fp32), and build such "
       "subclasses with the original float dtype as their `dtype`."),
    _e("fp8-fmha-hopper", "device-capability", "TensorRT-LLM's fp8 attention (FMHA) on a GPU before Hopper",
       r"Fp8 FMHA cannot be enabled on pre-Hopper",
       "`--use_fp8_context_fmha` asks for TensorRT-LLM's fp8 attention (FMHA) kernels, which exist only for Hopper "
       "(sm_90); fp8 GEMMs also run on Ada (sm_89: L4, L40, RTX 40xx), but fp8 attention does not.",
       "Build without `--use_fp8_context_fmha` (keep the fp8 quantized GEMMs), or on a Hopper GPU."),
    # an fp8 KV cache is stored as uint8 in vLLM; its Triton prefix-prefill kernel (chunked prefill) meets it raw
    _e("fp8-kv-triton-prefill", "attention", "an fp8 KV cache (stored as uint8) read raw by a Triton attention kernel",
       r"\A(?=.*Both operands must be same type)(?=.*\b(bf16|fp16)\b[^\n]{0,60}\b(uint8|u8)\b)",
       "vLLM stores an fp8 KV cache as uint8, and the Triton prefix-prefill kernel used with chunked prefill "
       "(turned on for long `max_model_len`, or prefix caching) multiplies the bf16 / fp16 queries with that cache "
       "without converting it, so `tl.dot` meets bf16 and uint8.",
       "Turn chunked prefill off (`enable_chunked_prefill=False`, or a smaller `max_model_len`), use the model's "
       "dtype for the KV cache (`kv_cache_dtype='auto'`), or upgrade vLLM."),
    _e("fp8-capability", "device-capability", "fp8 compute on a GPU (or recipe) without fp8 support",
       r"Device compute capability [\d.]+ or higher required for FP8|"
       r"compute capability [\d.]+\+? (or higher |or newer )?(is )?required for FP8|"
       r"\bf8e4m3\w* is only supported on compute capability|\bF8E4M3\w* not supported in (the )?CUDA backend|"
       r"\bMX?FP8\b[^\n]{0,120}(is )?not supported on [\d.]+\+? architectures|"
       r"\bFP8 (execution|training|GEMMs?|compute)\b[^\n]{0,40}(is )?not supported on (this|the current) (GPU|device)|"
       r"No feasible kernel found for the problem: sm(7\d|8[0-8])_\w*(e4m3|e5m2|fp8)|"  # TurboMind before sm_89
       r"Networks with FP8 Q/DQ layers require hardware with FP8 support",
       "fp8 compute needs fp8 tensor cores: NVIDIA compute capability 8.9 (Ada: RTX 40xx, L4, L40) or 9.0 "
       "(Hopper); Ampere (A100 = 8.0, RTX 30xx = 8.6) and older can only store fp8, and block-scaled recipes "
       "(MXFP8, NVFP4) need Blackwell data-center kernels (10.0) that consumer Blackwell (12.0) lacked in early "
       "Transformer Engine releases; some tools also ask for 9.0 where 8.9 would do.",
       "Compute in bf16 on this GPU: Transformer Engine `te.fp8_autocast(enabled=False)` (its layers still run in "
       "bf16), vLLM without `quantization='fp8'` (a bf16, GPTQ or AWQ checkpoint), the non-fp8 kernels of other "
       "engines (ktransformers, mistral.rs); on Ada, when a tool asks for 9.0, upgrade it and Triton/torch; on RTX "
       "50xx with Transformer Engine use `recipe.DelayedScaling()` or `Float8CurrentScaling()` instead of "
       "`MXFP8BlockScaling()`, or upgrade TE."),
    _e("fp8-scaled-mm-dtypes", "backend", "torch._scaled_mm got a scale or an operand of the wrong dtype",
       r"Expected both inputs to be fp8( or fp4)? types|"
       r"(both )?scale_a and scale_b must be float \(fp32\) tensors|scale_[ab] must be (a )?float\b|"
       r"Invalid scaling configuration.{0,600}Got (mat_a|mat_b|scale_a|scale_b)\.dtype\(\)=.{0,300}?"
       r"(scale_[ab]\.dtype\(\)=(BFloat16|Half|Double)\b|mat_[ab]\.dtype\(\)=(BFloat16|Half|Float|Double)\b)",
       "`torch._scaled_mm`, the fp8 GEMM, takes only float8 matrices (both operands already cast to float8_e4m3fn / "
       "e5m2) and float32 scales (a singleton per tensor, or (M, 1) and (1, N) for rowwise scaling); a scale "
       "computed from a bf16/fp16 tensor's amax keeps that dtype, and an operand left in bf16/fp16 is not cast "
       "for you.",
       "Quantize both operands (`(x / scale_x).to(torch.float8_e4m3fn)`), keep the scales float32 "
       "(`scale = (w.abs().amax().float() / 448).clamp(min=1e-12)`), and call "
       "`torch._scaled_mm(a_fp8, b_fp8, scale_a=scale_a, scale_b=scale_b, out_dtype=torch.bfloat16)`; for "
       "rowwise scaling give scale_a shape (M, 1) and scale_b (1, N), contiguous."),
    _e("quant-method-cpu-dtype", "quantized", "a GPU-only quantization on vLLM's CPU backend",
       r"is not supported for quantization method \w+",
       context=r"not supported on CPU|cpu_executor|CPU backend|VLLM_TARGET_DEVICE=cpu|device[ =:'\"]+cpu\b",
       cause="vLLM's CPU backend runs models in bf16 (it casts fp16 to bf16 because it has no fp16 CPU kernels), "
       "while the GPTQ/AWQ kernels of this quantization method accept only fp16, so the quantized model cannot "
       "run on the CPU backend at all.",
       fix="Run the GPTQ/AWQ model on a GPU, or on the CPU use an unquantized (bf16) model or a quantization the "
       "CPU backend supports (its docs list them; GGUF through llama.cpp is another CPU route)."),
    _e("te-fp8-module-twice", "autocast", "a TransformerEngine module run twice in one fp8_autocast region",
       r"Same module is being invoked more than once inside an .?fp8_autocast.? region",
       "With FP8 amax reduction TransformerEngine keeps one amax history slot per module and fp8_autocast region, so "
       "running the same TE module more than once inside one `fp8_autocast` (a loop over steps or micro-batches, a "
       "shared layer) is unsupported.",
       "Open a new `te.fp8_autocast` context per forward (put the loop outside the context), or give the repeated "
       "use its own module instance."),
    _e("fp8-no-promotion", "mismatch", "float8 met another dtype (PyTorch does not promote float8)",
       r"Promotion for Float8 Types is not supported|"
       r"(mat1 and mat2|self and mat2|m1 and m2)[^\n]{0,80}\bFloat8_\w+",
       "A float8 tensor (a base model stored in float8_e4m3fn / e5m2 to save memory, as ComfyUI's "
       "`--fp8_e4m3fn-unet` / `--fp8_e4m3fn-text-enc`, kohya, OneTrainer, diffusers' layerwise casting or torchao "
       "do) met a tensor of another dtype (fp16/bf16/fp32 activations, a bool mask) in an op that reads the stored "
       "weight directly instead of the path that upcasts it: a LoRA/DoRA weight norm, a merge, a custom node or "
       "model code such as `weight * x.float()` in an RMSNorm (or an fp8 embedding table whose rows are gathered "
       "without being dequantized); fp8 is a storage format that PyTorch never promotes implicitly.",
       "Updequantize the fp8 tensor to the compute dtype first (`w.to(x.dtype)` or `w.to(torch.bfloat16)`, "
       "times its scale if it has one), enable the tool's upcast for that module (fp8 'weight dtype' with compute in "
       "bf16/fp16, or drop the `--fp8_e4m3fn-*` flags / fp8 offload dtype for the model the failing node uses), "
       "or load the base model in bf16/fp16 when training DoRA or merging."),
    _e("fp8-cudnn", "cpu-kernel", "a convolution (cuDNN) given float8 weights",
       r"getCudnnDataTypeFromScalarType\(\) not supported for Float8|cudnn\w*[^\n]{0,80}\b(Float8\w*|float8\w*)"
       r"[^\n]{0,40}not supported",
       "cuDNN, which runs convolutions, has no float8 type: loading a whole model with an fp8 `torch_dtype` also "
       "stored its convolutions in fp8 (the image encoder / CLIP vision tower's patch embedding, a VAE), and only "
       "linear layers have fp8 kernels (`torch._scaled_mm`).",
       "Keep the convolution-based parts (image encoder, VAE, patch embeddings) in bf16/fp16 and store only the "
       "transformer's linear weights in fp8 (load the pipeline in bf16 and give fp8 only to the DiT / transformer, "
       "or the tool's per-module weight dtype)."),
    _e("fp8-no-kernel", "cpu-kernel", "no kernel for this op in float8",
       r"not implemented for '?(Float8_\w+)'?",
       "float8 is a storage dtype: PyTorch implements few ops for it (casts, copies, `torch._scaled_mm` on fp8 "
       "GPUs), so creating, filling, indexing, plain matmuls (`torch.mm`, `F.linear`) or arithmetic on a float8 "
       "tensor (or on a float8_e8m0fnu scale) find no kernel, on the CPU (where older torch lacks even `fill` / "
       "`zeros`), on CUDA and on ROCm, XPU and other backends alike.",
       "Create and compute in bf16/fp32 and cast to fp8 at the end (`torch.zeros(n, dtype=torch.bfloat16)"
       ".to(torch.float8_e4m3fn)`), upcast before arithmetic (`w.to(torch.bfloat16)`, `scale.float() * 2.0`), "
       "and do fp8 matmuls with `torch._scaled_mm(a, b, scale_a=..., scale_b=..., out_dtype=torch.bfloat16)` on a "
       "GPU with fp8 support; upgrading torch adds some fp8 kernels."),
    _e("fp8-unsupported-device", "device-capability", "a device or loading path without the float8 dtype",
       r"Float8_\w+ has not been supported|ConvertToAclDataType.{0,400}Float8|Float8_\w+.{0,400}ConvertToAclDataType|"
       r"couldn't find storage object Float8_\w+Storage",
       "This device or loading path has no float8 dtype: Ascend NPUs (torch_npu / CANN) cannot take float8 tensors "
       "at all (fp8 checkpoints such as DeepSeek-V3/R1 fp8 or Flux fp8 cannot be loaded as fp8 there), and passing "
       "`torch_dtype=torch.float8_e4m3fn` to `from_pretrained` builds a whole model in a storage dtype, which older "
       "torch/transformers cannot even create storages for.",
       "Load in bf16 (`torch_dtype=torch.bfloat16`) and keep only the weights in fp8 where the device supports it "
       "(diffusers: `model.enable_layerwise_casting(storage_dtype=torch.float8_e4m3fn, compute_dtype=torch.bfloat16)`"
       "); on an Ascend NPU dequantize the fp8 checkpoint to bf16 first (DeepSeek's `fp8_cast_bf16.py`) or use a "
       "W8A8 int8 checkpoint made for Ascend; upgrade torch if it cannot build float8 storages."),
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
       r"(bf16|bfloat16)\b.{0,80}(not available|not supported|unsupported|requires)|"
       r"(doesn'?t|does not|do not) support (bf16|bfloat16)|is_torch_bf16_gpu_available",
       context=_ROCM,
       cause="On a ROCm build of torch `torch.version.cuda` is None and CUDA capability checks do not apply, so a "
       "library that decides bf16 support from the CUDA version or compute capability (transformers' "
       "`is_torch_bf16_gpu_available` in older releases, torchtune's `verify_bf16_support`) refuses bf16 on AMD GPUs "
       "that have it (RDNA 3 such as the RX 7900 XTX, MI200/MI300), while RDNA 2 and older really lack it.",
       fix="Check the GPU itself (`torch.cuda.is_bf16_supported()`, `amplora doctor`); on RDNA 3 / MI200+ upgrade "
       "the library (transformers, torchtune, accelerate and others fixed their ROCm check) or skip its "
       "CUDA-version check; on RDNA 2 and older use fp16 or fp32."),
    _e("scaled-mm-scaling", "backend", "torch._scaled_mm refused the fp8 scales",
       r"Invalid scaling configuration",
       "`torch._scaled_mm` takes fp8 `a` and `b` with float32 scales in the layouts it supports: tensor-wise "
       "(scalars) or row-wise; block-wise scales (128x128 blocks of DeepSeek-style FP8 checkpoints) are only in "
       "newer torch on CUDA and not supported on other backends (XPU) in earlier releases.",
       "Upgrade torch, or use a kernel written for block FP8 (the serving engine's Triton / CUTLASS path), or "
       "dequantize those weights to bf16."),
)
