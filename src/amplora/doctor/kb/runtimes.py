"""Converted models on Apple's Core ML, Intel's OpenVINO and NVIDIA's TensorRT: half precision that the converter
or the engine chose, and what reading or constraining it takes."""
from __future__ import annotations

from amplora.doctor.kb.entry import make as _e
from amplora.doctor.kb.patterns import EXCEPTION_NAMED, HALF_SAID_RIGHT

_COREML = (r"coremltools|Core ?ML|\bmlpackage\b|\bmlprogram\b|\.?mlmodel\b|\bct\.convert\b|\bANE\b|"
           r"convert_neural_network(_spec)?_weights_to_fp16")
_OPENVINO = (r"OpenVINO|openvino|\bov::|\bov\.|\bIR model\b|\.xml\b.{0,40}\.bin\b|\bmo\b(?= tool| --)|"
             r"\bwhowhatbench\b|\b(inference|results?) on (the )?GPU plugin\b")
_BAD_OUTPUT = (r"\b(nans?|NaNs?|infs?|wrong|incorrect|differ\w*|garbage|anomal\w*|mismatch\w*|not (the )?same|"
               r"overflow\w*|e\+3\d|worse|degrad\w*|(problems?|issues?) (of|with) (precision|accuracy)|"
               r"(precision|accuracy|quality) (problems?|issues?|loss|drop)|los(e|es|ing|t) [\w ]{0,20}"
               r"(quality|accuracy|precision))\b")

