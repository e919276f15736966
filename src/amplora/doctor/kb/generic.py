"""Generic entries, tried last: they answer when no specific entry matched and say what the message cannot tell."""
from __future__ import annotations

import re

from amplora.doctor.kb.entry import make as _e
from amplora.doctor.kb.patterns import (AMP_NOTICE, BF16_ONLY, DIVERGED, EXCEPTION_NAMED, HALF_EVIDENCE, HALF_WORDS,
                                        MATMUL, MATMUL_TAIL, NAN_BEYOND_TRAINING, NOT_A_DTYPE_FAULT, OTHER_GPU,
                                        PRECISION_RULED_OUT)

# a floating dtype as messages and reports spell it
_DTYPE_WORD = (r"(\b(torch\.)?(b?float16|float8\w*|float32|float64|Half|BFloat16|Float8\w*|bf16|fp16|fp8|fp32|"
               r"half|half[- ]precision|double|DT_BF16|DT_BFLOAT16|DT_FLOAT16)\b)")

# dtype names as TORCH_CHECK messages list the ones an op accepts ("Float32, BFloat16 or Float16", "Half, Float or
# Double")
_LISTED = r"(Float(16|32|64)?|BFloat16|Half|Double|float(16|32|64)?|bfloat16|half|double|fp(16|32)|bf16)\b"

# kernels that exist only on the CPU or whose CUDA version has always had Half: their "not implemented for 'Half'" is a
# CPU run even when the text shows `.cuda()` calls elsewhere
_CPU_KERNELS = (r"(unfolded[23]d_copy|LayerNormKernelImpl|GroupNormKernelImpl|host_softmax|(log_)?softmax_lastdim_kernel_impl|"
                r"slow_conv\w*|im2col|col2im|baddbmm_with_gemm|addmm_impl_cpu_|\w+_cpu_?)")

# the missing kernel told in words: "gemm for 'Half' data type is not implemented"
_HALF_NOT_IMPLEMENTED_IN_WORDS = (
    r"(?:\b\w+ for '?(Half|BFloat16|fp16|bf16)'? (data ?type |dtype )?(is |are )?not (yet )?implemented\b|"
    # "torch.clamp fails with half precision args"
    r"\b\w+ (fails|crashes|errors?( out)?) (with|on|for) (half|fp16|float16|bf16|bfloat16)( precision)? "
    r"(args|arguments|tensors?|inputs?)\b)")

# the exception of a paste that ends in one of these is another kind of fault (see kb.lookup)
_DTYPE_KEY = r"(torch\.)?(complex|float|bfloat|half|double|u?int\d|bool|fp\d|bf16|f16|f32|q\d|[uif]\d)"
OTHER_FAULT = re.compile(
    r"out of memory|OutOfMemoryError|size mismatch for|shapes cannot be multiplied|must match the size of tensor|"
    r"doesn't match the broadcast shape|No module named|ModuleNotFoundError|ImportError|FileNotFoundError|"
    r"Watchdog caught collective|device-side assert|illegal memory access|has no attribute|"
    r"unexpected keyword argument|Permission denied|HTTPError|ConnectionError|Missing key\(s\) in state_dict|"
    r"Unexpected key\(s\) in state_dict|Torch not compiled with CUDA enabled|invalid device ordinal|"
    r"CUDA driver version is insufficient|SafetensorError|does not appear to have a file named|"
    r"Unrecognized configuration class|Repository Not Found|Segmentation fault|NCCL error in:|DistBackendError|"
    # a missing field in the data ("KeyError: 'messages'", whose message is the quoted key alone), not a dtype's name
    # missing from a table ("KeyError: 'complex64'")
    r"\bKeyError: '(?!" + _DTYPE_KEY + r")[\w. -]*'\s*$|\A'(?!" + _DTYPE_KEY + r")[\w. -]*'\s*\Z",
    re.IGNORECASE)

# the paste ends in a failed import ("ImportError: This model requires FP8 ... but TE is not installed")
IMPORT_FAILURE = re.compile(r"(?:[\w.]+\.)?(?:ImportError|ModuleNotFoundError)\b")
# ... except the entries whose story is that import failure: transformers' install message for bitsandbytes on the CPU
EXPLAINS_IMPORT_FAILURE = frozenset({"bnb-on-cpu"})

# ... except when the paste shows what made the other fault: a multinomial or BCE kernel's assertion on NaN inputs
# ends in "device-side assert triggered" on a GPU
# (a gradient tape that watched an integer tensor returns None, and the paste ends in that None's AttributeError)
OTHER_FAULT_CAUSED_BY_OURS = re.compile(r"binarySearchForMultinomial|MultinomialKernel|input_val >= zero|"
                                        r"probability tensor contains either|The dtype of the watched tensor must be "
                                        r"floating|"
                                        # an illegal memory access from a kernel launched off its tensors' GPU
                                        r"\A(?=[\s\S]*" + OTHER_GPU + ")"
                                        r"(?=[\s\S]*\billegal (memory access|address)\b)|"
                                        # a float32-only kernel given fp16 buffers (its dtype check removed)
                                        r"\A(?=[\s\S]*\b(must be|requires?|only (supports?|accepts?))\b[^\n]{0,30}"
                                        r"\b(torch\.)?float32\b)(?=[\s\S]*\b(float16|fp16|half)\b)"
                                        r"(?=[\s\S]*\billegal memory access\b)|"
                                        # DeepSpeed's CPU Adam crashing on GPU parameters
                                        r"DeepSpeedCPUAdam|Adam Optimizer #\d+ is created with AVX", re.IGNORECASE)

# a non-finite value named in a message, a log line or a report
# a NaN a validator found in a value (a distribution's parameters, a library's input check): without half precision in
# the text it is a bug or bad data upstream, not a precision story
# NaN only for padded rows of a batch (fine one at a time): a mask over a fully padded row, not precision
_PADDING_NAN = r"\bbatched inference\b|\b(bs|batch[_ ]?size)\s*=\s*1\b|\bpadd(ed|ing)\b"
# a training run's log ({'loss': ..., 'learning_rate': ..., 'epoch': ...}): its eval_loss NaN is a training NaN
_TRAINER_LOG = r"['\"]learning_rate['\"]\s*:\s*[\d.e-]+.{0,200}['\"]epoch['\"]\s*:"
_VALIDATED = (r"found invalid values:?\s*tensor\(\[*\s*(nan|inf)|NaN or Inf found in input tensor|Input contains (NaN|infinity)|"
              r"contains NaN, infinity")
NONFINITE = (r"cannot be converted to type (c10::|at::)?(Half|BFloat16)\w* without overflow|"
             r"overflow encountered in (cast|half_scalars)(?=.{0,400}\b(float16|fp16|half)\b)|"
             r"\b(float16|fp16)\b.{0,400}overflow encountered in (cast|half_scalars)|"
             r"returned nan values|nan values in its|Gradient overflow|overflow(ed|ing)? gradients?\b|"
             r"loss (is|became) (nan|inf)|"
             r"found (nan|inf) in (the )?(grad|loss)|(nan|inf) (loss|gradient)s? (detected|encountered)|"
             r"\b\w*loss['\"]?\s*[=:]\s*['\"]?(nan|inf)(?![a-z0-9_])|"
             r"\b\w*loss\w*['\"]?(\s*(is|was|has|of|becomes?|became|goes|went|gone|turns?|turned|to|into|would|will|be|"
             r"gets|got|just|still|suddenly|then|always|quickly|eventually|immediately|soon|finally|directly|为|变成|变为))"
             r"{0,2}\s*['\"]?(nan|inf)(?![a-z0-9_])|\bloss\s*(が|は|가|이|는)\s*(nan|inf)(?![a-z0-9_])|"
             r"\b(nan|NaN) (issue|problem|error)s?\b|出现\s*(nan|NaN|inf)(?![a-z0-9_])|\b(nan|NaN|inf)\s*值|\b(nan|inf) loss(es)?\b|\bloss(es)? nans?\b|\btensor is nan\b|"
             r"\b(nan|inf) as (the )?(train(ing)? |val(idation)? |eval )?loss\b|"
             r"\b(nan|inf) (validation|val|eval|evaluation|training|train|test) loss(es)?\b|"
             r"\b(outputs?|generates?|returns?|answers?)\b[^\n]{0,30}!{4,}|"
             r"\bgrad_?norm['\"]?\s*[=:]\s*['\"]?(nan|inf)(?![a-z0-9_])|"
             # a logger's "grad_norm: 0.39 (nan)": the running average went NaN; "NaN grad_norm" in a title
             r"\bgrad_?norm['\"]?\s*[=:]\s*[\d.e+-]+\s*\((nan|inf)\)|\b(nan|inf) grad_?norms?\b|"
             r"\b(logits|outputs?|predictions?|activations|hidden[_ ]states|embeddings|weights|gradients)\b[^.\n]{0,40}"
             r"\b(were|was|are|is|become|became|turn(ed)?)\s+(all\s+)?(nan|inf)s?(?![a-z0-9_])|"
             r"\bnan in (the )?(logits|outputs?|loss|grad\w*|weights|activations|hidden[_ ]states)\b|"
             r"\b(nan|inf)-(logits|activations|hidden[_ ]states)\b|"
             r"\b(training|fine-?tuning|train|model|weights|gradients?|outputs?|logits|predictions?)\s+(goes|went|gone|"
             r"becomes?|became|turns?|turned|blows? up)\s+(to\s+)?(nan|inf)s?(?![a-z0-9_])|"
             r"\b(returning|returns|outputting|outputs|giving|gives)\s+(all\s+|only\s+)?(NaN|nan|inf)s?"
             r"(?![a-z0-9_])|"
             r"Detected (NaN|Inf)\w* in the (loss|grad)|\bNaNs? detected in the merged weights|" + _VALIDATED)

