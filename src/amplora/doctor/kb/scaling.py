"""Loss scaling (GradScaler) and NaN/overflow messages."""
from __future__ import annotations

from amplora.doctor.kb.entry import make as _e
from amplora.doctor.kb.patterns import (AMP_WORDS, BF16_WORDS, EXCEPTION_NAMED, HALF_WORDS, LOSS_SCALE_SKIP,
                                        PRECISION_RULED_OUT)

# GradScaler misuse: what it may unscale, what it needs to check
SCALING = (
    _e("apex-amp-uninitialized-optimizer", "autocast", "apex.amp given an optimizer that `amp.initialize` never saw",
       r"object has no attribute '_amp_stash'",
       "apex.amp's `scale_loss` works only on an optimizer returned by `amp.initialize`, which adds its `_amp_stash`: "
       "this one was created, replaced or wrapped after that call (a differential-privacy wrapper such as Opacus' "
       "DPOptimizer, a Lookahead or framework wrapper, an optimizer rebuilt on resume), so apex finds none of its "
       "state; apex.amp is deprecated, and libraries that wrap the optimizer (Opacus among them) did not support it.",
       "Use torch's own mixed precision instead: `torch.autocast` around the forward and `torch.amp.GradScaler` "
       "around `backward` / `step` on the optimizer you actually step (the wrapper); or, keeping apex, call "
       "`amp.initialize(model, optimizer)` on the final, wrapped optimizer; with Opacus, train in fp32 or use a "
       "release that supports mixed precision."),
    # a GradScaler made with enabled=False (bf16 or fp32 runs) has no state to save
    _e("scaler-empty-state", "scaler", "a disabled GradScaler saved with an empty state",
       r"Saving an empty state_dict for <[\w.]*GradScaler object",
       "The GradScaler was created disabled (`GradScaler(enabled=False)`, as bf16 or fp32 training does: bf16 needs "
       "no loss scaling), so its state_dict is empty and the checkpointer says so; harmless.",
       "Nothing to fix for bf16 / fp32 runs; to silence it, leave the scaler out of the checkpoint when loss scaling "
       "is off (register it only for fp16)."),
    _e("unscale-before-scale", "scaler", "GradScaler.unscale_ before any scale() in this run",
       r"Attempted unscale_ but _scale is None",
       "`scaler.unscale_(optimizer)` ran before any `scaler.scale(loss)` in this process, so the scaler has no scale "
       "yet: typically a resumed run whose scaler state was not restored and whose loop reaches `unscale_` (a "
       "gradient clip, an optimizer step) first, or a loop that skips `scale()`.",
       "Call `scaler.scale(loss).backward()` before `unscale_` on every step, and save `scaler.state_dict()` in the "
       "checkpoint and restore it with `scaler.load_state_dict(...)` on resume."),
    _e("amp-scaler-device", "scaler", "GradScaler's kernels on the CPU",
       r"Could not run 'aten::_amp_(foreach_non_finite_check_and_unscale|update_scale)_?' with arguments from the "
       r"'(CPU|MPS|XPU)' backend|assert outputs\.is_cuda or outputs\.device\.type",
       "The GradScaler (fp16 loss scaling) unscales gradients with kernels that this torch has only for CUDA, and "
       "here the gradients are on the CPU (or MPS/XPU): the model was never moved to the GPU, or a "
       "`torch.cuda.amp.GradScaler` runs in a CPU-only setup.",
       "Move the model and data to the GPU before training (`model.to('cuda')`); on the CPU train without a scaler "
       "(fp32, or bf16 autocast, which needs none: `GradScaler(enabled=False)`), or use torch >= 2.3 with "
       "`torch.amp.GradScaler('cpu')` if CPU fp16 is really meant."),
    _e("amp-unscale-bf16", "scaler", "GradScaler used with bf16 gradients",
       r"_amp_\w+\"? not implemented for '?BFloat16|precision='?bf16(-mixed)?['`]* does not use a scaler|"
       r"\A(?=.*_amp_foreach_non_finite_check_and_unscale_)(?=.*(?<![A-Za-z0-9_])(bf16|bfloat16)(?![A-Za-z0-9_]))|"
       r"\bGrad ?Scaler\b[^\n]{0,80}\b(not compatible|incompatible|does ?n[o']t work|fails?)\b[^\n]{0,40}\b(bfloat16|bf16)\b",
       "GradScaler (fp16 loss scaling, switched on by fp16 mixed-precision settings) got bf16 gradients: bf16 "
       "parameters (a model cast with `.to(torch.bfloat16)`) trained with fp16 AMP settings, while bf16 has fp32's "
       "range and does not need a scaler.",
       "Loss scaling is only needed for fp16: disable the GradScaler for bf16 (`GradScaler(enabled=False)`, or call "
       "`loss.backward()` and "
       "`optimizer.step()` directly); with HF Trainer / Accelerate use `bf16=True, fp16=False` "
       "(`mixed_precision='bf16'`); if you do want fp16 AMP, keep the trainable parameters fp32 instead of casting "
       "the model to bf16."),
    _e("unscale-fp16", "scaler", "GradScaler cannot unscale fp16 gradients",
       r"\bAt+e?m?p?t*ing to (un)?scale\s+(FP\s?[1l]6|half)\s*grad",
       "The trainable parameters themselves are fp16, so their gradients are fp16 and the GradScaler refuses to "
       "unscale them (loss scaling needs fp32 master weights): a model loaded in fp16 (`torch_dtype=torch.float16`) "
       "makes its trainable copies fp16 too, PEFT's `modules_to_save` and resized embeddings among them.",
       "Keep trainable parameters (adapters) in fp32 and let autocast run the matmuls in fp16: e.g. "
       "`for p in trainable: p.data = p.data.float()`, PEFT's default `autocast_adapter_dtype=True`, or "
       "`amplora.apply(model, precision='fp16-mixed')`; do not cast the model you train with `.half()`."),
    _e("scaler-step-unscaled", "scaler", "GradScaler.step without a scaled loss",
       r"Attempted step but _scale is None",
       cause="The optimizer stepped through a GradScaler (fp16 mixed precision: GradScaler by hand, or an "
       "accelerate / Lightning fp16 setting that wraps the optimizer) in an iteration whose loss was never scaled: "
       "the loop called `loss.backward()` directly instead of backpropagating through the scaler.",
       fix="Backpropagate through the scaler: `scaler.scale(loss).backward()` then `scaler.step(optimizer)` and "
       "`scaler.update()`; with accelerate call `accelerator.backward(loss)` (or turn fp16 off in its config)."),
    _e("no-inf-checks", "scaler", "GradScaler found no gradients to check",
       r"No inf checks were recorded (for this optimizer|prior to update)",
       "`scaler.step(optimizer)` / `scaler.update()` found no parameter with a gradient: nothing trainable received "
       "a gradient (all frozen, or the loss did not depend on the trainable parameters), the optimizer was built "
       "before the model moved to the GPU (its parameters are other tensors than the ones on the device), or a "
       "scaler that a library drives (accelerate's) was stepped by hand as well.",
       "Make sure the adapters are trainable (`requires_grad=True`), are in the optimizer, and that the loss was "
       "computed through them; build the optimizer after `model.to(device)`; call `scaler.scale(loss).backward()` "
       "before `scaler.step(optimizer)`; with Accelerate do not call the scaler yourself: `accelerator.backward(loss)` "
       "and `optimizer.step()` handle it internally."),
    _e("amp-sparse-grad", "scaler", "loss scaling meets sparse gradients",
       r"_amp_(foreach_)?non_finite_check_and_unscale_\w*'? with arguments from the 'Sparse\w*' backend|"
       r"\A(?=.*\b(apex|amp|GradScaler|scaler(\.py)?|loss[_ ]scal\w*)\b).*\bsparse tensors do not have strides\b",
       "Loss scaling meets sparse gradients: `nn.Embedding(..., sparse=True)` (or `EmbeddingBag`) produces sparse "
       "gradient tensors, and apex Amp's scaler and the GradScaler of torch < 1.6 unscale and check them for inf "
       "with dense-only ops, so sparse gradients are not supported there.",
       "Upgrade torch (GradScaler unscales sparse gradients through their values since 1.6) and use `torch.amp` "
       "instead of apex; or make the embedding dense (`sparse=False`), or keep the sparse embedding out of the "
       "scaled optimizer (its own `SparseAdam`, fp32, stepped without the scaler)."),
)