RUNTIMES = (
    # TensorRT-LLM ignores a LoRA adapter whose storage type differs from the engine's LoRA plugin dtype
    _e("trtllm-lora-dtype", "mismatch", "a LoRA adapter converted in another dtype than the engine's LoRA plugin",
       r"\A(?=.*--lora_plugin\s+(?P<lp>b?float\d+)\b)(?=.*--storage-type\s+(?!(?P=lp)\b)b?float\d+\b)",
       "The engine was built with its LoRA plugin in one dtype (`--lora_plugin bfloat16`) and the adapter converted "
       "with another storage type (`--storage-type float16`); the dtype mismatch is not checked, the adapter is "
       "silently not applied, and the base model answers.",
       "Convert the adapter with the plugin's dtype (`--storage-type bfloat16`), or build with `--lora_plugin "
       "float16` (or `auto`, taking the checkpoint's dtype) so both are the same."),
    _e("candle-backend-dtype", "backend", "a Candle backend (text-embeddings-inference) without this dtype",
       r"\bbackend does not support (f16|bf16|f32|f64) \w+|"
       r"\A(?=.*(candle|text[-_]embeddings|\bTEI\b)).*\bis only supported in (fp32|f32|float32)( precision)?\b|"
       r"Could not start Candle backend[^\n]{0,200}\b(f16|bf16|float16|fp16|dtype|precision)\b",
       cause="The Candle backend (text-embeddings-inference, Rust servers built on Candle) implements each model and "
       "op in some dtypes only: its CPU backends (Apple Accelerate, MKL) have no f16 matmul, and some models (Gemma3 "
       "in text-embeddings-inference) run only in fp32, so a server started in float16 refuses them.",
       fix="Start it in fp32: `--dtype float32` (on a CPU or a Mac fp32 is the dtype that works); keep float16 for "
       "CUDA GPUs and models that support it."),
    _e("candle-op-dtype-mismatch", "mismatch", "a Candle (Rust) op got two dtypes",
       r"\bdtype mismatch in \w+, lhs: \w+, rhs: \w+|\bDTypeMismatchBinaryOp \{ ?lhs: \w+, rhs: \w+",
       "A Candle (Rust) binary op got its two operands in different dtypes (F16 / BF16 against F32), which Candle "
       "never converts on its own: a model loaded in half precision meets a tensor its code builds itself in F32, "
       "such as a causal mask, a sinusoidal positional embedding or a rotary table, or an input made in F32.",
       "Make the tensor in the model's dtype where the code builds it: `.to_dtype(vb.dtype())` or "
       "`.to_dtype(x.dtype())` on the mask or embedding, or load the model with `DType::F32`; a model fixed upstream "
       "(candle-transformers, mistral.rs) needs a newer release."),
    _e("triton-config-datatype", "backend", "Triton's config.pbtxt declares another data type than the model has",
       r"unexpected datatype \w+ for (input|output) '[^'\n]*',? expecting TYPE_\w+|"
       r"\b(inference )?(input|output) '[^'\n]*' data-?type is '\w+', but model '[^'\n]*' expects '\w+'|"
       # an fp16 TensorRT engine whose config declares fp16 inputs
       r"\A(?=.*\bdata_type:\s*TYPE_FP16\b)(?=.*\b(tensorrt_plan|TensorRT|trtexec|engine)\b)"
       r"(?=.*\b(FP16|fp16)\b[^\n]{0,40}\b(engine|build|built|compiled)\b|"
       r".*\b(engine|build|built|compiled)\b[^\n]{0,40}\b(FP16|fp16)\b)",
       "Triton Inference Server checks each input and output against the `data_type` in the model's "
       "`config.pbtxt`, and the config declares another type than the model's own (an ONNX input that is INT64 "
       "declared `TYPE_FP32`, or a TensorRT engine built with `--fp16`, whose inputs and outputs stay FP32, "
       "declared `TYPE_FP16`): the first type in the message is the model's.",
       "Declare the model's own types in config.pbtxt (`data_type: TYPE_INT64` for an INT64 input; `TYPE_FP32` for "
       "the inputs and outputs of an fp16-built TensorRT engine, unless it was built with fp16 I/O formats), and "
       "send the client's tensors in that type (`np.float32`)."),
    _e("tf-serving-json-half", "backend", "TensorFlow Serving's REST API given a half-precision input",
       r"Conversion of JSON Value:?\s.{0,60}\bto type:? ?(half|bfloat16)\b",
       "TensorFlow Serving's REST (JSON) front end converts JSON numbers only to the types it has a conversion "
       "for, and DT_HALF (float16) and bfloat16 are not supported there: a model whose signature takes fp16 "
       "inputs cannot be fed through the JSON API.",
       "Send the request over gRPC (`PredictRequest` with a `tf.make_tensor_proto(x.astype(np.float16))`), or "
       "export the model with a float32 input signature that casts to fp16 inside (`tf.cast(x, tf.float16)`)."),
    _e("coreml-fp16-precision", "overflow", "a Core ML program computing in fp16 overflows or drifts",
       rf"(fp16|float16|FLOAT16|half).{{0,400}}{_BAD_OUTPUT}|{_BAD_OUTPUT}.{{0,400}}(fp16|float16|FLOAT16|half)|"
       r"overflow encountered in cast|\bNaNs?\b|"
       # outputs that differ from the source model where the GPU (fp16) runs it
       r"\A(?=.*\bmismatch\w*\b)(?=.*\b(runs? on (the )?gpu|GPU|neural engine|ANE)\b)",
       context=_COREML, unless=r"same data type as the named input",
       cause="coremltools converts to an ML program with fp16 compute precision by default (and fp16 when asked), "
       "so an intermediate value beyond fp16's 65504 (often inside ops the converter fused, which do not map "
       "1:1 to the torch layers) becomes inf/NaN, or fp16 rounding makes the outputs differ from the fp32 model.",
       fix="Convert with fp32 compute (`ct.convert(..., compute_precision=ct.precision.FLOAT32)`), or keep only "
       "the overflowing ops in fp32 (`compute_precision=ct.transform.FP16ComputePrecision(op_selector=lambda op: "
       "op.op_type not in {...})`); compare per-layer outputs with `coremltools.models.ml_program.experimental."
       "debugging_utils` to find them."),
    _e("coreml-half-source", "mismatch", "a torch model cast to fp16 or bf16 before Core ML conversion",
       r"the named input .?\w+.? must have the same data type as the named input|"
       r"PyTorch convert function for op '(bfloat16|_to_copy_bfloat16|to_bfloat16)' not implemented|"
       r"\A(?=.*(" + _COREML + r"))(?=.*\b(fp16|float16)\b.{0,80}\b(fp32|float32)\b.{0,40}(mismatch|must (have|be) "
       r"the same))",
       "coremltools expects a float32 source model: it lowers to fp16 itself through `compute_precision`, and a "
       "torch model cast with `.half()` before `torch.jit.trace` / `ct.convert` leaves ops whose inputs are half "
       "fp16 (the traced weights) and half fp32 (constants and casts the converter adds), and a model that casts "
       "to bf16 (`.bfloat16()`, a bf16 checkpoint traced as is) meets ops Core ML has no bf16 conversion for.",
       "Trace and convert the float32 model and let Core ML make it fp16: `ct.convert(torch.jit.trace(model.float()"
       ".eval(), x.float()), convert_to='mlprogram', compute_precision=ct.precision.FLOAT16)`, with "
       "`ct.TensorType(..., dtype=np.float16)` inputs if the app feeds fp16; do not call `.half()` or `.bfloat16()` "
       "on the torch model."),
    _e("openvino-precision-hint", "overflow", "OpenVINO computes in f16 / bf16 by default on GPUs and new CPUs",
       r"INFERENCE_PRECISION_HINT|inference_precision_hint|"
       r"\A(?=.*(OpenVINO|openvino|benchmark_app))"
       r"(?=.*\b(defaults? to|runs? in|uses?|executes? in) (bf16|bfloat16|f16)\b)|"
       # NaN or a run of '!' (token 0 of NaN logits) from the GPU plugin
       r"\A(?=.*(" + _OPENVINO + r"))(?=.*\bGPU\b)(?=.*(\bNaNs?\b|!{6,}))|"
       # a plugin config that picked f16, with f32 as the remedy: "when the plugin_config ... picks f16"
       r"\A(?=.*(" + _OPENVINO + r"))(?=.*\b(picks?|picked|chooses?|chose|selects?|selected) (f16|fp16)\b)"
       r"(?=.*\b(f32|fp32)\b)",
       cause="OpenVINO runs inference in f16 on GPUs (and bf16 on CPUs with AMX or AVX512-BF16) by default, whatever "
       "the model's fp32 weights, so results differ from fp32 and can overflow.",
       fix="Ask for full precision: `core.set_property('GPU', {'INFERENCE_PRECISION_HINT': 'f32'})` (or "
       "`benchmark_app -infer_precision f32`; its `-ip` sets only the input precision), (or "
       "`EXECUTION_MODE_HINT: ACCURACY`), with optimum-intel `ov_config={'INFERENCE_PRECISION_HINT': 'f32'}`."),
    _e("openvino-gpu-no-layout", "backend", "OpenVINO's GPU plugin has no kernel for this data type",
       r"No layout format available for \S+, impl_type: \w+ \(format: \w+, data_type: (bf16|f64|i64|u8|i8|f16)\)",
       cause="OpenVINO's GPU plugin has no kernel of that layer for the data type named (`data_type`): bf16 "
       "tensors that stayed bf16 after conversion on an Intel GPU that computes f16 but not bf16 (Arc, Xe-LPG, "
       "integrated graphics), or f64 / 64-bit integers the GPU plugin does not compute.",
       fix="Convert the model's remaining bf16 (or f64) tensors to f16 / f32 before compiling for the GPU (export "
       "in fp16 or fp32 rather than bf16, `ov.save_model(..., compress_to_fp16=True)`), set "
       "`INFERENCE_PRECISION_HINT` to f16, or upgrade OpenVINO (later releases convert leftover bf16 and add "
       "kernels); the CPU plugin runs it meanwhile."),
    _e("openvino-f16-output", "mismatch", "an OpenVINO f16 output read as f32",
       r"(fp16|f16|float16|FP16|half).{0,600}(float\s*\*|data\(\)|\bget_data\b|e\+3\d|garbage|incorrect|wrong|"
       r"anomal\w*)|(float\s*\*|data\(\)).{0,600}(fp16|f16|FP16|half)",
       context=_OPENVINO,
       unless=HALF_SAID_RIGHT,
       cause="A model exported or converted in half precision keeps f16 element types on its inputs/outputs in "
       "OpenVINO, and reading that buffer as `float*` (or feeding float32 data into an f16 input) reinterprets "
       "fp16 bits as fp32, which gives garbage values such as -4.3e+37.",
       fix="Read the tensor in its element type (`output.data<ov::float16>()`, check "
       "`output.get_element_type()`), or make the model's I/O f32 (`ov.preprocess.PrePostProcessor`: "
       "`ppp.output().tensor().set_element_type(ov.Type.f32)`), or export in fp32 and let OpenVINO compress "
       "weights (`compress_to_fp16`) while keeping f32 I/O."),
    _e("openvino-weights-f16", "overflow", "an OpenVINO model whose results differ from fp32",
       r"\A(?=.*(" + _OPENVINO + r"|\bovc\b))(?=.*(Mismatched elements|Greatest (absolute|relative) difference|"
       r"assert_close|allclose|numerical(ly)? (discrepanc\w*|differen\w*|mismatch\w*)|results? (differ\w*|"
       r"mismatch\w*|(are |is )?not (the )?same)|outputs? (differ\w*|mismatch\w*)|accuracy (drop|loss|degrad\w*)|"
       r"precision (loss|drop)))",
       cause="OpenVINO's converters (`ov.save_model`, `ovc`, `mo` since 2023) compress the weights to FP16 by "
       "default when they write the IR, and GPUs (and CPUs with AMX / AVX512-BF16) compute in f16 / bf16 by "
       "default, so an IR's outputs differ from the fp32 model by fp16 rounding (~1e-3 relative) while the same "
       "model read from ONNX keeps its FP32 weights.",
       fix="Keep the weights FP32 when saving (`ov.save_model(model, path, compress_to_fp16=False)`, `ovc "
       "--compress_to_fp16=False`), and compute in f32 to compare (`core.compile_model(model, device, "
       "{'INFERENCE_PRECISION_HINT': 'f32'}`); otherwise compare with an fp16-sized tolerance."),
    _e("smoothquant-gemm-tactic", "device-capability", "no SmoothQuant INT8 GEMM kernel for this GPU",
       r"No valid SQ GEMM tactic",
       "TensorRT-LLM's SmoothQuant (W8A8) GEMM plugin found no INT8 kernel for this GPU and shape: INT8 tensor "
       "cores arrived with Turing (sm75), so Volta (V100) and older GPUs have no SmoothQuant GEMM.",
       "On Volta build an fp16 engine or a weight-only quantized one (`--use_weight_only`, int8 / int4 weights "
       "with fp16 activations); use SmoothQuant on Turing, Ampere or newer GPUs."),
    _e("tensorrt-fp16-inf", "overflow", "a TensorRT engine whose results overflow to inf",
       r"\A(?=.*\b(TensorRT|trtexec|TRT)\b)(?=.*\b(results?|outputs?)\b[^\n]{0,30}\b(explod\w*|overflow\w*)\b"
       r"[^\n]{0,20}\binf\b)",
       "TensorRT runs layers in fp16 when the engine is built with FP16 allowed, and an intermediate above fp16's "
       "largest value (65504) overflows to inf: a norm (l2_normalize, a sum of squares), a large activation or an "
       "unnormalized input.",
       "Force that layer to fp32 (`layer.precision = trt.float32` with `BuilderFlag.OBEY_PRECISION_CONSTRAINTS`, "
       "or `trtexec --precisionConstraints=obey --layerPrecisions=<layer>:fp32`), build without `--fp16`, or keep "
       "inputs and weights in a small range."),
    _e("tensorrt-no-native-fp16", "device-capability", "TensorRT FP16 asked of a GPU without fast fp16",
       r"\b(Half2|FP16) support requested on hardware without native FP16 support",
       # beside a failure of its own (a TensorRT too old for the GPU), or one that FP32 shares, it is only a notice
       unless=r"Unsupported SM|\b(FP32|fp32|float32)\b[^.\n]{0,20}\b(also|too)\b[^.\n]{0,10}\bfail",
       cause="The engine was built with FP16 allowed, but this GPU has no native fast FP16 arithmetic (compute "
       "capability 6.1 Pascal cards such as the GTX 10xx and P40, and older ones), so TensorRT does not support "
       "fast FP16 there: the FP16 kernels run slowly or TensorRT picks FP32 ones.",
       fix="Build the engine without `--fp16` (FP32), or INT8 where the GPU has DP4A (compute capability 6.1); check "
       "the GPU's compute capability against TensorRT's precision support matrix, and use FP16 on Volta, Turing "
       "and newer (or P100, compute capability 6.0)."),
    _e("tensorrt-fp16-flag", "backend", "a TensorRT engine built without the FP16 flag stays fp32",
       r"\bnot (a |an )?(fp16|float16|half)\b[^\n]{0,80}\b(but|instead)\b[^\n]{0,40}\b(fp32|float32)|"
       r"\b(fp32|float32) (model|engine|file|plan)\b[^\n]{0,40}\binstead of (a |an )?(fp16|float16)|"
       r"\b(still|stays?|remains?|is) (in )?(fp32|float32)\b[^\n]{0,60}\b(although|even though|despite)\b[^\n]{0,60}(fp16|float16)",
       "TensorRT builds fp32 kernels unless the builder config carries the FP16 flag: a converter option that "
       "names a precision (`model_dtype_nbits=16`, a dtype argument) but does not set `BuilderFlag.FP16` leaves "
       "the engine fp32, the same size and speed as before.",
       "Set the flag when building: `config.set_flag(trt.BuilderFlag.FP16)` (C++ "
       "`builderConfig->setFlag(nvinfer1::BuilderFlag::kFP16)`), or `trtexec --onnx=model.onnx --fp16`; a "
       "strongly typed network takes its precision from the ONNX types instead (export the model in fp16).",
       context=r"TensorRT|\bTRT\b|trtexec|onnx2trt|\bengine\b|builder"),
    _e("fp16-io-buffers", "backend", "fp32 buffers fed to an engine with fp16 inputs and outputs",
       r"\A(?=.*\b(fp16|half|float16)\b)(?=.*\b(engine|TensorRT|trt|bindings?)\b)(?=.*(\b(2|two)[ -]bytes?\b.{0,80}"
       r"\b(4|four)[ -]bytes?\b|\b(4|four)[ -]bytes?\b.{0,80}\b(2|two)[ -]bytes?\b|\bno detections?\b|"
       r"\bdetects? nothing\b|\bnothing (is )?detected\b))",
       "An engine exported in half precision (`--half`, an fp16 ONNX model) has fp16 input and output bindings, "
       "2 bytes an element, while the host code allocates and fills 4-byte float32 buffers (or reads the output "
       "as float32): the engine reads garbage, so it runs but detects nothing.",
       "Give the bindings fp16 data: allocate 2-byte buffers and convert (`np.float16`, `__half`), reading the "
       "output the same way; or build the engine from an fp32 ONNX model with `--fp16` (fp32 inputs and outputs, "
       "fp16 inside), checking `engine.get_tensor_dtype(name)` for each binding."),
    _e("ncnn-fp16", "backend", "ncnn's fp16 storage or arithmetic changes the results",
       r"\buse_(fp16|bf16)_(arithmetic|storage|packed)\b|"
       r"\A(?=.*\bncnn\w*)(?=.*(全黑|黑图|输出是全黑|误差|\bblack\b|\bdark\b|garbage|wrong (output|result)|"
       r"noise|"
       r"\b(output|result)s? diff(erence)?\b))",
       context=r"ncnn|\bopt\.|->opt",
       cause="ncnn runs layers with fp16 storage and fp16 arithmetic on ARM CPUs (and Vulkan GPUs) where the "
       "hardware has it, on by default: an activation past fp16's 65504 overflows, or a faulty fp16 kernel (1x1 "
       "convolutions among them) makes outputs differ from fp32.",
       fix="Set `opt.use_fp16_arithmetic = false` (then `use_fp16_storage`, `use_fp16_packed`) to confirm, or run the "
       "ncnn-Vulkan tool in fp32 (its fp32 / `-x`-style option; older or integrated GPUs often lack working fp16); keep "
       "the affected layers or the model in fp32, scale inputs into fp16's range, and upgrade ncnn or report the "
       "layer if a single kernel is wrong."),
    _e("tensorrt-precision-ignored", "backend", "TensorRT ignored the precision set on a layer",
       r"obeys the requested constraints|compute precision set, but precision constraints were not enabled|requested layer computation precision and output precision types are "
       r"ignored|precision constraints? (is|are|was|were)? ?ignored|setPrecision.{0,100}(ignored|no effect)",
       "A layer's precision (`layer.precision = kFLOAT`, `setOutputType`) was set to keep it in fp32 inside an "
       "fp16 engine, but TensorRT treats it as a hint unless told to obey it, and here no fp32 tactic exists for "
       "the fused layer, so it still runs in fp16 (where fp16-sensitive layers overflow or lose accuracy).",
       "Make TensorRT obey: `config.set_flag(trt.BuilderFlag.OBEY_PRECISION_CONSTRAINTS)` "
       "(`--precisionConstraints=obey --layerPrecisions=...` in trtexec), avoid the fusion that swallowed the "
       "layer (mark its output as a network output or export it unfused), or build that part in fp32; newer "
       "TensorRT releases honour more constraints."),
    _e("tensorrt-layer-precision-flag", "backend", "a layer set to a precision the TensorRT builder was not given",
       r"(fp16|bf16|int8|fp8) precision has been set for a layer or layer output, but (fp16|bf16|int8|fp8) is not "
       r"configured in the builder",
       "A layer's precision or output type was set to fp16/bf16/int8 (`layer.precision`, `set_output_type`, "
       "trtexec `--layerPrecisions`) in a build whose config does not enable that precision, so TensorRT refuses "
       "the network.",
       "Enable the precision in the builder (`config.set_flag(trt.BuilderFlag.FP16)`, trtexec `--fp16`), or drop "
       "the per-layer setting; with a strongly typed network set types in the ONNX model instead."),
    _e("tensorrt-strongly-typed", "backend", "a precision flag on a strongly typed TensorRT network",
       r"getFlag\(BuilderFlag::k(FP16|BF16|INT8|FP8|INT4|TF32)\)|strongly[ _-]?typed.{0,200}(BuilderFlag|kFP16|"
       r"kBF16|kINT8|precision flags?|--fp16|--bf16|--int8)|(BuilderFlag|kFP16|kBF16|kINT8|--fp16|--bf16|--int8)"
       r".{0,200}strongly[ _-]?typed",
       "The network is strongly typed (always in TensorRT-RTX; in TensorRT 10 when created with "
       "`NetworkDefinitionCreationFlag.STRONGLY_TYPED` or trtexec `--stronglyTyped`): every tensor's precision comes "
       "from the types in the ONNX model, so builder precision flags (FP16, BF16, INT8, FP8) are refused.",
       "Drop the flag (`config.set_flag(trt.BuilderFlag.FP16)`, trtexec `--fp16`): an fp16 ONNX model already "
       "builds an fp16 engine; to get fp16 from an fp32 model convert the ONNX model itself "
       "(`onnxconverter_common.float16.convert_float_to_float16`, or export the model in half), or build a weakly "
       "typed network on a TensorRT that still has them."),
    _e("kv-cache-quant-needs-fa", "backend", "a quantized KV cache without flash attention (llama.cpp)",
       r"V cache quantization requires flash[_ ]?attn|quantized (V|KV) cache requires flash[_ ]?attn",
       cause="llama.cpp (and Ollama, LM Studio or KoboldCpp on it) can quantize the V cache (`q8_0`, `q4_0` KV "
       "cache types) only with flash attention on; when flash attention is off, or forced off for a model or GPU "
       "it does not support, the quantized cache cannot be created and the context fails.",
       fix="Use the default f16 KV cache for that model (unset `OLLAMA_KV_CACHE_TYPE`, `--cache-type-v f16`), or "
       "turn flash attention on (`-fa`, `OLLAMA_FLASH_ATTENTION=1`) where the model and GPU support it."),
    _e("ggml-cublas-fp16", "overflow", "llama.cpp's forced cuBLAS path in fp16 gives garbage",
       r"GGML_CUDA_FORCE_CUBLAS:?\s*(yes|ON|1)\b|-DGGML_CUDA_FORCE_CUBLAS=ON|-DGGML_CUDA_F16=ON",
       context=r"gibberish|garbage|garbled|nonsense|\bG{6,}|repeat\w*|\bnan\b|!!!!",
       cause="llama.cpp's CUDA backend built with `GGML_CUDA_FORCE_CUBLAS` (and `GGML_CUDA_F16`) runs its matrix "
       "multiplications through cuBLAS with fp16 intermediates, and long prompts or large activations exceed fp16's "
       "range (65504): the output turns to garbage ('GGGG...', repeated tokens).",
       fix="Rebuild without `-DGGML_CUDA_FORCE_CUBLAS=ON` and `-DGGML_CUDA_F16=ON` (the default MMQ kernels "
       "accumulate in fp32), or keep those flags only for short contexts."),
    _e("tflite-input-dtype", "onnx", "a TFLite interpreter given input of another dtype",
       r"cannot set tensor: got value of type (\w+) but expected type (\w+)",
       cause="A TFLite interpreter's input has a fixed dtype (float32 for a float model, uint8 / int8 for a fully "
       "quantized one) and `set_tensor` got another: OpenCV images are uint8, NumPy defaults to float64.",
       fix="Convert to the input's dtype from `input_details[0]['dtype']`: `x.astype(np.float32)` (with the "
       "model's normalisation) for a float model; for a quantized input scale it with the input's `quantization` "
       "(scale, zero_point) and cast to uint8 / int8."),
    _e("tflm-hybrid-model", "onnx", "a dynamic-range (hybrid) quantized model on TFLite Micro",
       r"Hybrid models are not supported on TFLite Micro",
       cause="The model mixes types TFLite Micro's kernel does not support together: dynamic-range (hybrid) "
       "quantization gives int8 weights with float32 activations (the default of `converter.optimizations = "
       "[tf.lite.Optimize.DEFAULT]` alone), the experimental 16x8 mode int8 weights with int16 activations, and "
       "TFLite Micro's kernels take a float model or a fully int8 one.",
       fix="Convert with full integer quantization (a `representative_dataset`, `supported_ops = "
       "[tf.lite.OpsSet.TFLITE_BUILTINS_INT8]`, int8 input and output types), or keep a plain float model."),
    _e("tflm-type-check", "onnx", "a TFLite (Micro) kernel refused its tensor's type",
       r"(->type|\b\w*_type) == kTfLite\w+[^\n]{0,200}?\bwas not true|"
       r"\bType (U?INT8|INT16|INT32|INT64|FLOAT16|FLOAT32|FLOAT64|BOOL) \(\d+\) (is )?not supported|"
       r"\bType '(U?INT8|INT16|INT32|INT64|FLOAT16|FLOAT32|FLOAT64|BOOL)' is not supported by \w+|"
       r"\bInput type:? (U?INT8|INT16|FLOAT32) with filter type:? (U?INT8|INT16|FLOAT32) not supported|"
       r"\bType (U?INT8|INT16|INT32|INT64|FLOAT16|FLOAT32|FLOAT64|BOOL) is unsupported by op \w+",
       cause="A TFLite (Micro) kernel checks its tensors' types and this one is not supported there (not among "
       "those it lists): a 16x8-quantized model (int16 activations) reaches builtin ops without an int16 kernel "
       "(RSQRT and others), and TFLite Micro dropped the old asymmetric uint8 quantization (its kernels take "
       "int8, int16 or float32), so a model converted with uint8 input or output (`inference_input_type=tf.uint8`, "
       "a TF1 `QUANTIZED_UINT8` conversion) fails in `AllocateTensors`, and a float or hybrid model fails on an "
       "int8-only kernel.",
       fix="Re-convert with full integer int8 quantization (`inference_input_type = tf.int8`, "
       "`inference_output_type = tf.int8`, a `representative_dataset`) and shift uint8 data by -128 at the input; "
       "for a float model use a build whose kernels have float32 (the reference kernels); for ops without an int16 "
       "kernel, exclude them from quantization and keep them in float (a mixed model), or quantize to int8."),
    _e("myriad-fp16-only", "onnx", "an FP32 model on an Intel Myriad VPU (NCS2)",
       r"Unsupported network precision\s*:?\s*FP32",
       cause="Intel's Myriad VPU (Neural Compute Stick 2) runs FP16 networks only, and this IR was made in FP32.",
       fix="Use the model's FP16 IR, or convert it with the Model Optimizer's `--data_type FP16` (`--compress_to_fp16`)."),
    _e("myriad-mixed-format", "onnx", "an IR mixing FP16 and integer layers on an older Myriad plugin",
       r"does not support networks with MIXED format",
       cause="The IR holds integer (I32) layers beside its FP16 ones (shape and index arithmetic the converter kept "
       "as int32 even with `--data_type FP16`), and the Myriad (NCS / NCS2) plugin of that release loads only "
       "networks of one precision, so the mixed network is refused.",
       fix="Upgrade OpenVINO (later Myriad plugins take mixed I32 / FP16 networks), or remove or convert the integer "
       "layers (fold the shape arithmetic into constants before converting) so that the IR is pure FP16."),
    _e("qnn-htp-needs-qdq", "onnx", "float operators on Qualcomm's HTP / DSP (QNN) without quantization",
       r"Non-QDQ \w+ operators are not supported on HTP or DSP backends",
       cause="ONNX Runtime's QNN execution provider offloads to the HTP / DSP only quantized (QDQ) operators in this "
       "release; float32 ones fall back to the CPU.",
       fix="Quantize the model to QDQ (uint8 / uint16 with ONNX Runtime's quantization tools), or run the HTP in "
       "fp16 where the provider supports it (`enable_htp_fp16_precision`)."),
    _e("ctranslate2-compute-type", "backend", "a CTranslate2 compute type this device cannot run efficiently",
       r"Requested \w+ compute type, but the target device or backend do(es)? not support efficient|"
       r"compute type inferred from the saved model is \w+, but the target device or backend do(es)? not support|"
       r"Requested \w+ compute type\b|"
       # (not cublasGemmEx's own `compute_type` argument)
       r"\A(?=.*(compute[_ ]type(?!\s*,\s*CUBLAS_GEMM)|ctranslate2|faster[-_]whisper|RTX ?50[5-9]0|RTX ?50xx|50\s*系|"
       r"Blackwell|sm_?120))"
       # a CUDA build older than the GPU, said in the text, is the build's fault, not the compute type's
       r"(?=.*CUBLAS_STATUS_NOT_SUPPORTED)(?!.*(only supports? up to sm_?\d+|requires CUDA 1[2-9]\.\d))|"
       r"\bAllow INT8: false\b|"
       r"\bcompute[_ ]type\W{0,3}(float16|bfloat16|int8\w*)\b[^\n]{0,60}\b(does not|doesn'?t|won'?t|can'?t|cannot) "
       r"(work|run|use)\b|\A(?=.*\bcompute[_ ]type\b).*\b(can'?t|cannot) use (float16|bfloat16|int8)\b",  # in words
       "CTranslate2 (faster-whisper, WhisperX and other CTranslate2 models) was asked for a `compute_type` the "
       "device has no efficient kernels for: its CPU backends have no float16 / bfloat16 GEMM (int8, int8_float32, "
       "int16 and float32 only), float16 needs a GPU of compute capability >= 7.0 and bfloat16 >= 8.0, int8 "
       "types (`auto` picks int8_float16) are not supported by cuBLAS on GPUs newer than the build (Blackwell, "
       "RTX 50), and a CUDA request that fell back to the CPU lands here too.",
       "Pick a compute type the device runs: `compute_type=\"int8\"` or `\"float32\"` on the CPU, `\"int8_float32\"` or "
       "`\"float32\"` on GPUs older than Volta, `\"float16\"` instead of bfloat16 before Ampere, or "
       "`compute_type=\"default\"` / `\"auto\"` to let CTranslate2 choose; check that the GPU is really used "
       "(`device=\"cuda\"` and a CUDA build)."),
    # Arm NN's TensorFlow parser: float graphs only (and QASYMM8 quantized ones)
    _e("armnn-float-only", "onnx", "Arm NN's parser takes float tensors only",
       r"\bonly FLOAT is supported for tensorflow nodes\b",
       cause="Arm NN's TensorFlow parser supports only float tensors (and QASYMM8 quantized ones) apart from "
       "constants, and the graph holds integer tensors (int32 indices of a `tf.gather` or an embedding lookup, "
       "token ids, shape arithmetic), which it does not support.",
       fix="Keep the network Arm NN runs float: do the integer stage (lookups, indexing) outside it and feed the "
       "float results in, or convert to TFLite and use Arm NN's TFLite parser / delegate, which covers more types."),
    _e("acl-conv-weights-type", "onnx", "an Arm NN / Compute Library backend refused a convolution's quantized types",
       r"Input data type not compatible with Weights",
       cause="The Compute Library kernel behind the backend (GpuAcc / CpuAcc) supports a convolution's quantized "
       "types only in some combinations: per-channel symmetric int8 weights (QSymmS8) with unsigned uint8 "
       "activations (QAsymmU8), not with signed int8 activations (QAsymmS8) as TFLite's int8 quantization makes, so "
       "the layer falls back to another backend or fails.",
       fix="Convert with uint8 (QAsymmU8) activations, or with per-tensor instead of per-channel weight "
       "quantization, or run that layer on a backend that supports the combination (CpuRef, or a newer Arm NN)."),
    # Rockchip's RKNN converter: its own type numbers and bit widths
    _e("rknn-dtype", "onnx", "the RKNN converter refused a tensor type",
       r"\bUnsupport(ed)? (type|tyep) (bits|bytes) (64|16|32)\b|\bNot Support Dtype: ?\d+\b",
       cause="Rockchip's RKNN converter supports only some tensor types for the NPU: no 64-bit tensors (int64 index "
       "arithmetic or float64 constants from the ONNX graph are not supported), and a non-quantized (fp16) build "
       "does not support a uint8 output or input; the number it prints is the type it refused.",
       fix="Remove the 64-bit tensors before converting (cast index math to int32 or keep it in float, export with "
       "float32 constants, simplify the graph with onnxsim), and give the model int8 / float outputs (or build it "
       "quantized: `do_quantization=True`) instead of uint8 in an fp16 build."),
    _e("edgetpu-invalid-model", "onnx", "the Edge TPU compiler refused a model that is not fully int8",
       r"\A(?=.*\bInvalid model\b)(?=.*\b(edgetpu|edge ?tpu|edgetpu_compiler|coral|compiler)\b)"
       r"(?=.*\b(quant\w*|tflite|8 ?int|int8)\b)",
       cause="The Edge TPU compiler takes only models fully quantized to 8-bit integers (int8 / uint8 tensors, "
       "from post-training full integer quantization with a representative dataset); a model with float32 tensors "
       "left (dynamic-range or partly quantized) is an invalid model for it.",
       fix="Re-convert with full integer quantization (`converter.optimizations = [tf.lite.Optimize.DEFAULT]`, a "
       "`representative_dataset`, `TFLITE_BUILTINS_INT8`, int8 / uint8 input and output types), then compile; "
       "check with a model viewer that no float tensors remain."),
    _e("dla-gpu-differ", "tensorrt", "a TensorRT engine's results differ between the DLA and the GPU",
       r"\A(?=.*\bDLA\b)(?=.*\bGPU\b)(?=.*\b(differen\w*|mismatch\w*|worse|better|accuracy|not the same)\b)",
       unless=EXCEPTION_NAMED + r"|out of memory",
       cause="NVIDIA's DLA runs only fp16 and int8 layers and implements them differently from the GPU's kernels "
       "(its internal precision and rounding differ: fp16 / TF32-like accumulation, its own int8 scaling), so the "
       "same engine's numbers differ a little between the DLA and the GPU and the differences add up through the "
       "network; an expected numerical difference, not a bug.",
       fix="Compare DLA and GPU outputs with a tolerance; run the layers most sensitive to precision on the GPU "
       "(GPU fallback for those layers), or calibrate int8 for the DLA separately."),
    _e("tensorrt-fp16-flag-gone", "tensorrt", "a TensorRT release without the FP16 builder flag builds fp32",
       r"does not expose the FP16 builder flag|\A(?=.*\bTensorRT\b)(?=.*\bbuilding an FP32 engine instead\b)",
       cause="TensorRT 10 deprecated and later releases removed the weakly typed precision flags "
       "(`BuilderFlag.FP16`): a tool that asks for fp16 through that flag finds none on a newer TensorRT and "
       "builds an FP32 engine instead, slower and larger than the fp16 engine it meant.",
       fix="Pin the TensorRT version the tool supports (an upper bound in its requirements), or export a network "
       "that is fp16 itself (strongly typed: the ONNX model converted to float16) and build that; check the engine's "
       "layer precisions after building."),
)
