"""The knowledge base on families of faults beyond PyTorch's own messages: the training loop (GradScaler order,
optimizer state, fused/IPEX optimizers, FSDP units), float8 and AMD GPUs, converted models (Core ML, OpenVINO,
TensorRT) and half-precision NaN reported in words. Each family: real wordings that must get its story, and
look-alikes that must not."""
from __future__ import annotations

import pytest

from amplora.doctor.explain import explain

CASES = [
    # huggingface/accelerate: double unscale with gradient accumulation
    ("unscale-twice", "RuntimeError: unscale_() has already been called on this optimizer since the last update()"),
    ("scaler-step-twice", "RuntimeError: step() has already been called since the last update()."),
    # an Adam-like optimizer with fp32 state and a bf16 statistic
    ("optimizer-state-dtype", "second_momentum.lerp_(v_mean, 1 - beta2)\n"
     "RuntimeError: expected dtype float for `end` but got dtype c10::BFloat16"),
    ("optimizer-state-dtype", "torch._foreach_lerp_(device_exp_avgs, device_grads, 1 - beta1)\n"
     "RuntimeError: _foreach_lerp_: expected all tensors to have the same dtype"),
    ("fused-optimizer-params", "RuntimeError: `fused=True` requires all the params to be floating point Tensors of "
     "supported devices: ['mps', 'cuda', 'xpu', 'hpu', 'cpu', 'privateuseone'] but torch.float32 and cpu"),
    # intel/intel-extension-for-pytorch: bf16 model with the fused AdamW
    ("ipex-optimizer-fp32", "RuntimeError: parameter in optimizer(Adamw) is not FP32, need check"),
    ("fsdp-mixed-dtypes", "ValueError: Must flatten tensors with uniform dtype but got torch.bfloat16 and "
     "torch.float32\nFSDP requires uniform dtype; FlatParameter requires uniform dtype"),
    ("fp16-nonfinite-report", "When I set precision fp16 to inference, get Nan result, the result is total black\n"
     "GPU: V100"),
    ("fp16-nonfinite-report", "model.half() works on the A100 but the output is all NaN after a few layers"),
    ("fp16-nonfinite-report", "fp16推理出现黑图"),  # Chinese: fp16 inference gives black images
    ("fp16-nonfinite-report", "fp16 训练 loss 为nan"),
    # pytorch/ao: OCP float8 on MI300
    ("fp8-rocm-fnuz", "RuntimeError: false INTERNAL ASSERT FAILED at \"/app/pytorch/aten/src/ATen/hip/HIPDataType.h\":"
     "102. Cannot convert ScalarType Float8_e4m3fn to hipDataType."),
    ("fp8-rocm-fnuz", "RuntimeError: \"_tunable_scaled_gemm\" not implemented for 'Float8_e4m3fn'"),
    ("quant-method-cpu-dtype", "WARNING cpu_executor.py:327] float16 is not supported on CPU, casting to bfloat16.\n"
     "ValueError: torch.bfloat16 is not supported for quantization method gptq. Supported dtypes: [torch.float16]"),
    # Nerogar/OneTrainer: DoRA on a float8 base
    ("fp8-no-promotion", "RuntimeError: Promotion for Float8 Types is not supported, attempted to promote "
     "Float8_e4m3fn and Half"),
    ("fp8-no-promotion", "RuntimeError: mat1 and mat2 must have the same dtype, but got Float8_e4m3fn and BFloat16"),
    ("fp8-no-kernel", "RuntimeError: \"fill_cpu\" not implemented for 'Float8_e4m3fn'"),
    ("rocm-bf16-rdna2", "LLVM ERROR: Cannot select: intrinsic %llvm.amdgcn.fdot2.bf16.bf16"),
    # pytorch/torchtune: bf16 check through torch.version.cuda on a 7900 XTX
    ("rocm-bf16-check", "Can't train on my 7900xtx: RuntimeError: bf16 precision was requested but not available on "
     "this hardware. Please use fp32 precision instead."),
    ("coreml-fp16-precision", "coreml_model.predict(inp) returns all nans\n"
     "coremltools/converters/mil/mil/ops/defs/iOS15/elementwise_unary.py:894: RuntimeWarning: overflow encountered "
     "in cast"),
    ("coreml-fp16-precision", "I converted a model to fp32 and fp16 mlprogram, fp16 output is wrong but fp32 is right"),
    ("openvino-f16-output", "exported with half=True (FP16), converted with OpenVINO's mo tool; "
     "float* detections = (float*)output.data(); detections[0] = -4.2865e+37"),
    ("bf16-rounding-report", "Training LoRA with the whole model cast to bf16, the loss does not decrease, while "
     "fp32 works"),
    ("fp16-drift-report", "fp16 inference results differ from fp32 (max abs diff 0.3) after model.half()"),
    ("tensorrt-precision-ignored", "No implementation of layer zero__8 obeys the requested constraints in strict "
     "mode. No conforming implementation was found i.e. requested layer computation precision and output precision "
     "types are ignored, using the fastest implementation."),
    # constants outside fp16's range, values below it
    ("half-constant-overflow", "scores = scores.masked_fill(mask == 0, -1e9)\nRuntimeError: value cannot be "
     "converted to type at::Half without overflow: -1e+09"),
    ("fp16-underflow", "Training with precision=16 the gradients underflow to zero unless I use a GradScaler"),
    ("fp16-underflow", "In pure float16 small weight updates are rounded to zero and the model stops learning"),
    # diffusion images that decode to NaN
    ("vae-nan-image", "SDXL img2img gives black images in fp16, txt2img is fine"),
    ("vae-nan-image", "ComfyUI: VAE Decode\nRuntimeWarning: invalid value encountered in cast\n"
     "  img = Image.fromarray(np.clip(i, 0, 255).astype(np.uint8))"),
    # exported and converted runtimes
    ("tensorrt-strongly-typed", "trtexec --onnx=model_fp16.onnx --stronglyTyped --fp16\n"
     "[E] BuilderFlag::kFP16 cannot be set for a strongly typed network"),
    ("ctranslate2-compute-type", "WhisperModel('large-v3', device='cpu', compute_type='float16')\n"
     "ValueError: Requested float16 compute type, but the target device or backend do not support efficient float16 "
     "computation."),
    # distributed engines and trainers
    ("collective-dtype-mix", "deepspeed/runtime/zero/partition_parameters.py, in _allgather_params_coalesced\n"
     "TypeError: output tensor must have the same type as input tensor"),
    ("deepspeed-grad-accum-dtype", "AssertionError: BF16 optimizer for ZeRO requires fp32 gradient accumulation"),
    ("lightning-precision-value", "lightning_fabric.utilities.exceptions.MisconfigurationException: Precision "
     "'16-mixed' is invalid. Allowed precision values: ('64', '32', '16', 'bf16', 64, 32, 16)"),
    # autocast, loss scaling and quantized formats
    ("bce-autocast", "Many models use a sigmoid layer right before the binary cross entropy layer.\nRuntimeError: "
     "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast."),
    ("amp-scaler-device", "scaler.unscale_(optimizer)\nNotImplementedError: Could not run "
     "'aten::_amp_foreach_non_finite_check_and_unscale_' with arguments from the 'CPU' backend."),
    ("ao-quantized-device", "model = torch.ao.quantization.quantize_dynamic(model); model.cuda()\n"
     "NotImplementedError: Could not run 'quantized::linear_dynamic' with arguments from the 'CUDA' backend."),
    ("quantized-tensor-float-op", "NotImplementedError: Could not run 'aten::add.out' with arguments from the "
     "'QuantizedCPU' backend."),
    ("triton-dot-dtype", "AssertionError('Both operands must be same dtype. Got fp32 and bf16')"),
    ("apex-half-model", "When using amp.initialize, you do not need to call .half() on your model before passing it, "
     "no matter what optimization level you choose."),
    ("pin-gpu-tensor", "RuntimeError: cannot pin 'torch.cuda.FloatTensor' only dense CPU tensors can be pinned"),
    ("bool-arithmetic", "attention_mask = 1 - attention_mask\nRuntimeError: Subtraction, the `-` operator, with a "
     "bool tensor is not supported."),
    ("meta-device", "NotImplementedError: Could not run 'aten::_local_scalar_dense' with arguments from the 'Meta' "
     "backend."),
    ("autocast-without-cuda", "UserWarning: torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  "
     "Disabling."),
    ("nccl-bf16", "RuntimeError: Unsupported data type for NCCL process group: BFloat16"),
    # trainer and engine wordings (DeepSpeed, Lightning, diffusers, LLaMA-Factory, ultralytics)
    ("precision-flags-both", "AssertionError: bfloat16 and fp16 modes cannot be simultaneously enabled"),
    ("fp16-needs-gpu", "SystemError: Cannot use fp16 without accelerator."),
    ("fp16-needs-gpu", "ValueError: FP16 TorchScript export is only supported on GPU, i.e. use device=0."),
    ("amp-unscale-bf16", "ValueError: `precision='bf16-mixed'` does not use a scaler, found <GradScaler object>."),
    ("bnb-model-cast", "ValueError: `.float()` is not supported for quantized model. Please use the model as it is, "
     "since the model has already been cast to the correct `dtype`."),
    ("bf16-gpu-unsupported", "ValueError: This device does not support `pure_bf16`."),
    ("lightning-precision-value", "ValueError: Passed `MixedPrecision(precision=32)`. Precision must be '16-mixed' or "
     "'bf16-mixed'."),
    # results and speed reported in words
    ("fp16-drift-report", "When I load the model with torch_dtype=torch.float16 the generated text is gibberish, "
     "with float32 it is fine."),
    ("onnx-fp16-accuracy", "After converting the ONNX model to fp16 with onnxconverter_common the accuracy dropped "
     "from 92% to 40%"),
    ("merge-into-quantized", "after merging the LoRA into the 4-bit base the outputs are wrong"),
    ("half-slow-report", "bf16 inference on the CPU is 3x slower than fp32"),
    ("half-slow-report", "With --bf16 on a V100 training is extremely slow"),
    # accelerators and runtimes other than a CUDA GPU: the component's limit, not the GPU generation
    ("directml-dtype", "RuntimeError: torch_dml: DirectML does not support bfloat16"),
    ("dtype-unsupported", "RuntimeError: Missing out variants: {'aten::_to_copy'} dtype Half not supported by XNNPACK"),
    ("tensorrt-fp16-range", "[TRT] [W] TensorRT encountered issues when converting weights between types and that "
     "could affect accuracy."),
    # devices and cards with their own limits
    ("directml-dtype", "torch-directml: sd-webui: RuntimeError: mat1 and mat2 must have the same dtype (autocast does "
     "nothing on the privateuseone device)"),
    ("gtx16-fp16-nan", "GTX 1650: loss is nan from the first step with fp16=True"),
    ("xpu-fp64", "Running ipex.optimize on the Intel Arc A750 fails with errors about FP64 kernels"),
    ("cpu-half-kernel", "RuntimeError: \"LayerNormKernelImpl\" not implemented for 'Half"),  # the closing quote cut off
    ("quantized-fp16-overflow", "torchao int8 weight-only quantization in float16 produces garbage images; bf16 is "
     "fine"),
    ("nccl-bf16", "RuntimeError: ProcessGroupNCCL does not support bf16"),
    ("dtype-unsupported", "error: unsupported tensor type BF16 in model file"),
    ("pil-float-array", "Image.fromarray(image)\nTypeError: Cannot handle this data type: (1, 1, 3), <f2"),
    # heldout84's restoration and upscaling
    ("upscaler-nan-image", "pip install git+https://github.com/sberbank-ai/Real-ESRGAN.git\nRuntimeWarning: invalid "
     "value encountered in cast. It means none valid in predict."),
    ("mps-graph-element-type", "error: output type 'tensor<1x32x4x512x544xf16>' and mean type "
     "'tensor<1x32x1x1x1xf32>' are not broadcast compatible"),
    # heldout81-83's texts told in words
    ("op-fails-under-half-in-words", "CTC Loss throwing errors in half/mixed precision\n\nI encountered an issue "
     "with the CTC loss, which throws an obscure dtype incompatibility issue."),
    ("dtype-unsupported", "Did fastfold support bfloat16 inference?\n\nfastfold/utils/geometry/vector.py seems got an "
     "unexpected data type."),
    # heldout80's unusual numerics told in words
    ("fft-half", "The torch FFT requires powers of 2 image dimensions to work on half-precision tensors."),
    ("fft-half", "Currently, `torch.fft.fft` with dtype `torch.float16` and complex tensors is not supported."),
    ("float-double", "ce_count_loss can fail under `float64` inputs/weights due to internal dtype mismatch."),
    ("device-in-words", "measurement seems to change the device of the tensor from cuda to cpu"),
    ("to-pil-image-dtype", "sam.generate(image, mask) on a Sentinel-2 GeoTIFF\nTypeError: Input type uint16 is not "
     "supported"),
    ("cat-mixed-dtypes", "RuntimeError: Expected object of scalar type long int but got scalar type float for sequence "
     "element 1."),  # a wording with C type names
    ("autocast-prioritize", "F.grid_sample(feat, coords.half()) inside torch.autocast('cuda', dtype=torch.bfloat16):\n"
     "RuntimeError: Unexpected floating ScalarType in at::autocast::prioritize"),
    ("numpy-dtype-torch-lacks", "Type error: can't convert np.ndarray of type numpy unit16"),  # retyped by hand
    ("half-integer-rounding", "When training with FP16 the targets are set to torch.float16, and the track_id "
                              "annotations lose their precision"),
    ("cpu-half-model", "--precision 16 crashes with CPU: RuntimeError: expected scalar type BFloat16 but found Float"),
    ("opencv-half-array", "With the model in torch.float16, cv2.resize(img, size) fails: TypeError: Expected "
     "Ptr<cv::UMat> for argument 'src'"),
    # wordings and cards seen in reports
    ("cpu-half-kernel", "Slow conv2d cpu not implemented in half, does it only run on GPUs?"),
    ("gtx16-fp16-nan", "NaN losses for GTX16xx users with AMP"),
    ("fp16-nonfinite-report", "With 16-bit mixed precision the second autograd.grad returns NaN"),
    ("fp16-nonfinite-report", "Without --no-half I only get a gray screen"),
    ("numpy-bf16", "TypeError: can't convert np.ndarray of type numpy.void. The only supported types are: float64, "
     "float32, float16, complex64, complex128, int64, int32, int16, int8, uint8, and bool."),
    ("vae-nan-image", "Flux in float16: the previews look fine but the final image was black"),
    ("backend-half-kernel-bug", "On the Intel iGPU with IPEX the images are a mess in bf16; with fp16 it works"),
    ("quant-kernel-dtype", "site-packages/auto_gptq/nn_modules/qlinear/qlinear_exllamav2.py: the kernel wants FP16 "
     "activations and got FP32"),
    ("fp16-nonfinite-report", "With half=True the predictions are white images"),
    ("fp16-nonfinite-report", "fp16: the generated images are just noise"),
    # reports in Chinese, Japanese and Korean
    ("fp16-drift-report", "使用fp16推理时输出全是乱码，fp32正常"),  # garbled output in fp16, fp32 fine
    ("fp16-drift-report", "fp16で推論すると出力がおかしい"),  # fp16 inference gives strange output
    ("fp16-nonfinite-report", "用 half() 之后生成的图片全黑"),  # all-black images after half()
    ("fp16-nonfinite-report", "fp16 학습 시 loss가 nan이 됩니다"),  # the loss becomes NaN in fp16 training
    # a backend's own half kernel
    ("backend-half-kernel-bug", "On Intel Arc A770 (XPU) bf16 conv2d returns garbage while fp32 on the same GPU is "
     "correct and bf16 on CUDA is fine"),
    # PyTorch's own checks in other wordings: rotary embeddings through complex numbers, listed dtypes, devices
    ("complex-half", "RuntimeError: view_as_complex is only supported for float and double tensors, but got a tensor "
     "of scalar type: BFloat16"),
    ("dtype-unsupported", "RuntimeError: Expected both inputs to be Half, Float or Double tensors but got BFloat16 "
     "and BFloat16"),
    ("dtype-unsupported", "RuntimeError: Bias must be Float32 or BFloat16 or Half, but got Double"),
    ("device-mismatch", "RuntimeError: Expected query, key, and value to have the same device type, but got "
     "query.device: cpu key.device: cuda:0 and value.device: cuda:0 instead."),
    ("device-mismatch", "RuntimeError: index_copy_(): self, index and source expected to be in the same device, but "
     "got (self) cuda:0, (index) cpu and (source) cuda:0"),
    ("device-mismatch", "RuntimeError: multinomial arguments must have the same device"),
    ("device-mismatch", "RuntimeError: Input, output and indices must be on the current device"),
    ("device-mismatch", "dgl._ffi.base.DGLError: Cannot assign node feature \"feat\" on device cpu to a graph on device "
     "cuda:0. Call DGLGraph.to() to copy the graph to the same device."),
    ("cuda-kernel-dtype", "ms_deform_attn_forward_cuda\" not implemented for 'BFloat16"),  # the opening quote cut off
    ("matmul-dtype", "model = SentenceTransformer(name, model_kwargs={'torch_dtype': torch.float16})\nRuntimeError: "
     "mat1 and mat2 must have the same dtype, but got Half and Float"),
    ("cpu-mixed-norm", "RuntimeError: Expected scalar types of X and dY are same."),
    ("int-input", "RuntimeError: expected common dtype to be floating point, yet common dtype is Long"),
]


