"""Frameworks other than torch (PaddlePaddle, Jittor, MLX, Julia's Lux, ggml readers, CTranslate2, OneFlow,
MindSpore): the dtype checks they raise in their own words."""
from __future__ import annotations

from amplora.doctor.kb.entry import make as _e
from amplora.doctor.kb.patterns import EXCEPTION_NAMED

FRAMEWORKS = (
    # Keras' stateful RNNs keep their state variables in the variable dtype (float32) under mixed_float16
    _e("keras-stateful-mixed", "mismatch", "a stateful Keras RNN under the mixed_float16 policy",
       r"\A(?=.*\bstateful\s*=\s*True|.*\bstateful (LSTM|GRU|RNN)\b)(?=.*\b(mixed[_ ]precision|mixed_float16)\b|"
       r".*\bfloat16\b)(?=.*(does not match type|has type float16|float32))",
       "Under the `mixed_float16` policy a stateful RNN keeps its persistent state variables in the variable "
       "dtype (float32) while the cell computes in float16, so the recurrent MatMul mixes the fp32 state with fp16 "
       "weights.",
       "Build the stateful layer in float32 (`LSTM(units, stateful=True, dtype='float32')`, the rest of the model "
       "stays mixed), or cast the state yourself in a custom cell."),
    # MindSpore: "For primitive[BatchMatMul], the input type must be same"
    _e("mindspore-input-type-same", "mismatch", "a MindSpore op given inputs of two dtypes",
       r"\bfor primitive ?\[\w+\],? (the )?input types? must be (the )?same\b",
       "A MindSpore primitive (BatchMatMul, MatMul, Add) takes all its inputs in one data type and got two: float16 "
       "beside float32, most often a part run in fp16 (an attention or decoder dtype option) meeting tensors or "
       "weights kept in fp32.",
       "Cast the inputs to one dtype before the op (`q.astype(v.dtype)`, `ops.cast(x, mstype.float16)`), or run that "
       "module in one dtype (the same `dtype` option for the whole model)."),
    # OneFlow's dtype check on an op's input (an older release did not count half as floating)
    _e("oneflow-op-dtype-check", "cpu-kernel", "a OneFlow op whose dtype check refused the input",
       r"NotImplementedError: Only support floating or integral data type",
       "The OneFlow op (`clamp` and others) checks its input against the floating and integral dtypes it knows, "
       "and the tensor's dtype is not among them: in that release float16 (half) and bfloat16 were not counted as "
       "floating, so a half tensor is not supported there (a bool or complex tensor fails the same way).",
       "Run that op in float32 (`x.float().clamp(0, 1).to(x.dtype)`), or upgrade OneFlow to a release whose check "
       "counts half and bfloat16 as floating."),
    _e("paddle-tensor-dtype", "mismatch", "a PaddlePaddle op read a tensor in another dtype than it holds",
       r"The type of data we are trying to retrieve does not match the type of data currently contained in the "
       r"container|Tensor holds the wrong type, it holds \w+,? but desires to be \w+",
       "A PaddlePaddle kernel reads its input as the dtype it was built for, and the tensor holds another: most "
       "often NumPy data, which is float64 by default (`np.arange(1, 60, 3.0)`, `np.random.rand`), fed to layers "
       "whose weights are float32, or float ids fed to an embedding, which needs int64.",
       "Cast the data where it enters: `x.astype('float32')` for features (`paddle.to_tensor(x, dtype='float32')`), "
       "`ids.astype('int64')` for embedding ids and class labels; or set `paddle.set_default_dtype('float64')` "
       "before building the model if it should compute in float64."),
    _e("caffe2-tensor-type", "mismatch", "a Caffe2 operator read a tensor of another element type",
       r"Tensor type mismatch, caller expects elements to be \w+ while tensor contains [\w:]+",
       "A Caffe2 operator reads its input as the element type it was written for, and the tensor holds another: "
       "in an fp16 net (`dtype='float16'` in the trainer) the data blob is fp16 while a weight such as `conv1_w` "
       "stayed float32 (or the reverse), so the Conv reads float elements from an fp16 (`__f16`) blob.",
       "Keep a net's inputs and weights in one type: create the weights in fp16 with the data (the trainer's fp16 "
       "initializers), or convert at the boundary with `HalfToFloat` / `FloatToHalf` operators."),
    _e("jittor-amp-dsize", "mismatch", "a Jittor op that mixed precision handed operands of two sizes",
       r"\b\w+->dtype\(\)\.dsize\(\) ?== ?\w+->dtype\(\)\.dsize\(\)",
       context=r"(?<![A-Za-z0-9_])(fp16|float16|half|auto_mixed_precision\w*|amp)(?![A-Za-z0-9_])",
       cause="Jittor's automatic mixed precision (`jt.flags.auto_mixed_precision_level` above 3 brings float16 in) "
       "does not convert every operator to fp16 yet, so one operand of an op arrives in float16 and the other in "
       "float32, and the op's check that both have the same element size fails.",
       fix="Keep `auto_mixed_precision_level` at 3 or below (no float16) for this model, or cast the op's inputs "
       "to one dtype (`x.float32()`, `x.float16()`) around it; upgrade Jittor for more fp16 operators."),
    _e("mlx-op-dtype", "backend", "an MLX op without a kernel for this dtype",
       r"\[metal::Device\] Unable to load kernel \w*_(bfloat16|float16|float64|complex64|u?int(8|16|64)|bool_?)\w*|"
       r"\[\w+::eval_(gpu|cpu)\] (Does not support|does not support|not supported( for)?) \w+",
       "This MLX operation has no kernel for the array's dtype on that device: MLX instantiates each Metal kernel "
       "per dtype, and some (scans such as `cumsum`, `arange`, several reductions in older releases) were not "
       "built or implemented for bfloat16 or other types, so the kernel cannot be loaded and the op is not "
       "supported.",
       "Run that op in a dtype it has (`x.astype(mx.float32)` or `mx.float16` before it, and back after), create "
       "the array in float32 and `astype` it, or upgrade MLX, whose later releases add the kernel."),
    _e("julia-mixed-eltype", "mismatch", "Float32 and Float64 arrays mixed in one Julia matmul",
       r"Mixed-Precision `?\w+!?`? detected",
       "The arrays of this matmul have different element types (Float32 parameters, as Lux and Flux create them, "
       "with a Float64 input or state from `zeros`, `rand` or literals), so LuxLib cannot use its fast kernel and "
       "falls back to a slow generic one, and the result is promoted to Float64.",
       "Give them one element type: `Float32.(x)` / `f32(x)` for the data and state (`zeros(Float32, 2, 3)`), or "
       "`f64(ps)` for the parameters if the model should run in Float64."),
    _e("ggml-type-unsupported", "backend", "a GGUF / ggml reader without this tensor type",
       r"\bUnsupported (quantization|ggml|tensor) type:? ?\d{1,2}\b|\bggml_type \d{1,2} not implemented\b|"
       r"\bon tensors with type '?(f16|bf16|f32|q\d\w*)'? is not (yet )?supported\b",
       "The tool reading this model has no case for the tensor type: ggml numbers its types (0 F32, 1 F16, 2 Q4_0, "
       "3 Q4_1, 8 Q8_0, 30 BF16, the others quantized formats), and a loader or tool written for some of them (a "
       "GGUF reader without F16, transformers' GGUF dequantizer in early releases, llama.cpp's finetune, which does "
       "not support f16 weights) refuses the rest as unsupported; a file's name need not tell its real type.",
       "Convert the model to a type the tool takes (`convert_hf_to_gguf.py --outtype f32` or `q8_0`, "
       "`llama-quantize`), or upgrade the reader to a release that supports that type."),
    _e("mlx-dequantize-uint32", "quantized", "MLX's dequantize given weights that are not packed uint32",
       r"\[dequantize\] The matrix should be given as a uint32",
       "MLX's `dequantize` reads quantized weights packed in uint32, and a weight of another dtype reached it: most "
       "often a model quantized twice (a checkpoint that is already 8-bit or 4-bit, whatever its name says, "
       "converted again with `-q`), or a quantization config applied to float weights.",
       "Start from the unquantized fp16/bf16 model (or dequantize first: `mlx_lm.convert --dequantize`), then "
       "quantize once to the bits wanted."),
    # the gguf package returns BF16 tensors as raw bytes (NumPy has no bfloat16)
    _e("gguf-bf16-raw-bytes", "mismatch", "a GGUF loader that took BF16 bytes for values",
       r"\A(?=.*\bGGUF\b)(?=.*\b(BF16|bfloat16)\b)(?=.*\b(garbage|gibberish|incoherent|nonsense|corrupt\w*)\b)"
       r"(?=.*\bsafetensors\b[^.\n]{0,40}\b(works?|fine|correct\w*)\b)",
       unless=EXCEPTION_NAMED,
       cause="The `gguf` Python package returns BF16 tensors as raw uint8 bytes (NumPy has no bfloat16), shaped with "
       "twice the columns, and a loader that wraps them as bfloat16 without reinterpreting the bytes corrupts every "
       "weight, while the same model from safetensors loads right.",
       fix="Reinterpret the bytes instead of converting them (`torch.from_numpy(a).view(torch.bfloat16)` / "
       "`a.view(ml_dtypes.bfloat16)`), or upgrade the loader where that is fixed."),
    _e("ctranslate2-storage-type", "backend", "a CTranslate2 code path that expects another storage type",
       r"expected storage to be of type \w+, but is of type \w+",
       "CTranslate2 converts the model to its `compute_type` when loading, and one of its code paths (a search "
       "option such as returned scores, a model type new to that compute type) expects another storage type than "
       "that compute type gives it (float32 scores under `int8_float16`, float16 storage under bfloat16): a "
       "combination this release does not support, not a dtype of the user's data.",
       "Load with another compute type (`compute_type='float16'`, `'int8_float32'` or `'float32'`, `'int8'` on the "
       "CPU), or upgrade CTranslate2 (and faster-whisper), which fixed such paths (or go back to the previous "
       "release)."),
    # R torch's module cast, whose dtype check did not count bfloat16 as floating point
    _e("r-torch-bf16-cast", "cpu-kernel", "R torch refusing to cast a module to bfloat16",
       r"nn\.Module\.to only accepts floating point\W+dtypes, but got desired dtype BFloat16",
       cause="R torch's `nn_module$to()` checks that the target dtype is floating point, and its check did not "
       "count bfloat16 as one: casting a module with `torch_bfloat16()` is not supported by that release, though "
       "the bf16 tensors themselves work.",
       fix="Upgrade the R torch package, or cast the module to `torch_float16()` / keep it `torch_float32()`; cast "
       "single tensors with `$to(dtype = torch_bfloat16())` where bf16 is needed."),
)