# evidence of fp16 (not bf16, which has fp32's exponent range) in a report
_FP16 = (r"(?<![A-Za-z0-9_])(fp16|float16|half|16-bit|16-true|16-mixed|precision\s*=\s*['\"]?16)(?![A-Za-z0-9_])|"
         r"\.half\(\)|other than ['\"]?(32|fp32|32-true)\b|\b(lower|reduced|low)[- ]precision")

# NaN / inf with a specific story (the generic overflow entry is in generic.py)
OVERFLOW = (
    _e("scheduler-before-skipped-step", "scaler", "lr_scheduler stepped while GradScaler skipped optimizer steps",
       r"Detected call of .?lr_scheduler\.step\(\).? before .?optimizer\.step\(\)",
       context=r"\b(fp16|amp|GradScaler|scaler|mixed[ _-]precision|deepspeed|apex)\b",
       cause="Under fp16 mixed precision the GradScaler skips `optimizer.step()` on the first iterations while it "
       "looks for a loss scale that does not overflow (inf / NaN gradients), but the scheduler still steps, so torch "
       "warns as if the calls were out of order; mostly harmless (the schedule moves a step or two early).",
       fix="Step the scheduler only when the optimizer stepped (compare `scaler.get_scale()` before and after "
       "`scaler.update()`), or upgrade the trainer (transformers skips it since 4.6); outside AMP, call "
       "`optimizer.step()` before `lr_scheduler.step()`."),
    # generation that prints only '!': token 0 sampled from NaN logits
    _e("exclamation-output", "overflow", "generated text made only of '!' (NaN logits)",
       r"\A(?=.*!{8,})(?=.*\b(outputs?|produces?|produced|generat\w*|respon\w*|answers?|completions?)\b)",
       unless=EXCEPTION_NAMED + r"|out of memory|\bmps\b",
       cause="Output made only of '!' is the model picking token id 0 ('!' in Qwen, Llama 3 and other tokenizers) "
       "at every step because the logits are NaN / inf: in float16 the activations of models trained in bf16 "
       "(Qwen2, Gemma, ChatGLM) overflow past 65504 in some layers, most of all on long inputs.",
       fix="Run the model in bfloat16 (`--dtype bfloat16`, `torch_dtype=torch.bfloat16`) on GPUs that have it, or "
       "float32; on GPUs without bf16 use a model release (or engine version) that clamps the fp16 overflow."),
    # transformers' DebugUnderflowOverflow stopped at the first inf / NaN
    _e("debug-underflow-overflow", "overflow", "transformers' overflow detector found inf / NaN",
       r"Detected inf/nan during batch_number=\d+",
       "transformers' `DebugUnderflowOverflow` (`--debug underflow_overflow`) stopped at the first inf / NaN and "
       "printed the last frames with each module's abs max: under fp16 activations that climb past 65504 overflow "
       "(models pretrained in bf16, such as T5 and mT5, exceed fp16's range in their feed-forward layers).",
       "Run that model in bf16 or fp32 (`--bf16`, no `--fp16`), or keep the overflowing layers in fp32 (autocast "
       "disabled there, T5's `wo` kept float32); the frames show which module's output first exceeds the range."),
    # an EMA step of (1 - decay) times the difference is below half precision's spacing for most weights
    _e("ema-half-rounding", "precision", "EMA weights kept in half precision, so its small updates round away",
       r"\A(?=.*\b(EMA|exponential moving average)\b)"
       r"(?=.*\b(fp16|bf16|float16|bfloat16|half)\b)"
       r"(?=.*\b(quantiz\w*|round(s|ed|ing)?( off| away| to zero)?|lost|too small|vanish\w*|not (tracked|updated|"
       r"averaged|moving|changing))\b)",
       unless=EXCEPTION_NAMED,
       cause="The EMA (moving-average) copy is kept in fp16 or bf16: with a decay of 0.999 each step moves a weight by "
       "0.1 % of its distance to the live weight, below half precision's spacing for most values (bf16 keeps about "
       "2 to 3 significant digits, fp16 about 3), so the updates round to nothing (quantized) and the EMA stops "
       "following the model, its precision lost.",
       fix="Keep the EMA weights in float32 (`ema.float()`, a float32 copy even when the model trains in bf16 / fp16), "
       "update it from the live weights cast to float32, and cast it to the model's dtype only to evaluate or save."),
    # Ultralytics' check before saving: its EMA weights turned inf when validation cast them to fp16 in place
    _e("ema-half-cast-overflow", "overflow", "EMA weights overflowed when cast to fp16 for validation",
       r"EMA contains NaN/?Inf|Skipping checkpoint save\b[^\n]{0,60}\b(NaN|Inf)\b",
       "Under AMP the validator casts the model it evaluates to fp16, and here that was the live EMA model, cast in "
       "place: EMA weights above fp16's largest value (65504) overflow to inf, which `.float()` afterwards cannot "
       "undo, so every later checkpoint is skipped.",
       "Upgrade the library (the fix validates a deep copy and checks the fp32 weights), or validate without the "
       "fp16 cast (`half=False` / `amp=False` for validation) and keep the EMA model in fp32."),
    _e("fp16-alone-wrong", "overflow", "fp16 alone gives a wrong result where bf16 and fp32 agree",
       r"\A(?=.*((fp32|float32)\W{1,6}(or|and|/|,)\W{1,6}(dtype\W{1,3})?(\w+\.)?(bf16|bfloat16)|(bf16|bfloat16)\W{1,6}"
       r"(or|and|/|,)\W{1,6}(dtype\W{1,3})?(\w+\.)?(fp32|float32))\b[^\n]{0,60}\b(loss|result|output|accuracy|"
       r"score)\b)"
       r"(?=.*(?<![a-z])(fp16|float16)\b[^\n]{0,60}\b(loss|result|output|accuracy|score)\b)",
       "The run is right in fp32 and in bf16 and wrong in fp16 alone: bf16 has fp32's exponent range, so what "
       "differs is fp16's range (65504) and its 5 exponent bits, where a reduction (the mean of squares in an "
       "RMSNorm or LayerNorm, a softmax, a loss) overflows or loses precision.",
       "Compute that reduction in fp32 and cast back (`x.astype(jnp.float32)` / `x.float()` for the norm's "
       "statistics, then `.astype(dtype)`), or run in bf16 where the hardware has it; keep fp16 only for the "
       "matmuls."),
    _e("fp16-large-values", "overflow", "large values overflow in a half-precision build or kernel",
       r"\blarge (values?|numbers?|inputs?|magnitudes?)\b[^\n]{0,80}(" + _FP16 + r")|(" + _FP16 + r")[^\n]{0,80}"
       r"\blarge (values?|numbers?|inputs?|magnitudes?)\b|"
       # "At float16 precision, it even caused an overflow error"
       r"\b(float16|fp16|half)( precision)?\b[^.\n]{0,40}\b(caused|causes|gives|gave|leads? to|led to|results? in|"
       r"resulted in) (an? )?overflow\w*|"
       # "I find float16 will overflow in `layer_norm` and `rms_norm`"
       r"\b(float16|fp16|half)( precision)?\b[^.\n]{0,12}\b(will|would|can|could|may|might) (easily )?overflow\b",
       "Values beyond fp16's range (65504) overflow to inf in a half-precision build or kernel, and intermediate "
       "results (sums, products, squares, exponentials) exceed it long before the inputs do, so the same "
       "computation passes in fp32 and fails or comes out wrong in fp16.",
       "Keep such ops in fp32 (upcast the inputs, accumulate in fp32), scale the inputs into fp16's range, or use "
       "the fp32 (or bf16) build; compare fp16 results with an fp16-sized tolerance.",
       context=r"\b(fail\w*|wrong|incorrect|mismatch\w*|differ\w*|inf|nan|overflow\w*)\b"),
    # llama.cpp built for ARM's FP16 multiply-accumulate: dot products summed in fp16
    _e("arm-fp16fml-accumulate", "overflow", "an ARM build that accumulates dot products in fp16",
       r"\A(?=.*\b(fp16fml|FP16FML|\+fp16\b))(?=.*\b(random|garbage|gibberish|wrong|incorrect|nonsense|"
       r"corrupt\w*)\b)",
       cause="Built with ARM's FP16 multiply-accumulate (`+fp16fml`), the f16 dot products accumulate their partial "
       "sums in fp16, whose largest value is 65504, and a model whose dot products exceed it (hundreds of thousands) "
       "overflows there, while the build without the flag accumulates in fp32.",
       fix="Build without `fp16fml` (or with the fp32-accumulating path), or use a Q8_0 / F32 model whose dot "
       "products accumulate in fp32."),
    _e("fp16-sum-overflow", "overflow", "an fp16 sum or mean overflows",
       r"\b(mean|means|sum|sums|averag\w*|accumulat\w*|cumsum|reduc\w*|total)\b[^\n]{0,200}"
       r"\b(inf|infinity|infinite|overflow\w*)\b|"
       r"\b(inf|infinity|infinite|overflow\w*)\b[^\n]{0,200}\b(mean|sum|averag\w*|accumulat\w*|reduc\w*)\b",
       context=HALF_WORDS,
       unless=r"\bloss\b|grad|\bnan\b|out of memory|attention|softmax|logits?",
       cause="A sum or mean computed in fp16 accumulates in fp16 (NumPy's float16 reductions, a half tensor's "
       "running total): once the partial sum passes 65504, fp16's largest value, it overflows to inf, even where "
       "the mean itself would fit.",
       fix="Reduce in a wider dtype and cast back if needed: `np.mean(a, dtype=np.float32)`, "
       "`t.sum(dtype=torch.float32)`, `t.float().mean()`."),
    _e("fp16-spacing", "overflow", "a half-precision running sum, count or id that stops growing or rounds",
       r"\A(?=.*" + HALF_WORDS + r")(?=.*(?<![A-Za-z])(cumsum|cumulative sums?|running (sum|total|count)|accumulat\w*|"
       r"counter|sum)\b.{0,400}(?<![\d.])(2048\.?0*|2\.048e\+0?3)(?![\d]))|"
       # a float16 tensor printed stuck at 2048 (an upsample's backward, a count)
       r"\A(?=.*\btensor\(\[[^\]]*(?<![\d.])2048\.(?!\d))(?=.*dtype=torch\.float16)(?!.*\w+(Error|Exception):)|"
       # bf16 keeps 8 significant bits: a sum or norm of ones stops at 256
       r"\A(?=.*" + BF16_WORDS + r")(?=.*\b(cumsum|sum|norm|accumulat\w*|counter|count)\b.{0,400}"
       r"(?<![\d.])(256(\.0*)?|2\.56e\+0?2)(?![\d.]))|"
       # integers carried in a half-precision tensor
       r"\b(\w*_?ids?|labels?|indices|integers?|counts?|positions?|targets?)\b[^.\n]{0,80}\b(fp16|float16|half|bf16|"
       r"bfloat16)\b[^.\n]{0,80}\b(lose|loses|lost|losing)\b (the |its )?precision|"
       r"\b(converted|cast|casting|converting) to (fp16|float16|half|bf16|bfloat16)\b[^.\n]{0,80}\b(lose|loses|lost|"
       r"losing)\b (the |its )?precision|"
       # a reduction over an f16 tensor (MLIR's "tensor<1x14x2000xf16>") that a report says came out wrong
       r"\A(?=.*(" + HALF_WORDS + r"|\dxf16\b))(?=.*\b(reduce|reduction|sum|accumulat\w*)\b)"
       r"(?=.*\b(the )?correct (result|value|answer|output) (is|should be)\b)",
       unless=r"\b(nan|inf)\b|out of memory|max_(length|position|seq\w*)|context (length|window)|"
              r"\b(seq(uence)?|tokens?|block)[_ ]?(len|length|size)\b",
       cause="fp16 keeps 11 significant bits, so above 2048 it holds only even numbers (above 4096 only multiples "
       "of 4, and so on), and bf16 keeps 8, so above 256: a running sum, cumulative sum, norm or counter kept in "
       "half precision stops growing once each addition is smaller than half that spacing, and integers stored "
       "as fp16 or bf16 (ids, labels, positions, counts) round to a neighbour.",
       fix="Accumulate in fp32 (`torch.cumsum(x, dim, dtype=torch.float32)`, `np.cumsum(a, dtype=np.float32)`, "
       "`x.float().sum()`), keep ids, positions and counters in an integer dtype (int32/int64), and cast to fp16 "
       "only the result."),
    _e("nan-boxes-half", "overflow", "box predictions gone NaN/inf under half precision",
       r"boxes1\[:, 2:\] >= boxes1\[:, :2\]|boxes2\[:, 2:\] >= boxes2\[:, :2\]",
       context=r"(?<![A-Za-z0-9_])(fp16|float16|half|amp|AMP|--use[-_]amp|use_amp|--amp|--fp16|autocast|GradScaler|"
       r"mixed[ _-]precision)(?![A-Za-z0-9_])",
       cause="DETR-style matchers assert that every predicted box has x2 >= x1 and y2 >= y1 before the generalized "
       "IoU, and a box that went NaN/inf fails it: under fp16 mixed precision an activation or box regression "
       "overflowed past 65504 (the run trains for a while, then fails at random).",
       fix="Keep the box head, the box losses and the matcher in fp32 (`with torch.autocast('cuda', "
       "enabled=False):` with `.float()` inputs), clamp the values that overflow (logits, box deltas, exp/log "
       "inputs), or train with bf16 or without AMP; a lower learning rate or gradient clipping helps if it still "
       "diverges."),
    _e("zero3-fp16-init", "mismatch", "DeepSpeed ZeRO-3 given a model not all in fp16",
       r"Model must initialized in fp16 mode for ZeRO Stage 3",
       "DeepSpeed ZeRO-3 with fp16 partitions the parameters as fp16 and checks at initialisation that they are: "
       "some are not, usually a module created or replaced after the model was cast or loaded in fp16 (an "
       "embedding resized with `resize_token_embeddings`, a new head, an adapter) and left in the default "
       "float32.",
       "Create new modules in the model's dtype (`nn.Embedding(..., dtype=old.weight.dtype)`), or cast the whole "
       "model once (`model.half()`) before `deepspeed.initialize`; upgrade transformers if its resize created the "
       "float32 embedding."),
    _e("half-constant-overflow", "overflow", "a number outside the half-precision tensor's range",
       r"cannot be converted to type (c10::|at::)?(Half|BFloat16)\w* without overflow|"
       r"-?\d(\.\d+)?e\+?\d+\W{0,2} (can'?t|cannot|could ?n[o']t) be (converted|represented) (to|in|as) "
       r"(half|fp16|float16|bf16|bfloat16)\b|"
       # told in words: a mask's fill value that overflows in fp16
       r"\b(min|minimum|mask\w*|fill)\b[^.\n]{0,30}\b(value|val)\b[^.\n]{0,30}\boverflow\w*\b[^.\n]{0,40}\b(fp16|"
       r"float16|"
       r"half)\b|\bmask\w*\b[^.\n]{0,60}-1e\d+\b[^\n]{0,100}\b(fp16|float16|half|mixed precision)\b[^.\n]{0,60}"
       r"\b(numerical|overflow\w*|nan)\b",
       "A Python number written into or combined with a half-precision tensor (a mask fill value such as -1e9 or "
       "`torch.finfo(torch.float32).min`, a scale, a clamp bound) lies outside that dtype's range (fp16 tops out "
       "at 65504; bf16 only past 3.4e38, e.g. a float64 limit), so it cannot be converted: the constant was "
       "hard-coded for fp32 or taken from another tensor's dtype (`finfo` of an fp32 query while the scores it "
       "fills are fp16).",
       "Take the constant from the tensor it goes into: `x.masked_fill(mask, torch.finfo(x.dtype).min)` (not "
       "`finfo` of another tensor's dtype, not -1e9), or -1e4 / `float('-inf')` for masks in fp16; or compute that "
       "part in fp32 (or bf16, which has fp32's range)."),
    _e("half-cast-overflow", "overflow", "values cast to float16 beyond its range (NumPy's overflow warning)",
       r"overflow encountered in cast",
       context=r"(?<![A-Za-z0-9_])(float16|fp16|half|np\.half|f2)(?![A-Za-z0-9_])",
       unless=r"coreml|coremltools|mlprogram|mlpackage",
       cause="An array or tensor was cast to float16 (`astype(np.float16)`, `.half()`, an fp16 export or converter) "
       "while some of its values lie beyond fp16's range (largest finite value 65504): NumPy warns \"overflow "
       "encountered in cast\" and those values become inf, and NaN wherever they meet each other (inf - inf).",
       fix="Keep such values in float32 (only cast what fits), or clip or scale them into fp16's range before the "
       "cast (`np.clip(x, -65504, 65504)`, normalised features); bf16 has fp32's range where a 16-bit type is "
       "needed."),
    _e("int-constant-overflow", "mismatch", "a number outside an integer tensor's range",
       r"cannot be converted to type (u?int(8|16|32|64)_t|unsigned char|signed char|short|int|long|"
       r"(c10::|at::)?(Byte|Char|Short|Int|Long)) without overflow",
       cause="A Python number written into or combined with an integer tensor lies outside that dtype's range "
       "(uint8 holds 0 to 255, int8 -128 to 127, int16 up to 32767): image or mask arithmetic kept in uint8 "
       "(`img * 1.5`, `img + 300`, `mask.fill_(256)`) or a fill value meant for a float tensor.",
       fix="Convert to a wider or floating dtype first (`img.float()`, `.to(torch.int32)`), compute there, and clamp "
       "and cast back at the end (`.clamp(0, 255).to(torch.uint8)`)."),
    _e("multinomial-nan", "overflow", "sampling from NaN/inf probabilities",
       r"probability tensor contains either .?inf.?, .?nan.? or|binarySearchForMultinomial|"
       r"MultinomialKernel\.cu.{0,200}Assertion",
       "`torch.multinomial` (sampling in `generate()`) got probabilities with inf/NaN: the logits became NaN "
       "upstream, almost always an fp16 overflow in the forward pass (fp16 tops out at 65504; fine-tuned or "
       "merged weights make it likelier), or an attention mask filled with a large negative constant (-1e9, "
       "float32's minimum) that a half dtype cannot hold, so it becomes -inf and a fully masked row gives NaN.",
       "Run generation in bf16 (`torch_dtype=torch.bfloat16`) or fp32 on GPUs without bf16 instead of fp16, build "
       "masks with the dtype's own minimum (`torch.finfo(dtype).min`), and check the logits "
       "(`torch.isnan(logits).any()`); greedy decoding only hides the NaN.",
       # a row whose scores are all -inf (a masked vocabulary, logit processors): a decoding bug, told as such
       unless=PRECISION_RULED_OUT + r"|\b(have|has|being|are|is) all (entries of )?.?-inf\b|\ball (of )?(its |"
       r"the )?entries of .?-inf"),
    _e("bce-input-range", "overflow", "binary cross-entropy got a prediction outside [0, 1]",
       r"input_val >= zero && input_val <= one|all elements of input should be between 0 and 1",
       "`binary_cross_entropy` needs probabilities in [0, 1] and got a value outside, most often NaN: predictions "
       "that went NaN upstream (an fp16 overflow under AMP / mixed precision, a too high learning rate), or "
       "logits passed without a sigmoid; the message alone cannot tell which.",
       "Check the predictions first (`torch.isfinite(pred).all()`, `amplora doctor run` names the op where NaN "
       "starts): for NaN under fp16/AMP use bf16 or fp32 for the head and the loss (or turn AMP off to confirm); "
       "for logits use `BCEWithLogitsLoss` (autocast-safe), not `sigmoid` + `BCELoss`."),
    _e("static-loss-scale", "overflow", "fp16 training with a fixed loss scale",
       r"\A(?=.*\b(loss[-_ ]scal(e|ing)|static[-_ ]loss[-_ ]scale)\b)(?=.*\b(fp16|float16|half)\b)"
       r"(?=.*\b(not? (converg\w*|learn\w*|train\w*)|did ?n[o']t converge|diverg\w*|spikes?|sharp (rises?|increases?)|"
       r"unstable|instabilit\w*|stopped|what('s| is) the (suggested|recommended|best))\b)",
       unless=r"OVERFLOW!|Skipping step|reducing loss scale|out of memory",
       cause="fp16 training with a loss scale that does not adapt: too high and the scaled gradients overflow "
       "fp16 (inf, a spike or a skipped or corrupted update), too low and small gradients underflow to 0; the "
       "right value changes during training, so a fixed one leaves the run unstable.",
       fix="Use dynamic loss scaling (`torch.amp.GradScaler`, DeepSpeed `\"loss_scale\": 0`, fairseq's default, "
       "the framework's dynamic loss-scale optimizer), or train in bf16 where the GPU has it, which needs no loss "
       "scale."),
    _e("loss-scale-skips", "overflow", "fp16 loss scaling keeps skipping steps",
       LOSS_SCALE_SKIP + r"|overflow detected, setting loss scale to:? ?0?\.\d|"
       r"loss scale (already )?at minimum|Minimum loss scale reached|loss scal\w* .{0,40}(minimum|underflow)|"
       r"cost-scaling factor [\d.e+-]+ is already at minimum|"
       r"loss scale (goes|going|went|falls|falling|drops|dropping|decreases|decreasing) (down )?to (zero|0|1e-\d+)\b|"
       r"\bmin_loss_scale\b(?!['\"]?\s*[:=])|"
       # icefall / k2 recipes stop when the GradScaler's scale has collapsed
       r"\bgrad_?scale (is )?too small\b|"
       # TensorFlow's estimator notices the step that loss scaling skipped
       r"\A(?=.*global step \(tf\.train\.get_global_step\) has not been increased)(?=.*(fp16|mixed[_ ]precision|"
       r"loss[_ ]scal))",
       "fp16 dynamic loss scaling (apex, DeepSpeed, fairseq, GradScaler) found inf/NaN gradients and skipped the "
       "step: a few skips while the scale calibrates are normal, but when it keeps skipping and the scale falls "
       "to 1 or its minimum, the fp16 forward/backward itself overflows to inf/NaN (or the loss is already NaN), "
       "which no loss scale can fix.",
       "Find where the inf/NaN starts instead of tuning the scale: train in bf16 where the GPU has it "
       "(`bf16=True`, fp32's range) or fp32, keep losses, softmax, norms and attention scores in fp32 under "
       "fp16, lower the learning rate or clip gradients, and check `torch.isfinite(loss)` on the first bad step.",
       unless=r"out of memory|OutOfMemoryError"),
    _e("grad-norm-nan-then-finite", "overflow", "a gradient norm logged NaN on a step, finite on the next",
       r"\bgrad_?norm['\"]?\s*[=:]\s*['\"]?(nan|inf)(?![a-z0-9_]).{0,2000}?\bgrad_?norm['\"]?\s*[=:]\s*['\"]?\d",
       "A gradient norm logged NaN/inf on one step and finite on the next, beside a finite loss, is what fp16 "
       "mixed precision (AMP) with dynamic loss scaling logs: the scaler found inf gradients at the current scale, "
       "skipped that step and lowered the scale; a few such steps, at the start most of all, are normal and "
       "harmless.",
       "Nothing to fix while they stay rare and the loss keeps falling; if they keep coming, the fp16 run itself "
       "overflows: train in bf16 (`bf16=True`, fp32's range) or keep the overflowing part in fp32.",
       unless=r"\bloss['\"]?\s*[=:]\s*['\"]?(nan|inf)(?![a-z0-9_])|out of memory"),
    _e("scaled-loss-logged", "scaler", "a logged loss still multiplied by the fp16 loss scale",
       r"\bloss\b[^.\n]{0,60}\b(is |was )?(not|never) (being )?unscaled\b|"
       r"\bloss\b[^.\n]{0,40}\bstill (multiplied|scaled) by the (loss )?scal",
       "fp16 loss scaling multiplies the loss by the scale (2**16 at the start) before backward, and a loss read "
       "between that and the unscaling (callbacks in the wrong order, gradient accumulation that skips the step "
       "that unscales, logging the scaled loss) shows values thousands of times too high while training itself "
       "may be fine.",
       "Log the loss before it is scaled (`loss.item()` before `scaler.scale(loss)`), or divide by the scale "
       "(`scaler.get_scale()`); in a framework, put gradient accumulation after mixed precision in the callback "
       "order (fastai: `after_backward`), or upgrade it.", context=f"{HALF_WORDS}|{AMP_WORDS}"),
    _e("fp16-underflow", "overflow", "small values underflow to zero in fp16",
       r"\bunderflow\w*|\b(round|rounds|rounded|rounding|flush|flushes|flushed)( up| down)? to (zero|0)\b|"
       # told in words: weights saved in fp16 come out as zeros
       r"\A(?=.*\b(save_precision|sav\w+ (as|in))\W{0,3}(fp16|float16|half)\b)(?=.*\b(0'?s|zeros?|zeroes)\b)"
       r"(?!.*\w+(Error|Exception):)",
       context=_FP16, unless=r"loss[ _]scal|out of memory|OutOfMemoryError|\bdefault autocast dtype\b|"
       r"\bautocast\b[^\n]{0,60}\buses? (the )?default (autocast )?dtype\b",
       cause="fp16's smallest normal number is 6.1e-5 (subnormals end at 6e-8), so small values kept in fp16 round "
       "to zero: Adam's eps=1e-8 in a pure-fp16 optimizer (the update divides by sqrt(v) + eps with both zero, "
       "giving inf/NaN parameters even at lr 0), tiny learning rates or weight updates, small gradients "
       "without loss scaling, which vanish, and small weights (LoRA matrices) saved in fp16, which come out as 0's.",
       fix="Train with mixed precision rather than pure fp16: fp32 master weights and optimizer state with fp16 "
       "autocast (`16-mixed` / `fp16=True`, not `16-true` or `model.half()`) and a GradScaler for the gradients; "
       "or bf16 (fp32's exponent range); an optimizer that must run in fp16 needs an eps of about 1e-4; save small "
       "weights in float32 (`--save_precision=float`) or bf16."),
)