@pytest.mark.parametrize("key,text", CASES)
def test_each_family_wording_gets_its_story(key, text):
    e = explain(text)
    assert e.key == key, (e.key, e.cause)
    assert "[S0" not in e.title + e.cause + e.fix


@pytest.mark.parametrize("text", [
    # NaN without half precision, half precision without NaN
    "The loss is finite in fp32 and bf16 and training converges fine.",
    "My model is slower than expected on the T4.",
    "bf16 model gives different shape error",
    "nanoGPT trains fine in fp16 on the A100",
    "loss does not decrease after 10 epochs with lr 1e-3",
    # an AMD CPU is not a ROCm GPU
    "AMD Ryzen 9 7950X CPU: bf16 is not supported here, falling back to fp32",
    # Core ML conversion failing for another reason
    "coremltools: ValueError: Unsupported op 'aten::unflatten' (fp16 model)",
    # a safety checker's black image; black output without a diffusion model; an int64 overflow
    "diffusers: Potential NSFW content was detected in one or more images. A black image will be returned instead.",
    "The webcam preview shows a black image after the driver update",
    "RuntimeError: value cannot be converted to type int64_t without overflow",
    # underflow that is no fp16 story
    "numpy FloatingPointError: underflow encountered in exp",
    # a quantized op on the CPU backend is no device fault; a deprecation note is no error
    "NotImplementedError: Could not run 'aten::_foo' with arguments from the 'SparseCPU' backend.",
    "FutureWarning: `torch.cuda.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cuda', "
    "args...)` instead.",
    # a GTX 16xx that is merely named; int8 quantization without a half-precision symptom
    "Training runs on a GTX 1660 Super at 2 it/s",
    "int8 weight-only quantization with fp16 halves the memory",
    # a black image the safety checker made; a GTX 16xx named without a symptom
    "The image is black because the NSFW filter triggered (fp16)",
    # Lightning's deprecation note is not an error
    "precision=16 is supported for historical reasons but its usage is discouraged. Please set your precision to "
    "16-mixed instead!",
    # a size check and an option check in the same grammar as the dtype lists
    "RuntimeError: Expected padding_side to be one of left or right, but got center",
    "ValueError: mode must be one of nearest, bilinear or bicubic, but got area",
    # boxes gone bad without half precision (a too high learning rate): no fp16 story
    "when i train my own data, report err assert (boxes1[:, 2:] >= boxes1[:, :2]).all()",
    # a TorchScript error of another kind; an NVRTC error without half types
    "RuntimeError: expected tuple but got list in traced module",
    "RuntimeError: default_program(12): error: identifier \"foo\" is undefined",
    # a GPU without bf16 and bf16 named around errors of other kinds
    "torch.cuda.OutOfMemoryError: CUDA out of memory on the T4 while training in bf16. Tried to allocate 2.00 GiB",
    "ValueError: Tokenizer class LlamaTokenizer does not exist; running bf16 on V100",
    "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1191, unhandled system error, V100 with bf16 disabled",
    "Training on a T4 in fp16 works fine, thanks. bf16 is only for the A100 runs.",
    "KeyError: 'model.layers.0.self_attn.q_proj.weight' (loading T4-quantized bf16 checkpoint)",
    "AssertionError: assert x.shape() == y.shape()",
    # a float GEMM refused by cuBLAS is no int8 story; NaN an allocator made is no fp16 story
    "RuntimeError: CUBLAS_STATUS_NOT_SUPPORTED when calling `cublasGemmEx(..., CUDA_R_16F, ...)` with int8 weights",
    "expandable_segments silently produces NaN in bf16 training when a depthwise conv1d runs",
    # OpenCV given a torch tensor (a transform order fault), no float16 in sight
    "TypeError: Expected Ptr<cv::UMat> for argument 'src' when using ToTensorV2()",
    # cuFFT's own failure in half precision is no dtype story
    "RuntimeError: cuFFT error: CUFFT_INTERNAL_ERROR with fp16 and a batch of powers of two",
    # NaN frames cast to uint8 in a video pipeline, no upscaler in sight
    "video_utils.py:99: RuntimeWarning: invalid value encountered in cast\n  frames = (frames * 255).astype('uint8')",
])
def test_look_alikes_are_not_these_stories(text):
    e = explain(text)
    assert e.key not in {k for k, _ in CASES} - {"dtype-unsupported"}, (e.key, text)  # the generic answer may answer


