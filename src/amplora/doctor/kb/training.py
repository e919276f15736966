"""The training loop's own precision faults: GradScaler called in the wrong order, optimizer state of another dtype
than the gradients, fused / IPEX optimizers that need fp32 parameters, FSDP units of mixed dtypes, and fp16
overflow reported in words rather than by an exception."""
from __future__ import annotations

from amplora.doctor.kb.entry import make as _e
from amplora.doctor.kb.patterns import (AMP_NOTICE, AMP_WORDS, BF16_WORDS, EXCEPTION_NAMED, HALF_EVIDENCE,
                                        HALF_SAID_RIGHT, HALF_WORDS, NO_BF16_GPU, PRECISION_RULED_OUT, SAME_OUTPUT_ZH)

# results that are worse or different without being non-finite
DRIFT_SYMPTOM = (r"\b((extreme(ly)?|huge|large|big|severe|significant|serious) precision loss|loss of precision|"
                 r"los(es?|ing|t) (a lot of |much |some )?precision|"
                 r"loss (does ?n[o']t|doesn't|won't|not) (decrease|go down|converge)|loss (is )?(stuck|flat|"
                 r"plateau\w*)|loss stays (effectively |roughly |nearly )?(constant|flat|the same)|performs? worse|"
                 # "lower accuracy in bf16", a Pearson correlation against the reference: "a PCC of 0.957"
                 r"(lower|worse|degraded|reduced) (accuracy|quality|PCC)|\bPCC (of|is|=|:|drops? to|only)\W{0,3}0\.\d+|"
                 r"fail(s|ed)? to (train|learn|converge)|(results?|outputs?|answers?) (got|get|gets|becomes?|became) "
                 r"(totally |completely |all )?wrong|(accuracy|quality|results?|outputs?|scores?) (drops?|dropped|degrad\w*|(is |are )?worse|"
                 r"(is |are )?(much )?lower|differ\w*)|(differ\w*|different) (from|than) (the )?(fp32|float32)|"
                 r"(worse|lower) than (in )?(fp32|float32)|gibberish|garbage|junk|nonsense|meaningless|scrambled|garbled|distorted|"
                 r"(weird|strange|odd) (results?|outputs?|images?)|"
                 # (a torch op that "gives incorrect results with float16" is a kernel bug report)
                 r"\A(?=.*\b(produces?|produced|gives?|gave|returns?|returned) (an? )?(incorrect|wrong) (outputs?|"
                 r"results?|answers?)\b)(?!.*\btorch\.\w+(\(\))? (gives?|returns?|produces?) )|"
                 r"\b(gives?|gave|produces?|returns?) different (results?|outputs?|values?)\b|"
                 r"\berror floor\b|\b(results?|outputs?) (are|is) not the same\b|"
                 r"\binaccurate (outputs?|results?|sums?|values?)\b|"
                 r"\b(big|large|huge) diff(erence)?s?\b|\bspurious (negative|nonzero|non-zero)\b|"
                 r"\b(is|are|was|were) (not correct|incorrect)\b[^.\n]{0,40}\b(float16|fp16|half|"
                 r"bf16|bfloat16)\b|掉点|(差|低)(于|很多)|\bmax(imum)? (abs(olute)? )?error:? [1-9]|"
                 r"\bblank (responses?|outputs?|text|images?|generations?)\b|"
                 # "comparing the result of the CPU F32's conv and gl fp16's conv and found some kind of mismatch"
                 r"\A(?=.*\bcompar\w+)(?=.*\b(F32|fp32|float32)\b)(?=.*\b(F16|fp16|float16)\b)(?=.*\bmismatch\w*)|"
                 r"(much )?(more )?broken (outputs?|results?|images?)|"
                 r"(repeats?|repeating|repeated) (the same|itself)|(all )?the same token|empty (predictions|outputs?|"
                 r"strings?|text)|(predictions|outputs?|responses?|generations?) (are|is) (always |all )?empty|token soup|(accuracy|quality|performance|results?) (drop\w*|degrad\w*|decreas\w*)|"
                 r"(?<!KL )diverg\w*|artifacts|artefacts|artifact (appear\w*|everywhere|in the)|"
                 # a kernel's results compared with a reference: "the gradient differences ... are very large"
                 r"\b(differences?|errors?|mismatch(es)?)\b[^.\n]{0,40}\b(are|is) (very |too |quite |really )?"
                 r"(large|big|huge|significant)\b|"
                 r"corrupted (images?|outputs?)|"
                 r"(silently )?(corrupts?|mangles?|garbles?)\b[^.\n]{0,30}\b(outputs?|results?|text|predictions?)\b|"
                 r"(outputs?|results?|values?) ((that|which) )?(have |has )?changed (significantly|a lot|drastically)|"
                 r"(significant |serious |large |big )?(precision|numerical|numeric) (issues?|problems?|errors?)|"
                 r"(significantly |much )?(larger|bigger|higher) (numerical )?errors?|training instabilit(y|ies)|"
                 r"(large |big )?gap in (the )?(train\w*|val\w*|eval\w*)[/ ]*(loss|accuracy))|"
                 # Chinese / Japanese / Korean: garbled, loss not falling, accuracy drop, worse, empty, abnormal
                 r"乱码|不下降|精度下降|效果变差|结果变差|输出为空|结果异常|输出异常|输出都成 ?0|输出全为 ?0|全是 ?0|文字化け|おかしい|精度が(落ち|下が)|"
                 + SAME_OUTPUT_ZH + "|"
                 r"不符合预期|(结果|输出)\S{0,6}(差距|差异|不一致)|差距较大|差异较大|(较大|很大)的?误差|误差(较大|很大)|"
                 r"(acc|准确率|精度)\s*\S{0,4}下降|"
                 r"loss\s*值?\s*(几乎)?(没有变化|不变)|"
                 r"(different|wrong) values than expected|(outputs?|predictions?|results?) (are |is )?(all )?(the same|"
                 r"an? (fixed|constant)) (small )?(value|class|label)s?\b|"
                 r"values? (are|is) (different|changed) than expected|"
                 r"이상한 (출력|결과)|(outputs?|results?|predictions?) (are |is |become |became )?all (zeros?|0)\b")
# (ASCII-only word edges: a CJK character next to "nan" is no word boundary for `\b`)
NONFINITE_SYMPTOM = (r"(?<![A-Za-z0-9_])(nans?|NaNs?|infs?|all[- ]nan|non-finite|"
                     r"(black|gr[ae]y|white|green|blank) (images?|outputs?|results?|frames?|screens?|pictures?|"
                     r"squares?|"
                     r"videos?|blocks?|patch(es)?)|black box(es)? (on|over|covers?|as)\b|"
                     r"(very |too |all |completely )?dark (images?|outputs?|results?|pictures?)|"
                     r"(images?|outputs?|results?) (is |are )?(very |too |all |completely )dark|"
                     r"(images?|outputs?) (are|is|was|were) (just |pure |only )?noise|"
                     r"\b(produces?|produced|generates?|generated|outputs?) (just|only|pure) (noise|static)\b|"
                     r"(outputs?|results?|images?|audio|videos?) (is |are |was |were )?(all |completely |entirely |totally |just |pure )?"
                     r"(black|zeros|blank|silen(t|ce)))(?![A-Za-z0-9_])|!{6,}|"
                     r"\bassert\b[^\n]{0,80}\bisnan\(|loss\s*\S{0,3}(爆了|爆炸|炸了)|"
                     r"\b(becomes?|became|goes|went|obtain|get|got) infinite\b|"
                     r"\.isnan\(\)\.(all|any)\(\)\W{0,6}#?\s*True\b|\binfinite (loss|errors?|values?|"
                     r"gradients?)\b|"
                     r"溢出|黑图|全黑|黑屏|纯黑|(图像|图片|图|输出|画面)[^\n，,。.]{0,6}黑|感叹号|感嘆符|exclamation marks|"
                     r"\b(train(ing)?_?)?loss['\"]?\s*(就|都|会|又|还)?\s*(is |stays |was |=|:|为|一直为|都是|变成|变为)?\s*"
                     r"0(\.0+)?(?![\d.])")

# checkpointing and reduced precision said to break each other, in either order
_CHECKPOINTING = r"(gradient[ _-]?checkpoint\w*|use_checkpoint|activation[ _-]checkpoint\w*)"
_BREAKS = r"\b(incompatible|not compatible|does ?n[o']t work|fails?|breaks?|errors?|cannot|can'?t)\b"
_REDUCED = r"(mixed[ -]precision|fp16|\bamp\b|autocast|precision=16|half|bf16|bfloat16)"

