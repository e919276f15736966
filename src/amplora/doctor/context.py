"""What a paste shows around its message (a mixed precision setting, the hardware, a refused dtype): sentences the
knowledge base's fixed cause and fix cannot hold."""
from __future__ import annotations

import re

from amplora.doctor.kb.patterns import CUDA_INIT_FAILED, NO_BF16_GPU, QUANTIZED_BASE
from amplora.doctor.paste import extract_dtypes, spelled


# what a paste shows around the message, which the knowledge base's fixed cause cannot know
_MIXED_SETTING = re.compile(
    r"(?<![\w-])(precision\s*=\s*['\"]?(16|bf16)(-mixed)?['\"]?|--precision[ =]['\"]?(16|bf16|half|fp16)(-mixed)?\b|"
    r"\bAMP\b|[Mm]ixed[- ][Pp]recision|--(fp16|bf16|use[-_]amp|amp)\b|(fp16|bf16|use_amp|amp)\s*="
    r"\s*True|mixed_precision\s*=\s*['\"]?(fp16|bf16)['\"]?|--mixed_precision[ =](fp16|bf16)|"
    r"torch\.(cuda\.)?(amp\.)?autocast\([^)\n]{0,60}\)?)")
_NO_NATIVE_BF16 = re.compile(r"\b((Tesla )?(" + NO_BF16_GPU + r"|M40|M60)|Titan (V|Xp?|RTX)|Quadro RTX ?[4-8]000)\b")
ROCM = re.compile(r"\b(ROCm|HIP|gfx\d{3,4}[a-z]?|Instinct|MI[123]\d{2}X?|Radeon|hipBLASLt|hipBLAS|hipFFT|MIOpen|rocBLAS)\b")
# hardware a paste shows that is not a CUDA GPU: (pattern, the word an answer about it says, what to add to the cause
# with the match, what to add to the fix): what each lacks in fp16 / bf16 / fp64
_HARDWARE = [
    (ROCM, "rocm",
     "The text shows an AMD ROCm GPU ({}): ROCm's fp16/bf16 kernels (FlashAttention, hipBLASLt GEMMs, fused norms) "
     "differ per GPU architecture, and some have given NaN or wrong results where CUDA does not.",
     "On ROCm, if the other half dtype, fp32 or plain attention (`attn_implementation='eager'`) is clean, that kernel "
     "is at fault: keep it off, or upgrade ROCm / torch."),
    (re.compile(r"\b(XPU|xpu(?::\d+)?|Intel Arc|Arc [AB]\d{3}|B5[78]0|Battlemage|Iris Xe|UHD Graphics|IPEX|"
                r"intel_extension_for_pytorch|oneAPI|level_zero)\b"), "intel",
     "The text shows an Intel GPU ({}): Intel integrated GPUs (Iris Xe, UHD) run fp16 but not bf16, and only "
     "data-center Intel GPUs have fp64; fp16 AMP on the `xpu` device needs `torch.amp.GradScaler('xpu')`.",
     "On an Intel iGPU use fp16 or fp32 rather than bf16, and float32 rather than float64."),
    (re.compile(r"\b(MPS|mps(?::\d+)?|Apple (silicon|Silicon|M\d)|M[1-4] (Pro|Max|Ultra)|Metal|Mac (Ultra|Studio|mini|Pro)|"
                r"MacBook|macOS)\b"), "mps",
     "The text shows Apple MPS ({}): MPS has no float64, runs bf16 only on recent macOS and torch, and lacks some "
     "ops.",
     "On MPS use float32 or fp16 (not float64), and `PYTORCH_ENABLE_MPS_FALLBACK=1` to run a missing op on the CPU; "
     "upgrade torch, whose MPS dtype bugs are fixed release by release."),
    (re.compile(r"\b(RTX ?50[5-9]0( Ti)?|50[5-9]0 ?(Ti)?(?=\b|[\u4e00-\u9fff])|sm_?120|Blackwell|GB?200)"), "blackwell",
     "The text shows an NVIDIA Blackwell GPU ({}): libraries built before it (CTranslate2, bitsandbytes, flash-attn, "
     "torch without CUDA 12.8) may lack its kernels, int8 paths most often.",
     "On Blackwell upgrade the library (and torch to a CUDA 12.8+ build), or use a compute type it runs "
     "(float16 / bfloat16)."),
    (re.compile(r"\b(Ascend|torch_npu|npu:\d+|CANN|aclnn\w*)\b"), "npu",
     "The text shows an Ascend NPU ({}): each NPU operator supports only the dtypes in its list (float64 and some bf16 "
     "kernels are missing).",
     "On an Ascend NPU cast to a dtype the operator lists (float32 for float64, fp16 where bf16 is refused)."),
]
# CPU offload (accelerate hooks, diffusers' model / sequential offload, a tool's flag): weights report the CPU
_OFFLOAD = re.compile(r"(?<![\w-])(enable_(model|sequential)_cpu_offload|--?[\w-]*cpu[-_]offload[\w-]*|\w*cpu_offload\w*|"
                      r"offload_mode\w*|--(med|low|no)vram|(med|low)vram|"
                      r"offload_folder|device_map\s*=\s*['\"]auto|[Oo]ffload(ing|ed)? (to|on) (the )?(CPU|cpu|disk)|"
                      r"(?i:\b(layer|transformer|text[_ ]encoder|tokeni[sz]er|block|unet)s? offload(ing)?\b)|"
                      r"enable_group_offload|group[_ ]offload\w*)")
_FSDP_OFFLOAD = re.compile(r"\b(offload_to_cpu|CPUOffload(Policy)?\b|offload_params\s*=\s*True)", re.IGNORECASE)
_ZERO3 = re.compile(r"zero[-_ ]?3|zero_stage\W{0,3}3|\bstage\W{0,3}3\b|zero3_offload", re.IGNORECASE)
# parts of an image pipeline loaded on their own, each in the dtype it was loaded in
_COMPONENT = re.compile(r"\b(ControlNet|IP-?Adapter|T2I-?Adapter|refiner|motion (module|adapter)|AnimateDiff|InstantID|"
                        r"PuLID)\b", re.IGNORECASE)
# Stable Diffusion tools, where a convolution of two dtypes is most often the VAE's
_SD_TOOL = re.compile(r"Error occurred when executing|custom_nodes|ComfyUI|\bcomfy[./]|stable-diffusion-webui|sd-webui|"
                      r"Fooocus|InvokeAI|SD\.Next|\btxt2img\b|\bimg2img\b|KSampler|VAE ?(Decode|Encode)|\bvae\s*=|"
                      r"\bvae\.to\(|AutoencoderKL|StableDiffusion\w*Pipeline|DiffusionPipeline")
# a LoRA applied by a UI, node or loader: its weights left on the CPU are the usual device mismatch there
_LORA = re.compile(r"\bLoRA'?s?\b", re.IGNORECASE)
# a text encoder kept on the CPU or another device (video and image generators offer it to save GPU memory)
_TEXT_ENCODER = r"\b(text|T5|umT5|CLIP|llm)[_ ]?encoders?\b"
_TEXT_ENCODER_ELSEWHERE = re.compile(rf"\btext[_ ]?encoders?[_ ]cpu\b|"
                                     rf"{_TEXT_ENCODER}[^.\n]{{0,60}}\b(on|to|in) (the |a )?(cpu|different device)\b|"
                                     rf"\bcpu\b[^.\n]{{0,20}}\b(for )?(the )?{_TEXT_ENCODER}", re.IGNORECASE)
# Hugging Face trainers, which train data-parallel with one process per GPU
_TRAINER = re.compile(r"\b(SFT|DPO|PPO|GRPO|KTO|ORPO|CPO|RLOO|Reward|Seq2Seq)Trainer\b|\btrl\b|\bTrainer\(|"
                      r"\b(SFT|DPO|PPO|GRPO)\b", re.IGNORECASE)
# a TensorRT engine (its fp16 mode picks layer precisions itself)
_TENSORRT = re.compile(r"\bTensorRT\b|\bload_trt\b|\btrtexec\b|\.engine\b|\bTRT\b")
# a short-time Fourier transform, whose window is a tensor of its own
_STFT = re.compile(r"\b(i?stft|hann_window|TorchSTFT)\b", re.IGNORECASE)
# CUDA that failed to start, so the run fell back to the CPU
_NO_CUDA = re.compile(CUDA_INIT_FAILED + r"|torch\.cuda\.is_available\(\)\W{0,6}False|CUDA is not available")
# torch.compile in the paste: a compiled graph may hold other dtypes than eager
# "No error: ... MMCV: 1.3.1", "works fine with torch 2.0.1", "downgrading to 4.26.1 fixed it"
_RELEASE_WORKS = re.compile(r"\bNo (error|issue|problem)s?\b:?[^.]{0,80}?\bv?\d+\.\d+(\.\d+)+\b|"
                            r"\b(works?|worked|fine|no (error|issue|problem)s?)\b[^.\n]{0,30}\b(with|in|on|using|under)"
                            r"\b[^.\n]{0,25}\bv?\d+\.\d+(\.\d+)+\b|"
                            r"\b(downgrad\w*|roll(ed|ing)? back|revert\w*)\b[^.\n]{0,30}\bv?\d+\.\d+(\.\d+)*\b[^.\n]{0,30}"
                            r"\b(fix\w*|solv\w*|works?|worked|helped)\b", re.IGNORECASE)
# speculative decoding: a draft / assistant model beside the target
_DRAFT = re.compile(r"--speculative[-_]\w+|\bassistant_model\b|\bdraft[_ ]model\b|\bspeculative decoding\b",
                    re.IGNORECASE)