def test_a_float8_format_is_named_once_among_the_dtypes():
    e = explain("RuntimeError: Promotion for Float8 Types is not supported, attempted to promote Float8_e4m3fn and Half")
    assert e.dtypes == ["float8_e4m3fn", "fp16"]


def test_a_backend_kernel_is_blamed_only_when_fp32_on_that_device_is_right():
    assert explain("MPS: fp16 generation gives NaN logits").key == "fp16-nonfinite-report"
    assert explain("MPS: fp16 generation gives NaN logits, fp32 on the same Mac works").key == "backend-half-kernel-bug"


# the last resort: wordings of dtype and device checks no entry knows get a hedged answer that names what they check
@pytest.mark.parametrize("key,text", [
    ("dtype-check", "AssertionError: query.dtype == torch.float16"),
    ("dtype-check", "RuntimeError: weight should be fp8 but got bf16"),
    ("dtype-check", "ValueError: scale dtype F32 does not match activation dtype BF16"),
    ("dtype-check", "E   AssertionError: x (bf16) and w (fp32) must have the same dtype"),
    ("dtype-required", "NotImplementedError: this kernel requires float16 inputs"),
    ("dtype-required", "AssertionError: bfloat16 is required for the fused MoE path"),
    ("dtype-required", "RuntimeError: input must be torch.float32 for the CPU path"),
    ("needs-gpu-tensor", "AssertionError: x must be a CUDA tensor"),
    ("needs-gpu-tensor", "RuntimeError: assert q.is_cuda"),
    ("needs-gpu-tensor", "ValueError: points is not a CUDA tensor"),
])
def test_the_last_resort_names_the_check(key, text):
    e = explain(text)
    assert e.key == key, (e.key, text)
    assert bool(e.dtypes) == key.startswith("dtype"), e.dtypes  # the dtypes it checks are named