TRAINING = (
    # accelerate's unwrap_model strips the autocast forward wrapper mixed precision added
    _e("unwrap-drops-autocast", "autocast", "a model unwrapped for saving lost its mixed-precision forward",
       r"Input type \([^)]+\) and (bias|weight) type \([^)]+\) should be the same|expected scalar type (Half|Float|"
       r"BFloat16) but found|mat1 and mat2 must have the same dtype",
       context=r"\bafter (the )?(first )?sav(e|ing)\b|\bunwrap_model\b",
       cause="accelerate's mixed precision wraps the model's forward in autocast; `accelerator.unwrap_model(model)` "
       "(used to save weights) strips that autocast wrapper from the model being trained by default, so after the "
       "first save fp16 inputs meet its fp32 weights.",
       fix="Unwrap with `accelerator.unwrap_model(model, keep_fp32_wrapper=True)` when the model goes on training, or "
       "save from `accelerator.get_state_dict(model)` / a copy."),
    _e("checkpoint-recompute-dtype", "autocast", "a checkpointed forward recomputed in another precision",
       r"\A(?=.*Recomputed values for the following tensors have different metadata than during the forward pass)"
       r"(?=.*saved metadata: \{[^}]*'dtype': (torch\.\w+)\b[^}]*\}\s*recomputed metadata: \{[^}]*'dtype': (?!\1\b))|"
       r"\A(?=.*Recomputed values for the following tensors have different metadata)(?=.*\b(autocast|mixed[ -]precision|"
       r"amp|bf16|fp16|bfloat16|float16)\b)"
       r"(?!.*saved metadata: \{[^}]*'dtype': (?P<rd>torch\.\w+)[^}]*\}\s*recomputed metadata: "
       r"\{[^}]*'dtype': (?P=rd)\b)",
       "Non-reentrant activation checkpointing re-runs the forward during backward and checks that each tensor it "
       "saves again has the dtype, shape and device it had; here the recompute ran in another precision: autocast "
       "entered or left between the forward and the backward, FSDP2's mixed-precision cast of the inputs skipped "
       "in the recompute, or an fp32 tensor (a rotary table, a buffer) that met bf16 inputs in only one of the "
       "two passes.",
       "Keep the precision state the same for both passes: put `torch.autocast` inside the checkpointed function "
       "(or around the whole step), cast inputs and fp32 buffers to the parameters' dtype inside the checkpointed "
       "region (`x.to(w.dtype)`), and upgrade torch for FSDP2's recompute cast; `determinism_check='none'` only "
       "hides it."),
    _e("checkpoint-autocast", "autocast", "gradient checkpointing that loses the autocast state",
       rf"{_CHECKPOINTING}[^\n]{{0,80}}{_BREAKS}[^\n]{{0,80}}{_REDUCED}|"
       rf"{_REDUCED}[^\n]{{0,80}}{_BREAKS}[^\n]{{0,80}}{_CHECKPOINTING}",
       "A hand-written checkpoint function (the `CheckpointFunction` of ldm, guided-diffusion, taming and similar "
       "research code) recomputes the forward during backward without the autocast state the forward ran under, "
       "so the recomputed ops run in fp32 against fp16/bf16 tensors saved by the forward (or the reverse).",
       "Use `torch.utils.checkpoint.checkpoint(fn, *args, use_reentrant=False)`, which restores autocast, or save "
       "`torch.is_autocast_enabled()` in the custom Function's forward and recompute under "
       "`torch.autocast('cuda', enabled=...)` in its backward; or turn checkpointing off (`use_checkpoint: False`)."),
    _e("apex-half-model", "mismatch", "apex amp given a model already cast to fp16",
       r"Found param \S+ with type torch\.cuda\.HalfTensor, expected torch\.cuda\.FloatTensor|"
       r"you do not need to call \.half\(\) on your model before passing it",
       "apex's `amp.initialize` keeps fp32 master weights and casts for you at every opt level, so it refuses a "
       "model whose parameters were already cast with `.half()` (or loaded in fp16).",
       "Pass the fp32 model to `amp.initialize(model, optimizer, opt_level='O1')` without `.half()`; better, drop "
       "apex for native AMP: `torch.autocast('cuda', dtype=torch.float16)` with `torch.amp.GradScaler('cuda')` "
       "(or bf16 autocast without a scaler)."),
    _e("unscale-twice", "scaler", "GradScaler.unscale_ called twice in one step",
       r"unscale_\(\) has already been called on this optimizer since the last update\(\)",
       "The gradients of this optimizer were unscaled twice before `scaler.update()`: the script calls "
       "`scaler.unscale_(optimizer)` and a library unscales again (accelerate's `clip_grad_norm_`, a Trainer), or "
       "unscaling runs on every gradient-accumulation micro-step, or a loop that skips a step on inf/NaN "
       "gradients skips `scaler.update()` with it; some transformers/accelerate releases did this themselves with "
       "gradient accumulation under fp16.",
       "Unscale once per optimizer step, right before clipping, on the step that calls `scaler.step(optimizer)`, and "
       "call `scaler.update()` every iteration, even when the step is skipped (`scaler.step` skips it by itself) "
       "(with accelerate call only `accelerator.clip_grad_norm_`, inside `if accelerator.sync_gradients:`); if "
       "the Trainer does it, upgrade transformers and accelerate (or set `gradient_accumulation_steps=1` meanwhile)."),
    _e("scaler-step-twice", "scaler", "GradScaler.step called twice in one step",
       r"step\(\) has already been called since the last update\(\)",
       "`scaler.step(optimizer)` ran twice for one optimizer before `scaler.update()` (a loop over optimizers "
       "that repeats one, or accumulation code that steps on every micro-step), or `scaler.update()` is never "
       "called after scaler.step, so the next iteration's step finds the last one still pending.",
       "Call `scaler.step(opt)` once per optimizer per step and then `scaler.update()` once; step only when the "
       "accumulated micro-steps are complete."),
    _e("optimizer-state-dtype", "mismatch", "optimizer state of another dtype than the gradients",
       r"expected dtype \w+ for .?(end|weight|tensor1|tensor2|other|exp_avg\w*|grad\w*).? but got dtype|"
       r"\b_foreach_\w+.{0,200}(same dtype|dtype mismatch|to have the same dtype|expected dtype)|"
       r"(lerp|addcdiv|addcmul)_?\(\).{0,200}(dtype|BFloat16|Half|Float)|"
       r"\b(momentum_buffers?|exp_avg\w*|optimizer state)\b[^\n]{0,80}\b(loaded|restored|resumed|kept|stored)\b[^\n]{0,60}"
       r"\b(fp32|float32|bf16|bfloat16|fp16|float16)\b",
       "An optimizer update combined its state (exp_avg / exp_avg_sq / momentum, kept in fp32 or created from the "
       "parameters' dtype) with gradients or statistics of another dtype: bf16/fp16 gradients against fp32 state "
       "(a model cast after the optimizer was built, optimizer state loaded from a checkpoint of another precision, "
       "or a custom optimizer computing a statistic in the gradient's dtype).",
       "Give both one dtype: build the optimizer after the model has its final dtype; keep trainable parameters "
       "fp32 with bf16 autocast (mixed precision) instead of casting the model; in a custom optimizer cast the "
       "statistic to the state's dtype (`state.lerp_(v.float(), w)`, `grad.float()`); after loading a checkpoint "
       "cast the state (`for s in opt.state.values(): s['exp_avg'] = s['exp_avg'].to(p.dtype)`)."),
    # torch.optim's load_state_dict casts floating state to each parameter's dtype
    _e("optimizer-load-cast", "mismatch", "fp32 optimizer state rounded to fp16 parameters' dtype on loading",
       r"\A(?=.*\b(load_state_dict|load state dict|loading (the )?(optimizer )?state)\b)(?=.*\b(fp16|float16|half)\b)"
       r"(?=.*\b(imprecis\w*|precision loss|los(es|t|ing) precision|not (bit[- ]?)?(exact\w*|identical|equal)|"
       r"torch\.equal|assert\w*)\b)(?=.*\b(optimizer|exp_avg\w*|momentum)\b)",
       "`torch.optim.Optimizer.load_state_dict` casts each floating-point state tensor to its parameter's dtype, so "
       "with fp16 parameters and fp32 optimizer state (mixed precision, fp32 master weights kept in the optimizer) "
       "the state is rounded to fp16 on loading, and an optimizer that keeps fp32 state casts it back: the round "
       "trip loses precision.",
       "Load the optimizer state while the parameters it is keyed to are fp32 (the master weights), or restore the "
       "fp32 state tensors by hand after `load_state_dict` (`opt.state[p]['exp_avg'] = saved.float()`); keep "
       "trainable parameters fp32 with autocast instead of fp16 parameters."),
    _e("pickle-amp-model", "autocast", "pickling a model whose forward accelerate wrapped for mixed precision",
       r"Cannot pickle a prepared model with automatic mixed precision|"
       r"Can'?t (pickle|get local object) .{0,40}convert_outputs_to_fp32|"
       r"convert_outputs_to_fp32\.<locals>\.forward",
       "`accelerator.prepare` (or the Trainer) wraps the model's forward in an autocast closure that converts "
       "outputs to fp32, and that closure cannot be pickled: `torch.save(model)`, `copy.deepcopy`, "
       "multiprocessing or a DataLoader worker tried to pickle the prepared model.",
       "Unwrap before saving or copying: `accelerator.unwrap_model(model)` (and save its `state_dict()` or "
       "`save_pretrained`), not the whole prepared object; pass the model to worker processes before `prepare`."),
    _e("precision-flags-both", "autocast", "fp16 and bf16 mixed precision both switched on",
       r"(At most one of|only one of) .?fp16.? (and|or) .?bf16|"
       r"\b(bf16|fp16) and (fp16|bf16) (mixed precision )?(can ?not|cannot|can't) (both )?be (enabled|used|set|True)|"
       r"--(fp16|bf16) and --(bf16|fp16) cannot be used together|"
       r"\b(bfloat16|bf16|fp16) and (fp16|bf16|bfloat16) (modes )?(can ?not|cannot) be (simultaneously enabled|"
       r"enabled at once)|"
       r"mixed_precision.? arg cannot be set to .?(fp16|bf16|no).? when .?(bf16|fp16).? is set in the DeepSpeed config",
       "Two precisions were asked for at once (`fp16=True` and `bf16=True`, `--fp16 --bf16`, or both sections "
       "enabled in a DeepSpeed config), and a run can autocast to only one.",
       "Keep one: `bf16=True` on GPUs that have bf16 (Ampere or newer; no loss scaling needed), else `fp16=True`; in "
       "DeepSpeed enable only one of the `bf16` / `fp16` sections (or set them to `auto` with the Trainer's flag)."),
    _e("fsdp-upcast-params", "mismatch", "FSDP mixed precision upcast bf16/fp16 parameters to fp32",
       r"Upcasted low precision parameters in \w+ because mixed precision turned on in FSDP",
       "The model was loaded in bf16/fp16 and FSDP mixed precision is on, so accelerate upcast the trainable "
       "low-precision parameters to fp32 master weights (FSDP's `param_dtype` casts them back for compute); "
       "optimizer state and sharded parameters then take fp32 memory.",
       "This is the intended mixed-precision setup; to save memory either load in fp32 and keep mixed precision "
       "(same memory, cleaner), or train pure bf16 without FSDP mixed precision (`mixed_precision='no'` with a bf16 "
       "model) and accept bf16 rounding of the updates."),
    _e("fused-optimizer-params", "device", "a fused optimizer given parameters it cannot fuse",
       r"`?fused=True`? requires all the params to be|fused=True.{0,80}(floating point Tensors|supported devices)|"
       r"`?fused`? (and|or) `?foreach`? .{0,60}(CUDA|supported devices)|"
       r"params, [\w, ]*and state_steps must be on supported devices",
       "`fused=True` (AdamW/Adam/SGD) fuses the update in one kernel that takes only floating-point parameters on "
       "a supported device: parameters still on the CPU (the model moved after the optimizer was built, or "
       "offloaded), on MPS/XPU with an older torch, or integer / quantized parameters in the list make it refuse.",
       "Move the model to the GPU before building the optimizer, pass only trainable floating-point parameters "
       "(`[p for p in model.parameters() if p.requires_grad]`), or drop `fused=True` (use `foreach=True` or the "
       "default)."),
    _e("fused-optimizer-grad-dtype", "mismatch", "a fused optimizer kernel given parameters and gradients of two dtypes",
       r"Param tensor \d+ has dtype=\w+, but expected dtype=\w+|multi_tensor_\w+.{0,200}\bexpected dtype",
       cause="A fused multi-tensor optimizer kernel (TransformerEngine's or apex's FusedAdam, and its capturable "
       "CUDA-graph path) expects parameters and gradients of the same dtype, and got fp32 master parameters with "
       "bf16 gradients, as FSDP-style mixed precision that reduces gradients in bf16 produces.",
       fix="Keep gradients in the parameters' dtype (reduce them in fp32, or cast them before the step), or use the "
       "non-capturable path (`capturable=False`) or a release that supports that pair."),
    _e("ipex-optimizer-fp32", "mismatch", "IPEX's fused optimizer needs fp32 master parameters",
       r"parameter in optimizer\s*\(\s*\w+\s*\) is not FP32",
       "intel-extension-for-pytorch's fused optimizer step (AdamW, SGD, Lamb) keeps fp32 master weights and got "
       "parameters that are bf16/fp16, because the model was cast wholly (`model.to(torch.bfloat16)`, "
       "`torch_dtype=torch.bfloat16`) before training.",
       "Keep the weights fp32 and train with bf16 autocast instead of casting the model: load in fp32 and use "
       "`bf16=True` (Trainer) / `ipex.optimize(model, optimizer=opt, dtype=torch.bfloat16)`, which keeps fp32 "
       "master parameters, or `torch.autocast('xpu', dtype=torch.bfloat16)`."),
    # ranks that enter one collective with tensors of different dtypes, told in words (NCCL does not check)
    _e("collective-dtype-ranks", "mismatch", "ranks entered a collective with tensors of different dtypes",
       r"\A(?=.*\b(all_?reduce|all_?gather\w*|reduce_scatter\w*|broadcast|collectives?)\b)"
       r"(?=.*(\b(dtype|data ?type)s?\b[^.\n]{0,60}\b(mismatch\w*|inconsisten\w*|differ\w*|do(es)? not match|"
       r"do(es)?n'?t match|not (the )?same)\b|\bdifferent (dtypes|data ?types)\b))",
       "The ranks entered one collective (`all_reduce`, `all_gather`, `broadcast`) with tensors of different dtypes: "
       "NCCL does not compare dtypes across ranks, so it reads the bytes as the wrong type (sums that look like an "
       "overflow) or the ranks wait for each other forever (a hang); a tensor built from a Python or NumPy value "
       "(`torch.tensor(x)`) is float32 on one rank and float64 or int64 on another, or one rank cast its model.",
       "Give the tensor the same dtype on every rank before the collective (`torch.tensor(x, dtype=torch.float64, "
       "device=device)`, `t.to(torch.float32)`), and check it (`TORCH_DISTRIBUTED_DEBUG=DETAIL` reports collectives "
       "that do not match across ranks).",
       unless=r"out of memory|Watchdog caught collective operation timeout(?!.*dtype)"),
    _e("collective-dtype-mix", "mismatch", "a collective got buffers of two dtypes",
       r"output tensor must have the same type as input tensor|input tensor must have the same type as output",
       "An all-gather / reduce-scatter got input and output buffers of different dtypes: parameters or gradients "
       "of two dtypes gathered into one flat buffer, typically fp32 LoRA adapters (PEFT keeps adapters fp32) next "
       "to a bf16/fp16 base under DeepSpeed ZeRO-3 or FSDP, or part of the model cast after the engine was built.",
       "Give every parameter one dtype before wrapping: adapters in the base dtype "
       "(`get_peft_model(..., autocast_adapter_dtype=False)` or `model.to(torch.bfloat16)` before "
       "`deepspeed.initialize` / FSDP), or load in fp32 and let the engine's mixed precision cast; if it began with "
       "a DeepSpeed upgrade (ZeRO-3's coalesced all-gather of mixed-dtype parameters has regressed in releases), "
       "pin the previous version or upgrade to a fixed one; ZeRO++'s quantized all_gather "
       "(`zero_quantized_weights`, `zero_quantized_gradients`) assumed fp16 parameters in early releases: with bf16 "
       "turn it off or train in fp16."),
    _e("deepspeed-grad-accum-dtype", "mismatch", "DeepSpeed refused the gradient accumulation dtype",
       r"Model data type and gradient accumulation data type must be equal|"
       r"BF16 optimizer for ZeRO requires fp32 gradient accumulation|gradient accumulation data ?type",
       "DeepSpeed checks the model dtype (bf16 / fp16) against `data_types.grad_accum_dtype`: with bf16, ZeRO stage "
       "1 accumulating in fp32 runs its BF16 optimizer, while the ZeRO optimizer of other stages wants gradients "
       "accumulated in the model dtype; a release whose check refuses every setting (0.8.0 refused bf16 with ZeRO "
       "both ways) is a DeepSpeed bug, not your config.",
       "Set the pair explicitly in the DeepSpeed config: `\"data_types\": {\"grad_accum_dtype\": \"fp32\"}` with "
       "ZeRO stage 1, or the model dtype (`\"bf16\"`) with stages 2/3; if both are refused, change the DeepSpeed "
       "version (upgrade past the regression, or downgrade to the last release that worked)."),
    _e("option-needs-mixed-precision", "mismatch", "a half-precision option without the matching mixed precision",
       r"\b(full_fp16|full_bf16|fp8_base\w*|fp8_scaled|full_fp8)\b[^\n]{0,40}\brequires? mixed[_ ]precision",
       "A training option that keeps weights in a low-precision dtype (kohya's `--full_fp16` / `--full_bf16` "
       "store the whole model and its gradients in fp16 / bf16; `--fp8_base` stores the frozen base in fp8 and "
       "computes in fp16 or bf16) was given without the `mixed_precision` setting it relies on.",
       "Set the matching mixed precision (`--mixed_precision fp16` with `--full_fp16`, `bf16` with `--full_bf16`, "
       "fp16 or bf16 with `--fp8_base`; in accelerate's config too), or drop the option and train with plain "
       "mixed precision."),
    _e("precision-64-accelerator", "device-capability", "float64 (precision=64) on an accelerator without it",
       r"Trainer\(accelerator='(tpu|mps|hpu|ipu|xla)', precision=['\"]?(64|64-true)['\"]?\)`?\s*is not implemented|"
       r"precision=['\"]?(64|64-true)['\"]?\b[^\n]{0,60}\bnot (implemented|supported)\b[^\n]{0,40}\b(TPU|MPS|HPU|XLA)",
       "Double precision (`precision=64`, float64) is not available on this accelerator (TPUs through XLA, Apple "
       "MPS, Gaudi), so Lightning refuses the combination; libraries on Lightning (darts) choose precision 64 "
       "themselves when the data is float64.",
       "Train in 32-bit: make the data float32 (darts: `series.astype(np.float32)`; `df.astype('float32')`) and use "
       "`precision=32` ('32-true') or a mixed 16-bit precision on the accelerator."),
    _e("lightning-precision-value", "mismatch", "a precision value this trainer (Lightning, NeMo, Composer) does not know",
       r"Precision '?[\w-]+'? is (invalid|not supported)\.? ?(Allowed|Choose|Supported)|"
       r"precision=.{1,20} is not supported\. (Allowed|Choose|Supported)|Precision must be '16-mixed' or 'bf16-mixed'|"
       r"precision=.{1,20} is not supported (in|by|with) \w+\W+`?precision`? must be one of|"
       # NeMo's Megatron O2 module and Composer's Precision enum, with their own values
       r"precision \S+ is not supported\. Float16Module|Value \S+ is not available in Precision",
       "PyTorch Lightning (and NeMo and Composer, each with its own names) takes only its own precision values and "
       "Lightning's changed in 2.0: 1.x accepts 16, 32, 64 and "
       "'bf16'; 2.x spells them '16-mixed', 'bf16-mixed', '32-true', '16-true', 'bf16-true' (and still takes the "
       "old forms), so a config written for 2.x fails on 1.x, and a value such as 'fp16' fails on both.",
       "Use a value from the 'Allowed precision values' in the message: with Lightning 1.x `precision='bf16'` or "
       "`precision=16`, with 2.x `precision='bf16-mixed'` / `'16-mixed'`; or upgrade to Lightning 2.x "
       "(`pip install -U lightning`) to keep the config as written; NeMo with `megatron_amp_O2` takes "
       "`trainer.precision=bf16` (or 16) in the checkpoint's dtype, else set `megatron_amp_O2=False`; Composer "
       "spells its values `amp_bf16`, `amp_fp16`, `fp32`."),
    _e("deepspeed-param-dtype", "mismatch", "DeepSpeed's dtype does not match the parameters'",
       r"torch\.(float32|float16|bfloat16) is enabled but the following parameters have dtype that is not",
       "A DeepSpeed engine checks that every parameter has the dtype its config enables (`\"bf16\"` / `\"fp16\"` "
       "sections, float32 when neither is), and these parameters are in another: a model already cast by an "
       "earlier engine (a test or predict engine built after training, without the training config's bf16 "
       "section) or cast by hand before `deepspeed.initialize`.",
       "Give the engine the parameters' precision (`\"bf16\": {\"enabled\": true}` for bf16 parameters), or "
       "leave the model in fp32 and let DeepSpeed cast it; in Lightning upgrade (older releases built the "
       "inference engine's config without the precision plugin's bf16), or test with a new fp32 model."),
    _e("zero3-mixed-dtypes", "mismatch", "DeepSpeed ZeRO-3 got parameters of more than one dtype",
       r"assert len\(set\(t\.dtype for t in tensors\)\) == 1|stage3\.py\W.{0,120}\bdefragment\b",
       "ZeRO-3 packs each group of parameters into one flat buffer, which needs one dtype, and the model handed to "
       "`deepspeed.initialize` has parameters in two (fp32 heads, norms or a value head kept fp32 by the loader "
       "next to bf16 weights, fp32 LoRA or adapter weights on a bf16 base).",
       "Give every parameter one dtype before DeepSpeed sees the model (`model.to(torch.bfloat16)`, a `torch_dtype` "
       "that matches the config's bf16 / fp16 section), or upgrade the trainer (LLaMA-Factory, TRL and others cast "
       "for ZeRO-3 in later releases)."),
    # ZeRO-3's coalesced all-gather checks that all parameters share a dtype
    _e("deepspeed-pipeline-bf16", "backend", "bf16 with DeepSpeed's pipeline engine in a ZeRO stage it lacks",
       r"only bf16 \+ z1 are supported|"
       r"\A(?=.*\b(bf16|bfloat16)\b)(?=.*\bpipe(line)?\b)(?=.*NotImplementedError)(?=.*\b(zero|z[0-3])\b)",
       "DeepSpeed's pipeline engine reduces bf16 gradients only for some ZeRO stages (the release raising this had "
       "no bf16 path for the combination configured, such as bf16 with ZeRO stage 1 under pipeline parallelism), so "
       "it is not implemented there.",
       "Use a combination that release supports (fp16 with loss scaling, or bf16 with the ZeRO stage its pipeline "
       "engine handles), or upgrade DeepSpeed."),
    _e("deepspeed-config-vs-trainer", "mismatch", "DeepSpeed's precision setting disagrees with TrainingArguments'",
       r"DeepSpeed config values that mismatch TrainingArguments values.{0,300}\b(bf16|fp16)\b",
       unless=r"not implemented for '",  # a kernel error told beside it is the fault
       cause="The DeepSpeed config enables one precision (`bf16.enabled=True`) while the Trainer's arguments do not "
       "(`--bf16` not passed), and the Trainer refuses the mismatch.",
       fix="Make them agree: set the DeepSpeed config's precision to `\"auto\"` (`\"bf16\": {\"enabled\": \"auto\"}`) "
       "so it follows `TrainingArguments`, or pass `--bf16` (or turn it off in the config)."),
    _e("megatron-params-dtype", "mismatch", "a Megatron layer built without the config's params_dtype",
       r"\A(?=.*\bmegatron\b)(?=.*\b(bf16|bfloat16|fp16)\b)(?=.*\b(param(eter)?s? dtype|params_dtype)\b)"
       r"(?=.*\b(error|RuntimeError|RunTimeError)\b)",
       "A layer was created as a plain `nn.Linear` (an MoE router, a custom head) without the config's "
       "`params_dtype`, so its weight stays float32 while the bf16 / fp16 hidden states reach it.",
       "Build the layer with `dtype=config.params_dtype` (and the config's init method), or upgrade Megatron-Core, "
       "which passes it for its own layers."),
    _e("buffer-cast-by-half-wrapper", "overflow", "a float32 buffer cast to bf16 by the model's half wrapper",
       r"\A(?=.*\bbuffer\b[^\n]{0,80}\b(registered|created|initiali[sz]ed) (with|as|in) (torch\.)?(float32|fp32)\b)"
       r"(?=.*\b(bfloat16|bf16|float16|fp16)\b)",
       unless=EXCEPTION_NAMED,
       cause="Casting the model to bf16 / fp16 (`model.to(torch.bfloat16)`, Megatron's Float16Module) casts every "
       "floating-point buffer too, so a buffer registered in float32 to accumulate small updates (a router's expert "
       "bias, running statistics) becomes bf16 and its small per-step updates round away: a precision loss.",
       fix="Keep that buffer float32: cast it back after the model cast (or override `_apply` for it), keep it as a "
       "float32 attribute outside the module cast, or use a release that preserves it."),
    _e("hook-grad-dtype", "mismatch", "a gradient hook that returns another dtype than the gradient it got",
       r"dtype of tensor\(.{0,80}\) before\(\S+\) and after\(\S+\) hook are not consistent|"
       r"\bhook\b[^\n]{0,80}\b(returned|returns?)\b[^\n]{0,60}\b(float16|fp16|half|bfloat16|bf16)\b[^\n]{0,40}\b"
       r"(float32|fp32)\b[^\n]{0,20}\b(tensor|gradient)",
       "A gradient hook (`register_hook`) returned a gradient of another dtype than the one it received: it computed "
       "under autocast (`amp.auto_cast`), so its result is float16 for a float32 tensor, and a hook must return the "
       "same dtype (and device).",
       "Cast the hook's result back (`return new_grad.astype(grad.dtype)` / `.to(grad.dtype)`), or compute it outside "
       "autocast."),
    _e("gradcheck-not-double", "mismatch", "gradcheck run on float32 inputs",
       r"inputs? that requires? gradient (is|are) not of double precision|"
       r"Jacobian mismatch for output \d+ with respect to input \d+",
       context=r"not of double precision|\b(float32|fp32|float16|half)\b",
       cause="`gradcheck` compares the analytic gradients with finite differences, which need float64: in float32 "
       "(let alone fp16) the finite differences are too inaccurate, so the check fails (a Jacobian mismatch) "
       "although the backward may be right.",
       fix="Run gradcheck with double inputs and a double module (`inputs = [x.double().requires_grad_()]`, "
       "`fn.double()`); check half-precision kernels against a float64 reference with a tolerance instead."),
    _e("zero3-gather-dtypes", "mismatch", "ZeRO-3's all-gather met parameters of several dtypes",
       r"expected there to be only one unique element in <generator object Init\._convert_to_deepspeed_param",
       "ZeRO-3 gathers partitioned parameters together in one dtype, and the model has several: a bitsandbytes "
       "4-bit / 8-bit (QLoRA) base mixes its packed uint8 / int8 quantized weights with fp16 / fp32 ones, or fp32 "
       "heads and adapters sit beside bf16 weights.",
       "Give ZeRO-3 one dtype: for QLoRA store the 4-bit weights in the compute dtype "
       "(`bnb_4bit_quant_storage=torch.bfloat16`, with DeepSpeed / accelerate / transformers releases that support "
       "QLoRA under ZeRO-3) or use ZeRO-2; 8-bit bases do not work under ZeRO-3; otherwise cast the model to one "
       "dtype before `deepspeed.initialize`."),
    # a model cast to fp16 by hand while DeepSpeed's config has no fp16 section
    _e("deepspeed-half-model-config", "overflow", "a model cast to fp16 by hand under a DeepSpeed config without fp16",
       r"\A(?=.*\b(ds_config|deepspeed)\b)(?=.*(\.half\(\)|dtype settings|torch_dtype\s*=\s*torch\.float16))"
       r"(?=.*\b(nan|inf)\b)(?=.*\b(mismatch\w*|inconsisten\w*|config)\b)",
       unless=EXCEPTION_NAMED,
       cause="The model was cast to fp16 by hand (`.half()`) while the DeepSpeed config does not enable fp16, so "
       "DeepSpeed trains the fp16 weights as they are, without fp32 master weights or loss scaling, and the loss "
       "turns NaN.",
       fix="Keep the model fp32 and enable the precision in the DeepSpeed config (`\"fp16\": {\"enabled\": true}` "
       "with loss scaling, or `\"bf16\": {\"enabled\": true}`), and let DeepSpeed cast; model dtype and config "
       "must agree."),
    # DeepSpeed 0.14.1 / 0.14.2: ZeRO's step with offloaded optimizer state mixed a GPU scale and CPU gradients
    _e("deepspeed-step-offload-device", "device", "DeepSpeed's step mixed a GPU scale factor with offloaded CPU "
       "gradients",
       r"\A(?=.*(Expected all tensors to be on the same device|found at least two devices))"
       r"(?=.*\b(model_engine\.step|engine\.step|unscale_and_clip_grads)\b)",
       "In DeepSpeed 0.14.1 and 0.14.2 the ZeRO optimizer's step with CPU offload computed the clip / loss-scale "
       "factor as a GPU tensor and applied it to the fp32 gradient partitions offloaded to the CPU (cuda:0 and cpu "
       "in one op); a regression fixed in later releases.",
       "Upgrade DeepSpeed (or pin 0.14.0); without offload (`offload_optimizer` off) the step stays on the GPU."),
    _e("fsdp-integer-params", "quantized", "FSDP asked to flatten a quantized model's integer weights",
       r"Cannot flatten integer dtype tensors|(FSDP|FlatParameter|flatten).{0,200}\b(u?int8|Byte|Char)\b.{0,80}"
       r"(not supported|integer)|"
       r"\A(?=.*Integer parameters are unsupported)(?=.*\b(FSDP|load_in_[48]bit|int8|bitsandbytes)\b)",
       cause="FSDP (v1) flattens parameters into floating-point buffers it can shard and all-gather, and the "
       "model holds integer parameters: a bitsandbytes 4-bit or 8-bit base stores its packed weights as uint8 "
       "(int8), which FSDP cannot flatten.",
       fix="For QLoRA under FSDP store the packed weights in the model's float dtype: "
       "`BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_storage=torch.bfloat16, "
       "bnb_4bit_compute_dtype=torch.bfloat16)` with `torch_dtype=torch.bfloat16`; 8-bit bases do not work with "
       "FSDP, so use 4-bit or DeepSpeed ZeRO-3 with an unquantized base."),
    # FSDP takes the current CUDA device as its compute device
    _e("fsdp-current-device", "device", "FSDP's compute device is not the current CUDA device",
       r"Expects tensor to be on the compute device|"
       r"\A(?=.*\b(FSDP|FullyShardedDataParallel)\b)(?=.*\b(tensors|parameters) on (multiple|different|two) "
       r"(devices|GPUs)\b)",
       "FSDP runs on the current CUDA device and expects it to be this process's GPU, but `torch.cuda.set_device` "
       "was not called, so each process's current device is still cuda:0 while its model (or `device_id`) is on "
       "cuda:local_rank, and tensors end up on different devices.",
       "Call `torch.cuda.set_device(local_rank)` at the start of each process, before moving or wrapping the model, "
       "and create inputs on that device (`torch.randn(..., device='cuda')`)."),
    # SyncBatchNorm's CUDA statistics kernels take fp32 counts and running stats
    _e("syncbn-half", "mismatch", "SyncBatchNorm run in half precision",
       r"Expected counts to have type (Half|BFloat16) but got Float",
       "SyncBatchNorm's CUDA kernels gather the batch statistics with fp32 counts and running stats, and mixed "
       "precision (FSDP's `MixedPrecision`, a model cast to fp16) handed the BatchNorm layers half-precision inputs "
       "and parameters.",
       "Keep BatchNorm in fp32: wrap each BatchNorm layer in its own FSDP unit with mixed precision off (newer torch "
       "does it for `_BatchNorm` by default), or run under autocast (which keeps batch norm fp32) instead of casting "
       "the model; `sync_batchnorm=False` avoids it on one GPU."),
    # FSDP's clip_grad_norm_ all-reduces per-rank norms: a model of mixed dtypes hangs or fails there
    _e("fsdp-clip-mixed-dtypes", "mismatch", "FSDP's gradient clipping on a model of mixed dtypes",
       r"\A(?=.*clip_grad_norm)(?=.*\b(stuck|hang(s|ing)?|hung|freez\w*)\b)(?=.*\b(FSDP|fsdp\w*)\b)",
       "FSDP's `clip_grad_norm_` computes each rank's norm over its shards and all-reduces them, and expects all the "
       "model's parameters in one dtype; a part cast to bfloat16 by hand (a vision backbone assumed frozen, then "
       "trained) beside float32 parts breaks that step.",
       "Keep one dtype for trained parameters (do not cast a trained backbone to bf16 by hand; let FSDP's "
       "`MixedPrecision` cast), or keep the cast part frozen and outside the clipped parameters."),
    _e("fsdp-grad-dtypes", "mismatch", "gradients of two dtypes in one FSDP reduce-scatter",
       r"reduce-scatter expects uniform gradient dtype|\breduce[_-]scatter\b[^\n]{0,60}\b(mixed|uniform|same) "
       r"(gradient |grad )?dtypes?\b",
       "FSDP reduce-scatters each group's gradients in one dtype, and this group mixes two: gradients accumulated "
       "over no-sync micro-batches and upcast to the reduce dtype (fp32) beside fresh gradients still in the "
       "parameters' dtype (bf16), e.g. zero-filled ones for parameters a rank did not use.",
       "Give every gradient of the group the reduce dtype before the collective (`MixedPrecisionPolicy(param_dtype="
       "torch.bfloat16, reduce_dtype=torch.float32)` applied to all of them, unused parameters included), or "
       "upgrade the framework (FSDP2 and its wrappers cast mixed gradients to the reduce dtype in later releases)."),
    # fairscale's FSDP with cpu_offload keeps fp32 shards on the CPU and wants the model there when it is wrapped
    _e("fsdp-offload-model-on-gpu", "device", "a model moved to the GPU before FSDP wrapped it with CPU offload",
       r"_fp32_shard\.device == torch\.device\(.cpu.\)|"
       r"\A(?=.*\bcpu_offload\s*=\s*True)(?=.*assert[^\n]{0,60}\.device == torch\.device\(.cpu.\))",
       "With `cpu_offload=True` fairscale's FSDP keeps the fp32 parameter shards on the CPU and expects the model "
       "still on the CPU when it is wrapped, but the model was moved to the GPU first.",
       "Wrap the model while it is on the CPU (no `.cuda()` / `.to(device)` before `FullyShardedDataParallel(..., "
       "cpu_offload=True)`); FSDP moves what each step needs to the GPU itself."),
    _e("fsdp-mixed-dtypes", "mismatch", "one FSDP unit holds parameters of two dtypes",
       r"(FlatParameter|flat param\w*) requires uniform dtype|"
       r"FSDP.{0,200}(uniform (original )?(parameter )?dtype|mixed dtypes|must have the same dtype)|"
       r"(expects|requires) all (the )?(original )?param(eter)?s (in a FSDP unit )?to have the same dtype|"
       r"All parameters in a bucket must have the same dtype|Must flatten tensors with uniform dtype",
       "FSDP (v1) flattens each wrapped unit's parameters into one buffer of one dtype (and DDP's gradient "
       "buckets hold one dtype), and this unit mixes them: fp32 LoRA adapters or upcast norms next to bf16 base "
       "weights (PEFT keeps adapters fp32, `prepare_model_for_kbit_training` upcasts norms).",
       "Load the model in fp32 and let FSDP cast (`MixedPrecision(param_dtype=torch.bfloat16, "
       "reduce_dtype=torch.float32)`, or `mixed_precision: bf16` in the accelerate config), or give all "
       "parameters one dtype before wrapping (`model.to(torch.bfloat16)`); FSDP2 (`fully_shard`) shards each "
       "parameter separately and takes mixed dtypes.",
       unless=r"mat1 and mat2|self and mat2|m1 and m2"),
)