# generic
FALLBACKS = (
    _e("matmul-dtype", "mismatch", "matmul operands of two dtypes",
       f"{MATMUL}|{MATMUL_TAIL}", "A matmul/linear got operands of two dtypes outside autocast; the message does not say which "
       "operand is off, most often an fp32 tensor (an upcast norm output, an fp32 adapter, a buffer) meeting "
       "bf16/fp16 weights, or fp16/bf16 activations meeting weights kept in another dtype (an fp32 weight, or fp32 "
       "master weights a custom layer did not cast to the compute dtype).",
       "Cast at the boundary: `.to(x.dtype)` the odd tensor before the matmul, or cast the whole model once "
       "(`model.half()`, `model.to(torch.bfloat16)`): a `torch_dtype` given to a loader casts only the modules it "
       "loads, not heads or modules around them (a sentence-transformers Dense layer, a value head, a projector, a "
       "text encoder or UNet loaded on its own with `from_pretrained` and no `torch_dtype`); or run the forward "
       "under `torch.autocast(device_type, dtype=...)`; when it is raised inside a library's own code, upgrade that "
       "library first (such mismatches are often fixed in a later release); `amplora doctor run` names the tensor "
       "and the module."),
    _e("device-mismatch", "device", "tensors on different devices",
       r"Expected all tensors to be on the same device|Expected all tensors to be on the same\s*\Z|"
       r"found (at least )?two devices,? \(?[\w:]+ and [\w:]+|"
       r"is not on the expected device|"
       r"Expected object of backend \w+ but got backend \w+|"
       r"is on (CPU|GPU|CUDA|MPS|XPU)(:\d+)?,? but expected (it |them )?(to be )?on|"
       r"(arguments|tensors) are located on different GPUs|\bexpected (CUDA|CPU) \(got (CPU|CUDA)\)|"
       r"\bTHC\w*_?\(checkGPU\)|"  # torch < 0.4's check that all operands sit on one GPU
       r"Specified device cuda:\d+ does not match device of data cuda:\d+|"
       r"\bThe device of [\"'`]?\w+[\"'`]? has changed\b|"
       r"(on|at) (the )?(same|different) devices?|Input and parameter tensors are not at the same device|"
       r"\b(error|errors|problem) (of|with|about) mismatch(ed|ing) devices\b|"
       r"indices should be either on cpu or on the same device|to have the same device as tensor|"
       r"Expected all tensors to be on the \w+ device, but found at least one input|\bmixed-device\b|"
       r"\bindices (must|should) be (in|on) the same device as the indexed tensor|"
       r"Expected object of device type \w+ but got device type|expected device \S+ but got|"
       r"expected device (?P<mmd>\S+) and dtype \w+ but got device (?!(?P=mmd)\s)\S+ and dtype|"
       # a failing test's dump of its arguments: two tensors printed on two devices
       r"\A(?=.*\bdevice='(?P<pdev>\w+(:\d+)?)'\))(?=.*\bdevice='(?!(?P=pdev)')\w+(:\d+)?'\))(?=.*\b(fail|error))|"
       r"Expected tensor to have \w+ Backend, but got tensor with \w+ Backend|Expected a cuda device, but got:? cpu|"
       r"invalid gradient.{0,300}device=(?P<dev>[\w:]+)(?![\w:]).{0,300}but got.{0,300}"
       r"device=(?!(?P=dev)(?![\w:]))[\w:]+|"
       r"must have its parameters and buffers on device \S+( \(device_ids\[0\]\))? but found one of them on device|"
       r"FSDP (only supports single device modules|does not support modules with different device types) but got "
       r"params on|Expects the parameter to already be moved to device \S+ but got|"
       r"Tensor arguments, excluding CPU tensors, are detected on at least two types of devices|"
       r"(to have|should have|must have) the same device( type)?\b|expected to be (in|on) the same device|"
       r"arguments must (have|be on) the same device|(must|need to) be on the same device|must be on the current device|"
       r"\bon device [\w:]+ to an? \w+ on device [\w:]+|"
       r"expected \S+ to be on (cpu|cuda)\b.{0,20}but it'?s on|\bto have device \S+?\.? but got\b|"
       r"\bExpected \w+\.device ?== ?\S+,? got\b|\bis on [\w:]+ and must be (on )?.?(cpu|cuda)\b|"
       r"\bdevice[ _-]mismatch(es)?\b|Can'?t cast tensor from device \S+ to device\b|expected backend (CUDA|CPU) and dtype \w+ but got backend (CPU|CUDA)\b|Unhandled FakeTensor Device Propagation for aten\.(?!index)\w+|"
       r"\btensors?\s*(分布在了?|are (spread )?(on|over|across)|were (spread )?(on|over|across)|spread (over|across))\s*"
       r"(多个|multiple|several|different|two)\s*(GPUs?|devices|cards|显卡)",
       "An op got tensors on two devices: with cpu on one side, that is usually the tensor that was not moved "
       "(the inputs or labels not sent to the GPU, a tensor created without `device=` such as `torch.randn(shape)`, "
       "a loss's `weight=` or `pos_weight` tensor kept on the CPU or on "
       "cuda:0 under DataParallel, indices on another device than the tensor they index, a module, adapter or buffer "
       "created after `model.to(device)` "
       "or kept on the CPU (a pipeline component such as a UNet left behind), a tensor kept as a plain attribute suc"
       "h as `self.priors = torch.tensor(...)`, or "
       "submodules kept in a plain Python list instead of `nn.ModuleList`, which `model.to()` does not move); with t"
       "wo GPUs (cuda:0 and cuda:1), a model split by `device_map` got its inputs "
       "on the wrong GPU, a module was placed by hand, or under `nn.DataParallel` a tensor kept as a plain attribute "
       "(not a parameter or buffer) stayed on cuda:0 because replicas copy only parameters and buffers to each GPU; "
       "or a checkpoint loaded with `torch.load` without `map_location` brought its tensors back to the device they "
       "were saved from (another rank's GPU).",
       "Move the model and every input to the same device (`model.to(device)`, `batch = {k: v.to(device) for k, v "
       "in batch.items()}`, inputs to `model.device` with `device_map`); create new tensors with "
       "`device=x.device` and module tensors with `self.register_buffer(...)` so that `.to()` moves them; load "
       "checkpoints with `torch.load(path, map_location=...)` set to the current device; pin the GPU with "
       "`CUDA_VISIBLE_DEVICES`; with `device_map` over several GPUs keep each decoder layer whole "
       "(`no_split_module_classes=['...DecoderLayer']`); keep metrics and losses tracked across steps as Python "
       "numbers (`.item()`); "
       "when the op runs inside a library's own patch, kernel or optimizer, upgrade that library (such device bugs "
       "are often fixed in a later release) or go back to the release that worked."),
    _e("invalid-gradient-dtype", "backward-dtype", "a backward returned a gradient of another dtype",
       r"returned an invalid gradient at index \d+ - expected (type|dtype)",
       "A backward function (a custom `torch.autograd.Function`, a fused/LoRA kernel's backward or a gradient hook) "
       "returned a gradient whose dtype differs from the input it belongs to, e.g. an fp16 gradient for an fp32 "
       "parameter or input, which autograd refuses.",
       "Return each gradient in its input's dtype (`return grad_x.to(x.dtype), grad_w.to(w.dtype)`, saving the "
       "dtypes in `ctx`), or decorate the Function with `@torch.amp.custom_fwd(device_type='cuda')` / "
       "`@torch.amp.custom_bwd(device_type='cuda')` so backward runs under the forward's autocast state; "
       "`amplora doctor run` names the Function."),
    _e("hook-changed-type", "backward-dtype", "a hook returned a tensor of another dtype",
       r"hook '?[\w.<>]+'? has changed the type of value",
       "A hook (a gradient hook from `register_hook`, or a module's forward / backward hook) returned a tensor of "
       "another type than the one it was given: a mask or scale made in fp32 (`torch.ones`, `torch.tensor`, the "
       "default dtype) multiplied into an fp16/bf16 gradient or output promotes it to fp32, and torch refuses a "
       "hook that changes the dtype.",
       "Return the hook's result in its input's dtype: build masks and scales with `dtype=grad.dtype, "
       "device=grad.device` (or `grad * mask.to(grad.dtype)`), or end the hook with `.to(grad.dtype)`."),
    _e("conv-type", "mismatch", "conv input and weight/bias types differ",
       r"Input type \(.*?\) and (weight|bias) type \(.*?\) should be the same|"
       r"Input and (weight|bias) (type|dtype)s? (should|must) be the same|"
       r"Input type and (weight|bias) type should be the same|"
       r"to have the same type as tensor for argument #\d+ '(weight|bias)'",
       "A convolution got an input of another dtype than its weight or bias: the model was cast (`model.half()`, "
       "`torch_dtype`) but the input was not, or the input was cast and a layer was not.",
       "Give input and layer the same dtype: `x.to(conv.weight.dtype)` (or `conv.to(x.dtype)`), or run under "
       "`torch.autocast`, which casts both; under accelerate's mixed precision a prepared model's outputs come back "
       "float32 (its `convert_outputs_to_fp32` wrapper): unwrap it (`accelerator.unwrap_model`) before feeding its "
       "outputs to a bf16 model."),
    _e("kernel-dispatch-dtype", "cpu-kernel", "a compiled kernel has no version for this dtype",
       r"\bfailed to dispatch data type (Float|Double|BFloat16|Half|Float8\w*)\b|"
       r"\bkernel launch failed: (un)?supported data type|"
       r"\bnot been (built|compiled) with (fp32|float32|fp16|float16|bf16|bfloat16|fp8) support\b",
       "A compiled extension kernel or engine (SageAttention's and other quantized attention or GEMM kernels, "
       "FlashInfer, TurboMind) has versions only for the dtypes it was built for, usually fp16 and bf16, and got a "
       "tensor of another (a float32 query, key, value or output buffer, a model resolved to float32, an fp8 KV "
       "cache an older build lacks).",
       "Give the kernel a dtype it was built for: fp16 or bf16 (the engine's `dtype='float16'`, the model in half "
       "precision or under `torch.autocast`, or a cast at the call such as `q.to(torch.float16)`, output buffers "
       "too), or upgrade the library, whose later builds may add the dtype."),
    # a library that looks its compiled kernels up by a name built from the operands' dtypes
    _e("kernel-dtype-signature", "cpu-kernel", "no compiled kernel for this combination of dtypes",
       r"has no attribute '(?:[A-Za-z0-9]+_)+?(?:fp|bf|f)(?:16|32|64)_(?:[A-Za-z0-9]+_)*?(?:fp|bf|f)(?:16|32|64)"
       r"(?:_[A-Za-z0-9]+)*'",
       "The library finds its compiled kernel by a name built from the operands' dtypes (the name in the "
       "message), and none was built for this combination: most often one operand in float64 (fp64) among float32 "
       "ones (a float64 input, a weight or a library-side compute dtype left at float64), or fp16/bf16 where "
       "the build has only fp32/fp64 kernels.",
       "Give every operand one dtype the library builds kernels for, usually float32 (`.float()` the float64 "
       "tensor, set the library's own `dtype` / `math_dtype` option to match the inputs), or use the library's "
       "pure-PyTorch fallback (a non-fused or `use_fallback=True` path) for that combination."),
    _e("cuda-kernel-dtype", "cpu-kernel", "no GPU kernel for this op in this dtype",
       r"\"?\b\w*(cuda|cudnn|gpu)\w*\"? not implemented for '?(Half|BFloat16|ComplexHalf)\b'?|"
       # torch before 0.4 (THNN / THCUNN): "BatchNormalization_updateOutput is not implemented for type CUDAHalfType"
       r"\bnot implemented for type CUDA(Half|BFloat16)Type\b",
       "This GPU op has no kernel for that half-precision dtype in this torch build or extension: it is not "
       "implemented there (bf16 kernels are missing in older torch, its RNN cells among them, and in many custom "
       "CUDA ops).",
       "Run that op in fp32: `.float()` its inputs inside `torch.autocast('cuda', enabled=False)` and cast the "
       "result back; a custom op can do it with `@torch.amp.custom_fwd(device_type='cuda', "
       "cast_inputs=torch.float32)`; or upgrade torch."),
    _e("cpu-half-kernel", "cpu-kernel", "no fp16/bf16 CPU kernel for this op",
       r"(Half|BFloat16) (is )?not supported on CPU|lack of support for .?float16.? operations on CPU|"
       r"not supported on CPUType for (Half|BFloat16)\b|'?torch\.HalfTensor'? object has no attribute\b|"
       r"\b(raises?|fails?|errors?)\b[^\n]{0,40}\bon CPU for (float16|half|bfloat16|bf16) inputs?\b|"
       r"\b_th_\w+ not supported on CPUType for (ComplexFloat|ComplexDouble)\b|"
       r"\b(on|in) (the )?CPU\b[^.\n]{0,40}\berror\w*\b[^.\n]{0,40}\b(half|float16|fp16)\b|"
       r"\b(do ?n[o']t|does ?n[o']t|do not|does not) work on (the )?CPUs? (when )?(using|with|in) "
       r"(float16|fp16|half)\b|"
       r"\A(?=.*\b(error|Traceback)\b)(?=.*(\b(fp16|half|float16)\b.{0,200}\bon (the )?CPU\b|"
       r"\bon (the )?CPU\b.{0,200}\b(fp16|half|float16)\b))(?!.*\b(cuda|GPU)\b[^.\n]{0,40}\b(works?|fine)\b)|"
       r"\A(?=.*cpu).*?not implemented for '(Half|BFloat16)\b'?|not implemented for (type )?'?torch\.(Half|BFloat16)Tensor\b|"
       r"\b\w*cpu\w*\b[^.\n]{0,40}not implemented (for|in) '?(half|bf16|bfloat16|fp16)\b|"
       r"\A(?=.*\bcpu\b).*?" + _HALF_NOT_IMPLEMENTED_IN_WORDS + "|"
       r"\"" + _CPU_KERNELS + r"\" not imp(?!lemented for '?(?!Half)[A-Za-z])",
       "This op has no fp16/bf16 kernel on the CPU (it is not implemented for that dtype), so an fp16 model running "
       "on the CPU (older torch lacks Half GEMM `addmm_impl_cpu_`, conv and LayerNorm kernels) or an SVD/QR-based "
       "init (PiSSA, OLoRA; torch still lacks half `linalg.svd`, `linalg.qr`, `linalg.inv`) fails.",
       "Run fp16 models on the GPU (check that CUDA is visible) or keep the model fp32 on the CPU "
       "(`model.float()`, `torch_dtype=torch.float32`; `precision='auto'` picks it), or bf16 where the CPU "
       "supports it; for a single op compute it in fp32 and cast back (`torch.linalg.svd(W.float())` then "
       "`.to(W.dtype)`); torch >= 2.2 has Half CPU GEMM; if the op ran on a GPU, it lacks that dtype in this "
       "torch version: compute it in fp32 or upgrade.",
       # a device mismatch told in words, whatever dtypes the text also names
       unless=r"\bdevice mis-?match\b"),
    _e("gpu-half-kernel", "cpu-kernel", "no fp16/bf16 GPU kernel for this op in this torch",
       r"not implemented for '(Half|BFloat16)\b'?|not implemented for (type )?'?torch\.cuda\.(Half|BFloat16)Tensor\b",
       "The text shows a GPU run, and this op has no kernel for that half-precision dtype on the GPU in this torch "
       "version: older torch releases lacked bf16 (and a few fp16) CUDA kernels for ops such as upsample, "
       "triu/tril, max or sort.",
       "Upgrade PyTorch (newer releases have these kernels), or compute that op in fp32 and cast back "
       "(`op(x.float()).to(x.dtype)`), or run the model in fp16 / fp32 instead of bf16.",
       context=r"\.cuda\(|cuda:\d|torch\.cuda\.\w+Tensor|device\s*=\s*['\"]cuda|\bon (the |a )?GPU|\b(A100|H100|A800|H800|V100|T4|L4|"
       r"L40S?|A10G?|A6000|Tesla|GeForce)\b|\bRTX"),
    _e("thc-half-unimplemented", "cpu-kernel", "a Lua Torch / THC GPU op without a half-precision kernel",
       r"\A(?=.*unimplemented data type at \S*(THC|cutorch)\S*)"
       r"(?=.*(?<![A-Za-z0-9_])(fp16|half|CudaHalf\w*|float16)(?![A-Za-z0-9_]))",
       "Lua Torch's THC library (cutorch, and PyTorch before 0.4, which shared it) had no Half implementation for "
       "some GPU ops, so they are not implemented for fp16 tensors (`CudaHalfTensor`) where fp32 (`CudaTensor`) "
       "works: the batched matrix multiply (`baddbmm`, `nn.MM` in batch mode) lacked a half cuBLAS call.",
       "Run that op in fp32 (`:cuda()` rather than `:cudaHalf()`, or `x.float()` around it), or upgrade "
       "cutorch / torch to a release that added its half version."),
    _e("half-kernel", "cpu-kernel", "no fp16/bf16 kernel for this op (device not named)",
       r"not implemented for '(Half|BFloat16)\b'?|"
       r"\b\w+ (is )?not (being )?implemented for '?(half|bf16|fp16|bfloat16)\b|"
       + _HALF_NOT_IMPLEMENTED_IN_WORDS,
       "This op has no kernel for fp16/bf16 on the device it ran on (that dtype is not implemented there), and the "
       "message does not name the device: most often an fp16/bf16 model or tensor on the CPU (older torch lacks Half "
       "GEMM, conv, LayerNorm and softmax CPU kernels), otherwise a GPU op without a bf16/fp16 kernel in this "
       "(older) torch, or a library's own CUDA extension (a quantized optimizer, a fused kernel) built only for the "
       "dtypes its checks list.",
       "If it runs on the CPU, keep fp32 there (`model.float()`, `torch_dtype=torch.float32`) or run on the GPU; "
       "on a GPU upgrade torch or compute that op in fp32 and cast back (`op(x.float()).to(x.dtype)`); for a "
       "library's kernel keep its inputs or state in a dtype it supports (fp32 master weights under autocast); "
       "`amplora doctor run` shows the device and the op."),
    _e("float-kernel-missing", "cpu-kernel", "an op without an fp32 (Float) kernel",
       r"\"\w+\" not implemented for '(Float|Double)\b'?",
       "This op has no kernel for fp32/fp64 inputs: a fused kernel written for half precision only (flash-attn's "
       "`ln_fwd` / rotary / dropout-layer-norm, apex, xFormers and other fp16/bf16 CUDA extensions) got fp32 "
       "tensors, or an integer-only op (bitwise, shifts, integer targets) got floating-point ones.",
       "For a half-precision kernel, run that part in fp16/bf16: load the model with `torch_dtype=torch.bfloat16` "
       "(or fp16) or wrap the forward in `torch.autocast('cuda', dtype=torch.bfloat16)`, or turn the fused kernel "
       "off; for an integer op pass integer tensors (`.long()`)."),
    _e("expected-scalar-type", "mismatch", "an op expected another dtype",
       r"expected scalar type (\w+) but found (\w+)|expected (\w+) but found (\w+)|"
       r"\bexpect(ed)? scalar (\w+) type,? but (input|got|found) (\w+)|"
       r"\bExpected (Float|Half|BFloat16|Double), got (Float|Half|BFloat16|Double)\b|"
       r"\bexpected (Float|Half|BFloat16|Double) but got (Float|Half|BFloat16|Double)\b|"
       # MXNet: "Incompatible attr in node at 1-th input: expected float16, got float32"
       r"\bIncompatible attr in node\b[^\n]{0,60}\bexpected (float16|float32|float64|bfloat16), got (float16|float32|"
       r"float64|bfloat16)\b|"
       r"\bExpected k(Float16|Half|BFloat16|Float|Double|Float32),? but got k(Float16|Half|BFloat16|Float|Double)\b|"
       r"Expected object of scalar type (\w+) but got scalar type (\w+)|"
       r"Expected object of type (Variable\[)?torch\.(cuda\.)?\w+Tensor\]? but found type (Variable\[)?torch\.(cuda\.)?"
       r"\w+Tensor|"
       r"(expected|must have the) type torch\.(cuda\.)?\w+Tensor,?( but)? got( type)? torch\.(cuda\.)?\w+Tensor|"
       r"can'?t assign a torch\.(cuda\.)?\w+Tensor to a torch\.(cuda\.)?\w+Tensor|"
       r"was expected to be an? \w+ tensor but is an? \w+ tensor",  # legacy torch names; TensorFlow's wording
       "An op (a conv, norm, loss or custom kernel) received a tensor of another dtype than the others (a dtype "
       "mismatch), usually because only part of the model or inputs was cast or code ran outside autocast, or a "
       "kernel that only supports one dtype (a vendor backend's kernel that expects float32) got half; the message "
       "names the two dtypes but not which tensor is off.",
       "Cast the odd tensor at the boundary (`x.to(layer.weight.dtype)`, or load the model in one `torch_dtype`; "
       "create test or dummy inputs in the model's dtype, `torch.randn(..., dtype=model.dtype)`),"
       " or run that region under `torch.autocast`; if the op is a custom C++/CUDA extension (autocast never "
       "casts its inputs), give its autograd.Function `@torch.amp.custom_fwd(device_type='cuda', "
       "cast_inputs=torch.float32)` or call it with `.float()` inputs; `amplora doctor run` shows which operand "
       "is off."),
    # expected values past fp16's range, and Infinity from a backend that computes in fp16
    _e("expected-beyond-fp16", "overflow", "expected values beyond fp16's range come out as Infinity",
       r"\A(?=.*\bexpect\w*\b)(?=.*(\bInfinity\b|\binf\b))(?=.*(?<![\d.e-])(6[6-9]\d{3}|[7-9]\d{4}|[1-9]\d{5,})"
       r"(?![\d.]))",
       context=r"\b(MPS|Metal|WebGL|WebGPU|WebNN|GPU|fp16|float16|half)\b",
       unless=EXCEPTION_NAMED,
       cause="The expected values exceed 65504, float16's largest finite value, and the backend (MPS / Metal, WebGL "
       "or WebGPU, a mobile GPU delegate) stores or computes in float16 for speed, so they overflow to Infinity.",
       fix="Run that backend in float32 (its precision or `float16` option off), or scale inputs and weights so "
       "that results stay below 65504."),
    # a conversion shown at fp16's edge: 65504 stays, 65505 rounds to it, 66000 is inf
    _e("fp16-max-value", "overflow", "values at and past fp16's largest finite value",
       r"\A(?=.*(?<![\d.])65504(\.0*)?(?![\d.]))(?=.*(\binf(inity)?\b|\boverflow\w*))(?=.*(half|fp16|float16|\bf16\b))",
       "fp16's largest finite value is 65504 (0x7bff): values just above it round down to it, values from 65520 on "
       "overflow to inf, and near the top the representable values are 32 apart (65000 becomes 64992); this is "
       "IEEE half precision working as specified.",
       "Keep values beyond about 60000 out of fp16: scale them down first, or use bf16 (fp32's range) or fp32 "
       "where they occur."),
    _e("fp16-overflow", "overflow", "value too large for fp16 / overflow to inf/NaN", NONFINITE,
       context=HALF_EVIDENCE, unless=AMP_NOTICE + "|" + PRECISION_RULED_OUT + "|" + BF16_ONLY + "|"
       r"\boverflow\w*\b[^\n]{0,40}\b(for|with|on) (large |big )?(FP32|fp32|float32) (inputs?|values|data)\b",
       cause="The loss or a value went inf/NaN, most often an fp16 overflow (fp16 tops out at 65504: large "
       "activations, logits, attention masks filled with -1e9, or unscaled fp16 gradients); the text alone "
       "cannot rule out a too high learning rate or bad data.",
       fix="Use bf16 where the hardware has it (same range as fp32) or fp32 (full precision), keep losses/softmax/"
       "masks in fp32 (`torch.finfo(x.dtype).min` instead of -1e9), and use dynamic loss scaling "
       "(`GradScaler`) with fp16, stepping only through it (`scaler.scale(loss).backward(); "
       "scaler.step(optimizer); scaler.update()`: an extra `optimizer.step()` applies the inf gradients the scaler "
       "skipped); an epsilon below fp16's range (1e-7, 1e-8) underflows to zero in fp16: use eps >= 1e-4 there."),
    _e("nonfinite-value", "overflow", "a value went inf/NaN (no half precision in the text)",
       f"(?!{_VALIDATED})(?:{NONFINITE})",
       "A value went inf/NaN and the text shows no half precision, so the usual causes are a too high learning "
       "rate or exploding gradients, a log / sqrt / division of zero or negative values (or a -inf mask reaching a "
       "softmax whose row is all masked), or NaN already in the data; under fp16 it would most often be an "
       "overflow past 65504, and with dynamic loss scaling NaN losses in the first iterations are the scaler "
       "calibrating (it skips those steps), harmless when they stop.",
       "Find where it starts: `amplora doctor run script.py` (or `torch.autograd.set_detect_anomaly(True)`) names "
       "the first op and module that produced it; then lower the learning rate and clip gradients "
       "(`clip_grad_norm_`), add an eps to log/div/sqrt, check the data with `torch.isfinite`; if part of the run is "
       "fp16, use bf16 or fp32 there.", context=NAN_BEYOND_TRAINING,
       # inputs near float32's own limit (3.4e38): no precision story
       # every label equal to ignore_index: a mean over no element
       unless=f"{PRECISION_RULED_OUT}|{DIVERGED}|{_TRAINER_LOG}|{_PADDING_NAN}" r"|(?<![\d.])\d(\.\d+)?e\+3[0-8]\b|"
       r"\ball\b[^\n]{0,40}\bignore_index\b"),
    _e("dtype-unsupported", "cpu-kernel", "a component that does not support this dtype",
       # a title asking whether a dtype is supported, above the error the user met with it
       r"\A(?=\W*(Is|Are) (bf16|bfloat16|fp16|float16|half precision) supported\b)(?=.*(Error\b|Traceback|File \"))|"
       # ... or whether a tool supports it, above what went wrong with it
       r"\A(?=\W*(Does|Did|Do|Can|Is|Are) [^\n?]{0,40}\bsupport(ed)? (bf16|bfloat16|fp16|float16|half)\b)"
       r"(?=.*(Error\b|Traceback|File \"|unexpected (data ?type|dtype)|\bd(ata ?)?type (error|mismatch)))|"
       r"\b(Unsupport(ed)?|not (yet )?supported|does not support|doesn't support|no longer supports?|only supports?|"
       r"can only (be used|run) "
       r"with)(\s+(for|in|on|with))?(\s+(the\s+)?(tensor |element |weight )?(dtype|data ?type|scalar ?type|precision|"
       r"type)s?)?[\s:=`'\"(\[]*"
       + _DTYPE_WORD + "|" + _DTYPE_WORD + r"(\s+(precision|dtype|data ?type|type|tensors?|inputs?))?[`'\")\]]*"
       r"\s+(((is|are) )?(not supported|unsupported|not available|only supported)|"
       r"(does ?n[o'’]t|do ?n[o'’]t|is ?n[o'’]t) (seem|appear) to be supported)|\bonly " + _DTYPE_WORD +
       r"(\s*(,|and|or)\s*" + _DTYPE_WORD + r")*\s+(is|are) supported|"
       r"\bin " + _DTYPE_WORD + r" (is |are )?(currently |yet )?not (yet )?supported\b|"
       # NNCF: "is not yet supported OpenVINO data type: bf16"
       r"\bnot (yet )?supported \w+ (data ?type|dtype):?\s*" + _DTYPE_WORD + "|"
       # a compiler backend's "not support bf16 type cast"
       r"\bnot support\s+" + _DTYPE_WORD + r"\s+(type )?(cast|conversion|ops?|operations?)\b|"
       # KeOps: "only float and double dtypes are implemented in new python engine"
       r"\bonly " + _LISTED + r"(\s*(,|and|or)\s*" + _LISTED + r")*\s+(d(ata ?)?types?|tensors?)\s+(is|are) "
       r"(implemented|supported|allowed)\b|"
       r"\bExpected input of \[[^\]\n]{0,120}\]\.? Got\b|"
       r"\bConversion from \w+ to " + _DTYPE_WORD + r" is not (yet )?(implemented|supported)|"
       r"does not implement (all )?operators for the " + _DTYPE_WORD + "|"
       r"\bUnsupported (data ?)?type\b[^\n]{0,60}:\s*" + _DTYPE_WORD + r"|\bUnhandled dtype " + _DTYPE_WORD + "|"
       # safetensors' dtype names (F8_E4M3, BF16, F16) in a tool that cannot read them
       r"\bunsupported (safetensors? )?dtype:?\s*`?(F8_E\dM\d\w*|BF16|F16|F64)\b|"
       r"\b64-bit (data ?)?types? (are|is) not (yet )?supported\b|"
       # a dtype refused in other words: "dtype float64 is forbidden", "Unsupported image dtype: float16"
       r"\b(d(ata ?)?type) [`'\"]?(\w+\.)?(float(16|64)|bfloat16|u?int(8|16|32|64)|bool)\b[`'\"]? (is |are )?"
       r"(forbidden|not allowed|disallowed)\b|"
       r"\bUnsupported (\w+ )?(dtype|data ?type):?\s*[`'\"]?(float(16|64)|bfloat16|u?int(16|32|64)|complex(64|128))\b|"
       # "works only for BF16", "[linalg::inv] Arrays must type float32. Received array with type float64"
       r"\b(works?|runs?) only (for|with|in|on) " + _DTYPE_WORD + r"\b|\bonly (works?|runs?) (for|with|in|on) "
       + _DTYPE_WORD + r"\b|\b(arrays?|inputs?|tensors?) must (be )?(of )?type " + _DTYPE_WORD + r"\b|"
       r"\b(must|to|should) be (one of )?" + _LISTED + r"(\s*(,|or|and)\s*" + _LISTED + r")+"
       r"( (tensors?|matri(x|ces)|dtypes?))?,? (but )?(got|found)\b",
       "This dtype is not supported by a kernel, library, runtime or device named in the message (bf16 on an "
       "older GPU or a CPU runtime, fp16 on the CPU, fp32 in an fp16/bf16-only kernel, fp8 outside recent GPUs, "
       "float64 on accelerators such as Apple MPS, Intel XPU, Ascend NPU or TPU, or a library build without those "
       "kernels, such as an Arm compute library built for an arch before armv8.6-a without bf16); the message names "
       "the dtype, and the traceback or library names which component refuses it.",
       "Run that component in a dtype it lists as supported: load the model with that `torch_dtype` (or the "
       "library's `--dtype`, e.g. float16 where bf16 is refused, float32 on the CPU and for float64 data on an "
       "accelerator: `.float()`), or compute that op in fp32 and cast back (`op(x.float()).to(x.dtype)`); a library "
       "with a compute dtype of its own (`math_dtype`, `compute_dtype`) that lists only fp32/fp64 takes fp16/bf16 "
       "inputs once that compute dtype is set to fp32; upgrade the library or torch if a newer release adds the "
       "dtype.",
       # a NaN that stayed after the switch to fp32 is what the text reports, not the dtype it left
       unless=r"out of memory|size mismatch|shapes? cannot|\bshape\b.{0,40}\bmismatch|opset|No module named|"
       r"\bactually supports?\b|\binvalid choice: |" + PRECISION_RULED_OUT),
    _e("generic-dtype", "mismatch", "two dtypes met in one op",
       r"\b(?:data[- ]?type|dtype) mismatch between \w+ and \w+|"
       r"(dtype|scalar type|type).{0,60}(?<![A-Za-z0-9])(Half|BFloat16|Float|float16|bfloat16|float32|Double)\b.{0,60}"
       r"(?<![A-Za-z0-9])(?!\2\b)(Half|BFloat16|Float|float16|bfloat16|float32|Double)\b|"
       r"to have the same (scalar )?type as tensor for argument|"
       # numba's type inference: "Cannot unify array(float32, 1d, C) and array(float64, 1d, C)"
       r"Cannot unify array\((?P<nb>float\d+|int\d+)\b[^)]*\) and array\((?!(?P=nb)\b)(float\d+|int\d+)\b|"
       r"\b(Half|Float|BFloat16) did not match (Half|Float|BFloat16)\b|"
       r"\bexpected \w*(Half|Float|Double|BFloat16)Tensor,? (but )?(got|rec(ie|ei)ved|found) \w*(Half|Float|Double|BFloat16)"
       r"Tensor\b|"
       r"(must|should) (have|be) the same (data ?type|dtype|scalar type)(?=.{0,200}" + _DTYPE_WORD + ")|"
       r"\bboth inputs should have (the )?same dtyp|"
       r"\btype (torch\.)?(cuda\.)?(?P<t0>Half|Float|Double|BFloat16)Tensor,? but got (torch\.)?(cuda\.)?"
       r"(?!(?P=t0)Tensor)(Half|Float|Double|BFloat16)Tensor\b|"
       r"\bdata types (b?float|u?int)\d+ and (b?float|u?int)\d+ do not match\b|"
       r"\bexpected\b.{0,60}\bto be (in )?(torch\.)?(?P<want>bfloat16|float16|float32|float64|half|bf16|fp16|fp32)\b"
       r".{0,80}\bbut\b.{0,80}\b(has dtype|got|is) (torch\.)?(?!(?P=want)\b)(bfloat16|float16|float32|float64|half)\b|"
       r"\btype mismatch\b.{0,80}\b(torch\.)?(cuda\.)?(?P<t1>Half|Float|Double|BFloat16)Tensor\b.{0,80}"
       r"\b(torch\.)?(cuda\.)?(?!(?P=t1)Tensor)(Half|Float|Double|BFloat16)Tensor\b",
       "Two tensors of different floating dtypes met in one op outside autocast, a dtype mismatch (an input and a "
       "layer's weight or bias, model parameters of mixed dtypes, or a loss's logits and its target (labels), say, "
       "or an op got a dtype it has no kernel for); the "
       "message alone does not say which tensor is off "
       "or why.",
       "Find the tensor that is off (`amplora doctor run script.py` names it) and cast it at the module boundary "
       "with `.to(x.dtype)`, or run the region under `torch.autocast`.",
       # a C++ compiler's own type error in generated or extension source is no tensor meeting another
       unless=r"\b(should respect|ignor\w+) (the |its )?dtype\b|numpy\.object_|"
              r"The only supported types are|\binvalid choice: |'NoneType' object has no attribute|"
              r"\bambiguous \W?\?\W? operation\b|\boperand of type (const )?\w+ can be converted to\b|"
              # the webui's NaN check names "half type" and float32 in its advice: its own entries answer it
              r"\bA tensor with all NaNs was produced in\b|"
              # Dynamo's guard failures name dtypes as a reason to recompile, not an op that failed
              r"\brecompil\w*\b[^\n]{0,80}\bdtype mismatch\b|\bguards? (fail\w*|recompil\w*)\b"),
)