@pytest.mark.parametrize("text", [
    "RuntimeError: CUDA error: no CUDA GPUs are available",
    "AssertionError: Torch not compiled with CUDA enabled",
    "RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: "
    "[torch.cuda.FloatTensor [27, 32]] is at version 1; expected version 0 instead.",
    "RuntimeError: size mismatch, m1: [2 x 3], m2: [4 x 5] (fp16 model)",
    "I have half the data in float16 and the rest must be float32, is that a problem?",
    "AssertionError: the same seed must give the same samples",
    "ValueError: batch must be on the same node as the model",
])
def test_the_last_resort_leaves_other_faults_and_prose_alone(text):
    assert not explain(text).recognized, explain(text).key


@pytest.mark.parametrize("key,text", [
    # pyg-team/pytorch_geometric, dmlc/dgl, bitsandbytes, pytorch/ao, TransformerEngine, optimum: checks in their code
    ("dtype-check", "ValueError: Expected 'edge_index' to be of integer type (got 'torch.float32')"),
    ("dtype-check", 'dgl._ffi.base.DGLError: Expect argument "u" to have data type torch.int64. But got torch.int32.'),
    ("dtype-check", "TypeError: Expected torch.int8 input tensors A and B, but got torch.float16 and torch.int8"),
    ("dtype-check", "AssertionError: bias dtype must match output dtype"),
    ("dtype-required", "ValueError: Blockwise 4bit quantization only supports 16/32-bit floats, but got torch.float64"),
    ("dtype-required", "ValueError: 'EdgeIndex' holds an unsupported data type (got 'torch.float32', but expected one "
     "of {torch.int32, torch.int64})"),
    ("device-mismatch", 'dgl._ffi.base.DGLError: Expect argument "v" to have device cuda:0. But got cpu.'),
    ("device-mismatch", "RuntimeError: Expected out.device == cuda:0, got cpu"),
    ("needs-gpu-tensor", "RuntimeError: 'CuGraphSAGEConv' requires GPU-based processing (got CPU tensor)"),
    ("needs-gpu-tensor", "NotImplementedError: Deformable Conv is not supported on CPUs!"),
    ("needs-gpu-tensor", "RuntimeError: IndexSelectCSC is only available on CUDA device."),
    ("fp8-gpu-unsupported", "RuntimeError: Device compute capability 10.0 or higher required for MXFP8 execution."),
    ("fp16-needs-gpu", "ValueError: FP16 export is supported only when exporting on GPU. Please pass the option "
     "`--device cuda`."),
    ("fp16-needs-gpu", "ERROR: fp16 is for GPU only"),
    # heldout16's families: legacy type names on one device, NaN "returned", CTranslate2's int8 types, MKL's FFT, ONNX under
    # autocast, TensorRT subnormal weights
    ("expected-scalar-type", "RuntimeError: Expected object of type torch.cuda.FloatTensor but found type "
     "torch.cuda.LongTensor for argument #2 'other'"),
    ("fp16-nonfinite-report", "When using `mixed_precision=True` the model is returning NaN"),
    ("ctranslate2-compute-type", "faster-whisper, compute_type='auto'\nRuntimeError: cuBLAS failed with status "
     "CUBLAS_STATUS_NOT_SUPPORTED\nint8_bfloat16 = FAIL\nbfloat16 = WORKS"),
    ("fft-half", "RuntimeError: MKL FFT doesn't support tensors of type: Half"),
    ("onnx-type-mismatch", "onnx.onnx_cpp2py_export.shape_inference.InferenceError: [ShapeInferenceError] (op_type:"
     "BatchNormalization, node name: BatchNormalization_0): scale has inconsistent type tensor(float)"),
    ("tensorrt-fp16-range", "Detected subnormal FP16 values. --precisionConstraints --layerPrecisions did't work"),
    # llama.cpp, diffusers, PEFT, torchaudio, sglang, Triton sources
    ("ggml-type-assert", "ggml/src/ggml-cuda/cpy.cu:400: ggml_cuda_cpy: unsupported type combination (q4_K to f32)"),
    ("bnb-model-cast", "The module 'FluxTransformer2DModel' has been loaded in 8bit and conversion to torch.float16 "
     "is not yet supported. Module is still in 8bit precision."),
    ("offloaded-move", "ValueError: It seems like you have activated sequential model offloading by calling "
     "`enable_sequential_cpu_offload`, but are now attempting to move the pipeline to GPU."),
    ("dtype-required", "RuntimeError: targets must be int32 type"),
    ("dtype-check", "UserWarning: The input Tensor must be of floating type."),
    # NVIDIA/apex, DeepSpeed, CTranslate2, ExecuTorch, GPTQModel, optimum, coremltools, TensorRT's Polygraphy
    ("dtype-check", "RuntimeError: Dtype of the freqs tensor must be float"),
    ("dtype-check", "ValueError: MIL quantization dtype must be int8 or uint8"),
    ("dtype-required", "ValueError: GroupBatchNorm2d expected input tensor in float16"),
    ("dtype-required", "RuntimeError: conversion is supported for Half type only"),
    ("dtype-required", "RuntimeError: Expected bfloat16 inputs"),
    ("dtype-required", "TypeError: float16 dtype for inputs is only supported for deployment target >= iOS16"),
    ("needs-gpu-tensor", "RuntimeError: expected input to be on cuda"),
    ("needs-gpu-tensor", "RuntimeError: GGUFCudaKernel only supports CUDA input tensors."),
    ("needs-gpu-tensor", "NotImplementedError: <class 'MarlinQuantLinear'> only supports `[<DEVICE.CUDA: 'cuda'>]`: "
     "actual device = `cpu`"),
    ("device-mismatch", "AssertionError: CPUAdam param is on cuda:0 and must be 'cpu', make sure you enabled "
     "'offload_optimizer': 'cpu' in your ZeRO config."),
    ("dtype-unsupported", "ValueError: Conversion from int8 to bfloat16 is not yet implemented"),
    ("dtype-unsupported", "WARNING: Exporting the model in bfloat16 float dtype. After the export, ONNX Runtime "
     "InferenceSession with CPU/CUDA execution provider likely does not implement all operators for the bfloat16 "
     "type."),
    ("fp16-needs-gpu-listed", "ValueError: fp16 mixed precision requires a device in ('xpu', 'cuda', 'npu') (not "
     "'tpu')."),
    ("tensorrt-precision-ignored", "[W] It looks like some layers in the network have compute precision set, but "
     "precision constraints were not enabled."),
    ("dtype-unsupported", "ValueError: The ONNX export of SpeechT5 in float16 is currently not supported due to a bug"),
    # heldout17's families
    ("fft-half", "Error Message: hipFFT doesn't support transforms of type: Half"),
    ("amp-unscale-bf16", "GradScaler used with mixed precision is not compatible with bfloat16 (see logs below)."),
    ("onnx-type-mismatch", "Data in initializer 'onnx::Add_2877' has element type tensor(float16) but usage of "
     "initializer in graph expects tensor(float)"),
    ("backend-half-kernel-bug", "As titled, this is a regression. IPEX could give a correct result for bf16 on XPU."),
    ("bf16-gpu-unsupported", "When running with CPU and bf16 on, you would get `ValueError: bf16 requested, but AMP is "
     "not supported on this GPU. Requires Ampere series or above.`"),
    # heldout18's families
    ("bf16-gpu-unsupported", "You can use float16 instead by explicitly setting the`dtype` flag in CLI, for example: "
     "--dtype=half"),
    ("bf16-gpu-unsupported", '  File "vllm/worker/worker.py", line 231, in _check_if_gpu_supports_dtype\n'
     "    raise ValueError("),
    ("triton-kernel-dtype", "--precision bf16\nLLVM ERROR: Cannot select: 0x56078d25b570: bf16 = bitcast "
     "0x56078d25b508"),
    ("dtype-table-key", "crashed during boot with `KeyError: 'float8_e8m0fnu'` in Triton's `canonicalize_dtype`"),
    # heldout19's families
    ("no-inf-checks", "scaler = accelerator.scaler\nAssertionError: No inf checks were recorded prior to update."),
    ("loss-scale-skips", "loss scale going to 1e-4 and training stops (args.min_loss_scale) with --fp16"),
    ("fp8-gpu-unsupported", "    output = torch._scaled_mm(\nRuntimeError: cutlass cannot initialize"),
    ("numpy-bf16", "x = mx.array([1.0, 2.0], mx.bfloat16)\nRuntimeError: Item size 2 for PEP 3118 buffer format "
     "string B does not match the dtype B item size 1."),
    ("mps-graph-element-type", "when mean/var in f32 and input in f16, mps backend will directly crash."),
    ("dtype-unsupported", "TypeError: Expected input of [torch.float16, torch.float32, torch.float64]. Got "
     "torch.bfloat16"),
    # heldout21's and heldout22's families
    ("fp16-nonfinite-report", "在加入 torch.cuda.amp 训练后, 迭代一定次数出现 nan 损失"),
    ("fp16-nonfinite-report", "fp16: true\n***** train metrics *****\n  train_loss               =        0.0"),
    ("fp16-nonfinite-report", "llm_dtype='fp16' 时推理结果全是感叹号"),
    ("nonfinite-value", "Inference goes wrong: the model went NaN after 2 generated tokens"),
    ("matmul-dtype", "Using ZeRO-3 with bf16 leads to a `float != c10::BFloat16` error in the lm_head"),
    ("device-mismatch", "GRPO: Device Mismatch Error When Using 4-bit Quantization"),
    ("bf16-gpu-unsupported", "运行官方示例脚本时报错: 不支持bf16"),
    ("meta-device", "加了几层线性层, from_pretrained 之后新加的层被载入到device='meta'"),
    # heldout23's families
    ("meta-copy", "Loading the T5 encoder separately causes a meta tensor error on sequential cpu offload"),
    ("custom-ext-dtype", "when I use torch.cuda.amp on DCN (DeformConv), the error \"RuntimeError: expect scalar type "
     "Float but Half\""),
    ("nonfinite-value", "after a few tokens the logits output by the model were all nan"),
    ("nonfinite-value", "ValueError: nan in logits, set nan_default_token to proceed"),
    # heldout24's families
    ("fp16-drift-report", "with ActivationDataType.FLOAT16 it decodes to multilingual token soup; FLOAT32 is correct"),
    ("fp16-drift-report", "with load_in_8bit the output is always empty. Fp16 and 32 work properly."),
    ("dtype-unsupported", "tensor-tools quantize model.safetensors\nError: unsupported safetensor dtype F8_E4M3"),
    ("generic-dtype", 'error: "expected HalfTensor, recieved FloatTensor"'),
])
def test_later_wordings_get_their_story(key, text):
    assert explain(text).key == key


