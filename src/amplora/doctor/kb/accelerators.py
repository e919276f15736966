"""Apple MPS and Intel XPU: dtypes these GPUs lack (float64, float8, bf16 on older macOS, int64 ops), and autocast asked
for a dtype its device does not support."""
from __future__ import annotations

from amplora.doctor.kb.entry import make as _e
from amplora.doctor.kb.patterns import EXCEPTION_NAMED

# autocast on any device: the warning names the device and the dtypes it supports
AUTOCAST = (
    # autocast's state is per thread; DataParallel runs each replica in a thread of its own
    _e("autocast-dataparallel-threads", "autocast", "autocast opened around a DataParallel model, not in its threads",
       r"\A(?=.*\b(autocast|AMP|mixed precision)\b)(?=.*\bDataParallel\b)"
       r"(?=.*(\b(float32|fp32)\b|\b(not|n'?t) (simply )?(work|applied|active|enabled)\b|\bthreads?\b))|"
       r"\A(?=.*\bautocast\b)(?=.*\b(multi-?threaded|threads?|worker)\b)"
       r"(?=.*\b(respect\w*|ignor\w*|inherit\w*|(not|n'?t) (active|applied|enabled|work\w*))\b)"
       r"(?!.*" + EXCEPTION_NAMED + r")",
       "autocast's state (and its dtype) is thread-local, and `nn.DataParallel` runs each replica's forward in a "
       "thread of its own: an autocast context opened around the call does not reach those threads (in torch "
       "releases before DataParallel carried the state over), so the replicas run in float32, with no memory saving "
       "or speedup; autograd's multithreaded backward in some releases did not inherit it either (a bf16 context "
       "ran as the default fp16 in the backward's worker threads).",
       "Enable autocast inside the model's forward (decorate forward with `@torch.autocast('cuda')`, or "
       "`with torch.autocast('cuda'):` in it), or use DistributedDataParallel, one process per GPU; for threads "
       "you start, enter autocast in each thread; upgrade torch, which propagates the state to autograd threads."),
    # autocast's cast cache lives as long as the context
    _e("autocast-cache-stale", "autocast", "autocast's cached weight casts out of date or reused",
       r"\bautocast\b[^\n]{0,80}\b(weight |cast )?cache\b[^\n]{0,80}\b(stale|in-place|inplace)\b|"
       r"\bstale\b[^\n]{0,40}\b(fp32->bf16 |fp32->fp16 )?casts?\b|"
       r"\A(?=.*_to_copy\.default invocation index)(?=.*\bautocast\b)",
       "autocast caches the low-precision copy of each fp32 weight for the life of the autocast context: an "
       "in-place weight change inside one context (`optimizer.step()`, `param.data.copy_` for EMA or reference "
       "swaps) keeps getting the stale cast, so training freezes; and a cached cast reused by a second "
       "checkpointed region is skipped in its forward but redone in its recompute, so checkpointing sees another "
       "op count.",
       "Enter autocast per forward pass, not around the whole optimize loop, so weights are re-cast after each "
       "update, or pass `cache_enabled=False` to `torch.autocast`; for checkpointed regions that share a weight, "
       "disable the cache or give each region its own autocast context."),
    # outputs of an autocast region used by float32 modules after it
    _e("autocast-output-outside", "autocast", "autocast's fp16 outputs passed to a module after the autocast block",
       r"\A(?=.*\b(outputs?|results?)\b[^\n]{0,60}\b(float16|fp16|half)\b)"
       r"(?=.*(\b(after|outside)\b[^\n]{0,30}\b(the )?autocast(ing)?\b|\b(region|block|context) of autocast\b))",
       unless=EXCEPTION_NAMED,
       cause="Inside autocast, outputs of matmul, linear and conv come out float16; a module called after (outside) "
       "the autocast block runs with its own float32 weights and gets those fp16 tensors: autocast casts only inside "
       "its region.",
       fix="Call that module inside the autocast region (model and head in the same `with torch.autocast(...)`), or "
       "cast the outputs with `.float()` before float32 modules."),
    # code that handles only fp16 autocast, or re-enters autocast without the outer dtype
    _e("autocast-fp16-only-path", "autocast", "code that handles autocast only for fp16, or with the default dtype",
       r"\benable autocast for (bf16|bfloat16)\b|"
       r"\breturns? (fp16|float16|half)\b[^\n]{0,30}\binside\b[^\n]{0,20}\b(bf16|bfloat16) autocast\b|"
       r"\bautocast\b[^\n]{0,60}\buses? (the )?default (autocast )?dtype\b|\bdefault autocast dtype\b",
       "The code handles autocast only for fp16: a script that enters autocast only when fp16 is chosen (with bf16 "
       "nothing casts and fp32 meets bf16), a layer or kernel whose autocast path assumes fp16 (it returns fp16 "
       "inside a bf16 context), or code that re-enters autocast for a recomputation with a bare `autocast()`, "
       "whose default dtype is float16 whatever the outer (parent) context used.",
       "Take the dtype from the context and enter autocast for bf16 too (`torch.autocast(device_type, "
       "dtype=torch.get_autocast_dtype(device_type))`, `torch.get_autocast_gpu_dtype()` in older torch, so the "
       "dtype propagates); with a library that supports only fp16 autocast, use fp16 autocast or fp32."),
    # CUDA autocast leaves CPU tensors alone
    _e("autocast-other-device", "autocast", "autocast for one device type, tensors on another",
       r"\A(?=.*(torch\.cuda\.amp\.autocast|autocast\(\s*['\"]cuda|device_type\s*=\s*['\"]cuda))"
       r"(?=.*(#\s*CPU\b|\bCPU tensors?\b))(?=.*\b(float32|no effect|not cast|different device)\b)",
       "autocast works per device type: `torch.cuda.amp.autocast()` / `torch.autocast('cuda')` casts only ops on "
       "CUDA tensors, so ops on CPU tensors run unchanged in float32 (and CPU autocast casts only CPU ops).",
       "Use `torch.autocast('cpu', dtype=torch.bfloat16)` for CPU tensors or move the tensors to CUDA (`.cuda()`), "
       "taking the device type from the tensors (`torch.autocast(x.device.type)`)."),
    # MPS in releases whose autocast did not cast
    _e("mps-fp16-fp32-weights", "autocast", "fp16 activations meeting fp32 weights on MPS",
       r"\A(?=.*\bmps\b)(?=.*\b(fp32|float32)\b[^\n]{0,10}(dtype )?for (the )?(weight|bias))"
       r"(?=.*\b(fp16|float16|half)\b)",
       "Under fp16 mixed precision on MPS, autocast (in these torch releases) did not cast ops on the mps device, so "
       "fp16 activations reached Linear layers whose weights stayed fp32.",
       "Train on MPS in fp32 (disable AMP / autocast there: `mixed_precision='no'`), or upgrade torch to a release "
       "with MPS autocast and keep weights and inputs in one dtype."),
    _e("autocast-device-unsupported", "autocast", "autocast asked for a device type this torch has no autocast for",
       r"User specified an unsupported autocast device_type '?mps\b",
       "`torch.autocast(device_type=...)` was called for a device this torch has no autocast support for: MPS "
       "before torch 2.5 (transformers 4.38.2 wrapped its rotary embedding in `torch.autocast(device_type=x.device."
       "type)`, so Llama and Gemma failed on Macs), or a backend plugin that registers none.",
       "Upgrade transformers (4.38.3 / 4.39 skip autocast there) or torch (MPS autocast from 2.5), pin the library "
       "release before the change, or run that code outside autocast on MPS (a `contextlib.nullcontext()` in its "
       "place, plain fp32)."),
    _e("autocast-backend-dtype", "autocast", "autocast on a backend that does not support the requested dtype",
       r"In (?!(CPU|XPU|cpu|xpu)\b)\w+ autocast, but the target dtype (torch\.)?\w+ is not supported",
       "Autocast on this device type supports only the dtypes its backend registers (a custom PrivateUse1 backend "
       "often only float32), so the requested dtype is not supported and autocast is disabled.",
       "Ask for a dtype the backend's autocast supports (the warning names them), or register the lower-precision "
       "casts in the backend."),
    _e("autocast-scatter-mismatch", "autocast", "a scatter / index op under autocast given float32 and float16",
       r"\A(?=.*\b(autocast|amp)\b)(?=.*(\b(scatter_add|scatter|index_add|index_put|index_copy)_?\b|\bput_))"
       r"(?=.*\b(type mismatch|dtype mismatch|same dtype|expected scalar type|types? mismatch)\b)",
       "Under autocast some ops return float32 (LayerNorm, softmax, sums) and others float16 (Linear, matmul), and "
       "scatter_add / index_add were not on autocast's promote list in that torch, so `self` (float32) and `src` "
       "(float16) reach them in two dtypes.",
       "Cast `src` to the destination's dtype (`x.scatter_add(0, idx, y.to(x.dtype))`), or upgrade torch (later "
       "releases promote these ops under autocast)."),
    # torch 1.6's autocast had no casts for the fused RNN cell kernels (LSTMCell / GRUCell / RNNCell)
    _e("rnn-cell-autocast", "autocast", "an RNN cell (LSTMCell / GRUCell) under torch 1.6's autocast",
       r"\A(?=.*expected scalar type (Half|Float) but found (Float|Half))(?=.*(\b(LSTMCell|GRUCell|RNNCell|lstm_cell|"
       r"gru_cell)\b|\bself\.(weight|bias)_ih\b(?!_l\d)))",
       "An RNN cell module (LSTMCell, GRUCell, RNNCell) ran under autocast in torch 1.6, whose autocast had no "
       "casts for the fused cell kernels: the fp16 gates met the cell's fp32 bias.",
       "Upgrade torch (1.7 added autocast for `lstm_cell` / `gru_cell`), or run the cell outside autocast in fp32 "
       "(`with torch.autocast('cuda', enabled=False): h, c = cell(x.float(), (h.float(), c.float()))`)."),
    _e("cudnn-rnn-autocast", "autocast", "a cuDNN RNN given autocast-cast weights it cannot use",
       r"\A(?=.*CUDNN_STATUS_BAD_PARAM)(?=.*\b(autocast|amp|mixed precision|fp16|half)\b)(?=.*\b(lstm|gru|rnn)\b)",
       "Under autocast the LSTM / GRU weights were cast to fp16 without being flattened again into the single "
       "buffer cuDNN's RNN kernels read (a bug in torch 1.6's pre-release autocast), so cuDNN got weights in a "
       "layout and dtype it rejects.",
       "Upgrade torch (the 1.6 release makes autocast handle cuDNN RNN weights), or run the RNN outside autocast in "
       "fp32 (`with torch.autocast('cuda', enabled=False): out, h = rnn(x.float())`)."),
    # Ascend/pytorch: a CUDA call on an NPU machine
    _e("npu-cuda-call", "device", "a CUDA call on an Ascend NPU machine",
       r"Torch not compiled with CUDA enabled", context=r"torch_npu|\bnpu\b|Ascend|\bCANN\b",
       cause="On an Ascend machine something asked for CUDA: a bare integer device (`.to(0)`, `device=3`) means a "
       "CUDA device to torch, and `.cuda()`, `device='cuda'` and `torch.cuda.*` calls reach a torch without "
       "CUDA, which torch_npu does not remap by itself.",
       fix="Name the NPU: `.to('npu:0')`, `torch.device('npu', 0)`, `torch.npu.set_device(0)`; or map CUDA calls "
       "to the NPU with `from torch_npu.contrib import transfer_to_npu` right after importing torch_npu."),
    _e("autocast-device-type", "autocast", "autocast given a device type it does not take",
       r"User specified (an unsupported )?autocast device_type|autocast device_type must be",
       "`torch.autocast(device_type=...)` takes a device type ('cuda', 'cpu', 'xpu', 'mps', ...), not a device "
       "('cuda:0'), and only those this torch build has autocast for: older releases take only 'cuda' and 'cpu', "
       "MPS autocast arrived in torch 2.5, and other backends (DirectML's 'privateuseone') are not supported unless "
       "their plugin registers autocast.",
       "Pass the type: `torch.autocast(device_type=x.device.type, dtype=...)`; on MPS upgrade torch to >= 2.5 or "
       "run without autocast (fp32, or the model cast to fp16 as a whole).",
       unless=r"device_type '?meta"),  # a tracer running the model on meta tensors, not a device the user chose
    _e("mps-fp16-mixed", "device-capability", "fp16 mixed precision asked of Apple MPS",
       r"(can'?t|cannot|unable to|fails? to|error\w*)[^\n]{0,60}\bmps\b|\bmps\b[^\n]{0,60}\b(fails?|error\w*|not work\w*)",
       "fp16 mixed precision (`fp16=True`: autocast and a GradScaler) on Apple MPS needs torch >= 2.5; older torch "
       "(and accelerate with it) refuses it or fails inside autocast, while the same script runs on CUDA.",
       "Upgrade torch to >= 2.5 for fp16 mixed precision on MPS, or train on MPS without it (`fp16=False`, fp32).",
       context=r"fp16\s*=\s*True|--fp16\b|mixed_precision\W{1,4}fp16", unless=r"out of memory|OutOfMemoryError"),
    _e("transformer-fastpath-autocast", "autocast", "nn.TransformerEncoder's fused fast path under autocast",
       r"_transformer_encoder_layer_fwd|_native_multi_head_attention|"
       r"\A(?=.*\bTransformerEncoder(Layer)?\b)(?=.*(\bautocast\b|-mixed\b|\bmixed[ _-]precision\b|\bamp\b))"
       r"(?=.*\b(errors?|fails?|failed|expected|found|should be the same|same dtype)\b)",
       "Outside training (`model.eval()`, `torch.no_grad()`: validation, inference) `nn.TransformerEncoderLayer` "
       "and `nn.MultiheadAttention` switch to PyTorch's fused fast path (`_transformer_encoder_layer_fwd`), which "
       "autocast does not cast in some torch releases, so bf16/fp16 activations meet fp32 weights there: training "
       "steps run and validation fails.",
       "Turn the fast path off (`torch.backends.mha.set_fastpath_enabled(False)`, torch >= 2.1) or upgrade torch; or "
       "cast the model to one dtype for evaluation (`bf16-true`, `model.to(torch.bfloat16)`) instead of autocast.",
       unless=r"out of memory|OutOfMemoryError"),
    _e("bce-autocast", "autocast", "binary_cross_entropy under autocast",
       r"binary_cross_entropy and torch\.nn\.BCELoss are unsafe to autocast",
       "`F.binary_cross_entropy` / `nn.BCELoss` take probabilities, and a sigmoid output in fp16 rounds to exactly "
       "0 or 1, where the log is -inf, so autocast refuses to run them in half precision.",
       "Drop the sigmoid and use `F.binary_cross_entropy_with_logits` / `nn.BCEWithLogitsLoss` on the logits (safe "
       "under autocast, and numerically better), or compute the loss outside autocast in fp32: "
       "`with torch.autocast('cuda', enabled=False): loss = F.binary_cross_entropy(p.float(), y.float())`."),
    # autocast's promote ops (cat, stack, grid_sample, addcmul, index_put, ...) take fp32 or the autocast dtype only
    _e("autocast-prioritize", "autocast", "the other 16-bit dtype inside an autocast region",
       r"Unexpected floating ScalarType in at::autocast::prioritize|promote type is double in at::autocast",
       "Inside an autocast region an op that autocast runs at the widest input dtype (`torch.cat`, `torch.stack`, "
       "`F.grid_sample`, `addcmul`, `index_put`, ...) got a floating tensor of the other 16-bit dtype: an fp16 "
       "tensor (a `.half()` cast, an fp16 buffer or cached feature) under bf16 autocast, or a bf16 one under fp16 "
       "autocast; autocast promotes only between float32 and its own dtype and refuses the mix (and float64 "
       "there).",
       "Drop the hard-coded `.half()` / `.bfloat16()` cast inside the region, or cast to the autocast dtype "
       "(`x.to(torch.get_autocast_dtype('cuda'))`) or to float32 (`.float()`); for a float64 operand `.float()`."),
    _e("autocast-dtype", "autocast", "autocast asked for a dtype its device does not support",
       r"In (CPU|MPS|CUDA|XPU|HPU|XLA|IPU|\w+) autocast, but the target dtype is not supported|"
       r"(CPU|MPS|CUDA|XPU|HPU|XLA|IPU) Autocast only supports dtypes? of|"
       r"Current CUDA Device does not support bfloat16|AutocastCPU only supports? Bfloat16|"
       r"Autocast\w+ only supports? \w+ as the autocast_\w+_dtype",
       "Autocast was asked for a dtype the device's autocast does not support, so it disabled itself and the "
       "region ran in fp32 (a warning; slowness or dtype mismatches follow): CPU autocast takes bfloat16 (float16 "
       "too from torch 2.4), MPS autocast float16 (bfloat16 only with a recent torch on macOS 14+), CUDA "
       "bfloat16 only on Ampere or newer GPUs.",
       "Pass a dtype the device supports: `torch.autocast('mps', dtype=torch.float16)` on Apple GPUs, "
       "`torch.autocast('cpu', dtype=torch.bfloat16)` on the CPU, float16 on CUDA GPUs without bf16 (`amplora "
       "doctor` says what the GPU has); or upgrade torch (and macOS) for bf16 autocast on MPS."),
)

