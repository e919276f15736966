"""Tensors on the wrong device: meta tensors, generators, NumPy, CUDA checkpoints, legacy type names."""
from __future__ import annotations

from amplora.doctor.kb.entry import make as _e
from amplora.doctor.kb.patterns import CPU_TYPE, DEVICE_CLASH, EXCEPTION_NAMED, GPU_TYPE, OTHER_GPU

# meta tensors, then other placement errors with a specific message
DEVICES = (
    _e("iter-operand-device", "device", "an operand on the CPU given to a kernel that wants all on its device",
       r"\biter\.device\(arg\)\.is_(xpu|cuda|mps|privateuseone)\(\)",
       "The op's kernel on this device asserts that every operand is on that device, and one is a CPU tensor: "
       "most often a 0-dim CPU scalar tensor (`torch.tensor(2.0)`), which CUDA kernels take as a plain number but "
       "the XPU (or another backend's) implementation of this op does not.",
       "Move that operand to the device (`s.to(x.device)`) or pass a Python number (`s.item()`); a newer "
       "torch-xpu-ops / backend release may accept CPU scalars for this op as CUDA does."),
    _e("traced-device-constant", "device",
       "a traced (TorchScript) model creates tensors on the device it was traced on",
       r"\A(?=.*(TorchScript|torch\.jit|jit\.trace|\btraced\b|code/__torch__))"
       r"(?=.*\bdevice\s*=\s*torch\.device\([\"'](cpu|cuda(:\d+)?)[\"']\))|"
       r"\b(traced|TorchScript|jit)\b[^.\n]{0,60}\b(hard[- ]?coded?|baked( in)?|fixed)\b[^.\n]{0,40}\bdevices?\b|"
       # a TorchScript file exported on a GPU, loaded where there is none: its ops still ask for CUDA tensors
       r"\A(?=.*Could not run '[\w:.]+' with arguments from the 'CUDA' backend)"
       r"(?=.*(load_jit|jit\.load|TorchScript|\.jit\b|\bjit model))",
       unless=r"out of memory",
       cause="`torch.jit.trace` records the device of every tensor the traced code creates as a constant "
       "(`device=torch.device(\"cpu\")` in the serialized code): a model traced on the CPU keeps creating those "
       "tensors (position embeddings, masks, anchors) on the CPU when it runs on a GPU, or the reverse, and they "
       "meet the inputs on the other device.",
       fix="Trace (export) the model on the device it will run on, or one trace per device; in the model's code "
       "make new tensors from an input (`x.new_zeros(...)`, `torch.zeros_like(x)`) or `torch.jit.script` that "
       "function, so the trace follows the input's device; or use the release whose exported model was fixed."),
    _e("loss-weight-device", "device", "a loss's class weights left on the CPU",
       r"\A(?=.*" + DEVICE_CLASH + r")(?=.*\bclass[_ ]weights?\b)",
       cause="A loss's class weights (`class_weight`, `pos_weight`, `weight=` of `CrossEntropyLoss`) were made as a "
       "plain CPU tensor (from a config list or `torch.tensor(...)`), and moving the model to the GPU does not move "
       "them when they are not a registered buffer of a module, so they meet the GPU scores in the loss.",
       fix="Create them on the scores' device (`torch.tensor(w, device=scores.device)`, or `weight.to(cls_score."
       "device)` inside the loss), register them as a buffer of the loss module so `.to()` moves them, or upgrade "
       "the library whose loss builds them (later releases move them)."),
    _e("dtype-string-as-device", "device", "a dtype's name given where a device goes",
       r"Invalid device string: '(torch\.)(b?float(16|32|64)|half|double|float)'",
       cause="A dtype arrived as a string ('torch.bfloat16' read from a YAML / JSON config, such as "
       "`bnb_4bit_compute_dtype` in serialized pipeline or model kwargs) and the code calls `.to(value)` with it, "
       "and `.to()` reads a string as a device name.",
       fix="Pass a `torch.dtype` (`torch.bfloat16`), or convert the string where the config is read "
       "(`getattr(torch, name.removeprefix('torch.'))`); for bitsandbytes give a `BitsAndBytesConfig` in "
       "`quantization_config`, whose `bnb_4bit_compute_dtype` also takes the string \"bfloat16\"."),
    _e("kernel-current-device", "device", "a custom kernel launched on the current GPU, not its tensors' GPU",
       r"\A(?=.*\bcuda:[1-9]\b)(?=.*\bcontext is destroyed\b)|"
       r"\A(?=.*(not on the default cuda device|\b(works?|fine|correct)\w* (on|with) cuda:0\b))(?=.*\bcuda:[1-9]\b)"
       r"(?=.*\b(incorrect|wrong|error|fail))|"
       # an extension that fails only off the first GPU: "fine on cuda:0, illegal memory access on gpu:1"
       r"\A(?=.*(\b(works?|working|fine|ok|okay|correct(ly)?)\b[^.\n]{0,40}\b(cuda|gpu):? ?0\b|"
       r"\b((cuda|gpu):? ?0|(default|first) gpu)\b[^.\n]{0,40}\b(works?|fine|ok|okay|correct(ly)?)\b))"
       r"(?=.*(\b(cuda|gpu):? ?[1-9]\b|\bsecond gpu\b))(?=.*\b(illegal memory access|illegal address|error|fail))|"
       # a model put on a second GPU that then gives nothing, told in words
       r"\A(?=.*\b(load\w*|put|mov\w*|run\w*|plac\w*)\b[^.\n]{0,40}\bon(to)? (device |gpu )?[\"'`]?cuda:[1-9])"
       r"(?=.*\b(no|empty|wrong|incorrect|garbage|zero|blank) (outputs?|results?|audio|images?|predictions?)\b)|"
       # tensors put on a GPU other than the first, then an illegal memory access
       r"\A(?=.*" + OTHER_GPU + r")(?=.*\b(illegal (memory access|address)|cusolver error)\b)",
       unless=r"Expected all tensors to be on the same device|found at least two devices|out of memory",
       cause="A custom CUDA or Triton kernel launches on the current CUDA device (cuda:0 unless it was set), not on "
       "the device of its tensors: without a device guard in the extension, tensors on cuda:1 or another GPU that is "
       "not current give errors ('Pointer argument cannot be accessed', 'context is destroyed', an illegal memory "
       "access) or silently wrong results, as a model split over GPUs by `device_map` does.",
       fix="Make the tensors' GPU current around the call: `torch.cuda.set_device(x.device)` or `with "
       "torch.cuda.device(x.device): ...`, or show the process one GPU (`CUDA_VISIBLE_DEVICES=1` makes it cuda:0) "
       "and keep the model on a single GPU; the library's fix is a device guard around the launch "
       "(`c10::cuda::OptionalCUDAGuard`, `with torch.cuda.device(...)`): upgrade it."),
    _e("cupy-numpy-mix", "device", "a CuPy (GPU) array met a NumPy (host) array",
       r"Implicit conversion to a NumPy array is not allowed|Only cupy arrays can be concatenated|"
       r"\A(?=.*\bcupy\b)(?=.*Unsupported type <class 'numpy\.ndarray'>)|\bTypeError: Unsupported type <class "
       r"'numpy\.ndarray'>|"
       r"has incorrect type \(expected numpy\.ndarray, got cupy\.\w+|expected cupy\.\w+, got numpy\.ndarray",
       "A CuPy array (GPU memory) met a NumPy array (host memory), and CuPy does not convert between them "
       "implicitly: with spaCy or thinc on the GPU (`spacy.prefer_gpu()` / `require_gpu()`, `--gpu-id`) vectors and "
       "layer outputs are CuPy arrays, so a plugin or helper written for NumPy (a CPU-only component, NumPy or "
       "gensim code) or a thinc layer that kept a NumPy array mixes the two.",
       "Convert at the boundary: `x.get()` or `cupy.asnumpy(x)` brings a CuPy array to the host, `cupy.asarray(x)` "
       "sends a NumPy one to the GPU (thinc: `ops.to_numpy` / `ops.asarray`); a component written for the CPU needs "
       "spaCy without `require_gpu` / `prefer_gpu` (CPU-only); if the mix happens inside spaCy or thinc, upgrade them "
       "(such bugs were fixed in later releases)."),
    _e("legacy-cuda-type-no-gpu", "device", "a library that builds CUDA tensors by type name, run without a GPU",
       r"Found no NVIDIA driver|Torch not compiled with CUDA enabled|No CUDA GPUs are available",
       # the legacy constructor on a line of an installed library (not torch's own frames, not the user's script)
       context=r"(?m)^\s*File \"[^\"\n]*(site|dist)-packages/(?!torch/)[^\"\n]*\"[^\n]*\n\s*[^\n]*"
               r"\btorch\.cuda\.(Long|Float|Int|Half|Byte|Bool|Double|Short|Char)Tensor\(",
       unless=r"is_available\(\)\W{0,3}\s*(shows|returns|gives|is|prints|=+)?\s*`?True",
       cause="An installed library builds a CUDA tensor by its legacy type name (`torch.cuda.LongTensor(...)`, in "
       "the frame the traceback shows), which puts it on the GPU whatever device the run was set to, so a run "
       "configured for the CPU still needs CUDA there and fails on a machine without a usable GPU.",
       fix="Upgrade the library, or patch that line to build the tensor on the configured device "
       "(`torch.tensor(x, dtype=torch.long, device=device)`, `torch.as_tensor(x).to(device)`), or run on a machine "
       "with a GPU."),
    _e("optimizer-step-device", "device", "an optimizer's `step` tensors on the wrong device after loading its state",
       r"state_steps should not be CUDA tensors|\bargument state_steps\b|\bstate_steps\b.{0,80}\b(on|device)\b|"
       r"\bstate_steps must be CUDA tensors\b|Expected scalars to be on CPU, got cuda(:\d+)? instead|"
       # torch < 0.4: a state loaded before `model.cuda()` stays on the CPU
       r"\A(?=.*invalid combination of arguments - got \([^)\n]*torch\.cuda\.\w+Tensor\))"
       r"(?=.*\(torch\.(?!cuda)\w+Tensor other\))(?=.*\b(exp_avg\w*|optimizer|momentum_buffer)\b)",
       "Adam and AdamW keep each parameter's `step` count as a tensor, and a loaded or moved optimizer state put it "
       "on the wrong device: torch 1.12.0's Adam moved `step` to CUDA on `load_state_dict` while `capturable=False` "
       "needs it on the CPU, and the fused / capturable kernels need it on the parameters' GPU, where a state restored "
       "by ZeroRedundancyOptimizer or by hand left it on the CPU (in torch before 0.4 a whole loaded state stayed on "
       "the CPU when the model moved to CUDA after loading).",
       "Upgrade torch (1.12.1 fixed 1.12.0's load; 1.11 did not have it); when moving a state by hand move `exp_avg` "
       "and `exp_avg_sq` to the parameter's device and leave `state['step']` where the optimizer wants it (the CPU "
       "for the default path, the parameter's device with `fused=True` or `capturable=True`)."),
    _e("rng-state-dtype", "mismatch", "a random generator's state cast to another dtype",
       r"RNG state must be a torch\.ByteTensor",
       "A random generator's state (`torch.get_rng_state()`, `Generator.get_state()`, CUDA RNG states) is a uint8 "
       "(Byte) tensor, and it was cast on the way, typically by a checkpoint shrunk or moved by converting every "
       "tensor (`.half()`, `.to(dtype)`, `.float()`) before `set_rng_state` / `Generator.set_state`.",
       "Cast only floating-point tensors when converting a checkpoint (`t.half() if t.is_floating_point() else t`), "
       "and keep RNG states as saved (uint8, on the CPU); a state already cast cannot be recovered: re-save it or "
       "reseed."),
    _e("complex-real-grad", "mismatch", "a real tensor given a complex gradient in backward",
       r"input_is_complex == grad_is_complex",
       "A real (float) tensor that requires grad was combined with a complex one (`torch.stack`, `cat` or a product "
       "with `1j`), or given a complex `dtype=` argument (`torch.cumprod(x, 0, dtype=torch.complex128)`), so backward "
       "hands it a complex gradient, which a real input cannot take.",
       "Cast it to complex before combining (`x.to(torch.cfloat)`, `torch.complex(x, torch.zeros_like(x))`), or keep "
       "real and imaginary parts as separate real tensors."),
    _e("xla-cpu-tensor", "device", "a CPU tensor met tensors on the XLA device (TPU, Trainium)",
       r"(Input )?tensor is not an XLA tensor|not an XLA tensor: (torch\.\w+Tensor|CPU\w+Type)",
       "An op on the XLA device (a TPU, AWS Trainium / Inferentia, another PJRT device) got a tensor that lives on "
       "the CPU: the module's weights (the model was never moved to the XLA device), an input, or a tensor created "
       "inside the model without `device=` (a `torch.arange` or `torch.zeros` in forward).",
       "Move the model and its inputs to the XLA device: `device = xm.xla_device()` (`torch_xla.device()`), "
       "`model.to(device)`, `x = x.to(device)`; create tensors inside forward with `device=x.device`."),
    _e("triton-cpu-tensor", "device", "a Triton GPU kernel given a CPU tensor",
       r"Pointer argument \(at \d+\) cannot be accessed from Triton \(cpu tensor\?\)",
       "A Triton kernel (a fused kernel of unsloth, liger, bitsandbytes, flash-linear-attention or a "
       "`torch.compile` graph) runs on the GPU and got a tensor that lives on the CPU: the model or a buffer was "
       "not moved, inputs were left on the CPU, or `device_map` offloaded that module to the CPU; or the tensor is on "
       "a GPU that is not the current device (a model split over GPUs by `device_map`, data on cuda:1), since Triton "
       "launches on the current device.",
       "Put the model and its inputs on the GPU (`model.to('cuda')`, `batch = {k: v.to('cuda') for k, v in "
       "batch.items()}`), keep offloaded modules away from fused kernels (enough GPU memory, or "
       "`device_map={'': 0}`), or turn the fused kernels off on the CPU; for tensors on another GPU make it the "
       "current device (`torch.cuda.set_device(x.device)`, `with torch.cuda.device(x.device):`) or keep the model "
       "on a single GPU."),
    _e("bnb-tensor-not-on-gpu", "device", "a bitsandbytes kernel given tensors that are not on a GPU",
       r"All input tensors need to be on the same GPU, but found some tensors to not be on a GPU",
       "A bitsandbytes kernel (4-bit / 8-bit matmul, (de)quantize, an 8-bit optimizer) got a tensor that is not on "
       "a GPU: the quantized weight or its `quant_state` left on the CPU by offloading (a low-VRAM mode, a "
       "`device_map` that offloads to the CPU), or the input still on the CPU.",
       "Keep the quantized layers on the GPU (no CPU offload for 4/8-bit layers: `device_map={'': 0}`, a tool's "
       "high-VRAM / GPU-only mode) and move the inputs to the model's device (`x.to(model.device)`); bitsandbytes "
       "runs on the CPU only in its recent releases."),
    _e("bnb-quant-state-missing", "device", "a bitsandbytes layer whose weight was never quantized on a GPU",
       r"quantization state not initialized\. Please call \.cuda\(\) or \.to\(device\)|"
       r"layer is not quantized\. Please call \.cuda\(\) or \.to\(device\)|assert quant_state is not None",
       "bitsandbytes quantizes a 4-bit / 8-bit layer's weight when the layer is moved to a GPU and keeps the scales "
       "in its `quant_state`; this layer has none: the model never went to a GPU (it runs on the CPU, or "
       "`device_map` offloaded the layer), or its packed weights were loaded without their quantization state (a "
       "hand-written state dict, `low_cpu_mem_usage=False`, pre-quantized weights sharded by FSDP).",
       "Load it quantized onto the GPU in one step (`from_pretrained(..., quantization_config=bnb_config, "
       "device_map={'': 0})`) and do not move or re-assign its weights afterwards; on a CPU-only machine load "
       "without quantization (bf16 / fp32); if a loader or FSDP drops the state, upgrade transformers, accelerate "
       "and bitsandbytes."),
    _e("cuda-in-forked-worker", "device", "CUDA used in a forked worker process",
       r"Cannot re-initialize CUDA in forked subprocess",
       "CUDA was used in a process forked from one that had already initialised CUDA: most often a DataLoader "
       "worker (`num_workers > 0`) whose Dataset `__getitem__` or `collate_fn` moves tensors to the GPU (`.cuda()`, "
       "`.to('cuda')`), or a multiprocessing pool started with fork.",
       "Keep datasets and collate functions on the CPU and move each batch to the GPU in the training loop "
       "(`pin_memory=True` makes that copy fast); or use `num_workers=0`, or start workers with spawn "
       "(`DataLoader(..., multiprocessing_context='spawn')`, `torch.multiprocessing.set_start_method('spawn')`)."),
    _e("quantized-train-device", "device", "a 4/8-bit model trained on another device than it was loaded on",
       r"can'?t train a model that has been loaded in 8-bit( or 4-bit)? precision on a different device",
       "A bitsandbytes 4/8-bit model cannot be moved after loading, and the Trainer (or accelerate) runs this "
       "process on another GPU than the one `device_map` put it on, typically every DDP rank loading with "
       "`device_map='auto'` (all on GPU 0).",
       "Load each process's copy on its own GPU: `device_map={'': torch.cuda.current_device()}` (or "
       "`{'': int(os.environ['LOCAL_RANK'])}`) in `from_pretrained`, and launch with torchrun / accelerate."),
    _e("quantized-multi-device-ddp", "device", "a 4/8-bit model split over GPUs under a distributed launcher",
       r"can'?t train a model that has been loaded in 8-bit( or 4-bit)? precision on multiple devices",
       "A bitsandbytes 4/8-bit model was spread over several GPUs by `device_map='auto'` (naive pipeline "
       "parallelism) and the run was launched as distributed (torchrun, `accelerate launch` with multi-GPU, DDP), "
       "which needs one whole copy per process.",
       "Pick one: launch a single process (`python train.py`, no distributed accelerate config) and keep "
       "`device_map='auto'` to split the model, or run DDP with one full copy per GPU "
       "(`device_map={'': int(os.environ['LOCAL_RANK'])}`) when it fits one GPU."),
    _e("dataloader-cuda-storage", "device", "CUDA tensors from a Dataset collated in DataLoader workers",
       r"Attempted to set the storage of a tensor on device \W?cuda(:\d+)?\W? to a storage on different device "
       r"\W?cpu\b",
       context=r"\b(collate\w*|DataLoader|num_workers|workers?)\b",
       cause="The Dataset returns tensors already on the GPU while the DataLoader runs worker processes "
       "(`num_workers > 0`): the collate function builds each batch in CPU shared memory for the worker, and a "
       "cuda:0 tensor cannot take that CPU storage; CUDA tensors are not supported in worker processes.",
       fix="Keep the dataset's tensors on the CPU and move each batch in the training loop (`batch.to(device, "
       "non_blocking=True)` with `pin_memory=True`), or use `num_workers=0` if the data must live on the GPU."),
    _e("memmap-storage-cpu", "device", "a memory-mapped replay buffer given GPU data",
       r"Memory map device other than CPU is ?n[o']t supported",
       "TorchRL's `LazyMemmapStorage` keeps its tensors memory-mapped to files, which live in CPU memory only, and "
       "the collector (a GPU simulator such as VMAS, or a `device='cuda'` collector) hands it GPU data.",
       "Keep the storage on the CPU and move sampled batches to the GPU with a transform "
       "(`buffer.append_transform(lambda td: td.to(device))`), or use `LazyTensorStorage(size, device='cuda')` when "
       "the buffer fits in GPU memory."),
    _e("pin-memory-no-cuda", "device", "pinned memory asked for where there is no CUDA",
       r"Could not run 'aten::_pin_memory' with arguments from the '\w+' backend|"
       r"pin.?memory'? argument is s[ae]t as true but no accelerator is found|"
       r"pin_memory=True requires a CUDA or other accelerator backend",
       "`pin_memory()` (the DataLoader's `pin_memory=True`) asks the CUDA backend for page-locked host memory, and "
       "this torch or machine has no CUDA (a Mac with MPS, a CPU-only build or node): pinning only speeds "
       "host-to-accelerator copies.",
       "Pin only when the batches go to a CUDA GPU (`pin_memory=(device.type == 'cuda')`, and `non_blocking=True` "
       "only then); on MPS or the CPU just call `.to(device)`; PEFT's `load_adapter` loading the adapter weights "
       "with an inferred device (`cuda`) on a CPU-only machine: pass `torch_device='cpu'` (the base model's "
       "device)."),
    _e("pin-gpu-tensor", "device", "pinning memory of a tensor already on the GPU",
       r"cannot pin '?torch\.cuda\.\w+'? only dense CPU tensors can be pinned|"
       r"cannot pin '\w+' only dense CPU tensors|Only dense CPU tensors can be pinned",
       "`pin_memory` (the DataLoader's `pin_memory=True`) pages-locks host memory for fast copies to the GPU, and "
       "it got tensors that are already on the GPU: the dataset or its collate function moves samples to CUDA, or "
       "a default device of cuda (`torch.set_default_device`, `with torch.device('cuda')`) made a buffer created "
       "with `pin_memory=True` and no `device=` on the GPU.",
       "Keep the dataset on the CPU and move each batch in the training loop (`batch.to(device, "
       "non_blocking=True)`), or set `pin_memory=False` when the data already lives on the GPU; give a pinned "
       "buffer `device='cpu'` explicitly when the default device is not the CPU."),
    _e("meta-state-dict", "device", "a state dict of meta tensors (no data)",
       r"Cannot copy out of meta tensor", context=r"state_dict|While copying the parameter",
       # assign=True puts the checkpoint's real tensors in: what is left on meta is what the checkpoint lacks
       unless=r"assign\s*=\s*True(?!.*While copying the parameter)",
       cause="The tensors being loaded are themselves on the meta device (a state dict taken from a model "
       "built with `init_empty_weights` / `device='meta'` that was never materialized), so there is no data to "
       "copy into the parameters.",
       fix="Load real weights: take the state dict from a materialized model or the checkpoint file; to load "
       "real tensors into a model built on meta use `model.load_state_dict(sd, assign=True)`."),
    _e("meta-copy", "device", "a model with weights still on meta was moved",
       r"Cannot copy out of meta tensor|\bmeta[ -](tensors?|device) (data )?(copy )?(error|issue|problem|bug)s?\b|"
       r"use torch\.nn\.Module\.to_empty\(\)\s+instead of torch\.nn\.Module\.to\(\) when moving module from meta",
       "A module whose weights or buffers are still on the meta device (no data) was moved or cast with `.to()`: "
       "buffers not stored in the checkpoint (positional encodings, rotary tables) stay on meta after a meta "
       "init, a model "
       "loaded with `device_map` / offloading keeps offloaded weights on meta until its hooks load them, and "
       "`init_empty_weights` models have no data until loaded; a head newly initialized because its shape differs "
       "from the checkpoint (a classifier for another `num_labels`) stays on meta under `device_map` too, and so does "
       "a tensor the loader does not handle (a 4-bit layer's bias in some accelerate releases).",
       "Do not `.to()` a model dispatched with `device_map` (accelerate places it; give enough memory, load the "
       "whole model on one device with `device_map={'': 0}`, or drop "
       "`device_map` to load it whole) or offloaded with accelerate hooks (`enable_sequential_cpu_offload`: remove "
       "them first with `remove_hook_from_module`, or run without offload); for a model built on meta use "
       "`model.to_empty(device=...)` and then "
       "load the weights (`load_state_dict` / `load_checkpoint_and_dispatch`); weights the checkpoint lacks "
       "(a newer library's layer names, a missing text encoder key) stay on meta under `low_cpu_mem_usage=True`, "
       "the default of recent transformers and diffusers: load with `low_cpu_mem_usage=False` (they are then "
       "initialised), or use the library version the checkpoint was saved with.",
       # FSDP2 leaving a rank's shard empty after `to_empty` is a sharding bug, not a meta-device misuse
       unless=r"\b(rank|shard)s? (is |are )?left empty\b|\bempty (local )?shards?\b"),
    _e("meta-context-load", "device", "a checkpoint loaded inside `with torch.device('meta')`",
       r"from_pretrained[^\n]{0,120}(under|inside|within|in)\s+`?with torch\.device\(['\"]meta['\"]\)|"
       r"with torch\.device\(['\"]meta['\"]\)\s*:\s*(\n[^\n]*){0,4}?[^\n]*\.from_pretrained\(",
       "Inside `with torch.device('meta')` every tensor is created on the meta device, which holds no data, so "
       "a loader that reads weights into the model (`from_pretrained`) has nothing to copy into, or materialises "
       "tensors it cannot compute.",
       "For an empty model build it from its config on meta (`AutoModel.from_config(config)` under "
       "`torch.device('meta')`, or accelerate's `init_empty_weights()`), and call `from_pretrained` outside the "
       "meta context (it builds on meta and loads by itself with `low_cpu_mem_usage`)."),
    _e("offloaded-move", "device", "a model with offloaded modules was moved",
       r"can'?t move a model that has some modules offloaded|"
       r"activated sequential model offloading .{0,120}attempting to move the pipeline",
       "The model was loaded with a `device_map` that offloaded some modules to the CPU or disk (not enough GPU "
       "memory), and accelerate's hooks own their placement, so `.to()` / `.cuda()` on the whole model is refused.",
       "Do not move a dispatched model: leave placement to `device_map` and send only the inputs to "
       "`model.device`; to have it all on one GPU load it without offloading (`device_map={'': 0}` with enough "
       "memory, or a 4-bit/8-bit quantization so it fits)."),
    _e("meta-context-load", "device", "from_pretrained called under a meta-device context",
       r"using .?from_pretrained.? with a meta device context manager",
       "`from_pretrained` ran inside `with torch.device('meta')`, `init_empty_weights()` or after "
       "`torch.set_default_device('meta')`, so the weights it loads have nowhere to go.",
       "Call `from_pretrained` outside the meta context (it already builds the model on meta and loads the "
       "weights itself); use `init_empty_weights` only with `from_config` followed by "
       "`load_checkpoint_and_dispatch`."),
    _e("safetensors-meta-target", "device", "safetensors asked to load weights onto the meta device",
       r"device meta is invalid",
       cause="safetensors was asked to load weights onto the `meta` device: the model (or the module an adapter is "
       "loaded into) has no real weights yet, because it was built under `init_empty_weights` / a meta-device "
       "context or is a lazily loaded model not yet dispatched (nnsight, accelerate big-model loading), and "
       "`load_adapter` / `load_state_dict` took the target device from it.",
       fix="Materialize the model first (dispatch it, or load the real weights with `from_pretrained` and a "
       "`device_map`, `load_checkpoint_and_dispatch`, or `to_empty` followed by loading) and load the adapter "
       "after that; or pass the target device explicitly (`torch_device='cpu'` / `device='cuda'`)."),
    _e("autocast-meta-device", "device", "autocast entered for a tensor on the meta device",
       r"unknown device type for autocast in get_autocast_dispatch_key_from_device_type",
       cause="Autocast was entered with a device type it has no dispatch key for, most often `meta`: a model traced or "
       "built before its weights were loaded (nnsight before dispatch, `init_empty_weights`) runs a layer, such as "
       "a rotary embedding in recent transformers, that opens `torch.autocast(device_type=x.device.type)` on a "
       "meta tensor.",
       fix="Run the model with real weights (load or dispatch it first, e.g. nnsight's `dispatch=True`), or use a "
       "torch / library pair whose layers skip autocast for meta tensors (upgrade the library, or the torch "
       "release it was tested with)."),
    _e("meta-device", "device", "parameters left on the meta device",
       r"Tensor on device meta is not on the expected device|is not on the expected device meta|"
       r"expected device meta|invalid gradient.{0,300}device=meta|two devices, \S*meta|meta and (cuda|cpu)|"
       r"(cuda|cpu)(:\d+)? and meta\b|cannot be called on meta tensors|is on the meta device, we need a .?value|"
       r"\b(weight|bias|param\w*|tensor) is on the meta device\b|"
       r"torch\.device\(['\"]meta['\"]\)[^\n]{0,60}\b(break\w*|fail\w*|error\w*)\b|"
       r"copying from a non-meta parameter in the checkpoint to a meta parameter|"
       r"should be materialized from meta device before training|still on meta device|"
       r"\b(weights?|param\w*|tensors?|layers?)\s+(remain|stay|are left|were left|left|still)\w*\s+on\s+(the\s+)?"
       r"['\"`]?meta['\"`]?\s+device|"
       r"Could not run '[\w:.]+' with arguments from the 'Meta' backend|"
       r"\baten::\w+(\.\w+)?: attempted to run this operator with Meta tensors|"
       r"some parameters are on the meta device|is on the meta device because it was offloaded|"
       r"(载入|加载|放|留|loaded|placed|put|left|ended up|remains?|stays?|still)\s*(on|to|到|在)?\s*"
       r"device\s*=\s*['\"]meta['\"]",
       "Some parameters or buffers are still on the meta device (never loaded): keys missing from the "
       "checkpoint after a partial `load_state_dict(..., assign=True, strict=False)` or `init_empty_weights`, "
       "or weights offloaded by `device_map='auto'`.",
       "Check what was not loaded (`missing = model.load_state_dict(sd, strict=False, assign=True).missing_keys`) "
       "and load or initialise those (`model.to_empty(device=...)` then init); with `device_map` give enough GPU "
       "memory (or load in 4-bit, `load_in_4bit`, so the model fits; `max_memory`) or an `offload_folder` so every "
       "weight is materialized."),
    # ---- devices -----------------------------------------------------------------------------------------------
    # MXNet's check when two NDArrays of one op live in different contexts (cpu vs gpu)
    _e("mxnet-context-mismatch", "device", "MXNet arrays of one op in different contexts (CPU and GPU)",
       r"TBlob\.get: device type do not match specified type|\bdevice type do not match specified type\b",
       "An MXNet op got NDArrays from two contexts, one on the CPU and one on the GPU; after a resume the usual one is "
       "the optimizer states (`load_optimizer_states`, `Trainer.load_states`), which are unpickled on the CPU while "
       "the weights are on the GPU, so the Adam update mixes them.",
       "Keep every array in one context: create data and labels with `ctx=mx.gpu()` (or `.as_in_context(ctx)`), and "
       "load optimizer states only after the module is bound on the GPU, or move the states to the weights' context "
       "before the first update."),
    # each process of a multi-GPU job also holding memory on the first GPU
    _e("ddp-first-gpu-memory", "device", "every process of a multi-GPU job also using memory on GPU 0",
       r"\A(?=.*\b(process(es)?|ranks?|DistributedDataParallel|DDP|GPUs? [1-9])\b)"
       r"(?=.*\b(us(e|es|ing)|allocat\w*|occup\w*|tak(e|es|ing)|holds?|consum\w*)\b[^\n]{0,60}"
       r"\b(memory|space|MiB|MB|GB)\b[^\n]{0,20}\bon (GPU ?0|cuda:0|device 0|the first GPU)\b)|"
       # a buffer created with the default 'cuda' in every rank, told with the device it landed on
       r"\A(?=.*\b(ddp|distributed|ranks?)\b)(?=.*\b(default|hard-?coded)\b[^\n]{0,20}[\"'`]cuda[\"'`])"
       r"(?=.*\b(wrong device|cuda:0)\b)",
       unless=r"out of memory|OutOfMemoryError",
       cause="Each process also creates a CUDA context and tensors on cuda:0: `torch.load` without `map_location` "
       "restores a checkpoint saved from rank 0 onto cuda:0 in every process, and anything that touches CUDA before "
       "`torch.cuda.set_device(local_rank)` (a tensor or buffer made with `device='cuda'`, "
       "`torch.cuda.empty_cache()`) lands "
       "on the current device, which is GPU 0 by default.",
       fix="Call `torch.cuda.set_device(local_rank)` first in each process, load checkpoints with "
       "`torch.load(path, map_location=f'cuda:{local_rank}')` (or `'cpu'`), and create tensors with an explicit "
       "`device=`."),
    _e("rnn-hidden-device", "device", "an RNN's initial hidden state on another device than its input",
       r"Input and hidden tensors are not (at|on) the same device|hidden tensors? (is|are) not (at|on) the same device|"
       # told in words beside the generic message: a hidden state not moved with the model
       r"\A(?=.*\bhidden (states?|tensors?)\b[^\n]{0,40}\bnot (passed|moved|put|sent)\b[^\n]{0,20}\bdevice\b)"
       r"(?=.*(Expected all tensors to be on the same device|found at least two devices))",
       cause="An RNN / LSTM / GRU got its initial hidden state (h0, and c0 for an LSTM) on another device than its "
       "input: the state was made in `forward` or an `init_hidden()` with `torch.zeros(num_layers, batch, hidden)` "
       "and no device, so on the CPU, or kept from an earlier batch, while the model and inputs moved to the GPU.",
       fix="Create the state on the input's device and dtype (`torch.zeros(n_layers, batch, hidden, "
       "device=x.device, dtype=x.dtype)`), or pass no state (the module then starts from zeros on the input's "
       "device); move a state you keep with `.to(x.device)`."),
    # non-reentrant checkpoint compares what the recompute made with what forward saved
    _e("checkpoint-recompute-metadata", "device", "a checkpointed recompute that made tensors on another device "
       "or dtype",
       r"saved metadata: \{[^}]*?'dtype': (torch\.\w+)\b[^}]*\}\s*recomputed metadata: \{[^}]*?'dtype': (?!\1[,}])|"
       r"saved metadata: \{[^}]*?'device': (device\([^)]*\))[^}]*\}\s*recomputed metadata: \{[^}]*?'device': "
       r"(?!\2)",
       "Non-reentrant activation checkpointing compares each tensor the recompute (in backward) makes with the one "
       "forward saved, and here its device or dtype differs (a tensor saved on the GPU made on the CPU again): "
       "something in effect in forward was not in the "
       "recompute, such as the default device (`torch.set_default_device`), the autocast state, or a tensor made "
       "inside the function without `device=` / `dtype=`.",
       "Make tensors inside the checkpointed function with an explicit `device=x.device` / `dtype=x.dtype`, keep "
       "autocast around both forward and backward, or upgrade torch (the recompute restores the forward's device "
       "context in later releases)."),
    _e("mps-placeholder", "device", "a CPU tensor given to an op running on Apple MPS",
       r"Placeholder storage has not been allocated on MPS device|\bplaceholder storage errors?\b",
       "An op ran on the MPS device (the model is on `mps`) and one of its tensors is still on the CPU, a device "
       "mismatch: part of the pipeline kept on the CPU by an app option (`--use-cpu` for some modules), inputs from a "
       "tokenizer or processor not moved, a tensor created without `device=`, or a Trainer that did not put the "
       "batches on mps (older transformers need `use_mps_device=True`); some torch releases also raised it for an "
       "op whose MPS storage was not yet allocated (the `index_select` behind an embedding lookup) although "
       "everything was on mps.",
       "When a library moves the tensors (a transformers release that left some off mps), update it to a newer "
       "transformers version. Move every input to the model's device: `inputs = {k: v.to('mps') for k, v in "
       "inputs.items()}` (or "
       "`.to(model.device)`), create new tensors with `device=x.device`, and with an older Trainer pass "
       "`--use_mps_device`; or keep model and inputs on the CPU in float32; for the embedding case, upgrade torch or "
       "run that embedding on the CPU and move its output to mps."),
    _e("collective-cpu-tensor", "device", "a NCCL collective on CPU tensors",
       r"Tensors must be CUDA and dense|No backend type associated with device type cpu|"
       r"\A(?=.*\bcompute_on_cpu\b)(?=.*\b(DDP|ddp|all_gather|distributed)\b)",
       "A distributed collective (all_reduce, broadcast, all_gather) on the NCCL backend got tensors on the CPU: "
       "NCCL moves only GPU tensors, and a CPU tensor (a metric, a metric state kept on the CPU by torchmetrics' "
       "`compute_on_cpu`, a loss `.item()` turned back into a tensor, a model left on the CPU) was passed.",
       "Put the tensor on this rank's GPU before the collective (`t.to(f'cuda:{local_rank}')`), or create the "
       "process group with both backends (`init_process_group('cpu:gloo,cuda:nccl')`) so CPU tensors go through "
       "gloo."),
    _e("ddp-cpu-module", "device", "DistributedDataParallel given GPU ids for a module on the CPU",
       r"device_ids and output_device arguments only work with single-device.{0,200}module parameters "
       r"\{device\(type='cpu'\)\}",
       "`DistributedDataParallel(model, device_ids=[rank])` wrapped a model whose parameters are still on the "
       "CPU; `device_ids` is only for a module already on that GPU.",
       "Move the model first: `model.to(local_rank)` then `DDP(model, device_ids=[local_rank])`; for CPU training "
       "leave `device_ids` out."),
    _e("autocast-without-cuda", "device", "autocast for CUDA on a machine where CUDA is not available",
       r"User provided device_type of .?cuda.?, but CUDA is not available|"
       r"CUDA is not available or torch_xla is imported\. Disabling autocast|"
       r"GradScaler is enabled, but CUDA is not available",
       "`torch.autocast('cuda')` or a CUDA `GradScaler` (or their `torch.cuda.amp` forms) ran where torch sees no "
       "GPU (a CPU-only torch build, `CUDA_VISIBLE_DEVICES` empty, a Mac, or a driver problem), so they are "
       "disabled and the code runs in fp32 on the CPU.",
       "Check `torch.cuda.is_available()` (install a CUDA build of torch if it is False on a GPU machine), or use "
       "the device the tensors are on: `torch.autocast(x.device.type, dtype=torch.bfloat16)` (bf16 on the CPU), "
       "and build the scaler only for CUDA (`GradScaler(enabled=torch.cuda.is_available())`, enabled=False "
       "elsewhere)."),
    _e("thinc-grad-scaling-cpu", "device", "thinc's gradient scaling (mixed precision) on a machine without CUDA",
       r"\bGradient scaling is not supported\b",
       "The pipeline or its training config turns on mixed precision, and thinc's `PyTorchGradScaler` (fp16 "
       "gradient scaling) supports only CUDA: older thinc releases raised as soon as the scaler was built, "
       "so a spaCy transformer pipeline trained with mixed precision could not even be loaded on a CPU-only "
       "machine.",
       "Upgrade thinc (and spacy-transformers), which checks only when it really scales on the GPU; or set "
       "`mixed_precision = false` in the `[components.transformer.model]` config to run on the CPU."),
    _e("generate-input-device", "device", "generate() inputs on another device than the model",
       r"calling \.generate\(\) with the `?input_ids`? being on a device type different than your model",
       "The prompt tensors (`input_ids`, `attention_mask`) were left on the CPU (the tokenizer's output) while the "
       "model is on the GPU, so generation moves or fails on them and may produce wrong results.",
       "Move the tokenizer output to the model's device before generating: `inputs = tokenizer(..., "
       "return_tensors='pt').to(model.device)`, then `model.generate(**inputs)`."),
    _e("device-index-spelling", "device-spelling", "the same device spelled with and without an index",
       r"expected device (?P<a>cpu|cuda|mps|xpu):\d+ but got (?P=a)\b(?!:)|"
       r"expected device (?P<b>cpu|cuda|mps|xpu) but got (?P=b):\d+",
       "Both sides are on the same device, spelled once with an index and once without (cpu:0 and cpu, cuda:0 "
       "and cuda): a tensor was created with an indexed device (`device='cpu:0'`, `torch.device('cuda', 0)`) "
       "while the others use the plain name, and this (older) torch compares the two spellings as different "
       "devices in autograd's gradient check.",
       "Spell the device one way: create tensors with `device=x.device` of the tensors they meet, or use "
       "`'cpu'` rather than `'cpu:0'` (and one form of `'cuda'` / `'cuda:0'`) everywhere; newer torch treats "
       "cpu and cpu:0 as the same device."),
    _e("dataparallel-device-ids", "device", "DataParallel / DDP wrapped for another GPU than the model's",
       r"module must have its parameters and buffers on device cuda:?\d* ?\(device_ids\[0\]\) ?but found one of them "
       r"on device ?:? ?cuda:\d+",
       "`nn.DataParallel` (or DDP) keeps the module on `device_ids[0]`, which defaults to the first visible GPU, but "
       "the model was moved to another GPU: each process of a torchrun / distributed launch put its model on "
       "`cuda:local_rank` and wrapped it without `device_ids`, or DataParallel was given GPUs not starting with the "
       "model's.",
       "Per process, pin the GPU before building the model and name it: `torch.cuda.set_device(local_rank)`, "
       "`model.to(local_rank)`, `DDP(model, device_ids=[local_rank], output_device=local_rank)` (not DataParallel "
       "under torchrun); with DataParallel in one process, move the model to `device_ids[0]` "
       "(`model.to('cuda:0')`)."),
    # a global default device of cuda puts the DataLoader's shuffling on the GPU
    _e("default-device-sampler", "device", "set_default_device('cuda') moving a sampler's permutation to the GPU",
       r"\A(?=.*set_default_device\(\s*.cuda)(?=.*(can'?t convert cuda|Expected a 'cuda' device type for generator|"
       r"\brandperm\b|\bshuffle\s*=\s*True\b|\bsampler\b))",
       "`torch.set_default_device('cuda')` makes every factory call without a device run on the GPU, the DataLoader's "
       "shuffling too: `RandomSampler` builds its `torch.randperm` permutation there (with a CPU generator, or none), "
       "then converts it to a Python list / NumPy, which a CUDA tensor refuses.",
       "Do not set the global default device to cuda for data loading: move the model and each batch with "
       "`.to(device)`; or give the DataLoader a generator on the same device (`generator=torch.Generator("
       "device='cuda')`)."),
    # tensors in a dataset on MPS / CUDA shared with spawned DataLoader workers
    _e("worker-share-gpu-tensor", "device", "a dataset holding GPU / MPS tensors shared with DataLoader workers",
       r"_share_filename_: only available on CPU",
       "DataLoader workers started with the spawn method (the default on macOS and Windows) receive the dataset by "
       "pickling it through shared memory, which exists only for CPU storage; the dataset holds tensors on MPS (or "
       "CUDA).",
       "Keep the dataset's tensors on the CPU and move each batch to the device in the loop, or use `num_workers=0`; "
       "on a Mac `multiprocessing_context='fork'` also avoids it."),
    # an asynchronous device-to-host copy read before it finished
    _e("nonblocking-d2h-read-early", "device", "a non-blocking GPU-to-CPU copy read before it finished",
       r"\A(?=.*(\.cpu\(\)|\bto\(\s*.cpu|non_blocking))(?=.*\b(chunks of zeros|zeros)\b)"
       r"(?=.*\b(non-reproducible|not reproducible|randomly|sometimes|intermittent\w*|non-deterministic)\b)",
       unless=EXCEPTION_NAMED,
       cause="A GPU-to-CPU copy made with `non_blocking=True` returns before the data has arrived, and the CPU tensor "
       "was read before the asynchronous copy finished, so parts of it are still zeros, differently each run.",
       fix="Copy device-to-host with `non_blocking=False` (the default), or call `torch.cuda.synchronize()` (or "
       "record and wait on an event) before reading the CPU tensor."),
    _e("randperm-default-cuda", "device", "randperm run on CUDA through a global CUDA default tensor type",
       r"randperm is only implemented for CPU",
       "The default tensor type (or device) was set to CUDA globally (`torch.set_default_tensor_type("
       "'torch.cuda.FloatTensor')`), so `randperm`, which the DataLoader's RandomSampler calls, ran on CUDA, where "
       "this PyTorch release had no implementation: it was only implemented for CPU.",
       "Do not set a global CUDA default tensor type: remove the call (avoid it) and create tensors on the data's "
       "device (`x.new_zeros(...)`, `device=x.device`), or pass `generator=torch.Generator(device='cpu')` to the "
       "DataLoader; newer PyTorch has a CUDA randperm."),
    _e("generator-mps-unsupported", "device-capability", "torch.Generator on MPS in a torch that lacks it",
       r"Device type MPS is not supported for torch\.Generator\(\) api",
       "`torch.Generator(device='mps')` (a generator built on the auto-selected device) is not supported by this "
       "torch release: its Generator API takes cpu and cuda only.",
       "Use a CPU generator (`torch.Generator(device='cpu')`, and sample on the CPU then `.to('mps')`), or fall back "
       "to cpu for that step; newer torch releases support MPS generators."),
    _e("generator-device", "device", "a random generator on the wrong device",
       r"Expected a '\w+' device type for generator but found '\w+'|Expected a '[\w:]+' generator device but found|"
       r"Cannot generate a \w+ tensor from a generator of type \w+|"
       r"Expected a '\w*CUDAGenerator\w*' but found '\w*Generator\w*'",
       "A `torch.Generator` on one device was passed to an op running on another: DataLoader / RandomSampler "
       "draw `randperm` on the CPU, so a cuda generator (or `torch.set_default_device('cuda')`) breaks them, "
       "and a CPU generator cannot drive `torch.randn(..., device='cuda')`.",
       "Create the generator on the device of the op it drives: `torch.Generator(device='cpu')` for "
       "DataLoader / samplers (`DataLoader(..., generator=torch.Generator(device='cpu'))`), "
       "`torch.Generator(device='cuda')` for GPU sampling; do not set cuda as the default device for data "
       "loading."),
    _e("lengths-on-cpu", "device", "pack_padded_sequence lengths must be a CPU int64 tensor",
       r"'lengths' argument should be a 1D CPU int64 tensor",
       "`pack_padded_sequence` (RNNs, CTC-style batches) takes its `lengths` as a 1-D int64 tensor on the CPU, "
       "and they were given on the GPU (moved with the batch) or in another dtype.",
       "Pass `lengths.cpu()` (and `.long()`, or a Python list) to `pack_padded_sequence`, even when the padded "
       "input is on the GPU; keep lengths out of the `batch.to(device)` move."),
    _e("numpy-device", "device", "`.numpy()` of a GPU tensor",
       r"(can'?t|cannot) convert \S+ device type tensor to numpy|(can'?t|cannot) convert (CUDA|MPS|XPU) tensor to "
       r"numpy|Tensor is stored in GPU and cannot be converted to NumPy",
       "NumPy can only read host memory, and the tensor (often one of several, such as the labels `y`, left on the "
       "GPU when the others were moved) lives on a GPU (or MPS) device, so `.numpy()` / "
       "`np.asarray` / a NumPy function on it fails (Triton's Python backend: `as_numpy()` of an output that a GPU "
       "model left in GPU memory).",
       "Copy it to the CPU first: `t.detach().cpu().numpy()` (and `.float()` before for bf16); in Triton's Python "
       "backend take it through DLPack (`torch.utils.dlpack.from_dlpack(t.to_dlpack())`, then `.cpu()`), or ask "
       "for CPU outputs."),
    _e("hardcoded-cpu-tensors", "device", "tensors created on the CPU in code that runs on the GPU",
       r"\btensors?\b[^.\n]{0,40}\b(created|specified|hard-?coded|allocated|made|initiali[sz]ed)\b[^.\n]{0,20}\bon "
       r"(the )?cpu\b[^.\n]{0,60}\b(cuda|gpu)\b",
       "Code creates these tensors with `device='cpu'` (or without a device, which means the CPU) while the run's "
       "device is CUDA, so they meet the model's and the inputs' GPU tensors.",
       "Create them on the configured device (`torch.zeros(..., device=self.device)`, `device=obs.device`), or "
       "move them with `.to(device)` before use."),
    _e("deserialize-cuda", "device", "a CUDA checkpoint loaded where CUDA is not available",
       r"Attempting to ?deserialize object on (a )?CUDA device|"
       r"If you are running on a CPU-only machine, please use torch\.load with map_location|"
       r"\A(?=.*\b(on|to) (the )?CPU\b).*serialization\.py\W{1,3}, line \d+, in (persistent_load|load_tensor|"
       r"restore_location|validate_cuda_device|_cuda_deserialize)\b|"
       r"\A(?=.*\b(cuda )?map[_ ]location (error|issue|problem|exception)s?\b)(?=.*\bcpu\b)|"
       r"\A(?=.*\bdeserializ\w* (error|fail\w*|problem|issue)s?\b)(?=.*\b(CUDA|GPU)\b)"
       r"(?=.*(\bnon-(CUDA|GPU)|\bCPU[- ]only\b|\blaptop\b|\bwithout (a )?(GPU|CUDA)\b|\bno (GPU|CUDA)\b))|"
       r"\A(?=.*\b(checkpoint|ckpt|state_dict)\b)(?=.*\b(loaded|loading) (in)?to (the )?(device )?(cuda|gpu)\b)"
       r"(?=.*(\bCPU[- ]only\b|\bno (GPU|CUDA)( access)?\b|\bwithout (a )?(GPU|CUDA)( access)?\b))|"
       # told in words: trained on a GPU, loaded again where no GPU is
       r"\A(?=.*\b(trained|saved) (with|on) (a |the )?(GPU|CUDA)\b)(?=.*\b(re)?load\w*\b)"
       r"(?=.*\b((GPU|CUDA) (isn'?t|is not|not) available|CPU[- ]only|no (GPU|CUDA)\b|"
       r"without (a )?(GPU|CUDA)\b))",
       "The checkpoint was saved from CUDA tensors, and this torch cannot see that GPU (CPU-only wheel, no "
       "driver, or fewer GPUs visible than when saved: another machine, or `CUDA_VISIBLE_DEVICES` hiding some).",
       "Load with `torch.load(path, map_location='cpu')` (or `map_location='cuda:0'`), or install a CUDA build "
       "of torch if the GPU should be visible."),
    # a checkpoint saved from Apple MPS tensors read where torch has no MPS (Linux, Windows)
    # loading straight onto Apple's MPS device: refused by TorchScript's loader, zeros from torch.load in some builds
    _e("mps-direct-load", "device", "a checkpoint deserialized straight onto the MPS device",
       r"\bsupported devices include\b[^\n]{0,60}\bhowever got MPS\b|"
       r"\A(?=.*(\bmap_location\s*=\s*[\"']mps\b|load_on_device\([^)\n]*\bMps\b))"
       r"(?=.*(\bzeros?\b|\b0\.,\s*0\.|\bwrong\b|\bgarbage\b|\bnan\b|\bcorrupt\w*))",
       "The checkpoint is deserialized straight onto Apple's MPS device: TorchScript's loader (libtorch, tch-rs) "
       "does not support MPS as a load target, and `torch.load(..., map_location='mps')` of larger checkpoints gives "
       "tensors filled with zeros in some torch releases.",
       "Load on the CPU first (`torch.load(path, map_location='cpu')`, `load_on_device(path, Device::Cpu)`), then "
       "move the loaded model to MPS (`model.to('mps')`, `vs.set_device(Device::Mps)`)."),
    _e("deserialize-mps", "device", "an MPS checkpoint loaded where there is no MPS",
       r"Storage device not recognized: mps|don'?t know how to restore data location of \S+ \(tagged with mps\)",
       "The checkpoint was saved from tensors on Apple's MPS device, so its storages are tagged `mps`, and this "
       "machine's torch has no MPS (Linux, Windows, or a Mac without it), so `torch.load` cannot place them.",
       "Load with `torch.load(path, map_location='cpu')` (then move it where it should run), or save it from the "
       "Mac after `model.cpu()` / `{k: v.cpu() for k, v in sd.items()}`."),
    _e("deserialize-no-gpu", "device", "a CUDA-saved checkpoint or TorchScript archive loaded with no GPU",
       r"No CUDA GPUs are available",
       context=r"serialization\.py|torch\.jit\.load|jit\.load\(|import_ir_module|torch\.load\(",
       cause="A checkpoint or TorchScript archive saved from CUDA tensors is loaded where torch sees no GPU, and the "
       "load restores its tensors to CUDA: `torch.load` without `map_location`, or a TorchScript module loaded by "
       "`torch.jit.load` (also one a library nests inside a pickled object) without it.",
       fix="Pass `map_location='cpu'` to `torch.load` and to `torch.jit.load` (a library that loads a nested "
       "TorchScript module itself must pass it down, or move the module to the CPU before saving), or make the GPU "
       "visible."),
    _e("legacy-constructor-device", "device", "a legacy CPU tensor constructor given a GPU tensor",
       r"expected TensorOptions\(dtype=\w+, device=cpu\b[^\n]{0,200}\(got TensorOptions\(dtype=\w+, "
       r"device=(cuda|mps|xpu)",
       "A legacy type constructor (`torch.FloatTensor(x)`, `torch.LongTensor(x)`) makes CPU tensors only, and "
       "the data given to it is already a tensor on the GPU (cuda, mps): it cannot wrap it.",
       "Convert without the legacy constructor: `torch.as_tensor(x, dtype=torch.float32)` (keeps the device), "
       "`x.float()`, or `torch.tensor(data, dtype=..., device=...)` for NumPy / list data."),
    _e("type-device-mismatch", "device", "a GPU tensor and a CPU tensor of the same kind",
       rf"{GPU_TYPE}[^\n]{{0,120}}(\n\s*[^\n]{{0,40}})?{CPU_TYPE}|{CPU_TYPE}[^\n]{{0,120}}(\n\s*[^\n]{{0,40}})?{GPU_TYPE}",
       "This is a device mismatch, not a dtype one: the type names carry the device (`torch.cuda.HalfTensor` "
       "is on the GPU, `torch.HalfTensor` on the cpu, `MPSFloatType` on MPS, `PrivateUse1FloatType` on "
       "torch-directml's `privateuseone`), and one side, usually the weights "
       "of a module left on the CPU, offloaded, or created after `model.to(device)`, or a tensor kept as a plain "
       "attribute (`self.priors = torch.tensor(...)`, which `.to()` does not move) or submodules kept in a plain "
       "Python list or dict (not registered, so not moved), is on the cpu while the other is on cuda (or mps, or "
       "DirectML).",
       "Move the module and its input to one device: `model.to('cuda')` (after adding every submodule), "
       "`x = x.to(next(model.parameters()).device)`; keep a module's own tensors as `self.register_buffer(...)` and "
       "its submodules in `nn.ModuleList` / `nn.ModuleDict` so that `.to()` moves them; with offloading, let the "
       "pipeline place the module."),
    _e("model-left-on-cpu", "device", "a model that runs on the CPU with a GPU available",
       r"\b(always|only) (use|uses|using|runs?|running) (on )?(the )?cpu,? (and )?not (the )?gpu|"
       r"\b(runs?|running|workload (is )?(always )?on) (on )?(the )?cpu instead of (the )?gpu|"
       r"\bgpu (is )?not (being )?used\b|\bnot (using|use|uses) (the )?gpu\b",
       context=r"(Is CUDA available|cuda\.is_available\(\)|CUDA available)[^\n]{0,20}\b(Yes|True)\b",
       cause="The model (or a library's predictor or pipeline) stays on the CPU although torch sees the GPU: "
       "libraries create models on the CPU and move them only when told (`.to('cuda')`, a `device=` argument), so "
       "nothing fails and everything runs slowly on the CPU.",
       fix="Move it and its inputs explicitly (`model.to('cuda')`, `predictor.cuda()`, `device='cuda:0'` where the "
       "library takes one) and check with `next(model.parameters()).device`."),
    _e("numpy-dtype-torch-lacks", "numpy", "a NumPy array of a dtype torch cannot take",
       r"can'?t convert np\.ndarray of type numpy\W?(u(ni|in)t(16|32|64)|float16|bool_?\b|int32\b)|"
       r"does not support creating (FP16|float16|half) (arrays|tensors) from numpy|"
       r"\b(numpy|np)\b[^.\n]{0,20}\b(arrays?|images?|volumes?|data)\b[^.\n]{0,10}\b(of )?(dtype|type) "
       r"u(int)?(16|32|64)\b[^.\n]{0,20}\b(gives|raises|throws|fails?|errors?|not supported)\b",
       cause="torch takes NumPy arrays of its own dtypes only, and this one is unsigned 16, 32 or 64-bit (16-bit "
       "PNG or TIFF images, depth maps, audio or label maps read by PIL, OpenCV or imageio), which torch before 2.3 "
       "(uint16, uint32, uint64) has no dtype for and later releases support only in a few ops, or float16, which "
       "torch before 0.4 could not convert, or bool, which torch before 1.2 could not convert, or an int32 array of "
       "NumPy's C `long` type (indices from SciPy on Windows), which older torch refuses though it lists int32.",
       fix="Convert where the data is read: `a.astype(np.int64)` for labels and indices, `a.astype(np.float32)` "
       "(scaled, e.g. `/ 65535`) for images and audio, `a.astype(np.uint8)` for a bool mask; for float16 upgrade "
       "torch, or convert to float32 and `.half()` on the GPU."),
    _e("numpy-torch-dtype", "numpy", "a torch dtype given to NumPy",
       r"Cannot interpret '?(torch\.\w+|dtype\(\w+\))'? as a data type",
       "A torch dtype (`torch.float32`) was passed where NumPy expects its own dtype (`np.float32`), as in "
       "`np.zeros(n, dtype=t.dtype)` or `np.asarray(x, dtype=torch.float16)`.",
       "Give NumPy its own dtype (`np.float32`), or convert from the tensor: `t.cpu().numpy()` (a bf16 tensor "
       "needs `t.float()` first), or `torch.empty(..., dtype=...).numpy()`."),
    # an object array is most often ragged or holds strings (a data fault); from a DataFrame, its mixed column dtypes
    _e("dataframe-object-array", "numpy", "a DataFrame with columns of several dtypes became an object array",
       r"\A(?=.*np\.ndarray of type numpy\.object_?)(?=.*(\bdf\w*\[|\bDataFrame\b|\bpandas\b|\bpd\.|"
       r"\.values\b(?!\()|\.to_numpy\(\)|\.iloc\b))",
       "`.values` / `.to_numpy()` of a DataFrame whose columns hold different dtypes (bool or category dummy "
       "columns beside numbers, a column read as strings) gives a NumPy array of dtype object, which torch cannot "
       "turn into a tensor whatever `dtype=` the call asks for.",
       "Give the columns one numeric dtype first: `df[cols].astype('float32').to_numpy()` or "
       "`df[cols].to_numpy(dtype=np.float32)` (dummies as numbers: `pd.get_dummies(..., dtype=float)`); "
       "`pd.to_numeric(df[c], errors='coerce')` finds a column of strings."),
    _e("numpy-inplace-cast", "numpy", "an in-place NumPy op whose float result an integer array cannot hold",
       r"Cannot cast ufunc '?\w+'? output from dtype\('?(float|complex|u?int)\d*'?\) to dtype\('?(u?int\d*|bool)'?\) "
       r"with casting rule '?same_kind",
       "An in-place NumPy op on an integer array (`img /= 255`, `a *= 0.5`, `np.add(a, b, out=a)` on uint8 image "
       "data) produced values of a wider type (float64, or int32 added into uint8) that the array cannot hold, and "
       "NumPy's same_kind rule refuses to write them into it in place.",
       "Convert the array to float first (`img = img.astype(np.float32) / 255`), write the result to a new array "
       "(`img = img / 255`) instead of in place, or cast the other operand to the array's dtype "
       "(`a += b.astype(a.dtype)`) when the values fit."),
    _e("numpy-bf16", "numpy", "NumPy has no bfloat16",
       r"(Got )?unsupported ScalarType BFloat16|can'?t convert.{0,40}bfloat16|bfloat16.{0,40}numpy|"
       r"\bnumpy\b.{0,20}\b(do(es)?n'?t|do(es)? not|cannot|can'?t) (support|handle|have)\b.{0,10}\bbfloat16\b|"
       r"data type .?bfloat16.? not understood|\bnot understood( yet)?:? .?bfloat16\b|"
       r"np\.ndarray of type numpy\.void|Item size 2 for PEP 3118 buffer format string \w+ does not match the dtype|"
       r"\A(?=.*\bml_dtypes\b)(?=.*\bbfloat16\b)(?=.*\bcomplex(64|128)?\b)|"
       # a bf16 tensor written by `datasets.map` through Arrow, the traceback ending in pyarrow
       r"\A(?=.*\b(bf16|bfloat16)\b)(?=.*\b(pyarrow|pa\.array|arrow_writer)\b)",
       "`.numpy()` (or `np.asarray`) of a bf16 tensor: NumPy has no bfloat16 dtype, and bf16 data held in NumPy "
       "(read from a checkpoint as raw bytes) shows up as `numpy.void`, which torch cannot convert back; "
       "`ml_dtypes`' bfloat16 is an extension dtype that a library which does not know it refuses or reads as "
       "another type (void, complex).",
       "Convert first: `t.float().numpy()` (or `t.to(torch.float32).cpu().numpy()`); a `datasets.map` function "
       "returns float32 (`.float()`) tensors, since Arrow stores through NumPy and has no bfloat16 either.",
       unless=r"\A(?!.*(Error\b|Exception|unsupported|can'?t|cannot|not (supported|understood)|void|fail|"
       r"interpreted as|"
       r"do(es)?n'?t support|do(es)? not support))"),
    _e("variable-type-conv", "device", "a conv input and weight of different types (torch 0.3 prints both as Variable)",
       r"Input type \(Variable\) and weight type \(Variable\) should be the same",
       "PyTorch 0.3 named both sides 'Variable', so the message hides what differs: the input and the layer's "
       "weights are of different tensor types, most often one on the GPU (`.cuda()`) and the other on the CPU, "
       "less often float64 against float32.",
       "Put the model and its input on the same device (`model.cuda()` as well as `x.cuda()`, or `.to(device)` "
       "for both on torch 0.4 and later) and in the same dtype (`x.float()`); newer torch names both types."),
    _e("cpu-scalars-cuda-kernel", "device", "a CUDA kernel given CPU tensors beside its CUDA ones",
       r"Trying to pass too many CPU scalars to CUDA kernel",
       "A CUDA op takes at most one 0-dim CPU tensor as a scalar, and got several CPU tensors beside its CUDA ones: "
       "state kept on the CPU (a metric's counters in a plain dict or list, which `model.to()` and Lightning do not "
       "move, a tensor made without `device=`) met CUDA predictions.",
       "Keep that state on the inputs' device: register metrics as child modules (`nn.ModuleDict`, an attribute "
       "of the LightningModule) or buffers so `.to()` moves them, or create the tensors with `device=preds.device`."),
    _e("device-printouts-differ", "device", "two tensors printed on different GPUs",
       r"device\(type='cuda', index=(?P<ga>\d+)\).{0,400}?device\(type='cuda', index=(?!(?P=ga)\b)\d+\)",
       "The text prints two tensors' devices, and they are different GPUs: with the model split over GPUs "
       "(`device_map='auto'`) a tensor made once for the whole model (a cache, a mask, a position table) sits on "
       "the first GPU while a layer runs on another.",
       "Move that tensor to the device of the layer that uses it (`x.to(hidden_states.device)`), allocate per-layer "
       "state on each layer's device, or keep the model on one GPU; upgrade the library whose cache ignores the "
       "split.", unless=r"Expected all tensors to be on the same device"),
    # a loader told which device to use that places the weights by its own saved config instead, reported in words
    _e("device-argument-ignored", "device", "a loader that ignores the device it was given",
       r"\A(?=.*(\b(device|device_map)`?\s*(argument|parameter|param|arg|kwarg|option)?`?\s+(is|are|gets?|being|was|"
       r"were)\s+(silently\s+)?(ignored|not (respected|honou?red|applied|used))\b|"
       r"\b(should|does not|doesn'?t|do not|don'?t|not|never) (respect|honou?r)s? (the )?(passed[- ]in )?`?(device|"
       r"device_map)`?\b|\bignor(es|ing) (the )?(passed[- ]in )?`?(device|device_map)`? (argument|parameter|param|"
       r"kwarg|option)\b))(?=.*\b(load\w*|from_pretrained|checkpoint|init\w*|creat\w*)\b)",
       "The loader did not place the weights on the device it was given: it took the device stored with the "
       "checkpoint (a saved config such as `cfg.json`, the device the tensors were saved from) or its default, "
       "the CPU, for all or some of them (biases and buffers most often), so they meet inputs on the GPU (`cuda`) "
       "that was asked for.",
       "Move the loaded model to the device yourself (`model.to(device)`) and check "
       "`{p.device for p in model.parameters()}`, correct the device in the saved config, or upgrade the library "
       "(loaders that ignored the device argument were fixed to respect it)."),
    # meta init, then to_empty(): memory without values for what init_weights does not cover
    _e("to-empty-uninitialized", "device", "parameters left uninitialized after a meta init and to_empty()",
       r"\A(?=.*\bto_empty\b)(?=.*\b(not (be(ing)? )?initiali[sz]ed|uninitiali[sz]ed|garbage|nan)\b)",
       cause="A model built on the meta device and materialized with `to_empty()` gets uninitialized memory: every "
       "parameter and buffer whose value was set only in `__init__` (not in `reset_parameters` or the model's "
       "`init_weights`) holds garbage, zeros or NaN, and the loss goes NaN.",
       fix="After `to_empty()` initialize every parameter and buffer (an `init_weights()` that covers all of them, "
       "`module.reset_parameters()`), or load a checkpoint into them; check each parameter with "
       "`torch.isfinite(p).all()` before training."),
    # an init that builds CPU tensors, run after the model was moved
    _e("init-after-to-device", "device", "weights initialized after the move, from tensors made on the CPU",
       r"\A(?=.*" + DEVICE_CLASH + r")(?=.*\b(init_weights|initiali[sz]\w* (the )?weights|initiali[sz]ing weights|"
       r"reset_parameters)\b)",
       cause="The weights were (re)initialized after the model was moved to the GPU: an `init_weights()` / "
       "`reset_parameters()` that builds tensors without `device=` (`torch.arange`, `torch.tensor(...)`) and "
       "assigns them to a parameter (`.data = ...`, a new `nn.Parameter`) puts them on the CPU.",
       fix="Create init tensors on the parameter's device (`device=p.device`) and copy in place "
       "(`with torch.no_grad(): p.copy_(t)`), or call the initialization before `model.to(device)`."),
    # a summary / FLOP tool's own dummy input
    _e("summary-tool-dummy-input", "device", "a model-summary or FLOP tool built its dummy input elsewhere",
       r"\A(?=.*\b(get_model_complexity_info|torchsummary|torchinfo|torchstat|thop|ptflops|fvcore|get_flops|"
       r"summary\()\b)(?=.*\b(creat\w*|buil\w*|mak\w*)\b[^\n]{0,40}\b(random |dummy )?(tensor|input)s?\b[^\n]{0,20}"
       r"\bon\b\W{0,3}(cpu|cuda)\b)",
       cause="A summary or FLOP-counting tool builds its own dummy input (torchsummary on 'cuda' by default, "
       "mmengine's `get_model_complexity_info` and torchstat on the CPU), so it lands on another device (or dtype) "
       "than the model's weights.",
       fix="Give the tool the model's device and dtype (`summary(model, input_size, device='cpu')`, torchinfo's "
       "`device=` / `dtypes=`), pass an input you made on the model's device (`next(model.parameters()).device`), "
       "or move the model to the tool's device first."),
    # accelerate's offload hooks run with a module's forward: code that bypasses forward bypasses them
    _e("offload-hook-bypassed", "device", "accelerate's offload / device hooks bypassed",
       r"\b(offloaded )?weights? (would |will )?stay on (the )?meta\b|"
       r"\A(?=.*AlignDevicesHooks?)(?=.*(same device|two devices|different devices))|"
       r"\A(?=.*enable_(model|sequential)_cpu_offload\(\s*device\s*=)(?=.*\b(fail\w*|error)\b)",
       cause="accelerate's hooks (`AlignDevicesHook`, the CPU-offload hooks of `device_map` and "
       "`enable_model_cpu_offload`) load a module's weights and move its inputs only when its forward runs: code "
       "that uses the weight directly (`F.conv1d(x, self.conv.weight)`, a kernel given `module.weight`) or calls "
       "another method (`vae.encode`, `decode`) without the hook's pre_forward bypasses them, so the weight stays on "
       "meta (silently wrong results or a failure) or the input stays on another device; hooks re-created without "
       "the offload device fall back to cuda.",
       fix="Call the module's forward instead of using its weight, or onload first (`module._hf_hook.pre_forward("
       "module, *args, **kwargs)`, which also moves the inputs to the execution device), pass `device=` again when "
       "the offload hooks are re-created, or move the inputs to the module's device with `.to()`; upgrade the "
       "library that patches such models, or load without offloading."),
    # bitsandbytes' quant_state placed on the current device
    _e("bnb-quant-state-device", "device", "a bitsandbytes quant_state on another GPU than its weight",
       r"\A(?=.*\bquant_state\b)(?=.*(\bcurrent_device\(\)|\bcuda:0\b))(?=.*\b(device|GPU)\b)",
       cause="bitsandbytes' 4-bit weights carry a quant_state (absmax, code) that older releases did not move with "
       "`Params4bit.to()`, and loaders that place it with `torch.cuda.current_device()` (cuda:0 by default) leave "
       "it on the first GPU while the layer runs on another.",
       fix="Load the quantized model directly on its target device (`device_map={'': 'cuda:1'}`) or call "
       "`torch.cuda.set_device(...)` before loading, and upgrade bitsandbytes (the whole quant state moves with the "
       "weight) and the loading library."),
    # rotary tables or position ids left on the CPU beside a query on the GPU
    _e("rope-cache-device", "device", "rotary tables or position ids on the CPU beside a query on the GPU",
       r"\A(?=.*\b(rope|rotary|cos and sin|cos/sin|inv_freq|position_ids\w*|cached_freqs|freqs)\b)"
       r"(?=.*(\bsame device\b|\bdifferent devices?\b|\bdevice mismatch\b))"
       r"(?=.*(\b(on|to) (the )?CPU\b|\bis on cpu\b))",
       cause="The rotary tables (cos / sin, `inv_freq`, a cached freqs tensor) or the `position_ids` stayed on the "
       "CPU while the query and key are on the GPU: a cache built once on the CPU (or before `model.to(device)`, or "
       "held as a plain attribute that `.to()` does not move), or position ids passed from the CPU.",
       fix="Move them to the query's device in forward (`cos.to(q.device)`, `position_ids.to(x.device)`), register "
       "the cache as a non-persistent buffer so `.to()` moves it, rebuild it when the device changes, or pass "
       "position_ids on the model's device; upgrade the library whose model code leaves them behind."),
    # a module's state that .to() / .cuda() does not see, told in words or shown in the code
    _e("unregistered-module-state", "device", "a submodule or tensor not registered with its module, so not moved",
       r"\A(?=.*(\b(sub-?modules?|layers?|modules?)\b[^\n]{0,60}\b(in|inside|"
       r"defined in|stored in|kept in|held in) (an? |plain |python )*(lists?|dicts?)\b[^\n]{0,80}\b(not|aren'?t|"
       r"isn'?t|never)\b[^\n]{0,30}\b(auto-?registered|registered|moved|on (the )?(gpu|cuda))\b|"
       r"\b(buffer|parameter)s? (is|are|was|were|gets?) moved\b[^\n]{0,20}\bbut\b[^\n]{0,20}\b(the )?"
       r"(property|attribute)|"
       r"=\s*(nn\.)?Parameter\((?:[^()\n]|\((?:[^()\n]|\([^()\n]*\))*\))*\)\.(?:to\([^)\n]*\)|cuda\(\))))",
       unless=EXCEPTION_NAMED + r"|non-leaf",
       cause="`model.to()` / `.cuda()` / `.half()` move and cast only what is registered with the module: "
       "parameters, buffers and submodules. Submodules kept in a plain Python list or dict are not registered, a "
       "tensor assigned as a plain attribute is not (and one assigned under a buffer's name shadows the buffer), and "
       "`nn.Parameter(...).to('cuda')` returns a plain tensor that is not a parameter, so it is missing from "
       "`model.parameters()`: those stay where they were made, not moved.",
       fix="Register them: submodules in `nn.ModuleList` / `nn.ModuleDict`, tensors with "
       "`self.register_buffer('name', t)` (and no plain attribute of the same name), parameters created on the "
       "device (`nn.Parameter(torch.randn(1, device=device))`) or on the CPU and moved with `model.to(device)`."),
    _e("inputs-left-on-cpu", "device", "a model on the GPU given inputs left on the CPU",
       r"\A(?=.*\binputs?\b[^\n]{0,30}\b(are|is|were|was|aren'?t|isn'?t)?\s*"
       r"(not|never) (being )?(converted|moved|sent|transferred|put)\b[^\n]{0,20}\b(to|on(to)?) (the )?"
       r"(cuda|gpu)\b)",
       unless=EXCEPTION_NAMED,
       cause="The model is on the GPU but its inputs stay on the CPU: tokenizers, processors and DataLoaders return "
       "CPU tensors, and nothing moves them unless the code does.",
       fix="Move the inputs to the model's device before the call: `inputs = inputs.to(model.device)` (a "
       "`BatchEncoding` moves all its tensors), or `batch = {k: v.to(device) for k, v in batch.items()}`."),
    # DataParallel replicates the module, but a forward assigned on the instance stays bound to the original
    _e("dataparallel-bound-forward", "device", "a forward assigned on the instance, bound to the original module",
       r"\A(?=.*\b\w+\.forward\s*=\s*)(?=.*\bDataParallel\b)(?=.*(same device|two devices))",
       cause="`model.forward = ...` stores a method bound to the original module as an instance attribute; "
       "DataParallel's replicas copy that attribute, so every replica calls the original module's weights (on "
       "cuda:0) with its own input chunk (on cuda:1, ...): an overridden forward bound to the original module.",
       fix="Do not patch `forward` on the instance of a module DataParallel wraps: subclass it, wrap it in another "
       "module, or re-bind the patch to each replica (`types.MethodType(fn, replica)`); or use "
       "DistributedDataParallel, one process per GPU."),
    _e("output-device-lost", "device", "a function's result on the CPU while its inputs are on the GPU",
       r"\A(?=.*\b(input|inputs|source|given)\b[^\n]{0,25}\bdevice\b\W{0,5}(cuda|gpu|mps|xpu)(:\d+)?\b)"
       r"(?=.*\b(output|outputs|result|results|returned?)\b[^\n]{0,25}\bdevice\b\W{0,5}cpu\b)",
       "A function returned its result on the CPU though its inputs are on the GPU: it builds the output (a new "
       "tensor, or an object such as a camera or a mesh) without `device=` taken from the inputs, so the output "
       "lands on the default device, the CPU.",
       "Pass the device explicitly (the constructor's `device=` argument, `device=x.device`) or move the result "
       "with `.to(device)`; the library's fix is to create the output on its inputs' device: upgrade it."),
    _e("cpu-adam-gpu-params", "device", "DeepSpeed's CPU Adam given parameters on the GPU",
       r"\A(?=.*(DeepSpeedCPUAdam|Adam Optimizer #\d+ is created with AVX))(?=.*(Segmentation fault|SIGSEGV|"
       r"core dumped|illegal memory))",
       cause="DeepSpeedCPUAdam updates parameters with a CPU kernel (AVX), so it needs them and their gradients in CPU "
       "memory; used standalone on a model whose parameters are on the GPU, it reads GPU pointers as CPU memory and "
       "crashes (newer DeepSpeed asserts this instead).",
       fix="Use it only through ZeRO-Offload (`offload_optimizer: {device: cpu}`), which keeps an fp32 copy of the "
       "parameters on the CPU, or use `torch.optim.AdamW` / DeepSpeed's FusedAdam for parameters on the GPU."),
)