# Last resort: a line that reads as an error, an assert or a warning and that checks or refuses a dtype or a device in
# a wording no entry above knows (a new library, kernel or runtime). The answer names what the line names and says
# what the line cannot tell.
# any spelling of a floating dtype in messages and asserts: torch, Triton, NumPy/JAX, ggml, TensorFlow, TensorRT, cuBLAS
ANY_FLOAT = (r"(?<![A-Za-z0-9_])(?:(?:torch|tl|np|jnp|ov)\.)?(?:b?float(?:8|16|32|64)\w*|Float(?:8|16|32|64)\w*|"
             r"BFloat16|Half|Double|bf16|BF16|fp(?:8|16|32|64)|FP(?:8|16|32|64)|f(?:16|32|64)|F(?:16|32|64)|"
             r"GGML_TYPE_B?F(?:16|32)|DT_(?:HALF|B?FLOAT\w*|DOUBLE)|k(?:HALF|FLOAT|BF16|FP8)|CUDA_R_(?:16B?F|32F))"
             r"(?![A-Za-z0-9])")
# ... and the integer and bool dtypes, for checks that name one ("must have dtype int32", "only support uint8")
ANY_DTYPE = ("(?:" + ANY_FLOAT + r"|(?<![A-Za-z0-9_])(?:(?:torch|tl|np|jnp)\.)?(?:u?int(?:8|16|32|64)|Long|Int|Short|Byte|"
             r"Char|bool_?|Bool)(?![A-Za-z0-9]))")