# Apple MPS and Intel XPU dtypes
# Apple's machines and their GPU backend, as users name them
_MAC = (r"(?<![A-Za-z0-9_])(mps|apple silicon|m[1-4]( pro| max| ultra)?|mac|macos|macbook\w*|mac ?studio|mac ?mini)"
        r"(?![A-Za-z0-9_])")

ACCELERATORS = (
    _e("mps-float8", "device-capability", "MPS has no float8 (fp8) or complex double",
       r"convert (?!BFloat16\b|Double\b)\w+ to the MPS backend but it does not have support|"
       r"(float8|Float8_\w+|\bfp8\b|e4m3\w*|e5m2\w*)[^\n]{0,120}\bMPS\b|\bMPS\b[^\n]{0,120}(float8|Float8_\w+|\bfp8\b)",
       "A float8 (fp8: Float8_e4m3fn / e5m2) or other unsupported tensor went to Apple's MPS device, which has no "
       "such dtype: fp8 checkpoints (Flux fp8, fp8-quantized LLMs) and `.to(torch.float8_e4m3fn)` cannot live on "
       "MPS (nor complex128 / float64).",
       "Load an fp16/bf16 checkpoint (or upcast on the CPU first: `w.to(torch.float16)` before `.to('mps')`; "
       "in ComfyUI-like tools pick the fp16 model or `weight_dtype` default); fp8 needs a CUDA GPU with fp8 "
       "(Ada/Hopper), or run on the CPU; compute float64 / complex128 values (rotary frequencies) in float32 / "
       "complex64 on MPS."),
    _e("mps-amp-torch-version", "device-capability", "mixed precision on MPS needs a newer torch",
       r"(fp16|bf16) mixed precision with MPS device requires a Pytorch >= ?([\d.]+)",
       "accelerate / the Trainer run fp16 or bf16 mixed precision on Apple's MPS only with a recent torch (fp16 "
       "from 2.5, bf16 from 2.6, bf16 also needing macOS 14+), and the installed torch is older.",
       "Upgrade torch (`pip install -U torch`), or train on MPS without mixed precision (`mixed_precision='no'`, "
       "fp32)."),
    _e("mps-graph-element-type", "mismatch", "an MPS graph op got operands of two float dtypes",
       r"'mps\.\w+' op requires the same element type for all operands and results|"
       r"MPSGraph.{0,200}(same element type|element type mismatch)|"
       r"\w+ types? 'tensor<[^>]*\b\w*(f16|bf16|f32)>' and (\w+ type )?'tensor<[^>]*(f16|bf16|f32)>' are not "
       r"broadcast compatible|"
       r"\A(?=.*(?<![Nn]on-)\b(mps|MPS)\b)(?=.*\b(f16|fp16|float16)\b)(?=.*\b(f32|fp32|float32)\b)(?=.*\b(crash\w*|"
       r"fails?|error)\b)",
       "Apple's MPSGraph compiles an op (add, matmul, ...) whose operands have two element types, such as f32 "
       "activations meeting an f16 weight or bias (an fp16 model variant or checkpoint with inputs or some modules "
       "left fp32), which MPS does not promote as CUDA kernels would.",
       "Give the model and its inputs one dtype on MPS (`model.to(torch.float16)` and `x.to(torch.float16)`, or "
       "use the fp32 model variant), or run the forward under `torch.autocast('mps', dtype=torch.float16)`."),
    _e("gradscaler-mps-float64", "device-capability", "GradScaler on MPS needs float64, which MPS lacks",
       r"Cannot convert a MPS Tensor to float64",
       context=r"grad_scaler|GradScaler|scaler\.step|unscale_|_scale\.double\(\)",
       cause="The GradScaler's `unscale_` computes the inverse scale in float64 (`self._scale.double()`), and Apple's "
       "MPS has no float64, so loss scaling cannot run on MPS in this torch release.",
       fix="Disable the GradScaler on MPS (`GradScaler(enabled=(device == 'cuda'))`, only on CUDA; fp32 or bf16 "
       "training needs no scaler), or upgrade torch, whose newer releases unscale without float64 on MPS."),
    _e("mps-float64", "device-capability", "MPS has no float64",
       r"(?<![A-Za-z])MPS.{0,160}(float64|Double)|(float64|\bDouble\b).{0,100}\bMPS\b",
       "A float64 (double) tensor or model went to Apple's MPS device, which has no float64: NumPy arrays and "
       "Python floats default to float64, and `model.double()` makes it float64 too.",
       "Use float32 before moving to MPS: `torch.from_numpy(a).float()`, `a.astype(np.float32)`, "
       "`model.float()`, or `torch.set_default_dtype(torch.float32)`."),
    _e("mps-bf16", "device-capability", "MPS without bf16",
       r"\A(?!.*\bbefore the (change|fix)\b).*?(MPS.{0,160}(BFloat16|bf16)|(BFloat16|\bbf16\b).{0,100}\bMPS\b)",
       "bfloat16 on Apple's MPS device needs macOS 14 (Sonoma) or newer and a recent torch; on older systems MPS "
       "has no bf16 and a bf16 tensor or model cannot be moved there.",
       "Load the model in float16 or float32 on MPS (`torch_dtype=torch.float16`), or upgrade to macOS 14+ "
       "with torch >= 2.1."),
    _e("mps-int64-op", "device-capability", "an MPS op without int64 (Long) support",
       r"MPS does not support [\w/]+ (ops? )?with int64|MPS: no support for int64|"
       r"\bMPS\b[^\n]{0,80}\b(int64|Long)\b[^\n]{0,60}(not supported|unsupported|no support|only works)|"
       r"\b(int64|Long)\b[^\n]{0,60}(not supported|unsupported|no support)[^\n]{0,40}\bMPS\b|"
       r"only works on floating types on MPS|Function \w+_i64 was not found in the library|"
       r"\A(?=.*Expected non int64 dtype for source)(?=.*\b(mps|MPS)\b)|"
       r"'?\w+_mps\(\)'? (operation )?(does|doesn) ?n?o?t support input type '?(int64|Long)'? in MPS backend|"
       # wrong values told in words: "cumsum is broken for integral datatypes on MPS", "bogus values for int tensors"
       r"\A(?=.*(?<![A-Za-z0-9_])mps(?![A-Za-z0-9_]))(?=.*\b(integral|integer|int|int64|int16|int8|Long)\b[^.\n]{0,12}"
       r"\b(d(ata)?types?|tensors?)\b)(?=.*\b(broken|wrong|bogus|incorrect|garbage)\b)",
       "An op ran on int64 (Long) tensors on Apple's MPS device, which older macOS / torch cannot do (int64 is not "
       "supported by those kernels, and some gave wrong values for integer types other than int32): cumsum / "
       "cumprod (position ids built from an attention mask in generate()), argmax, min/max or isin on int64 "
       "need macOS 13.3+ (some 14+) and a recent torch.",
       "Upgrade torch (and macOS to 13.3 / 14 or newer), or cast that tensor to int32 before the op "
       "(`mask.int().cumsum(-1)`); values that are really numbers (regression labels read as integers, squared by "
       "an MSE loss) belong in float32 (`labels.float()`); or run it on the CPU (`PYTORCH_ENABLE_MPS_FALLBACK=1`, or `.cpu()` for that "
       "step)."),
    _e("mps-int-matmul", "device-capability", "an MPS matmul on integer or complex tensors",
       r"MPS device does not support \w+ for non-float inputs",
       "Apple's MPS device has no matmul for non-float inputs: mm / bmm / addmm / linear got integer or bool "
       "tensors (token ids, masks or counts multiplied without a cast), or complex ones (an FFT's complex64 "
       "output, as in Fourier layers), which are not supported on MPS by older torch and macOS.",
       "Cast integer operands to float before the matmul (`a.float() @ b.float()`, or the model's dtype) and back "
       "with `.long()` if integers are needed; for complex tensors upgrade torch and macOS (14 or newer), or run "
       "that step on the CPU."),
    # ops missing on MPS run on the CPU under the fallback, and their CPU tensors then meet MPS ones
    _e("mps-fallback-device-mix", "device", "ops missing on MPS fell back to the CPU and mixed devices",
       r"\A(?=.*(PYTORCH_ENABLE_MPS_FALLBACK|\bfall ?back to (run on )?(the )?CPU\b))(?=.*\bMPS\b)"
       r"(?=.*(\bon cpu or on the same device\b|\b(on )?the same device\b|\b(two|different) devices\b))",
       "Ops this torch has not implemented for Apple's MPS backend (missing kernels such as `bitwise_and`, "
       "`_index_put_impl_`) run on the CPU under `PYTORCH_ENABLE_MPS_FALLBACK=1`, and the fallback does not cover "
       "every path: an index or result left on the CPU then meets MPS tensors in the next op.",
       "Upgrade torch (each release adds MPS kernels, and the fallback covers more); until then move the tensors "
       "around the unsupported op by hand (`op(x.cpu()).to('mps')`), or run the model on the CPU (or CUDA)."),
    _e("gpu-api-no-fp16", "device-capability", "a Vulkan / OpenCL / WebGPU target without fp16",
       r"\b(vulkan|opencl|webgpu|wgpu)\b[^\n]{0,120}\b(not|no|doesn'?t|does not|without|lacks?)\s+(support(ing|s)?\s+"
       r"(for\s+)?)?(fp16|float16|f16|shader-?f16|shaderFloat16|half)\b|"
       r"\b(fp16|float16|shader-?f16|shaderFloat16)\b[^\n]{0,80}\bnot supported\b[^\n]{0,80}\b(vulkan|opencl|webgpu)\b|"
       r"requires (the )?WebGPU extension shader-?f16|\bshader-?f16\b[^\n]{0,80}\bnot (enabled|supported|available)\b|"
       # wgpu / naga and the browsers' WGSL compilers refusing f16 without the feature
       r"UnsupportedCapability\(Float16\)|unknown type:? '?f16\b|extension '?f16'? is not allowed|"
       # clvk compiling an fp16 kernel for a device without cl_khr_fp16: clspv is run with -fp16=0
       r"\A(?=.*\b(fp16 extension|cl_khr_fp16)\b)(?=.*\s-fp16=0\b)|unsupported OpenCL extension '?cl_khr_fp16\b|"
       # an OpenCL program's device report: "half precision compute is n/a"
       r"\bhalf[- ]precision compute (is )?(n/a|not available|unavailable|not supported)\b",
       "The GPU or its driver does not support 16-bit float arithmetic in this API (Vulkan `shaderFloat16`, "
       "WebGPU `shader-f16`, OpenCL `cl_khr_fp16`; older AMD Polaris cards, many integrated and mobile GPUs, and "
       "NVIDIA's OpenCL driver, which stores fp16 but does not compute in it), so "
       "a model whose kernels compute in float16 (MLC's `q4f16_*`, f16 GGUF compute) cannot be built for it.",
       "Use a variant that computes in float32 (MLC `q4f32_1` / `--quantization q4f32_1`, an f32 compute type), "
       "or a GPU and driver with fp16 support for that API; in the browser check `adapter.features.has('shader-f16')` "
       "(request it with `requestDevice({requiredFeatures: ['shader-f16']})`) and fall back to an fp32 or q4f32 model "
       "or the wasm backend (q8) where it is missing; with wgpu enable `Features::SHADER_F16` (a wgpu / naga release "
       "that supports it)."),
    _e("webgpu-shader-f16-f32", "backend",
       "a WebGPU kernel's shader written for f32 given f16 tensors (or the reverse)",
       r"returned '(f16|f32)', expected '(f32|f16)'|"
       r"\A(?=.*(WGSL|CreateShaderModule|ShaderModuleDescriptor))(?=.*'f16')(?=.*'f32')",
       "A WebGPU kernel's WGSL shader (ONNX Runtime's WebGPU execution provider, transformers.js, a library's "
       "compute shader) was written for f32 and got f16 tensors from an fp16 or q4f16 model (or the reverse): that "
       "op has no f16 implementation in this release.",
       "Run the model in fp32 (an fp32 or q4f32 variant), run it on the wasm backend until the op has f16, or "
       "upgrade onnxruntime-web / the library where the op gained f16."),
    _e("tflite-gpu-precision-loss", "overflow", "the TFLite / MediaPipe GPU delegate computing in fp16",
       r"allow_precision_loss|setPrecisionLossAllowed|precision_loss_allowed|is_precision_loss_allowed|"
       r"\A(?=.*\bGPU[ _-]?delegate\b)(?=.*(\bnot ok\b|\b(wrong|incorrect|different|garbage|bad|inaccurate|nan)\b|"
       r"\baccuracy\b))(?=.*\b(CPU|fine|correct|ok)\b)",
       "The TFLite GPU delegate (and MediaPipe's GPU graphs) computes in fp16 by default (precision loss allowed), "
       "so a model with large activations or one that needs fine precision loses accuracy, or overflows, on the GPU "
       "while the CPU path in fp32 is right.",
       "Turn precision loss off: `GpuDelegate.Options().setPrecisionLossAllowed(false)` (`allow_precision_loss: "
       "false` in MediaPipe, `TFLITE_GPU_INFERENCE_PRIORITY_MAX_PRECISION`), which runs fp32 on the GPU, or run "
       "that model on the CPU."),
    _e("uint8-input-float-model-in-words", "mismatch", "bytes fed to a model that takes float32, told in words",
       r"\A(?=.*(\bnew Uint8Array\(|\bUint8Array\b|pixelFormat\W{1,4}rgb-?uint8|\brgb-?uint8\b))"
       r"(?=.*\b(same (output|result|prediction)s?|(always|every ?thing) (the )?same|"
       r"wrong (output|result|prediction)s?|garbage|constant (output|result))\b)",
       "The input is passed as bytes (a Uint8Array, 'rgb-uint8' frames) while the model takes float32: the runtime "
       "reads the bytes unscaled (or reinterprets them), so the predictions barely depend on the image and come "
       "out the same for every frame.",
       "Convert the frame to a Float32Array normalised as in training (`x / 255`, mean and std), or use a uint8 "
       "(quantized) model whose input tensor is uint8."),
    # (before DirectML's: ONNX Runtime's DirectML provider is a runtime, not torch-directml)
    _e("ort-norm-fp16-variance", "overflow", "a normalization kernel keeping its variance in fp16",
       r"\A(?=.*\b(LayerNormalization|LayerNorm|SimplifiedLayerNormalization|GroupNorm\w*)\b)"
       r"(?=.*\b(fp16|float16|half)\b)(?=.*\b(variance|outside the (fp16|float16|half) range|stash_type)\b)",
       unless=EXCEPTION_NAMED,
       cause="The runtime's normalization kernel computes the variance in fp16 (ignoring `stash_type=1`, which asks "
       "for fp32 statistics), and a variance above fp16's largest value (65504) overflows to inf, or a tiny epsilon "
       "(1e-12) added to a zero variance underflows to 0 in fp16, so rsqrt gives inf and the layer outputs NaN or "
       "zeros.",
       fix="Run the normalization in fp32: an execution provider that honours `stash_type` (CUDA), the node kept "
       "out of the fp16 conversion (`op_block_list=['LayerNormalization']`, `keep_io_types`), or a runtime release "
       "that fixes the kernel."),
    _e("directml-dtype", "device-capability", "DirectML: no bf16, float64 or complex, and no autocast",
       r"\b(DirectML|torch[_-]directml|torch_dml|dml_util|privateuseone)\b",
       context=r"\b(bf16|bfloat16|BFloat16|float64|double|Double|fp16|float16|half|Half|autocast|dtype|data type|"
       r"Complex\w*|complex(64|128)|int(32|64)?|integer)\b",
       cause="torch-directml (the `dml` / `privateuseone` device on Windows GPUs) computes in float32 and float16 "
       "but does not support bfloat16, float64 or complex (ComplexFloat, from STFT / FFT) tensors (nor bool input "
       "to some ops, such as cumsum), and "
       "`torch.autocast` does not run on it, so a bf16 model, float64 data, a spectrogram model's complex STFT, or "
       "fp16 code that relies on autocast to cast fp32 tensors (conditioning, norms, buffers) fails there; older "
       "releases also lack integer (int32 / int64) kernels for some ops (`cumsum`, the min / max behind printing a "
       "tensor), which fail with a bare RuntimeError.",
       fix="Load the model in float16 or float32 (`torch_dtype=torch.float16`), cast float64 data with `.float()`, "
       "run complex STFT / FFT steps on the CPU (`x.cpu()`, then move the real result back), "
       "and without autocast keep the whole model and its inputs in one dtype: full fp32 (`--no-half` / "
       "`--precision full` in the SD UIs) or everything cast to fp16 by hand; for integer ops upgrade torch-directml "
       "(later releases support more datatypes) or use the dtype that works (int64 for `cumsum`)."),
    _e("ascend-910a-bf16", "device-capability", "bf16 on an Ascend 910A",
       r"\A(?=.*\b(910A|910 ?ProA|910 ?PremiumA)\b)(?=.*(?<![A-Za-z0-9_])(bf16|bfloat16|BF16)(?![A-Za-z0-9_]))",
       cause="The first-generation Ascend 910 (910A) has no bf16 support (the 910B and later have it), so a bf16 "
       "model or a bf16 setting fails there.",
       fix="Run in float16 on a 910A (`--dtype float16`, `torch_dtype=torch.float16`, `fp16=True`), or use a 910B."),
    _e("ascend-npu-dtype", "device-capability", "an Ascend NPU kernel without this dtype",
       r"not implemented for DT_\w+|should be in dtype support list|"
       r"\b(aclnn\w*|torch_npu|Ascend|CANN)\b.{0,300}\b(DT_\w+|float64|double|bfloat16|bf16)\b.{0,120}(not "
       r"supported|not implemented|unsupported)",
       "An Ascend NPU operator (torch_npu / CANN `aclnn` kernels) supports only the dtypes in its list, and got "
       "another, which is not supported there: most often DT_DOUBLE (float64, from NumPy data or a position / "
       "rotary table built in float64), "
       "sometimes DT_BFLOAT16 for an op without a bf16 kernel in this CANN.",
       "Cast to a dtype in the operator's dtype support list before the op: float64 to float32 (`.float()`, `torch.arange(..., "
       "dtype=torch.float32)` for rotary frequencies), bf16 to fp16 or fp32 for that op, unsigned integers (uint16, "
       "uint32, uint64) to int32 / int64; upgrade CANN / torch_npu, "
       "whose newer releases add kernels."),
    _e("fp16-saturation", "overflow", "an fp16 overflow that saturated at 65504 instead of becoming inf",
       r"\A(?=.*\btensor\(-?65504\.?,)(?=.*\b(inf|infinity)\b)|\bACL_RT_OVERFLOW_MODE\b|"
       r"\A(?=.*\bsaturat\w*)(?=.*\b(fp16|float16|half)\b)(?=.*\b(inf|infinity|65504)\b)",
       unless=r"\b(fp8|float8\w*|e4m3\w*|e5m2\w*)\b",
       cause="The device clamps an fp16 overflow to fp16's largest value (±65504) instead of turning it into inf "
       "(saturation mode): Ascend NPUs do this by default, so code and tests that look for inf / NaN to find an "
       "overflow (GradScaler's check, `isinf`) see 65504 and miss it.",
       fix="On Ascend switch the overflow mode to IEEE inf / NaN (`export ACL_RT_OVERFLOW_MODE=INFNAN` before "
       "starting, with a torch_npu and CANN that support it), or test for overflow with "
       "`x.abs() >= torch.finfo(torch.float16).max` besides `torch.isinf(x)`."),
    _e("rocm-bf16", "device-capability", "bf16 fails on an AMD GPU (ROCm) where fp16 works",
       r"\b(bf16|bfloat16)\b[^\n]{0,80}\b(fails?|failed|crash\w*|errors?|breaks?|broken|does ?n[o']t work)\b|"
       r"\b(fails?|failed|crash\w*|breaks?)\b[^\n]{0,40}\b(bf16|bfloat16)\b",
       "On AMD GPUs, bf16 depends on the GPU generation and on each library's ROCm build: libraries that compile "
       "their own kernels (DeepSpeed's op builders, TorchScript / nvFuser fusion, custom CUDA-ported extensions, "
       "early ROCm releases and nightlies) often leave bf16 out for ROCm, so a bf16 run fails where the same run "
       "in fp16 or on an NVIDIA GPU works.",
       "Run that part in fp16 (with loss scaling) or fp32 on this stack, or update to a ROCm / PyTorch build "
       "(nightly) and library version that enables bf16 for ROCm (DeepSpeed: an op builder with `enable_bf16` "
       "for ROCm); `torch.cuda.is_bf16_supported()` says whether the GPU itself has bf16.",
       context=r"\brocm|\bamd\b|\bhip\b|\bgfx\d|\bMI\d{3}|radeon|\brdna|\b(7900|9070|6900|6800)\s?(xtx?|gre)?\b",
       unless=r"out of memory|OutOfMemoryError"),
    _e("xpu-igpu-bf16", "device-capability", "bf16 on an Intel integrated GPU without bf16 kernels",
       r"level_zero backend failed with error|UR_RESULT_ERROR_\w+|PI_ERROR_\w+|bf conversion instruction not supported",
       context=r"\b(bf16|bfloat16)\b",
       cause="Intel integrated GPUs (Iris Xe / Xe-LP, UHD, Meteor Lake) run fp16 but have no native bf16 kernels or "
       "bf16 conversion instructions (bf16 needs the XMX engines of Arc, Battlemage and data-center GPUs), and the "
       "Level Zero driver or its compiler refuses the bf16 kernel the run asked for.",
       fix="Run in fp16 or fp32 on this GPU: `torch_dtype=torch.float16` (or float32); in ComfyUI `--fp16-unet "
       "--fp16-vae` or `--fp32-vae` instead of the bf16 default; keep bf16 for Arc / data-center GPUs."),
    _e("bf16-kernel-not-built", "device-capability", "a bf16 kernel missing from a build for an older GPU",
       r"named symbol not found\W{0,6}\)?,? when loading \w*(bf16|bfloat16)\w*|"
       r"CUDA_ERROR_NOT_FOUND\b[^\n]{0,120}\b\w*_bf16\w*",
       cause="The library compiles its bf16 CUDA kernels only for compute capability 8.0 (Ampere) or newer "
       "(candle and similar Rust / C++ runtimes build them under `__CUDA_ARCH__ >= 800`), and this binary was "
       "built for an older GPU (Turing 7.5 such as the T4 or RTX 20xx, Pascal 6.x), or for the oldest of several "
       "GPUs in the machine, so the bf16 kernel it asks for is not there.",
       fix="Run the model in f16 or f32 (the runtime's dtype option, e.g. `--dtype f16`) on that GPU, or build for "
       "the GPU you run on (`CUDA_COMPUTE_CAP=89` for an Ada card) and use bf16 only on compute capability 8.0+."),
    _e("gpu-dtype-combination", "device-capability", "a kernel built for other GPU and dtype pairs",
       r"Unsupported GPU and data type combination",
       cause="This fused kernel (DeepSpeed4Science's EvoformerAttention, used by OpenFold and its ports, and "
       "similar CUTLASS kernels) is compiled per GPU architecture and dtype: bf16 only for compute capability 8.0 "
       "or newer (Ampere: A100, RTX 30xx), so a bf16 run on a V100 (7.0) or T4 (7.5), or an fp32 input where the "
       "kernel takes only half precision, finds no kernel.",
       fix="On a V100 / T4 run in fp16 or fp32 with that kernel off (`use_deepspeed_evo_attention: false` or the "
       "project's equivalent), or use an Ampere or newer GPU for bf16; give the kernel the dtype it was built for."),
    _e("xpu-fp64", "device-capability", "this Intel GPU has no float64 (fp64)",
       r"Required aspect fp64 is not supported|aspect::fp64|FP64 data type is unsupported on current platform|"
       r"\b(fp64|float64|double)\b[^\n]{0,60}(is )?not supported on (the|this) (device|GPU|XPU)|"
       r"\b(fp64|float64|Double)\b[^\n]{0,80}(not supported|unsupported)[^\n]{0,40}\b(xpu|XPU|Arc|Intel)\b|"
       r"\b(Intel Arc|Arc [AB]\d{3}|XPU|ipex)\b.{0,400}\b(FP64|float64|double precision)\b|"
       r"\b(FP64|float64)\b.{0,400}\b(Intel Arc|Arc [AB]\d{3}|XPU|ipex)\b|uses-fp64-math",
       unless=r"\bRMSE \(res-fp64\)",
       cause="A float64 (double) tensor or a kernel that computes in fp64 ran on an Intel GPU that does not support "
       "fp64 natively (Arc A-series, Iris Xe, Flex): NumPy data and Python floats default to float64, and in older "
       "torch-xpu / IPEX builds some ops (cross_entropy, GradScaler's unscale) used fp64 internally.",
       fix="Keep tensors float32 (`torch.from_numpy(a).float()`, `a.astype(np.float32)`, no `.double()`), upgrade "
       "torch / intel-extension-for-pytorch (newer XPU builds avoid fp64), or enable fp64 emulation "
       "(`OverrideDefaultFP64Settings=1 IGC_EnableDPEmulation=1`); if `ipex.optimize(model)` brings the fp64 kernels in, "
       "run without it until emulation is on."),
    _e("mps-fp16-unstable", "device-capability", "fp16 on Apple MPS crashes where fp32 runs",
       r"\A(?=.*" + _MAC + r")(?=.*(?<![A-Za-z0-9_])(fp16|float16|half)(?![A-Za-z0-9_]))"
       r"(?=.*\b(crash\w*|only (fp32|float32)( works?)?|kernel (dies|died|restart\w*)|segmentation fault|abort\w*)\b)|"
       # a pipeline on MPS whose image is black: the fp16 NaN, even where the text names no dtype
       # (SDXL: its VAE's story)
       r"\A(?=.*" + _MAC + r")(?!.*\bSD ?XL)(?=.*\b(black (output |result )?(images?|pictures?)|(images?|outputs?|"
       r"results?) (is|are|was|were) (a |an )?(solid|all|completely|totally|just)? ?black)\b)",
       unless=EXCEPTION_NAMED + r"|out of memory",
       cause="fp16 on Apple's MPS backend: several kernels (attention, group norm and the VAE's upsampling in "
       "diffusion models, in many torch / macOS releases) overflow or fail in float16 there, so the process "
       "crashes or images and videos come out black / NaN, while the same run in float32 works.",
       fix="Keep the model in float32 on MPS (drop `torch_dtype=torch.float16`, choose precision float32 / "
       "`--no-half`), or upgrade torch and macOS before trying fp16 again; bf16 needs macOS 14 and a recent torch."),
    _e("mps-wrong-results", "device-capability", "MPS computes other results than the CPU",
       r"\A(?=.*(?<![A-Za-z0-9_])mps(?![A-Za-z0-9_]))(?=.*\b(different|wrong|incorrect|differ\w*)\b[^.\n]{0,30}"
       r"\b(loss\w*|results?|outputs?|values?|numbers?)\b)(?=.*(?<![A-Za-z0-9_])cpu(?![A-Za-z0-9_])(?!\W{0,3}arch))|"
       r"\A(?=.*(?<![A-Za-z0-9_])mps(?![A-Za-z0-9_]))(?=.*\b(garbled|scrambled|distorted|corrupted|gibberish|"
       r"irrelevant|"
       r"nonsense|meaningless)\b[^.\n]{0,20}\b(audio|sound|speech|outputs?|results?|images?|text|answers?|"
       r"responses?)\b)|"
       r"\A(?=.*(?<![A-Za-z0-9_])mps(?![A-Za-z0-9_]))(?=.*\bsilently (incorrect|wrong)\b)",
       unless=EXCEPTION_NAMED + r"|out of memory",
       cause="Apple's MPS backend computes some ops differently from the CPU in many torch / macOS releases (ops on "
       "non-contiguous or large tensors, some reductions and in-place updates have given wrong values), so the same "
       "script trains or evaluates to other numbers on `mps` than on `cpu`.",
       fix="Run it on the CPU (or CUDA) where the numbers matter, upgrade torch and macOS, and narrow the op down "
       "by comparing layer outputs between `mps` and `cpu`."),
    _e("xpu-ur-error", "backend", "Intel's runtime refused a kernel for this dtype on the XPU",
       r"\bUR error\b|\bUR_RESULT_ERROR\w*", context=r"\b(dtype|float16|bfloat16|fp16|bf16|half|float64|double)\b",
       cause="Intel's unified runtime (UR, Level Zero) failed a kernel on the XPU for the dtype in use: a cast or "
       "op in fp16 / bf16 / fp64 that this GPU or driver does not run (integrated and Arc A-series GPUs lack fp64, "
       "some bf16 kernels and casts failed on older drivers).",
       fix="Do the cast on the CPU and move the result (`x.to(dtype).to('xpu')`), or keep that tensor in float32 on "
       "the XPU; update the GPU driver, oneAPI and torch / IPEX."),
    _e("fp16-on-cpu", "cpu-kernel", "fp16 set for a run on a machine without a GPU",
       r"\A(?=.*(?<![a-z0-9])(fp16|float16|half)(?![a-z0-9]))"
       r"(?=.*\b(without (a )?(GPU|CUDA)|no (GPU|CUDA)|CPU[- ]only|on (the |a )?CPU)\b)"
       r"(?=.*\b(hangs?|hung|stuck|freez\w*|nothing (is )?happen\w*|does nothing|silently|never (finish\w*|ends?))\b)",
       "fp16 (a `precision: fp16` config, `.half()`, AMP) only works on CUDA devices: on a CPU most ops have no "
       "fp16 kernel or fall back to very slow paths, so a run configured for fp16 on a machine without a GPU "
       "stalls or fails where fp32 would run.",
       "Choose the precision from the device: fp16 only when `torch.cuda.is_available()`, otherwise fp32 (or bf16 "
       "under `torch.autocast('cpu', dtype=torch.bfloat16)` on CPUs with bf16 support)."),
)
