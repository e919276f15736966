"""Known faults of another kind whose texts carry dtype or device words: no precision story fits them, so `explain`
leaves them unexplained (exit 3) and prints the advice that does fix them instead of the general advice."""
from __future__ import annotations

import re

from amplora.doctor.kb.patterns import LOSS_SCALE_SKIP

_I = re.IGNORECASE | re.DOTALL

# (pattern, advice), tried in order
OTHERS: tuple[tuple[re.Pattern, str], ...] = tuple((re.compile(p, _I), a) for p, a in (
    (r"FlashAttention only supports? (the )?(Ampere|Turing|Hopper|sm_?\d)\w* GPUs?( or newer)?|"
     r"Expected is_sm\d\w*( \|\| is_sm\d\w*)* to be true, but got false",
     "Not a precision fault: FlashAttention needs a newer GPU (Ampere, compute capability 8.0, or later) whatever "
     "the dtype. On this GPU load the model with `attn_implementation=\"sdpa\"` (or `\"eager\"`) and drop "
     "`use_flash_attention_2`."),
    # a TensorRT major release that removed the weakly typed precision API the code was written against
    (r"\A(?=.*(TensorRT|nvinfer1|\bTRT\b))(?=.*\b(deprecated|removed|no member named|is not a member of|has no "
     r"member)\b)(?=.*\b(setPrecision|platformHasFast(Fp16|Int8)|kEXPLICIT_BATCH|kPREFER_PRECISION_CONSTRAINTS)\b)",
     "Not a precision fault: this TensorRT release removed (or deprecated) builder APIs the code calls (the weakly "
     "typed precision API: `setPrecision`, `BuilderFlag::kFP16`, `platformHasFastFp16`, `kEXPLICIT_BATCH`). Build "
     "against the TensorRT major version the project supports, or use a release of the project ported to the new "
     "API (strongly typed networks)."),
    # torch 2.1's optimizers made their `step` counters in the default dtype, float64 under set_default_dtype
    (r"\A(?=.*Tensors of the same index must be on the same device and the same dtype)"
     r"(?=.*(\bfloat\W{0,3}=?\W{0,3}64\b|\bfloat64\b|set_default_dtype|\bdouble\b))",
     "Not a fault in your tensors: torch 2.1's optimizers create their `step` counters in the default dtype, so "
     "with float64 training (`torch.set_default_dtype(torch.float64)`) they are float64, which that release's "
     "foreach grouping refuses (it allows `step` tensors only as float32). Upgrade torch (2.2 fixed it), or keep "
     "the default dtype float32 and make the model float64 with `model.double()`."),
    # torch's BatchNorm backward under AMP with affine=False (no weight to tell the mixed case by)
    (r"\A(?=.*expected scalar type (Half|Float) but found (Float|Half))(?=.*affine\s*=\s*False)"
     r"(?=.*(does not|doesn'?t|no error|works?|fine)[^.\n]{0,40}affine\s*=\s*True)",
     "Not a fault in your tensors: torch's fused CUDA batch-norm backward told mixed precision from the weight's "
     "dtype, which is missing with `affine=False`, so AMP training with such layers failed although the running "
     "stats were float32 as intended. Upgrade torch (fixed in 1.10), or use `affine=True` meanwhile."),
    # a kernel's output measured against a reference with an error of inf or 1e+30: a wrong-values kernel bug
    (r"\b(max|mean|abs)\w*[ _]?err\w*\W{0,3}(inf|[\d.]+e\+(1\d|[2-9]\d))\b",
     "Not a precision fault as told: an error of inf or 1e+30 against a reference is wrong values from a kernel "
     "(bits read in the wrong dtype, a wrong index), not fp16 rounding or overflow. Report it with the repro, "
     "and meanwhile give the op's inputs and weights one dtype or run it on another device."),
    # torch's own transformer layers convert masks they were given as bool, then warn about it
    (r"Converting mask without torch\.bool dtype to bool|"
     r"\A(?=.*mismatched (src_)?key_padding_mask and (src_|attn_)mask)"
     r"(?=.*(should ?n[o']t|should not) be (raised|emitted|shown))",
     "Not a fault in your tensors: a performance warning that nn.TransformerEncoder / MultiheadAttention emit when "
     "a mask is not bool; several torch releases convert bool masks given by the caller themselves and then warn "
     "(or warn about mismatched masks that were both bool). Pass bool masks (`mask.bool()`); if they are already "
     "bool, upgrade torch or ignore the warning."),
    # torch's randperm compared the generator's device with its index
    (r"Expected a 'cuda:\d+' generator device but found 'cuda'",
     "Not a fault in your tensors: torch's randperm compared the full device (`cuda:0`) with the generator's "
     "device type (`cuda`). Upgrade torch (fixed in 1.9), or create the generator with the indexed device "
     "(`torch.Generator(device='cuda:0')`)."),
    (r"SyncBatchNorm expected input tensor to be on GPU",
     "Not a precision fault: SyncBatchNorm runs only on CUDA tensors (it synchronises statistics across GPUs), and "
     "this run is on the CPU. For CPU inference or a single process, use plain BatchNorm: `norm_cfg=dict(type='BN')` "
     "in an mmlab config, or `nn.SyncBatchNorm` converted back to `nn.BatchNorm2d`."),
    # elementwise ops on bool tensors that an older torch had no CUDA kernel for
    (r"\"(add|sub|mul|div|roll|flip)_cuda\" not implemented for 'Bool'",
     "Not a fault in your tensors: this torch release had no CUDA kernel for that op on bool tensors (the CPU had "
     "one; a regression in 1.7 dropped `mul` with a Python bool). Upgrade torch, or cast the mask for that op "
     "(`mask.to(torch.uint8)`, `mask.logical_and(...)` for `*`, `~mask` for `1 - mask`)."),
    (r"no kernel image is available for execution on the device|"
     r"Arch conditional MMA instruction used without targeting appropriate compute capability",
     "Not a precision fault: this torch, or an extension it calls (bitsandbytes, flash-attn, xformers, a custom "
     "kernel), was built without kernels for this GPU's architecture. Install a build whose `torch.cuda."
     "get_arch_list()` holds the GPU's sm_XX, or rebuild the extension with `TORCH_CUDA_ARCH_LIST` set to it."),
    # torch.compile's generated code keeping the device index of its first call
    (r"\A(?=.*torch\.compile)(?=.*\b(burns?[- ]in|burned[- ]in|hard-?cod\w*|baked[- ]in)\b[^.\n]{0,40}\bdevice)",
     "Not a fault in your tensors: torch.compile's generated code kept the device index of the first call, so a "
     "later call with every tensor on another GPU fails the same-device check. Upgrade torch (fixed in later "
     "releases), compile once per device, or make that GPU current (`torch.cuda.set_device`) before calling."),
    # ranks' collectives that differ in shape, their dtypes the same
    (r"Detected mismatch between collectives(?=.*TensorDtypes=(?P<dtype>\w+)\b.*TensorDtypes=(?P=dtype)\b)",
     "Not a precision fault: the ranks ran a collective on tensors of different shapes with the same dtype, a "
     "data or control-flow difference between ranks (an uneven last batch, a rank that skipped a step or a "
     "layer). Make every rank run the same collectives (`drop_last=True`, the same number of steps)."),
    (r"operator '[\w:.]+' is not current(ly)? implemented for the MPS device|\bConv3D is not supported on MPS",
     "Not a precision or dtype fault: PyTorch's Apple MPS backend has no kernel for this op in this release. Set "
     "`PYTORCH_ENABLE_MPS_FALLBACK=1` in the environment (before Python starts) to run that op on the CPU, "
     "upgrade torch (MPS gains ops each release), or run on the CPU."),
    # the fallback above at work: the op ran on the CPU, the run goes on
    (r"\A(?!.*\w*(Error|Exception)\b)(?=.*is not currently supported on the MPS backend and will fall back to run "
     r"on the CPU)",
     "Not a fault: PyTorch's Apple MPS backend has no kernel for this op, and because `PYTORCH_ENABLE_MPS_FALLBACK=1` "
     "is set it runs on the CPU instead, correct but slower (each call copies its tensors between the devices). "
     "Nothing needs fixing; if the op is in a hot loop, a newer torch may have its MPS kernel."),
    # xFormers' cutlass kernel takes fp32, fp16 and bf16: when its only reasons are about the bias or the shape, no
    # dtype would help
    (r"No operator found for .?memory_efficient_attention\w*.*?\n`?cutlass[FB]\w*`? is not supported because:[ \t]*\n"
     r"(?:[ \t]+(?![^\n]*(dtype|device|cuda|built|wasn't|not available|capability|\bsm_?\d|bf16|fp16|fp32|float|half|gpu))[^\n]*(\n|\Z))+"
     r"(?=`|[^\s]|\s*\Z)",
     "Not a precision fault: xFormers' general (cutlass) kernel, which takes fp32, fp16 and bf16, refused these "
     "inputs for a reason other than their dtype: an attention bias whose last dimension is not a multiple of 8 "
     "(allocate it padded to a multiple of 8 and slice it), a broadcast bias (expand it to the full (B, H, Mq, Mk) "
     "shape), or a head size it does not cover. Fix that reason; casting to fp16 does not help."),
    # a scheduler handed a mixed-precision wrapper (apex / Megatron FP16_Optimizer) instead of the optimizer inside
    (r"\b\w*(FP16|Fp16|fp16|Half|AMP)\w*Optimizer is not an Optimizer\b",
     "Not a precision fault: the LR scheduler (or another torch utility that checks for `torch.optim.Optimizer`) was "
     "given the mixed-precision wrapper (`FP16_Optimizer`) instead of the optimizer it wraps. Pass the wrapped one "
     "(`optimizer.optimizer`) to the scheduler, or use `torch.amp` with a plain optimizer."),
    # one-hot targets given to a class-index loss: their shape, whatever their dtype
    (r"multi-target not supported",
     "Not a precision fault: nll_loss / cross_entropy got a 2-D target (one-hot labels), and they take class indices "
     "of shape (N,): pass `target.argmax(-1)` (as int64), or use a loss made for one-hot / soft targets."),
    # torch 2.0's STFT API: complex spectrograms only, whatever the precision
    (r"stft requires the return_complex parameter|istft requires a complex-valued input tensor",
     "Not a precision fault: since torch 2.0 `torch.stft` must be told `return_complex=True` and `torch.istft` takes "
     "only the complex spectrogram that returns, not the older real (..., 2) layout. Pass `return_complex=True` "
     "and use `torch.view_as_real(spec)` where code wants the real layout, `torch.view_as_complex(spec)` before "
     "`istft`; or pin the torch release the code was written for."),
    # torch built against another NumPy: no NumPy scalar type is understood, whatever the data's dtype
    (r"Could not infer dtype of numpy\.\w+",
     "Not a dtype fault in the data: this torch cannot read NumPy's scalar types at all, which happens when the "
     "installed NumPy is not the one the torch build supports (NumPy 2 with a torch built for NumPy 1). Install a "
     "matching pair (`pip install \"numpy<2\"` for an older torch, or upgrade torch)."),
    # punica's LoRA kernels are built for a fixed list of sizes (h_in is the rank when expanding, h_out when
    # shrinking); a size off that list is refused whatever the dtypes
    (r"No suitable kernel\. h_in=(8|16|32|64|128) h_out=(?!(128|256|512|640|768|1024|1152|1280|1536|1728|1792|2048|"
     r"2304|2560|2752|2816|3072|3456|3584|4096|4608|5120|5504|5632|6144|6848|6912|7168|8192|9216|10240|11008|13824|"
     r"14336|15360|22016|24576|27392|28672|32000|32256|32512|32768|33024|36864|43264|49152|64000|64256|64512|102400|"
     r"102656|102912|128000|128256|128512)\b)\d+\b",
     "Not a dtype fault: vLLM's punica LoRA kernels are compiled for a fixed list of hidden sizes, and this one "
     "(a layer's size divided by the tensor-parallel size) is not in it. Use a tensor-parallel size that gives a "
     "listed size, add the size to the kernel list and rebuild, or upgrade vLLM (its Triton LoRA kernels take any "
     "size)."),
    # a GPU newer than the CUDA / TensorRT install: its FP16 check fails because the SM is unknown
    (r"\A(?=.*without native FP16 support)(?=.*\b(RTX ?(20|30|40|50)\d0( ?Ti| ?SUPER)?|A100|H100|H200|L4|L40S?|A10G?|"
     r"A[2-6]000|T4|V100|Jetson Orin)\b)",
     "Not a precision fault: this GPU computes FP16 natively, but the installed CUDA / TensorRT release predates its "
     "architecture and does not recognise the SM, so its FP16 check fails. Install a CUDA and TensorRT release "
     "that supports the GPU (Ada RTX 40xx needs CUDA 11.8 and TensorRT 8.5 or newer)."),
    # `.cuda(device)` given a CPU device: usually a script that fell back to 'cpu' because CUDA is not available
    (r"Invalid device, must be cuda device",
     "Not a precision fault: `.cuda(device)` (or `torch.cuda.set_device`) was given a device that is not a CUDA "
     "device, usually because the script chose `'cpu'` when `torch.cuda.is_available()` was False: a CPU-only "
     "torch build or a driver problem. Install the torch build for your CUDA (pytorch.org's selector) and check "
     "`torch.cuda.is_available()`, or use `.to(device)` so the script also runs on the CPU."),
    # an xFormers wheel without CUDA kernels refuses every input, whatever dtypes its reasons also list
    (r"\A(?=.*No operator found for .?memory_efficient_attention)(?=.*xFormers (wasn'?t|was not) buil[dt] with CUDA "
     r"support)",
     "Not a dtype fault: this xFormers build has no CUDA kernels (a wheel built for another torch or CUDA, or "
     "without CUDA), so every attention operator is unavailable, whatever dtypes the reasons list. Reinstall the "
     "xformers wheel that matches the installed torch and CUDA (or newer GPU), or uninstall it and use PyTorch's "
     "SDPA attention."),
    # no sparse kernels on MPS: a layout the backend lacks, as for other ops missing on MPS
    (r"with arguments from the 'SparseMPS' backend",
     "Not a precision fault: this torch has no sparse kernels for Apple's MPS device, so sparse tensors cannot be "
     "created or used there. Keep sparse tensors and their ops on the CPU (or densify with `x.to_dense()` before "
     "moving to MPS), or run that part of the model on the CPU."),
    # torch 2.9's notice about the old TF32 flags
    (r"Please use the new API settings to control TF32 behavior",
     "Not a precision fault: a deprecation notice. The code (or a library) sets TF32 through the old flags "
     "(`torch.backends.cuda.matmul.allow_tf32`, `torch.backends.cudnn.allow_tf32`), which newer torch replaces with "
     "`torch.backends.cuda.matmul.fp32_precision = 'tf32'` / `'ieee'` and `torch.backends.cudnn.conv.fp32_precision`; "
     "the numbers are unaffected. Switch to the new settings, or upgrade the library that sets them."),
    # autocast for CUDA where this interpreter's torch sees no GPU, not told as a CPU run on purpose
    (r"\A(?=.*User provided device_type of .?cuda.?, but CUDA is not available)"
     r"(?!.*(\brun on (the )?CPU\b|\bpassing the .?cpu.? parameter|torch\.device\(.cpu.\)))",
     "Not a precision fault: the code asks autocast for CUDA, and the torch of the interpreter that runs it sees no "
     "GPU (a CPU-only build, another environment's Python, or a driver that is not loaded), so autocast is disabled "
     "and everything runs in fp32 on the CPU. Run `python -c \"import torch; print(torch.cuda.is_available())\"` "
     "with the same interpreter and install the CUDA build of torch there; when the CPU is meant, pass "
     "`enabled=False` (or `device_type='cpu'`)."),
    # no MPS device on this machine or build
    (r"PyTorch is not linked with support for mps devices|MPS backend is not available|"
     r"The MPS backend is supported on MacOS",
     "Not a precision fault: the code asked for Apple's MPS device on a machine, OS or torch build without it "
     "(Linux or Windows, an x86 build, or a macOS older than the torch release needs). Pick the device that exists "
     "(`'cuda' if torch.cuda.is_available() else 'mps' if torch.backends.mps.is_available() else 'cpu'`), or "
     "upgrade macOS / use a torch release that still supports it."),
    # a checkpointed recompute that finds ZeRO-3's empty parameter placeholders
    # (a tensor saved empty as well is a real empty tensor, not a placeholder)
    (r"\A(?!.*saved metadata: \{'shape': torch\.Size\(\[0\]\))(?=.*recomputed metadata: \{'shape': "
     r"torch\.Size\(\[0\]\))",
     "Not a precision fault: the dtypes match, and the recompute saw parameters of shape [0], the placeholders "
     "DeepSpeed ZeRO-3 leaves for partitioned weights outside their forward. Use reentrant checkpointing "
     "(`gradient_checkpointing_kwargs={'use_reentrant': True}`) with ZeRO-3, or ZeRO-2."),
    # ZeRO-3's partial optimizer offload (a `ratio`) configured with NVMe: it exists for the CPU only
    (r"\A(?=.*[\"']?offload_optimizer[\"']?\s*[:=])(?=.*[\"']?device[\"']?\s*[:=]\s*[\"']nvme[\"'])"
     r"(?=.*[\"']?ratio[\"']?\s*[:=]\s*0?\.\d)",
     "Not a precision fault: the DeepSpeed config asks for a partial optimizer offload (`ratio` below 1) to NVMe, "
     "and partial offload exists only for `\"offload_optimizer\": {\"device\": \"cpu\"}`, so the optimizer's "
     "set-up meets tensors where its NVMe path does not expect them. Offload to the CPU with the ratio "
     "(`\"device\": \"cpu\", \"pin_memory\": true, \"ratio\": 0.5`), or offload the whole optimizer to NVMe "
     "without a ratio."),
    # a quantized model that does not fit in GPU memory: device_map offloaded part of it
    (r"Some modules are dispatched on the CPU or the disk|dispatch the model on the CPU or the disk while keeping|"
     r"can'?t train a model that has been loaded in (8|4)-bit precision with CPU or disk offload",
     "Not a precision fault: the quantized model does not fit in GPU memory, so `device_map='auto'` put some modules "
     "on the CPU or the disk, where bitsandbytes cannot keep them quantized (and nothing offloaded can be trained). "
     "Make it fit on the GPU (4-bit instead of 8-bit, a smaller model, more GPU memory, `device_map={'': 0}`), or "
     "for inference only keep the offloaded modules fp32 with `BitsAndBytesConfig(llm_int8_enable_fp32_cpu_offload="
     "True)` and a custom `device_map`; `model.hf_device_map` shows what went to 'cpu' / 'disk'."),
    # torch >= 2.4 renaming the AMP API: a warning about the spelling, the run unaffected
    (r"\A(?!.*\w*(Error|Exception)\b)(?=.*`?torch\.(cuda|cpu)\.amp\.(GradScaler|autocast|custom_fwd|custom_bwd)"
     r"\(args\.\.\.\)`? is deprecated)",
     "Not a fault: torch 2.4 and later renamed the device-specific AMP API and warn about the old spelling; the run "
     "is not affected. Use `torch.amp.autocast('cuda', ...)`, `torch.amp.GradScaler('cuda', ...)` and "
     "`@torch.amp.custom_fwd(device_type='cuda')`, or, when the warning comes from a library's code, upgrade the "
     "library (or filter the FutureWarning)."),
    # a device type autocast does know, refused by an older torch (or one whose backend plugin is not loaded)
    # a NaN only the compiled code produces, no half precision in the text
    (r"\A(?=.*(torch\.compile|\binductor\b))(?=.*(?<![a-z])nan(?![a-z]))"
     r"(?=.*(\beager\b.{0,60}\b(no nan|fine|works?|correct|has no|matches)|\b(no nan|fine|works?|correct)\b.{0,40}\beager\b))"
     r"(?!.*\b(fp16|float16|half|bf16|bfloat16|autocast|amp)\b)",
     "Not a precision fault as told: the NaN appears only in the compiled code while eager gives finite values, "
     "which points at a compiler (Inductor) bug. Find the stage with `torch.compile(backend='aot_eager')`, upgrade "
     "torch, and report it with the repro; run without compiling that function meanwhile."),
    # Inductor failing to lower a graph: the compiler's own failure, whatever dtype its message names
    (r"backend='inductor' raised:\s*(\w+: )?LoweringException",
     "Not a precision fault as told: Inductor failed while lowering the compiled graph, a compiler bug or a pattern "
     "this release does not support, so the dtype it names comes from the compiler's view of the graph. Check that "
     "the code runs eagerly, upgrade torch, and report it with the repro; compile without that function "
     "meanwhile."),
    # map_location already given: it reaches torch.load's files, not a state dict pickled with the pickle module
    (r"\A(?=.*\bpickle\.dumps?\()(?=.*\bmap_location\b)(?=.*deserialize object on (a )?CUDA device)",
     "Not the usual device fault: `map_location` was passed, but the state dict was written with the `pickle` "
     "module (`pickle.dumps`), whose CUDA storages are restored by torch's own unpickling and ignore "
     "`map_location`. Save with `torch.save(model.state_dict(), path)` and load with `torch.load(path, "
     "map_location='cpu')`, or re-save it on a GPU machine after `.cpu()`."),
    # eager PyTorch allows a CUDA tensor indexed with CPU indices; only the compiler's fake-tensor pass objects
    (r"Unhandled FakeTensor Device Propagation for aten\.index\w*",
     "Not a device fault as told: indexing a CUDA tensor with CPU indices is allowed in eager PyTorch, and "
     "torch.compile's fake-tensor pass did not handle it in this release. Move the indices to the tensor's device "
     "(`idx.to(x.device)`) to compile it, or upgrade torch."),
    (r"unsupported autocast device_type '(xpu|hpu|npu|xla|ipu|mtia|privateuseone)'",
     "Not a precision fault as told: this torch has no autocast for that device type (XPU, HPU and NPU need their "
     "plugin imported), and the call comes from code written for a newer stack. "
     "Upgrade torch (or import the backend's plugin), or use a release of the calling library that supports "
     "yours."),
    # float labels of a regression task refused by a classification loss: the config, not the labels' dtype
    (r"\A(?=.*(scalar type Long but got scalar type Float|expected scalar type Long but found Float|"
     r"nll_loss\w*\" not implemented for 'Float'))(?=.*(\b(stsb|sts-?b)\b|\bregression (task|problem|model|head|"
     r"labels?|targets?)\b|num_labels\s*=\s*1\b|problem_type\W{0,4}regression))",
     "Not a precision fault: float labels of a regression task reached a classification (cross-entropy) loss, "
     "which wants class indices, because the model's config has more than one label (`num_labels=2` kept from a "
     "classification checkpoint). Load it with `num_labels=1` (`problem_type=\"regression\"`, "
     "`ignore_mismatched_sizes=True` for the new head); casting the labels to Long would truncate them."),
    # a device name torch does not know: a spelling or a tool's own name (a device type this torch lacks is left to
    # the entries: an old torch or a missing backend plugin)
    (r"Expected one of cpu, cuda.{0,300}device type at start of device string: "
     r"(?!(meta|mps|xpu|hpu|npu|mtia|privateuseone|lazy|ipu|xla|vulkan|maia)\b)\w+",
     "Not a precision or placement fault: the device was written with a name torch does not know (`'gpu'`, "
     "`'cuda0'`, `'GPU:0'`, another tool's name such as OpenVINO's `'GPU'` or DirectML's `'dml'`). Write "
     "`torch.device('cuda')` / `'cuda:0'` (or `'mps'`, `'xpu'`), build it as `'cuda' if torch.cuda.is_available() "
     "else 'cpu'`, and for DirectML take the device from `torch_directml.device()`."),
    # the script's own CUDA-only call given the CPU device (run without a GPU, or with --no_cuda); bitsandbytes and
    # offloading code that meets weights left on the CPU stay device faults
    (r"\A(?=.*Expected a cuda device, but got: cpu)(?=.*File \"(?![^\"\n]*(site|dist)-packages)[^\"\n]+\", line \d+, "
     r"in \w+\n\s*torch\.cuda\.(set_device|device)\()",
     "Not a tensor device mismatch: the script itself calls a CUDA-only function (`torch.cuda.set_device`, "
     "`torch.cuda.device(...)`) with the CPU device, as happens when code written for GPUs runs on a machine "
     "without one or with a `--no_cuda` option. Call it only for a CUDA device (`if device.type == 'cuda': "
     "torch.cuda.set_device(device)`), or run on a GPU."),
    # a test that expected one wording of an error and got another
    (r"AssertionError: \"[^\"\n]{1,300}\" does not match \"",
     "Not a precision or device fault: a test expected one wording of an error (`assertRaisesRegex`) and the op "
     "raised another. Update the test's expected pattern to the message the op raises now (or make the op raise "
     "the expected one)."),
    # Gaudi has bf16: an older transformers' bf16 check knew only CUDA GPUs and some CPUs
    (r"\A(?=.*Your setup doesn'?t support bf16)(?=.*(ds_accelerator to hpu|\bGaudi\b|\bhabana\w*|\bhpu:\d|"
     r"--device[ =]hpu\b|device\W{1,4}hpu\b))",
     "Not a precision fault as told: Intel Gaudi (HPU) computes bf16 natively, and this transformers release's bf16 "
     "check knows only CUDA GPUs and some CPUs. Upgrade transformers (later releases count HPUs), or train through "
     "optimum-habana (`GaudiTrainer`, `GaudiTrainingArguments(bf16=True)`)."),
    # a NaN that anomaly mode pins on one backward op, or that the text traces to a zero itself, with nothing of
    # half precision in the text: the op's own math at a singular point
    (r"\A(?!.*\b(fp16|f16|float16|half|bf16|bfloat16|amp|autocast|GradScaler|scaler|mixed[ _-]precision|apex|O[12]|"
     r"load_in_\w+|\d[ -]?bit)\b)"
     r"(?=.*(Function '?\w+Backward\d*'? returned nan values|divi(de|sion|ded) by (zero|0)\b|\bzero[- ]norm\b|"
     r"\bnorm (of|is) (a )?zero\b|\blog ?\(0\)|\blog of (0|zero)\b|\bsqrt ?\(0\)|\bsqrt of (0|zero)\b|"
     r"\bcontains? zeros?\b[^\n]{0,80}\bNaN\b))",
     "Not a precision fault as told: the NaN comes from one op's own math, and the text shows no half precision. "
     "Anomaly mode names the backward of the op that made it: a sqrt or a power below 1 at 0 (an infinite "
     "derivative, such as the norm of a zero vector), a division by zero, log of 0, acos/asin at +-1, a solve or "
     "inverse of a singular matrix, or NaN already in that op's input. Add an eps or clamp before the op "
     "(`torch.sqrt(x + 1e-8)`, `norm.clamp_min(1e-8)`), and mask zero entries before it rather than after "
     "(`torch.where` after the op still sends the NaN gradient back)."),
    # transformers' warning for a model built on the CPU with flash_attention_2, printed before it is moved
    (r"\A(?!.*\w*(Error|Exception)\b)(?=.*Flash Attention 2(\.0)? with a model not initiali[sz]ed on GPU)",
     "Not a fault by itself: transformers prints this warning when a model loaded with "
     "`attn_implementation='flash_attention_2'` is built on the CPU, and it is harmless once the model is on the "
     "GPU before its first forward (`model.to('cuda')`; loading with `device_map='cuda'` builds it there and skips "
     "the warning). A model meant to run on the CPU needs `attn_implementation='sdpa'` instead."),
))