# a line that reads as an error, a failed check or a warning (not prose around it)
# a line that reads as an error, assert or warning; not a user's paraphrase of one ("an error saying ...")
_ERROR_LINE = (r"(?m)^(?=[^\n]*(?:error|exception|assert|failed|warning|check))"
               r"(?![^\n]*\b(?:error|warning) (?:saying|that says|which says|telling)\b)[^\n]*?")
# a TensorFlow op given an integer where it takes a float, or the reverse: arguments swapped or renamed between TF 1
# and TF 2 (`in_top_k`'s predictions and targets), not two precisions
_TF_INT_FLOAT_SWAP = (r"Op has type u?int\d+ that does not match expected type of (b?float|half)\w*|"
                      r"Op has type (b?float|half)\w* that does not match expected type of u?int\d+")
_HALF_OR_FULL = r"(bfloat16|bf16|float16|fp16|half|float32|fp32)"
# the dtypes a report in words names; two different ones beside a word for the clash make a mismatch story
_DTYPE_NAMED = r"(bfloat16|bf16|float16|fp16|float32|fp32|float64|double|complex64|complex128)"
LAST_RESORT = (
    _e("float-target-loss-words", "mismatch", "integer labels given to a loss that takes float targets, told in words",
       r"\A(?=.*\b(BCE\w*|binary_cross_entropy\w*|MSE(Loss)?|mse_loss|L1Loss|l1_loss|SmoothL1Loss)\b)"
       r"(?=.*(\b(Long|int64|LongTensor|integer|int)\s+(tensors? )?(targets?|labels?)\b|"
       r"\b(targets?|labels?)\b[^.\n]{0,30}\b(Long|int64|LongTensor|integers?)\b))",
       "As the text says, integer (Long) labels reach a loss that takes floating-point targets in the input's dtype "
       "(`BCELoss`, `BCEWithLogitsLoss`, `MSELoss`, `L1Loss`), which refuses them: class ids from a dataset or "
       "`torch.tensor([0, 1])` are int64.",
       "Cast the targets to the input's dtype: `loss_fn(logits, target.float())` (`target.to(logits.dtype)` under "
       "half precision); one-hot multi-label targets as float too.",
       unless=NOT_A_DTYPE_FAULT),
    _e("mismatch-in-words", "mismatch", "two parts of the run in different dtypes, told in words",
       r"\A(?=.*(\b(dtype|data ?type|type|precision)s? (mismatch|error|clash|conflict|issue)s?\b|\bcrash(es|ed)?\b))"
       r"(?=.*\b(in|is|are|be|being|as|produces?|returns?|outputs?)\s+[`'\"]?(?P<a>" + _HALF_OR_FULL[1:-1] + r")\b[^.\n]{0,60}\b(but|while|whereas|and)\b"
       r"[^.\n]{0,80}\b(in|is|are|be|being|as)\s+[`'\"]?(?!(?P=a)\b)" + _HALF_OR_FULL + r"\b)|"
       # a title that pairs two dtypes with the word: "bf16/float RuntimeError - dtype incompatibility"
       r"\b(?P<b>" + _HALF_OR_FULL[1:-1] + r"|float)\s*(/|vs\.?|and)\s*(?!(?P=b)\b)(" + _HALF_OR_FULL[1:-1] + r"|float)\b"
       r"[^\n]{0,40}\b(dtype|data ?type|precision)s? (mismatch|incompatib\w*|clash|conflict)|"
       # "these magic numbers are fixed to float32 ... called on float16 or bfloat16 inputs"
       r"\A(?=.*\b(constants?|magic numbers|buffers?|tables?|weights?)\b[^.\n]{0,40}\b(fixed|hard-?coded|pinned|"
       r"created|made) (to|as|in) (float32|fp32|tf\.float32)\b)"
       r"(?=.*\b(float16|bfloat16|fp16|bf16|mixed[ _]precision)\b)|"
       # "`attention_probs` here is a Float type instead of BFloat16"
       r"\b(is|are|was|were|becomes?|became|comes? out( as)?) (an? )?(?P<e>" + _HALF_OR_FULL[1:-1] + r"|float)"
       r"( type| tensor| dtype)? instead of (an? )?(?!(?P=e)\b)(" + _HALF_OR_FULL[1:-1] + r"|float)\b|"
       # "I was getting bfloat16 vs float errors"
       r"\b(?P<c>" + _HALF_OR_FULL[1:-1] + r"|float)\s*(vs\.?|versus)\s*(?!(?P=c)\b)(" + _HALF_OR_FULL[1:-1] + r"|float)"
       r"\s+((d?type|mismatch) )?errors\b|"
       # "the weights are stored in double precision while inputs are float32 ... precision mismatch"
       r"\A(?=.*(\b(dtype|data ?type|precision)s? (mismatch|inconsisten\w*|clash)|\bmismatch\w* the (data )?dtype\b|"
       r"\berrors? related to (the )?dtypes?\b|\bdtype (error|issue|problem)s?\b))"
       r"(?=.*(?<![A-Za-z0-9])(?P<d>" + _DTYPE_NAMED[1:-1] + r")(?![A-Za-z0-9]))"
       r"(?=.*(?<![A-Za-z0-9])(?!(?P=d)(?![A-Za-z0-9]))" + _DTYPE_NAMED + r"(?![A-Za-z0-9]))",
       "As the text says, two parts of the run hold different dtypes (one part's outputs in one, the next part's "
       "weights in another: float64 data or precomputed tables beside float32 weights, float32 constants or "
       "kernels beside fp16/bf16 activations, fp16 beside bf16), and their tensors meet in one op: nothing casts "
       "between them when the model is neither wrapped by a mixed-precision policy (FSDP's MixedPrecision, "
       "autocast) nor loaded in one dtype.",
       "Cast at the boundary (`out.to(next_module.dtype)`), load both parts in one `torch_dtype`, or run the "
       "step under `torch.autocast` / a mixed-precision policy that casts for you.",
       unless=NOT_A_DTYPE_FAULT),
    _e("not-cast-in-words", "mismatch", "a tensor not cast to the model's dtype, told in words",
       r"\A(?=.*\b(bf16|bfloat16|fp16|float16|half)\b)(?=.*\b(does ?n[o']t|does not|did ?n[o']t|did not|fails? to|"
       r"forg[eo]t to|never) (properly |correctly )?cast\w* [^.\n]{0,80}\bto (the )?(proper|right|correct|same|"
       r"model'?s?|expected) (dtype|data ?type|type|precision)\b)",
       "As the text says, a part of the code builds or keeps a tensor (a mask, a prefix, a cache, a module's "
       "weights) in one dtype, usually fp32, and does not cast it to the fp16/bf16 the model was cast to, so it "
       "meets the model's tensors in another dtype.",
       "Cast that tensor where it is made (`mask.to(hidden_states.dtype)`, `torch.zeros(..., dtype=x.dtype)`), or "
       "run the model under `torch.autocast` instead of casting it by hand (`model.bfloat16()`); if the code is a "
       "library's, upgrade it (such casts are often fixed in a later release).",
       unless=NOT_A_DTYPE_FAULT),
    _e("op-fails-under-half-in-words", "mismatch", "an op that fails under half or mixed precision, told in words",
       r"\A(?=.*\b(errors?|fails?|failing|crash(es|ed)?|throw(s|ing)?( \w+)?|breaks?)\b[^.\n]{0,30}\b(in|with|under|"
       r"when using) (half|fp16|float16|mixed|automatic mixed)([ /-](half|fp16|mixed|precision))*\b)"
       r"(?=.*\b(d(ata)?type|incompatib\w*)\b)",
       "As the text says, an op fails with a dtype error only under half or mixed precision: some ops (CTC and other "
       "losses, FFTs, linear algebra, custom kernels) take float32 only, and under a mixed-precision policy they "
       "receive the fp16/bf16 outputs of the layers before them.",
       "Give that op float32 inputs and run it outside the policy: `loss_fn(log_probs.float(), ...)` under "
       "`torch.autocast(..., enabled=False)` (in Keras, `tf.cast(y_pred, tf.float32)` or a last layer with "
       "`dtype='float32'` under `mixed_float16`).",
       unless=NOT_A_DTYPE_FAULT),
    _e("half-fails-full-works", "cpu-kernel", "a component that fails in fp16 and works in fp32",
       r"\A(?=.*\b(fp16|float16)\b)(?=.*\b(fp32|float32)\b( format| model| version| export)?[^.\n]{0,40}\b(works?|worked|"
       r"is fine|runs? fine|runs? well|(is|are|was|were) (correct|right))\b)|"
       r"\b(does ?n[o']t|does not|do not|don'?t) work with (torch\.)?(float16|fp16|half)\b|"
       # an issue title: "ESMFold throws error when explicitly cast to fp16"
       r"\b(throws?|raises?|gives?|fails with)( an?)? (error|exception)s? when (explicitly |manually )?"
       r"(cast(ed)?|casting|converted|converting|loaded) (to|in|as) (fp16|float16|half)\b|"
       # "if I enable the Force FP32 option the output seems as it should be"
       r"\b(force[ _-]?fp32|--fp32|--no-half|full[ _-]precision|fp32 (mode|option))\b[^.\n]{0,40}\b(outputs?|results?|"
       r"images?|videos?|audio)\b[^.\n]{0,30}\b(as it should|correct\w*|fine|normal\w*|right|as expected)\b",
       "The same model or call works in fp32 and fails in fp16: the component that fails (a loader, an adapter, "
       "a runtime, a custom kernel) does not handle half-precision tensors, or its fp16 path has a bug.",
       "Use the fp32 model or dtype there, or upgrade the component to a release that handles fp16; where fp16 "
       "is needed for speed, cast at its boundary (fp32 in, fp16 inside a part that supports it).",
       unless=NOT_A_DTYPE_FAULT + r"|\b(nan|inf)\b|black|garbage"),
    _e("dtype-check", "mismatch", "a dtype check failed in a kernel or library",
       _ERROR_LINE + r"(?:(?:\.dtype\b|dtype\(\)|scalar_type\(\)|->type\b|\.type\(\)|element[ _]type)\s*(?:==|!=|\bin\b)|"
       r"\b(?:the )?same (?:dtype|data ?type|scalar ?type|element ?type|precision)s?\b|\bthe same type as\b|"
       r"\b(?:dtype|data ?type|scalar ?type)s? (?:must|should|do(?:es)?n'?t|do(?:es)? not) (?:match|be the same)|"
       r"\b(?:must|should|to) (?:have|be) (?:of )?(?:the )?(?:dtype|data ?type|scalar ?type|type) [`'\"(\[]*" + ANY_DTYPE + "|"
       r"\b(?:to|must|should) be of (?:an? )?(?:integer|floating[- ]point|floating|float|boolean|bool) (?:d?type|tensor)\b|"
       r"\binvalid operands of type\b|\bcast from \S+ to \S+ cannot be performed safely|"
       r"\bmismatch(?:ed)? (?:dtype|data ?type|scalar ?type)s?\b[^\n]{0,40}?" + ANY_DTYPE + r"[^\n]{0,40}?" + ANY_DTYPE + "|"
       r"\b(?:d?type|precision) of (?:the )?[\w.]+(?: tensors?)? (?:must|should) be\b|"
       r"\bhas (?:an )?invalid dtype\b[^\n]{0,20}\bExpected\b|"
       r"\b(?:dtype|data ?type) (?:must|should) be (?:one of )?[`'\"(\[]*" + ANY_DTYPE + "|"
       + ANY_DTYPE + r"[^\n]{0,80}?(?:\bmismatch|does ?n[o']t match|\bdiffer|incompatible|not (?:broadcast )?compatible|"
       r"\bbut (?:got|found|is|was|received)\b|\binstead of\b|\bvs\.?(?!\w)|\bversus\b)[^\n]{0,80}?" + ANY_DTYPE + "|"
       + ANY_FLOAT + r"[^\n]{0,80}?" + ANY_FLOAT + r"[^\n]{0,40}?(?:\bmismatch|do ?n[o']t match|\bdiffer|incompatible|"
       r"not (?:broadcast )?compatible))",
       "A kernel or library checked its tensors' dtypes and the check failed: its operands are not in one dtype, or "
       "not in the dtype it was written for (a Triton or CUDA kernel, an extension, a runtime); the message names "
       "what it compared but not which tensor is off or why.",
       "Give every input of that op one dtype, the one its check names: cast the odd tensor with `.to(dtype)` "
       "(a Python scalar or an fp32 buffer often promotes one side), load the model in one `torch_dtype` "
       "(`model.half()`, `model.to(torch.bfloat16)`) or run it under `torch.autocast`; if the check sits inside a "
       "library, upgrade it or report it there; `amplora doctor run` names the tensor.",
       # a Triton pointer against a scalar: a tensor passed where the kernel takes a number, not two dtypes
       unless=NOT_A_DTYPE_FAULT + r"|invalid operands of type pointer<|" + _TF_INT_FLOAT_SWAP),
    _e("dtype-required", "cpu-kernel", "a component that runs only in one dtype",
       _ERROR_LINE + r"(?:" + ANY_FLOAT + r"[`'\")\]]*\s+(?:\w+\s+)?(?:is|are) (?:required|needed|expected|mandatory)|"
       r"\b(?:requires?|needs?|expects?|only (?:accepts?|supports?|works with|handles?|takes?|allows?))\s+(?:[\w-]+\s+){0,3}?"
       r"(?:of |in |with )?(?:dtype |type |precision )?[`'\"(\[]*" + ANY_DTYPE + "|"
       r"\bonly (?:supports?|accepts?|handles?)\b[^\n]{0,60}?\bbut (?:got|found|received)\b[^\n]{0,20}?" + ANY_DTYPE + "|"
       r"\bunsupported (?:data ?type|dtype|scalar ?type)\b[^\n]{0,60}?" + ANY_DTYPE + "|"
       r"\bexpected (?:the )?(?:input|output|\w+)(?: tensors?)? (?:in|of|to be) [`'\"(\[]*" + ANY_FLOAT + "|"
       r"\bExpected " + ANY_FLOAT + r" (?:inputs?|tensors?|arguments?|weights?)\b|"
       r"\bdtype is expected to be [`'\"(\[]*" + ANY_DTYPE + "|"
       r"\bsupported for " + ANY_FLOAT + r"(?: types?| dtypes?| tensors?)? only\b|"
       r"\bonly supported (?:in |for |with )?" + ANY_FLOAT + r"\b|"
       + ANY_FLOAT + r"\b[^\n]{0,30}\b(?:is|are) only supported (?:for|on|with|when|in)\b|"
       r"\b(?:should|must|has to|needs? to) be (?:\w+ ){0,2}?[`'\"(\[]*" + ANY_FLOAT + "|"
       r"\b(?:should|must|has to|needs? to) be (?:of )?(?:type )?[`'\"(\[]*(?:(?:torch|np)\.)?(?:u?int(?:8|16|32|64)|bool)\b)",
       "A kernel, library or runtime named in the message runs only in the dtype it names and got another: an "
       "fp16-only kernel given bf16 or fp32 tensors, an fp32-only one given half precision, a quantized path that "
       "needs fp16 activations while the model defaults to bf16.",
       "Run that component in the dtype it names: load the model with that `torch_dtype` (or the tool's `--dtype`), "
       "cast the inputs it gets (`.to(dtype)`), or turn that component off / pick one that supports your dtype; "
       "upgrade it if a newer release adds your dtype.",
       # JAX supports bf16: refusing it as not a "number" dtype means two packages' bfloat16 types disagree
       unless=NOT_A_DTYPE_FAULT + r"|JAX only supports number and bool dtypes, got dtype bfloat16|"
       + _TF_INT_FLOAT_SWAP),
    # a report in words about dtypes under torch.compile, when no message above answered
    _e("compile-dtype", "mismatch", "torch.compile produced other dtypes than eager",
       r"\A(?=.*(torch\.compile|\bcompiled (model|graph|function|module|code|outputs?)\b|\binductor\b|\bnvFuser\b))"
       r"(?=.*(\bdtype|\bbf16|bfloat16|\bfp16|float16|float32|precision))"
       r"(?=.*(\berror|mismatch|\bwrong\b|\bdiffer|complain|max_abs_diff))(?!.*InternalTorchDynamoError)"
       r"(?!.*accessing tensor output of CUDAGraphs that has been overwritten)",
       "torch.compile (Inductor) can give a graph other dtypes than eager: factory calls such as `torch.randn` in a "
       "compiled region have ignored `torch.set_default_dtype` (which bf16-true precision sets) and come out "
       "float32, so an op meets bf16 and fp32 tensors; and fusing a matmul, a bf16 / fp16 cast and an fp32 add "
       "keeps the intermediate in fp32 (Inductor and nvFuser both do), skipping the low-precision rounding eager "
       "does, so outputs differ by a bf16 / fp16 rounding step (~1e-2 / ~1e-3).",
       "Run the same code without `torch.compile` to confirm; pass `dtype=` explicitly to factory calls inside "
       "compiled code instead of relying on the default dtype; set `torch._inductor.config.emulate_precision_casts "
       "= True` (`TORCHINDUCTOR_EMULATE_PRECISION_CASTS=1`) to round intermediates as eager does; upgrade torch "
       "(such Inductor dtype bugs are fixed in later releases).",
       unless=NOT_A_DTYPE_FAULT + r"|set_float32_matmul_precision\(\s*['\"](high|medium)"),
    _e("cuda-only-op", "device", "an op that exists only for CUDA got CPU tensors",
       r"is only available for these backends: \[CUDA\b|"
       r"Could not run '(?!aten::|quantized::|torchvision::|torchaudio::|prims::)\w+::[\w.]+' with arguments from "
       # without the backend list the op may exist for the CPU and not have loaded (a build for another torch),
       # unless its name is a GPU kernel's
       r"the 'CPU' backend(?=.{0,300}only available for these backends)|"
       r"Could not run '(?!aten::|quantized::|torchvision::|torchaudio::|prims::)\w+::\w*(fp8|int8|int4|quant|marlin|"
       r"awq|gptq|flash|fused|paged|cutlass|gemm|cuda)\w*' with arguments from the 'CPU' backend",
       "A custom op registered only for CUDA (an fp8 / int8 quantization kernel, a fused attention or norm op of a "
       "serving or quantization library) got tensors on the CPU: CPU offload kept a layer's weights or inputs "
       "there, or the model runs on the CPU.",
       "Put that layer's weights and inputs on the GPU before it runs (no CPU offload for quantized layers, or the "
       "library's GPU-side offload), or run without that kernel (no fp8 / quantization) on the CPU.",
       unless=r"QuantizedCPU|QuantizedCUDA"),
    _e("needs-gpu-tensor", "device", "a GPU-only op got a tensor on the CPU",
       _ERROR_LINE + r"(?:\b(?:must|should|has to|needs? to) be (?:a |an |on )?(?:the )?(?:CUDA|GPU|cuda)\b|\bis_cuda\b|"
       r"\bExpected (?:a |an )?(?:CUDA|cuda|GPU) tensor|\bonly supports? (?:CUDA|cuda|GPU) (?:tensors|inputs|devices?)|"
       r"\bis not (?:a |an |on )?(?:the )?(?:CUDA|cuda|GPU)\b(?! (?:available|found|enabled))|"
       r"device\.type\s*==\s*['\"]cuda|"
       r"\b(?:is |are )?only (?:available|supported|implemented) (?:on|for|in|with|training on) (?:the )?(?:CUDA|GPU|cuda|gpu)s?\b|"
       r"\bnot (?:implemented|supported|available) (?:on|for) (?:the )?CPUs?\b|\b(?:CUDA|GPU) is required for\b|"
       r"\bgot (?:a )?CPU tensors?\b|\brequires GPU-based|\bexpected (?:the )?\w+ to be on (?:cuda|CUDA|the GPU)\b(?!.{0,20}but)|"
       r"\bonly supports? (?:CUDA|cuda|GPU) \w+ (?:tensors|inputs)\b|\bactual device = .?cpu\b|\bCPU not supported\b)|"
       # an extension's check quoted with its C++ source location ("boxes must be CUDA tensor at src/nms.cpp:143")
       r"\b(?:must|should) be (?:a )?(?:CUDA|cuda) tensors? at \S+\.(?:cpp|cu|cc|h):\d+",
       "An op that exists only on the GPU (a custom CUDA kernel or extension, a fused or quantized kernel; its CPU "
       "path is not implemented) got a tensor on the CPU: the model, its inputs or a tensor created inside the "
       "model (`torch.zeros(...)` without `device=`) was not moved, or the whole run is on the CPU.",
       "Move the model and every input to the GPU (`model.to('cuda')`, `x.to('cuda')`; create new tensors with "
       "`device=x.device`); if the run is meant for the CPU, that op has no CPU path: turn it off or use its CPU "
       "fallback (many repositories ship a native PyTorch version of their fused ops beside the kernel, chosen by an "
       "option or an environment variable such as `FORCE_NATIVE=1`).",
       unless=NOT_A_DTYPE_FAULT + r"|not compiled with CUDA|CUDA is not available|no CUDA GPUs|[Ff]alling back|"
       # (a multi-GPU setting refused on the CPU is a config check; NCCL that finds no GPU is an install problem)
       r"autocast device_type|\w*devices\s*>\s*1\b|no GPUs? (found|available|detected)"),
    # half precision, an overflow and a mask told in words: the mask's fill constant
    _e("mask-overflow-in-words", "overflow", "an attention mask constant that overflows half precision, told in words",
       r"\A(?=.*(" + HALF_WORDS + r"))(?=.*\boverflow\w*)(?=.*mask)",
       "As the text says, half-precision training overflows at an attention mask: the fill value written for "
       "fp32 (-1e9, a large INF constant, `torch.finfo(torch.float32).min`) lies beyond fp16's largest value, "
       "65504, so it becomes -inf, and a row that is all -inf gives NaN in the softmax.",
       "Fill masks with the dtype's own limit (`torch.finfo(scores.dtype).min`) or a constant fp16 holds (-1e4, "
       "-10000), or compute the masked softmax in fp32; bf16 has fp32's range.",
       unless=NOT_A_DTYPE_FAULT),
    # a device problem named in words ("a device error in matmul when use_cuda=True"), when no message above answered
    _e("device-in-words", "device", "tensors on two devices, told in words",
       r"\A(?=.*(\bdevices?[ -](error|issue|problem|mismatch|conflict)s?\b|"
       r"\b(on|from) (different|separate) (cuda |gpu )?devices\b|\bdevice[- ]related (error|issue|problem|bug)s?\b|"
       r"\b(changes?|changed|changing|moves?|moved) the device of\b[^.\n]{0,40}\bfrom (cuda|gpu|cpu)\b|"
       r"\bmix(ing|es|ed)? (of )?(cpu|cuda|gpu) tensors? (and|with) (cpu|cuda|gpu) tensors?\b|\bon another device\b|"
       r"\bmixed (cpu|cuda|gpu) ?(/|and) ?(cpu|cuda|gpu) (devices|tensors)\b|"
       # "it returns tensors as CPU tensors ... it returns as a CUDA tensor"
       r"\breturns? [^.\n]{0,20}\b(as )?(a )?CPU tensors?\b|\b(is|are|was|were) (in|on) (the )?device cpu\b))"
       r"(?=.*(\b(cpu|cuda|gpus?|xpu|mps|npu)\b|cuda:\d|use_cuda))",
       "As the text says, an op met tensors on two devices: one of them was created or left on the CPU (a tensor "
       "a library builds without `device=`, inputs not moved, NumPy work such as `np.array(t)` or `.numpy()` on a "
       "GPU tensor, which needs the CPU) while the rest of the run is on the GPU (cuda, xpu, mps).",
       "Move every tensor of that op to one device (`t.to(x.device)`, the model's device for inputs); call "
       "`.cpu()` before NumPy work; when a library creates the tensor, pass it your device (its `device=` / "
       "`tkwargs`) or upgrade it; `amplora doctor run` names the tensor and the op.",
       unless=NOT_A_DTYPE_FAULT + r"|System call|NCCL|device-side|no CUDA GPUs|CUDA is not available|not compiled|"
              r"`?devices`? selected with `?\w*Accelerator`?"),
)

