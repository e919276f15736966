"""Simulators and scientific libraries: a precision chosen by the simulator or target (FP32 / FP64, complex64 /
complex128), buffers read in another dtype than they were written, and libraries that compute in float64 whatever
the inputs."""
from __future__ import annotations

from amplora.doctor.kb.entry import make as _e

_PREC = r"(FP|fp|float|Float|complex)(16|32|64|128)\b|single[- ]precision|double[- ]precision"

SCIENTIFIC = (
    _e("gp-gpu-tf32", "backend", "Gaussian-process solves on a GPU whose float32 matmuls run in TF32",
       r"\A(?=.*\b(GPs?|Gaussian process(es)?|gpytorch|botorch|kernel matri(x|ces))\b)(?=.*\b(GPUs?|cuda)\b)"
       r"(?=.*\b(noisy|wrong|inaccurate|incorrect|unstable|garbage)\b)",
       unless=r"\w+(Error|Exception):|out of memory|same device",
       cause="A Gaussian process solves with its kernel matrix, which a small likelihood noise makes nearly singular, "
       "so it needs every digit of float32 or more; on Ampere and newer GPUs float32 matmuls may run in TF32 (a "
       "10-bit mantissa: `torch.backends.cuda.matmul.allow_tf32`, the default in torch 1.7-1.11, or "
       "`set_float32_matmul_precision('high')` set by a framework), and the GPU's predictions come out noisy or "
       "wrong where the CPU's are right.",
       fix="Turn TF32 off for the solves (`torch.backends.cuda.matmul.allow_tf32 = False`, "
       "`torch.set_float32_matmul_precision('highest')`), and fit in float64 (`model.double()`, "
       "`train_x.double()`), as GPyTorch and BoTorch recommend for small noise."),
    _e("component-precision-mismatch", "mismatch", "data in another precision than the component was built for",
       r"\b(is|are) (" + _PREC + r")\b[^\n]{0,40}\bbut\b[^\n]{0,40}\b(is|are) (" + _PREC + r")",
       "Two parts that must share a precision do not: a simulator, target or runtime built for one precision "
       "(single: FP32, complex64) is given data in the other (double: FP64, complex128), or the reverse, and it "
       "checks instead of converting.",
       "Convert the data to the component's precision where it is made (`np.asarray(state, dtype=np.complex64)`, "
       "`std::vector<std::complex<float>>`), or choose the component's other precision (an fp64 target or "
       "simulator option), or upgrade to a release that converts.",
       context=r"\b(simulat\w*|backend|runtime|engine|state (data|vector))\b"),
    _e("buffer-read-wrong-dtype", "mismatch", "a buffer read back in another dtype than it holds",
       r"\A(?=.*\b(to_cupy|frombuffer|fromfile|memmap|from_buffer|from_dlpack|\.view)\b)"
       r"(?=.*\bdtype\s*=\s*[\w.]*(complex64|complex128|float16|float32|float64)\b)(?=.*\d\.\d+e\+[1-3]\d)",
       "A device or host buffer was read back in another dtype than it holds: a complex128 / float64 buffer (an "
       "fp64 simulator target, a double-precision result) viewed as complex64 / float32, or the reverse, so the "
       "bytes make huge numbers (1e+23) beside zeros.",
       "Read it with the dtype the producer used (complex128 for an fp64 target or simulator, the array's own "
       "`.dtype`), and take that dtype from the producer rather than a default."),
    _e("promoted-to-float64", "mismatch", "a library that returns float64 whatever the input precision",
       r"\b(promot\w*|upcast\w*|convert\w*|cast\w*) to (float64|64-bit|double)( precision)?\b[^\n]{0,80}"
       r"\b(float32|32-bit|single)\b|\b(float32|32-bit|single[- ]precision) inputs?\b[^\n]{0,60}\b(float64|64-bit|"
       r"double)( precision)? (outputs?|results?)\b",
       "The library computes in float64 (complex128 state vectors, NumPy's defaults, scientific code) and returns "
       "float64 whatever the input precision, so float32 inputs are promoted and come back double, doubling memory "
       "and mismatching float32 models downstream.",
       "Cast the results back where they leave the library (`.astype(np.float32)`, `.float()`), or choose its "
       "single-precision option where it has one (a `c_dtype=np.complex64` or `dtype` argument, a float32 "
       "device or interface)."),
)