def test_a_space_a_wrapped_line_left_before_a_dot_is_read_away():
    wrapped = explain("RuntimeError: Expected object of type torch.cuda.LongTensor but found type torch .LongTensor "
                      "for argument #3 'index'")
    assert wrapped.key == "type-device-mismatch"


def test_what_the_paste_shows_names_the_part_that_is_off():
    """An embedding lookup on two devices names the token ids and the table; a convolution of two dtypes in a
    Stable Diffusion tool names the VAE."""
    e = explain("RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cpu "
                "and cuda:0! (when checking argument for argument index in method wrapper__index_select)")
    assert "embedding" in e.cause and "token ids" in e.cause
    e = explain("Error occurred when executing SUPIR_Upscale:\n\nInput type (struct c10::Half) and bias type "
                "(float) should be the same")
    assert e.key == "conv-type" and "VAE" in e.cause and "--fp32-vae" in e.fix
    assert "VAE" not in explain("RuntimeError: Input type (struct c10::Half) and bias type (float) should be the "
                                "same").cause


def test_what_the_paste_shows_about_the_run():
    """CUDA that failed to start, torch.compile, an Ascend NPU and an 8-bit base under DeepSpeed each add what they
    mean to the answer."""
    e = explain("UserWarning: CUDA initialization: The NVIDIA driver on your system is too old (found version 11000).\n"
                "RuntimeError: \"addmm_impl_cpu_\" not implemented for 'Half'")
    assert "fell back to the CPU" in e.cause and "driver" in e.fix
    e = explain("torch.set_default_dtype(torch.bfloat16)\n@torch.compile\nRuntimeError: expected scalar type "
                "BFloat16 but found Float")
    assert "torch.compile" in e.cause and "without compiling" in e.cause
    e = explain("RuntimeError: Expected all tensors to be on the same device, but found at least two devices, npu:7 "
                "and npu:0! (when checking argument for argument src in method wrapper__npu_dtype_cast_)")
    assert "torch_npu" in e.fix
    e = explain("deepspeed --num_gpus 4 train.py --fp16 --quantization_bit 8\nRuntimeError: expected scalar type "
                "Float but found Half")
    assert "DeepSpeed does not support an 8-bit" in e.fix
    assert "DeepSpeed" not in explain("train.py --fp16 --quantization_bit 8\nRuntimeError: expected scalar type "
                                      "Float but found Half").fix