_QUANT_COMPUTE = ("inside a quantized layer the dequantized weight takes the layer's compute dtype: set it to the "
                  "activations' dtype (`compute_dtype=torch.bfloat16` in the quantization config, `torch_dtype` of "
                  "the model the same) rather than casting the packed weights")
# a mismatch in a text that shows a quantized (int8 / 4-bit) base, raised outside any library named below
QUANTIZED_BASE_FIX = ("With a quantized (int8 / 4-bit) base the non-quantized parts and the dequantized weights "
                      "take the compute dtype: give `bnb_4bit_compute_dtype` (or the backend's compute dtype) and "
                      "`torch_dtype` one dtype, or train the LoRA on a half-precision base instead of the 8-bit one.")
# ... and under DeepSpeed with an 8-bit base
QUANTIZED_DEEPSPEED_FIX = ("DeepSpeed does not support an 8-bit (LLM.int8) bitsandbytes base, which leaves Float and "
                           "Half tensors mixed: use a 4-bit base (QLoRA) with DeepSpeed, or train the 8-bit base "
                           "without DeepSpeed.")
# where a mismatch is raised -> what to change there (a generic answer made specific by the traceback's last frame)
LIBRARY_FIXES = {
    "peft": "In PEFT the adapter weights are kept fp32 (`autocast_adapter_dtype=True`) while the base model may be "
            "half: run forward and generate under `torch.autocast`, or give adapters the base dtype "
            "(`get_peft_model(..., autocast_adapter_dtype=False)`).",
    "bitsandbytes": "In bitsandbytes set `bnb_4bit_compute_dtype` to the model's `torch_dtype` (bf16 with bf16, fp16 "
                    "with fp16).",
    **{lib: f"In {lib}, {_QUANT_COMPUTE}." for lib in (
        "hqq", "optimum", "quanto", "torchao", "awq", "auto_gptq", "gptqmodel", "exllama", "exllamav2", "aqlm",
        "eetq", "compressed_tensors")},
    "flash_attn": "flash-attn runs only in fp16/bf16: load the model with `torch_dtype=torch.bfloat16` (or fp16) "
                  "or call it under `torch.autocast`, and give q/k/v one dtype.",
    "xformers": "xFormers attention runs in fp16/bf16: give q/k/v one half dtype (`.to(torch.float16)`) or run "
                "under `torch.autocast`.",
    "apex": "apex's fused norms (FusedRMSNorm / FusedLayerNorm, which transformers' T5 and other models pick up by "
            "themselves once apex is installed) want input and weight in one dtype: uninstall apex "
            "(`pip uninstall apex`) to fall back to the PyTorch norm, or cast the input to the norm's weight dtype.",
    "apex.amp": "apex.amp (`amp.initialize`, O1/O2) casts the functions on its lists and leaves the others as they "
                "come, so an op it does not list gets one fp16 and one fp32 operand: register it to run in fp32 "
                "(`amp.register_float_function(torch.nn.functional, 'grid_sample')` before `amp.initialize`), cast "
                "its inputs by hand, or move to `torch.autocast`, which apex.amp is deprecated for.",
    "diffusers": "In diffusers load the pipeline with one `torch_dtype` and give your own inputs (latents, image "
                 "tensors, embeddings) that dtype (`.to(pipe.dtype)`); a VAE upcast to fp32 needs its input cast "
                 "too.",
}
