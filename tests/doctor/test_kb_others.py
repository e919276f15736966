"""Known faults of another kind (kb/others.py): not explained (exit 3), but told with the advice that fixes them."""
import pytest

from amplora.doctor.explain import explain
from amplora.doctor.kb import GENERAL_ADVICE

OTHERS = [
    ("RuntimeError: Expected a 'cuda:0' generator device but found 'cuda'", "fixed in 1.9"),
    ("RuntimeError: expected scalar type Half but found Float with BatchNorm2d(affine=False) under amp; the error "
     "does not occur when affine=True", "affine=True"),
    ("torch.float16 max err: inf\ntorch.bfloat16 max err: 1.2e+31", "wrong values from a kernel"),
    ("RuntimeError: \"roll_cuda\" not implemented for 'Bool'", "no CUDA kernel for that op on bool"),
    ("ValueError: SyncBatchNorm expected input tensor to be on GPU", "plain BatchNorm"),
    ("UserWarning: Converting mask without torch.bool dtype to bool; this will negatively affect performance.",
     "Pass bool masks"),
    ("NotImplementedError: Could not run 'aten::_sparse_coo_tensor_with_dims_and_tensors' with arguments from the "
     "'SparseMPS' backend.", "to_dense"),
    ("UserWarning: Please use the new API settings to control TF32 behavior, such as "
     "torch.backends.cudnn.conv.fp32_precision = 'tf32'", "fp32_precision"),
    ("I have 3080 and installed it as per git readme.\nUserWarning: User provided device_type of 'cuda', but CUDA is "
     "not available. Disabling", "same interpreter"),
    ("RuntimeError: No suitable kernel. h_in=64 h_out=3424 dtype=Float out_dtype=BFloat16", "tensor-parallel size"),
    ("GPU Type: RTX4070\nCUDA Version: cuda_11.0.2\nHalf2 support requested on hardware without native FP16 support, "
     "performance will be negatively affected", "predates its architecture"),
    ("    return self._apply(lambda t: t.cuda(device))\nRuntimeError: Invalid device, must be cuda device",
     "torch.cuda.is_available()"),
    ("NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:\n     query       : "
     "shape=(1, 5617, 16, 64) (torch.float32)\n`fa3F@0.0.0` is not supported because:\n    xFormers wasn't build with "
     "CUDA support\n    dtype=torch.float32 (supported: {torch.float16, torch.bfloat16})", "Reinstall the xformers"),
    ("torch.compile returns nan for my conv + relu model; eager has no nan on the same input", "compiler"),
    ("Unhandled FakeTensor Device Propagation for aten.index.Tensor, found two different devices cuda:0, cpu",
     "allowed in eager"),
    ("torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\nLoweringException: AssertionError: "
     "expected dtype torch.int64", "lowering"),
    ("blob = pickle.dumps(model.state_dict())\nsd = torch.load(io.BytesIO(blob), map_location='cpu')\nRuntimeError: "
     "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False.", "torch.save"),
    ("RuntimeError: FlashAttention only supports Ampere GPUs or newer.", "sdpa"),
    ("RuntimeError: CUDA error: no kernel image is available for execution on the device", "TORCH_CUDA_ARCH_LIST"),
    ("RuntimeError: Could not infer dtype of numpy.float32", "numpy<2"),
    ('ds_config = {"zero_optimization": {"stage": 3, "offload_optimizer": {"device": "nvme", "nvme_path": "/local", '
     '"ratio": 0.3}}}\nRuntimeError: expected input to be on cuda', '"device": "cpu", "pin_memory": true'),
    ("torch.utils.checkpoint.CheckpointError: Recomputed values for the following tensors have different metadata\n"
     "saved metadata: {'shape': torch.Size([3584]), 'dtype': torch.float16}\n"
     "recomputed metadata: {'shape': torch.Size([0]), 'dtype': torch.float16}", "use_reentrant"),
    ("ERROR : Arch conditional MMA instruction used without targeting appropriate compute capability. Aborting.",
     "TORCH_CUDA_ARCH_LIST"),
    ("NotImplementedError: The operator 'aten::isin.Tensor_Tensor_out' is not currently implemented for the MPS "
     "device. As a temporary fix, you can set the environment variable `PYTORCH_ENABLE_MPS_FALLBACK=1`",
     "PYTORCH_ENABLE_MPS_FALLBACK=1"),
    ("RuntimeError: Conv3D is not supported on MPS", "PYTORCH_ENABLE_MPS_FALLBACK=1"),
    # the fallback at work: a warning, the op ran on the CPU
    ("UserWarning: The operator 'aten::upsample_bicubic2d.out' is not currently supported on the MPS backend and "
     "will fall back to run on the CPU. This may have performance implications.", "correct but slower"),
    ("  File \"transformers/models/llama/modeling_llama.py\", line 141, in forward\n"
     "    with torch.autocast(device_type=device_type, enabled=False):\n"
     "RuntimeError: User specified an unsupported autocast device_type 'xpu'", "Upgrade torch"),
    ("ValueError: Some modules are dispatched on the CPU or the disk. Make sure you have enough GPU RAM to fit the "
     "quantized model.", "llm_int8_enable_fp32_cpu_offload"),
    ("ValueError: You can't train a model that has been loaded in 8-bit precision with CPU or disk offload.",
     "does not fit in GPU memory"),
    # the AMP API's old spelling: a deprecation warning, nothing wrong with the run
    ("train.py:196: FutureWarning: `torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
     "`torch.amp.GradScaler('cuda', args...)` instead.", "torch.amp.GradScaler('cuda', ...)"),
    # xFormers' cutlass kernel, which takes every float dtype, refused the bias for its shape
    ("NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:\n"
     "     query       : shape=(8, 43, 4, 8) (torch.float32)\n     attn_bias   : <class 'torch.Tensor'>\n"
     "`flshattF` is not supported because:\n    dtype=torch.float32 (supported: {torch.bfloat16, torch.float16})\n"
     "`cutlassF` is not supported because:\n    attn_bias.shape[-1] % 8 != 0", "multiple of 8"),
    # one-hot targets beside an Int target error: the shape is what is left
    ("RuntimeError: Expected object of scalar type Long but got scalar type Int for argument #2 'target'\n"
     "RuntimeError: multi-target not supported at ClassNLLCriterion.cu:15", "argmax"),
    # loss scaling that is still calibrating: a high scale, no NaN loss
    ("Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 16384.0\nIs this normal?",
     "expected and harmless"),
    ("[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 4294967296, reducing to 2147483648",
     "expected and harmless"),
    ("It prints a few lines of \"Gradient overflow. Skipping step, loss scaler 0 reducing loss scale to ***\". Is this "
     "normal?", "expected and harmless"),
    # float labels of a regression task and a classification head: the config's num_labels
    ("Fine-tuning a sentiment checkpoint on a regression task with float scores:\nRuntimeError: expected scalar type "
     "Long but found Float", "num_labels=1"),
    # a device name torch does not know: a spelling, not a placement
    ("RuntimeError: Expected one of cpu, cuda, xpu, mkldnn, opengl, opencl, ideep, hip, msnpu, xla, vulkan device "
     "type at start of device string: gpu", "torch.device('cuda')"),
    ("x.to('dml')\nRuntimeError: Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, "
     "maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start of device string: dml",
     "torch_directml.device()"),
    # a test's expected wording of a device error, not the error itself
    ('AssertionError: "Expected all tensors to be on the same device" does not match "Tensor on device cuda:0 is not '
     'on the expected device cpu!"', "assertRaisesRegex"),
    # Gaudi computes bf16: the library's check did not know HPUs
    ("Setting ds_accelerator to hpu (auto detect)\nValueError: Your setup doesn't support bf16/gpu.", "optimum-habana"),
    # the script's own CUDA call made on a machine without a GPU
    ('  File "run_seq_labeling.py", line 691, in main\n    torch.cuda.set_device(device)\n  File "/opt/conda/lib/'
     'python3.6/site-packages/torch/cuda/_utils.py", line 24, in _get_device_index\n    raise ValueError(\'Expected '
     'a cuda device, but got: {}\'.format(device))\nValueError: Expected a cuda device, but got: cpu',
     "if device.type == 'cuda'"),
    # TensorRT 11 removed the weakly typed precision API
    ("trtbackend.cpp does not build with TensorRT 11: these APIs were removed: nvinfer1::ILayer::setPrecision, "
     "nvinfer1::BuilderFlag::kFP16, nvinfer1::IBuilder::platformHasFastFp16", "TensorRT major version"),
    # torch 2.1's float32-only step check under a float64 default dtype
    ("torch.set_default_dtype(torch.float64)\nRuntimeError: Tensors of the same index must be on the same device and "
     "the same dtype except `step` tensors that can be CPU and float32 notwithstanding", "2.2 fixed it"),
    # anomaly mode names a backward op of plain fp32 math, or the text traces the NaN to a zero itself
    ("RuntimeError: Function 'PowBackward0' returned nan values in its 0th output.", "torch.sqrt(x + 1e-8)"),
    ("the edge vectors contain zeros, which causes NaN in edge_vec / torch.norm(edge_vec)", "clamp_min"),
    ("nan weights: RuntimeWarning: divide by zero encountered in log", "acos/asin"),
    # torch 2.0's complex-only STFT API
    ("RuntimeError: istft requires a complex-valued input tensor matching the output from stft with "
     "return_complex=True.", "view_as_complex(spec)"),
    # a failed import names a dtype or a kernel: an install problem all the same
    ("  File \"model.py\", line 613, in __init__\n    raise ImportError(\nImportError: This model requires FP8 input "
     "projections (use_fp8_input_projections=True) which depends on Transformer Engine, but TE is not installed.",
     "an import failed"),
    ("ModuleNotFoundError: No module named 'fused_layer_norm_cuda' (apex was built without its bf16 kernels)",
     "an import failed"),
    # transformers' warning for a model built on the CPU before it is moved
    ("You are attempting to use Flash Attention 2.0 with a model not initialized on GPU. Make sure to move the model "
     "to GPU after initializing it on CPU with `model.to('cuda')`.", "harmless once the model is on the GPU"),
    # no MPS device on this machine or torch build; torch.compile keeping the first call's GPU
    ("RuntimeError: The MPS backend is supported on MacOS 12.3+.", "Not a precision fault: the code asked for Apple's "
     "MPS device"),
    ("torch.compile burns-in device numbers, leading to errors when called with tensors on new device: RuntimeError: "
     "Expected all tensors to be on the same device", "compile once per device"),
]


