"""Quantized weights (bitsandbytes, GPTQ, AWQ, Marlin, ExLlama, HQQ, optimum-quanto, torchao int4) and their kernels:
where activations meet a packed or dequantized weight of another dtype."""
from __future__ import annotations

from amplora.doctor.kb.entry import make as _e
from amplora.doctor.kb.patterns import EXCEPTION_NAMED, LOW, MATMUL, NO_BF16_GPU, PACKED, QUANT_CONTEXT, QUANT_KERNEL

# two floating dtypes in a mismatch message (a dequantized weight meets activations): never a packed int8/uint8 weight
_FLOAT = (r"(?:struct )?(?:c10::|at::|torch\.)?"
          r"(?:Half|BFloat16|Float|Double|half|bfloat16|float16|float32|float|double)\b")
_FLOAT_MISMATCH = (rf"(?:{MATMUL})[^\n]{{0,40}}?{_FLOAT}(?:\W{{1,8}}|\W+and\W+){_FLOAT}|"
                   rf"expected scalar type {_FLOAT} but found {_FLOAT}|got:? {_FLOAT} != {_FLOAT}")

# quantized weights and their kernels
# outputs reported wrong in words: gibberish, repetition, NaN
_WRONG_OUTPUT = (r"gibberish|garbage|garbled|nonsense|meaningless|repeat\w*|\bnan\b|!!!!|wrong (output|result|"
                 r"answer)s?|random (tokens|characters|text)")