# a model besides the one being trained: distillation teachers, EMA copies, RLHF reference and reward models
_SECOND_MODEL = re.compile(r"\b(teacher(_model)?|ema[_ ]model|model_ema|ref_model|reference model|reward model|"
                           r"critic)\b",
                           re.IGNORECASE)
_COMPILED = re.compile(r"torch\.compile|\binductor\b|TORCHINDUCTOR", re.IGNORECASE)
# an embedding lookup on two devices: token ids against an embedding table
_VISION_TOWER = re.compile(r"\bvision[_ ](tower|encoder|model)\b|\bmm_projector\b|\bvisual encoder\b", re.IGNORECASE)
_EMBEDDING = re.compile(r"index_select|\bF\.embedding\b|\bnn\.Embedding\b|\bembedding\(|\bembed_tokens\b")
# losses whose target is a float tensor like the input, not class indices
_FLOAT_TARGET_LOSS = re.compile(r"\b(binary_cross_entropy(_with_logits)?|BCE(WithLogits)?Loss|mse_loss|MSELoss|"
                                r"(smooth_)?l1_loss|(Smooth)?L1Loss)\b")
# a library that patches torch's tensor methods (PySyft's TorchHook)
# a VAE decoding (or encoding) the denoiser's latents: the pipeline's parts may be loaded in two dtypes
_WINDOW_ATTENTION = re.compile(r"\bshifted[- ]window\w*|\bwindow[- ]attention\b|\bWindowAttention\b|\bSwin\w*\b",
                               re.IGNORECASE)
_GRID_SAMPLE = re.compile(r"\bgrid_sampler?(_2d|_3d)?\b|\bgrid_sample\(|\bflow_warp\b|\bwarp\w*\(")
_VAE_LATENTS = re.compile(r"\bvae\.(decode|encode)\(\s*\w*latents?\b|\b(decode|encode)_latents?\(|"
                          r"\blatents? dtype to match (the )?VAE dtype\b|\bVAE (could be|is|kept|loaded) in "
                          r"(fp32|float32)\b", re.IGNORECASE)
_TORCH_HOOKED = re.compile(r"\b\w*TorchHook\(|\bhook(ed|s|ing)? (torch|pytorch)\b|\b(torch|pytorch) is hooked\b|"
                           r"\bhooked with\b", re.IGNORECASE)
# a report that a run fails with either half dtype
_BOTH_HALVES_FAIL = re.compile(r"\b(both|either)\b[^.\n]{0,60}\b(float16|fp16|bfloat16|bf16)\b|"
                               r"\bfails? (for|with|in) (both|either)\b", re.IGNORECASE)
# an inference engine fed from NumPy preprocessing
_ENGINE = re.compile(r"TensorRT|\bTRT\b|trt-|trtexec|onnxruntime|\bORT\b|\bengine\b", re.IGNORECASE)
_NUMPY_PREP = re.compile(r"(?<![A-Za-z])(numpy|np\.(array|asarray|float64)|astype)(?![A-Za-z])", re.IGNORECASE)
# a dtype a backend says it has no kernel for, as its message spells it
_REFUSED = re.compile(r"not implemented for '?(?:DT_)?([A-Za-z]\w*)'?|scalar_type:\s*([A-Za-z]\w*?)\s*is not su|"
                      r"\]\.? Got:? '?(?:torch\.)?([A-Za-z]\w*)", re.IGNORECASE)


# a mask the user's text names (a variable, or "attention mask" in words), outside library frames
_MASK = re.compile(r"\b(?!\w*(rcnn|former))\w*mask\w*\b|\battention mask\b", re.IGNORECASE)  # not Mask R-CNN
_LIBRARY_FRAME = re.compile(r"^\s*File \"[^\"]*(site|dist)-packages[^\"]*\".*\n.*(\n|$)", re.MULTILINE)


def _outside_libraries(text: str) -> str:
    """`text` without the frames of installed packages (their lines and the code line under each)."""
    return _LIBRARY_FRAME.sub("", text)


# several GPUs visible to a single process, and launchers that start one process per GPU
_SEVERAL_GPUS = re.compile(r"CUDA_VISIBLE_DEVICES\s*=\s*['\"]?\d+(\s*,\s*\d+)+|多卡|多GPU|单机多卡|一机多卡|"
                           r"(?i:\bmulti-?GPU\b|\b(multiple|two|several|2|4|8) GPUs\b)")
# activation checkpointing: the forward is run again in backward
_RECOMPUTE = re.compile(r"\brecomput\w*|(?<!\w)[Cc]heckpoint(_sequential)?\((?!\s*\))|\bgradient[_ ]checkpointing\b|"
                        r"\buse_reentrant\b|\bcheckpoint\.checkpoint\b")
_SEVERAL_PROCESSES = re.compile(r"\b(multiple|several|many) processes\b|\bnum_processes\s*(>|=\s*[2-9])",
                                re.IGNORECASE)
_PER_GPU_LAUNCH = re.compile(r"torchrun|NPROC_PER_NODE|nproc[_-]per[_-]node|accelerate launch|\bdeepspeed\s+\S+\.py|"
                             r"torch\.distributed\.(launch|run)|\bmpirun\b|--num_processes", re.IGNORECASE)


# what the text shows around a device fault: (pattern, a word the answer must not already hold ("{}": the match
# itself; None: none), the sentence for the cause with the match in it, the one for the fix)
_DEVICE_SCENES = [
    (_SECOND_MODEL, "{}",
     "The text names a second model (`{}`): a teacher, EMA, reference or reward model loaded apart from the trained "
     "one stays where it was loaded (the CPU, or cuda:0 in every process of a multi-GPU run) unless it is moved too.",
     "Move that model to each process's device as well (`teacher.to(device)` with `device = torch.device('cuda', "
     "local_rank)`, or `accelerator.prepare` / `accelerator.device`) before its forward."),
    (_OFFLOAD, None,
     "The text shows CPU offload (`{}`): offload hooks move each module's weights to the accelerator only for its "
     "forward, so its parameters report the CPU, and inputs placed with `next(module.parameters()).device` land on "
     "the wrong device.",
     "Under offload put inputs on the execution device (`pipe._execution_device`, `model.device`, the hook's "
     "`execution_device`), not on a parameter's device; a module the offload hooks miss (an extension's, a second "
     "model's) stays on the CPU: run without that offload mode or update the tool or extension."),
    # a loss module's class weights: a plain tensor made on the CPU
    (re.compile(r"\b(CrossEntropyLoss|NLLLoss|BCEWithLogitsLoss|BCELoss|MultiLabelSoftMarginLoss)\(\s*"
                r"(pos_)?weights?\s*="),
     "class weight",
     "The text shows a loss given class weights (`{}`): the weight tensor is made apart from the model (often on "
     "the CPU from a list or NumPy) and a loss created outside the model is not moved by `model.to(device)`.",
     "Move the weights with the batch (`weight=weights.to(device)`, or `loss_fn.to(device)`, which moves its "
     "weight buffer)."),
    # diffusers' group offload with streams prefetches groups in forward order
    (re.compile(r"enable_group_offload|group[_ ]offload\w*"), "stream",
     "The text shows group offloading (`{}`): with CUDA streams (`use_stream=True`) it prefetches the next group "
     "of blocks in forward order, and backward (the recompute of gradient checkpointing) runs them in reverse, so a "
     "group whose weights are still on the CPU meets activations on the GPU.",
     "Turn off the offload streaming (`use_stream=False`) or gradient checkpointing for that run, or upgrade the "
     "trainer / diffusers release that disables one when the other is on."),
    (_FSDP_OFFLOAD, None,
     "The text shows FSDP with CPU offload (`offload_to_cpu`, `CPUOffload` / `CPUOffloadPolicy`): the sharded "
     "parameters and their gradients live on the CPU between steps, so a CUDA tensor from another code path (a "
     "gradient-norm total in `clip_grad_norm_`, a loss scale, a state dict loaded to the GPU) meets them.",
     "Keep what meets the offloaded shards on the CPU (or call `.item()` on a scalar), upgrade torch (FSDP2 CPU "
     "offload with gradient clipping was fixed in later releases), or train without CPU offload."),
    (_TEXT_ENCODER_ELSEWHERE, "text encoder",
     "The text shows a text encoder on the CPU or another device (`{}`): its inputs must go to its own device, and "
     "its outputs (the prompt embeddings, or contexts) are made there and meet the denoiser's weights on the GPU "
     "unless they are moved.",
     "Send the tokens to the text encoder's own device (`ids.to(text_encoder.device)`) and move the prompt "
     "embeddings to the denoiser's device after encoding (`embeds.to(device)`), or update the tool whose "
     "text-encoder placement leaves them apart."),
    # DGL's `g.to(device)` returns a new graph: called without assigning it, the graph stays where it was
    (re.compile(r"\bDGL(Graph|HeteroGraph|Error)?\b|\bdgl\.\w+"), "dgl graph",
     "The text shows a DGL graph (`{}`): a graph's structure and its `ndata` / `edata` live on one device, and "
     "`g.to(device)` returns a new graph instead of moving it in place, so a graph left on the CPU meets "
     "features or a model on the GPU (or the reverse).",
     "Move the graph and keep the result (`g = g.to(device)`; every block from a sampler too: `blocks = "
     "[b.to(device) for b in blocks]`) before setting its features or calling the model."),
    # an explainer is a model of its own (PGExplainer trains an MLP; SHAP / Captum keep baselines and background data)
    (re.compile(r"\b\w*Explainer\b"), "explainer",
     "The text shows an explainer (`{}`): it holds tensors of its own (PGExplainer trains an MLP, SHAP and "
     "Captum explainers keep baselines and background data), made apart from the explained model, so they stay "
     "on the CPU unless they are moved.",
     "Move the explainer and its baselines or background data to the model's device (`PGExplainer(...).to(device)`, "
     "`background.to(device)`) before explaining."),
    # mixup / cutmix draw their mixing weight, permutation or box on the CPU (NumPy, a Beta distribution)
    (re.compile(r"(?i:\b(mix-?up|cut-?mix)\b)"), "mixing weight",
     "The text shows mixup or cutmix (`{}`): the mixing weight lambda (drawn with NumPy or a CPU "
     "`torch.distributions.Beta`), the batch permutation or the box mask is made on the CPU while the batch is on "
     "the GPU.",
     "Make them on the batch's device (`torch.randperm(n, device=x.device)`, `torch.tensor(lam, device=x.device)`, "
     "or keep lambda a Python float)."),
    # a part of a pipeline given a device of its own (a tokenizer or codec worker kept on the CPU)
    (re.compile(r"\b[A-Z][A-Z0-9_]*_DEVICE\s*=\s*['\"]?cpu\b|(?i:\b(tokeni[sz]er|codec|vocoder|vae|decoder)"
                r"( worker| model)? (lives|runs|is|stays|sits|is kept) on (the )?cpu\b)"), "own device",
     "The text shows a part of the pipeline given a device of its own (`{}`): it runs there, so what the rest of "
     "the pipeline hands it (token ids, codes, latents, embeddings made on the GPU) meets its weights on another "
     "device unless it is moved.",
     "Move the inputs to that part's own device before calling it (`codes.to(part.device)`) and its outputs back "
     "to the pipeline's device, or give it the pipeline's device."),
    # a bare 'cuda' (the current GPU, cuda:0 by default) beside a model on another GPU
    (re.compile(r"[\"'`]cuda[\"'`](?=.*\bcuda:[1-9])|\bcuda:[1-9]\d*\b(?=.*[\"'`]cuda[\"'`])", re.DOTALL),
     "current gpu",
     "The text shows a bare `{}` beside another GPU: a device given as 'cuda' without an index means the current "
     "GPU (cuda:0 unless `torch.cuda.set_device` was called), so a device stored or passed as that string (a "
     "config's `device`, a `.to('cuda')`) sends tensors to cuda:0 while the model sits on another GPU.",
     "Keep the index wherever the device is stored or passed (`torch.device('cuda', 2)` or 'cuda:2', or take "
     "`model.device` / `next(model.parameters()).device`), or make that GPU the current one "
     "(`torch.cuda.set_device(2)`, `CUDA_VISIBLE_DEVICES=2`)."),
    (_STFT, "window",
     "The text shows an STFT (`{}`): its window (`torch.hann_window(n)`) is made on the CPU unless given `device=`, "
     "and a window kept as a plain attribute is not moved by `.to()` or `.cuda()`.",
     "Make the window on the signal's device (`torch.hann_window(n, device=x.device)`) or register it as a buffer "
     "(`self.register_buffer('window', torch.hann_window(n))`) so that `.to()` moves it."),
    # a library function given GPU tensors and a device of its own: it moves each batch itself and keeps the rest
    # (inputs it slices, results it gathers) on the CPU
    (re.compile(r"\b\w+\((?=[^()\n]*\.(?:cuda\(\)|to\([\"']cuda))(?:[^()\n]|\([^()\n]*\))*\bdevice\s*=\s*"
                r"[\"']?(?:cuda|gpu)\b[\"']?\)?"),
     "device itself",
     "The text shows a function given tensors already on the GPU and a `device=` of its own (`{}`): such a "
     "function moves each batch to that device itself and gathers what it returns (attributions, predictions) on "
     "the CPU, so the input passed on the GPU meets its CPU results.",
     "Keep the input on the CPU (`x.cpu()`, or pass it as loaded) and let `device=` place the batches; move only "
     "the model, or update the library if its docs say GPU inputs are accepted."),
]