@pytest.mark.parametrize("text", [
    # a dtype torch is too old for; CUDA asked for on a machine without NPU words
    "AttributeError: module 'torch' has no attribute 'float8_e4m3fn'",
    "AssertionError: Torch not compiled with CUDA enabled",
    # torch.compile named next to an error of another kind
    "torch.compile error: shapes cannot be multiplied (fp16 model)",
])
def test_heldout17_look_alikes(text):
    assert not explain(text).recognized, explain(text).key


def test_what_the_paste_shows_about_buffers_methods_and_vaes():
    e = explain("buffers in FSDP are not casted to requested dtype\nRuntimeError: expected scalar type Half but "
                "found Float")
    assert "buffer_dtype" in e.fix
    e = explain("ValueError: torch.bfloat16 is not supported for quantization method gguf. Supported dtypes: "
                "[torch.float16, torch.float32]")
    assert "gguf" in e.cause
    e = explain("vae = AsymmetricAutoencoderKL.from_pretrained(name)\nRuntimeError: Input type (c10::Half) and bias "
                "type (float) should be the same")
    assert "VAE" in e.cause and "torch_dtype" in e.fix


def test_an_argparse_choice_is_no_dtype_fault():
    assert not explain("vllm serve: error: argument --dtype: invalid choice: 'torch.bfloat16' (choose from 'auto', "
                       "'bfloat16', 'float', 'float16', 'float32', 'half')").recognized