QUANTIZED = (
    # a GGUF tensor the loader left as raw bytes (BF16 or a quantized type): uint8, twice as wide for 16-bit types
    _e("fastllm-quantized-source", "quantized", "an already-quantized checkpoint given to fastllm's converter",
       r"FastLLM Error: Linear's weight's shape error",
       "fastllm's `from_hf` quantizes a float (fp16 / fp32) Hugging Face model itself, and was given a checkpoint that "
       "is already int4 / int8 quantized, whose packed weights do not have a Linear's shape.",
       "Load the fp16 (float) model and let fastllm quantize it (`llm.from_hf(model, tokenizer, dtype='int4')`), or "
       "convert the float model to fastllm's own format first."),
    _e("gguf-raw-bytes", "quantized", "a GGUF tensor left as raw uint8 bytes by the loader",
       r"\A(?=.*\bgguf\w*\b)(?=.*Only Tensors of floating point( and complex)? dtype can require gradients)",
       "The GGUF loader converts only the tensor types it knows (F32, F16, its quantized types in its own layers); "
       "a BF16 tensor, or a bare parameter outside the wrapped layers, stays a raw uint8 byte buffer (2 bytes per "
       "bf16 element, hence a dimension twice the model's), and a uint8 tensor cannot be a trainable parameter.",
       "Upgrade the GGUF loader (the node or library that reads the file; newer releases dequantize BF16 and bare "
       "parameters), or convert the file's BF16 tensors to F16 / F32 (or requantize) with llama.cpp's tools."),
    # a model that casts its activations to a layer's weight dtype, met with packed 4-bit weights (uint8 storage)
    _e("activations-cast-to-packed-dtype", "quantized", "activations cast to the packed dtype of a 4/8-bit layer",
       r"\A(?=.*result type \w+?\s*can'?t be cast to the desired output type (Byte|Char|unsigned char)\b)"
       r"(?=.*(\b[48]-?bit\b|\bload_in_[48]bit\b|bitsandbytes|\bbnb\b|\bnf4\b|quantiz\w*|\bgptq\b|\bawq\b))",
       "The model's code casts its hidden states to a layer's weight dtype (`hidden.to(self.fc2.weight.dtype)`, "
       "as T5-style feed-forwards and MoE experts do), and a 4-bit (or 8-bit) quantized layer stores its packed "
       "weights as uint8 (int8), so the float activations are cast to Byte and the op refuses the result.",
       "Upgrade transformers (its models skip that cast for quantized weights), or keep that layer out of the "
       "quantization (`BitsAndBytesConfig(llm_int8_skip_modules=['fc2'])`, the model's `_keep_in_fp32_modules`), or "
       "cast to the compute dtype instead of the weight's (`hidden.to(torch.bfloat16)`)."),
    _e("quant-kernel-gpu-arch", "quantized", "a quantized kernel on a GPU it was not built for",
       r"\A(?=.*\b(W4A16|W8A8|AWQ|GPTQ|int4|4-?bit|[Mm]arlin|[Tt]urbo[Mm]ind)\b)"
       r"(?=.*\b(V100|P100|P40|Volta|Pascal|GTX ?10\d0|sm_?[67]\d)\b)"
       r"(?=.*(not correct|incorrect|wrong|garbage|gibberish|nonsense|乱码|exclusive to|only (on|with) (the )?[VP]100))",
       unless=r"out of memory|OutOfMemoryError",
       cause="Quantized kernels (AWQ / GPTQ W4A16, Marlin, TurboMind, exllama) are built for particular GPU "
       "architectures, many for Turing (sm75) or Ampere (sm80) and newer: on a V100 or a Pascal card they fail or "
       "silently compute wrong results.",
       fix="Run the quantized model on a GPU its kernels support (their list names sm75 / sm80 and newer), or on the "
       "older GPU use the fp16 model or a backend built for it."),
    # a quantized kernel's dtype error told as a title: "AWQ scalar type error"
    _e("quant-kernel-dtype-title", "quantized", "a quantized kernel's dtype error",
       r"\b(AWQ|GPTQ|[Mm]arlin|[Ee]xllama\w*)\b[^\n]{0,40}\b(scalar ?type|dtype) (error|mismatch|bug)",
       cause="Quantized kernels (AWQ, GPTQ, Marlin, ExLlama) take fp16 activations and scales in most releases, and "
       "a model whose default dtype is bf16 (DeepSeek, Llama 3, Qwen) hands them bf16.",
       fix="Run the quantized model in fp16 (`--dtype half` / `torch_dtype=torch.float16`), or upgrade to a "
       "release whose kernels take bf16."),
    _e("packed-4bit-shape", "quantized", "a packed 4-bit weight used as a plain weight (its shape is [N, 1])",
       r"shapes cannot be multiplied \(\d+x\d+ and (1x\d{4,}|\d{4,}x1)\)",
       "bitsandbytes stores a 4-bit weight packed, two values per byte, as an [N, 1] uint8 tensor; a matmul that "
       "sees a 1xN or Nx1 weight got that packed storage as if it were the weight: the 4-bit model was moved or cast "
       "after loading (`.to(device)` / `.half()`, by your code or by a Trainer that places models on the device), "
       "or the layer's `weight` was used directly instead of calling the Linear4bit module.",
       "Do not move or cast a 4-bit model after loading: let `device_map` place it (upgrade transformers, whose "
       "Trainer skips device placement for models loaded in 4-bit), and call the quantized module rather than "
       "`F.linear(x, layer.weight)`.", context=QUANT_CONTEXT),
    _e("qlora-gpu-without-bf16", "device-capability", "4-bit (QLoRA) training on a GPU without bf16",
       r"\b" + NO_BF16_GPU + r"\b[^\n]{0,60}\b(can ?not|can'?t|does ?n[o']t|not|unable to|fails? to)\s*(su\w*rt|run|"
       r"work|use|load)\b[^\n]{0,40}(load_in_4bit|4-?bit|qlora|nf4)|"
       r"(load_in_4bit|4-?bit|qlora|nf4)[^\n]{0,60}\b(can ?not|can'?t|does ?n[o']t|not|unable to|fails? to)\s*"
       r"(su\w*rt|run|work)\b[^\n]{0,40}\b" + NO_BF16_GPU + r"\b",
       "QLoRA scripts and examples default to bf16 (`bnb_4bit_compute_dtype=torch.bfloat16`, `bf16=True`), which "
       "GPUs before Ampere (V100, T4, RTX 20xx) do not compute natively; 4-bit loading itself works on them.",
       "On that GPU set the 4-bit compute dtype to fp16 (`bnb_4bit_compute_dtype=torch.float16`, `--bf16 False "
       "--fp16 True`) or fp32, and train with fp16 mixed precision and a GradScaler."),
    _e("bnb-int8-old-gpu", "quantized", "8-bit (LLM.int8) results wrong on a GPU without int8 tensor cores",
       r"\b(V100S?|P100|P40|K80|GTX ?10[5-8]0( Ti)?|Titan V|Quadro [PGV]\d+|sm_?(3\d|5\d|6\d|70)|compute capability "
       r"(3|5|6|7\.0)\b)|"
       # the fallback forced on a newer GPU, as a reproduction of it
       r"\b(without|no|disabl\w*( the)?( support for)?) igemmlt\b|\bigemmlt\W{0,3}(is )?(disabled|off|unsupported)\b",
       context=r"\A(?=.*(load_in_8bit|8-?bit|\bint8\b|LLM\.int8|Linear8bitLt))(?=.*(" + _WRONG_OUTPUT + r"))",
       # an exception of its own is another fault; sampling that refuses the NaN is this one's symptom
       unless=r"out of memory|OutOfMemoryError|\w*(Error|Exception):(?! probability tensor contains)",
       cause="bitsandbytes' 8-bit matmul (LLM.int8) needs int8 tensor cores (Turing, compute capability 7.5, or "
       "newer); on V100, Pascal and older GPUs it runs a fallback path whose results have been wrong in several "
       "releases (gibberish, repeated tokens, NaN), more so with the model split over several GPUs.",
       fix="On that GPU load the model in fp16 (no `load_in_8bit`) or in 4-bit (`load_in_4bit=True` with "
       "`bnb_4bit_compute_dtype=torch.float16`), or upgrade bitsandbytes; compare with the fp16 model's output."),
    _e("bnb-int8-cublaslt", "quantized", "bitsandbytes' 8-bit matmul failed in cuBLASLt",
       r"cublasLt ran into an error|cublasLt Encountered Error|"
       r"\A(?=.*cuBLAS API failed with status 15)(?=.*(load_in_8bit|8-?bit|\bint8\b|bitsandbytes|igemmlt|"
       r"\(lda, ldb, ldc\)))",
       cause="bitsandbytes' LLM.int8 (8-bit) matmul runs cuBLASLt int8 kernels that need int8 tensor cores "
       "(Turing with tensor cores, compute capability 7.5, or newer); on older GPUs, GTX 16xx cards without tensor "
       "cores and some ROCm GPUs and builds they are not supported, nor on GPUs newer than the bitsandbytes release "
       "(Hopper H100 before 0.39: cuBLAS status 15, not supported), so 8-bit fails when the model first runs while "
       "4-bit works.",
       fix="Load in 4-bit (`load_in_4bit=True`, nf4, `bnb_4bit_compute_dtype=torch.float16`) or plain fp16 instead "
       "of 8-bit on that GPU, or upgrade bitsandbytes (newer releases fall back for GPUs without int8 tensor "
       "cores)."),
    _e("vllm-bnb-quant-storage", "quantized", "a 4-bit checkpoint packed in another storage dtype than uint8, in vLLM",
       r"\A(?=.*bnb_4bit_quant_storage\s*=\s*torch\.(bfloat16|float16|float32))(?=.*\bvllm\b)"
       r"(?=.*\b(shape|assert\w*|error|fail\w*)\b)",
       cause="vLLM's bitsandbytes loader reads 4-bit weights packed in the default uint8 storage only; a "
       "checkpoint saved with `bnb_4bit_quant_storage=torch.bfloat16` (the FSDP-QLoRA setting) packs them into "
       "another dtype, so the packed shapes differ from what vLLM allocates.",
       fix="Save the model for vLLM with the default uint8 quant storage (reload the base without "
       "`bnb_4bit_quant_storage`, or merge the adapter into a 16-bit base and quantize it again), or serve the "
       "merged 16-bit model."),
    _e("vllm-lora-fp32", "quantized", "vLLM's LoRA kernels run only in fp16 / bf16",
       r"\A(?=.*\bvllm\b)(?=.*(\benable[-_]lora\b|\blora[-_]dtype\b|\bLoRA\b))(?=.*(--lora[-_]dtype\W+float32|"
       r"lora_dtype\W+float32|\bfloat32 support for LoRA|Upcasting torch\.\w+ to torch\.float32))",
       cause="vLLM's LoRA kernels (punica / sgmv) take fp16 or bf16 only, so a float32 model or `--lora-dtype "
       "float32` with LoRA enabled fails (a GPU without bf16 makes vLLM upcast bf16 checkpoints to float32).",
       fix="Run the model and the LoRA in float16 (`dtype='half'`, `--lora-dtype auto` or `float16`), or bf16 on "
       "Ampere or newer GPUs."),
    _e("quant-kernel-fp16-only", "quantized", "a quantized kernel built for fp16 activations got bf16",
       r"\b(float16|fp16|half) is required for|\brequires? (torch\.)?(float16|fp16|half)\b[^\n]{0,20}(activations?|dtype)|"
       r"\bonly supports? (torch\.)?(float16|fp16|half) (activations?|dtype|inputs?)",
       context=QUANT_KERNEL + r"|\bMoE\b|compressed|quantiz|\bw\d+a\d+\b|int4|int8",
       cause="This quantized kernel (Marlin / compressed-tensors MoE, GPTQ, AWQ or ExLlama kernels in this release) "
       "is built for fp16 activations only, and the model runs in bf16, the default of many recent models.",
       fix="Run the model in fp16 (`--dtype float16` in vLLM / SGLang, `torch_dtype=torch.float16`), or use a "
       "release or kernel with bf16 support (newer Marlin and MoE kernels), or a checkpoint quantized for bf16."),
    # vLLM: "You are loading a quantized model with dtype torch.bfloat16, which vLLM does not support. Setting dtype
    # to float16 instead."
    _e("quantized-dtype-switched", "quantized", "a quantized model given a dtype its kernels do not take",
       r"loading a quantized model with dtype \S+,? which vLLM does not support|"
       r"\bquantiz\w* (model|checkpoint)\b[^.\n]{0,60}\b(bfloat16|bf16)\b[^.\n]{0,60}\b(not supported|does not "
       r"support)\b[^\n]{0,40}\bfloat16\b",
       "The quantization's kernels in this release (fbgemm fp8, older GPTQ / AWQ / Marlin) take float16 activations "
       "only, so vLLM does not support a bfloat16 dtype for this quantized model and switches it to float16; a tool "
       "that forces the model's own precision (bf16) on quantized checkpoints meets this.",
       "Leave the dtype to the engine for quantized checkpoints (`dtype='auto'`, or `float16`), or use a release "
       "whose kernels support bf16 for this quantization."),
    _e("quantized-fp16-overflow", "quantized", "weight-only / dynamic int8 quantization overflowing in fp16",
       r"\b(int8|int4|weight[- ]only|woq|dynamic quant\w*|int8_dynamic\w*)\b[^\n]{0,160}\b(fp16|float16|half)\b|"
       r"\b(fp16|float16|half)\b[^\n]{0,160}\b(int8|int4|weight[- ]only|woq)\b|"
       r"\bint(8|4)_weight_only\b[^\n]{0,120}\b(nan|inf)\b",
       context=r"\b(bf16|bfloat16|fp32|float32)\b[^.\n]{0,30}\b(works?|fine|ok|correct|good)\b|"
               r"\b(nan|inf|overflow\w*|black|garbage|wrong)\b",
       unless=r"Error:|out of memory|OutOfMemoryError|support (efficient )?float16 computation",
       cause="With weight-only (int8 / int4) or dynamic int8 quantization computing in fp16, the products of the "
       "dequantized weights and activations, or the scaling applied after the integer matmul, exceed fp16's "
       "range (65504) and overflow to inf/NaN or garbage, while the same model in bf16 or fp32 is fine.",
       fix="Run the quantized model in bf16 (`torch_dtype=torch.bfloat16`, fp32's range) or fp32, or leave the "
       "layers with large activations (the first / last ones, attention outputs) unquantized."),
    _e("svdquant-int4-fp4", "device-capability", "an SVDQuant (nunchaku) model built for another GPU generation",
       r"Please use \W?(int4|fp4|nvfp4)\W? quantization for|\A(?=.*\bsvdq-int4)(?=.*\b(RTX ?50[5-9]0|Blackwell|B200|"
       r"sm_?120)\b)",
       "SVDQuant models (nunchaku) come in two builds: INT4 weights for Turing, Ampere and Ada GPUs, and FP4 (NVFP4) "
       "weights for Blackwell (RTX 50xx, B200), whose kernels run only on the generation they were built for.",
       "Download the variant for the GPU: `svdq-int4-...` on RTX 20xx/30xx/40xx, `svdq-fp4-...` on RTX 50xx and "
       "other Blackwell GPUs."),
    _e("ao-quantized-device", "quantized", "PyTorch eager-mode quantized ops on a GPU",
       r"Could not run 'quantized::[\w.]+' with arguments from the '(CUDA|MPS|XPU|Meta|UNKNOWN_TENSOR_TYPE_ID|\w*CUDA\w*)' "
       r"backend|Could not run '[\w:.]+' with arguments from the 'QuantizedCUDA(TensorId)?' backend|"
       r"Didn't find kernel to dispatch to for operator 'quantized::\w+'\. Tried to look up kernel for dispatch key "
       r"'(CUDA|XPU|MPS)\w*'|getCudnnDataTypeFromScalarType\(\) not supported for Q(U)?Int\w+|"
       r"No function is registered for schema aten::(quantize_per_\w+|q_\w+)\b[^\n]{0,200}on tensor type CUDA\w*|"
       r"\bno (cuda|gpu|metal) implementation for q\w+|"
       r"\A(?=.*Unsupported qscheme: per_channel_affine)(?=.*\b(CUDA|GPU)\b)|"
       r"\A(?=.*DispatchStub: missing CUDA kernel)(?=.*\bquantize_per_\w+)|"
       r"\A(?=.*(quantized|\bqat\b|_qat\b|\bint8\b))(?=.*\bonly supports CPU\b)",
       "PyTorch's eager-mode quantization (`torch.ao.quantization`: `quantize_dynamic`, `convert`, QAT models) "
       "produces int8 modules whose kernels (fbgemm / qnnpack / x86) run only on the CPU backend (CUDA does not "
       "support them: there are no GPU kernels for these ops, cuDNN has no QUInt8 type, `quantize_per_tensor` to "
       "the sub-byte quint4x2 and per-channel quantization exist only on the CPU), and this one was moved to or "
       "called with tensors on a GPU; other frameworks' quantized matmuls (candle's qmatmul) lacked CUDA kernels "
       "in early releases too.",
       "Quantize, convert and run the quantized model on the CPU (`model.to('cpu')` before `quantize_dynamic` / "
       "`convert`, and CPU inputs); for int8 or 4-bit on a GPU use a GPU "
       "quantization backend instead (bitsandbytes `load_in_8bit`, torchao, GPTQ/AWQ), or keep the float model on "
       "the GPU in fp16/bf16."),
    _e("float-tensor-quantized-op", "quantized", "a float tensor reached an eager-mode quantized op",
       r"Could not run 'quantized::[\w.]+' with arguments from the 'CPU(TensorId)?' backend|"
       r"Didn't find kernel to dispatch to for operator 'quantized::\w+'\. Tried to look up kernel for dispatch key "
       r"'CPUTensorId'",
       "A quantized module (`quantized::linear`, `quantized::conv2d`: the int8 layers of a model after static "
       "quantization's `convert`) got an ordinary float tensor: nothing quantized the activations before it, "
       "because the model has no `QuantStub` where the quantized region begins (or the input bypasses it).",
       "Quantize the inputs where the quantized region starts: wrap the model (`torch.ao.quantization.QuantWrapper"
       "(model)`) or put `QuantStub()` / `DeQuantStub()` at its entry and exit (or call `torch.quantize_per_tensor` "
       "on the input), then prepare, calibrate and convert again; dynamic quantization (`quantize_dynamic`) needs "
       "no stubs."),
    _e("quant-prepare-one-device", "quantized", "quantization's prepare / convert on a module spread over devices",
       r"prepare only works with cpu or single-device CUDA modules",
       "torch.ao.quantization's prepare / convert need every parameter and buffer of the module on one device (the "
       "CPU, or one GPU), and this module has some on cuda and some on the CPU: a QAT model moved after training "
       "while buffers `convert_fx` created stayed on cuda:0, or a submodule placed by hand.",
       "Move the whole module to one device before prepare / convert (`model.to('cpu')`, buffers included), and "
       "check `{t.device for t in [*model.parameters(), *model.buffers()]}` holds a single device."),
    _e("fake-quant-half", "quantized", "QAT fake-quant ops given fp16 / bf16 activations",
       r"fake_quantize_per_\w+[^\n]{0,60}\b(float16|half|fp16|bf16|bfloat16)\b|"
       r"\"fake_quantize\w*\" not implemented for '(Half|BFloat16)'",
       "The fake-quant ops of quantization-aware training (`fake_quantize_per_tensor_affine` / "
       "`_per_channel_affine`) took float32 only in these releases, and under AMP autocast the activations that "
       "reach them are fp16 / bf16.",
       "Run the QAT part in float32: disable autocast around the fake-quant modules "
       "(`torch.autocast('cuda', enabled=False)` with `.float()` inputs), or upgrade torch, whose later fake-quant "
       "ops take fp16 / bf16."),
    _e("quantized-state-into-float", "quantized", "a converted (quantized) checkpoint loaded into a float model",
       r"\"copy_\" not implemented for \\?'Q(U)?Int\w+'|\bcopy_\W{1,3}not implemented for\W{1,3}Q(U)?Int\w+",
       "The checkpoint holds converted quantized weights (qint8 / quint8 tensors), and it was loaded into a float "
       "or QAT model whose parameters are float tensors: copying a quantized tensor into a float parameter is not "
       "implemented.",
       "Convert the model the same way before loading (prepare and convert with the same qconfig and backend, "
       "then `load_state_dict`), or save and load the float (QAT) state_dict from before `convert`."),
    _e("fbgemm-int16-saturation", "quantized", "fbgemm's int8 kernel saturating its int16 sums",
       r"\bsaturat\w*\b[^\n]{0,60}\b(vpmaddubsw|int16)\b|\bvpmaddubsw\b",
       "fbgemm's uint8 x int8 kernel adds pairs of products in int16 (`vpmaddubsw`), which saturates for large "
       "activations and weights, so results differ from qnnpack or the float model.",
       "Quantize with observers using `reduce_range=True` (7-bit activations, as the default fbgemm qconfig does), "
       "or use the qnnpack engine for that model."),
    _e("quantized-tensor-float-op", "quantized", "a quantized tensor reached a float op",
       r"Could not run '[\w:.]+' with arguments from the 'Quantized(CPU|CUDA)(TensorId)?' backend",
       "A tensor in PyTorch's quantized format (qint8/quint8) reached an op that has no kernel for quantized "
       "tensors (an add, a matmul, a norm, an embedding lookup or a custom layer of the float model): the model "
       "lacks a `DeQuantStub` (or `.dequantize()`) before the float part, or a float add ran where "
       "`FloatFunctional` is needed.",
       "Dequantize before float ops: put `torch.ao.quantization.DeQuantStub()` (or `x.dequantize()`) where the "
       "quantized region ends, use `nn.quantized.FloatFunctional()` for adds/cats inside it, or leave that module "
       "out of quantization (`qconfig = None` for it); an `nn.Embedding` is quantized weight-only "
       "(`float_qparams_weight_only_qconfig`), not like a Linear."),
    _e("quant-kernel-offload", "device", "GPU-only quantized kernels with modules offloaded to the CPU or disk",
       r"(Exllama|exllama|marlin|machete)\w*( or \w+)? backend requires all the modules to be on GPU|"
       r"Found modules on cpu/disk|(exllama|marlin)\w*[^\n]{0,80}(requires|needs) all[^\n]{0,30}(on|in) (the )?GPU",
       "The GPTQ (or AWQ) model was dispatched with some modules on the CPU or disk (`device_map='auto'` "
       "offloaded them for lack of GPU memory, or a `device_map` / `max_memory` put them there), and the "
       "ExLlama kernels run only on the GPU.",
       "Load the whole model on the GPU (`device_map={'': 0}` or `'cuda:0'`, with enough free memory), or turn "
       "ExLlama off to allow offloading: `GPTQConfig(bits=4, use_exllama=False)` (older versions: "
       "`disable_exllama=True` in the quantization config)."),
    _e("bnb-optimizer-grad-dtype", "quantized", "a bitsandbytes 8-bit optimizer without kernels for this gradient dtype",
       r"Gradient\+optimizer bit data type combination not supported",
       "bitsandbytes' 8-bit optimizers (state in uint8) have a kernel per gradient dtype, and early releases had "
       "them only for fp32 and fp16 gradients: bf16 gradients (a model cast to bf16) were not supported.",
       "Upgrade bitsandbytes (newer releases take bf16 gradients), or keep the trainable parameters fp32 (or fp16) "
       "and run the forward under `torch.autocast(dtype=torch.bfloat16)`."),
    _e("bnb-on-cpu", "quantized", "bitsandbytes 8-bit / 4-bit loading on a machine without a GPU",
       # the install message alone ("requires Accelerate ... and the latest version of bitsandbytes") is an install
       # problem; with device_map='cpu' in the paste it is the CPU
       r"\A(?=.*load_in_(8|4)bit\s*=\s*True)(?=.*device_map\s*=\s*['\"]cpu['\"])|"
       # ... or an Apple silicon Mac, where bitsandbytes had no backend either
       r"\A(?=.*(Using .?bitsandbytes.? (8|4)-bit quantization requires|bitsandbytes))(?=.*\b(M[1-4]( Pro| Max| Ultra)?"
       r"(芯片| chip)?|mps|MPS|Apple silicon|Mac(Book)?|macOS)\b)",
       "`load_in_8bit` / `load_in_4bit` quantize with bitsandbytes, whose 8-bit and 4-bit kernels need a CUDA GPU "
       "(its CPU and XPU backends arrived only in recent releases, and Apple MPS is not supported): on a CPU-only "
       "machine, a Mac or with `device_map='cpu'` transformers raised a misleading 'requires accelerate and "
       "bitsandbytes' error.",
       "Run on a GPU (check `torch.cuda.is_available()`); on the CPU or a Mac load a model that is not a "
       "bitsandbytes checkpoint (fp16 / bf16 weights, GGUF or MLX builds), or upgrade bitsandbytes to a release "
       "with a CPU backend."),
    _e("peft-fp32-adapters", "quantized", "PEFT keeps adapter weights in float32",
       r"autocast_adapter_dtype|\blora_[AB](\.default)?\b[^\n]{0,20}\btorch\.float32|"
       r"\b(LoRA|adapter)s? (weights? )?(are|is) (always |silently )?(up)?cast\w* (back )?to .?(float32|fp32)|"
       r"\b(LoRA|[Aa]dapters?)\b[^.\n]{0,60}\b(conflict|clash|mismatch)\w* with (the )?(base )?model'?s? "
       r"(dtype|data ?type|precision)s?\b",
       "PEFT keeps adapter weights in float32 by default (`autocast_adapter_dtype=True` upcasts fp16 / bf16 adapters "
       "when they are created or loaded) for stable training next to a half-precision base, so adapters saved in "
       "fp16 or set to bf16 come back float32.",
       "Pass `autocast_adapter_dtype=False` to `get_peft_model(...)` / `PeftModel.from_pretrained(...)` to keep the "
       "dtype you chose, or cast afterwards (`model.to(torch.bfloat16)`); keeping them fp32 and training under "
       "`torch.autocast` is the stable default."),
    _e("bnb-model-cast", "quantized", "a bitsandbytes-quantized model was cast or moved after loading",
       r"(You )?(cannot|can'?t|can not) cast a (bitsandbytes|GPTQ|quantized) model (in|to) a new .?dtype|"
       r"(\.|\b)to(\([^)\n]{0,40}\))?.? is not supported for .?(4-bit|8-bit|quantized models?\b)|Calling .?(cuda|"
       r"half|float|to)\(\).? is not supported for "
       r".?(4-bit|8-bit)|Casting a (\w+ )?quantized model to a new .?dtype.? is (not supported|unsupported)|"
       r"\.(half|float)\(\).? is not supported for quantized model|"
       r"loaded in (.?bitsandbytes.? )?(4|8)bit and conversion to \S+ is not (yet )?supported|"
       r"\bQ\w*Tensor\b[^\n]{0,30}\bcannot be changed\b",
       "A 4-bit/8-bit bitsandbytes (or GPTQ) model was cast or moved after `from_pretrained` (`.half()`, "
       "`.to(torch.bfloat16)`, `.cuda()`, or a trainer / pipeline that moves the model), but its packed weights "
       "cannot change dtype and `device_map` already placed it.",
       "Choose dtype and device when loading: `from_pretrained(..., quantization_config=bnb_config, "
       "torch_dtype=torch.bfloat16, device_map={'': 0})`, and drop the later `.to()` / `.half()` / `.cuda()` "
       "(trainers skip moving a quantized model; in a pipeline pass the loaded model without `device=`); moving "
       "(`.to(device)`, `.cuda()`) is allowed by recent releases (4-bit with bitsandbytes >= 0.43.2, 8-bit with "
       ">= 0.48, and a transformers of the same era): upgrade both if your code must move it; a dtype cast stays "
       "refused.",
       # after `model.dequantize()` the refusal is transformers keeping the quantization flag: a library bug
       unless=r"\.dequantize\(\)"),
    _e("quantized-forced-fp16", "quantized", "a serving engine runs a quantized model in fp16 whatever dtype was asked",
       r"Model is quantized\. Forcing float16 datatype|\bquantiz\w+[^\n]{0,60}\bforc\w+ (float16|fp16|half)\b",
       "The engine (vLLM and engines built on it, before 0.6) casts every GPTQ / AWQ / SqueezeLLM-quantized model "
       "to float16, because those kernels compute in fp16, and ignores `--dtype`: bf16 or float32 asked for are "
       "replaced, and GPUs with slow fp16 (Pascal P40, GTX 10xx) run it slowly.",
       "Upgrade the engine (newer releases honour `--dtype` where the quantization kernel has that dtype), pick a "
       "quantization whose kernels run in the dtype you need, or on a GPU without fast fp16 serve an unquantized "
       "model in float32 (`--dtype float32`)."),
    _e("zero-quantized-weights-bf16", "quantized", "ZeRO++ quantized weights come back fp16 in a bf16 run",
       r"\A(?=.*zero_quantized_(nontrainable_)?weights)(?=.*\b(bf16|bfloat16)\b)(?=.*\b(fp16|float16|half)\b)",
       "DeepSpeed ZeRO++ quantized weights (`zero_quantized_weights`) are all-gathered as int8 and dequantized to "
       "fp16 instead of the parameters' original bf16 in the releases with this bug, so bf16 activations meet "
       "fp16 weights.",
       "Turn `zero_quantized_weights` (and `zero_quantized_nontrainable_weights`) off in a bf16 run, or upgrade "
       "DeepSpeed to a release that restores the original dtype after dequantizing."),
    _e("bnb-default-fp16", "quantized", "bitsandbytes loads the non-quantized layers in fp16 by default",
       r"Overriding torch_dtype=None with .?torch_dtype=torch\.float16.? due to requirements of .?bitsandbytes",
       "Without `torch_dtype`, transformers loads the layers bitsandbytes does not quantize (embeddings, norms, "
       "lm_head) in fp16; with `bnb_4bit_compute_dtype=torch.bfloat16` or bf16 training they then meet bf16 "
       "activations (dtype mismatches), and fp16 norms / lm_head can overflow.",
       "Pass the dtype you compute in: `from_pretrained(..., torch_dtype=torch.bfloat16)` with "
       "`bnb_4bit_compute_dtype=torch.bfloat16` (fp16 for both on GPUs without bf16).",
       # the notice alone is printed on every such load: a fault only beside bf16 or a mismatch / overflow
       context=r"\bbf16|bfloat16|\bnan\b|\binf\b|overflow|expected (scalar )?type|same dtype|dtype mismatch|"
       r"!=|but (got|found)"),
    _e("float-init-on-quantized", "quantized", "an adapter init or operation that needs float base weights got "
       "packed quantized ones",
       r"Please initialize (PiSSA|CorDA|MiCA|OLoRA|LoftQ|EVA)\w* under float32, float16,? or bfloat16|"
       r"Unsupported data type for the base layer\. Got (torch\.)?(u?int8|uint4|int4)",
       "The base layer holds packed quantized weights (bitsandbytes uint8/int8), and this PEFT step needs real "
       "float weights: SVD-based inits (PiSSA, CorDA, OLoRA, MiCA) decompose the base weight, and some adapter "
       "variants read the base weight directly.",
       "Initialise on a float base and quantize afterwards: load the base in fp32/bf16, create the adapter "
       "(`init_lora_weights='pissa'`), save the residual base (PEFT's `save_pretrained(..., "
       "path_initial_model_for_weight_conversion=...)`), then load that residual quantized for training; or "
       "dequantize the layer first (`peft.utils.integrations.dequantize_module_weight`)."),
    _e("merge-into-packed-refused", "quantized", "LoRA merge refused on a GPTQ/AWQ-packed base",
       r"Cannot merge LORA layers when the model is (gptq|awq|\w+) quantized|"
       # ms-swift: "qwen2-72b-instruct-awq is a quantized model and does not support merge-lora"
       r"\bis a quantized model and does not support merge[-_ ]?lora\b",
       cause="PEFT cannot fold LoRA weights into GPTQ or AWQ weights: they are packed int4 with scales, and a merge "
       "needs a float weight to add the delta to.",
       fix="Keep the adapter unmerged for inference (the PeftModel on the quantized base), or merge it into the "
       "original fp16/bf16 (unquantized) base model and quantize the merged model again."),
    _e("merge-into-bnb-refused", "quantized", "LoRA merge refused on a bitsandbytes 8-bit/4-bit base",
       r"Cannot merge LORA layers (when the model is loaded )?in (8|4)-bit mode",
       cause="The base model was loaded quantized by bitsandbytes (`load_in_8bit` / `load_in_4bit`): its weights are "
       "int8 or packed 4-bit with scales, and this PEFT release cannot fold the LoRA delta into them; a merge needs "
       "a float weight to add it to.",
       fix="Load the base again in fp16/bf16 without quantization (`from_pretrained(base, "
       "torch_dtype=torch.float16)`, no `load_in_8bit` / `load_in_4bit`), load the adapter on it, `merge_and_unload()` "
       "and save; quantize the merged model afterwards if needed. Newer PEFT merges into 4-bit/8-bit layers by "
       "dequantizing, at the cost of rounding the delta."),
    _e("merge-into-quantized", "quantized", "merging LoRA into a 4-bit/8-bit base rounds the merged weights",
       r"Merge lora module to (4|8)-bit linear may get different generations due to rounding errors|"
       r"\bmerg\w*[^.\n]{0,40}\bchang\w* (the )?(inference|outputs?|generations?|results?)\b[^.\n]{0,30}\b(on|with|"
       r"for) (a )?(4-?bit|8-?bit|quantized)\b|"
       r"merg\w*[^.\n]{0,80}\b(4|8)-?bit[^.\n]{0,80}\b(wrong|differ\w*|worse|garbage|gibberish|degrad\w*|broken|"
       r"bad|nonsense)",
       "Merging adds the LoRA delta to a dequantized copy of each 4-bit/8-bit weight and quantizes the sum again, so "
       "the merged model rounds the (small) adapter update away in part and its generations differ from the "
       "unmerged adapter's.",
       "Merge into the base loaded in bf16/fp16 (not quantized: `from_pretrained(base, torch_dtype=torch.bfloat16)`, "
       "load the adapter, `merge_and_unload()`, save), then quantize the merged model if needed; or keep the adapter "
       "unmerged on the quantized base."),
    # ComfyUI's quantized ops: "No backend can handle 'dequantize_int8_embedding': eager: q: dtype torch.bfloat16 not
    # in {torch.int8}"
    _e("quant-op-no-backend", "quantized", "a quantized op given a tensor that is no longer quantized",
       r"No backend can handle '\w+'[^\n]{0,80}\bdtype \S+ not in \{",
       "The quantized op's backends accept only the dtypes listed (int8, fp8), and the tensor reached it already "
       "dequantized (bf16 / fp16): typically an offloaded quantized weight that the cast-on-load path returned as a "
       "plain float tensor, while the layer still routed it to the quantized kernel.",
       "Update the tool (the layer must use the quantized kernel only when it gets a quantized tensor and fall back "
       "to the float op otherwise), or turn off offloading / the quantized (int8) mode for that model."),
    # unsloth / PEFT: a 16-bit merge reloaded with load_in_4bit is quantized again on load
    _e("merged-reloaded-4bit", "quantized", "a 16-bit merged model reloaded in 4-bit",
       r"\A(?=.*\b(merged_16bit|save_pretrained_merged|merge_and_unload|merged (model|weights|checkpoint))\b)"
       r"(?=.*\bload_in_4bit\s*=\s*True\b)(?=.*\b(differ\w*|different|worse|not (the same|working)|wrong|"
       r"degrad\w*|garbage|gibberish)\b)",
       unless=r"\w+Error\b|Traceback",
       cause="The merge was saved in 16-bit (fp16/bf16), and loading it with `load_in_4bit=True` quantizes those "
       "weights to 4-bit again on load, so the reloaded model rounds what the merge kept and its outputs differ from "
       "the model trained in memory.",
       fix="Load the merged 16-bit model in 16-bit (`load_in_4bit=False`, `dtype=torch.bfloat16`), or save and load "
       "the adapter on the 4-bit base it was trained on, if the 4-bit model is what should be compared."),
    # int8 tensor-core GEMMs: "int8 mode only works with sm >= 75", bitsandbytes' "does not support Int8 Matmul"
    _e("int8-gpu-capability", "device-capability", "an int8 GEMM this GPU has no kernel for",
       r"\bint8 mode only works with sm ?>= ?\d+|Your GPU does not support Int8 Matmul|"
       r"\A(?=.*CUBLAS_STATUS_NOT_SUPPORTED)(?=.*\bint8\w*)",
       # (CTranslate2's compute types have their own story)
       unless=r"\bcompute_type\b",
       cause="int8 GEMMs on tensor cores (cuBLASLt's igemmlt, FasterTransformer's int8 modes, LLM.int8) need a Turing "
       "(sm_75) or newer GPU, and some int8 layouts or int8 outputs only Ampere (sm_80): Pascal (P40, P100, GTX "
       "10xx) and Volta (V100) are not supported by those kernels.",
       fix="Run fp16 (or fp32) on that GPU, upgrade bitsandbytes (0.37 and later run LLM.int8 on older GPUs "
       "through a slower path), or use an int8 mode whose output is int32 / a GPU of compute capability 7.5 or "
       "newer."),
    # an 8-bit (LLM.int8) model trained without fp16 mixed precision: a loss of 0
    _e("int8-train-without-fp16", "quantized", "an 8-bit model trained without fp16 mixed precision",
       r"\A(?=.*(--quantization_bit\s*8\b|load_in_8bit\s*=\s*True|--load_in_8bit\b))(?=.*\bloss(?![a-z_])[^\n]{0,12}?"
       r"(一直|总是|都)?(是|为|=|:|is|stays|of)?\s*0(\.0+)?(?![\d.]))(?!.*(--fp16|fp16\s*=\s*True|--bf16|"
       r"bf16\s*=\s*True))",
       unless=EXCEPTION_NAMED,
       cause="bitsandbytes' LLM.int8 layers compute in fp16, and the 8-bit recipes of trainers pair them with fp16 "
       "mixed precision: an 8-bit model trained without it (no `--fp16` / `fp16=True`, the trainer's fp32 path) has "
       "been seen to train with a loss of 0 from the first step.",
       fix="Train 8-bit models with fp16 mixed precision (`--fp16`, `fp16=True`), or use 4-bit QLoRA with "
       "`bnb_4bit_compute_dtype=torch.bfloat16` and `bf16=True`."),
    _e("bnb-int8-cast", "quantized", "bitsandbytes 8-bit matmul casts its inputs to fp16",
       r"MatMul8bit\w*: inputs will be cast from|inputs will be cast from \S+ to (torch\.)?float16 during quantization",
       "bitsandbytes' LLM.int8 (8-bit) matmul quantizes its inputs from float16 only, so float32 or bfloat16 "
       "activations (a model loaded without `torch_dtype`, layers kept fp32 by `prepare_model_for_kbit_training`, "
       "or bf16 training of an 8-bit model) are cast to fp16 first: a warning, the results are fine, the cast "
       "costs time, and bf16 values beyond fp16's range would overflow.",
       "Load the 8-bit model in fp16 (`torch_dtype=torch.float16`, `fp16=True`) so nothing is cast; 8-bit has no "
       "bf16 path, so for bf16 training use 4-bit (`bnb_4bit_compute_dtype=torch.bfloat16`); otherwise the "
       "warning can be ignored."),
    _e("bnb-compute-dtype", "quantized", "bitsandbytes 4-bit layer computes in another dtype than its input",
       r"Input type into Linear\w*bit\w* is torch\.\w+, but bnb_4bit_compute_d?type|"
       r"\binput to the forward of Linear\w*bit\w* is (torch\.)?\w+[^\n]{0,60}\bcompute_d?type\b",
       "A bitsandbytes 4-bit layer dequantizes its weights to `bnb_4bit_compute_dtype` (float32 by default) while "
       "the activations arrive in fp16/bf16, so every matmul runs in fp32 after a cast: slow, not wrong; in "
       "releases before the fix, float32 activations also made the layer compute in float32 whatever the compute "
       "dtype said.",
       "Set the compute dtype to the activations' dtype: `BitsAndBytesConfig(load_in_4bit=True, "
       "bnb_4bit_compute_dtype=torch.bfloat16)` (or `torch.float16` on GPUs without bf16), matching the model's "
       "`torch_dtype`, and give the layer inputs in that dtype (cast the input, or upgrade bitsandbytes)."),
    _e("hqq-compute-dtype", "quantized", "HQQ dequantizes to a compute dtype other than the activations'",
       _FLOAT_MISMATCH,
       context=r"hqq[/\\.]|HQQLinear|HQQBackend|HqqConfig|AutoHQQ|HQQModel|\bhqq\b",
       cause="HQQ dequantizes each weight to its `compute_dtype` (float16 by default in `HQQLinear`, "
       "`AutoHQQHFModel.quantize_model` and `from_quantized`) and multiplies it with the activations, so a bf16 (or "
       "fp32) model meets fp16 weights inside hqq, or an fp16 compute dtype meets activations a trainer upcast.",
       fix="Give HQQ the model's dtype: `HQQLinear(layer, quant_config, compute_dtype=torch.bfloat16)`, "
       "`AutoHQQHFModel.quantize_model(model, quant_config=quant_config, compute_dtype=torch.bfloat16, "
       "device='cuda')` or `from_quantized(path, compute_dtype=torch.bfloat16)`; with transformers' `HqqConfig` "
       "load with `torch_dtype=torch.bfloat16` (the compute dtype follows it); or run the whole model in fp16."),
    _e("quant-tensor-dtype", "quantized", "quanto / torchao weights dequantize to the dtype the model had when "
       "quantized",
       _FLOAT_MISMATCH,
       context=r"quanto|QBytesTensor|QBitsTensor|QTensor|QuantoConfig|\bqint[248]\b|qfloat8|torchao[/\\.]|"
       r"AffineQuantizedTensor|LinearActivationQuantizedTensor|TorchAoConfig|\bquantize_\(",
       cause="optimum-quanto and torchao keep each quantized weight's scale in the dtype the model had when it was "
       "quantized (`quantize()` / `quantize_()`) and dequantize to it, so a model cast to another dtype afterwards, "
       "inputs of another dtype, or a trainer's fp32 pieces (LoRA adapters, upcast layers, an fp32 loss path in "
       "backward) meet weights of the quantization-time dtype.",
       fix="Cast the model to its compute dtype before quantizing and keep it there: `model.to(torch.bfloat16)`, then "
       "`quantize(model, weights=qint8)` and `freeze(model)` (quanto) or `quantize_(model, int8_weight_only())` "
       "(torchao); with transformers pass `torch_dtype=torch.bfloat16` next to `QuantoConfig(weights='int8')` / "
       "`TorchAoConfig(...)`; feed inputs in that dtype, do not `.to(dtype)` the model after quantizing, and keep "
       "the trainer's mixed precision the same dtype (or cast adapters with `.to(x.dtype)`)."),
    _e("packed-quant-weight", "quantized", "packed quantized weights used as plain weights",
       rf"({MATMUL}).{{0,80}}{PACKED}|expected scalar type (Half|BFloat16) but found (?-i:Char|Byte)|"
       r"\"(addmm|mm|bmm|matmul|baddbmm|addmv|linear)\w*\" not implemented for '(Byte|Char)'|"
       r"weight type \((c10::)?(signed char|unsigned char|Char|Byte|torch\.(cuda\.)?\w*(Byte|Char)Tensor)\)|"
       rf"not implemented for '(Byte|Char)'.{{0,200}}({QUANT_CONTEXT})|({QUANT_CONTEXT}).{{0,400}}"
       rf"not implemented for '(Byte|Char)'|unsupported operand type\(s\) for [^:\n]{{1,4}}: [^\n]{{0,20}}"
       r"'(Params4bit|Int8Params|QTensor|AffineQuantizedTensor)'",
       "A quantized layer's packed integer weight (bitsandbytes packs 4-/8-bit weights into uint8/int8 storage) "
       "reached a float matmul as if it were a plain weight: the model was cast or moved around its quantization "
       "backend (`model.half()`, `.to(dtype)`), custom code used `layer.weight` directly, or a quantized "
       "checkpoint was loaded into plain `nn.Linear` layers.",
       "Do not cast the packed weight: load the model through its quantization backend "
       "(`from_pretrained(..., quantization_config=BitsAndBytesConfig(..., bnb_4bit_compute_dtype=torch.bfloat16))`"
       " with bitsandbytes installed), call the quantized module instead of `F.linear(x, layer.weight)`, or "
       "dequantize first (`bnb.functional.dequantize_4bit(w.data, w.quant_state)`, PEFT's "
       "`dequantize_module_weight`); set the compute dtype to the activations' dtype.",
       context=None),
    _e("bnb-quantize-non-float", "quantized", "bitsandbytes asked to quantize a tensor that is not a float",
       r"Blockwise quantization only supports 16/32-bit floats, but got \S+",
       "bitsandbytes can only quantize fp16/bf16/fp32 weights, and the tensor it got is already integer: the "
       "checkpoint or layer is already quantized (uint8/int8 packed storage), so it is being quantized a second "
       "time, or an integer tensor was handed to a quantized layer.",
       "Quantize from the original fp16/bf16/fp32 weights: load the unquantized checkpoint with "
       "`quantization_config=BitsAndBytesConfig(...)` (or the tool's quantize option) once, do not quantize an "
       "already-quantized model or checkpoint again (int8 then nf4), and keep integer tensors out of the layers "
       "being quantized; with diffusers / accelerate offloading of a bnb model use `enable_model_cpu_offload` "
       "(whole components), not `enable_sequential_cpu_offload`, whose per-layer hooks re-quantize packed weights."),
    _e("torchao-int4-dtype", "quantized", "torch's int4 weight-only kernel (torchao, gpt-fast, HQQ) wants bf16",
       r"_weight_int4pack_mm\w*\s*:?\s*expect(ed)? (A|x) to be (float16 or |bf16|bfloat16)|"
       r"expected x to be bf16|"
       r"Expected (Tensor argument )?scales to have dtype torch\.bfloat16"
       r"(?=.{0,2000}(int4|torchao|quantize_|tinygemm))|"
       r"(int4|torchao|quantize_|tinygemm).{0,2000}Expected (Tensor argument )?scales to have dtype torch\.bfloat16|"
       r"_convert_weight_to_int4pack.{0,2000}Expected in\.dtype\(\) == at::k(Int|Byte)|"
       r"Expected in\.dtype\(\) == at::k(Int|Byte).{0,2000}(int4pack|int4|hqq|torchao)",
       "torch's int4 weight-only kernels (tinygemm: `_weight_int4pack_mm` / `_convert_weight_to_int4pack`, used by "
       "torchao's `int4_weight_only()` / `Int4WeightOnlyConfig`, gpt-fast / torchchat and HQQ's torchao backend) take "
       "bf16 activations and bf16 scales on CUDA (fp16 or bf16 on CPU and MPS), and their packed-weight input "
       "changed from int32 to uint8 in torch 2.5, so an fp32/fp16 model, or a torch version that does not match "
       "torchao / hqq / gpt-fast, is refused.",
       "Cast the model to bf16 before quantizing and run it in bf16: `model.to(torch.bfloat16)` then "
       "`quantize_(model, int4_weight_only())` (transformers: `TorchAoConfig('int4_weight_only')` with "
       "`torch_dtype=torch.bfloat16`; HQQ: `compute_dtype=torch.bfloat16`), with bf16 inputs; on CPU/MPS fp16 or bf16 "
       "activations; for `Expected in.dtype() == at::kInt/kByte` install torch and torchao / hqq / gpt-fast "
       "versions made for each other."),
    _e("quant-matmul-unnamed", "quantized", "a matmul dtype mismatch in a quantized model (dtypes cut off)",
       rf"({MATMUL})(?![^\n]{{0,40}}(float|half|bfloat|double|byte|char|int|long|bool))",
       "The message is cut before it names the two dtypes; in a quantized model (the text mentions "
       "quantization) the usual cause is a packed int8/uint8 quantized weight reaching a plain matmul with "
       "fp16/bf16 activations (a LoRA or custom path using `layer.weight` directly, or a quantized checkpoint "
       "loaded into plain layers), less often a float adapter of another dtype than the activations.",
       "Get the full message (it names both dtypes); if one is int8/uint8, call the quantized module instead of "
       "using its packed weight, dequantize it first (`bnb.functional.dequantize_4bit`, PEFT's "
       "`dequantize_module_weight`), or load through the quantization backend with the compute dtype set to the "
       "activations' dtype (`bnb_4bit_compute_dtype=torch.float16`); if both are floats, cast the adapter to "
       "the activations' dtype or run under `torch.autocast`; early PEFT / bitsandbytes releases raised this in "
       "4-bit LoRA layers themselves, so upgrade both first.",
       context=QUANT_CONTEXT + r"|量化"),
    _e("bnb-int8-bf16", "quantized", "a bitsandbytes 8-bit model with bf16",
       r"expected scalar type BFloat16 but found (Float|Half)|expected scalar type (Float|Half) but found BFloat16",
       "With bitsandbytes in use, the usual cause is bf16 tensors meeting an 8-bit (LLM.int8) layer, whose int8 "
       "matmul computes in fp16/fp32 in older bitsandbytes releases (no bf16 path); the message itself names "
       "only the two dtypes, so it may also be a part of the model or its inputs left uncast.",
       "Upgrade bitsandbytes (newer releases handle bf16 in 8-bit layers), or run the 8-bit model in fp16 "
       "(`torch_dtype=torch.float16`, `fp16=True`), or use 4-bit with `bnb_4bit_compute_dtype=torch.bfloat16`.",
       context=r"bitsandbytes|load_in_8bit|Linear8bit|LLM\.int8|MatMul8bit"),
    _e("quant-kernel-dtype", "quantized", "GPTQ/AWQ/Marlin/ExLlama (AQLM, EETQ, VPTQ) kernels need fp16 (or bf16) "
       "activations",
       rf"{QUANT_KERNEL}.{{0,300}}{LOW}|{LOW}.{{0,300}}{QUANT_KERNEL}|"
       r"\b(aqlm|eetq|vptq|VQuantLinear)\w*.{0,600}(un-?supported dtype|only supports? (float16|bfloat16|half)|"
       r"(float16|bfloat16|fp16|bf16|float32)\b[^\n]{0,40}(is )?(not supported|unsupported))",
       "The quantized GEMM kernels compute in half precision only: GPTQ, AWQ and ExLlama kernels want float16 "
       "activations, Marlin float16 or bfloat16 (AQLM, EETQ and VPTQ builds likewise take a fixed half dtype), so "
       "a float32 model (the default dtype) or bf16 (vLLM's default for bf16 checkpoints) on an fp16-only kernel is "
       "refused.",
       "Load the model in the kernel's dtype: `torch_dtype=torch.float16` in `from_pretrained` (AWQ, GPTQ, "
       "ExLlama), or `dtype='float16'` / `--dtype half` in vLLM (or `\"torch_dtype\": \"float16\"` in the "
       "quantized model's config.json, which vLLM's `auto` follows); Marlin accepts float16 or bfloat16 but never "
       "float32.",
       # a value that overflowed fp16 told in words is a range story, not a kernel refusing a dtype
       unless=r"\boverflow(s|ed|ing)?\b[^.\n]{0,60}\b(fp16|float16|half)\b|\b(fp16|float16|half)\b[^.\n]{0,60}\boverflow|"
       r"(Bfloat16|bf16) is only supported on GPUs with compute capability|"
       r"Index put requires the source and destination|"
       # a loader's config check that names gptq beside a model name ending in -bf16
       r"quantization_config is set but"),
)