# model families pretrained in bf16 whose activations overflow fp16 (T5's feed-forward output)
_BF16_FAMILY = (r"(?<![A-Za-z0-9])((m|byt|flan[- _]?|long|umt)?t5([- _]?v1[._]1)?|ul2|mdeberta([- _]?v3)?|"
                r"deberta[- _]?v3|madlad[- _]?(400)?)(?![A-Za-z0-9])")
# fp32 said to be right, which tells that the failing run was in reduced precision
_FP32_FINE = (r"\b(fp32|float32|full precision)\b[^.\n]{0,30}\b(works?( fine| well| as expected)?|is fine|ok|correct|"
              r"no (quality )?(drop|problem|issue)s?)\b")
_NOT_LEARNING = (r"\b(does ?n[o']t|does not|did ?n[o']t|did not) (seem to )?learn\b|\bnot learning\b|"
                 r"\blearns? nothing\b")
_ODD_OUTPUT = (r"\b(strange|weird|odd|abnormal|bad|wrong|incorrect|non-?sensical|nonsense|gibberish|meaningless)\s+"
               r"(outputs?|results?|generations?|predictions?|translations?|summar\w*|text)\b|(<unk>\s*){3,}")

# tried just before the generic entries: more specific overflow stories (a VAE, an exported engine) come first
NONFINITE_REPORTS = (
    # a NaN the text says float32 avoids: reduced precision is the cause
    _e("nan-gone-in-fp32", "overflow", "a NaN that float32 avoids",
       r"\A(?=.*\b(nan|NaN)\b)(?=.*(\b(fp32|float32|full precision)\b[^.\n]{0,40}\b(never|no longer|does ?n'?t|"
       r"does not|won'?t|no)\b[^.\n]{0,30}\b(nan|NaN)\b|\b(fp32|float32)\b[^\n]{0,20}(不会|没有|不再)[^\n]{0,20}(nan|NaN)))",
       unless=EXCEPTION_NAMED,
       cause="The NaN does not appear when the run is float32, so it comes from reduced precision: an fp16 value "
       "overflowing past 65504 (or a bf16 / fp16 one underflowing to zero before a division or a log) somewhere in "
       "the forward or the loss.",
       fix="Keep float32 where it overflows (the loss, norms, softmax, exp), train in bf16 instead of fp16, or use "
       "dynamic loss scaling; `amplora doctor run` names the op where the first inf or NaN appears."),
    _e("bf16-weights-as-fp16", "overflow", "weights trained in bf16 are loaded or converted as fp16",
       r"\A(?=.*\b(bf16|bfloat16)\b)(?=.*\b(forced|hard-?coded|always|converted|conversion|casts?|loaded|saved|"
       r"stored|served)\b[^.\n]{0,40}\b(in|to|as|into)\s+[`'\"]?(fp16|float16|half)\b)|"
       r"\A(?=.*torch_dtype\s*=\s*torch\.float16)(?=.*\b(model|base)\b[^.\n]{0,30}\b(is|in)\b[^.\n]{0,10}\b(bf16|bfloat16)\b)",
       context=r"\b(train\w*|pretrain\w*|fine-?tun\w*)\b[^.\n]{0,40}\b(bf16|bfloat16)\b|"
               r"\bbase model\b[^.\n]{0,20}\b(bf16|bfloat16)\b|"
               r"\b(bf16|bfloat16)\b[^.\n]{0,20}\b(train\w*|checkpoints?|weights|models?)\b",
       unless=r"out of memory|OutOfMemoryError|not supported|unsupported|expected scalar type|must have the same dtype",
       cause="A model trained in bf16 is loaded, converted or served in fp16: bf16 has fp32's range and fp16 tops "
       "out at 65504, so weights and activations that were fine in bf16 overflow to inf/NaN in fp16 (or lose their "
       "small values), and a script that hard-codes fp16 does this to every bf16 checkpoint.",
       fix="Load, convert and serve in the checkpoint's own dtype (`torch_dtype=torch.bfloat16` or `'auto'`, a "
       "converter's dtype option instead of a hard-coded `.half()`), or in fp32 on a GPU without bf16; if fp16 is "
       "a must, check activations against 65504 and keep the overflowing layers in fp32."),
    # model families pretrained in bf16 whose activations pass fp16's range: told by the family's name, with half
    # precision (or fp32 said to work) and a symptom in the text
    _e("bf16-family-in-fp16", "overflow", "a T5-family model run in fp16 (its activations pass 65504)",
       r"\A(?=.*" + _BF16_FAMILY + r")(?=.*(" + HALF_WORDS + "|" + AMP_WORDS + "|" + _FP32_FINE +
       r"|\bload_in_8bit\b|\b(8-?bit|int8)\b))|"
       r"\A(?=.*" + _BF16_FAMILY + r")(?=.*" + _NOT_LEARNING + ")",
       context=f"{NONFINITE_SYMPTOM}|{DRIFT_SYMPTOM}|{_NOT_LEARNING}|" + _ODD_OUTPUT,
       unless=r"out of memory|OutOfMemoryError|" + PRECISION_RULED_OUT,
       cause="T5-family models (T5 v1.1, mT5, Flan-T5, ByT5, UL2, and mDeBERTa-v3 alike) were pretrained in bf16, "
       "and their activations, the feed-forward output above all, pass fp16's largest value 65504 when they run in "
       "fp16 (`fp16=True` mixed precision, `.half()`, a float16 conversion or engine): inf/NaN, a loss of NaN or 0, "
       "garbage or degraded text, or a model that learns nothing, where the same run in fp32 or bf16 is fine.",
       fix="Train and run these models in bf16 (Ampere or newer GPUs) or in fp32 (`fp16=False`, no `--fp16`); do "
       "not convert them to fp16 (`.half()`, a float16 CTranslate2 / FasterTransformer / TensorRT model): keep the "
       "feed-forward output layer (`wo`) in fp32, as transformers does through `_keep_in_fp32_modules` when it "
       "loads T5 in fp16, or use bf16 or int8 weights there."),
    _e("backend-half-kernel-bug", "backend", "a half-precision kernel of this backend gives wrong results",
       r"(fp16|bf16|half|float16|bfloat16|reduced[- ]precision|low[- ]precision).{0,300}(wrong|incorrect|"
       r"all[- ]zeros?|zeros|nans?|garbage|mess|ugly|broken|corrupt\w*|distorted|noise|black|regression)\b|"
       r"\b(wrong|incorrect|garbage|a mess|ugly|broken|corrupt\w*|distorted|regression)\b.{0,300}\b(fp16|bf16|float16|"
       r"bfloat16)\b",
       context=r"\A(?=.*\b(XPU|Intel Arc|Arc [AB]\d{3}|Battlemage|Alchemist|IPEX|iGPU|oneAPI|MPS|Apple (M\d|silicon)|"
               r"ROCm|HIP|gfx\d+|Ascend|NPU|DirectML)\b)(?=.*(\b(fp32|float32|fp16|float16|openvino)\b[^.\n]{0,120}"
               r"\b(correct|right|fine|works?|ok|good|nice|expected)\b|(does not|doesn't|did not) (happen|occur) "
               r"(on|with) (CUDA|the CPU|NVIDIA)|\bcorrect (result|output)s?\b[^.\n]{0,40}\b(bf16|fp16|bfloat16|float16)\b))",
       unless=r"out of memory|OutOfMemoryError",
       cause="fp16/bf16 results are wrong (zeros, NaN, garbage) on a non-CUDA backend (Intel XPU, Apple MPS, ROCm, "
       "an NPU, DirectML) while fp32 on the same device is right: that points to a bug in the backend's "
       "reduced-precision kernel (oneDNN, MPSGraph, hipBLASLt or the driver) rather than an overflow in the model, "
       "the more so when the same dtype is right on another device.",
       fix="Run the affected layer (or the model) in fp32 on that device, or that op on the CPU, until it is "
       "fixed; update the driver and torch (or the backend's extension); and report a minimal repro (one "
       "`nn.Linear` in fp16 against fp32) to the backend (torch-xpu-ops, PyTorch MPS, ROCm)."),
    _e("fp16-full-params", "overflow", "full fine-tuning with the weights in fp16 refused",
       r"(full|全参|全量)[^\n]{0,60}\b(fp16|float16)\b[^\n]{0,60}(not supported|unsupported|不支持|refus\w*)|"
       r"\b(fp16|float16)\b[^\n]{0,60}(not supported|unsupported|不支持)[^\n]{0,60}(full|全参|全量)|"
       r"assert[^\n]{0,40}dtype\s*!=\s*['\"](fp16|float16)['\"]",
       cause="Full fine-tuning with the weights themselves in fp16 (no fp32 master copy) loses updates smaller "
       "than fp16's rounding step and overflows to inf/NaN, and GradScaler refuses fp16 gradients, so the loss does "
       "not converge; frameworks refuse pure fp16 for full training for that reason.",
       fix="Load the model in fp32 and train with fp16 mixed precision (AMP keeps fp32 master weights), or in bf16 "
       "on Ampere or newer GPUs; on a V100 or T4 full fine-tuning runs in fp32 or fp16 AMP, and LoRA on an fp16 base "
       "is fine."),
    # bf16 asked of a GPU that lacks it, reported as a training that degenerates
    _e("bf16-old-gpu-report", "device-capability", "bf16 training on a GPU without native bf16 degenerates",
       r"\A(?=.*(?<![A-Za-z0-9])" + NO_BF16_GPU + r"(?![A-Za-z0-9]))(?=.*" + BF16_WORDS + ")",
       context=NONFINITE_SYMPTOM + "|" + DRIFT_SYMPTOM,
       unless=r"out of memory|OutOfMemoryError|" + HALF_WORDS,
       cause="The run trains in bf16 on a GPU without native bf16 (V100, T4, P100, RTX 20xx: compute capability "
       "below 8.0): torch emulates bf16 there (so capability checks may pass), slowly and with kernels that fall "
       "back, and the training degenerates (a loss that drops to 0 or NaN) or crawls.",
       fix="On that GPU train in fp16 with loss scaling (`fp16=True, bf16=False`, a GradScaler) or in fp32; keep "
       "bf16 for Ampere or newer GPUs (A100, RTX 30xx/40xx, H100)."),
    # mixed precision that never reached the computation
    _e("precision-not-applied", "autocast", "mixed precision set but the computation runs in fp32",
       r"(mixed[- ]precision|\bbf16\b|\bfp16\b|autocast)[^.\n]{0,40}\b(wo?n'?t|does ?n[o']t|did ?n[o']t|not|never) "
       r"(work|apply|applied|take effect|enabled?|used)\b[^.\n]{0,40}\b(DDP|FSDP|DeepSpeed|tensor parallel|pipeline)|"
       r"\b(computation|compute|forward|matmuls?|training)\b[^.\n]{0,30}\b(done|ran|runs?|is|was|were|happens?) in "
       r"(fp32|float32|FP32)\b[^.\n]{0,40}\b(expected|instead of|rather than)\b[^.\n]{0,20}\b(bf16|bfloat16|fp16|half)|"
       # "`--policy.use_amp=true` is silently ignored"
       r"(?<![\w-])(use_amp|--amp|mixed_precision|--mixed[_-]precision|--fp16|--bf16)\b(?:[=\s]+['\"]?[\w.]+['\"]?)?`?"
       r"\s+(is|are|gets?|was|were)\s+(silently\s+)?ignored\b",
       cause="The mixed-precision setting did not reach the computation: frameworks apply it through one mechanism "
       "(FSDP's MixedPrecision / MixedPrecisionPolicy casting the parameters, an autocast region around the forward, "
       "the trainer's precision flag), and a path that bypasses it (plain DDP where only FSDP casts, a forward "
       "called outside the autocast region, a model loaded in fp32) runs in fp32.",
       fix="Wrap the forward and loss in `torch.autocast('cuda', dtype=torch.bfloat16)` when the parallelism does "
       "not cast (DDP), or shard with FSDP so its MixedPrecisionPolicy casts; check `x.dtype` inside a layer to "
       "confirm."),
    _e("bf16-weights-plain-optimizer", "overflow", "pure-bf16 weights with an optimizer that is not bf16-aware",
       r"incompatible dtype and optimizer combination",
       cause="The base weights are held in bf16 (not only computed in it), and the chosen optimizer keeps its "
       "update and state in the weights' dtype: in bf16, with 8 bits of mantissa, updates smaller than a weight's "
       "rounding step are lost, so the tool refuses the combination.",
       fix="Keep the trained weights in fp32 (SimpleTuner: `--base_model_default_dtype=fp32`, at the cost of "
       "memory) with bf16 mixed precision, or use a bf16-aware optimizer that rounds stochastically or keeps "
       "fp32 state (`--adam_bfloat16`, `adamw_bf16`, optimi's Kahan summation)."),
    _e("bf16-rounding-report", "overflow", "bf16 training or inference is worse than fp32 (rounding)",
       DRIFT_SYMPTOM, context=BF16_WORDS,
       unless=r"\b(nan|NaN|inf)\b|out of memory|invalid operands of type|"
       r"\bCPU\b[^\n]{0,60}\b(does not|doesn'?t|not) support\b[^\n]{0,10}\b(bf16|bfloat16)\b|" + HALF_WORDS,
       cause="bf16 keeps only 8 bits of mantissa (about 3 decimal digits): weights and optimizer updates stored in "
       "bf16 (a model cast wholly to bf16 and trained without fp32 master weights) lose every update smaller than "
       "the weight's rounding step, so the loss stalls or ends worse than in fp32, and long reductions drift; the "
       "text alone cannot rule out other training differences.",
       fix="Keep trainable parameters (LoRA adapters) and optimizer state in fp32 and let bf16 autocast run the "
       "matmuls (`bf16=True` mixed precision, `torch_dtype=torch.bfloat16` only for the frozen base; amplora keeps "
       "adapters fp32), or use an optimizer with Kahan summation / stochastic rounding for pure-bf16 weights; "
       "compute losses and norms in fp32."),
    # gradient norms in half precision, or over two dtypes in one fused call
    _e("grad-norm-low-precision", "overflow", "a gradient norm computed in half precision or over mixed dtypes",
       r"\bclip_grad_norm_?\b[^\n]{0,80}\b(downcast\w*|cast\w*|convert\w*)\b[^\n]{0,20}\b(to )?(bf16|fp16|bfloat16|"
       r"float16)\b|\b(convert|cast)\w* partial (gradient )?norms? to\b|"
       r"\b(fp16|float16)\b[^\n]{0,20}\bnorm clipping\b|"
       r"\bnorm\b[^\n]{0,40}\bbecomes? (infinity|inf)\b[^\n]{0,60}\b(clip\w*|coefficient)\b|"
       r"ClipGradByGlobalNorm\b[^\n]{0,80}\b(float16|fp16|mixed precision)|\b(float16|fp16)\b[^\n]{0,40}"
       r"\bClipGradByGlobalNorm|"
       r"\bmixed (bf16/fp32|bf16 and fp32|fp32/bf16|fp16/fp32)\b[^\n]{0,40}\b(grad\w*|list)\b|"
       r"\bcast\w* (the )?(local |partial )?(grad(ient)? )?norms? to (fp32|float32)\b",
       "The gradient norm was computed or reduced in half precision, or over gradients of two dtypes: squares of "
       "fp16 gradients overflow 65504 (a norm of inf makes the clip coefficient 0 and wipes finite gradients), "
       "partial norms cast to bf16 / fp16 before the all-reduce keep about 3 significant digits (norms that look "
       "quantized), and fused multi-tensor norm kernels (TransformerEngine's, apex's) read one list in the first "
       "tensor's dtype, or a sum op cannot add fp16 to fp32, so mixed bf16 and fp32 gradients give wrong norms or "
       "an illegal memory access.",
       "Compute the norm in fp32: upcast each gradient's (or partial) norm to float32 before squaring, summing "
       "and all-reducing (or scale by the max first), and group gradients by dtype, one fused norm call per dtype "
       "group, summing the partial norms in fp32; upgrade the library that does this."),
    _e("clip-before-unscale", "overflow", "gradients clipped while still scaled by the loss scaler",
       r"\bclip\w*.{0,120}\bscaled gradients\b|\bscaled gradients\b.{0,120}\bclip\w*|"
       r"\bclip\w*.{0,80}\bbefore\b.{0,40}\bunscal\w*|"
       r"\A(?=.*\bclip\w*)(?=.*\bunscale_)(?=.*\b(native amp|amp|fp16|GradScaler)\b)(?!.*\w+(Error|Exception):)|"
       # told in words: clipping under AMP and the loss stops decreasing
       r"\A(?=.*clip_grad_norm_?)(?=.*\b(torch\.cuda\.amp|amp|autocast|GradScaler|mixed precision)\b)"
       r"(?=.*\b(does ?n[o']t|does not|not|no longer) (decrease|go down|learn|converge)\w*)(?!.*\w+(Error|Exception):)|"
       # told in words: the loss scaled, the step taken without the scaler
       r"\A(?=.*\b(GradScaler|grad_scaler|scaler\.scale)\b)(?=.*(\bnot (for|through|with) the (update|"
       r"optimizer) step\b|"
       r"\bgradients (are|were) (now )?\d+x larger\b|\bnever unscaled\b))|"
       # told in words: gradients unscaled twice
       r"\A(?=.*\bunscal\w*)(?=.*\b(twice|two times|doubly|double)\b)(?=.*\b(fp16|loss scal\w*|scaler|gradients)\b)"
       r"(?!.*\w+(Error|Exception):)",
       cause="With fp16 loss scaling (GradScaler, apex, a hand-made scale) the gradients are multiplied by the loss "
       "scale factor until they are unscaled (once: unscaling twice shrinks them by the scale again, a step taken "
       "with `optimizer.step()` instead of `scaler.step` never unscales them), so a `clip_grad_norm_` before "
       "unscaling compares the scaled norm with the threshold and clips far too hard (or not at all when the "
       "scale is small).",
       fix="Unscale first, then clip: `scaler.unscale_(optimizer)`, `torch.nn.utils.clip_grad_norm_(params, "
       "max_norm)`, `scaler.step(optimizer)`, `scaler.update()` (accelerate's `accelerator.clip_grad_norm_` does "
       "this)."),
    _e("merge-rounding", "overflow", "a merged adapter differs from the unmerged one (rounding in the base dtype)",
       r"\A(?=.*\b(merge_and_unload|merge_adapter|save_pretrained_merged|merged? (the )?(lora|adapter|model|"
       r"weights))\b)"
       r"(?=.*(loss of (accuracy|precision)|\\ne\b|≠|!=|not (equal|the same|identical)|(differ|different|mismatch)\w*"
       r" (from|than|to|between|results?|outputs?|logits|loss)|\b(answers?|outputs?|responses?)\b[^.\n]{0,80}\b(was|"
       r"were|is|"
       r"are) not (returned|the same|reproduced)\b))",
       unless=r"\bError\b|Exception|out of memory|size mismatch|shape",
       cause="Merging adds B·A into the base weight in the base's dtype: in bf16 (8 bits of mantissa) or fp16, W + BA "
       "is rounded, and a small update can vanish in the rounding, so the merged model's weights, logits and loss "
       "differ slightly from the unmerged adapter's, which computes BA separately; a 4/8-bit base adds "
       "requantization error.",
       fix="Small differences are expected; for a faithful merge load the base in fp32, merge, then cast once to the "
       "dtype you serve in (the rounding then happens once, on W + BA); do not merge into a quantized base: "
       "dequantize it first."),
    _e("load-dtype-downcast", "overflow", "fp32 tensors of a checkpoint downcast by the load dtype",
       r"\bdowncast\w*\b.{0,60}\b(FP32|float32|fp32)\b.{0,60}\bto (BF16|bfloat16|FP16|float16|half)\b",
       "Loading with `torch_dtype=torch.bfloat16` (or `.to(torch.bfloat16)` / `.half()`) casts every floating "
       "tensor, also those the checkpoint keeps in float32 on purpose (gates, sinks, norms, biases, scales), so they "
       "are rounded in memory and saved that way.",
       "Load with `torch_dtype='auto'` (it keeps the checkpoint's per-tensor dtypes), or keep those modules in fp32 "
       "(the model's `_keep_in_fp32_modules`, or cast them back with `.float()` after loading), and save from a "
       "model loaded that way."),
    _e("half-integer-rounding", "overflow", "whole numbers that bf16 / fp16 cannot hold exactly",
       r"\A(?=.*\b(bfloat16|bf16|float16|fp16|half)\b)"
       r"(?=.*\(?\b\d{3,}\s*[-+*/]\s*\d{3,}\)?(\s*[-+*/]\s*\d+)?\s*=\s*\d+)"
       r"(?=.*\b(wrong|incorrect|strange|unexpected|should be|in reality|instead of|expected)\b)|"
       # a number and what the dtype's constructor printed for it: "jnp.bfloat16(1329) is  1328"
       r"\b(bfloat16|float16)\((?P<hnum>\d{3,})\)[ \t]*(is|=|->|:)?[ \t]*(?!(?P=hnum)\b)\d{3,}\b",
       unless=r"\w+Error\b|Traceback",
       cause="bf16 keeps 8 significant bits (fp16 11), so whole numbers above 256 in bf16 (2048 in fp16) are not "
       "all representable: each result rounds to the nearest value the dtype holds (1412 is stored as 1408 in bf16), "
       "and sums, means and counts drift by that rounding.",
       fix="Compute values that must be exact in float32 (or integers): `x.float()` before the arithmetic, counts and "
       "indices as int64, and cast back to bf16 only where the precision does not matter."),
    _e("speculative-greedy-differs", "overflow", "greedy output differs with speculative or parallel decoding",
       r"\A(?=.*\b(speculative|lookahead\w*|self-speculative|assisted (generation|decoding)|draft model|parallel "
       r"decoding|jacobi decoding|medusa|eagle)\b)(?=.*\bgreedy\b|.*\bhugging ?face\b)(?=.*\b(inconsistent|differ\w*|"
       r"mismatch\w*|not (the )?same|not identical|not match\w*)\b)",
       unless=r"\w+Error\b|Traceback|\b(fp32|float32)\b[^.\n]{0,60}\b(also|too|as well|still)\b",
       cause="Speculative, lookahead and assisted decoding score several tokens in one forward (other batch shapes, "
       "other kernels) where plain greedy decoding scores one, and in fp16/bf16 those forwards round differently: "
       "a near-tie in the logits flips the argmax, so the output drifts from plain greedy decoding although the "
       "algorithm is exact in exact arithmetic.",
       fix="Expect small differences in fp16/bf16 (floating-point rounding, not a bug); to check the "
       "implementation, run both in fp32 (`torch_dtype=torch.float32`), where the outputs should match token for "
       "token; a difference that remains in fp32 is a real bug."),
    _e("fp16-drift-report", "overflow", "fp16 results differ from fp32 (range and rounding)",
       DRIFT_SYMPTOM, context=HALF_WORDS,
       unless=r"\b(nan|NaN|inf)\b|out of memory|\bOOM\b|ResourceExhausted|TensorRT|\bTRT\b|onnx|coreml|\bQ\d_(K|0|1)\b|"
       r"\bCPU\b[^\n]{0,60}\b(does not|doesn'?t|not) support\b[^\n]{0,10}\b(bf16|bfloat16)\b|" + HALF_SAID_RIGHT,
       cause="fp16 keeps 10 bits of mantissa and tops out at 65504 (bf16 keeps only 7): a model cast wholly to "
       "16 bits with `.half()` loses precision in long reductions (softmax, norms, losses, attention sums, partial "
       "results combined across blocks or devices) and small values underflow, so its outputs or accuracy differ "
       "from fp32 even without an overflow to inf/NaN.",
       fix="Run under autocast (`torch.autocast('cuda', dtype=torch.float16)`) rather than `.half()`, which keeps "
       "softmax, norms and losses in fp32; use bf16 where the GPU has it; accumulate partial results (block "
       "outputs, sums) in fp32 buffers; for training keep fp32 master weights with a GradScaler; compare layer "
       "outputs against fp32 to find the first one that drifts."),
    _e("fp16-sampling-rounding", "overflow", "a sampling kernel's half-precision probabilities round off",
       r"\A(?=.*\b(sampl\w*|top[-_ ]?[kp])\b)(?=.*\b(fp16|float16|half)\b)(?=.*(\b(strange|invalid|wrong|garbage|"
       r"illegal|out[- ]of[- ](range|vocab\w*))\b[^.\n]{0,20}\b(ids?|tokens?|token ids?|indices)\b|"
       r"\b(ids?|tokens?|token ids?|indices)\b[^.\n]{0,30}\b(strange|invalid|wrong|garbage|illegal)\b))",
       unless=r"\w+Error\b|Traceback|" + PRECISION_RULED_OUT,
       cause="In half precision a sampling kernel's probabilities (or their running sum, or the random threshold "
       "compared with it) round off: the cumulative sum can end below the threshold (or above 1), so the loop over "
       "the top-k / top-p candidates finishes without picking one and leaves an invalid or stale token id.",
       fix="Sample in float32: cast the logits to float before softmax, top-k / top-p and the cumulative sum (or "
       "keep the sum and the threshold in fp32 inside the kernel), and let the last candidate be the fallback when "
       "the loop runs out (the `i == k-1` case); upgrade the library where its sampling kernel was fixed."),
    _e("cosine-similarity-half", "overflow", "cosine similarity computed in fp16 collapses to 0 or passes 1",
       r"\A(?=.*(cosine[_ ]?similarity|CosineSimilarity|\bcos_sim\b))(?=.*(\b(fp16|float16|half|HalfTensor)\b|"
       r"\.half\(\)))(?=.*(\b(different|inconsistent|differ\w*|wrong|incorrect)\b|\b(gives?|outputs?|returns?|is) "
       r"[`'\"]?(0|zero)\b|(larger|greater|bigger) than 1\b|>\s*1\b|\b(nan|inf)\b))",
       unless=r"out of memory|Expected all tensors to be on the same device",
       cause="In fp16 the sums of squares behind cosine similarity (each vector's norm, over hundreds or thousands "
       "of dimensions, and their product) pass 65504 or round off: the result collapses to 0 when they overflow, or "
       "leaves [-1, 1] (above 1, which breaks a BCE, an arccos or a margin loss after it).",
       fix="Compute it in fp32: `F.cosine_similarity(a.float(), b.float(), dim=-1)` (autocast runs it in fp32 "
       "itself, a model cast with `.half()` does not), or normalize first (`F.normalize(a.float(), dim=-1) @ "
       "F.normalize(b.float(), dim=-1).T`) and clamp to [-1, 1] before an arccos or a BCE."),
    _e("nms-fp16-iou", "overflow", "non-maximum suppression in fp16 keeps or drops the wrong boxes",
       r"\A(?=.*\b(nms|NMS|non_max_suppression|nms_rotated|batched_nms|box_iou)\b)(?=.*\b(fp16|FP16|float16|half|"
       r"Half)\b)(?=.*\b(different|differ\w*|wrong|incorrect|(can'?t|cannot|not|fails? to|doesn'?t) (properly )?"
       r"supp?ress\w*)\b)",
       # wrong in fp32 as well: not fp16's rounding
       unless=r"\w+Error\b|not implemented|Traceback|\b(fp32|float32|full precision)\b[^.\n]{0,60}\b(also|too|as well|"
       r"still)\b|" + PRECISION_RULED_OUT,
       cause="Non-maximum suppression (torchvision's `nms` and `batched_nms`, mmcv's `nms_rotated`) computes box "
       "areas and intersections in the boxes' dtype: in fp16 coordinates of a few hundred pixels keep about three "
       "significant digits (steps of 0.25-0.5 above 256) and areas lose more, so IoUs come out wrong and "
       "overlapping boxes survive (or distinct ones are dropped).",
       fix="Run NMS in float32: `nms(boxes.float(), scores.float(), iou_threshold)`; a half-precision model's "
       "detections can stay fp16 up to NMS."),
    _e("clip-fp16-weights", "overflow", "OpenAI CLIP loaded on CUDA has fp16 weights",
       r"\A(?=.*\bclip\.load\()(?=.*(?<![A-Za-z])(nan|NaN|inf)(?![A-Za-z]))|"
       r"\A(?=.*\bCLIP\b)(?=.*\b(encode_image|encode_text)\b)(?=.*(?<![A-Za-z])(nan|NaN)(?![A-Za-z]))",
       "`clip.load(...)` on a CUDA device returns the model with fp16 weights (it calls `convert_weights`), so "
       "training it updates fp16 parameters directly: Adam's eps of 1e-8 is 0 in fp16 and small second moments "
       "underflow, so the first steps divide by zero and the weights go NaN.",
       "Call `model.float()` after `clip.load` before training (and train under `torch.autocast('cuda', "
       "dtype=torch.float16)` with a GradScaler, or bf16, for speed); keep the fp16 weights for inference only."),
    _e("gtx16-fp16-nan", "overflow", "fp16 NaN / black output on a GTX 16xx card",
       r"\b(GTX ?)?16([56]0( ?(Super|Ti))?|[Xx]{2})\b|\b(Quadro )?T(400|600|1000|1200)\b",
       context=NONFINITE_SYMPTOM + r"|\bnot (working|learning)\b|does ?n[o']t (work|learn)\b",
       unless=r"out of memory|OutOfMemoryError",
       cause="GeForce GTX 16xx cards (1650, 1660, Super / Ti) produce NaN (black images, NaN losses) in fp16 for "
       "many models (and so do the Quadro T400-T1200 built on the same chips), a known problem of these Turing "
       "cards without tensor cores: their fp16 kernels (cuDNN convolutions among them) can accumulate in fp16, "
       "whose range ends at 65504, and overflow, so code that runs fine in fp16 elsewhere fails there.",
       fix="Run in fp32 on a GTX 16xx: `fp16=False` / `torch_dtype=torch.float32`, `--no-half` (and "
       "`--no-half-vae`) or `--precision full` in the SD UIs, `--force-fp32` in ComfyUI; keep only the parts known "
       "to be safe in fp16 if memory is short."),
    _e("no-bf16-gpu-nonfinite", "overflow", "NaN, a zero loss or an unstable loss on a GPU without bf16",
       r"(?<![A-Za-z0-9])" + NO_BF16_GPU + r"(?![A-Za-z0-9])",
       context=NONFINITE_SYMPTOM + r"|loss\s*(异常|不稳定|时大时小)|\bunstable\b",
       # the same program right on the CPU and NaN on the GPU, with no half precision anywhere: a driver or kernel
       unless=r"out of memory|OutOfMemoryError|\b(as expected|fine|correct\w*|works?)\b[^.\n]{0,20}\bfrom (the )?CPU\b|"
       + PRECISION_RULED_OUT + "|" + HALF_EVIDENCE,
       cause="On a GPU without bf16 (V100, T4, P100, RTX 20xx, GTX 10xx) mixed precision runs in fp16, and a model "
       "trained or released in bf16 overflows fp16's 65504 there: NaN gradients, a loss that drops to 0 while the "
       "loss scaler skips every step, or a loss that swings, where the same run is fine in bf16 on a newer GPU.",
       fix="On that GPU train in fp32 (`fp16=False`, `--fp16 false`), or use a GPU with bf16 (Ampere or newer) and "
       "`bf16=True`; if fp16 is a must, keep a GradScaler with fp32 master weights and run attention, norms and the "
       "loss in fp32."),
    # mergekit: `dtype` is what the merge computes in, `out_dtype` what it writes
    _e("mergekit-out-dtype", "mismatch", "a mergekit merge written in another dtype than the config's `dtype`",
       r"\A(?=.*\b(mergekit|merge_method)\b)(?=.*\bdtype\b)(?=.*\b(float32|fp32|F32|float16|bfloat16)\b)"
       r"(?=.*\b(ignored|no effect|does ?n[o']t (matter|work|change)|always|regardless|instead)\b)",
       "In mergekit the config's `dtype` sets the dtype the merge is computed in, not the one written: the saved "
       "weights take `out_dtype` (and fall back to the compute dtype or float32 without it).",
       "Set `out_dtype: bfloat16` (or `float16`) in the merge config for the saved weights, and keep `dtype: "
       "float32` for the computation if precision matters."),
    _e("saved-twice-the-size", "mismatch", "a saved or merged model twice the expected size (fp32 where fp16/bf16 was)",
       r"\b(files?|weights?|models?|checkpoints?|outputs?|merged|results?\w*|safetensors|\.pt|\.bin|size)\b[^.\n]{0,50}"
       r"\b(is |are |was |were |becomes? |became |gets? |got )?(always |exactly |almost |about )?(double[ds]?|twice|2x)\b"
       r"(?! (precision|tensors?|type|dtype))|\b(double[ds]?|twice) (the |its )?(file )?size\b|"
       r"\b(merg\w*|sav\w*)\b[^.\n]{0,40}\b(as|in|to)\s+(fp32|float32)\b|"
       # "LoRA merge abnormal size increase", "the merged file got bigger"
       r"\bmerg\w*\b[^.\n]{0,40}\b(size (increase\w*|grew|grows|jump\w*)|(got|gets|became|becomes|is|are) "
       r"(much )?(bigger|larger))\b|(模型|文件|权重|size|大小)[^\n，。]{0,10}翻(了一)?倍",
       "The saved file holds fp32 tensors where the source held fp16 or bf16 (4 bytes an element instead of 2), or "
       "float64 ones (8 bytes) where a LoRA loaded in float64 promoted each weight it was merged into: the merge or "
       "conversion computed in a wider dtype (or loaded the model in fp32) and saved without casting back.",
       "Save in the source's precision: the tool's save-precision option (`--save_precision fp16` / `bf16`), or "
       "cast before saving (`model.to(torch.bfloat16)`, `{k: v.half() for k, v in state_dict.items()}`), or load "
       "with the `torch_dtype` of the checkpoint (`torch_dtype='auto'`).",
       context=r"\b(merg\w*|sav\w*|convert\w*|export\w*|size|MB|GB)\b|保存|转换|合并|导出",
       unless=r"out of memory|OutOfMemoryError|double[ds]? (the )?(speed|time|memory usage)|twice as (slow|fast)|"
       r"\b(sequence|dimension|seq_len|batch)\w*[^.\n]{0,20}\bsize\b"),
    # model families whose activations outgrow fp16: loaded in fp16 (a server's default, torch_dtype='auto' on an
    # fp16 checkpoint, a GPU without bf16) they give empty or garbage text
    _e("bf16-model-in-fp16", "overflow", "a model trained in bf16 that overflows when run in fp16",
       r"\A(?=.*\b(gemma[- ]?[23]\w*|(flan[- ])?t5|mt5|byt5|pegasus|phi-2)\b)(?=.*\b(empty (strings?|outputs?|"
       r"responses?|text)|garbage|gibberish|nonsense|nan|blank (outputs?|responses?)|only pad\w*)\b)",
       unless=EXCEPTION_NAMED + r"|out of memory|tokeni[sz]er\w* (files?|config\w*|changed|was|is wrong)|"
       r"chat template|rope_(theta|scaling)|"
       # a NaN under DeepSpeed ZeRO-3 with no fp16 in sight: a sharding or loading bug, not fp16 overflow
       r"\A(?=.*\b(zero[- _]?3|ZeRO stage 3)\b)(?!.*\b(fp16|float16|half)\b)|" + PRECISION_RULED_OUT,
       cause="Gemma 2 / 3, T5 and its family, Pegasus and phi-2 were trained in bf16 (or fp32), and some of their "
       "activations exceed 65504, fp16's largest value; run in float16 (a server's default dtype, "
       "`torch_dtype='auto'` on an fp16 checkpoint, a GPU without bf16) they overflow to inf/NaN, which comes out "
       "as empty strings, pad tokens or garbage.",
       fix="Run them in bfloat16 (`dtype='bfloat16'` in vLLM, `torch_dtype=torch.bfloat16`) or float32 on GPUs "
       "without bf16, not float16."),
    # RL: the trainer's and the rollout engine's log-probs of the same tokens
    _e("train-rollout-logprob-gap", "overflow", "trainer and rollout engine disagree on log-probs (bf16 rounding)",
       r"\A(?=.*\brollout\w*\b)(?=.*\b(log[-_ ]?probs?|logp)\b)(?=.*(\bdiff\w*|\bmismatch\w*|Δ|\bgap\b))",
       unless=EXCEPTION_NAMED + r"|out of memory",
       cause="The trainer (HF / FSDP) and the rollout engine (vLLM, SGLang) compute the same log-probs with different "
       "kernels in bf16: different cast points (an RMSNorm that casts to bf16 before or after the weight multiply), "
       "reduction orders and fused kernels round differently, so log-probs differ by ~1e-3 to 1e-1 per token even "
       "with identical weights.",
       fix="Compute log_softmax in fp32 on both sides, align the cast points of norms and the lm_head, use the "
       "engines' batch-invariant / deterministic kernels where exact agreement is needed, or correct for the gap "
       "(importance sampling / truncated IS in the RL loss)."),
    # a metric whose input check takes float32 for floating point
    _e("metric-half-preds", "mismatch", "a metric that treats half-precision predictions as labels",
       r"\A(?=.*\b(accuracy|metrics?|auroc|auc|f1|precision|recall)\b)(?=.*(\.half\(\)|half[- ]precision|float16|fp16))"
       r"(?=.*\b(preds?|predictions?)\b)(?=.*\b(is|are|returns?|gives?|becomes?)\b[^.\n]{0,20}\b(zero|0\.0|wrong|"
       r"incorrect)\b)",
       unless=EXCEPTION_NAMED,
       cause="The metric's input check tests `preds.dtype == torch.float` (float32) rather than "
       "`preds.is_floating_point()`, so float16 (half) probabilities are not recognised as probabilities, are not "
       "thresholded, and are compared with the targets as labels.",
       fix="Pass `preds.float()` to the metric, or upgrade the metrics library whose check uses "
       "`is_floating_point()`."),
    # batched and one-at-a-time generation taking other tokens: half-precision rounding depends on the batch shape
    _e("batch-shape-rounding", "overflow", "batched results differing from one-at-a-time in half precision",
       r"\bbatch\w*\b[^.\n]{0,60}\b(disagree\w*|differ\w*|different|inconsistent|mismatch\w*)\b[^.\n]{0,40}"
       r"\b(one[- ]at[- ]a[- ]time|single|unbatched|batch[_ ]size ?(=|of)? ?1|bs ?= ?1|individual\w*)\b",
       unless=EXCEPTION_NAMED + r"|out of memory",
       cause="In bf16 / fp16 the matmul and attention kernels picked, and the padding that shifts positions, depend "
       "on the batch shape, so the rounding differs between a batch and a single sequence; greedy decoding then "
       "takes another token where two logits are close (in float32 every batch size agrees to ~1e-6), and a fully "
       "padded row can even give NaN in fp16.",
       fix="Expect small differences in half precision; compare in float32 to tell rounding from a bug, use left "
       "padding with a correct attention mask for decoder-only models, and batch the same way at train and test "
       "time when exact agreement matters."),
    _e("cpu-bf16-illegal-instruction", "device-capability", "a bf16 CPU kernel for AMX run on a CPU without it",
       r"\A(?=.*\b(BF16|bf16|bfloat16)\b)(?=.*Illegal instruction)(?=.*\b(AMX|AVX-?512_?BF16)\b)",
       "A bf16 CPU kernel built for AMX (or AVX512-BF16) instructions ran on a CPU without them (Cascade Lake and "
       "older Xeons, most desktop CPUs): the kernel was chosen at build time, not checked against the CPU at "
       "runtime, so the instruction traps.",
       "Use a method or build without that kernel (fp32, or the library's non-AMX backend), run on a CPU with AMX "
       "(Sapphire Rapids or newer), or a release that checks the CPU's support at runtime and falls back."),
    _e("half-slow-report", "device-capability", "half precision slower than fp32 on this hardware",
       r"(fp16|bf16|bfloat16|float16|half[- ]precision|mixed[- _]precision|\bamp\b|autocast)(?:[^.\n]|\.(?=\w)){0,100}"
       r"\b(slower|(very |extremely |much |super |so )?slow(s|ed|ing)?|no speed-?up|not faster|same speed|"
       r"(seems to be |is |gets? )?stuck|never finish\w*|(does|did|do)(?: not|n'?t) (get |run |train )?faster)\b|"
       r"(fp16|bf16|bfloat16|float16)[^\n]{0,40}(速度[^\n]{0,6}(一样|相同|差不多)|没有(加速|提速|变快|提升)|更慢|变慢)|"
       r"\b(slower|(very |extremely |much |super |so )?slow|no speed-?up|not faster|freez\w*|hang(s|ing)?)\b(?:[^.\n]|\.(?=\w)){0,80}"
       r"(fp16|bf16|bfloat16|float16|half[- ]precision|mixed[- ]precision)|"
       r"(fp16|bf16|bfloat16|float16)(?:[^.\n]|\.(?=\w)){0,60}\b(freez\w*|hang(s|ing)?)\b|"
       r"\b(fp16|bf16|bfloat16|float16|f16)\W{0,3}(throughput|speed|fps|performance)\W{0,3}(<|is (lower|worse|less) "
       r"than)\W{0,3}(fp32|f32|float32)\b|"
       r"\b(fp16|float16)\b[^\n]{0,20}\bis (\d+x[~-]?\d*x? )?slower than (bf16|bfloat16)\b|"
       r"\A(?=.*\bCPU\b[^\n]{0,60}\b(does not|doesn'?t|not) support\b[^\n]{0,10}\b(bf16|bfloat16)\b)"
       r"(?=.*\bperformance\b[^\n]{0,30}\b(much |far )?worse\b)",
       # (4-bit weights slower than fp16 pay for dequantizing, a different story)
       unless=r"out of memory|OutOfMemoryError|Error:|\b(nan|inf)\b|NCCL|[Ww]atchdog|timed? ?out|deadlock|"
       r"\b(4|8)-?bit\b[^.\n]{0,30}\bslower than (fp16|float16|bf16)",
       cause="Half precision is faster only where the hardware computes that dtype natively: bf16 is emulated on "
       "GPUs before Ampere (V100, T4, GTX/RTX 20xx) and on CPUs without AVX512-BF16 / AMX, and fp16 runs at a "
       "fraction of fp32's rate on Pascal consumer GPUs (GTX 10xx) and on most CPUs, so there it is slower than "
       "fp32, and mixed precision speeds up matmuls only on GPUs with tensor cores (Volta and newer; a K40, P40 or "
       "GTX 10xx has none); on capable hardware, small models and batches are bound by kernel launches and casts "
       "rather than arithmetic; Arm CPUs (oneDNN / ACL) have optimized bf16 kernels but not fp16 ones, and a "
       "compiled or frozen bf16 graph on some CPUs dispatches to oneDNN's slow reference kernels.",
       fix="Use a dtype the device has: bf16 on Ampere or newer, fp16 with loss scaling on V100/T4/RTX 20xx, fp32 on "
       "Pascal GPUs and on CPUs without bf16 instructions (`lscpu | grep -E 'avx512_bf16|amx'`); `amplora doctor` "
       "reports what the device supports and `precision='auto'` picks it; measure at realistic batch sizes."),
    _e("xla-downcast-bf16", "overflow", "XLA_USE_BF16 / XLA_DOWNCAST_BF16 turn fp32 constants into bf16",
       r"\bXLA_(USE|DOWNCAST)_BF16\b", context=NONFINITE_SYMPTOM + "|" + DRIFT_SYMPTOM,
       unless=r"out of memory|OutOfMemoryError",
       cause="`XLA_USE_BF16=1` / `XLA_DOWNCAST_BF16=1` store every fp32 tensor of a torch_xla run as bf16, constants "
       "included: a mask filled with `torch.finfo(torch.float32).min` (transformers from 4.21 to 4.25) rounds to -inf "
       "in bf16, and a fully masked row's softmax then gives NaN; small epsilons and long sums lose their precision "
       "the same way.",
       fix="Use mask values that fit bf16 (`torch.finfo(torch.bfloat16).min`; transformers >= 4.25.1 does), or train "
       "with bf16 autocast (`torch.autocast('xla', dtype=torch.bfloat16)`) instead of the environment variables, "
       "which keeps masks, norms and the loss in fp32."),
    _e("bf16-pure-training-unstable", "overflow", "training with the weights in bf16 diverges where fp32 trains",
       r"\A(?=.*\b(bf16|bfloat16)\b[^.\n]{0,80}\b(loss|training)\b[^.\n]{0,40}\b(overflow\w*|nan|diverg\w*|explod\w*))"
       r"(?=.*\b(fp32|float32)\b[^.\n]{0,60}\b(ok|fine|works?|normal|good|stable)\b)",
       unless=r"out of memory|OutOfMemoryError",
       cause="The weights themselves were held in bf16 (the model cast with `.to(torch.bfloat16)` or a bf16 "
       "training flag that casts it), not only computed in it: with 8 bits of mantissa small updates are lost and "
       "sensitive parameters (state-space `A_log` / `dt`, norms, embeddings) drift until the loss overflows, "
       "while the fp32 run is stable.",
       fix="Keep the weights in fp32 and compute in bf16 under autocast (`torch.autocast('cuda', dtype="
       "torch.bfloat16)`, `bf16=True` mixed precision), or keep the sensitive parameters in fp32."),
    _e("fp8-nonfinite-report", "overflow", "fp8 training gives NaN / inf",
       NONFINITE_SYMPTOM,
       context=r"\A(?=.*(?<![A-Za-z0-9_])(fp8|float8\w*|e4m3\w*|e5m2\w*)(?![A-Za-z0-9_]))"
               r"(?=.*\b(train\w*|loss|transformer[ _]engine)\b)",
       unless=r"out of memory|OutOfMemoryError|"
       r"\b(worked|was working|used to work)\b[^.\n]{0,30}\b(weeks?|days?|months?) ago\b",
       cause="fp8 training ran out of fp8's narrow range: E4M3 holds at most 448 and E5M2 57344 with few digits, "
       "so a per-tensor scale taken from an amax history that lags behind a spike lets outliers overflow to "
       "inf/NaN or small gradients flush to zero; a large weight initialization or unnormalized activations make "
       "it worse.",
       fix="Keep the first and last layers, norms and the loss in bf16, use a short amax history or current "
       "(just-in-time) scaling, check the weight initialization (scaled init, a smaller std), and compare with a "
       "bf16 run; fall back to bf16 where fp8 keeps diverging."),
    _e("near-one-constant-half", "overflow", "a constant just below 1 that fp16 / bf16 round to 1",
       r"\A(?=.*(\b1(\.0*)?\s*-\s*1e-?0?([4-9]|1[0-2])\b|\b0\.99999\d*))"
       r"(?=.*\b(log1p|log|atanh|acos|arccos|asin|arcsin)\b)(?=.*(\bnan\b|\binf\b|non-?finite|infinit))",
       cause="A constant just below 1 (`1.0 - 1e-6`, `0.999999`) is not a number fp16 or bf16 hold: the largest "
       "below 1 is 1 - 4.9e-4 in fp16 and 1 - 3.9e-3 in bf16, so under mixed precision (autocast, a bf16 or fp16 "
       "model) it rounds to exactly 1.0; a clamp to it then keeps a saturated probability at 1, and log(1 - p), "
       "`log1p(-p)` or atanh(1) give -inf / inf, whose backward is inf/NaN gradients (fp32 holds the constant).",
       fix="Compute that probability, the clamp and the log in fp32 (`p.float()`), take the margin from the dtype "
       "(`1 - torch.finfo(p.dtype).eps`), or work from logits (`F.logsigmoid(-logits)` for log(1 - sigmoid(x)))."),
    _e("fp16-nonfinite-report", "overflow", "half precision gives NaN / inf / black output",
       # a VAE alone stands for Stable Diffusion's, decoding in fp16, not for one being trained
       NONFINITE_SYMPTOM, context=f"{HALF_WORDS}|{AMP_WORDS}" + r"|\A(?=.*\b(SD ?XL|vae)\b)(?!.*(\bLR\b|learning[ _]rate|"
       r"discriminator|\bepochs?\b|\bdataset\b|\breconstructions?\b|\bBCE\b|\bKL\b|\bfrom scratch\b|"
       r"\b(VAE|autoencoder) training\b|\btrain\w* (a |the |my |our )?(VAE|autoencoder)\b))",
       cause="The text reports NaN/inf (or black, blank, '!!!!' output) when running in half precision, which "
       "most often means an fp16 overflow: activations, attention scores or a VAE exceed fp16's largest value "
       "65504 (or a kernel accumulates a sum in fp16, as old pooling kernels did) and turn into inf and then NaN "
       "(fp32 runs are fine); the text alone cannot rule out a too high "
       "learning rate or bad data.",
       fix="Run in bf16 where the GPU has it (Ampere or newer: same range as fp32) or in fp32 on GPUs without bf16 "
       "(V100, T4); keep the overflowing part (attention softmax, norms, the VAE, the loss) in fp32; for training "
       "in fp16 use dynamic loss scaling (`GradScaler`) and fp32 master weights, stepping only through "
       "`scaler.step(optimizer)` (an extra `optimizer.step()` applies the inf gradients the scaler skipped), and a "
       "lower learning rate if the loss diverges; an epsilon below fp16's range (1e-7, 1e-8 in Adam, Keras or a norm) underflows to zero there, "
       "so use a larger eps in fp16 (>= 1e-4 in Adam, a norm's default 1e-5 rather than 1e-12); with an fp16 engine "
       "or ONNX model, convert the input and output buffers to and from fp16 "
       "(fp32 data in fp16 bindings reads as garbage or NaN).",
       unless=r"out of memory|OutOfMemoryError|NSFW|safety[ _]checker|" + AMP_NOTICE + "|" + PRECISION_RULED_OUT),
    _e("half-fails-fp32-works", "overflow", "a run that fails in fp16/bf16 and works in fp32",
       r"\A(?=.*\b(fp16|float16|half|bf16|bfloat16|bp16)\b[^.\n]{0,60}\b(fail\w*|problem|issue|broken|wrong|"
       r"crash\w*)\b)"
       r"(?=.*\b(ok|fine|works?|normal\w*|correct\w*)\b[^.\n]{0,15}\b(with|in|on|using) "
       r"(\w+\.)?(fp32|float32|full precision)\b)",
       "The same run misbehaves in fp16/bf16 and is fine in fp32: some activation exceeds fp16's 65504 (inf, then NaN, "
       "black or empty output), or bf16's 8 significant bits lose what a sensitive part (a norm, a temporal or "
       "attention head, a loss) needs.",
       "Find the layer (`amplora doctor run script.py` names the first inf/NaN) and keep it in fp32 (upcast its input "
       "and run it under `torch.autocast(..., enabled=False)`), or run the model in fp32 (or bf16 where only fp16 "
       "fails).", unless=r"out of memory|OutOfMemoryError|" + PRECISION_RULED_OUT),
    _e("bf16-nonfinite-fp32-works", "overflow", "NaN in bf16 where fp32 runs",
       r"\A(?=.*(?:" + NONFINITE_SYMPTOM + r"))(?=.*(?<![A-Za-z0-9_])(bf16|bfloat16)(?![A-Za-z0-9_]))"
       r"(?=.*\b(fp32|float32|full precision)\b"
       r"[^.\n]{0,30}\b(works?|working|is running correctly|runs? (correctly|fine|normally|well)|fine|no (nan|problem|"
       r"issue)s?)\b|"
       r".*(?<![A-Za-z0-9_])(fp32|float32)(?![A-Za-z0-9_])[^.。\n]{0,12}(正常|没问题|沒問題|就好|可以训练|可以訓練))",
       "The same run gives NaN in bf16 and works in fp32: bf16 keeps fp32's range but only 8 significant bits, so "
       "where precision matters (norms and softmax over long rows, small updates to large weights, losses near "
       "zero, a model pretrained in fp32 or fp16) its rounding errors grow into inf/NaN.",
       "Train in fp32, or in mixed precision that keeps fp32 master weights (`torch.autocast(dtype=torch.bfloat16)` "
       "on an fp32 model, `bf16=True` in the Trainer rather than a model cast to bf16), with norms, softmax and the "
       "loss in fp32."),
)