def paste_context(entry, text: str, exception: str, dtypes: list[str], said: str) -> tuple[str, str]:
    """(a sentence for the cause, a sentence for the fix) from what the paste shows besides the message (its
    exception line `exception`, the dtypes it names `dtypes`): a mixed precision setting, a GPU without bf16, the
    hardware, the dtype a backend refused."""
    cause, fix = [], []
    m = _MIXED_SETTING.search(text)
    if m and entry.kind in ("mismatch", "index"):
        half = "bf16 (bfloat16)" if "bf16" in m.group(0).lower() or "bfloat16" in m.group(0) else "fp16 (float16, half)"
        cause.append(f"The text shows mixed precision (`{m.group(0).strip()}`): there layer outputs come out "
                     f"{half} while tensors made by hand (a parameter, buffer, mask token or constant used directly) "
                     f"stay fp32, so the two meet here.")
    if m and entry.kind == "mismatch" and {"fp16", "bf16"} <= set(extract_dtypes(exception or text)):
        fix.append(f"The run is set up with `{m.group(0).strip()}` and meets both half dtypes: use one for the whole "
                   f"run, bf16 (`--precision bf16` / `bf16-mixed`, `bf16=True`) where the GPU has it, else fp16 "
                   f"throughout, or fp32 (`--precision 32`).")
    m = _NO_NATIVE_BF16.search(text)
    if m and "bf16" in dtypes and entry.kind == "mismatch":
        fix.append(f"The text names a {m.group(0)}, a GPU without native bf16 (compute capability below 8.0): "
                   f"libraries fall back to fp16 there, so code or a config that still says bfloat16 (a "
                   f"hard-coded `torch.bfloat16`, `bf16=True`) meets Half tensors; on that GPU use fp16 throughout "
                   f"(`fp16=True, bf16=False`, `torch_dtype=torch.float16`) and take dtypes from the weights "
                   f"(`next(model.parameters()).dtype`) instead of hard-coding them.")
    for pattern, word, about, advice in _HARDWARE:
        m = pattern.search(text)
        if m and word not in said and entry.kind != "device":
            cause.append(about.format(m.group(0)))
            fix.append(advice)
    m = _DRAFT.search(text)
    if m and entry.kind == "mismatch" and "draft" not in said:
        cause.append(f"The text shows speculative decoding (`{m.group(0)}`): the draft (assistant) model is loaded "
                     f"from its own config, whose dtype may differ from the target's, and its tensors meet the "
                     f"target's hidden states.")
        fix.append("Run the draft model in the target's dtype (the server's `--dtype` for both, or `torch_dtype=` "
                   "given to both `from_pretrained` calls).")
    for pattern, word, about, advice in _DEVICE_SCENES:
        m = pattern.search(text)
        if m and entry.kind == "device" and not (word and word.format(m.group(0).lower()) in said):
            cause.append(about.format(m.group(0)))
            fix.append(advice)
    m = _RECOMPUTE.search(text)
    if m and entry.kind in ("mismatch", "device") and "recompute" not in said:
        what = ("the autocast state or default dtype" if entry.kind == "mismatch" else
                "the default device (`torch.set_default_device`), or weights that an offload hook (group offload "
                "with CUDA streams, which prefetches in forward order) has not brought back")
        cause.append(f"The text shows activation checkpointing (`{m.group(0)}`): the checkpointed part runs again "
                     f"in backward (the recompute), and what was in effect in forward is not restored there unless "
                     f"the wrapper does it: {what}, so the recomputed tensors differ from the saved ones.")
        fix.append("Use torch's own `torch.utils.checkpoint.checkpoint(fn, ..., use_reentrant=False)`, which restores "
                   "the forward's autocast state, pass `device=` / `dtype=` explicitly to tensors made inside the "
                   "checkpointed function, upgrade the wrapper (TransformerEngine, torch) that drops the context, or "
                   "turn off offload streaming while checkpointing.")
    m = _LORA.search(text)
    if m and entry.key == "device-mismatch" and "cpu" in text.lower():
        cause.append(f"The text shows a LoRA being applied (`{m.group(0)}`): a LoRA loader (a web UI extension or "
                     f"node, a library's loader) that builds or merges its weights on the CPU while the model runs "
                     f"on the GPU meets the model's tensors here.")
        fix.append("Update or disable the LoRA loader or extension that applies it, or move its LoRA tensors to the "
                   "model's device (`.to(weight.device)`) before they are combined with the weights.")
    if entry.key == "matmul-dtype" and {"int64", "int32"} & set(dtypes):
        cause.append("One side is an integer tensor (token ids, labels, counts or indices) given to a matmul or "
                     "Linear, which takes floating-point inputs.")
        fix.append("Token ids go through an `nn.Embedding` first; numeric features need `.float()` where the batch is "
                   "made (`torch.tensor(x, dtype=torch.float32)`).")
    if entry.kind == "mismatch" and {"bool", "uint8"} <= set(dtypes):
        cause.append("Comparisons and masks give bool tensors (uint8 only before torch 1.2), while older code still "
                     "builds masks with `.byte()`, so a bool mask meets a uint8 one.")
        fix.append("Make both sides bool (`mask.bool()`, `y.bool()` instead of `y.byte()`).")
    if (entry.kind == "mismatch" and {"fp16", "bf16"} <= set(dtypes) and "fp32" not in dtypes
            and _BOTH_HALVES_FAIL.search(text)):
        cause.append("The text says it fails in fp16 and in bf16 alike: then the odd tensor is neither, but one the "
                     "code makes in fp32 (the default dtype) inside the model: a buffer, a mask or a `torch.tensor` "
                     "/ `arange` without `dtype=`, or a layer kept in fp32.")
        fix.append("Create or cast that tensor in the weights' dtype (`dtype=hidden_states.dtype`), or upgrade the "
                   "library (such casts are fixed in later releases).")
    if (entry.kind in ("backend", "overflow") and _ENGINE.search(text) and _NUMPY_PREP.search(text)
            and "float64" not in said):
        cause.append("The text shows NumPy preprocessing: NumPy computes in float64 by default (an image divided "
                     "by 255, a normalisation with float64 means), and a float64 buffer copied into an engine input "
                     "that reads float32 or fp16 is read as other numbers, giving garbage or NaN.")
        fix.append("Cast the input to the engine's input dtype before copying it in (`x.astype(np.float32)`, "
                   "`np.ascontiguousarray(x, dtype=np.float32)`).")
    m = _FLOAT_TARGET_LOSS.search(text)
    if m and entry.kind in ("mismatch", "index", "out-buffer") and "int64" in dtypes and ".float()" not in said:
        cause.append(f"The text shows `{m.group(0)}`, a loss that takes floating-point "
                     f"targets: integer (Long) labels must be cast for it.")
        fix.append("Cast the target to the input's dtype: `loss_fn(output, target.float())` "
                   "(`target.to(output.dtype)` under half precision).")
    if entry.kind == "overflow" and re.search(r"\bcach(e|ed|ing)\b|\.npz\b", text, re.I) and "cache" not in said:
        cause.append("The text speaks of cached outputs (text-encoder embeddings or latents saved to disk): values "
                     "cached while the run was in fp16 keep their inf/NaN, and a later run in another precision reads "
                     "them again unless the cache is rebuilt.")
        fix.append("Delete the cache or regenerate it after changing precision (the trainer's recreate/regenerate "
                   "option for cached text-encoder outputs or latents).")
    m = _WINDOW_ATTENTION.search(text)
    if m and entry.kind == "mismatch" and "mask" not in said:
        cause.append(f"The text shows window attention (`{m.group(0)}`): Swin-style blocks add a relative-position "
                     f"bias and a shifted-window mask to the scores, and one built in fp32 (`torch.zeros`, "
                     f"`masked_fill` on a new tensor) promotes half-precision scores to fp32, which then meet fp16 "
                     f"`v` in `attn @ v`.")
        fix.append("Build the mask and bias in the scores' dtype (`attn + mask.to(attn.dtype)`), or update the "
                   "model code that makes them.")
    m = _GRID_SAMPLE.search(text)
    if m and entry.kind == "mismatch" and "sampling grid" not in said:
        cause.append(f"The text shows `{m.group(0)}`: grid_sample takes its input and its sampling grid in the same "
                     f"dtype, and a grid built in fp32 (`torch.meshgrid`, `F.affine_grid` of an fp32 theta, a base "
                     f"grid plus a flow field) meets a half-precision input, or an fp32 input meets a half grid.")
        fix.append("Give grid_sample one dtype: `F.grid_sample(x, grid.to(x.dtype))`, or run it in fp32 "
                   "(`F.grid_sample(x.float(), grid.float()).to(x.dtype)`), which also keeps large sampling "
                   "coordinates exact.")
    m = _VAE_LATENTS.search(text)
    if m and entry.kind == "mismatch" and "latent" not in said:
        cause.append(f"The text shows a VAE decoding latents (`{m.group(0)}`): a VAE loaded in its own dtype (fp16 "
                     f"or fp32 beside a bf16 transformer or UNet, or upcast to fp32 by the pipeline) gets latents in "
                     f"the denoiser's dtype.")
        fix.append("Cast the latents to the VAE's dtype before decoding (`vae.decode(latents.to(vae.dtype))`), or "
                   "load the VAE with the pipeline's `torch_dtype`.")
    m = _TORCH_HOOKED.search(text)
    if m and entry.kind == "device" and "hook" not in said:
        cause.append(f"The text shows a library that hooks torch (`{m.group(0)}`): its hooks replace tensor methods "
                     f"and `param.data` assignment (a `set_()` on the existing storage), so `model.to('cuda')` "
                     f"makes a CPU tensor take a CUDA source.")
        fix.append("Move the model to its device before hooking torch, set the default tensor type to CUDA around "
                   "`model.to(device)` (`torch.set_default_tensor_type('torch.cuda.FloatTensor')`), or upgrade the "
                   "library.")
    two_gpus = len(set(re.findall(r"cuda:\d+", exception or text))) > 1
    m = _SEVERAL_PROCESSES.search(text)
    if m and entry.kind == "device" and len(set(re.findall(r"cuda:\d+", text))) > 1 and "num_processes" not in said:
        cause.append(f"The text shows several processes (`{m.group(0)}`): a data parallel run (`accelerate launch "
                     f"--num_processes N`) needs a whole copy of the model per process on its own GPU, and a model "
                     f"loaded with `device_map='auto'` in each process is split over all GPUs instead.")
        fix.append("Use one or the other: `num_processes=1` with `device_map='auto'` for a model too large for one "
                   "GPU, or several processes with the model on each process's own GPU (`device_map={'': "
                   "local_rank}`).")
    m = _SEVERAL_GPUS.search(text)
    if m and entry.kind == "device" and two_gpus and not _PER_GPU_LAUNCH.search(text):
        cause.append(f"The text shows several GPUs visible to one process (`{m.group(0)}`) and no launcher that "
                     f"starts a process per GPU: the library then splits the model over them (model parallel, "
                     f"`device_map='auto'`), and a part it does not place (a vision tower, a projector, a reference "
                     f"or value model) meets tensors on another GPU.")
        fix.append("Run each process on one GPU: one visible GPU (`CUDA_VISIBLE_DEVICES=0`), or one process per GPU "
                   "(`torchrun --nproc_per_node N`, `NPROC_PER_NODE=N` for ms-swift, `accelerate launch`), which "
                   "keeps the whole model on the same device in each.")
    if entry.kind == "device" and two_gpus and _TRAINER.search(text) and "local_process_index" not in said:
        cause.append("The text shows a trainer that trains data-parallel (one process per GPU under accelerate or "
                     "torchrun): each process needs a whole copy of the model on its own GPU, and a model loaded "
                     "with `device_map='auto'` (or a map naming GPUs) is spread over all of them instead.")
        fix.append("Load each process's copy on its own GPU: `device_map={'': Accelerator().local_process_index}` (or "
                   "`{'': int(os.environ['LOCAL_RANK'])}`), or drop `device_map` and let the trainer place the model; "
                   "keep `device_map='auto'` only for one process that splits a model too large for one GPU.")
    if entry.kind == "device" and _ZERO3.search(text):
        cause.append("The text shows DeepSpeed ZeRO-3: it partitions the parameters but leaves buffers (rotary "
                     "cos/sin caches, position tables) where the model built them, on the CPU, and with optimizer "
                     "offload keeps the fp32 gradient partitions on the CPU, so a GPU index or scale meets them.")
        fix.append("Upgrade transformers and DeepSpeed (rotary embeddings build their caches on the inputs' device, "
                   "and ZeRO-3 offload device bugs were fixed in later releases), or train with ZeRO-2.")
    if entry.kind == "device" and re.search(r"\bDataParallel\(|nn\.DataParallel\b", text):
        cause.append("The text shows nn.DataParallel: it copies the module to each GPU for every forward and scatters "
                     "the inputs, so a tensor the replicas do not own (a plain attribute, or a model cast or wrapped "
                     "after DataParallel, such as apex amp's O2 applied after wrapping) stays on GPU 0 while a replica "
                     "runs on another.")
        fix.append("Cast or initialize the model (apex `amp.initialize`) before wrapping it in DataParallel, keep "
                   "module tensors as registered buffers, or better use DistributedDataParallel (one process per GPU) "
                   "with torch.amp.")
    m = _COMPONENT.search(text)
    if m and entry.kind == "mismatch" and m.group(0).lower() not in said:
        cause.append(f"The text names {m.group(0)}: a component loaded apart from the main model keeps the dtype it "
                     f"was loaded in (fp32 unless given one), so the pipeline's activations meet its weights in "
                     f"another dtype, or its outputs meet the main model's.")
        fix.append(f"Load {m.group(0)} in the pipeline's dtype (`torch_dtype=torch.float16`, `.to(pipe.dtype)`), or "
                   f"update the tool that loads it.")
    if entry.kind == "mismatch" and re.search(r"\bFSDP2?\b|fully_shard", text) and re.search(r"\bdataclass", text,
                                                                                             re.IGNORECASE):
        cause.append("The text shows FSDP with a dataclass input: FSDP's mixed-precision hook casts the tensors it "
                     "finds in the forward's arguments (tensors, lists, tuples, dicts), and FSDP2 does not look inside "
                     "a dataclass, so its fields stay fp32 beside bf16 weights.")
        fix.append("Cast those fields yourself (`inp.x.to(torch.bfloat16)`) or pass plain tensors or a dict.")
    if re.search(r"\bnn\.RMSNorm\b|\bRMSNorm\(", text) and {"bf16", "fp16"} & set(dtypes) and "finfo" not in said:
        cause.append("The text shows torch's nn.RMSNorm: with `eps=None` it uses `torch.finfo(x.dtype).eps`, which is "
                     "0.0078 in bf16 and 0.00098 in fp16, larger than the mean square of small activations, so the "
                     "normalisation is distorted.")
        fix.append("Pass an explicit eps (`nn.RMSNorm(dim, eps=1e-6)`) or normalise in fp32.")
    m = re.search(r"DistributedModelParallel|DistributedDataParallel|\bDDP\(|\bDMP\b", text)
    if m and entry.kind == "mismatch" and re.search(r"\)\s*\n?\s*\w+ = \w+\.(to\(torch\.(bfloat16|float16)\)|half\(\))",
                                                   text[m.end():]):
        cause.append(f"The text shows the model cast after `{m.group(0).rstrip('(')}` wrapped it: the wrapper's "
                     f"gradient buckets and reducer are built for the parameters' dtype at wrap time, so bf16/fp16 "
                     f"gradients meet fp32 buckets in backward.")
        fix.append("Cast the model before wrapping it (`model.to(torch.bfloat16)`, then the DDP / DMP wrapper), or "
                   "keep it fp32 and train under autocast.")
    m = re.search(r"--default[_-]dtype\W{0,3}\w*|set_default_dtype\([^)]*\)", text)
    if m and entry.kind == "mismatch" and "default dtype" not in said:
        cause.append(f"The text shows a default dtype setting (`{m.group(0).strip()}`): tensors the code creates take "
                     f"it, while a loaded model keeps the dtype it was saved in (float64 against float32).")
        fix.append("Set the default dtype to the loaded model's dtype, or convert the model to it (`model.double()` / "
                   "`model.float()`).")
    if entry.key == "matmul-dtype" and not dtypes:
        cause.append("The message names no dtypes (torch before 2.1 did not print them): a float64 (Double) input "
                     "from NumPy or pandas meeting float32 weights is as likely as a half-precision one.")
        fix.append("For NumPy or pandas data convert where the batch is made (`x.astype(np.float32)`, "
                   "`torch.from_numpy(x).float()`).")
    if (entry.kind == "mismatch" and "fp64" in dtypes and {"fp16", "bf16"} & set(dtypes)
            and not re.search(r"\.float\(\)|np\.float32", said)):
        cause.append("float64 data comes from NumPy or from transforms and augmentations that compute in NumPy "
                     "(its default dtype), and under mixed precision the data must still enter as float32.")
        fix.append("Make the batch float32 where it is built (`x.float()`, `a.astype(np.float32)`, a final cast in "
                   "the transform pipeline) and let autocast or the model's own casts take it from there.")
    m = _SD_TOOL.search(text)
    if m and entry.kind == "mismatch" and (entry.key == "conv-type" or "convolution" in said):
        cause.append(f"The text shows a Stable Diffusion tool (`{m.group(0)}`): there a convolution of two dtypes "
                     f"is most often the VAE's, run in bf16/fp16 by default while a node feeds it fp32 (or the "
                     f"reverse), or loaded on its own without `torch_dtype` (fp32) into an fp16 pipeline.")
        fix.append("Give the VAE the pipeline's dtype (`AutoencoderKL.from_pretrained(..., torch_dtype=torch.float16)`"
                   ") or run it in fp32 (`--fp32-vae`, `--no-half-vae`, a node's VAE / encoder dtype set to fp32) and "
                   "cast its input to the VAE's dtype.")
    if (m and entry.kind == "device" and "vae" not in said.lower()
            and re.search(r"Input type \(torch\.cuda\.\w+\) and weight type \(torch\.\w+\)", text)):
        cause.append(f"The text shows a Stable Diffusion tool (`{m.group(0)}`): there a convolution with its weights "
                     f"on the CPU is most often the VAE's, kept on the CPU (`--cpu-vae`, a low-VRAM mode, a node "
                     f"that loads it there) or not moved back after offloading, while the latents are on the GPU.")
        fix.append("Let the VAE run on the GPU (drop `--cpu-vae` / the low-VRAM mode, or load it with the pipeline's "
                   "device), or move the latents to the VAE's device before decoding; update the tool or node if it "
                   "leaves the VAE behind.")
    if (entry.kind == "cpu-kernel" and {"bf16", "fp16"} & set(dtypes) and re.search(r"deepspeed", text, re.IGNORECASE)
            and "deepspeed" not in said.lower()):
        cause.append("The text shows DeepSpeed: its bf16 / fp16 modes cast the weights themselves instead of running "
                     "under autocast, so layers that DDP with autocast keeps in fp32 (weight norm, norms, some "
                     "convolutions and losses) run in half precision there and meet ops without that kernel.")
        fix.append("Under DeepSpeed keep those layers in fp32 (compute them on `.float()` inputs and cast back, or "
                   "remove weight norm before training), or train with DDP and autocast (`bf16-mixed`).")
    m = _NO_CUDA.search(text)
    if m and entry.kind in ("cpu-kernel", "device-capability", "device") and entry.key != "legacy-cuda-type-no-gpu":
        cause.append(f"The text shows CUDA failing to start (`{m.group(0).strip()}`), so the run fell back to the "
                     f"CPU.")
        fix.append("Make CUDA available first: update the NVIDIA driver or install a torch build for the installed "
                   "driver and CUDA version (`torch.cuda.is_available()` must be True).")
    if _COMPILED.search(text) and entry.kind in ("mismatch", "attention") and entry.key != "compile-dtype":
        named = f" ({' and '.join(spelled(d) for d in dtypes[:2])} here)" if len(dtypes) >= 2 else ""
        cause.append(f"The text shows torch.compile: a compiled graph can hold other dtypes than eager{named}, from "
                     f"factory calls that ignore the default dtype or fused casts, so check the code without "
                     f"compiling.")
    if entry.kind == "device" and re.search(r"\bnpu(:\d+)?\b|torch_npu", text) and "torch_npu" not in said:
        cause.append("The text shows an Ascend NPU: torch_npu must match the torch version, and cross-device copies "
                     "inside its ops (dtype casts while loading weights) failed in older torch_npu releases.")
        fix.append("On Ascend upgrade torch_npu to the release for your torch, and keep inputs on the model's npu "
                   "device (`model.device`).")
    if entry.kind == "device" and re.search(r"\bema\b|ema_model|moving_average|EMAModel|ModelEma\w*", text, re.IGNORECASE):
        cause.append("The text shows an EMA copy of the model: kept or loaded on another device than the model "
                     "(deep-copied before `model.to(device)`, loaded with `from_pretrained` on the CPU, gathered to "
                     "the CPU for the update), its weights meet the model's.")
        fix.append("Keep the EMA model on the model's device (`ema.to(model.device)` after loading), or move both "
                   "to one device for the moving-average update.")
    if entry.kind == "mismatch" and re.search(r"\bcompute_type\b|\bctranslate2\b|\btranslate_batch\b", text,
                                              re.IGNORECASE) and "CTranslate2" not in said:
        cause.append("The text shows CTranslate2: its `compute_type` (`int8_float16`, `int8_bfloat16`, `float16`) "
                     "decides which dtypes its kernels mix, so a dtype error inside `translate_batch` or `generate` "
                     "is the library's own, usually one compute type's path in one release.")
        fix.append("Try another compute type (`int8_float32` or `float32`, `int8` on the CPU) and upgrade CTranslate2 "
                   "(or go back to the previous release) to see whether that path was fixed.")
    if entry.key in ("meta-copy", "meta-device") and re.search(
            r"(?<![\w.])(threads?|threading|ThreadPool\w*|concurren\w*|[Ww]orker \d+)\b", text):
        cause.append("The text shows models loaded in several threads at once: loaders create the model on the meta "
                     "device under a process-wide switch (accelerate's `init_empty_weights`, transformers' "
                     "`low_cpu_mem_usage`), so a concurrent load in another worker thread can leave this model's "
                     "weights on meta.")
        fix.append("Load each model once before the worker threads start (or under a lock) and give each thread "
                   "its own instance, or use worker processes instead of threads.")
    if entry.kind == "device" and re.search(r"cannot be called on meta tensors|\.(item|tolist)\(\)", text):
        pretrained = re.search(r"from_pretrained", text)
        m = re.search(r"torch\.(linspace|arange|logspace|rand\w*|zeros|ones)\b", text)
        if pretrained and "transformers" not in said:
            cause.append("The text shows `from_pretrained` and a value read from a tensor: recent transformers "
                         "releases build the model on the meta device inside `from_pretrained`, so `__init__` code "
                         "that reads tensor values (`.item()`, `.tolist()`) runs on meta tensors.")
            fix.append("Compute such values from the config or Python numbers in `__init__` (or after loading), or "
                       "pin the transformers release the model was written for (`low_cpu_mem_usage=False` where it "
                       "is still honoured).")
        elif m and not pretrained and "cannot be called on meta tensors" in text:
            cause.append(f"The text shows a value computed with torch while the model is built (`{m.group(0)}`): "
                         f"under a meta-device context (`with torch.device('meta')`, `init_empty_weights`) such "
                         f"tensors are meta too, and reading them (`.item()`) has no value to read.")
            fix.append("Compute such constants with NumPy or Python in `__init__` (`np.linspace(0, rate, depth)`, a "
                       "list comprehension), or give that call `device='cpu'`.")
    if entry.kind == "device" and re.search(r"""\bdevice\s*=\s*['"]mps['"]|\.to\(['"]mps['"]\)""", text) \
            and "apple" not in said:
        cause.append("The text runs on Apple's mps device: a tensor made without `device=` (a metric's or loss's "
                     "weights, `torch.ones` in a criterion, a buffer built in `__init__`) stays on the CPU beside it.")
        fix.append("Create such tensors on the input's device (`device=preds.device`) or move the metric or loss "
                   "module too (`metric.to('mps')`).")
    m = _VISION_TOWER.search(text)
    if m and entry.kind == "device" and "vision tower" not in said:
        cause.append(f"The text names the {m.group(0)}: in LLaVA-style vision-language models the vision tower (and "
                     f"often its projector) is loaded apart from the language model, onto the default device "
                     f"(cuda:0 or the CPU), not the one `device_map` or a `--device` option gives the language model.")
        fix.append("Move the vision tower to the language model's device after loading "
                   "(`model.get_vision_tower().to(device)`) or give its loader the same `device_map` / device.")
    if entry.kind == "device" and _EMBEDDING.search(text):
        cause.append("The op is an embedding lookup (index_select): the token ids and the embedding table are on "
                     "different devices, the ids not moved to the model's device, or a text encoder / embedding "
                     "layer kept on or offloaded to the CPU (a low-VRAM mode, CPU offload).")
    if entry.kind == "mismatch" and re.search(r"\bComplex(Float|Double|Half)\b|complex(64|128)", text) \
            and "complex" not in f"{entry.title} {entry.cause} {entry.fix}".lower():  # (the dtype names say it too)
        cause.append("One operand is complex (an FFT or spectral layer's output) and the other real: a matmul needs "
                     "both complex or both real.")
        fix.append("Bring them to one kind: `torch.view_as_real(z)` / `z.real` to go on in real numbers, or cast the "
                   "real operand with `.to(torch.complex64)`.")
    if entry.kind == "device" and re.search(r"jit\.trace|\btraced?\b", text) and "trace" not in said:
        cause.append("The text shows `torch.jit.trace`: a trace records tensors created inside forward with the "
                     "device they had while tracing, so a model traced on the CPU creates them on the CPU when it "
                     "runs on cuda.")
        fix.append("Trace on the device it will run on (model and example input on cuda), or script that code and "
                   "create such tensors with `device=x.device`.")
    if entry.kind == "mismatch" and re.search(r"\bbuffers?\b|register_buffer|buffer_dtype", text) and "buffer" not in said:
        cause.append("The text speaks of buffers: autocast never casts them, `model.to(dtype)` does while a plain "
                     "tensor attribute stays, and FSDP's MixedPrecision casts them only with `buffer_dtype`.")
        fix.append("Cast the buffer to the input's dtype where it is used (`self.kernel.to(x.dtype)`), or set "
                   "`buffer_dtype` in FSDP's MixedPrecision.")
    if (entry.kind == "overflow" and re.search(r"\bgrad_?norm\W{0,4}(is |was |of |为 ?)?\W{0,2}(nan|inf)\b|"
                                                r"\bgrad_?norm\W{0,4}[\d.e+-]+\s*\((nan|inf)\)|\b(nan|inf) grad_?norm",
                                                text, re.I)
            and not re.search(r"\bloss\W{0,4}(is |was |为 ?)?\W{0,2}nan\b", text, re.I)):
        cause.append("A nan/inf grad_norm beside a finite loss is what fp16 dynamic loss scaling (GradScaler, DeepSpeed "
                     "or apex fp16) logs on a step it skips while it lowers the scale: occasional ones are expected "
                     "and harmless; a loss that turns NaN, or a skip on every step, is the fault.")
    if entry.kind in ("mismatch", "quantized") and {"fp16", "bf16"} & set(dtypes):
        m = re.search(r"zero_quantized_(nontrainable_)?weights", text)
        if m:
            cause.append(f"The text shows DeepSpeed ZeRO++ quantized weights (`{m.group(0)}`): the all-gathered "
                         f"weights are dequantized to fp16 (or fp32), not to the bf16 the run computes in.")
            fix.append(f"Turn `{m.group(0)}` off when training in bf16 (or upgrade DeepSpeed).")
        elif re.search(r"deepspeed_config|ds_config|\"zero_optimization\"|\"(fp16|bf16)\"\s*:\s*\{", text):
            cause.append("The text shows a DeepSpeed config: DeepSpeed casts the model to the dtype its config "
                         "enables (`\"fp16\"` / `\"bf16\"`), which can disagree with the launcher's mixed precision "
                         "(accelerate's `mixed_precision`, the Trainer's `bf16=True`).")
            fix.append("Make the DeepSpeed config agree with the run's precision: `\"bf16\": {\"enabled\": true}` and "
                       "`\"fp16\": {\"enabled\": false}` for bf16 (or `\"auto\"` for both under the Trainer).")
    if entry.kind == "device":
        if (re.search(r"\b(optimi[sz]er|optim|Adam\w*|Prodigy|Lion|SGD)\b", text, re.I)
                and re.search(r"\bresum\w*|load_state_dict|from (a |the )?checkpoint|restor\w*", text, re.I)):
            cause.append("The text shows an optimizer restored from a checkpoint: its state (moments, step counts, "
                         "tensors some optimizers keep in `param_groups`) comes back on the device it was saved from "
                         "or mapped to (`map_location='cpu'`), not on its parameters' device.")
            fix.append("Restore the optimizer after `model.to(device)` (`optimizer.load_state_dict` moves its state "
                       "to each parameter's device), move any extra state tensors the optimizer keeps to the "
                       "parameter's device, or upgrade the optimizer's library.")
        m = re.search(r"(?m)^\s*(?![\w.]*(model|net|module|layer|coder|head|pipe|vae|unet|classifier|embed|clip|transformer|lora|"
                      r"adapter|ema|critic|actor|policy))"
                      r"`?(?P<call>(?P<name>[A-Za-z_][\w.]*(\[[^\]\n]*\])?)\.(to|cuda)\([^()\n]*\))`?\s*$", text)
        if m:  # (a line of its own, bare or in backticks as forums quote code)
            cause.append(f"The text shows `{m.group('call')}` as a statement of its own: `Tensor.to()` and "
                         f"`.cuda()` are not in-place, they return a new tensor, so `{m.group('name')}` stays where it was "
                         f"(only `nn.Module.to()` moves in place).")
            fix.append(f"Assign the result: `{m.group('name')} = {m.group('call')}`.")
        m = re.search(r"argument for argument index in method wrapper_\w*?(gather|scatter\w*|index_(?!select)\w+|take\w*)",
                      text)
        if m:
            cause.append(f"The op's `index` argument and the tensor it indexes ({m.group(1)}) are on different "
                         f"devices: indices made by the model on the GPU used on data kept on the CPU, or the reverse.")
            fix.append("Move the indexed tensor (the data) to the index's device (`data.to(index.device)`), or the "
                       "index to the data's.")
        if re.search(r"invalid gradient at index \d+", text) and re.search(r"\.backward\(\s*(gradient\s*=|\w)|"
                                                                             r"grad_outputs\s*=", text):
            cause.append("The failing gradient is the one given by hand: the `gradient=` of `backward()` (or "
                         "`grad_outputs=` of `torch.autograd.grad`) was made on another device or in another dtype "
                         "than the output it belongs to.")
            fix.append("Create it like the output: `out.backward(gradient=torch.ones_like(out))` or "
                       "`target.to(out.device, out.dtype)`.")
        if re.search(r"\bweight_norm\b|_weight_norm_interface", text) and re.search(r"\bmeta\b|'Meta'", text) \
                and "parametrizations" not in said:
            cause.append("`nn.utils.weight_norm` (its `_weight_norm_interface` op) has no meta-device kernel in this "
                         "torch, so building such a model on meta fails.")
            fix.append("Use `torch.nn.utils.parametrizations.weight_norm`, or build that module on a real device (cpu) "
                       "and move it after; newer torch releases cover more ops on meta.")
        if (entry.key == "deserialize-cuda" and re.search(r"is_a\w*\(\)\s*(is|returns|=+)?\s*True", text)
                and "CUDA_VISIBLE_DEVICES" not in said):
            cause.append("CUDA is available in your shell but not in the script: the script (or its launcher) sets "
                         "`CUDA_VISIBLE_DEVICES` to a GPU this machine does not have (e.g. '1' on a one-GPU machine), "
                         "which hides every GPU.")
            fix.append("Point `CUDA_VISIBLE_DEVICES` at a GPU that exists (`os.environ['CUDA_VISIBLE_DEVICES'] = '0'`) "
                       "or remove that line.")
    if entry.kind in ("quantized", "mismatch") and re.search(r"\b(lora|LoRA|adapters?|peft|PeftModel)\b", text) \
            and {"fp16", "fp32"} <= set(dtypes) and "adapter" not in said:
        cause.append("The text shows a LoRA adapter: PEFT creates and loads adapter weights in fp32 while a quantized "
                     "(GPTQ, AWQ, bitsandbytes) or half-precision base computes in fp16, so the adapter's fp32 output "
                     "meets the base's fp16.")
        fix.append("Cast the adapter to the base's compute dtype after loading it (`model.half()`, or "
                   "`autocast_adapter_dtype=False` so PEFT keeps fp16 adapter weights fp16), or run under "
                   "`torch.autocast('cuda', dtype=torch.float16)`.")
    m = re.search(r"(?<![A-Za-z0-9])(dconv|DCNv?\d?|deform_conv\w*|DeformConv\w*|ModulatedDeform\w*|deformable conv\w*)"
                  r"(?![A-Za-z0-9])", text)
    if m and entry.kind == "mismatch" and "deform" not in said:
        cause.append(f"The text shows a deformable convolution (`{m.group(0)}`): a custom CUDA op that autocast "
                     f"does not cast, so under mixed precision its fp16 input meets its fp32 offsets or weight.")
        fix.append("Run the deformable convolution in fp32: cast its input and offsets with `.float()` inside "
                   "`torch.autocast('cuda', enabled=False)` (or decorate its Function with `custom_fwd(cast_inputs="
                   "torch.float32)`), or upgrade mmcv / detectron2 to a release whose op casts them.")
    m = re.search(r"\b(roi_?align|RoIAlign|MultiScaleRoIAlign|roi_?pool\w*|RoIPool)\b", text)
    if m and entry.kind == "mismatch" and "rois" not in said:
        cause.append(f"The text shows `{m.group(0)}`: under mixed precision the feature maps come out fp16 while the "
                     f"boxes (rois) stay fp32, and older torchvision / apex-wrapped RoI ops need both in one dtype.")
        fix.append("Cast the rois to the features' dtype (`rois.to(features.dtype)`), register the op as an fp32 "
                   "function for apex (`amp.register_float_function(torchvision.ops, 'roi_align')`), or upgrade "
                   "torchvision (its roi_align casts the rois itself).")
    if entry.kind == "mismatch" and re.search(r"batchnorm_to_fp32|(?i:\bbatch[ _]?norm\w*)", text) \
            and "batchnorm" not in said:
        cause.append("The text shows BatchNorm: a half model whose BatchNorm layers are kept fp32 (fastai's or apex's "
                     "`batchnorm_to_fp32`, norms left out of a cast) feeds them fp16 input, which only cuDNN's batch "
                     "norm accepts beside fp32 parameters; or the reverse, a batch norm that takes fp16 input only "
                     "with its running stats (running_mean / running_var) and affine weights in fp32 got them cast "
                     "to half by `.half()`.")
        fix.append("Run the model under `torch.autocast` instead of casting it (autocast keeps batch norm in fp32 for "
                   "you), or cast the BatchNorm layers with the rest (`module.half()`).")
    if entry.kind == "overflow" and re.search(r"\bRoPE\b|\brotary\b", text, re.IGNORECASE) and "rotary" not in said:
        cause.append("The text names RoPE: rotary angles (position x frequency, with a base up to 500k) lose their "
                     "low bits in bf16/fp16 (8 or 11 bits of mantissa), so far positions rotate by wrong angles.")
        fix.append("Compute the rotary frequencies, cos/sin and the rotation in fp32 and cast the result back "
                   "(`q.float()` with fp32 `freqs`), as the reference implementations do.")
    if entry.kind == "overflow" and re.search(r"\bautocast\(|with autocast\b", text) and "autocast" not in said:
        cause.append("The text shows autocast: inside `torch.autocast` matmuls and convolutions run in fp16 whatever "
                     "a module's own dtype, so a module cast to fp32 (a VAE, a loss head) still overflows there.")
        fix.append("Run the overflowing module outside autocast (`with torch.autocast('cuda', enabled=False):` with "
                   "fp32 inputs), or autocast to bf16.")
    m = re.search(r"[\w./-]*(-quant|_quant|-int8|_int8|-int4|_int4)\w*\.(ckpt|pt|pth|bin|safetensors)\b", text)
    if m and entry.kind == "overflow":
        cause.append(f"The text loads a quantized checkpoint (`{m.group(0)}`): loaded into a model built without "
                     f"quantization, its packed int8 weights and scales are used as plain weights and give inf/NaN.")
        fix.append("Build the model with quantization on before loading that checkpoint (the loader's `quant=True` / "
                   "`--quant` option), or load the unquantized checkpoint.")
    m = _MASK.search(_outside_libraries(text))
    if m and entry.kind in ("device", "mismatch") and "mask" not in said:
        cause.append(f"The text names a mask (`{m.group(0)}`): a mask built by hand (`torch.ones`, `torch.triu`, "
                     + ("`torch.tensor`) is created on the CPU unless given `device=`, and `model.to(device)` does "
                        "not move it." if entry.kind == "device" else
                        "`torch.tensor`) is fp32, the default dtype, and adding it to fp16/bf16 scores makes them "
                        "fp32 for the next op."))
        fix.append("Create the mask like the tensor it meets: `torch.ones(..., device=x.device, dtype=x.dtype)`, or "
                   "`mask = mask.to(x)`; fill it with `torch.finfo(x.dtype).min`, or use a bool mask with "
                   "`masked_fill`.")
    _quantized_context(entry, text, said, cause, fix)
    if entry.kind == "onnx" and "fp16" in dtypes and re.search(r"\blora\b", text, re.I) and "lora" not in said:
        cause.append("The text blends LoRA weights into the graph: saved as fp32, they meet the fp16 model's tensors "
                     "in the same nodes.")
        fix.append("Convert the LoRA weights to fp16 before blending them into an fp16 model (or blend into the "
                   "fp32 model and convert the result to fp16).")
    if _RELEASE_WORKS.search(text) and entry.kind != "overflow":
        cause.append("The text ties the error to a release: the same code works with another version of a "
                     "library, so that library's change (a regression or a fix) decides it.")
        fix.append("Pin the release that works (downgrade) until a fixed one is out, or upgrade to the release with "
                   "the fix.")
    m = re.search(r"quantization method:? '?(\w+)", text)
    if m and m.group(1).lower() not in said:
        cause.append(f"The quantization method is {m.group(1)}.")
    if entry.key == "needs-gpu-tensor" and re.search(r"fused_adam|FusedAdam|multi_tensor_adam", text) \
            and "fused adam" not in said.lower():
        cause.append("The op is a fused Adam (DeepSpeed's or apex's FusedAdam), which runs only on the GPU, and it got "
                     "optimizer tensors offloaded to the CPU (ZeRO offload, NVMe swapping).")
        fix.append("With optimizer offload use DeepSpeed's CPU Adam (`DeepSpeedCPUAdam`, which DeepSpeed picks when "
                   "`offload_optimizer` is set and no optimizer is forced), or upgrade DeepSpeed if that release "
                   "mixed them up; keep FusedAdam for states on the GPU.")
    if (entry.key == "device-mismatch" and "cpu" in text.lower() and "rotary" not in said
            and re.search(r"device_map|multi(ple)?[- ]GPUs?|split_model", text, re.IGNORECASE)):
        cause.append("With a model split over GPUs by a `device_map` written by hand, a module the map does not list "
                     "stays on the CPU: newer transformers keep the rotary embedding at the model level "
                     "(`model.rotary_emb`), which older maps do not name.")
        fix.append("List every module in the map (`device_map['language_model.model.rotary_emb'] = 0` and the norms, "
                   "embeddings and heads), or let `device_map='auto'` build it.")
    m = re.search(r"to type at::(Half|BFloat16) without overflow:?\s*(-?[\d.]+(e[+-]?\d+)?|-?inf)", text,
                  re.IGNORECASE)
    if m and entry.key == "half-constant-overflow" and m.group(2) not in said:
        cause.append(f"Here the value is {m.group(2)}, which overflows {'fp16' if m.group(1) == 'Half' else 'bf16'} "
                     f"(a fill or sentinel value written for fp32, met by tensors that autocast or a cast made half).")
    m = _TENSORRT.search(text)
    if m and entry.kind == "overflow" and "tensorrt" not in said.lower():
        cause.append(f"The text shows a TensorRT engine (`{m.group(0)}`): built with fp16 enabled, TensorRT runs "
                     f"each layer in fp16 where that is faster, including layers (norms, softmax, long sums) whose "
                     f"values pass 65504, while the eager model keeps them in fp32.")
        fix.append("Build the engine in fp32 (the tool's fp16 flag off), or keep the overflowing layers fp32 in the "
                   "engine (TensorRT's per-layer precision with `OBEY_PRECISION_CONSTRAINTS`, or an fp32 ONNX export "
                   "of those ops).")
    if (entry.key == "meta-copy" and "quantiz" not in said.lower()
            and re.search(r"torchao|(?<![A-Za-z0-9])fp[46](?![A-Za-z0-9])|quantiz", text, re.IGNORECASE)):
        cause.append("The text shows quantization (torchao, fp6 or fp4 weights): a quantizer applied while the "
                     "weights are still on `meta` (before the checkpoint is loaded into them) leaves meta tensors "
                     "that cannot be moved.")
        fix.append("Quantize after the weights are loaded (on the CPU or the GPU), or pick a quantization mode the "
                   "loader supports for that model.")
    m = entry.match.search(text) if entry.key == "typed-buffer-dtype" else None
    if m:  # the entry's pattern names the dtype given and the one held
        cause.append(f"Here it was given {m['src']} items and holds {m['dst']}.")
    m = _SAVED_ON_GPU.search(text)
    if m and entry.key == "deserialize-cuda":
        cause.append(f"It was saved from cuda:{m.group(1)} and this process sees {m.group(2)} GPU(s).")
        fix.append(f"Map that GPU to a device that exists: `map_location={{'cuda:{m.group(1)}': 'cuda:0'}}`.")
    if entry.key == "meta-device" and re.search(r"we need a .?value", text) and "tie" not in said:
        cause.append("accelerate's `set_module_tensor_to_device` found no value for that weight in the checkpoint: "
                     "either the checkpoint lacks it or it is tied to another (an `lm_head` tied to the embeddings "
                     "loses its tie when the model is built under `init_empty_weights`).")
        fix.append("Call `model.tie_weights()` before loading or dispatching, and list tied modules together "
                   "(`no_split_module_classes`); upgrade accelerate, whose releases fixed this for tied models.")
    if entry.kind == "cpu-kernel" and _EXTENSION_SOURCE.search(text) and "dispatch" not in said:
        cause.append("It is raised in a custom C++/CUDA extension's own kernel, whose dispatch macro has no case "
                     "for this dtype.")
        fix.append("In the extension dispatch with `AT_DISPATCH_FLOATING_TYPES_AND_HALF` (or "
                   "`AT_DISPATCH_FLOATING_TYPES_AND2(at::ScalarType::Half, at::ScalarType::BFloat16, ...)`) and "
                   "rebuild, or call it with float32 inputs (`op(x.float()).to(x.dtype)`).")
    m = _REFUSED.search(text)
    if m and entry.kind in ("device-capability", "backend", "cpu-kernel"):
        token = m.group(1) or m.group(2) or m.group(3)
        known = extract_dtypes(token)
        name = spelled(known[0]) if known else token.lower()
        if name.split(" ")[0] not in said or entry.key == "dtype-unsupported":  # its cause lists dtypes in general
            cause.append(f"The refused dtype is {name}.")
        if known and known[0] in ("int8", "uint8") and re.search(r"F\.linear|\bmatmul|\baddmm|\bmm\(", text) \
                and "quantiz" not in said:
            cause.append("An int8 tensor in a float matmul is a quantized layer's weight used directly (`F.linear(x, "
                         "layer.weight)`), bypassing the layer's own forward, which dequantizes it or calls the int8 "
                         "kernel.")
            fix.append("Call the quantized layer itself (`layer(x)`, or its quant method's `apply`) instead of "
                       "reading its weight.")
    m = re.search(r"ShaderModuleDescriptor\W{0,4}\"?(\w+)", text)
    if entry.key == "webgpu-shader-f16-f32" and m and m.group(1).lower() not in said:
        cause.append(f"The shader is {m.group(1)}.")
    if entry.kind == "overflow" and re.search(r"\b(iOS ?1\d|Core ?ML|coremltools|mlmodel|ANE|Neural Engine)\b", text) \
            and "cpuonly" not in said.replace(" ", ""):
        cause.append("The text shows Core ML on an Apple device: its GPU and Neural Engine compute in fp16, so "
                     "intermediate values past 65504 become inf/NaN there while the CPU path stays in fp32.")
        fix.append("Predict on the CPU (`MLModelConfiguration.computeUnits = .cpuOnly`, `usesCPUOnly` on older iOS) "
                   "or convert with `compute_precision=ct.precision.FLOAT32`, and rescale the layer that overflows.")
    m = re.search(r"\bdtype=(?:torch\.|np\.)?(u?int(?:8|16|32)|float\d+)\b", text)
    if entry.key == "long-indices" and m and m.group(1) not in said:
        cause.append(f"The text shows a {m.group(1)} index (`dtype={m.group(1)}`).")
    if entry.key == "jax-carry-dtype":
        changed = _carry_change(text)
        if changed:
            cause.append(f"The field that changes is `{changed[0]}`: {changed[1]} on one side, {changed[2]} on the "
                         f"other.")
    return " ".join(cause), " ".join(fix)