def test_what_the_paste_shows_about_emas_and_refused_dtypes():
    e = explain("self.strategy.moving_average(self.actor, self.ema_model, self.ema_beta, 'cpu')\nRuntimeError: Expected "
                "all tensors to be on the same device, but found at least two devices, cuda:2 and cpu!")
    assert "EMA" in e.cause and "ema.to(model.device)" in e.fix
    e = explain("TypeError: Expected input of [torch.float16, torch.float32, torch.float64]. Got torch.bfloat16")
    assert "The refused dtype is bf16" in e.cause
    assert set(explain("RuntimeError: expected scalar type QInt8 but found QUInt8").dtypes) == {"qint8", "quint8"}


def test_heldout20_families():
    e = explain("I met this problem after installing apex\nRuntimeError: expected scalar type Float but found Half")
    assert "pip uninstall apex" in e.fix
    e = explain("running v4.2.4 on a Mac Ultra: expected scalar type float but found c10::Half")
    assert "MPS" in e.cause and "upgrade torch" in e.fix
    e = explain("Value not in list: data_type: 'bfloat16' not in ['float16']\ntorch 2.7.1+cu126 2080super")
    assert "without native bf16" in e.fix
    assert explain("When I set to_fp16 and train a custom model, the loss would be nan").key in ("fp16-overflow", "fp16-nonfinite-report")
    # bf16 alone has fp32's range: a NaN loss in bf16 training gets no fp16 overflow story
    assert explain("bf16 학습 시 loss가 nan이 됩니다").key != "fp16-overflow"
    assert explain("the model produced much more broken output when half precision was used").recognized
    # the install message alone stays an install problem, and so does bitsandbytes' offload notice
    assert not explain("Using `load_in_8bit=True` requires Accelerate: `pip install accelerate` and the latest "
                       "version of bitsandbytes").recognized


