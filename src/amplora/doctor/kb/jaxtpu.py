"""JAX and TPUs: Mosaic and Pallas kernels without a bf16 path, the bf16 passes TPUs use for float32 matmuls, JAX's
32-bit default against NumPy, Flax's two dtypes, and what DLPack can carry between JAX and torch."""
from __future__ import annotations

from amplora.doctor.kb.entry import make as _e

JAXTPU = (
    # jax-metal before bf16 support: a bf16 constant crashes MPS instead of raising
    _e("jax-metal-bf16", "cpu-kernel", "jax-metal without bfloat16",
       r"\A(?=.*MPSNDArray[^\n]{0,120}buffer is not large enough)(?=.*\b(bfloat16|bf16)\b)",
       "The jax-metal plugin (and MPS underneath) in that release did not support bfloat16: a bf16 constant is laid "
       "out in 2 bytes where Metal expects a 4-byte float, and the Apple GPU asserts instead of raising an error.",
       "Use float32 (or float16) on Metal (`jnp.float32`), or upgrade jax-metal to a release with bf16 support "
       "(later ones raise a clear error for what is unsupported)."),
    _e("mosaic-tpu-dtype", "device-capability", "a Pallas kernel for TPUs with an op this TPU has no bf16 path for",
       r"(Mosaic failed to compile TPU kernel|Failed to compile a Mosaic module)\b[^\n]{0,200}"
       r"(Unsupported (input )?data type|(Target|this target) does not support|Not implemented|unsupported)",
       "A Pallas kernel compiled by Mosaic for TPUs (splash or flash attention, a custom kernel) uses an op in a "
       "dtype this TPU generation does not support: TPU v2, v3 and v4 have no bf16 vector unit, so a bf16 x bf16 "
       "matmul with float32 accumulation or a bf16 comparison fails there, and v5e / v5p lack some bf16 ops "
       "that v6e has.",
       "Cast the kernel's inputs to float32 on that TPU (or set the model's dtype to float32 there), use the "
       "non-Pallas path (`attention='dot_product'` in MaxText, XLA attention), or upgrade jax / libtpu, which add "
       "bf16 lowerings per generation."),
    _e("pallas-bf16-lowering", "device-capability", "a Pallas GPU kernel whose lowering has no bf16 rule for an op",
       r"\A(?=.*\b(bfloat16|bf16)\b)(?=.*(\bpallas\b[^\n]{0,80}\blowering\b|lower_jaxpr_to_triton|"
       r"\b_\w+_lowering_rule\b))",
       "Pallas lowers to Triton on GPUs, and this op has no bf16 rule there (PTX has no bf16 division, "
       "exponential or square root), so bf16 inputs are not supported by that lowering while float32 ones work.",
       "Compute that op in float32 inside the kernel (`x.astype(jnp.float32) / y.astype(jnp.float32)`, then "
       "`.astype(jnp.bfloat16)`), or upgrade jax, which upcasts more bf16 ops itself."),
    _e("tpu-matmul-precision", "overflow", "float32 matmuls on a TPU computed with bf16 passes",
       r"\A(?=.*\bTPU\b)(?=.*\b(matmul|dot_general|dot|matrix (multiplication|product)|einsum|conv\w*|@)\b)"
       r"(?=.*\b(differ\w*|wrong (result|answer|output)|mismatch\w*|discrepanc\w*|not (the )?same|allclose|"
       r"cannot do simple arithmetic)\b)",
       "On TPUs, JAX (and TensorFlow) run float32 matmuls and convolutions at the default precision, which "
       "multiplies in bfloat16 passes, so results differ from a CPU or GPU float32 (and from NumPy's float64) "
       "around the third significant digit, and a matrix-matrix product differs from the same numbers done as "
       "matrix-vector products.",
       "Ask for full float32 precision: `jax.default_matmul_precision('float32')` (or the "
       "`jax_default_matmul_precision` flag), `precision=jax.lax.Precision.HIGHEST` on `jnp.dot` / `dot_general`, "
       "and compare with a float32 reference and a float32 tolerance."),
    _e("jax-numpy-differs", "overflow", "a JAX result that differs from NumPy's",
       r"\A(?=.*\bjnp\.\w+)(?=.*\bnp\.\w+)(?=.*(\b(numpy|np)\b[^\n]{0,80}\b(differ\w*|mismatch\w*|compared?|versus|vs)"
       r"\b|\b(differ\w*|mismatch\w*|compared? (with|to)|versus|vs)\b[^\n]{0,20}\b(numpy|np)\b))"
       r"(?=.*\b(inf|nan|wrong|bug|mishandl\w*|differ\w*|incorrect)\b)",
       "JAX computes in 32 bits unless 64-bit types are enabled, while NumPy uses int64 and float64: an integer "
       "power or product overflows int32 in JAX (wrapping, or a later 1 / 0 becoming inf), and float results "
       "differ from NumPy's float64 by float32 rounding.",
       "Enable 64-bit types to compare (`jax.config.update('jax_enable_x64', True)` at start-up, the x64 flag), "
       "compute powers on floats (`256. ** x`), or compare with a float32 NumPy result and a float32 tolerance."),
    _e("flax-param-dtype", "mismatch", "Flax's `dtype` (computation) and `param_dtype` (parameters) told apart",
       r"\A(?=.*\b(flax|linen|nnx|nn\.(Dense|Conv|Embed|LayerNorm))\b)(?=.*\bdtype\s*=\s*(jnp\.)?(float16|bfloat16)\b)"
       r"(?=.*\b(param\w*|kernel|weights?|bias)\b[^\n]{0,80}\bfloat32\b)",
       "In Flax, a layer's `dtype` is its computation dtype only; parameters are created in `param_dtype`, float32 "
       "by default, so `nn.Dense(..., dtype=jnp.float16)` computes in fp16 and still stores float32 kernels and "
       "biases, by design.",
       "Pass `param_dtype=jnp.bfloat16` (or float16) as well to store half-precision parameters, or cast the "
       "parameter tree (`jax.tree.map(lambda p: p.astype(jnp.bfloat16), params)`); float32 parameters with a half "
       "computation dtype are the usual mixed-precision setup."),
    _e("dlpack-dtype", "numpy", "a dtype DLPack cannot carry between libraries",
       r"has no DLPack equivalent|\bDLPack\b[^\n]{0,60}\b(does not|doesn'?t) support\b[^\n]{0,30}\b(bool|complex|"
       r"bfloat16|bf16)\b|\b(bool|complex\w*|bfloat16)\b[^\n]{0,30}\b(is )?not supported (by|in) DLPack\b",
       "DLPack, the zero-copy exchange between JAX, torch, CuPy and NumPy, defines a fixed set of dtypes, and the "
       "releases involved did not share this one: bool (XLA's PRED) had no DLPack code before DLPack 0.8, and "
       "bfloat16 or complex types are not supported by some consumers.",
       "Cast to a dtype both sides know before the exchange (`x.astype(jnp.uint8)` for a bool mask, float32 for "
       "bf16) and back after it, or upgrade both libraries to releases that exchange that dtype."),
    _e("dlpack-device-type", "device", "a DLPack device type the importing library does not support",
       r"kDLCPUPinned|kDLCUDAHost|kDLCUDAManaged|\bUnsupported device type\b[^\n]{0,40}\bDLPack\b|"
       r"\bDLPack\b[^\n]{0,60}\bunsupported device\b|"
       # torch's own words for a capsule from managed memory (device type 13, kDLCUDAManaged)
       r"\A(?=.*\b(from_dlpack|to_?dlpack|DLPack)\b)(?=.*\bUnsupported device_type: ?\d+)",
       "The tensor lives in memory of a DLPack device type the importing library does not support: pinned "
       "(page-locked) host memory from `pin_memory()` reports kDLCPUPinned, which JAX's `from_dlpack` does not "
       "map, and managed (unified) CUDA memory, device type 13 (kDLCUDAManaged, from CuPy or RAPIDS with "
       "`managed_memory=True`), is not supported by several importers, torch's `from_dlpack` among them.",
       "Pass a tensor in ordinary memory: an unpinned CPU copy (`t.clone()` without `pin_memory()`), or move it "
       "to the GPU first (`t.cuda()`) and import that; pin only the buffers used for host-to-device copies; hand a "
       "CuPy array in managed memory over through the CUDA array interface (`torch.as_tensor(a, device='cuda')`) "
       "or allocate it without managed memory."),
)
