"""Exported models: ONNX Runtime (input types, kernels per execution provider, fp16 conversion), the Triton
Inference Server and TensorRT engines (precisions, fp16 range)."""
from __future__ import annotations

from amplora.doctor.kb.entry import make as _e
from amplora.doctor.kb.patterns import DEVICE_CLASH, SAME_OUTPUT_ZH

EXPORTED = (
    # ONNX Runtime keeps shape ops on the CPU, which CUDA graphs do not allow
    _e("ort-cuda-graph-cpu-nodes", "device", "ONNX Runtime CUDA graphs blocked by nodes on the CPU",
       r"\A(?=.*Some nodes were not assigned to the preferred execution providers)(?=.*\bCUDA ?Graphs?\b)",
       "ONNX Runtime places shape-related ops (Shape and the Gather / Unsqueeze / Concat nodes that consume it) on "
       "the CPU execution provider on purpose, and its CUDA graph feature needs every node on the CUDA EP, so those "
       "CPU nodes keep the model from being captured.",
       "Fix the input shapes and constant-fold the shape subgraph (onnxsim, or ORT's graph optimizations with "
       "static shapes) so no Shape nodes remain, or upgrade ORT, whose later releases require only compute nodes on "
       "CUDA."),
    # onnx.reference: "RuntimeTypeError: Output type mismatch: bfloat16 != float32 or bfloat16 (operator 'MatMul')"
    _e("onnx-reference-type-mismatch", "mismatch", "an ONNX node whose output type does not match its inputs' type",
       r"Output type mismatch: \w+ != [\w ]+ \(operator '\w+'\)",
       "ONNX's reference evaluator checks each node's output type against the type its schema ties to the inputs, "
       "and this node computed in another: the graph mixes dtypes there, most often a constant, mask or bias built "
       "in float32 (a function body that expands an op into primitives without casting its constants) beside "
       "bfloat16 or float16 inputs.",
       "Cast the odd input to the node's type (`CastLike(mask, scores)`, a `Cast` to the model dtype), or build the "
       "constants in the model's dtype, so every input of the node has the same type."),
    _e("coreml-fp16-spec", "backend", "a float16 feature in a Core ML model of an older specification",
       r"has FLOAT16 dataType, which is only valid in specification version",
       "A Core ML model of an older specification (version < 7, the neuralnetwork `.mlmodel` format) got a float16 "
       "input or output feature; FLOAT16 multiarray features need specification 7 (iOS 16 / macOS 13, the "
       "`mlprogram` format).",
       "Export those features in float32 (`half=False`, FP32 outputs), or target a newer spec "
       "(`minimum_deployment_target=ct.target.iOS16`, `convert_to='mlprogram'`) with a current coremltools."),
    _e("coreml-fp16-multiarray", "backend", "a Float16 Core ML output the app cannot read",
       r"MLMultiArray of data type Float16 is not supported|"
       r"MLShapedArray<Float32>[^\n]{0,60}\bFloat16\b|\bFloat16\b[^\n]{0,60}MLShapedArray<Float32>",
       "The converted Core ML model outputs Float16 multiarrays (coremltools 7 keeps a half-precision program's "
       "inputs and outputs in fp16), and the app reads them as Float32 (`MLShapedArray<Float32>(converting:)`), "
       "which older macOS / iOS releases (before 14 / 17) cannot convert from Float16.",
       "Convert with float32 inputs and outputs (`ct.convert(..., inputs=[ct.TensorType(dtype=np.float32)], "
       "outputs=[ct.TensorType(dtype=np.float32)])`, the computation can stay fp16), or read the output as "
       "Float16 in the app, or run on macOS 14 / iOS 17."),
    _e("raw-weights-dtype-size", "backend", "raw binary files written in another dtype than the loader reads",
       r"only has \d+,? but request(ed)? \d+|file size \d+ does not match (the )?expected( size)? \d+|"
       r"mmap length is greater than file size",
       context=r"(?<![A-Za-z0-9_])(fp16|fp32|float16|float32|half|bf16|bfloat16|data[_ ]?type)(?![A-Za-z0-9_])",
       cause="The loader reads raw binary files (no header that records the dtype: FasterTransformer's `.bin` "
       "weights, a spike-sorting recording read through `params.py`, a memory-mapped array) in one dtype and they "
       "were written in another: int16, fp16 or bf16 values (2 bytes each) read as float32 (4 bytes) make every file "
       "half the size it requests, and the reverse twice.",
       fix="Write the files in the dtype the loader reads (keep the converter's default fp32 output; the "
       "runtime converts to its inference dtype itself), or set the loader's data type (`weight_data_type`, "
       "`--weight_data_type fp16`, `dtype = 'int16'` in params.py, `np.memmap(..., dtype=...)`) to the files' dtype."),
    _e("onnx-input-dtype", "onnx", "ONNX Runtime got an input of another dtype than the model was exported with",
       r"Unexpected input data type|\(tensor\(\w+\)\)\s*,\s*expected:\s*\(tensor\(\w+\)\)",
       "The ONNX model's inputs were exported in one dtype (float16 for a `--half` / fp16 export, float32 "
       "otherwise, int64 or int32 for ids) and the application feeds another (NumPy arrays default to float64 / "
       "double, and to int32 on Windows): ONNX Runtime never casts inputs.",
       "Feed the exported dtype (`x.astype(np.float32)` for float64 data, `x.astype(np.float16)` for an fp16 "
       "model; check "
       "`sess.get_inputs()[0].type`), or convert the model with fp32 inputs and outputs kept "
       "(`float16.convert_float_to_float16(model, keep_io_types=True)`)."),
    _e("onnx-graph-double-float", "onnx", "an ONNX graph half in float64, half in float32",
       r"bound to different types \(tensor\(double\) and tensor\(float\)|"
       r"bound to different types \(tensor\(float\) and tensor\(double\)|"
       r"\A(?=.*\bonnx\b)(?=.*\bfloat (tensor|input)\b)(?=.*\bdouble (tensor|input)\b)",
       "One op of the ONNX graph gets a float64 (double) and a float32 tensor: the model was converted to "
       "float64 only in part (some initializers or inputs stayed float32, or a float64 constant or cast came in "
       "from NumPy data during export).",
       "Export the graph in one dtype: `model.float()` and float32 example inputs before `torch.onnx.export` "
       "(or cast every initializer when converting a graph to double), then feed inputs of that dtype."),
    _e("onnx-type-mismatch", "onnx", "an fp16 ONNX graph with a type mismatch inside",
       r"Type \(tensor\(\w+\)\) of (output|input) arg .{0,300}does not match expected type|"
       r"Type parameter \(\w+\) (of Optype \(\w+\) )?bound to different types|Type Error: Type parameter \(\w+\)\s*$|"
       r"\[ShapeInferenceError\][^\n]{0,200}has inconsistent type tensor\(\w+\)|"
       r"\binitializer .{0,120}has element type tensor\(\w+\) but usage of initializer in graph expects tensor\(\w+\)|"
       # a converted graph's Cast node whose `to` attribute still names the old type
       r"Mismatch between the target data type \(\w+\) specified by the to attribute of Cast node",
       "A half-precision ONNX conversion left a Cast whose fp16 output feeds an op still typed float32 (or the "
       "reverse), typically around a norm or a Resize kept in fp32; exporting under autocast does the same "
       "(fp16 activations meet fp32 BatchNorm / LayerNorm parameters in one node).",
       "Convert with `onnxconverter_common.float16.convert_float_to_float16(model, keep_io_types=True, "
       "op_block_list=[...])` keeping the offending ops in fp32, or export the torch model in fp16 directly "
       "(`model.half()` before `torch.onnx.export`, not under autocast), or keep the fp32 model."),
    _e("onnx-input-type-invalid", "onnx", "an ONNX op given an input type its schema does not allow",
       r"Type Error: Type 'tensor\((?!bfloat16)\w+\)' of input parameter \([^)]*\) of operator \(\w+\) "
       r"in node \([^)]*\) is invalid|"
       r"运算符 \(\w+\) 的输入参数 \([^)]*\) 的类型\W{0,2}tensor\((?!bfloat16)\w+ ?\)\W{0,2}无效",
       "The graph gives this op (named in the message) an input of a type its ONNX schema does not allow there, "
       "typically after a script converted the graph's types: int64 shape and index inputs turned int32 (Reshape, "
       "Expand, Slice and Gather take int64 shapes and indices), or float inputs turned float16 where the op has no "
       "fp16 form (Resize's roi and scales); or the op takes that type only from a later opset than the graph's "
       "(int64 for Min and Max from opset 12).",
       "Leave shape and index tensors int64 (and such ops in their types: the converter's `op_block_list` or its "
       "list of ops to skip), convert only the float weights and activations, or export the model in the wanted "
       "precision from torch instead of rewriting the graph; for an opset limit re-export with a higher "
       "`opset_version` (and a runtime that supports it)."),
    # onnx.helper.make_tensor stores FLOAT16 values as their uint16 bit patterns
    _e("onnx-make-tensor-float16", "onnx", "float16 values given to onnx.helper.make_tensor as numbers",
       r"has type numpy\.float16, but expected one of: int",
       "`onnx.helper.make_tensor` is low-level: ONNX stores FLOAT16 (and BFLOAT16) values as their 16-bit patterns "
       "in an integer field, so it expects the values already reinterpreted as uint16, and numpy.float16 numbers "
       "are refused.",
       "Build the tensor with `onnx.numpy_helper.from_array(arr.astype(np.float16), name)`, or pass the bit "
       "patterns (`vals=arr.astype(np.float16).view(np.uint16)`) or the raw bytes (`raw=True, "
       "vals=arr.tobytes()`)."),
    _e("savedmodel-signature-float16", "mismatch", "a SavedModel's float32 signature met mixed precision's fp16",
       r"\A(?=.*(Could not find matching function to call loaded from the SavedModel|inputs incompatible with "
       r"input_signature))(?=.*dtype=(tf\.)?float16\b)(?=.*dtype=(tf\.)?float32\b)",
       "Under Keras' `mixed_float16` policy layers cast their inputs to float16, and a SavedModel (a TF-Hub model in "
       "`hub.KerasLayer`, or the model being exported) has only float32 signatures, traced when it was saved: the "
       "float16 call matches no saved function, or the traced float16 input fails the float32 input signature.",
       "Keep that layer in float32 (`hub.KerasLayer(url, dtype=tf.float32)`, or `dtype='float32'` on the wrapping "
       "layer) and let the rest run mixed; when saving, pass explicit float32 `signatures` or save with the "
       "policy set back to float32."),
    _e("ort-layernorm-fp16-cpu", "onnx", "a fused fp16 LayerNormalization with no CPU kernel in ONNX Runtime",
       r"\A(?=.*Failed to find kernel for (Skip)?LayerNormalization\b)(?=.*\b(fp16|float16|half)\b)",
       "ONNX Runtime's LayerNormFusion optimization fuses an fp16 layer-norm subgraph into one LayerNormalization "
       "node, and the CPU execution provider has no float16 kernel for it (not implemented), so the session fails.",
       "Create the session with `disabled_optimizers=['LayerNormFusion']`, keep the layer norm in fp32 (the fp16 "
       "converter's `op_block_list`), or run the fp16 model on the CUDA provider."),
    _e("onnx-no-kernel", "onnx", "ONNX Runtime has no kernel for this op in this dtype",
       r"Type 'tensor\(\w+\)' of input parameter .{0,200} is invalid|"
       r"Could not find an implementation for (the )?(node )?([\w./-]+:)?\w+\(\d+\)|"
       r"\bInsertedPrecisionFreeCast_|"
       r"Failed to find kernel for \w+|Kernel not found for \w+|"
       r"\A(?=.*\b(bfloat16|bf16|float16|fp16)\b[^\n]{0,120}\bnot (runnable|supported|implemented|available)\b)"
       r"(?=.*\b(ORT|onnxruntime|ONNX ?Runtime)\b)",
       "ONNX Runtime has no kernel for this op in the tensor type the graph uses at that node on this execution "
       "provider (the message names the op, rarely the dtype): many float16 kernels exist only on the CUDA "
       "provider (an fp16 model on the CPU provider fails), float64 (double) is implemented for few ops (Cos, "
       "Sin, Range: a graph traced from float64 / NumPy data), int64 (long) for some ops only (Less, ReduceMin, Neg "
       "in older releases: index math a model exports as int64), bfloat16 for almost none, bool (tensor(bool)) "
       "for logic ops only (not CumSum or Sum), and int8 quantized ops (ConvInteger, MatMulInteger) not on every "
       "provider.",
       "Give that node a type its provider has: run an fp16 model with the CUDA execution provider, or keep the "
       "op in float32 (`float16.convert_float_to_float16(model, keep_io_types=True, op_block_list=['Sub'])`), "
       "export in float32 (`model.float()` and float32 example inputs; cast float64 data with "
       "`astype(np.float32)` before export) instead of float64 or bf16, and cast bool masks to int or float before "
       "a sum; Netron shows the node's input type."),
    _e("onnx-fp16-overflow", "onnx", "an fp16 ONNX graph overflows to inf/NaN",
       r"(fp16|float16|half)[^\n]{0,200}((?<![a-z])nan(?![a-z])|(?<![a-z])inf(?![a-z])|overflow)|"
       r"((?<![a-z])nan(?![a-z])|overflow)[^\n]{0,200}(fp16|float16)",
       "In an fp16-converted ONNX graph an op that sums or squares many values (ReduceMean / Pow of a "
       "LayerNorm or RMSNorm, Softmax, a large MatMul) exceeds fp16's range (max 65504): activations of a few "
       "thousand, squared or summed, overflow to inf and the next op turns them into NaN.",
       "Keep those ops in fp32: `float16.convert_float_to_float16(model, keep_io_types=True, "
       "op_block_list=['ReduceMean', 'Pow', 'Sqrt', 'LayerNormalization', 'Softmax'])`, or let "
       "`auto_mixed_precision.auto_convert_mixed_precision` find them; or run the model in fp32.",
       context=r"onnx|\bORT\b|ReduceMean|_output_\d", unless=r"TensorRT|\bTRT\b|trtexec|polygraphy"),
    _e("onnx-fp16-accuracy", "onnx", "an fp16 ONNX graph drifts from the fp32 model",
       r"(fp16|float16|half)([^\n]{0,200}|[^\n]{0,200}\n+[^\n]{0,200})(accuracy|differ\w*|wrong|incorrect|worse|"
       r"degrad\w*|drop\w*|strange|"
       r"weird|abnormal|garbage|broken|glitch\w*|blurry|distort\w*|render(ing)? (issues?|problems?)|artifacts?|"
       r"(?<!shape )(?<!size )mismatch\w*)|(accuracy|differ\w*|degrad\w*)[^\n]{0,200}(fp16|float16)|"
       r"\b(bad|wrong|incorrect|garbage|strange|weird) (evaluations?|results?|outputs?|predictions?|values?|"
       r"scores?)\b[^\n]{0,80}\b(fp16|float16)",
       "Converting an ONNX graph to fp16 (onnxconverter-common, `optimum-cli export onnx --dtype fp16`, ORT's "
       "transformers optimizer with `--float16`) runs every op in fp16: reductions (the ReduceMean / Pow of "
       "LayerNorm or RMSNorm), Softmax, long MatMul sums and index math lose precision, and constants out of "
       "fp16's range (beyond 65504: -1e9 / -1e12 masks, Infinity) overflow, so outputs drift from the fp32 model.",
       "Keep the sensitive ops in fp32: `float16.convert_float_to_float16(model, keep_io_types=True, "
       "op_block_list=['ReduceMean', 'Pow', 'Sqrt', 'LayerNormalization', 'Softmax'])`, or let "
       "`auto_mixed_precision.auto_convert_mixed_precision` pick them against fp32 outputs; remove the redundant "
       "Cast pairs the converter leaves (`OnnxModel(model).remove_cascaded_cast_nodes()` from "
       "`onnxruntime.transformers.onnx_model`); compare node outputs with fp32 to find the first that drifts, or "
       "serve the fp32 model.",
       context=r"onnx|\bORT\b",
       unless=r"TensorRT|\bTRT\b|trtexec|polygraphy|\b(nan|inf)\b|expected scalar type \w+ but found"),
    _e("triton-server-bf16", "onnx", "the Triton Inference Server backend has no BF16 inputs",
       r"unsupported datatype TYPE_BF16|TYPE_BF16.{0,100}(not supported|unsupported)",
       "The Triton Inference Server backend serving this model (the ONNX Runtime backend among others) does not "
       "accept BF16 inputs or outputs.",
       "Declare and export the model's inputs as FP16 or FP32 (`TYPE_FP16` / `TYPE_FP32` in config.pbtxt) and "
       "cast to bf16 inside the model if it needs it."),
    _e("triton-config-datatype", "onnx", "a Triton model config declares another datatype than the model has",
       r"unexpected datatype TYPE_\w+ for (inference )?(input|output)\b.{0,120}expecting TYPE_\w+",
       "The `data_type` in the model's config.pbtxt (or the one the client sends) is not the dtype of the model's "
       "own input or output: a TensorRT engine built with FP16 (`trtexec --fp16`, an export with `half=True`) "
       "runs its layers in FP16 but keeps FP32 inputs and outputs unless it was built with FP16 I/O, so its "
       "config stays TYPE_FP32.",
       "Declare the model's real I/O types in config.pbtxt (TYPE_FP32 for an engine with fp32 bindings; "
       "`polygraphy inspect model model.plan` shows them, or leave them out and let Triton fill the config in), "
       "and send that dtype from the client (`InferInput(name, shape, 'FP32')` with a float32 array); FP16 still "
       "runs inside the engine."),
    _e("triton-fp16-json", "onnx", "FP16 sent to Triton in JSON",
       r"receiving (FP16|BF16) data via JSON is not supported|(FP16|BF16) data (via|in|over) JSON",
       "Triton's HTTP/REST protocol cannot carry FP16 or BF16 values as JSON numbers: tensors of those types "
       "must travel in the binary data extension.",
       "Send them as binary data (`tritonclient.http.InferInput(...).set_data_from_numpy(arr.astype(np.float16), "
       "binary_data=True)`, binary outputs with `InferRequestedOutput(name, binary_data=True)`), use the gRPC "
       "client, or declare the input TYPE_FP32 and cast to fp16 inside the model."),
    _e("torchscript-traced-dtype", "mismatch", "a traced TorchScript model cast after tracing",
       r"\A(?=.*(\b(traced|tracing|TorchScript)\b|\bjit\.(trace|load|script)\b))"
       r"(?=.*expected device \S+ and dtype \w+ but got device \S+ and dtype \w+)",
       "A TorchScript trace records the dtype (and device) of the tensors it saw, including ones created inside "
       "forward (masks, position ids, constants): `.half()` / `.to()` on the traced or loaded module changes only "
       "its parameters, so the recorded fp32 tensors meet fp16 ones, or the guard refuses inputs of another dtype.",
       "Convert before tracing and trace again: `model.half().cuda()` (or `.to(dtype)`), example inputs of that "
       "dtype and device, then `torch.jit.trace(model, inputs)`; keep one traced file per dtype, or trace in fp32 "
       "and run it under `torch.autocast`."),
    # the same check outside a trace: torch before 1.5 refused mixed dtypes in arithmetic (no type promotion)
    _e("no-type-promotion", "mismatch", "an op met two dtypes in a torch that checks instead of promoting",
       r"expected device (?P<npd>\S+) and dtype (?P<npt>\w+) but got device (?P=npd) and dtype (?!(?P=npt)\b)\w+",
       "An arithmetic or in-place op met tensors of two dtypes where this torch checks rather than promotes: before "
       "1.5 torch had no type promotion, so a Bool mask times a Float tensor (`(iou > t) * scores`), a Long tensor "
       "added to a Float one, a Half result written into a Float buffer or a Double one compared with Float fails "
       "with this message; code written for a newer torch relies on the promotion, and in-place ops into a lower "
       "dtype fail on every version.",
       "Cast the odd operand at that line to the other's dtype: `(iou > t).float() * scores`, `idx.float()`, "
       "`penalty.to(scores.dtype)`, `a.to(b.dtype)`; or upgrade torch to 1.5 or later, which promotes mixed dtypes "
       "in arithmetic."),
    # torch 0.3's typed data access: ops without a half path (the embedding backward among them) fail this way
    _e("old-torch-half-data-cast", "cpu-kernel", "an op of an old torch without a half-precision path",
       r"data\(\) cast to unexpected type",
       "A torch 0.3 / 0.4 kernel read a tensor as another type than it has (its typed `data<T>()` check): ops "
       "without a half-precision path, the embedding backward with fp16 weights among them, fail this way after "
       "`.half()`.",
       "Upgrade torch (the fp16 embedding backward was fixed in 0.4), or keep that layer in fp32 (`.half()` the "
       "model, then `.float()` the embedding and cast its output with `.to(torch.half)`)."),
    _e("nvrtc-half-codegen", "backend", "a runtime-compiled GPU kernel that fails on half types",
       r"default_program\(\d+\): error:.{0,200}(__half|__nv_bfloat16|\bhalf\b|bfloat16)|"
       r"(nvrtc|NVRTC)\w*.{0,200}(__half|__nv_bfloat16)",
       "A GPU kernel compiled at run time (the TorchScript / NNC fuser's fused kernels, `torch.cuda.jiterator`, "
       "CuPy or another NVRTC user) does not compile for fp16/bf16 tensors: the generated code converts "
       "`__half` / `__nv_bfloat16` in a way this CUDA / torch version rejects, a bug in the code generator.",
       "Turn the fuser off for that code (`torch._C._jit_override_can_fuse_on_gpu(False)`, "
       "`torch._C._jit_set_texpr_fuser_enabled(False)`, or drop `torch.jit.script`), run that function in fp32 "
       "(`.float()` its inputs), or upgrade torch / CUDA, where such code generation bugs get fixed."),
    _e("compile-dtype-fusion", "mismatch", "torch.compile fused ops whose operands have two dtypes",
       r"\A(?=.*(torch\.compile|inductor|dynamo))(?=.*\b(works?|fine|runs?|ok) (in|with) eager)"
       r"(?=.*(dtype|bf16|bfloat16|float16|fp16|float32|fp32|same width))",
       "Eager PyTorch promotes mixed dtypes op by op, and a torch.compile (Inductor) pattern fused them into one "
       "kernel (an `addmm`, a fused matmul + add) that takes one dtype only, such as bf16 weights with a float32 "
       "tensor added, so the compiled model fails where the eager one runs: a compiler bug.",
       "Give the operands one dtype yourself (`w.to(x.dtype)`), upgrade torch (such fusions get dtype checks), or "
       "keep that function out of the graph (`@torch.compiler.disable`)."),
    _e("coreml-fp16-constant-size", "backend", "a Core ML half-precision conversion wrote a constant of the wrong size",
       r"encodes a data buffer of length \d+ but should be \d+",
       "Converting a Core ML model's weights to half precision stored a constant's data at the wrong size (fp16 "
       "takes 2 bytes an element, fp32 4): a bug of the fp16 conversion in that coremltools release (LoadConstant "
       "layers), which the validator then refuses.",
       "Upgrade coremltools (and Xcode / macOS for the compiler) and convert again, or keep that model in fp32."),
    _e("openvino-element-types", "mismatch", "an OpenVINO op got inputs of two element types",
       r"Argument element types are inconsistent|Check 'element::Type::merge\(",
       "An OpenVINO operation got inputs of two element types (f16 or bf16 next to f32): converting the model to "
       "FP16 left a constant or an input in f32 (or a constant recast from int64 to f32), or a custom operation "
       "declares a bf16 / f16 output (`set_output_type`) in an f32 graph, so one node mixes them.",
       "Convert the whole IR in one precision (`ov.save_model(model, path, compress_to_fp16=True)` from an FP32 "
       "model, constants included), or keep the IR in FP32 and let the device run FP16 "
       "(`INFERENCE_PRECISION_HINT`); cast the constant to the other input's type if you build the graph yourself."),
    # ONNX type 11 is DOUBLE: TensorRT's parser imports no float64 weights
    _e("tensorrt-double-initializer", "backend", "an ONNX graph with float64 weights given to TensorRT",
       r"Found unsupported datatype \(11\) when importing initializer|"
       r"\bconvertOnnxWeights\b[^\n]{0,80}\bDOUBLE\b|\bDOUBLE\b[^\n]{0,80}\bconvertOnnxWeights\b",
       "The exported ONNX graph holds DOUBLE (float64, ONNX type 11) initializers, and TensorRT's ONNX parser "
       "imports float32, float16, bf16 and integer weights only: a constant made in float64 in the model's code "
       "(a NumPy float64 array, `torch.tensor(1.5, dtype=torch.float64)`, an in-place update of a slice of a "
       "float64 tensor) was exported as it was.",
       "Make the model float32 throughout before exporting (`model.float()`, float32 dummy inputs, "
       "`np.float32` / `dtype=torch.float32` for constants the code builds), or cast the graph's DOUBLE "
       "initializers to float32 (onnx-graphsurgeon / `onnxconverter_common`), then rebuild the engine."),
    _e("tensorrt-shape-tensor-int32", "backend", "a TensorRT shape-tensor input that is not int32",
       r"shape tensor must have type Int32",
       "TensorRT takes network inputs that feed shapes (sizes, slice bounds) only as int32 shape tensors, and the "
       "ONNX export gave this input (named in the message) another type, float or int64.",
       "Export that input as int32 (a dummy input made with `dtype=torch.int32`, or a Cast to INT32 in the graph), "
       "or make it a constant, then rebuild the engine."),
    _e("ggml-quantized-kv-copy", "backend", "a quantized llama.cpp KV cache that this backend cannot copy back",
       r"\bggml_\w*cpy\w*: unsupported type combination \((q[458]_[01]|iq4_nl) to f(16|32)\)|"
       r"\A(?=.*unsupported op '?(CPY|DUP)'?)(?=.*(cache[-_]type[-_]?[kv]?\W{1,3}q\d|KV_CACHE_TYPE\W{1,3}q\d))|"
       # the RoPE a context shift re-applies to the K cache takes f32 / f16 only
       r"\A(?=.*\brope\.cu\b[^\n]{0,80}GGML_TYPE_F(32|16))(?=.*(cache[-_]type[-_]?k?\W{1,3}q\d|"
       r"KV_CACHE_TYPE\W{1,3}q\d))",
       "The KV cache is quantized (q4_0 / q8_0 through `--cache-type-k` / `--cache-type-v` or "
       "`OLLAMA_KV_CACHE_TYPE`), and a context shift, or another op that reads the cache back, copies it to f32/f16 "
       "or re-applies RoPE to it: "
       "this GPU backend (CUDA for some types, Metal, Vulkan) has no kernel for that quantized type.",
       "Keep the KV cache in f16 (unset `OLLAMA_KV_CACHE_TYPE`, or `--cache-type-k f16 --cache-type-v f16`), or "
       "avoid the context shift (a larger context, `--no-context-shift`), or update llama.cpp / Ollama to a build "
       "with that copy kernel."),
    _e("ggml-type-assert", "backend", "a llama.cpp (ggml) kernel without this tensor type",
       r"GGML_ASSERT\([^)\n]*type == GGML_TYPE_\w+|\bggml_\w+: unsupported (src\d )?types?( combination)?\b|"
       r"\bbinary_op: unsupported types\b|\bMissing (CPY|DUP|GET_ROWS|SET_ROWS) op for types\b|"
       # no conversion kernel from the weights' type on CUDA; a Metal op refused on a bf16 model
       r"\bto_fp(16|32)_cuda != nullptr\b|\A(?=.*\bunsupported op '\w+')(?=.*\b(bf16|bfloat16)\b)",
       "A llama.cpp / ggml kernel accepts only the tensor types in its assert (often F16 and F32) and got "
       "another, typically BF16 weights in a GGUF, an mmproj or a LoRA adapter file that this kernel does not "
       "support; older builds had no CUDA implementation for BF16 at all, and GPU backends other than CUDA (Vulkan, "
       "Metal, SYCL) lack some BF16 kernels, copies and conversions included.",
       "Use a GGUF / mmproj converted to F16 or F32 (`convert_hf_to_gguf.py --outtype f16`), or a llama.cpp "
       "build with that type's kernel."),
    _e("ggml-sampling-nan", "overflow", "llama.cpp's sampler found no token: NaN / inf logits",
       r"GGML_ASSERT\(iter != probs\.end\(\)\)",
       "llama.cpp's sampler draws a token by walking the cumulative probabilities, and with NaN or inf logits the "
       "walk finds none and this assert fires: the model's forward overflowed, most often f16 tensors or f16 "
       "compute past 65504 (some GGUF quants keep layers in f16), which turns the logits into NaN.",
       "Use a GGUF whose sensitive tensors are not f16 (a Q8_0 or BF16 file, another quant of the model) and "
       "update llama.cpp; the logits of one prompt (`--logits-all`, or a run on the CPU) show whether they are "
       "NaN."),
    _e("ggml-source-type", "backend", "llama.cpp cannot convert from this tensor type",
       r"cannot (dequantize|convert)(/(dequantize|convert))? tensor type \w+",
       "llama.cpp's quantize tool reads each tensor through its type's dequantize routine, and this build has "
       "none for the source type named in the message (BF16 in older builds, or an already quantized type).",
       "Quantize from an F32 (or F16) GGUF: convert with `convert_hf_to_gguf.py --outtype f32` (or `f16`), or "
       "update llama.cpp to a build that reads that type."),
    _e("tensorrt-dtype", "backend", "TensorRT precision not supported here",
       r"(bf16|bfloat16|fp8|int8|fp16|float16|half)\w*.{0,120}(not supported|unsupported|does not support|"
       r"doesn'?t support|not available)|(not supported|unsupported|does not support).{0,80}(bf16|bfloat16|fp8|"
       r"int8|fp16|float16|half)|platformHasFast(Fp16|Int8)",
       "TensorRT (or this GPU under TensorRT) cannot build that precision: bf16 needs TensorRT >= 9 on Ampere "
       "or newer, fast fp16/int8 need GPUs with those tensor cores, fp8 needs Ada/Hopper.",
       "Build the engine in a precision the GPU has (drop `--bf16`/`--fp8`; fp16 on Volta/Turing, fp32 "
       "otherwise), and export the ONNX model in fp16/fp32.", context=r"TensorRT|\bTRT\b|trtexec",
       # a TensorRT older than the GPU fails in every precision
       unless=r"Unsupported SM\b"),
    # Torch-TensorRT (TRTorch) met a TorchScript value of a type that TensorRT has no counterpart for
    _e("tensorrt-aten-datatype", "backend", "Torch-TensorRT met a tensor type TensorRT does not have",
       r"Unsupported Aten datatype|aten_trt_type_map",
       "Torch-TensorRT (TRTorch) converts each tensor of the TorchScript graph to a TensorRT type, and TensorRT has "
       "nothing wider than float32: a float64 (Double) tensor, most often a constant made in the model's code "
       "(`torch.tensor(0.5, dtype=torch.float64)`, a NumPy scalar, `math` values turned into tensors), has no "
       "TensorRT type (older releases lack int64 and bool too); `model.float()` casts parameters and buffers, not "
       "such constants.",
       "Make that tensor float32 in the model code before scripting or tracing (`torch.tensor(v, "
       "dtype=torch.float32)`, `.float()` where NumPy made it, int64 as int32); the debug log's `Found IValue "
       "containing object of type Double` names the op that takes it."),
    _e("tensorrt-onnx-input-type", "backend", "TensorRT cannot import a tensor type of the ONNX model",
       r"Unsupported ONNX data type: \w+|Failed to convert ONNX dat[ae] type to TensorRT data type",
       "TensorRT's ONNX parser has no TensorRT type for this tensor's ONNX type (INT16 and UINT16, in older "
       "releases DOUBLE or INT64 as well), most often an input or output exported straight from NumPy data such "
       "as int16 audio or float64 features.",
       "Re-export with float32 (or float16, int32) inputs and outputs: give `torch.onnx.export` float32 example "
       "inputs and cast inside the model's forward (`x.float()`), then convert the data at the engine boundary "
       "(`audio.astype(np.float32) / 32768`)."),
    _e("tensorrt-fp16-range", "backend", "an FP16 TensorRT engine overflows or drifts from fp32",
       r"outside (of )?(the )?fp16 range|Subnormal FP16 values|issues when converting weights between types|(weights|values).{0,60}(exceed|outside).{0,20}"
       r"(FP16|half) range|FP16 (overflow|underflow)|"
       r"(fp16|float16|half)[^\n]{0,120}(overflow|(?<![a-z])nan(?![a-z])|(?<![a-z])inf(?![a-z])|all[- ]?zeros?|blank\b|"
       + SAME_OUTPUT_ZH + "|"
       r"(the )?same (constant |fixed )?(value|class|output)s? for (every|all|each)|"
       r"(?<!shape )(?<!size )"
       r"mismatch|differ|wrong|incorrect|inaccura|accuracy|precision (loss|drop|issue|problem)|"
       r"results? (was|were|is|are) (bad|poor|worse)|(could|did|does) ?n[o']t perform as well)|"
       r"(?<![A-Za-z])(fp16|float16)\b[^\n]{0,60}\b((does|do|did) ?n[o']t work|not working)\b|"
       r"(overflow|(?<!shape )(?<!size )mismatch|accuracy|differ)[^\n]{0,120}(fp16|float16)|"
       r"\A(?=.*\bdiscrepanc(y|ies)\b)(?=.*\b(fp16|float16)\b)",
       "An FP16 TensorRT engine stores weights and computes in fp16, and some layers do not fit: values above "
       "65504 overflow (LayerNorm and reductions over large activations, Softmax, big weights), tiny ones become "
       "subnormal, so outputs drift from the fp32/ONNX model or turn inf/NaN.",
       "Keep the affected layers in fp32 (`trtexec --fp16 --precisionConstraints=obey "
       "--layerPrecisions=<layer>:fp32`, or `layer.precision = trt.float32` with OBEY_PRECISION_CONSTRAINTS; "
       "polygraphy finds them), build in fp32 (or bf16 where supported), or bring activations / weights into "
       "range (normalise inputs, retrain with weight decay).",
       context=r"TensorRT|\bTRT\b|trtexec|polygraphy|\bengine\b(?!\.py)|precisionConstraints|layerPrecisions"),
    # an exporter's half flag that leaves an fp32 graph
    _e("export-half-noop", "onnx", "an export's half option that changed nothing",
       r"\A(?=.*\bhalf ?= ?True\b)(?=.*\bhalf ?= ?False\b)(?=.*\b(same|identical|no difference)\b)"
       r"(?=.*\b(onnx|export\w*|engine)\b)",
       cause="The export path does not convert the model: `torch.onnx.export` writes the tensors it is given, so an "
       "fp32 model (and fp32 dummy input) gives fp32 initializers whatever the tool's half option says, when the "
       "option is not applied (`model.half()`) before the export (or applies only on a GPU).",
       fix="Convert before exporting (`model.half()` and a half dummy input, on a GPU), or convert the exported "
       "model afterwards (`onnxconverter_common.float16.convert_float_to_float16`); check the initializers' dtype "
       "in the .onnx file (its size halves)."),
    # a traced model whose device arguments were frozen at trace time
    _e("torchscript-baked-device", "device", "a traced TorchScript model with a device frozen into its graph",
       r"\A(?=.*TorchScript interpreter)(?=.*" + DEVICE_CLASH + ")",
       cause="Tracing records a tensor created inside `forward` with an explicit device (`torch.arange(..., "
       "device=...)`, anchors or grids built on the device the trace ran on, often the CPU) as an op whose device "
       "argument is baked in; `map_location` and `.to()` move the model's tensors but not such device arguments, "
       "so on another device that op still makes CPU tensors that meet the inputs.",
       fix="Create such tensors from the input's device inside the model (`torch.arange(n, device=x.device)`, "
       "anchors cached as buffers), or trace (export) on the device it will run on; upgrade the library whose "
       "export baked them."),
)