# fp16 dynamic loss scaling skipping a step while the scale is still high: calibration, not a fault
_SKIP = re.compile(LOSS_SCALE_SKIP + r"|overflow detected, setting loss scale to", re.IGNORECASE)
_SCALE = re.compile(r"(?:loss[ _]scale(?:_\w+)?\b(?: from| to)?|reducing to|\bto)\s*[:=]?\s*(\d[\d.]*(?:e[+-]?\d+)?)",
                    re.IGNORECASE)
_ASKED_NORMAL = re.compile(r"\b(is|are) (this|it|that|these|they) (normal|expected|ok|okay|harmless|fine)\b",
                           re.IGNORECASE)
_TROUBLE = re.compile(r"(?<![a-z])(nan|inf)(?![a-z])|minimum|min_loss_scale|\bnot? (learn|converg|decreas)\w*|"
                      r"stagnat\w*|diverg\w*|explod\w*|keeps? (skipping|overflow\w*)|every (step|iteration)|"
                      r"飙升|不收敛|\w*(Error|Exception):|Traceback", re.IGNORECASE)
_CALIBRATING = (
    "Not a fault: fp16 dynamic loss scaling (apex, DeepSpeed, fairseq, GradScaler) starts from a high scale and "
    "halves it, skipping that step, whenever the scaled fp16 gradients overflow; skips at the start and now and "
    "then later are expected and harmless. Only a scale that keeps falling towards 1 or its minimum, or a loss "
    "that is NaN, means the fp16 forward/backward itself overflows: then train in bf16 or fp32."
)
_HIGH_SCALE = 1024.0


def _calibrating(text: str) -> bool:
    if not _SKIP.search(text) or _TROUBLE.search(text):
        return False
    scales = []
    for number in _SCALE.findall(text):
        try:
            scales.append(float(number.rstrip(".")))
        except ValueError:
            continue
    return min(scales) >= _HIGH_SCALE if scales else bool(_ASKED_NORMAL.search(text))


def other_kind(text: str) -> str:
    """The advice for a known fault of another kind in `text`, or ""."""
    for pattern, advice in OTHERS:
        if pattern.search(text):
            return advice
    return _CALIBRATING if _calibrating(text) else ""