_CARRY_FIELD = re.compile(r"\b(\w+)=['\"]?ShapedArray\((\w+)\[")
_CARRY_DIFFERENT = re.compile(r"\b(\w+)=['\"]?DIFFERENT ShapedArray\((\w+)\[[^\n]*?\bvs\.? ShapedArray\((\w+)\[")


def _carry_change(text: str) -> tuple[str, str, str] | None:
    """The first field of a JAX loop carry whose dtype differs between the two sides the message lists."""
    for name, a, b in _CARRY_DIFFERENT.findall(text):
        if a != b:
            return name, a, b
    first: dict[str, str] = {}
    for name, dtype in _CARRY_FIELD.findall(text):
        if name in first and first[name] != dtype:
            return name, first[name], dtype
        first.setdefault(name, dtype)
    return None


# torch's message for a checkpoint saved on a GPU index this machine does not have
_SAVED_ON_GPU = re.compile(r"deserialize object on CUDA device (\d+) but torch\.cuda\.device_count\(\) is (\d+)")
# a custom C++/CUDA extension's own source file named in the message or traceback
_EXTENSION_SOURCE = re.compile(r"\w+_(cuda|kernel)\w*\.(cu|cpp)\b|\b\w+\.cu:\d+|cpp_extension|_ext-src/")
_BNB_LOAD = re.compile(r"load_in_[48]bit|BitsAndBytesConfig|bnb_4bit")
# a 4-bit / 8-bit base named anywhere in the paste (QLoRA, QDoRA, a bitsandbytes config)
_QUANTIZED_BASE = re.compile(QUANTIZED_BASE + r"|\b(4|8)[- ]?bit\b|\bqdora\b", re.IGNORECASE)


