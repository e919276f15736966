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
]


@pytest.mark.parametrize("key,text", CASES)
def test_each_family_wording_gets_its_story(key, text):
    e = explain(text)
    assert e.key == key, (e.key, e.cause)
    assert "[S0" not in e.title + e.cause + e.fix


@pytest.mark.parametrize("text", [
    # NaN without half precision, half precision without NaN
    "The loss is finite in fp32 and bf16 and training converges fine.",
    "My fp16 model is slower than expected on the T4.",
    "bf16 model gives different shape error",
    "nanoGPT trains fine in fp16 on the A100",
    "loss does not decrease after 10 epochs with lr 1e-3",
    # an AMD CPU is not a ROCm GPU
    "AMD Ryzen 9 7950X CPU: bf16 is not supported here, falling back to fp32",
    # Core ML conversion failing for another reason
    "coremltools: ValueError: Unsupported op 'aten::unflatten' (fp16 model)",
])
def test_look_alikes_are_not_these_stories(text):
    e = explain(text)
    assert e.key not in {k for k, _ in CASES}, (e.key, text)


def test_a_float8_format_is_named_once_among_the_dtypes():
    e = explain("RuntimeError: Promotion for Float8 Types is not supported, attempted to promote Float8_e4m3fn and Half")
    assert e.dtypes == ["float8_e4m3fn", "fp16"]