def test_heldout21_and_22_context():
    """What the paste shows beside the message: DeepSpeed's own precision, an optimizer restored from a checkpoint,
    a `.to()` whose result is dropped, an index on another device, a gradient given by hand, a LoRA adapter on a
    quantized base, autocast around a module cast to fp32, a nan grad_norm beside a finite loss."""
    mm = "RuntimeError: expected mat1 and mat2 to have the same dtype, but got: c10::Half != c10::BFloat16\n"
    e = explain(mm + '"zero_optimization": {"stage": 3, "zero_quantized_weights": true}')
    assert "zero_quantized_weights" in e.cause and "off" in e.fix
    e = explain(mm + "deepspeed_config_file: ds_z3.json\nmixed_precision: bf16")
    assert "DeepSpeed config" in e.cause and '"bf16": {"enabled": true}' in e.fix
    same = "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:1 and cpu!"
    e = explain("The Prodigy optimizer cannot be resumed from a checkpoint:\n" + same)
    assert "optimizer restored" in e.cause and "optimizer.load_state_dict" in e.fix
    e = explain("input_ids.to(device)\nout = model.generate(input_ids)\n" + same)
    assert "not in-place" in e.cause and "input_ids = input_ids.to(device)" in e.fix
    assert "not in-place" not in explain("classifier.to(device)\n" + same).cause  # a module's .to() moves in place
    e = explain(same.replace("!", "! (when checking argument for argument index in method wrapper_gather)"))
    assert "`index` argument" in e.cause
    e = explain("    output.backward(gradient=target)\nRuntimeError: invalid gradient at index 0 - expected type "
                "torch.cuda.FloatTensor but got torch.FloatTensor")
    assert "`gradient=`" in e.cause and "ones_like" in e.fix
    e = explain("loading a LoRA adapter on an AutoGPTQ base model\nRuntimeError: expected scalar type Half but found "
                "Float")
    assert "LoRA adapter" in e.cause
    e = explain("pipe.vae.to(dtype=torch.float32)\nwith autocast('cuda'):\n    latents = pipe.vae.encode(x)\n"
                "the latents are all NaN in fp16")
    assert "outside autocast" in e.fix
    e = explain("grad_norm: nan shows up now and then during training, is it normal?")
    assert not e.recognized and "expected and harmless" in e.fix
    assert "expected and harmless" not in explain("loss: nan, grad_norm: nan").cause


def test_heldout21_and_22_rejects():
    """A NaN the text shows precision did not cause, a device type an old torch does not know, a tracer's meta
    autocast, and a loss-scale key in a config dump are not read as precision faults."""
    assert not explain("grad_norm: nan, loss 0 with fp16. I have tried bf16 false fp16 true, upgraded deepspeed and "
                       "torch, but that does not work.").recognized
    assert not explain("RuntimeError: probability tensor contains either `inf`, `nan` or element < 0\n{'loss': 0.0, "
                       "'grad_norm': nan, 'reward_std': nan}").recognized
    assert not explain("RuntimeError: Expected one of cpu, cuda, xpu, mkldnn, opengl, opencl, ideep, hip, msnpu, xla, "
                       "vulkan device type at start of device string: meta").recognized
    assert not explain("RuntimeError: User specified an unsupported autocast device_type 'meta'").recognized
    e = explain('RuntimeError: expected mat1 and mat2 to have the same dtype, but got: c10::Half != c10::BFloat16\n'
                '"fp16": {"enabled": "auto", "min_loss_scale": 1}')
    assert e.key != "loss-scale-skips"


def test_heldout23_context_and_rejects():
    """A quantized checkpoint loaded as plain weights; a TF32 or bf16 check that fails because CUDA did not start,
    and an NCCL error after an earlier bf16 message, are not precision faults."""
    e = explain("inference with gemma-7b-quant.ckpt\nRuntimeError: probability tensor contains either `inf`, `nan` or "
                "element < 0")
    assert "quantized checkpoint" in e.cause and "`quant=True`" in e.fix
    assert not explain("UserWarning: CUDA initialization: CUDA unknown error - this may be due to an incorrectly set "
                       "up environment\nValueError: --tf32 requires Ampere or a newer GPU arch, cuda>=11 and "
                       "torch>=1.7").recognized
    assert explain("ValueError: --tf32 requires Ampere or a newer GPU arch, cuda>=11 and torch>=1.7").recognized
    assert not explain('without --dtype float16 I got "ValueError: Bfloat16 is only supported on GPUs with compute '
                       'capability of at least 8.0"\ntorch.distributed.DistBackendError: NCCL error in: '
                       'NCCLUtils.hpp:219, invalid argument').recognized


def test_heldout24_context():
    """BatchNorm kept fp32 in a half model is named, and a bare shape error is not read as a 4-bit fault without a
    quantized context."""
    e = explain('error: "expected HalfTensor, recieved FloatTensor"\nself.module = batchnorm_to_fp32(module.half())')
    assert "BatchNorm" in e.cause and "autocast" in e.fix
    assert not explain("RuntimeError: mat1 and mat2 shapes cannot be multiplied (80x512 and 1x393216)").recognized


def test_heldout24_late_additions():
    """A loop that skips scaler.update() with a skipped step, and a model whose __init__ reads tensor values under
    from_pretrained's meta init."""
    e = explain("RuntimeError: unscale_() has already been called on this optimizer since the last update().")
    assert "every iteration" in e.fix
    e = explain("model = GECToR.from_pretrained(model_id)\nRuntimeError: Tensor.item() cannot be called on meta tensors")
    assert "meta device inside `from_pretrained`" in e.cause and "pin" in e.fix


def test_heldout78_to_81_mechanisms():
    """A GTX 16xx NaN names the fp16 range it overflows; the device form of the old torch.cat message stays a device
    fault; an ONNX runtime's input type is no PIL story; a device check that names its argument, or an index tensor on
    another device, is told so."""
    assert "65504" in explain("fp16 mixed precision causes NaN in Conv2d on a GTX 1660 Ti").cause
    e = explain("RuntimeError: Expected object of backend CUDA but got backend CPU for sequence element 1 in sequence "
                "argument at position #1 'tensors'")
    assert e.key == "device-mismatch"
    assert explain("onnxruntime: Input type tensor(int64) is not supported").key != "to-pil-image-dtype"
    e = explain("RuntimeError: Tensor for argument #2 'targets' is on CPU, but expected it to be on GPU (while "
                "checking arguments for ctc_loss_gpu)")
    assert "`targets` is on CPU where GPU is expected" in e.cause
    e = explain("RuntimeError: indices should be either on cpu or on the same device as the indexed tensor (cpu)")
    assert e.key == "device-mismatch" and "`torch.arange(n)`" in e.cause
    # "Output:" above a printed training loss is no model output: a NaN loss without half precision is not explained
    assert not explain("The loss has always been NAN\nOutput:\n```\ntensor(nan, device='cuda:0', grad_fn="
                       "<MseLossBackward0>) {'loss': nan}\n```").recognized