def _quantized_context(entry, text: str, said: str, cause: list, fix: list) -> None:
    """What a quantized model in the paste (a bitsandbytes load, packed weights, a calibration run) explains about
    the fault."""
    if (entry.kind == "device" and "cpu" in said and "bitsandbytes" not in said
            and _QUANTIZED_BASE.search(text)):
        cause.append("The text shows a 4-bit / 8-bit (bitsandbytes) base: its dequantize and matmul kernels run on "
                     "the GPU, so a quantized weight initialised or kept on the CPU (FSDP's CPU-RAM-efficient "
                     "loading, CPU offload, DoRA computing its weight norm when the adapter is created) meets "
                     "the GPU there.")
        fix.append("Keep the quantized base on the GPU while adapters are created and run (`device_map={'': "
                   "local_rank}`), or upgrade PEFT and bitsandbytes (later releases dequantize such CPU-initialised "
                   "weights on the GPU).")
    if (entry.key == "dtype-check" and re.search(r"\b(4|8)[- ]?bit\b|load_in_[48]bit|bnb|bitsandbytes", text, re.I)
            and re.search(r"\buint8\b|\bByte\b", text)):
        cause.append("The uint8 tensor is a 4/8-bit bitsandbytes model's packed weight storage: copied, synced or "
                     "cast as if it were a bf16/fp16 weight (to another engine such as vLLM, into a state dict, "
                     "into a merge), its dtype and shape are not the weight's.")
        fix.append("Dequantize before handing weights on (merge the adapter into an unquantized base, or "
                   "`bnb.functional.dequantize_4bit`), or load the model without `load_in_4bit` for that path; "
                   "weight syncing of quantized models is not supported by most trainers.")
    m = re.search(r"MultiheadAttention|out_proj|\b(visual|vision|resampler|vpm|vision_tower|image_encoder|"
                  r"visual_encoder|vit)\b|(?<![a-z])vl(?![a-z])", text, re.IGNORECASE)
    byte_input = (entry.key == "int-input" and _BNB_LOAD.search(text)
                  and re.search(r"ByteTensor|\buint8\b|\bByte\b", text))
    if (entry.key == "packed-quant-weight" or (entry.key == "int-input" and (m or byte_input))) \
            and "skip_modules" not in said:
        shown = f"The text shows `{m.group(0)}` (a vision tower, resampler or attention module): a" if m else "A"
        cause.append(f"{shown} module that casts its input to its weights' dtype (a vision tower's "
                     f"`x.to(self.dtype)`, `next(self.parameters()).dtype`) picks up quantized layers' packed storage "
                     f"dtype (uint8), and `nn.MultiheadAttention` calls `F.linear` on `out_proj.weight` itself, so "
                     f"neither works with quantized weights.")
        fix.append("Keep those modules unquantized: `BitsAndBytesConfig(..., llm_int8_skip_modules=['out_proj', "
                   "'visual'])` with their names (`modules_to_not_convert` in other toolkits), or use the model's own "
                   "int4 checkpoint.")
    if entry.key == "int-requires-grad" and re.search(r"mm_projector|initialize_vision_modules|multi_modal_projector|"
                                                      r"\bprojector\b", text) and "skip_modules" not in said:
        cause.append("The quantized load converted the multimodal projector too, and the vision setup then asks its "
                     "integer weights for gradients.")
        fix.append("Keep the projector out of quantization (`llm_int8_skip_modules=['mm_projector', 'vision_tower', "
                   "'lm_head']`), or train it in 16-bit (`--bits 16`) or with 4-bit settings that leave it in float.")
    if entry.key == "dtype-table-key" and re.search(r"'(U8|I8|uint8|int8|int4|uint4)'", text):
        cause.append("Integer tensors in a checkpoint of float weights are packed quantized weights: the model was "
                     "saved while loaded in 4-/8-bit (bitsandbytes), which a converter cannot read as weights.")
        fix.append("Reload the base model in fp16/bf16 (no `load_in_4bit`), merge the adapter into it "
                   "(`merge_and_unload()`), save that and convert it.")
    if entry.kind == "device" and re.search(r"\.quantize\(|AutoAWQ|\bawq\b|auto_gptq|GPTQModel|llmcompressor|"
                                            r"oneshot\(", text) and "calibration" not in said:
        cause.append("The text shows a quantization run (AWQ / GPTQ calibration): the quantizer moves one decoder "
                     "layer at a time to the GPU, so anything the model keeps outside its layers (rotary embeddings "
                     "at the model level in newer transformers, position ids, a norm) stays on the CPU and meets the "
                     "layer there.")
        fix.append("Use the transformers release the quantizer supports (or its newer release), or place the model on "
                   "the GPU before quantizing (`device_map='cuda:0'` when it fits).")
    m = re.search(r"device_map\s*=\s*['\"](cuda:[1-9])['\"]", text)
    if m and entry.key == "quantized-train-device":
        cause.append(f"The text loads the model on {m.group(1)} (`device_map=\"{m.group(1)}\"`) while the trainer "
                     f"trains on the current device, cuda:0.")
        fix.append(f"To use that GPU, select it for the whole process (`CUDA_VISIBLE_DEVICES={m.group(1)[5:]}`) and "
                   f"load with `device_map={{'': torch.cuda.current_device()}}`.")
    if not _BNB_LOAD.search(text):
        return
    if (entry.kind in ("attention", "mismatch") and not re.search(r"torch_dtype|\bdtype\s*=", text)
            and "torch_dtype" not in said):
        cause.append("The text loads a bitsandbytes model without `torch_dtype`: the layers it does not quantize (and "
                     "those offloaded with `llm_int8_enable_fp32_cpu_offload`) keep fp32 or fp16, not the "
                     "`bnb_4bit_compute_dtype` the quantized layers compute in.")
        fix.append("Pass `torch_dtype` equal to `bnb_4bit_compute_dtype` to `from_pretrained` (e.g. both "
                   "`torch.bfloat16`), and give the GPU room instead of fp32 CPU offload.")
