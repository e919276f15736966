"""Simulators and scientific libraries: a precision chosen by the simulator or target (FP32 / FP64, complex64 /
complex128), buffers read in another dtype than they were written, and libraries that compute in float64 whatever
the inputs."""
from __future__ import annotations

from amplora.doctor.kb.entry import make as _e
from amplora.doctor.kb.patterns import EXCEPTION_NAMED

_PREC = r"(FP|fp|float|Float|complex)(16|32|64|128)\b|single[- ]precision|double[- ]precision"

SCIENTIFIC = (
    _e("gp-gpu-tf32", "backend", "Gaussian-process solves on a GPU whose float32 matmuls run in TF32",
       r"\A(?=.*\b(GPs?|Gaussian process(es)?|gpytorch|botorch|kernel matri(x|ces))\b)(?=.*\b(GPUs?|cuda)\b)"
       r"(?=.*\b(noisy|wrong|inaccurate|incorrect|unstable|garbage)\b)",
       unless=EXCEPTION_NAMED + r"|out of memory|same device",
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
       r"\A(?=.*\b(to_cupy|frombuffer|fromfile|memmap|from_buffer|from_dlpack|\.view|feed_ndarray)\b)"
       r"(?=.*\bdtype\s*=\s*[\w.]*(complex64|complex128|float16|float32|float64|float)\b)(?=.*\d\.\d+e\+[1-3]\d)",
       "A device or host buffer was read back in another dtype than it holds: a complex128 / float64 buffer (an "
       "fp64 simulator target, a double-precision result) viewed as complex64 / float32, or the reverse, or a uint8 "
       "image copied byte for byte into a float32 buffer (DALI's `feed_ndarray`), so the bytes make huge numbers "
       "(1e+23) beside tiny ones.",
       "Read it with the dtype the producer used (complex128 for an fp64 target or simulator, the array's own "
       "`.dtype`, a uint8 buffer for uint8 output), and take that dtype from the producer rather than a default; or "
       "have the producer emit the dtype the buffer holds (a pipeline op's `dtype=types.FLOAT`)."),
    _e("promoted-to-float64", "mismatch", "a library that returns float64 whatever the input precision",
       r"\b(promot\w*|upcast\w*|convert\w*|cast\w*) to (float64|64-bit|double)( precision)?\b[^\n]{0,80}"
       r"\b(float32|32-bit|single)\b|\b(float32|32-bit|single[- ]precision) inputs?\b[^\n]{0,60}\b(float64|64-bit|"
       r"double)( precision)? (outputs?|results?)\b|"
       # "Output of RandomGhosting is not float32 ... torch.float64"
       r"\A(?=.*\b(is|are) not (float32|fp32|single[- ]precision)\b)(?=.*\b(torch\.|np\.)?float64\b)",
       "The library computes in float64 (complex128 state vectors, NumPy's defaults, scientific code) and returns "
       "float64 whatever the input precision, so float32 inputs are promoted and come back double, doubling memory "
       "and mismatching float32 models downstream.",
       "Cast the results back where they leave the library (`.astype(np.float32)`, `.float()`), or choose its "
       "single-precision option where it has one (a `c_dtype=np.complex64` or `dtype` argument, a float32 "
       "device or interface)."),
    # fixed-point encodings (secure computation, CrypTen): more fractional bits leave fewer for the integer part
    _e("fixed-point-precision-bits", "overflow", "fixed-point values that wrap around with too many precision bits",
       r"\A(?=.*\bprecision[_ ]bits?\b)(?=.*\b(crypten|fixed[- ]point|encoder|cryptensor|fix_prec)\b)"
       r"(?=.*\b(incorrect|wrong|garbage|zeros?|overflow\w*|wrap\w*)\b)",
       "Fixed-point encodings scale each value by 2^precision_bits into a fixed integer ring (64 bits in CrypTen): "
       "more precision bits leave fewer for the integer part, and the products and truncations of approximated "
       "functions (exp, reciprocal, log) overflow it and wrap around, giving zeros or garbage.",
       "Keep the precision bits at the library's default (16 in CrypTen; at most about 22-29 for small values), "
       "scale inputs down so products fit the ring, or compute that function outside the encrypted part."),
    # integers past 2**24 through a float32 (a GEMM epilogue, a float32 counter): the low bits are lost
    _e("float32-integer-24-bits", "overflow", "integers above 2^24 rounded by a float32 step",
       r"\A(?=.*(\b(24|twenty-four)[- ]bits?\b|\b2\s?(\^|\*\*)\s?24\b|\b16777216\b|\b16,777,216\b))"
       r"(?=.*\b(float|float32|fp32|single)\b)(?=.*\b(int32|s32|integers?|counts?|accumulators?)\b)",
       "float32 has a 24-bit significand, so integers above 2^24 (16,777,216) are not all representable: an int32 "
       "accumulator or count that passes through float32 (a GEMM epilogue computing in float, a float32 counter or "
       "histogram) loses its low bits and comes out off by one or more.",
       "Keep the value integer end to end (an int32 epilogue compute type, `int64` counters, `torch.bincount`), "
       "or use float64 where a float is needed."),
    # float32 arithmetic shown with its numbers: a residual of ~1e-7 where zero is exact, a sum short of a threshold
    _e("float32-rounding", "overflow", "float32 rounding error shown in the results",
       r"\A(?=.*\b(float32|single[- ]precision|complex64|FloatTensor)\b)(?=.*\bshould (return|be|give|equal) "
       r"(exactly )?(zero|0)\b)(?=.*\b[1-9](\.\d+)?e-0?[5-8]\b)|"
       r"\A(?=.*\bfloating[- ]point (precision|rounding|round-off) (error|issue|problem)s?\b)"
       r"(?=.*\b(float32|fp32|FloatTensor|torch\.tensor|np\.float32)\b)",
       cause="float32 keeps about 7 significant digits (machine epsilon 1.19e-7), so results that are exact in "
       "theory carry rounding error: an expectation that should be zero comes out near 1e-7, and a sum of "
       "values not exactly representable in binary (0.02 fifty times) lands just below or above the exact total, "
       "so a comparison with a threshold misses; a library that simulates in float32 / complex64 gives such "
       "residuals whatever dtype is asked for.",
       fix="Compare with a tolerance (`v >= threshold - eps`, `torch.isclose`), use float64 / complex128 where the "
       "library offers it (or a library that simulates in double precision), or choose step values exactly "
       "representable in binary (powers of two)."),
    # LAPACK, cuSOLVER and MAGMA have no 16-bit routines
    _e("linalg-half-unsupported", "cpu-kernel", "a matrix decomposition in fp16 / bf16",
       r"Low precision dtypes not supported\. Got (BFloat16|Half)|"
       r"Could not find device for node: \{\{node (Cholesky|Svd|Qr|MatrixInverse|MatrixDeterminant|SelfAdjointEigV2|"
       r"MatrixSolve\w*|Lu|MatrixTriangularSolve|MatrixExponential|Eig)\}\} = \w+\[T=DT_(HALF|BFLOAT16)|"
       r"\A(?=.*\b(linalg|qr|svd|cholesky|eigh?|lu|inv|inverse|solve|lstsq|det)\b)(?=.*Unsupported dtype (bfloat16|"
       r"float16|half)\b)",
       "Matrix decompositions and solvers (cholesky, svd, eigh, qr, lu, inv, solve, lstsq, det) run on LAPACK, "
       "cuSOLVER or MAGMA routines, which exist for float32, float64 and complex only: fp16 and bf16 are not "
       "supported (too few bits for a stable decomposition), so the op has no kernel for a half-precision model's "
       "or autocast's tensors.",
       "Compute that op in float32 and cast back: `torch.linalg.inv(x.float()).to(x.dtype)` (inside "
       "`torch.autocast(..., enabled=False)` under autocast), `tf.cast(x, tf.float32)` in TensorFlow, "
       "`x.astype(jnp.float32)` in JAX; keep such modules fp32 in a bf16 / fp16 model."),
    _e("linalg-float32-conditioning", "overflow", "a decomposition that fails in float32 and works in float64",
       r"\A(?=.*\b(cholesky|eigh?|decomposition|factori[sz]ation|inverse|solve|lstsq|svd)\b)"
       r"(?=.*\b(f32|float32|single[- ]precision)\b)(?=.*\b(f64|float64|double)\b)"
       r"(?=.*\b(returns? None|fails?|failed|NaN|not positive[- ]definite|singular|ill[- ]conditioned)\b)",
       # a library that retries in double precision itself warns about the matrix, not about its dtype
       unless=EXCEPTION_NAMED + r"|out of memory|\bRetrying in double\b",
       cause="The matrix is close to singular or to losing positive definiteness, and float32's rounding error "
       "(about 1e-7 relative) is enough to make a pivot non-positive or a solve blow up, while float64's smaller "
       "rounding keeps the decomposition valid.",
       fix="Decompose in float64 (cast in, cast the result back), or regularise the matrix (add a small jitter "
       "`eps * I` to its diagonal) so float32 is enough."),
)