@pytest.mark.parametrize("text,advice", OTHERS)
def test_a_known_fault_of_another_kind_gets_its_own_advice(text, advice):
    e = explain(text)
    assert not e.recognized
    assert advice in e.fix and e.fix != GENERAL_ADVICE


@pytest.mark.parametrize("text,key", [
    # the scale fell to 1, or the loss is NaN: the fp16 run itself overflows
    ("OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 1, reducing to 1", "loss-scale-skips"),
    ("Gradient overflow. Skipping step, loss scaler 0 reducing loss scale to 8192.0\nDLoss:nan Reg:nan",
     "loss-scale-skips"),
    ("overflow detected, setting loss scale to: 0.0625", "loss-scale-skips"),
    # a numpy bfloat16 array's rounding is not NumPy lacking bf16
    ("a = np.array([1.0345], dtype=bfloat16) shows different values than expected", "bf16-rounding-report"),
    # the fallback warning above a dtype error does not answer for it
    ("UserWarning: The operator 'aten::upsample_bicubic2d.out' is not currently supported on the MPS backend and "
     "will fall back to run on the CPU.\nTypeError: Cannot convert a MPS Tensor to float64 dtype as the MPS framework "
     "doesn't support float64. Please use float32 instead.", "mps-float64"),
    # the cutlass kernel refused for the dtype (bf16 on an old GPU): a precision fault after all
    # cublasGemmEx's own compute_type argument is no CTranslate2 compute type
    ("RuntimeError: CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling `cublasGemmEx( handle, opa, opb, m, n, k, "
     "alpha_ptr, a, CUDA_R_16F, lda, b, CUDA_R_16F, ldb, beta_ptr, c, CUDA_R_16F, ldc, compute_type, "
     "CUBLAS_GEMM_DEFAULT_TENSOR_OP)`", "cublas-fp16"),
    ("NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:\n"
     "     query       : shape=(8, 1008, 1, 72) (torch.bfloat16)\n"
     "`cutlassF` is not supported because:\n    bf16 is only supported on A100+ GPUs\n"
     "`smallkF` is not supported because:\n    dtype=torch.bfloat16 (supported: {torch.float32})", "bf16-gpu-unsupported"),
    # bitsandbytes' own CUDA call meeting weights left on the CPU is a placement fault
    ('  File "/venv/lib/python3.10/site-packages/bitsandbytes/functional.py", line 482, in pre_call\n'
     '    torch.cuda.set_device(device)\nValueError: Expected a cuda device, but got: cpu', "device-mismatch"),
    # a device type autocast never takes is the user's call to fix
    ("RuntimeError: User specified an unsupported autocast device_type 'cuda:0'", "autocast-device-type"),
    # the same backward NaN under fp16 (f16 weights, AMP) is the overflow story
    ("policy model set to f16 and load_in_4bit\nRuntimeError: Function 'LogSigmoidBackward0' returned nan values in "
     "its 0th output.", "fp16-overflow"),
    ("with torch.autocast('cuda', dtype=torch.float16):\nRuntimeError: Function 'MulBackward0' returned nan values in "
     "its 0th output.", "fp16-overflow"),
])
def test_the_same_messages_in_trouble_are_still_diagnosed(text, key):
    e = explain(text)
    assert e.recognized and e.key == key, (e.key, text)
