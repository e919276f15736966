"""Runtimes in browsers and on phones (ONNX Runtime Web and Node, TensorFlow.js, TFLite's GPU delegate, Core ML's
predict, ExecuTorch, MNN): the dtypes their tensors, textures and bindings hold, and the fp16 they compute in."""
from __future__ import annotations

from amplora.doctor.kb.entry import make as _e
from amplora.doctor.kb.patterns import EXCEPTION_NAMED

# CJK characters are word characters, so "模型fp16精度" has no \b around fp16
_FP16 = r"(?<![a-z0-9])(fp16|float16|half)(?![a-z0-9])"
_FP32 = r"(?<![a-z0-9])(fp32|float32)(?![a-z0-9])"

WEBMOBILE = (
    _e("js-float16-array", "onnx", "JavaScript's Float16Array and Uint16Array mixed up for fp16 tensor data",
       r"float16 tensor'?s data must be (type of|an?) (function )?Float16Array|"
       r"\bTensor\.data must be a typed array \(\d+\) for float16 tensors|"
       r"\bFloat16Array\b[^\n]{0,80}\bUint16Array\b|\bUint16Array\b[^\n]{0,80}\bFloat16Array\b",
       "JavaScript had no float16 array type until `Float16Array` (Chrome 135, Node 24, newer Firefox and "
       "Safari), so ONNX Runtime Web / Node and transformers.js passed fp16 tensor data as `Uint16Array` bits; "
       "releases from before and after that change disagree on which of the two a float16 tensor's data must be, "
       "and the browser or Node version decides which one the code hands over.",
       "Upgrade onnxruntime-web / onnxruntime-node (and transformers.js, which bundles it) to a release that takes "
       "both Float16Array and Uint16Array for float16 tensors, with a matching onnxruntime-common; until then "
       "pass the type that release checks for, or use an fp32 model."),
    _e("webgl-int64", "onnx", "int64 tensors on ONNX Runtime Web's WebGL backend",
       r"\A(?=.*\bwebgl\b).*\bint64 (is |are )?not supported\b",
       "ONNX Runtime Web's WebGL backend keeps tensors in WebGL textures, which have no 64-bit integers, so a "
       "model with int64 tensors (shape arithmetic, indices, a `Cast` to int64) is not supported there; the "
       "wasm and WebGPU backends take int64.",
       "Run the session with `executionProviders: ['wasm']` (or `'webgpu'`), or convert the model's int64 "
       "tensors and initializers to int32 where the values fit."),
    _e("tfjs-weight-dtype", "onnx", "TensorFlow.js given weights of a dtype it cannot load",
       r"Unsupported dtype in weight '[^']*': (float16|float64|int64|bfloat16|uint8|int8|half|double)",
       "TensorFlow.js holds weights as float32, int32 or bool (with its own quantized shards), and this model "
       "stores a weight in another dtype (float16 from a mixed-precision SavedModel, float64, int64), which that "
       "converter and loader release does not support.",
       "Save the model in float32 before `tensorflowjs_converter` (cast the weights, export without mixed "
       "precision), or upgrade the converter, which turns float16 weights into float32; `--quantize_float16` "
       "gives fp16 storage the way tfjs reads it."),
    _e("executorch-dtype-check", "backend", "an ExecuTorch runtime without kernels for the exported dtype",
       r"Expected to find \w+ type, but tensor has type \w+",
       "An ExecuTorch runtime check found a tensor of another dtype than the kernel or binding handles: the "
       ".pte program was exported in a dtype (bf16, fp16) that the delegate, the portable kernels or the Java / "
       "Android binding do not support, or an input was given in another dtype than the exported one.",
       "Export in a dtype the runtime supports there (fp32; fp16 for the XNNPACK and Core ML delegates; bf16 "
       "is not supported by the Java / Android layer), and give inputs the exported dtype (float32 data for "
       "`Tensor.fromBlob`)."),
    _e("coreml-predict-input-type", "onnx", "Core ML's predict given an input it cannot convert",
       r"\bvalue type not convertible\b",
       "Core ML's `predict` converts each input to the model's declared feature type (a MultiArray of float32, "
       "float16, double or int32, an image) and could not convert this value's data type: a Python list of ints, "
       "an int64 or object NumPy array, or a scalar where an array is declared.",
       "Pass a NumPy array in the input's declared dtype: `np.array(values, dtype=np.float32)` (`np.int32` for an "
       "int32 MultiArray, never int64) in the declared shape; `model.get_spec().description.input` lists them.",
       context=r"coreml|MLModel|mlmodel|\.mlpackage"),
    _e("tflite-gpu-tensor-type", "onnx", "a quantized model on TFLite's GPU delegate",
       r"OP is supported, but tensor type isn'?t matched",
       "TFLite's GPU delegate runs float tensors (fp32 / fp16), and this model's tensors are of another type: a "
       "uint8 / int8 quantized model (`_quant.tflite`) with quantized-model support off in the delegate, or "
       "integer tensors feeding these ops, so they all fall back to the CPU.",
       "Use the float version of the model on the GPU delegate, or allow quantized models there "
       "(`GpuDelegate.Options().setQuantizedModelsAllowed(true)`, C++ `TFLITE_GPU_EXPERIMENTAL_FLAGS_ENABLE_QUANT`), "
       "or convert with float16 quantization (`converter.target_spec.supported_types = [tf.float16]`).",
       unless=r"Operation is not supported"),  # ops the delegate lacks fail it whatever the types
    _e("runtime-fp16-accuracy", "overflow", "an inference runtime's fp16 mode overflows or loses accuracy",
       r"\bPrecision_Low\b(?!_BF16).{0,300}(?<![a-z])(nan|inf)(?![a-z])|"
       r"\A(?=.*" + _FP32 + r"[^\n,，.。]{0,20}(正常|没问题|\b(fine|ok|okay|correct|good|normal|works?)\b))"
       r"(?=.*" + _FP16 + r"[^\n。]{0,20}(精度|accuracy|precision)[^\n。]{0,10}(下?降|drop|los[st]|lower|worse|"
       r"bad|不对|差|不准|wrong))",
       "The runtime computes this model in fp16 (MNN's Precision_Low, the fp16 paths of ncnn, Paddle Lite, NNAPI "
       "and mobile GPUs), and its activations exceed fp16's range (65504) or need more than its 11 bits of "
       "precision, so results overflow to NaN or lose accuracy while fp32 is right.",
       "Run it in fp32 (MNN `Precision_Normal` / `Precision_High`, the runtime's fp32 option) or in bf16 where "
       "offered (MNN `Precision_Low_BF16`); keep the offending layers in fp32 if the runtime allows, or quantize "
       "weights to 8 bits while computing in fp32 to save memory."),
    # an NPU toolkit's int8 model whose outputs drift from the float model's
    _e("npu-int8-ptq-accuracy", "quantized", "an NPU model's int8 post-training quantization loses accuracy",
       r"\A(?=.*(量化|\bpost[- ]training quantiz\w*|\bPTQ\b|\bint8 quantiz\w*|\bquantized model\b))"
       r"(?=.*(精度[^\n。]{0,10}(降低|下降|损失|变差|差)|\b(accuracy|precision|mAP\w*) (drops?|dropped|degrad\w*|loss)\b))"
       r"(?=.*(rknn|\bnpu\b|\brv\d{3,4}\b|\brk\d{3,4}\b|hailo|\bsnpe\b|\bqnn\b|edge ?tpu))",
       unless=EXCEPTION_NAMED,
       cause="The NPU runs the model in int8 from post-training quantization, and its error concentrates in some "
       "layers (often the last ones, or outputs with a wide or skewed range), so those outputs drift from the "
       "float model's; a calibration set too small or unlike the real inputs makes every scale worse.",
       fix="Use the toolkit's hybrid (mixed) quantization to keep the sensitive layers in higher precision (fp16 or "
       "int16; RKNN's `hybrid_quantization_step1/2`), calibrate with more representative images, try per-channel "
       "quantization or another quantized algorithm (KL / MMSE), or fine-tune with quantization-aware training."),
)
