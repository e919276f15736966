"""Dtype mismatches with a specific message or a known story: norms, out= buffers, custom kernels, integers, float64, generate/DoRA/backward stories."""
from __future__ import annotations

from amplora.doctor.kb.entry import make as _e
from amplora.doctor.kb.patterns import (EXCEPTION_NAMED, LOW_DTYPE_WORD, MATMUL, NOT_A_DTYPE_FAULT, PACKED,
                                        QUANT_CONTEXT)

# a text that also names a half-precision kernel missing: the half kernels' entries answer it
_HALF_KERNEL_TOO = r"not implemented for '(Half|BFloat16)'|not supported for (float16|bfloat16|half)\b"

# norms, in-place, out=
BUFFERS = (
    _e("cpu-mixed-norm", "mismatch", "CPU norm with input and parameters of different dtypes",
       r"mixed dtype \(CPU\)|Expected scalar types of X and dY are same|gamma and beta'?s data type should be float|"
       r"\bexpect (input|parameter) to have scalar type of (Float|BFloat16|Half)\b",  # the same message, its prefix cut
       "On the CPU, layer_norm / group_norm / batch_norm accept a bf16/fp16 input only with float32 (Float) "
       "weight and bias, or all in one dtype; here the norm's parameters (or its running_mean / running_var "
       "buffers, float32 by default) and its input disagree, often a norm module left on the CPU in half precision "
       "while the rest of the model moved, or a float64 (double) input, which gets a message naming BFloat16, the "
       "one mixed pair the kernel allows.",
       "Give the norm and its input one dtype (`x.to(norm.weight.dtype)`, or `norm.float()` with a float32 "
       "input), or run the region under `torch.autocast('cpu', dtype=torch.bfloat16)`; if the model should "
       "run on the GPU, move it there (`model.to('cuda')`)."),
    _e("inplace-int", "out-buffer", "a float result written into an integer tensor",
       r"result type \w+?\s*can'?t be cast to the desired output type (Long|long int|long|Int|int|Byte|Char|Short|"
       r"Bool|unsigned char)\b",
       "An in-place op (`add_`, `clamp_`, `mul_`, `+=`, `/=`) or an `out=` would store a floating-point result in "
       "an integer (Long / int64) tensor, which torch refuses to do implicitly, such as averaging a state dict "
       "that contains BatchNorm's `num_batches_tracked` or clamping int64 indices with float bounds; a loss such as "
       "`BCEWithLogitsLoss` given integer (Long) targets or labels fails the same way.",
       "Give BCE-style losses float targets (`loss_fn(logits, target.float())`); "
       "compute out of place and convert explicitly (`x = (x + y).long()`), use integer arguments "
       "(`idx.clamp_(0, int(hi))`), and skip integer buffers when averaging or scaling weights "
       "(`if v.is_floating_point(): ...`); an integer division written `torch.div(a, b, out=idx)` or `a / b` is a "
       "true division returning float since torch 1.5: use `torch.div(a, b, rounding_mode='floor')` or `a // b`; "
       "integer input features (categorical atom or token features from a featurizer) need `x.to(torch.float32)` or an "
       "embedding before float layers."),
    _e("out-dtype", "out-buffer", "an out= / in-place buffer has another dtype than the result",
       r"Expected out tensor to have dtype|result type \w+?\s*can'?t be cast to the desired output type|"
       r"output with type \S+ doesn'?t match the desired type",
       "An op wrote its result into a preallocated `out=` buffer or in place into a tensor of another dtype; "
       "autocast never casts `out=` arguments or in-place ops, so fused kernels and custom backward passes hit "
       "this.",
       "Allocate the buffer in the result's dtype (`torch.empty_like(x, dtype=result_dtype)`) or compute "
       "out-of-place and cast once (`buf.copy_(result)` / `return grad.to(x.dtype)`); when it is raised in a "
       "library's fused kernels (Unsloth, Liger, flash-attn) during backward, load the model in the dtype the "
       "library picks (its default, bf16 where the GPU has it) or upgrade the library."),
)

# one story for a uint8 index, told in words (STORIES) or by the IndexError of a mask that does not fit (KERNELS)
_UINT8_INDEX_TITLE = "a uint8 (Byte) tensor used as an index is read as a mask"
_UINT8_INDEX_CAUSE = ("A uint8 (Byte) tensor used as an index is read as a boolean mask (torch treated uint8 indices as "
                      "masks, and warns that this is deprecated), not as integer positions: a uint8 index of 0 selects "
                      "nothing, so the result is empty or other elements than the positions meant, or the mask's shape "
                      "does not match the indexed tensor (an IndexError).")
_UINT8_INDEX_FIX = "Index with int64 positions (`idx.long()`), and keep masks as `torch.bool`."

# custom kernels, cudnn backward, integers, float64
KERNELS = (
    # nn.init runs in the tensor's dtype: sampling and QR in bf16 / fp16
    _e("init-low-precision", "precision", "weights initialized in bf16 / fp16",
       r"\A(?=.*\b(trunc_normal_?|orthogonal_?|normal_|uniform_|xavier\w*|kaiming\w*|"
       r"initiali[sz]ation|init)\b[^\n]{0,80}\b(bf16|bfloat16|fp16|float16|half)\b|\b(bf16|bfloat16|fp16|float16|"
       r"half)\b[^\n]{0,80}\b(trunc_normal_?|orthogonal_?|initiali[sz]ation)\b)(?=.*\b(skew\w*|instab\w*|wrong|"
       r"not produce|distort\w*|not support\w*|crash\w*|fail\w*|converge\w*|inf|nan|clamp\w*)\b)"
       r"(?!.*" + EXCEPTION_NAMED + r")|"
       r"\A(?=.*\b(bf16|bfloat16)\b)(?=.*\binitiali[sz]e (the )?(weights|parameters|params) in (fp32|float32)\b)|"
       r"\A(?=.*\b(geqrf\w*\W{1,3} not implemented for 'BFloat16'|node Qr\b|\[Op:Qr\]))(?=.*\b(bfloat16|BFloat16)\b)"
       r"(?=.*\b(orthogonal|init\w*)\b)",
       "The weights were initialized in bf16 / fp16: `nn.init` functions (`trunc_normal_`, `normal_`, "
       "`orthogonal_`) run in the tensor's dtype, so on a model materialized in half precision (transformers v5 "
       "materializing in the requested dtype, `torch.set_default_dtype`, DeepSpeed `zero.Init`, a model built "
       "under `torch.device('cuda')` with `dtype=torch.bfloat16`) the sampling and `erfinv` round (trunc_normal_ "
       "piles values on its bounds, small stds are distorted and training may not converge), and QR-based "
       "initialization (orthogonal: geqrf, TensorFlow's Qr) has no bf16 kernel.",
       "Initialize in float32 and cast back afterwards: build the model in float32, run the init, then "
       "`.to(torch.bfloat16)`; in a custom init, `w.copy_(nn.init.trunc_normal_(torch.empty_like(w, "
       "dtype=torch.float32), std=s))`; or upgrade torch / the library, whose later releases compute the init in "
       "fp32."),
    # a C++ wrapper's own conversion of its NumPy arguments
    _e("extension-array-dtype", "mismatch", "a compiled extension refused a NumPy array of another dtype",
       r"Error converting (input )?\w+ to numpy arrays? of type \w+",
       "A compiled extension (a C++ / pybind11 wrapper) takes NumPy arrays of fixed dtypes (float32 points and "
       "features, int32 labels) and refuses any other: uint8 / uint32 colour columns, float64 coordinates or int64 "
       "labels, as a custom dataset loader or a NumPy default produces them.",
       "Cast each array before the call to the dtype the extension declares: `points.astype(np.float32)`, "
       "`features.astype(np.float32)`, `labels.astype(np.int32)`, and check what a custom reader returns "
       "(`print(a.dtype)`); `np.ascontiguousarray(a, dtype=...)` also gives the contiguous layout such wrappers "
       "need."),
    # a binding's own switch over dtypes, with no dtype named: "src/binding.cpp:151: unsupported data type"
    _e("binding-unsupported-dtype", "cpu-kernel", "a compiled extension's binding refused the tensors' dtype",
       r"\b[\w/.-]+\.(cpp|cu|cc|cxx|h|hpp):\d+\W{0,3}\s*(unsupported|invalid|unknown|unexpected) "
       r"(data ?type|dtype|scalar ?type)\b(?!\s*[:=]?\s*\w)",  # no dtype named after it
       "A compiled extension (a CUDA/C++ loss such as warp-transducer or warp-ctc, a custom op) switches over the "
       "dtypes it was written for, float32 and sometimes float64, and its binding refused another: fp16 or bf16 "
       "from autocast or a `.half()` model, or integers; some bindings print the message and return a zero loss "
       "or output instead of raising.",
       "Give it float32: cast the inputs at the call (`loss_fn(logits.float(), ...)`), or run the call outside "
       "autocast (`with torch.autocast(device_type, enabled=False):`) or decorate the wrapper with "
       "`torch.amp.custom_fwd(device_type=..., cast_inputs=torch.float32)`; torch's own `F.ctc_loss` and "
       "torchaudio's `rnnt_loss` are alternatives."),
    _e("kv-dtypes-differ", "mismatch", "keys and values (a KV cache) in different dtypes",
       r"\bkeys? and values?\b[^\n]{0,30}?\b(dtype|data ?type)s? (should|must|do not|don'?t|to) (match|be the same)|"
       r"\bkeys? and values? (caches? )?(must|should) have the same (dtype|data ?type)|"
       r"\b(dtype|data ?type)s? of (the )?keys? and values?\b[^\n]{0,30}?\b(match|differ|same)",
       cause="Keys and values reached attention (or its cache) in two dtypes: a KV cache is often kept in a dtype "
       "of its own, bfloat16 by default in many JAX and inference frameworks and int8 / fp8 when it is quantized, "
       "so a run in another dtype (float32 inference, fp16 weights) writes or reads keys and values that differ.",
       fix="Make the cache follow the model's dtype (the framework's cache or `kv_cache_dtype` setting, or cast "
       "the new keys and values with `.astype(cache.dtype)` / `.to(cache.dtype)`), or run in the dtype the cache "
       "is made for (bf16); upgrade the framework if it hard-codes the cache dtype."),
    _e("faiss-float32", "mismatch", "faiss given arrays that are not float32",
       r"in method '\w+', argument \d+ of type '(float const|const float) ?\*'",
       cause="faiss's Python bindings take float32 arrays only (`float const *`), and got another dtype: float64, "
       "NumPy's default and what `np.load` returns for embeddings saved as float64, or float16.",
       fix="Convert before add / train / search: `x = np.ascontiguousarray(x, dtype=np.float32)`."),
    _e("listed-dtypes-no-half", "cpu-kernel", "a library that takes only listed dtypes got fp16/bf16",
       r"did not recognize array type|array type (float16|half) is (unsupported|not supported)|"
       r"\b(must|should) be one of \[?[\w ,.'\"]{3,120}\]?,? (not|but got|got) [`'\"]?(\w+\.)?(float16|half|"
       r"bfloat16)\b",
       context=r"(?<![A-Za-z0-9_])(fp16|float[ -]?16|half|bf16|bfloat16)(?![A-Za-z0-9_])",
       cause="A library that accepts only the dtypes it lists got float16 (or bfloat16) data: faiss's bindings "
       "and SciPy's linear algebra take float32/float64 arrays only, audio and signal code float32/float64 (or "
       "int16/int32 PCM); half precision is not among them, and a library's own fp16 storage options (faiss's "
       "`useFloat16`, `IndexScalarQuantizer`) still take float32 input.",
       fix="Cast to float32 where the data enters the library (`a.astype(np.float32)`, `t.float().cpu().numpy()`), "
       "and keep half precision inside the model that produced it."),
    _e("bool-arithmetic", "mismatch", "arithmetic on a bool mask",
       r"Subtraction, the `?-`? operator, with (a bool tensor|two bool tensors) is not supported|"
       r"Negation, the `?-`? operator, on a bool tensor is not supported",
       "A bool tensor (an attention or padding mask) was used in arithmetic, `1 - mask` or `-mask` (a subtraction "
       "or negation), which torch refuses for bool: masks built with comparisons are bool, while code written for "
       "0/1 integer or float masks subtracts them, or `torch.cumsum(mask, 1) - 1` where a compiled cumsum kept "
       "bool.",
       "Invert with `~mask` / `mask.logical_not()`, or turn the mask into numbers first: "
       "`(1 - mask.to(x.dtype))` in the dtype it is combined with, `mask.long().cumsum(1) - 1` for positions."),
    _e("isin-dtype", "mismatch", "torch.isin given token ids of two integer dtypes",
       r"Expected elements\.dtype\(\) == test_elements\.dtype\(\)|isin_mps_friendly",
       "`torch.isin` (generate's stop / end-of-sequence checks, `isin_mps_friendly` on Apple MPS) needs its two "
       "tensors in one dtype on some backends, and got token ids of two integer dtypes: ids made with `torch.int` "
       "(int32) or `torch.tensor(list)` against the int64 (Long) `input_ids`, or float ids.",
       "Give token ids torch.int64 (`torch.tensor(ids, dtype=torch.long)`, `ids.long()`) before `generate` or "
       "`isin`; on MPS upgrade torch and transformers, whose later releases cast for you."),
    _e("kernel-dtype-check", "mismatch", "a fused kernel's check that its tensors share one dtype failed",
       r"\b\w+\.(scalar_type|dtype)\(\) ?== ?\w+\.(scalar_type|dtype)\(\)",
       "A fused C++/CUDA/SYCL kernel (rotary embedding, norm, attention, a quantized matmul) checks that its "
       "tensors have one dtype and they do not: usually a buffer kept fp32 (rotary `inv_freq`, a norm weight, a "
       "scale) meeting fp16/bf16 activations, because the model was only partly cast (a low-bit or custom loader "
       "converts the quantized layers and leaves the rest).",
       "Give the whole model the kernel's dtype before running it (`model.half()` / `model.to(torch.float16)` "
       "before moving it to the device, or load with that `torch_dtype`), or cast the odd tensor before the call "
       "(`inv_freq.to(q.dtype)`); a fused kernel does not cast for you."),
    _e("custom-ext-dtype", "mismatch", "a custom C++/CUDA extension got another dtype than it was written for",
       r"data_ptr<\w+>|\bdata<\w+>\(\)|expect(ed)? scalar type (Float|Half|BFloat16|Double),? but (found )?"
       r"(Float|Half|BFloat16|Double)",
       "A custom C++/CUDA extension op is written for one dtype (usually float32) and received fp16/bf16 tensors "
       "from autocast or a half model, or its inputs and its own weights (filters) differ because only one of them "
       "was cast; autocast does not cast the inputs of custom ops.",
       "Make the extension's autograd.Function cast its inputs: `@torch.amp.custom_fwd(device_type='cuda', "
       "cast_inputs=torch.float32)` on forward and `@torch.amp.custom_bwd(device_type='cuda')` on backward; or "
       "call it with `.float()` inputs inside `torch.autocast('cuda', enabled=False)` and cast the result back.",
       context=r"data_ptr|\bdata<|\w_ext\b|_ext\.|_cuda\.|\.cu:\d|csrc|(?<!torch)\._C\.|\bops/|"
       r"custom (cuda |c\+\+ )?(op|kernel|extension)|\bDCN\w*|[Dd]eform\w*Conv|deform_conv|"
       r"\b(cuda|c\+\+|cpp) extension|cpp_extension",
       unless=r"expected scalar type (Long|Int) but found|data_ptr<(long|int)"),
    _e("grad-output-type", "backward-dtype", "a convolution's backward got a gradient of another dtype",
       r"'grad_output' to have the same type as tensor for argument #\d+ '(weight|input)'",
       "In the backward of a convolution, the incoming gradient (grad_output) and the weight have different "
       "dtypes: part of the graph was cast to half with `.half()` outside autocast while the conv weights stayed "
       "fp32 (or the reverse).",
       "Keep a module's weights and activations in one dtype: use `torch.autocast` instead of manual `.half()` "
       "casts of activations or losses, or cast the whole module consistently (`model.half()` with fp16 "
       "inputs)."),
    # torch.cat / torch.stack before torch 1.5 took one dtype only; later releases promote
    _e("cat-mixed-dtypes", "mismatch", "torch.cat / torch.stack of tensors with two dtypes",
       r"Expected object of scalar type (struct )?(c10::)?\w+( int)? but got scalar type (struct )?(c10::)?\w+( int)? "
       r"for sequence element \d+",
       "`torch.cat` / `torch.stack` got a list of tensors of two dtypes, such as integer labels or positions "
       "(int64, Long) beside float features, or float64 from NumPy beside float32: the message names the dtype of "
       "the first tensor and of the element that differs, and torch before 1.5 does not promote them.",
       "Give every tensor in the list the same dtype: cast the odd element to the others' dtype before "
       "concatenating (`torch.cat([a, b.to(a.dtype)])`, e.g. `labels.float()`, or `.long()` for index data), or "
       "upgrade torch, which promotes to the wider dtype."),
    _e("audio-writer-dtype", "numpy", "an audio writer refused a half-precision waveform",
       r"No format found for dtype torch\.(bfloat16|float16|half)",
       "`torchaudio.save` (and the soundfile / ffmpeg writers behind it) encodes uint8, int16, int32, int64, "
       "float32 and float64 samples only, and the waveform came out of a bf16 or fp16 model in its dtype.",
       "Cast the waveform before saving: `torchaudio.save(path, wav.float().cpu(), sr)` (or `.to(torch.float32)`); "
       "for NumPy writers, `wav.float().cpu().numpy()`."),
    _e("batchencoding-cast", "mismatch", "a tokenizer's BatchEncoding refused a dtype cast",
       r"Attempting to cast a BatchEncoding to type \S+\. This is not supported|"
       r"\bBatchEncoding\b[^\n]{0,40}\b(doesn'?t|does not|can'?t|cannot|won'?t)\b[^\n]{0,20}\bsupport\w* "
       r"(a |the )?dtype\b",
       "`BatchEncoding.to(...)` (what tokenizers and some processors return) moves its tensors to a device but "
       "refuses a dtype (not supported: the cast is skipped) and leaves them as they were, so float inputs such as "
       "`pixel_values` stay float32 while the model runs in fp16 or bf16.",
       "Cast the float inputs yourself: `inputs['pixel_values'] = inputs['pixel_values'].to(model.dtype)` "
       "(token ids and masks stay integer), or call the processor so it returns a `BatchFeature`, whose "
       "`.to(device, dtype)` casts floating tensors only."),
    # a uint8 index is read as a boolean mask, not as positions: the IndexError when the mask's shape does not fit
    _e("uint8-index-is-mask", "index", _UINT8_INDEX_TITLE,
       r"\A(?=.*The shape of the mask \[[\d, ]*\] at index \d+ does not match the shape of the indexed tensor)"
       r"(?=.*\b(uint8|ByteTensor|\.byte\(\))\b)",
       _UINT8_INDEX_CAUSE, _UINT8_INDEX_FIX),
    # an RNN's initial hidden state in float64 beside float32 weights
    _e("rnn-hidden-float64", "mismatch", "an RNN's initial hidden state in float64",
       r"\A(?=.*\b(GRU|LSTM|RNN)\b)(?=.*(\b(hidden state|h0|hx)\b[^\n]{0,40}\b(float64|double)\b|"
       r"\b(float64|double)\b[^\n]{0,40}\b(hidden state|h0|hx)\b|\bh0\s*=.{0,60}\.double\(\)))",
       unless=EXCEPTION_NAMED,
       cause="The RNN's initial hidden state (h0) is float64 (made with `.double()` or from NumPy) while its weights "
       "and input are float32: on the CPU that raises a dtype error, but torch 1.6's cuDNN path did not check it and "
       "read the double buffer as float, giving garbage, exploding outputs.",
       fix="Create the hidden state in the input's dtype (`torch.zeros(..., dtype=x.dtype, device=x.device)`, "
       "`h0.float()`); torch 1.7 and later raise the mismatch instead."),
    # a kernel written for float32 only, whose dtype check was removed to feed it fp16
    _e("float32-kernel-fed-half", "cpu-kernel", "a float32-only kernel given fp16 data",
       r"\A(?=.*\b(must be|needs? (to be)?|requires?|only (supports?|accepts?))\b[^\n]{0,30}\b(torch\.)?float32\b)"
       r"(?=.*\b(float16|fp16|half|apex|amp)\b)(?=.*illegal memory access)",
       "The kernel is implemented for float32 only, and fp16 (half) tensors reached it with its dtype check "
       "removed or bypassed: it reads the 2-byte fp16 buffers as 4-byte float32 and runs past their end, an illegal "
       "memory access; fp16 is not supported there.",
       "Keep that op in float32: cast its inputs (`log_probs.float()`) and run it outside autocast "
       "(`with torch.autocast('cuda', enabled=False):`), and keep the library's dtype check."),
    # torch before 1.5 did not promote: a binary op between an integer tensor and a float one
    _e("binary-op-long-float", "mismatch", "a binary op between an integer (Long) tensor and a float one",
       r"Expected object of scalar type (Long|Int) but got scalar type (Float|Double|Half) for argument #\d+ "
       r"'(vec2|mat2|other|vec|tensor2|batch2)'",
       "A binary op (`torch.ger` / `outer`, `mm`, `add`, `mul`) got an integer tensor (positions from "
       "`torch.arange`, indices, counts: Long) and a float one; torch before 1.5 does not promote mixed dtypes, and "
       "the message names the first operand's dtype as the one expected (a dtype mismatch, not an index problem).",
       "Give both operands the same dtype, float: `pos_seq.float()`, `torch.arange(n, dtype=torch.float32)` for "
       "positions, or upgrade torch, which promotes integer and float operands."),
    # a floating result cast to an integer tensor's dtype truncates toward zero
    _e("float-result-cast-to-int", "mismatch", "a floating result cast to an integer dtype, truncated",
       r"\A(?=.*\b(truncat\w*|cast\w*) (to|into) (int64|int32|integers?|long)\b"
       r"[^\n]{0,60}\b(collaps\w*|zeros?)\b)",
       unless=EXCEPTION_NAMED,
       cause="A floating result (sin / cos in [-1, 1], probabilities, normalized values) was cast to an integer dtype, "
       "often through `.to(x.dtype)` or `type_as(x)` with an int64 positions or ids tensor: the cast truncates "
       "toward zero, so the values collapse to -1, 0 and 1, or to zeros.",
       fix="Cast the integer tensor to float first (`pos.float()`) or return the result in a floating dtype "
       "(`.to(torch.float32)`, or the dtype of a float tensor such as the weights)."),
    _e("long-indices", "index", "indices/targets must be Long (int64)",
       r"'indices' to have (one of the following )?scalar types?:? ?(Long|Int)|tensors used as indices? must be long|"
       r"\bmust be of type int32 or int64,? but got (torch\.)?(float\d*|double|half|bfloat16)\b|"
       # OneFlow's kernel check: a float tensor given where an integer index goes
       r"data_type mismatched\. value: k(Float|Double|Float16|BFloat16), template T:kInt(32|64)\b|"
       r"Expected object of scalar type (Long|Int) but got scalar type \w+|"
       r"Expected a long tensor for index,? but got (Int|Short|Byte|Char|Float|Double|Half|BFloat16)\b|"
       r"Expected object of type (Variable\[)?torch\.(cuda\.)?LongTensor\]? but found type|"
       r"expected scalar type Long( int)? but found|scalar type Long but got|"
       r"(target|index|indices)\w* .{0,40}(must be|to be|should be) .{0,20}(long|int64)|"
       r"index_select\(\): Expected dtype int(32|64)|Expected dtype int(32|64)(/int(32|64))? for index|"
       r"Offset Tensor must have dtype Long|one_hot is only applicable to index tensor|"
       r"The 'target' has to be an integer tensor|\bExpected Long but got Float\b|"
       # (for Half / BFloat16 it is the input's dtype that a CPU kernel lacks, not the target's)
       r"\"(nll_loss|cross_entropy|multi_margin|multilabel_margin)\w*\" not implemented for '(?!Half'|BFloat16')\w+'|"
       r"\A(?=.*scalar_type\(\) ?== ?ty CHECK FAILED)(?=.*\bembedding\()|"
       # told in words: labels from NumPy int32 arrays (Windows' C long) where int64 targets are needed
       r"\A(?=.*\bIntTensors?\b.{0,200}\b(expects?|needs?|requires?|wants?)\b.{0,20}\bLongTensors?\b)"
       r"(?=.*\b(numpy|np\.|arrays?|int32)\b)(?!.*\w+(Error|Exception):)|"
       r"\A(?=.*astype\(\s*(dtype\s*=\s*)?[\w.]*\W{0,2}\blong\b|.*\blong\b.{0,20}\bdtype\b)"
       r"(?=.*\b(returned|is|gives?|becomes?) (as )?`*int32\b)(?=.*(CrossEntropy|cross_entropy|nll_loss))"
       r"(?!.*\w+(Error|Exception):)",
       "An index, embedding input, class-index loss target or a graph library's index vector (`batch`, "
       "`edge_index` in torch_geometric / torch_cluster / torch_scatter) is a float or an int32 (Int) tensor where "
       "int64 (Long) is needed: NumPy's default int (a C long, `astype('long')`) is int32 on Windows, and nll_loss / "
       "cross_entropy targets and "
       "embedding / gather indices must be Long.",
       "Make token ids, labels and indices `torch.long`: `target = target.long()` (or `dtype=torch.int64` when "
       "building them); never cast the whole batch dict with `.to(dtype)`, cast only floating tensors."),
    _e("ctc-lengths-integral", "index", "CTC input or target lengths given as a floating-point tensor",
       r"\b(input|target)_lengths must be integral",
       "`ctc_loss` takes `input_lengths` and `target_lengths` as integers, and one of them is a float tensor: "
       "frame counts computed with true division (`num_samples / hop + 1`, `lengths * ratio` after a subsampling "
       "encoder) or built with `torch.tensor` from floats.",
       "Compute the lengths with integer division (`num_samples // hop + 1`) or round them and cast with "
       "`.long()` (int64; int32 also works) before `F.ctc_loss`; keep the log-probs float32."),
    _e("packed-quant-context", "quantized", "packed quantized weights used as plain weights",
       rf"({MATMUL}|expected scalar type|same dtype|same scalar type|should be the same).{{0,120}}{PACKED}|"
       rf"{PACKED}.{{0,120}}({MATMUL}|same dtype|should be the same)",
       "A quantized layer's packed integer weight (uint8/int8 storage) met float activations: the quantized "
       "model was cast or used outside its quantization backend, or a quantized checkpoint was loaded into plain "
       "layers.",
       "Do not cast the packed weight: load the model through its quantization backend (bitsandbytes / GPTQ "
       "with `quantization_config` and the compute dtype set to the activations' dtype), call the quantized "
       "module, or dequantize the weight first.", context=QUANT_CONTEXT),
    _e("quantized-checkpoint-grad", "int-grad", "a saved 8/4-bit checkpoint loaded as plain parameters",
       r"Only Tensors of floating point( and complex| \(and complex\))? dtype can require gradients",
       "The checkpoint holds bitsandbytes' integer weights (a model saved after `load_in_8bit` / `load_in_4bit`) "
       "and was loaded without its quantization config, so the int8 / uint8 weights became ordinary parameters, "
       "which cannot require gradients.",
       "Load it the way it was saved: `from_pretrained(path, quantization_config=BitsAndBytesConfig("
       "load_in_8bit=True), device_map=...)`, with versions that serialize quantized weights (8-bit: transformers "
       ">= 4.27 and bitsandbytes >= 0.37.2; 4-bit: transformers >= 4.37 and bitsandbytes >= 0.41.3); or keep the "
       "original float checkpoint and quantize when loading.",
       context=r"load_in_[48]bit|\b[48]-?bit\b|\bint8\b|bitsandbytes|BitsAndBytesConfig"),
    _e("int-requires-grad", "int-grad", "an integer tensor made trainable",
       r"Only Tensors of floating point( and complex| \(and complex\))? dtype can require gradients|"
       r"only (floating[ -]point|float)[^\n]{0,40}(can|may) require grad|"
       # TensorFlow's GradientTape watching an integer input (an attribution of a uint8 one-hot sequence)
       r"The dtype of the watched tensor must be floating|"
       # trainable weights made from a list of Python ints, reported to get zero gradients
       r"\A(?=.*(=|\b(array|tensor)\()\s*\[\s*-?\d+(\s*,\s*-?\d+)*\s*\])(?=.*requires_grad\s*=\s*True)"
       r"(?=.*\b(gradients?|jacobian|grads?)\b.{0,80}(\[\[?0\]\]?|\ball zeros?\b|\breturns? 0\b))",
       "An integer (or bool) tensor was made to require gradients: `requires_grad=True` on `torch.tensor([1, 2])` "
       "(Python ints give int64 / Long), an integer mask or index wrapped in `nn.Parameter`, `.requires_grad_()` "
       "on a Long tensor, or a uint8 input watched by a `tf.GradientTape` for an attribution; autograd only "
       "differentiates floating-point (and complex) tensors, and the gradient comes back None or zero.",
       "Make it floating point if it is learned (`torch.tensor([1.], requires_grad=True)`, `dtype=torch.float32`, "
       "`x.float().requires_grad_()`); if it is a mask or index, keep it integer and not trainable "
       "(`nn.Parameter(m, requires_grad=False)` or `self.register_buffer('mask', m)`)."),
    _e("module-to-int", "int-grad", "a module cast to an integer dtype",
       r"nn\.Module\.to only accepts floating point or complex dtypes, but got desired dtype=torch\.\w*int",
       "`model.to(torch.int8)` (or another integer dtype) was called to shrink or quantize a model, but a "
       "module's parameters can only be floating point: casting does not quantize.",
       "Quantize with a quantizer instead: `BitsAndBytesConfig(load_in_8bit=True)` / `load_in_4bit` in "
       "`from_pretrained`, `torch.ao.quantization.quantize_dynamic(model, {nn.Linear}, dtype=torch.qint8)` or "
       "torchao's `quantize_(model, int8_weight_only())`; to save memory without quantizing use "
       "`model.to(torch.bfloat16)`; integer inputs are cast themselves (`ids.long()`), not the model."),
    _e("float-to-int-op", "mismatch", "a bitwise / integer op got floating-point tensors",
       r"\"\w*(bitwise|lshift|rshift|gcd|lcm)\w*\" not implemented for '(Float|Half|BFloat16|Double)\b'?|"
       r"\b(bitwise_\w+|__and__|__or__|__xor__)\(?\)?:? .{0,80}(only supports? (integral|integer|boolean))",
       "A bitwise op (`&`, `|`, `^`, `~`, shifts) got floating-point tensors (float32, fp16 or bf16: bitwise "
       "kernels are not implemented for floating dtypes): a mask that should be bool or "
       "integer was built or cast as float (`torch.ones(...)` defaults to float32, `batch.to(dtype)` casts "
       "attention masks, `mask.half()`, or `mask.to(other_tensor)`, which takes the other tensor's dtype as well "
       "as its device), or a compiler or backend returned the mask in the wrong output dtype.",
       "Make masks bool before combining them (`mask.bool() & other.bool()`, or `mask.to(torch.bool)`), or "
       "multiply float masks (`m1 * m2`); move a mask with `mask.to(other.device)` when only the device should "
       "change; cast only floating tensors when casting a batch."),
    _e("mask-not-bool", "index", "a mask that is not torch.bool",
       r"received a mask with dtype torch\.uint8|mask with dtype torch\.uint8,? this behavior is now deprecated|"
       r"masked_\w+[^\n]{0,60}\b(Float\w*|float)[`'\"]? (tensor )?mask|expected mask dtype to be Bool|"
       r"indexing with dtype torch\.uint8 is now deprecated|"
       r"Expected object of scalar type Bool but got scalar type \w+ for argument #\d+ 'mask'|"
       r"only bool and floating types of \w*mask are supported|Mask tensor can take 0 and 1 values only|"
       r"\A(?=.*\b(rejects?|only (accepts?|supports?)|not supported)\b)(?=.*\bint(32|64) (padding |"
       r"attention )?masks?\b)|"
       r"\bmask\w*\b[^.\n]{0,40}\bshould be (a )?bool(ean)?\b[^.\n]{0,20}\b(rather than|not|instead of) (a )?(long|"
       r"int\w*|float\w*)",
       "`masked_fill` / `masked_select` / `masked_scatter` take a `torch.bool` mask: a uint8 (Byte) mask is "
       "deprecated (a warning on every call, an error in newer torch), and a float mask does not mask at all "
       "(or is refused); code written for bool masks (custom attention, remote model code) also refuses the int64 "
       "(long) attention mask a tokenizer returns, as attention layers do an int32 or int64 padding mask (torch 2.0 "
       "refuses integer `key_padding_mask`s).",
       "Build masks as bool (`mask = x == pad_id`, `m.bool()`, `torch.zeros(..., dtype=torch.bool)`) and keep them "
       "bool when combining them (`m1 & m2`), or cast them to the query dtype where an additive float mask is "
       "wanted; code written for a newer torch's masked_fill (float masks) needs that torch version: upgrade."),
    _e("jax-compiled-arg-types", "index", "a compiled JAX function called with other dtypes than it was compiled for",
       r"Argument types differ from the types for which this computation was compiled",
       "A JAX function compiled ahead of time (`jit(...).lower(...).compile()`, a cached step) checks each "
       "argument's dtype and got another: with `jax_enable_x64` on, JAX's default integers and floats are 64-bit "
       "(int64, float64), so arrays the jitted code returns are int64 while arrays copied in from NumPy or C "
       "structures keep int32 (or float32), and the two meet at the next call.",
       "Give the arguments the dtypes the computation was compiled with (`x.astype(jnp.int32)`, or build them "
       "with the same jitted constructor), or compile after `jax_enable_x64` is set with arguments of those "
       "dtypes (MuJoCo MJX: `mjx.put_data` keeps MjData's int32 index fields; `mjx.make_data` builds them in the "
       "canonical dtype)."),
    _e("jax-x64-disabled", "mismatch", "JAX makes 32-bit arrays unless 64-bit types are enabled",
       # the user asked for float64 in JAX code and got float32 (a library asking for it itself is another matter)
       r"\A(?=.*\b(jax|jnp|lax|flax|random\.PRNGKey)\b)"
       r"(?=.*(dtype\s*=\s*['\"]?(\w+\.)?(float|int)64|astype\(\s*['\"]?(\w+\.)?float64|jnp\.float64|"
       r"\b(convert\w*|truncat\w*|cast\w*) (\w+ )?float64 (\w+ )?to float32\b|"
       r"Explicitly requested dtype [^\n]{0,40}(int|float)64\b[^\n]{0,120}will be truncated to dtype))"
       r"(?=.*(\bfloat32\b|32-bit|truncated to dtype))",
       "JAX keeps every array 32-bit by default: a float64 (or int64) dtype asked for in `jnp.array`, "
       "`jax.random` or `.astype` is truncated to float32 (int32), silently or with the warning 'Explicitly "
       "requested dtype float64 ... will be truncated to dtype float32'.",
       "Enable 64-bit types before any array is made: `jax.config.update(\"jax_enable_x64\", True)` at start-up "
       "or `JAX_ENABLE_X64=1` in the environment (the x64 flag); otherwise keep float32 on purpose."),
    _e("jax-carry-dtype", "mismatch", "a JAX loop's carry that changes dtype in the loop body",
       r"(scan carry|body_fun|carry) output and input must have identical types",
       # a dtype that differs between the two sides (a shape change alone is another fault)
       context=r"DIFFERENT ShapedArray\((\w+)\[[^\n]*?\bvs\.? ShapedArray\((?!\1\[)\w+\[|"
               r"\b(\w+)=['\"]?ShapedArray\((\w+)\[.*\b\2=['\"]?ShapedArray\((?!\3\[)\w+\[",
       cause="A JAX loop (`lax.scan`, `lax.while_loop`, `fori_loop`) needs the body to return its carry in "
       "exactly the dtypes it received, and one field changes: an initial value made from a Python number "
       "(int64 / float64 under x64, or a weakly typed scalar) that the body turns into float32 (or the reverse), or "
       "a step that promotes a half-precision value.",
       fix="Make the initial carry in the dtype the body returns (`jnp.zeros((), dtype=jnp.float32)`, "
       "`jnp.asarray(0, dtype=...)` rather than `0`), or cast the body's result back (`new.astype(old.dtype)`) "
       "for the field that changes."),
    _e("int-width-mix", "index", "integer tensors of two widths (int32 and int64) where one is required",
       r"\A(?=.*\bint32\b)(?=.*\bint64\b)(?=.*(same schema|same dtype|must match|mismatch|different from|differ))",
       "Integer tensors of two widths met where one is required (graph ids, indices, node or edge data of a "
       "batch): some were built as int32 (NumPy on Windows, an int32 array, another version of the library that "
       "makes them) and the rest as int64.",
       "Cast the ids to one integer dtype where they are made (`.long()`, `torch.as_tensor(a, dtype=torch.int64)`, "
       "`a.astype(np.int64)`), or use the library version the code was written for."),
    _e("ce-prob-target", "index", "a cross-entropy target that is integer but shaped like class probabilities",
       r"Expected floating point type for target with class probabilities, got \w+",
       "cross_entropy got a target with the same shape as the logits, which it reads as class probabilities, "
       "but of an integer (Long) dtype: typically one-hot labels built as integers, or the multi-hot targets of a "
       "multi-label dataset given to a single-label head.",
       "Pass class indices (`target.argmax(-1)`, Long, shape (N,) without the class dim) or float probabilities "
       "(`target.float()`, for label smoothing / soft labels); for multi-label data use a multi-label head "
       "(sigmoid with binary cross-entropy, BCE) instead of cross-entropy."),
    _e("int-alpha-float", "mismatch", "an integer tensor given a floating-point scale (an optimizer step on int)",
       r"For integral input tensors, argument alpha must not be a floating point number",
       "An add with a floating-point scale (`p.add_(grad, alpha=-lr)` in an optimizer step, `torch.add(x, y, "
       "alpha=0.5)`) reached an integer tensor: most often an int nn.Parameter (requires_grad=False) or buffer "
       "handed to the optimizer, or stepped by a library that runs an optimizer step over all parameters (Horovod's "
       "`broadcast_optimizer_state`).",
       "Keep integer tensors out of the optimizer: register them as buffers (`self.register_buffer(...)`) or pass "
       "only floating parameters (`[p for p in model.parameters() if p.is_floating_point()]`); or make the tensor "
       "float if it is meant to be trained."),
    # a float32 value around 1e-40 where ~1e-5 was expected: 16-bit data read as float32 bits
    # a component that makes its tensors in float32 whatever the default dtype says
    _e("explicit-float32-vs-default", "mismatch", "tensors made explicitly float32 in a float64 run",
       r"\A(?=.*set_default_dtype)(?=.*\b(float32|fp32)\b)(?=.*\b(numerical errors?|precision|inaccura\w*|differ\w*|"
       r"wrong|goes against|ignor\w*)\b)",
       unless=EXCEPTION_NAMED,
       cause="The component creates its tensors (a metric's states, a buffer) explicitly as float32, which ignores "
       "`torch.set_default_dtype(torch.float64)`, so a run meant to be float64 accumulates in float32 precision "
       "there and its results drift by float32's rounding (about 1e-8 relative per step).",
       fix="Upgrade the library where its states follow the default dtype, or cast the component (`metric.double()`, "
       "`metric.set_dtype(torch.float64)` in torchmetrics) after creating it."),
    _e("half-bits-read-as-float", "mismatch", "16-bit data read as float32 bits (subnormal values)",
       r"\A(?=.*(?<![\w.])\d(\.\d+)?e-(3[89]|4[0-5])\b)(?=.*\b(denormal\w*|subnormal\w*|should be|expected|instead "
       r"of)\b)",
       "A float32 value around 1e-40 is a subnormal, the typical result of reading 16-bit data (bf16 or fp16 bits) "
       "as float32 without converting: a raw pointer, buffer or view of a bf16 array taken as float, so each value "
       "is its bits in the wrong dtype.",
       "Convert instead of reinterpreting: `astype(float32)` / `.to(torch.float32)` / `.float()` before reading the "
       "values (`item<float>()` after `astype`), and reduce half and bf16 tensors in a float32 accumulator."),
    _e("int-matmul-cuda", "mismatch", "a matrix multiply of integer tensors on CUDA",
       r"addmm for CUDA tensors only supports floating-point types|"
       r"\A(?=.*unimplemented data type at \S*THCTensorMathBlas)(?!.*(?<![A-Za-z0-9_])(fp16|half|CudaHalf\w*|float16)"
       r"(?![A-Za-z0-9_]))",
       "cuBLAS has no integer matrix multiply, so `mm` / `matmul` / `addmm` of Long (int64) or Int tensors on CUDA "
       "is not implemented: the operands were built from integers (`torch.randint`, `.long()`, `arange`) and never "
       "converted to a floating-point dtype.",
       "Convert the operands to float before the product (`x.float() @ y.float()`, and `.round().long()` after if "
       "integers are wanted), or do the integer product on the CPU."),
    _e("torchvision-op-no-half", "cpu-kernel", "a torchvision detection op without a bf16 / fp16 kernel",
       r"\"(nms|batched_nms)\w*\" not implemented for '(Half|BFloat16)'|"
       r"\"(roi_align|roi_pool|ps_roi_align|ps_roi_pool|deform_conv2d)\w*\" not implemented for 'BFloat16'",
       "torchvision's detection ops (`nms`, `roi_align`, `roi_pool`, `deform_conv2d`) have no bfloat16 support in "
       "many releases (and no Half kernel on the CPU), so a detection model converted to bf16 / fp16 fails in its "
       "post-processing or RoI heads.",
       "Run the op in float32 (`nms(boxes.float(), scores.float(), iou)`, `roi_align(x.float(), ...).to(x.dtype)`), "
       "skip the bf16 conversion for detection models (keep them float32), or upgrade torchvision."),
    _e("antialias-interpolate-half", "cpu-kernel", "antialiased interpolate without a half-precision kernel",
       r"\"compute_index_ranges_weights\" not implemented for '(Half|BFloat16)'|"
       r"\"_?upsample_(bilinear|bicubic)2d_aa\w*\" not implemented for '(Half|BFloat16)'|"
       r"\binterpolat\w* (op|operation|kernel)?\s*has no (bf16|BF16|bf32|BF32|bfloat16|half|fp16) "
       r"(implementation|kernel)",
       "`F.interpolate(..., antialias=True)` (antialiased bilinear / bicubic resizing, which torchvision's Resize "
       "uses on tensors, and some plain modes in older releases, such as resizing a position embedding) has no "
       "fp16 / bf16 kernel on the CPU (and on MPS) in this torch: its index-weight computation is dispatched for "
       "float32 / float64 only.",
       "Cast to float32 around the resize and back (`F.interpolate(x.float(), ..., antialias=True).to(x.dtype)`), "
       "resize without antialias in half precision, or upgrade torch."),
    _e("get-device-cpu-tensor", "device", "a CPU tensor given to an op that wanted CUDA tensors (PyTorch 0.4)",
       r"get_device is not implemented for type torch\.(?!cuda\.)\w*Tensor",
       "PyTorch 0.4 asked a tensor for its GPU index with `get_device()`, which CPU tensors did not implement: one "
       "input of the op (an image, a grid, a weight) is on the CPU while another is on CUDA, a device mismatch that "
       "later releases report as 'Expected all tensors to be on the same device'.",
       "Put every input of the op on the same device (`grid = grid.to(images.device)`, `.cuda()` on the one left "
       "on the CPU), or move the module with `model.to(device)` before calling it."),
    _e("weight-norm-half-cpu", "cpu-kernel", "weight_norm in float16 on the CPU (PyTorch 1.12.0)",
       r"\A(?=.*\bweight_norm\b)(?=.*\b(not working|does ?n[o']t work|fails?|error)\b[^.\n]{0,40}"
       r"\b(float16|fp16|half)\b|.*\b(float16|fp16|half)\b[^.\n]{0,40}\b(not working|does ?n[o']t work|fails?)\b)",
       "`nn.utils.weight_norm` computes the weight from `g` and `v` when it is applied, and a module built in "
       "float16 (`torch.set_default_dtype(torch.float16)`, `.half()` before wrapping) is still on the CPU then, "
       "whose weight-norm kernel had no float16 registration in PyTorch 1.12.0.",
       "Upgrade torch (1.12.1 registers it), or apply weight_norm in float32 and cast after moving to CUDA "
       "(`model.cuda().half()`)."),
    _e("fsdp-batchnorm-buffers", "mismatch", "FSDP mixed precision casts BatchNorm weights but not its running stats",
       r"\A(?=.*Expected running_(mean|var) to have type (BFloat16|Half) but got Float)"
       r"(?=.*\b(FSDP2?|fully_shard|MixedPrecisionPolicy|MixedPrecision)\b)",
       "FSDP's mixed precision (`MixedPrecisionPolicy(param_dtype=torch.bfloat16)`, `MixedPrecision(param_dtype=...)`) "
       "casts the BatchNorm's weight and bias to bf16 / fp16, while its running_mean / running_var buffers stay "
       "float32, and batch_norm wants the weight and the running stats in one dtype.",
       "Wrap the BatchNorm modules separately with their own float32 policy (`fully_shard(bn, "
       "mp_policy=MixedPrecisionPolicy(param_dtype=torch.float32))` before sharding the model; FSDP1: "
       "`_module_classes_to_ignore` / a separate wrap), or run the model under autocast instead of casting "
       "parameters."),
    _e("norm-kept-fp32-half-input", "mismatch", "a norm kept in float32 given fp16 input",
       r"\A(?=.*(expected scalar type (Half|Float) but found (Float|Half)|expected type torch\.cuda\.(Float|"
       r"Half)Tensor "
       r"but got torch\.cuda\.(Half|Float)Tensor))"
       r"(?=.*(\b(SyncBN|SyncBatchNorm|BatchNorm|BN|batch ?norm)\w*\b[^.\n]{0,30}\b(in |as )?(32 ?bits?|fp32|float32|"
       r"float)"
       r"\b|\bkeep_batchnorm_fp32\b|apex/parallel/sync_batchnorm\.py))",
       "The network runs in fp16 while its (Sync)BatchNorm layers are kept in fp32 (apex amp O2, "
       "`keep_batchnorm_fp32`, or by hand): the fp16 input meets fp32 weights and running stats, and this norm "
       "implementation (SyncBatchNorm in torch 1.1, apex's pure-Python SyncBatchNorm) does not accept the mixed "
       "pair.",
       "Cast the input to fp32 before the norm and back to fp16 after it, or let autocast handle it (torch.autocast "
       "keeps batch norm in fp32); with apex, install it with its CUDA extension (`--cuda_ext`), whose optimized "
       "SyncBatchNorm kernel takes fp16 input with fp32 parameters."),
    _e("vae-latents-dtype", "mismatch", "latents and the VAE in two dtypes at decode",
       r"\A(?=.*expected scalar type (Half|Float|BFloat16) but found (Float|Half|BFloat16))(?=.*\blatents?\b)"
       r"(?=.*\b(vae\.decode|VAE)\b)",
       "The latents reach `vae.decode()` in another dtype than the VAE's weights: fp16 latents from the UNet meet a "
       "VAE kept (or upcast) in fp32 (`force_upcast`, a fp32 VAE for quality), or the reverse, and the VAE's first "
       "norm or conv refuses the mixed pair.",
       "Cast the latents to the VAE's dtype before decoding (`latents = latents.to(vae.dtype)`), or upcast both "
       "(`vae.to(torch.float32)` with the latents), or upgrade diffusers, whose pipelines align them."),
    # told in words: two finfo.min mask planes added together
    _e("mask-min-sum-overflow", "overflow", "two additive masks of finfo.min summed past the dtype's range",
       r"\A(?=.*finfo\([^)]*\)\.min)(?=.*\b(summ\w*|add\w*|sum of)\b)(?=.*\boverflow\w*\b[^.\n]{0,30}(-inf|\binf\b))",
       unless=EXCEPTION_NAMED,
       cause="Two additive masks each filled with `torch.finfo(dtype).min` (a causal or sliding-window plane and a "
       "padding plane) are summed, and for a position masked by both the sum is beyond the dtype's range, so it "
       "overflows to -inf; a row of -inf gives NaN in the softmax and in the gradients.",
       fix="Combine the masks as booleans (`torch.where(causal | padding, finfo.min, 0.0)`, a bool mask for "
       "SDPA) so that masked cells hold a single finfo.min, or clamp the sum to finfo.min."),
    _e("dlpack-cross-device-no-copy", "device", "a DLPack export to another device asked not to copy",
       r"cannot move \(i\.e\. copy=False\) tensor from \S+ to \S+ without copying",
       "`__dlpack__(copy=False, dl_device=...)` asks for the tensor on another device (the CPU tensor on cuda:0) "
       "without a copy, which cannot be: memory on the CPU is not on the GPU, so a cross-device export needs a copy.",
       "Allow the copy (`copy=True` or `copy=None`), or move the tensor to the target device first (`t.cuda()`, "
       "`t.to(device)`) and export it there (same device)."),
    _e("numpy-given-cuda-tensors", "device", "NumPy given a list of GPU tensors",
       r"'torch\.dtype' object has no attribute 'type'",
       context=r"\bnp\.\w+\(|\bnumpy\b",
       cause="A NumPy function (`np.mean`, `np.array`) was given torch tensors on a GPU (CUDA) device, which it "
       "cannot turn into an array, so it falls back to calling methods on the tensors and trips over torch's "
       "dtype.",
       fix="Copy the tensors to the CPU first (`[t.cpu() for t in ts]`, `t.item()` for scalars), or stay in torch "
       "(`torch.stack(ts).mean()`)."),
    _e("cupy-tensor-other-gpu", "device", "CuPy wrapping a torch tensor that lives on another GPU",
       r"\A(?=.*\bcupy\b)(?=.*cudaErrorInvalidValue)(?=.*(@cupy:[1-9]|cuda:[1-9]|Device\([1-9]\)|\bGPU ?[1-9]\b))",
       "The torch tensor lives on a non-default GPU (cuda:1) while CuPy's current device is GPU 0, so wrapping its "
       "memory (`UnownedMemory`, `pointerGetAttributes`) is refused with an invalid argument.",
       "Make the tensor's device current while converting (`with cupy.cuda.Device(t.device.index):`, "
       "`chainer.get_device('@cupy:1').use()`), or use DLPack (`cupy.from_dlpack(t)`), which keeps the device."),
    _e("librosa-int16-audio", "numpy", "librosa given integer (int16) audio",
       r"\A(?=.*data must be floating-point)(?=.*\b(librosa|valid_audio|write_wav)\b)",
       "librosa (0.6 and later) accepts only floating-point audio buffers, and the waveform was cast to int16 PCM "
       "first (`wav.astype(np.int16)` before `write_wav`), so its audio check refuses it.",
       "Pass the float waveform (drop the `.astype(np.int16)`), or write int16 PCM with `soundfile.write` / "
       "`scipy.io.wavfile.write`, or install the librosa version the project's requirements pin."),
    # told in words: a logger given bf16 values
    _e("logger-bf16-values", "numpy", "a logger (wandb, TensorBoard, JSON) given bf16 values",
       r"\A(?=.*\b(wandb\.log|add_scalars?|SummaryWriter|json\.dumps?)\b)(?=.*\b(bfloat16|bf16)\b)"
       r"(?=.*\b(recursion|RecursionError|fails?|error|throws?)\b)",
       "The logger converts values through NumPy, which has no bfloat16, so bf16 arrays or tensors are not "
       "recognised as numbers (a recursion, a TypeError).",
       "Cast logged values to float32 first (`float(x)`, `x.astype(jnp.float32)`, `x.float().item()`), or upgrade "
       "the logger (newer wandb converts bfloat16 itself)."),
    _e("memmap-read-dtype", "mismatch", "a token file read with another dtype than it was written with",
       r"Size of available data is not a multiple of the data-type size",
       context=r"\b(memmap|frombuffer|fromfile)\b",
       cause="The file is read (`np.memmap`, `np.frombuffer`) with a dtype whose size does not divide the file: it "
       "was written with another dtype (uint16 token ids read as uint32 or int64, a writer whose dtype option was "
       "not passed through), so the bytes do not form whole items, or form wrong ones.",
       fix="Read with the dtype the file was written with (keep it in the file's metadata), or update the tool "
       "that wrote it if its dtype option was ignored and tokenize again."),
    _e("pipeline-device-with-device-map", "device", "a pipeline given `device` for a model accelerate placed",
       r"has been loaded with `?accelerate`? and therefore\s+cannot be moved\s+to a specific device|"
       r"Do not use .?device_map.? AND .?device.? at the same time",
       "The model was placed by accelerate (`device_map`, or quantized loading, so it has an `hf_device_map`), and "
       "the pipeline was also given a `device` argument, which would move it again: the two placements conflict.",
       "Drop the device argument (`device=None`, not both) when the model was loaded with `device_map` (or "
       "quantized), and pass inputs to `model.device`; or load without `device_map` and use `device=` alone."),
    _e("int-input", "mismatch", "an integer tensor reached a floating-point op",
       r"not implemented for '(torch\.)?(Long|Int|Bool|Short|Byte|Char)(Tensor)?\b'?|"
       r"\bnot supported on \w*Type for (Long|Int|Bool|Short|Byte|Char)\b|"
       r"could not infer output dtype\. Input dtype must be either a floating point|"
       r"input dtype should be either floating point or complex dtypes\. Got (Long|Int|Short|Byte|Char|Bool)\b|"
       r"not impl\w*ented for '(torch\.)?(Long|Int|Bool|Short|Byte|Char)(Tensor)?\b'?|"
       r"expected scalar type (Float|Half|BFloat16|Double) but found (Long|Int|Byte|Char|"
       r"Bool)|Input type \(\S*(Byte|Long|Int|Char)\w*\) and (weight|bias)( type|\s*\Z)|"
       r"\bexpected Byte tensor \(got Float tensor\)|\b(does not|doesn'?t|cannot|can'?t) accept\b.{0,40}\bByteTensor\b|"
       r"only supports floating[- ]point dtypes?\b.{0,40}\b(got|found):? (Long|Int|Bool|Byte|Char|Short)|"
       r"expected common dtype to be floating point, yet common dtype is (Long|Int|Bool|Byte|Char|Short)|"
       r"dtypes of the first \((u?int\d*|bool)\) and second \(float\d*\) input must match|"
       r"dtypes of the first \(float\d*\) and second \((u?int\d*|bool)\) input must match|"
       # TensorFlow / Sonnet: "Expected floating point type, got <dtype: 'int64'>"
       r"Expected floating point type, got <dtype: '(u?int\d+|bool)'>|"
       # stft / fft: "stft(torch.ShortTensor[16, 16480], ...) : expected a tensor of floating point or complex values"
       r"expected a tensor of floating point or complex values|"
       r"Can only calculate the mean of floating types\. Got (Long|Int|Short|Byte|Char|Bool) instead|"
       r"one of the following scalar types: [^;\n]*\bFloat\b[^;\n]*; but got (torch\.)?(cuda\.)?"
       r"(Long|Int|Short|Byte|Char|Bool)Tensor|"
       # torch < 1.0: "_thnn_conv2d_forward is not implemented for type torch.LongTensor"
       r"\bis not implemented for type (torch\.)?(cuda\.)?(Long|Int|Short|Byte|Char|Bool)Tensor\b",
       "A floating-point op (a layer such as a convolution or linear, matmul, mean, init, an STFT) got an integer or "
       "bool tensor, for which it is not implemented: data built from integer values (`torch.tensor([1, 2])`, uint8 "
       "images, int16 PCM audio, NumPy int arrays) was never converted to float.",
       "Convert the input to the model's float dtype (float32 unless the model runs in half precision): "
       "`x = x.float()` (uint8 images: `x.float() / 255`; int16 PCM audio: `x.float() / 32768`; an environment's "
       "observations cast where it returns them), or "
       "`x.to(model.dtype)`; keep only indices and labels integer; when the integer tensor is a library's own "
       "(its code calls the op on lengths or ids), update the library to its latest release.",
       # mean(dtype=float) refused: a torch regression, not an integer input
       unless=_HALF_KERNEL_TOO + r"|\.mean\(\s*dtype\s*=\s*torch\.(float|double|half|bfloat)"),
    _e("typed-buffer-dtype", "mismatch", "a typed buffer given items of another dtype",
       # a ragged / array buffer's conversion message: "from=(dim=2, dtype=Float64), to=(dim=_, dtype=Bool)"
       r"\bfrom=\([^)\n]*dtype=(?P<src>\w+)\),\s*to=\([^)\n]*dtype=(?!(?P=src)\))(?P<dst>\w+)\)",
       "A typed buffer (a ragged or array buffer of an RL environment, a replay buffer, a NumPy-backed store) holds "
       "one dtype, fixed when it was created, and was pushed items of another: the message shows the dtype given "
       "(`from=`) and the one it holds (`to=`).",
       "Give the buffer its own dtype: cast what you push (`mask.astype(bool)`, `obs.astype(np.float32)`), "
       "or create the buffer with the dtype of the data the environment returns."),
    _e("index-dtype", "index", "index/scatter source and destination dtypes differ",
       r"scatter\w*\(\): Expected self\.dtype to be equal to src\.dtype|"
       r"Index put requires the source and destination dtypes match|"
       r"index_(add|copy|put|fill)_?\(\).{0,80}(same (scalar )?type|dtype)|"
       r"masked_(scatter|fill)\w*(\(\))?:? (only supports|expected|expects|requires)[^\n]{0,60}dtype|"
       r"Expected self\.dtype to be equal to src\.dtype|"
       # the same message cut short by a paste: masked_scatter's "expected ..." checks are its dtype checks
       r"masked_scatter_?: expec\w*\s*$|"
       r"Expected mask to be of ScalarType Bool|expected condition to be a boolean tensor",
       "An index_put / scatter / index_add wrote values of one dtype into a tensor of another, a dtype mismatch "
       "(these ops never promote), such as fp32 updates into a bf16 cache or buffer, or under autocast (mixed "
       "precision) an fp16/bf16 source computed by autocast meeting a destination buffer kept in fp32.",
       "Cast the source to the destination's dtype: `dest.index_put_(idx, src.to(dest.dtype))` / "
       "`scatter_(dim, idx, src.to(dest.dtype))`."),
    _e("torch-dtype-auto", "mismatch", "a model loaded in float32 although its checkpoint is half precision",
       r"Passed .?torch_dtype.? \S+ is not a .?torch\.dtype.?\. Defaulting to|"
       r"\A(?=.*torch_dtype\s*=\s*['\"]auto['\"])(?=.*\b(float32|fp32)\b)(?=.*\b(gives|returns|loads?|incorrect|wrong|"
       r"still|instead|but|does not|doesn'?t)\b)|"
       r"\b(bf16|bfloat16|fp16|float16|half)\b[^.\n]{0,60}\b(loaded|loads|is loaded|gets loaded|comes out|ends up)\b"
       r"[^.\n]{0,20}\b(as|in) (fp32|float32)\b|"
       # from_pretrained without torch_dtype printing float32 where the user expected the checkpoint's half dtype
       r"\A(?=.*from_pretrained\()(?!.*torch_dtype)(?=.*\b(float32|fp32)\b)(?=.*\b(expect\w*|should be|saved (in|as|"
       r"under)|stored (in|as))\b[^.\n]{0,40}\b(float16|fp16|bf16|bfloat16)\b)|"
       # the default float32 told as the cause of an OOM or of flash attention refusing the model
       r"\bdefault `?(torch\.)?(float32|fp32)`?[^.\n]{0,60}\b(out of memory|OOM|flash[ _-]?attention)",
       "`torch_dtype='auto'` should take the dtype from the checkpoint (`torch_dtype` in its config, float16 or "
       "bfloat16), but older transformers Auto classes and diffusers pipelines before 'auto' support ignored it and "
       "created the model in float32, the default of any `from_pretrained` without `torch_dtype`.",
       "Pass the dtype explicitly (`torch_dtype=torch.float16` / `torch.bfloat16`) and check `model.dtype`, or "
       "upgrade transformers / diffusers."),
    # a dtype passed to a tool that takes the config's torch_dtype whenever there is one
    _e("dtype-arg-overridden", "mismatch", "a dtype option overridden by the model config's torch_dtype",
       r"\A(?=.*\bdtype\b)(?=.*\b(model )?config\b)(?=.*\b(ignored|nothing happened|does ?n[o']t work|no effect|"
       r"not (applied|used|respected))\b)(?=.*\b(forc\w*|pass\w*|specif\w*|set)\b)",
       unless=EXCEPTION_NAMED + r"|merge_method|mergekit",
       cause="The tool takes the dtype from the model's config (`torch_dtype` in config.json) whenever there is one, "
       "so the dtype passed in the command line or model arguments is ignored (the config overrides it) in this "
       "release.",
       fix="Upgrade to a release where the argument takes precedence, or cast after loading (`model.to(dtype)`), or "
       "edit `torch_dtype` in a local copy of the config."),
    _e("dtype-string", "mismatch", "a dtype option given as a string torch cannot resolve",
       # a dtype torch is too old for ('float8_e4m3fn' on torch < 2.1) is a version problem, not this
       r"module 'torch' has no attribute '(torch\.\w+|bf16|fp16|fp32|fp8|f16|f32|half_precision)'",
       "A dtype option was given as a string and resolved with `getattr(torch, value)` (BitsAndBytesConfig's "
       "`bnb_4bit_compute_dtype`, `torch_dtype` in a config or on a command line): 'torch.bfloat16' with the prefix, "
       "or a short name such as 'bf16', is not an attribute of torch.",
       "Pass the dtype object (`bnb_4bit_compute_dtype=torch.bfloat16`, `torch_dtype=torch.float16`) or the bare "
       "name as a string ('bfloat16', 'float16'), not 'torch.bfloat16'."),
    _e("unsigned-int-unsupported", "cpu-kernel", "an unsigned 16/32/64-bit integer dtype that is not supported",
       r"\buint(16|32|64)\b[^\n]{0,40}\b(is |are )?not supported\b|KeyError: (torch|np|numpy)\.uint(16|32|64)\b",
       unless=r"\bInput type u?int\d+ is not supported",  # torchvision's to_pil_image: its own entry below
       cause="Unsigned 16-, 32- and 64-bit integers have little support: PyTorch before 2.3 had no uint16 / uint32 / "
       "uint64 dtypes at all and still has few kernels for them, and libraries' dtype tables (serializers, "
       "converters, frontends) often leave them out, so 16-bit images and unsigned label arrays are refused.",
       fix="Convert before the call: `a.astype(np.int32)` (uint16 values fit; int64 for uint32), or float32 for "
       "images (`a.astype(np.float32)`, scaled as the model expects), or rescaled uint8 where a tool takes 8-bit "
       "images (`(a / a.max() * 255).astype(np.uint8)`); convert back after if the format needs it."),
    _e("mps-uint8-macos12", "device-capability", "uint8 ops on Apple's MPS before macOS 13",
       r"MPS support binary op with (uint8|int64)\w* (input )?natively starting from macOS 13",
       "Apple's MPS backend runs binary ops on uint8 (and some on int64) natively only from macOS 13, and PyTorch "
       "refuses them on older macOS: an image kept as uint8 on the mps device meets such an op.",
       "Convert the tensor to float32 before it reaches the model (`x.float()` or `x.to(torch.float32)`, scaled as "
       "the model expects), upgrade macOS to 13 or later, or run on the CPU."),
    _e("tfjs-dtype-mismatch", "mismatch", "a TensorFlow.js op given an int32 and a float32 tensor",
       r"dtypes of the first\(\w+\) and second\(\w+\) input must match",
       "TensorFlow.js ops do not promote dtypes: an int32 tensor (`tf.browser.fromPixels` returns int32 pixels, "
       "`tf.tensor` of whole numbers is int32) met a float32 one inside the op.",
       "Cast the int32 tensor first: `t.toFloat()` or `tf.cast(t, 'float32')` (and scale pixels as the model "
       "expects, `.div(255)`)."),
    _e("tflite-java-type", "mismatch", "a TFLite tensor fed buffers of another type",
       r"Cannot convert between a TensorFlowLite tensor with type \w+ and a Java object of type",
       "The TFLite model's input or output tensor is quantized (uint8) where the app passes float arrays (or "
       "float32 where it passes bytes): a quantized model (AutoML, post-training int8) takes uint8 bytes, a float "
       "model takes float32 arrays.",
       "Feed the type the tensor has (`interpreter.getInputTensor(0).dataType()`): uint8 bytes for a quantized "
       "model (`imageToByteListUint8`, a ByteBuffer of pixels), normalised float32 arrays for a float model, or "
       "export a float model."),
    _e("dart-buffer-type", "mismatch", "a Dart output buffer of ints for float32 results (or the reverse)",
       r"'List<double>' is not a subtype of type 'List<int>'|'List<int>' is not a subtype of type 'List<double>'",
       "The buffer the results are written into was made as a Dart `List<int>` (`List.filled(n, 0)`) while the "
       "model's tensor is float32 (doubles), or as doubles where the tensor is uint8 / int.",
       "Make the buffer match the tensor: `List<double>.filled(n, 0.0)` (fill with 0.0, a double buffer) for float32 "
       "outputs, ints only for uint8 / int outputs."),
    _e("webnn-int64", "backend", "a WebNN backend without int64",
       r"Unsupported data type int64\b[^\n]{0,80}must be one of|MLGraphBuilder[^\n]{0,200}\bint64\b",
       "This WebNN backend (Core ML on macOS, some GPU and NPU backends) has no int64 tensors, while ONNX models "
       "carry int64 constants, Gather indices and shapes.",
       "Convert the model's int64 tensors to int32 (re-export, or rewrite initializers and Cast nodes to int32), or "
       "run it on the wasm or WebGPU execution provider."),
    _e("dtype-table-key", "cpu-kernel", "a dtype missing from a converter's or kernel's dtype table",
       r"\bKeyError\b[^\n]{0,120}'(torch\.)?(BF16|bf16|bfloat16|F16|F8_\w+|float8_\w+|fp8\w*|e8m0\w*|U8|I8|int4|"
       r"uint4)'|"
       r"\bKeyError: <?(DataType|dtype|torch)\.(bf16|bfloat16|float8\w*|e4m3\w*|e5m2\w*|fp8\w*|u?int(8|16)|"
       r"float(16|64)|half|complex\d+)\b",
       "A converter or kernel looks the tensor's dtype up in a table that has no entry for it: an older "
       "`convert.py` / export script without BF16 (bf16 safetensors), coremltools' torch-to-MIL map without "
       "int8 (quantized weights lifted as inputs), a Triton or CUTLASS kernel without "
       "float8_e8m0fnu (the exponent-only scale format of MXFP8 / MXFP4 and block-FP8 checkpoints, which kernels "
       "expect upcast to float32), a tool without the newer fp8 types: that dtype is not supported on this path "
       "(its mapping lacks it).",
       "Upgrade the converter or library (such dtypes are added in newer releases), or convert the weights or "
       "scales to a dtype it knows first (bf16 -> fp16 / fp32 for an old converter, e8m0 scales upcast to float32 "
       "before the kernel)."),
    _e("found-dtype-backward", "backward-dtype", "a gradient of another dtype in backward",
       r"Found dtype (\w+) but expected (\w+)|expected dtype Float but got dtype Long \(validate_dtype",
       "In backward, a gradient came out in another dtype than its forward tensor: typically a loss between "
       "tensors of different dtypes (an fp32/fp64 target with a bf16/fp16 prediction, or integer labels given to a "
       "regression loss such as MSELoss: a classification head built with `num_labels=1` is a regression head) or a "
       "custom `autograd.Function.backward` returning a gradient of the wrong dtype.",
       "Compute the loss in one dtype (`loss_fn(pred.float(), target.float())`; for 0/1 classification use "
       "`num_labels=2` with Long labels, for regression float labels), and in custom backward passes "
       "return `grad.to(input.dtype)` for each input; a model cast by hand (`model.half()`) needs every input cast "
       "the same way (`x.half()`), or leave the model fp32 and run the forward under `torch.autocast`."),
    _e("complex-half", "cpu-kernel", "complex numbers from a bf16/fp16 tensor (rotary embeddings)",
       r"view_as_complex is only supported for (half, )?float and double tensors|"
       r"(ComplexHalf|ComplexBFloat16|complex32)\b.{0,80}(not (implemented|supported)|unsupported)|"
       r"not implemented for 'ComplexHalf'|polar\b.{0,60}(Half|BFloat16)|"
       # the warning torch gives when the first ComplexHalf tensor is made
       r"\bComplexHalf support is experimental\b",
       "`torch.view_as_complex` / `torch.polar` (rotary position embeddings written with complex numbers, as in "
       "the original LLaMA code, or an FFT) got a bf16/fp16 tensor: there is no complex bf16 at all, and complex "
       "fp16 (ComplexHalf) has few kernels.",
       "Compute the rotation in fp32 and cast back: `xq_ = torch.view_as_complex(xq.float().reshape(..., -1, 2))`, "
       "keep `freqs_cis` complex64, and return `torch.view_as_real(xq_ * freqs_cis).flatten(3).type_as(xq)`; or "
       "use a real-valued rotary (cos/sin) implementation."),
    _e("complex-kernel", "cpu-kernel", "an op without a kernel for complex64/complex128 on this device",
       r"\"\w+\" not implemented for '(ComplexFloat|ComplexDouble)\b'?",
       "This op has no kernel for complex tensors (ComplexFloat = complex64, ComplexDouble = complex128) on the "
       "device it ran on (not implemented): complex support arrived op by op, and many CUDA (or CPU) kernels of "
       "older torch take only real dtypes even where the other device has a complex one; code written for torch "
       "before 1.8, whose FFTs returned real (..., 2) tensors, gets complex ones from `torch.fft` on a newer "
       "version and hands them to real-only layers.",
       "Upgrade torch (the op may have its complex kernel in a later release), or compute it on the real and "
       "imaginary parts (`torch.view_as_real(z)`, then `torch.view_as_complex`, or `a.real` / `a.imag` separately), "
       "or run that one op on the device that has it and move the result back (`op(z.cpu()).to(z.device)`); for "
       "old real-FFT code, install the torch version it pins or convert with `torch.view_as_real`.",
       unless=_HALF_KERNEL_TOO),
    _e("complex-unsupported", "cpu-kernel", "a component without complex dtypes (an exporter, MPS, Triton)",
       r"\b(does ?n[o']t|does not) (currently |yet )?support complex( (d?types?|tensors?|numbers|values|inputs?|"
       r"outputs?))?\b|\bcomplex (d?types?|tensors?|numbers|values) (are|is) not (yet |currently )?supported\b|"
       r"Unsupported type byte size: Complex\w+|\bUNSUPPORTED DTYPE: complex\b|"
       r"\A(?=.*DispatchStub: missing kernel for mps)(?=.*\bcomplex(64|128)?\b)|"
       # Inductor's Triton codegen has no name for a complex buffer
       r"\A(?=.*\b(inductor|triton|torch\.compile)\b)(?=.*KeyError: ['\"](torch\.)?complex(32|64|128)['\"])",
       "A component on the way does not support complex dtypes (it has no kernel for them): the TorchScript ONNX "
       "exporter (its STFT / FFT symbolics refuse complex outputs, ONNX has no complex tensors), Apple's MPS backend "
       "in older torch and macOS, Triton (which Inductor generates for `torch.compile`: it has no complex type, so a "
       "complex64 buffer has no name), TorchScript's CUDA fuser (a scripted function mixing complex and real tensors "
       "fails from its second, profiled call), or a runtime or collective written for real tensors; `torch.stft(..., "
       "return_complex=True)`, `torch.fft` and spectral layers make complex64 tensors that reach it.",
       "Keep complex values as real pairs across that component: `torch.view_as_real(z)` (or the magnitude "
       "`z.abs()`, or real and imaginary parts computed separately) and `torch.view_as_complex` after it; for ONNX "
       "compute the spectrogram from a real-valued STFT (`return_complex=False` / `view_as_real`) or use the "
       "dynamo exporter (`torch.onnx.export(..., dynamo=True)`); for `torch.compile` keep the complex op out of the "
       "graph (`torch.compiler.disable` on it) or upgrade torch; drop `@torch.jit.script` from a function that "
       "mixes complex and real tensors; on MPS run the complex part on the CPU."),
    _e("complex-into-real-layer", "mismatch", "a complex tensor given to a real-valued layer",
       r"Input type \((struct )?(c10::)?complex<\w+>\) and (weight|bias) type|"
       r"Input type \((torch\.)?(cuda\.)?Complex\w*Tensor\) and (weight|bias) type",
       "A complex tensor reached a layer with real weights (a convolution or linear): a spectrogram from "
       "`torch.stft(..., return_complex=True)` (required since torch 2.0) or an FFT output is complex64, and the "
       "layer's float32 weight and bias take only real input.",
       "Turn it real before the layer: `torch.view_as_real(spec)` (the older (..., 2) real layout the code was "
       "written for, moved to channels if needed) or the magnitude `spec.abs()`; convert back with "
       "`torch.view_as_complex` before `istft`."),
    _e("complex-to-real", "mismatch", "a complex tensor written into a real one",
       r"Casting complex values to real discards the imaginary part",
       "A complex tensor (an FFT's coefficients, a complex parameter or state) is cast to or written into a real "
       "dtype (`.to(x.dtype)` with a real `x`, `copy_`, an index assignment into a real buffer, a real `dtype=`), "
       "so only its real part is kept and the imaginary part is dropped.",
       "Give the destination a complex dtype (`torch.zeros(..., dtype=torch.complex64)` or `dtype=z.dtype`), or "
       "take the part you mean explicitly (`z.real`, `z.abs()`); where the imaginary parts are known to be zero, "
       "`z.real` says so and silences the warning."),
    _e("imag-of-real", "mismatch", "`.imag` of a real tensor where complex input was expected",
       r"imag is not implemented for tensors with non-complex dtypes",
       "Code that works on complex numbers (a complex-valued layer, a Fourier operator, a quantum or signal "
       "routine) reads `.imag` of a tensor that is real: the data reached it as float32 (a dataset or collate that "
       "casts everything to float32, a real tensor where complex64 was meant).",
       "Pass a complex tensor: keep complex data complex through preprocessing (no `.float()` / `dtype=float32` "
       "cast), or build it with `torch.complex(re, im)`, `torch.view_as_complex(x)` or `x.to(torch.complex64)`; "
       "real input by design needs the model's real-input option."),
    _e("fp32-only-input", "mismatch", "a layer that runs only in float32 got fp16/bf16 under mixed precision",
       r"should be (in )?(float32|fp32)( type)?,? (but )?got (torch\.)?(float16|half|bfloat16)|"
       r"expected (a )?(float32|fp32) (tensor|input),? (but )?got (torch\.)?(float16|half|bfloat16)",
       "A layer or check that runs only in float32 (a norm, a loss, a custom op) got an fp16/bf16 input under mixed "
       "precision: mmcv / mmdet's `@auto_fp16` casts module inputs to fp16, and its `out_fp32` / `@force_fp32` "
       "decide which tensors come back in fp32.",
       "Give that layer fp32 input: decorate it with `@force_fp32()` (mmcv), or cast (`x.float()`) and run it under "
       "`torch.autocast(..., enabled=False)`; in mmcv check the `auto_fp16(..., out_fp32=...)` of the module that "
       "feeds it."),
    _e("finfo-of-integer", "index", "`torch.finfo` of an integer or bool dtype",
       r"torch\.finfo\(\) requires a floating point input type",
       "`torch.finfo` describes floating dtypes only, and the code gave it an integer or bool one, most often the "
       "dtype of an attention mask or of token ids (`torch.finfo(mask.dtype).min`) where the dtype of the scores "
       "or of the model was meant; modeling code that meets a mask made as int64 or bool by a processor or a "
       "patching library (Unsloth) fails like this.",
       "Take the limit from a floating tensor (`torch.finfo(scores.dtype).min`, `torch.finfo(model.dtype)`) or cast "
       "the mask to the model's dtype first; use `torch.iinfo` for integer dtypes; where the call is inside "
       "transformers or Unsloth, upgrade to the release that fixed it."),
    _e("float-or-double-only", "cpu-kernel", "an op that takes only float32 or float64 got another dtype",
       r"must be (either )?float or double|only supports? (float|float32) (and|or) (double|float64)|"
       r"expected (a )?float or double (tensor|input)",
       "This op (`torch.quantile`, some linalg, distribution and statistics functions) accepts only float32 or "
       "float64, and got another dtype: an fp16/bf16 tensor from a half-precision model or pipeline "
       "(`torch_dtype=torch.float16`), or an integer tensor.",
       "Upcast for that op and cast back: `torch.quantile(x.float(), q).to(x.dtype)`; for integers `.float()`."),
    _e("where-condition", "index", "torch.where given a condition that is not bool",
       r"Expected condition to have ScalarType \w+|where expected condition to be a boolean tensor|"
       r"where\(\):? ?condition (must|should) be a bool",
       cause="`torch.where(condition, x, y)` takes a bool condition (uint8 in old releases), and got a float or "
       "integer tensor: probabilities, scores or a 0/1 mask passed as the condition itself.",
       fix="Build the condition with a comparison or cast it: `torch.where(probs > 0.5, x, y)`, "
       "`torch.where(mask.bool(), x, y)` (`dtype=torch.bool` when creating a mask)."),
    _e("float-only-op", "mismatch", "an op that takes only floating-point tensors got an integer one",
       r"Expected floating( point)?( or complex)? type for (self|input|target|\w+)|"
       r"expected a floating[ -]point (or complex )?tensor|"
       r"\bChar\b\W{0,3} type tensor can'?t do\W{0,3}normal_|\"normal_kernel_\w+\" not implemented for '(Char|Byte|"
       r"Long|Int)'",
       cause="This op accepts only floating-point (or complex) tensors and got an integer one: int64 counts or ids, "
       "an int8 (Char) tensor created with `dtype=weight.dtype` of a quantized (8-bit) layer, or an integer tensor "
       "given to `scatter_` with `reduce=`, which older torch releases took only in floating point.",
       fix="Do that step in floating point (`x.float()`, and `.long()` after if integers are needed), create new "
       "parameters with a float dtype such as float32, not the dtype of a quantized weight; for integer "
       "scatter use `scatter_add_` / `scatter_reduce_` or upgrade torch."),
    _e("default-dtype-not-float", "mismatch", "an integer dtype set as torch's default dtype",
       r"only floating-point types are supported as the default type",
       cause="`torch.set_default_dtype` (and `set_default_tensor_type`) take floating-point dtypes only: modules, "
       "initialisers and autograd need float parameters, so an integer default (uint8 or int8 weights and "
       "training) is refused.",
       fix="Keep the default float32 (or bf16 / fp16 for the parameters); for an int8 / uint8 model use "
       "quantization (`torch.ao.quantization`, torchao, bitsandbytes), which stores integer weights and computes "
       "in float."),
    _e("no-promotion-assert", "mismatch", "an op that does not promote types got inputs of two dtypes",
       r"has_different_input_dtypes",
       cause="An op that does not promote dtypes in this torch (`addcmul`, `addcdiv`, `lerp` and other fused "
       "pointwise ops) got inputs of different dtypes, and TensorIterator's internal assert fires instead of a "
       "clear message: often an integer (int64, long) tensor such as a sign, direction or count beside float "
       "tensors, or a float64 scalar tensor beside float32.",
       fix="Cast the odd input to the others' dtype before the call (`direction.to(t0.dtype)`, `.float()`), or "
       "upgrade torch, whose newer releases promote or name the mismatch."),
    _e("converter-dtype-assert", "mismatch", "a checkpoint converter's source and target dtypes differ",
       r"dtype mismatch between (the )?source and target( state dicts?)?",
       cause="A checkpoint converter or exporter (NeMo's `export_ckpt`, Megatron and Hugging Face converters) "
       "checks that the source weights and the target model have the same dtypes, and they do not: the source "
       "checkpoint holds float32 weights while the target model was created in the config's half precision (bf16 "
       "/ fp16), or the other way round.",
       fix="Make the precisions match: create the target in the source's dtype (set its `torch_dtype` / "
       "`params_dtype` / precision to float32), or cast the source to the target's bf16 before converting."),
    _e("old-tensor-types", "mismatch", "tensor types mixed in one call on PyTorch before 0.4",
       r"invalid combination of arguments.{0,400}\btorch\.(cuda\.)?(Float|Long|Double|Half|Int|Byte)Tensor|"
       r"Expected obj\w* of type Variable\W{0,2}torch\W{0,2}(cuda\W)?\w+Tensor",
       context=r"\A(?=.*((Long|Int|Byte)Tensor|\bint(64|32)\b))(?=.*((Float|Double|Half)Tensor|torch\.(zeros|ones|rand\w*|"
               r"Tensor)\())",
       cause="Before PyTorch 0.4 every tensor type was its own class (FloatTensor, LongTensor, cuda.FloatTensor, "
       "wrapped in Variables) and ops took one only: an integer LongTensor (indices, labels, "
       "`torch.LongTensor(np_array)`) met a FloatTensor (what `torch.zeros` and `torch.randn` make) in one call "
       "such as `torch.cat`.",
       fix="Convert so that all match (`.float()` or `.long()`, `x.new_zeros(...)` / `torch.zeros_like(x)` for "
       "x's own type, `.cuda()` on every part), or upgrade PyTorch, which promotes mixed dtypes in most ops."),
    _e("dgl-kernel-half", "cpu-kernel", "a DGL graph kernel without a half-precision version",
       r"Feature data can only be float32 or float64|"
       r"\b(gather_mm|segment_mm|spmm|sddmm|gspmm|gsddmm|segment_reduce)\w*\.(cu|cc):\d+\]?:? Not supported dtype|"
       r"\A(?=.*\bdgl\b)(?=.*\bNot supported dtype\b)",
       "DGL's message-passing kernels (SpMM and SDDMM behind `update_all` and the graph convolutions, GatherMM and "
       "SegmentMM behind `RelGraphConv` and `HeteroLinear`) take only float32 and float64 features in older "
       "releases, so fp16/bf16 features from `.half()`, `torch.autocast` or a half-precision model fail there.",
       "Upgrade DGL to a release with half-precision kernels (built for your CUDA) and run the model under "
       "`torch.autocast`, or cast the features to float32 before the graph ops (`g.ndata['h'] = h.float()`) and "
       "back after."),
    _e("tf-no-kernel-dtype", "cpu-kernel", "TensorFlow has no kernel for this op in this dtype on this device",
       r"No OpKernel was registered to support Op '\w+'.{0,600}\bT=DT_(BFLOAT16|HALF|DOUBLE)\b|"
       # retold in words, with typographic quotes: "MaxPooling3D can not still work for bfloat 16 ...: No OpKernel"
       r"\A(?=.*No OpKernel was registered to support Op [‘'\"]?\w+)(?=.*\b(bfloat ?16|bf16|float16|fp16|half)\b)",
       cause="TensorFlow has no kernel for this op in this dtype on this device: in TF 2.x many GPU ops have no "
       "bfloat16 kernel outside XLA (bf16 was made for TPUs), and some have no half or double one; the "
       "`mixed_bfloat16` policy or a cast handed the op that dtype.",
       fix="On a GPU use the `mixed_float16` policy (keep `mixed_bfloat16` for TPUs), or compile with XLA "
       "(`jit_compile=True`), or upgrade TensorFlow; or cast that op's input with `tf.cast(x, tf.float32)`."),
    _e("tf-bf16-gpu-without-xla", "cpu-kernel", "bfloat16 in TensorFlow on a GPU outside XLA",
       r"\A(?=.*\b(mixed_bfloat16|tensorflow|keras|tf\.\w+)\b)(?=.*bfloat16\b)"
       r"(?=.*\b(GPUs?|A100|H100|A10G?|L4|RTX ?\d{4}|NVIDIA)\b)"
       r"(?=.*\b(empty|all zeros?|zeros|wrong|incorrect|garbage|slow(er|ly)?|(runs?|placed|executed) on (the )?CPU)\b)"
       r"(?!.*(out of memory|\bOOM\b|No OpKernel was registered))",
       cause="TensorFlow's bfloat16 was made for TPUs: on a GPU, outside XLA, many ops have no bfloat16 kernel or a "
       "poor one, so under the `mixed_bfloat16` policy (or a bfloat16 layer) such ops are placed on the CPU "
       "(slow), and some (the fused BatchNorm) return empty or wrong results instead of failing.",
       fix="Compile with XLA (`model.compile(..., jit_compile=True)`, `tf.function(jit_compile=True)`), which has "
       "GPU bfloat16 kernels, or use the `mixed_float16` policy on the GPU (keep `mixed_bfloat16` for TPUs), or "
       "upgrade TensorFlow."),
    _e("tf-conversion-dtype", "mismatch", "TensorFlow asked to convert a tensor to another dtype",
       r"Tensor conversion requested dtype (\w+) for Tensor with dtype (\w+)|"
       r"Incompatible type conversion requested to type \w+ for `?tf\.Variable of type \w+|"
       r"cannot assign (a )?\w*\.?float16 tensor to a \w*\.?float32 variable",
       # an initializer's tensor, or a saved model's config read by another Keras: the two versions disagree
       unless=r"(random_uniform|random_normal|truncated_normal):0|\bmodel_from_config\b",
       cause="TensorFlow does not convert dtypes implicitly: a tensor of one dtype went where another is required, "
       "such as the float64 that `/` (true division) or NumPy data makes where an int32 size or float32 weights "
       "are expected, an int64 variable read as int32, or a float16 tensor under a `mixed_float16` policy meeting a "
       "float32 one.",
       fix="Cast where the value is made: `tf.cast(x, tf.int32)` or `//` for integer division, `x.astype(np.float32)` "
       "for NumPy data; under a mixed precision policy cast to the layer's compute dtype, or set one float type "
       "(`tf.keras.backend.set_floatx('float32')`)."),
    _e("keras-floatx-half", "mismatch", "Keras' floatx set to a half-precision type",
       r"Unknown floatx type:? ['\"]?(bfloat16|float16|bf16|fp16)|"
       r"\A(?=.*indices must have an integer type)(?=.*\b(bfloat16|float16|floatx)\b)|"
       r"\A(?=.*set_floatx\(\s*['\"](bfloat16|float16)['\"]\s*\))(?=.*(Error|\bmust\b|expected))"
       r"(?!.*out of memory|.*\bOOM\b)",
       cause="`set_floatx` makes one float type every Keras variable's and conversion's default: older Keras "
       "refuses 'bfloat16' ('Unknown floatx type'), and with floatx bfloat16 or float16 some releases' "
       "`convert_to_tensor` turns integer inputs (indices, token ids, int32/int64 labels) into floats, which "
       "`take`, `Embedding` and gathers refuse; variables and optimizer state also stay in the half type.",
       fix="Leave floatx at 'float32' and set a mixed precision policy instead "
       "(`keras.mixed_precision.set_global_policy('mixed_bfloat16')`, or 'mixed_float16' with loss scaling): it "
       "computes in half and keeps variables in float32. Pass indices as int32, and upgrade Keras if it still "
       "casts integer inputs."),
    _e("tf-dtype-not-allowed", "cpu-kernel", "a TensorFlow op got a dtype outside its allowed list",
       r"DataType (\w+) not in list of allowed values|"
       # bf16 refused this way is a mixed-precision policy's story (generic-dtype's answer)
       r"Value for attr '\w+' of (half|float16|float64|double|u?int\d+) is not in the list of allowed values",
       cause="A TensorFlow op (or its kernel on this device) accepts only the dtypes the message lists and got "
       "another: float64 (NumPy's default, or kept for numerical stability) is not among them on a TPU, which has "
       "no float64, and integer or half inputs reach ops that take only float32.",
       fix="Cast to an allowed dtype where the data enters (`tf.cast(x, tf.float32)`, `x.astype(np.float32)`, "
       "`tf.keras.backend.set_floatx('float32')`), or run the part that needs float64 on the CPU / GPU instead of "
       "the TPU."),
    _e("obs-space-dtype", "mismatch", "an environment's observations in another dtype than its space",
       r"not contained within your env'?s observation space|\bObservation \(.{0,400}\) outside given space|"
       r"(obs|observation)s? (returned by|from) .{0,40}"
       r"(is|are) not within the observation space",
       context=r"float64|float32|dtype|type ?mismatch",
       cause="The environment returns observations in another dtype than its declared space: float64 arrays (NumPy's "
       "default) where the Box space is float32, or the reverse, and RLlib or gymnasium check that every "
       "observation lies in the space (newer RLlib releases refuse what older ones only warned about).",
       fix="Return observations in the space's dtype (`obs.astype(np.float32)`, or `self.observation_space.dtype`), "
       "or declare the space in the dtype the environment produces (`Box(..., dtype=np.float64)`)."),
    _e("autocast-fp32-ops", "autocast", "an op's output is float32 under autocast (or apex O1) by design",
       r"\A(?=.*\b(autocast|apex|opt_level\W{0,3}O1|amp)\b)(?=.*(\bnot (a )?half ?tensors?\b|"
       r"does(n'?t| not) respect (the )?autocast dtype|\b(outputs?|results?|returns?)\b[^.\n]{0,40}\b(float32|fp32)\b"
       r"[^.\n]{0,30}\b(upcast\w*|instead)\b|\b(sum|softmax|layer_norm)\b[^\n]{0,20}\bops?\b[^\n]{0,30}"
       r"\b(dtype|type) mismatch\b))",
       cause="Autocast (and apex's O1) does not cast the model: it runs eligible ops (matmul, linear, conv) in fp16 / "
       "bf16 and keeps ops on its float32 list (sum, softmax, layer_norm, norms, losses, exp, log) in float32, so "
       "their outputs, and the hidden states after a final LayerNorm, are float32 by design.",
       fix="Nothing is wrong; cast the result yourself if a half tensor is needed (`out.to(torch.float16)`), or cast "
       "the model (`model.half()`, apex O2 / O3) if every layer should run in half precision."),
    _e("te-activation-dtype", "mismatch", "a Transformer Engine layer got an input of another dtype than its weights",
       r"Data types for parameters must match when outside of autocasted region",
       cause="Transformer Engine layers (te.Linear, LayerNormLinear) check outside autocast that the input has "
       "their weights' dtype: an fp32 tensor (an FSDP2 `MixedPrecisionPolicy(output_dtype=torch.float32)` applied at "
       "a sharded submodule's boundary, an fp32 norm or router output) reached a bf16 TE layer, or the reverse.",
       fix="Cast back to the compute dtype before the layer (`x.to(layer.weight.dtype)`), keep the FSDP mixed "
       "precision policy's `output_dtype` at the compute dtype for inner modules, or run the step under "
       "`torch.autocast(device_type='cuda', dtype=torch.bfloat16)`."),
    _e("cupy-no-bf16", "backend", "CuPy has no bfloat16 dtype",
       r"\A(?=.*\bcupy\b)(?=.*\b(bfloat16|bf16)\b)(?=.*(not support|unsupported|不支持|no bfloat16|"
       r"Unsupported dtype|cannot (be )?convert))",
       cause="CuPy has no bfloat16 dtype, so a bf16 torch tensor cannot pass through CuPy (DLPack into a CuPy array, "
       "a weight broadcast or collective that goes through CuPy's NCCL, as Ray's collective group does).",
       fix="Send the bytes instead (`t.view(torch.int16)` and `.view(torch.bfloat16)` on the other side), use fp16 "
       "for that transfer, or broadcast with `torch.distributed` (NCCL takes bf16) instead of the CuPy path."),
    _e("julia-float-promotion", "mismatch", "Julia has no promotion rule between two float types",
       r"promotion of types (?P<a>\w*Float\w*) and (?!(?P=a)\b)\w*Float\w* failed to change any arguments",
       cause="Julia found no `promote_rule` between the two float types (a package's own type, such as Float8 or "
       "BFloat16, that defines none for the built-in Float16 / Float32 / Float64), so arithmetic mixing them fails.",
       fix="Convert one side explicitly (`Float32(x) * y`), or define the rule (`Base.promote_rule(::Type{Float8}, "
       "::Type{Float32}) = Float32`), or upgrade to a release of the package that defines it."),
    _e("autocast-disabled-half-inputs", "autocast", "a region with autocast disabled computes on fp16/bf16 tensors",
       r"\A(?=.*autocast\([^)\n]{0,60}enabled\s*=\s*False)(?=.*(\b(fp16|float16|half|bf16|bfloat16)\b[^.\n]{0,20}"
       r"\b(outputs?|inputs?|tensors?|activations?|logits|predictions?|features)\b|\b(runs?|ran|computed?|calculated?|"
       r"evaluated|done) in (fp16|float16|half|bf16|bfloat16)\b))",
       # a NaN or inf reported is told by the overflow entries (where it was born counts more than the region)
       unless=r"\w+Error\b|Traceback|\b(nan|inf)\b",
       cause="`torch.autocast(..., enabled=False)` only stops autocast from casting inside the region: tensors made "
       "before it under autocast stay fp16/bf16, so the ops inside (a loss, softmax / log_softmax, a KL or "
       "distribution term) run in half precision, the opposite of what the region was written for.",
       fix="Cast the inputs inside the region: `with torch.autocast('cuda', enabled=False): loss = "
       "criterion(pred.float(), target.float())`; autocast's own float32 list (softmax, log_softmax, losses) "
       "applies only while it is enabled."),
    _e("half-accumulation-accuracy", "overflow", "a reduction computed and stored in bf16 / fp16 losing accuracy",
       r"\A(?=.*(float16|fp16|half|bfloat16|bf16|b16)\b)(?=.*\b(cumsum|logsumexp|log_softmax|softmax|cross[_ ]entropy|"
       r"running sum|accumulat\w*|reduction))(?=.*\b(less accurate|inaccura\w*|precision bug|error vs|quantized|"
       r"precision loss|loses? precision)\b)",
       unless=EXCEPTION_NAMED,
       cause="The op computed and stored its intermediate results in bf16 / fp16 (a running sum, a logsumexp): bf16 "
       "keeps 8 mantissa bits and fp16 11, so each step rounds to that coarse grid and the rounding accumulates, "
       "where a float32 accumulator (as some CPU paths use) stays close to the reference.",
       fix="Upcast to float32 for the reduction and cast back (`x.float().cumsum(0).to(x.dtype)`, logits "
       "`.astype(jnp.float32)` inside the loss), or use a library release that accumulates in float32."),
    # float32 results compared with a tolerance at float32's own precision, across devices
    _e("fp32-test-tolerance", "overflow", "a float32 result compared with a tolerance tighter than float32 holds",
       r"\A(?=.*(Not equal to tolerance rtol=|Arrays are not (almost )?equal|Max (absolute|relative) difference|"
       r"\bassert [\d.]+\.{3} == [\d.]+ ± [\d.]+))(?=.*(\bfloat32\b|\bfp32\b|\bsingle precision\b|"
       r"\bfail\w* on (the )?GPU\b))(?!.*(half|float16|fp16|bf16|bfloat16))",
       "float32 keeps about 7 significant digits, and a GPU (or another library build) reduces in another order "
       "than the CPU where the reference was made, so results agree only to about 1e-6 relative, less over long "
       "reductions; a test tolerance at or below that fails on other hardware although nothing is wrong. On Ampere "
       "or newer GPUs TF32 (on by default for cuDNN convolutions) widens the gap to about 1e-3.",
       "Loosen the tolerance to what float32 holds for that computation (rtol about 1e-5, up to 1e-3 for long "
       "reductions), make the reference in float64, or compare on the device the reference came from; with TF32 "
       "set `torch.backends.cudnn.allow_tf32 = False` and `torch.backends.cuda.matmul.allow_tf32 = False` for the "
       "comparison."),
    _e("mixed-precision-worse-in-words", "overflow", "fp16 mixed precision training ending worse than fp32",
       r"\A(?=.*\b(fp32|float32)\b[^.\n]{0,60}\b(converg\w*|works?|fine|good|well)\b)"
       r"(?=.*\bmixed[ -]precision\b[^.\n]{0,80}\b(bad|worse|diverg\w*|drops?|lower|poor)\b)",
       unless=EXCEPTION_NAMED + r"|\b(bf16|bfloat16)\b",
       cause="fp16 mixed precision without loss scaling (or with a fixed scale too small): small gradients underflow "
       "to zero in fp16, so training stalls or drifts where fp32 converges.",
       fix="Enable dynamic loss scaling (`torch.amp.GradScaler`, a framework's `\"loss_scaling\": \"Backoff\"` / "
       "dynamic scale), or train in bf16 where the hardware has it."),
    _e("half-tolerance", "overflow", "a half-precision result compared with float32's tolerance",
       r"Greatest (relative|absolute) difference:?.{0,160}\(up to [\d.e+-]+ allowed\)|Tensor-likes are not close|"
       r"\bNot equal to tolerance rtol=|Tensors failed to compare as equal|"
       # numpy's assert_allclose dump: float16 values beside a tolerance of 1e-5
       r"\A(?=.*(\b(assert_allclose|assert_array_almost_equal|allclose)\b|\brtol\s*=))(?=.*\batol\s*=\s*1e-0?[5-9]\b)"
       r"(?=.*(half|float16|fp16)\b)|"
       # bf16 outputs compared with allclose's default tolerance (tensor parallel, another op order)
       r"\A(?=.*\b(torch\.)?allclose\()(?=.*\b(bfloat16|bf16)\b)(?=.*\b(parallel\w*|DTensor|incorrect|differ\w*|"
       r"mismatch\w*)\b)",
       context=r"(?<![A-Za-z0-9_])(bf16|bfloat16|BFloat16|fp16|float16|half|Half)(?![A-Za-z0-9_])|"
               r"_(half|bfloat16|bf16|float16|fp16)\b",
       cause="bf16 keeps about 3 significant decimal digits and fp16 about 3 to 4, so a result computed in them "
       "differs from a float32 reference by up to about 1e-2 relative; a check with float32's tolerance (rtol "
       "1.3e-6) fails although nothing is wrong; an inf difference means one side overflowed past fp16's 65504 "
       "(a long reduction computed in fp16 where the other upcasts to float32).",
       fix="Compare with tolerances for the dtype (`torch.testing.assert_close(a, b, rtol=1.6e-2, atol=1e-5)` for "
       "bf16, `rtol=1e-3, atol=1e-5` for fp16, which `assert_close` picks itself when both sides have that dtype), or "
       "compute the reference in the same dtype."),
    # float32 rotary tables promote half q / k to float32, which then meets a half value or a kernel's dtype check
    _e("rope-output-promoted", "mismatch", "float32 rotary tables promoted the half query / key to float32",
       r"\A(?=.*\b(rope|rotary|RotaryEmbedding|apply_rotary_pos_emb|sin and cos|cos and sin)\b)"
       r"(?=.*(expected scalar type (BFloat16|Half) but found Float|expected scalar type Float but found "
       r"(BFloat16|Half)|\b(float32|fp32)\b[^\n]{0,80}\b(cast|promot|incompatib|mismatch)\w*|\b(cast|promot)\w*\b"
       r"[^\n]{0,30}\b(half|fp16|bf16)\b[^\n]{0,15}\bto (float32|fp32)))",
       "The rotary tables (cos / sin, the rotary output) are float32 while the model runs in fp16 / bf16: float32 "
       "cos / sin promote the rotated query and key to float32 (type promotion, an upcast), so attention then meets "
       "float32 q / k beside a half value or a fused kernel's dtype assertion fails.",
       "Cast back after the rotation: `q_embed, k_embed = q_embed.to(q.dtype), k_embed.to(k.dtype)` (or "
       "`cos, sin = cos.to(x.dtype), sin.to(x.dtype)`, `.type_as(q)`), so the rotary output has the same dtype as "
       "the activations; upgrade the library when its model code does this."),
    _e("rope-half-precision", "overflow", "rotary embeddings computed in fp16 / bf16",
       r"(rotary|\brope\b|inv_freq|cos_cached|sin_cached)\w*[^\n]{0,120}\b(wrong|incorrect|inaccura\w*|precision|"
       r"imprecis\w*)\b|"
       r"(rotary|\brope\b|inv_freq|cos_cached|sin_cached|cos_sin_cache|sin_term|cos_term|positional (embedding|"
       r"encoding)s?|\bsinusoidal\b|position embedding|\bcos and sin\b|\bRope implementation\b)\w*[^\n]{0,300}"
       r"\b(los(e|es|t|ing)|collaps\w*|distort\w*|not (accurately )?represent\w*|cannot be (accurately )?"
       r"represented|fraction bits|exceeds?|non-fp32|converted|converts|changed|becomes?|became|recomput\w* into|"
       r"relative error|quantiz\w*|rounded)\b|"
       r"(position embedding|位置编码|inv_freq|rotary)[^\n]{0,40}buffer[^\n]{0,40}(bfloat16|bf16|fp16|float16)|"
       r"\barange\b[^\n]{0,60}\b(bf16|bfloat16|fp16|float16|half)\b[^\n]{0,60}\b(not accurate|inaccurate|wrong|"
       r"incorrect|repeated|duplicat\w*)|\barange\b[^\n]{0,60}\b(long sequences?|not accurate|inaccurate|wrong)\b"
       r"[^\n]{0,40}\b(bf16|bfloat16|fp16|float16|half)\b|"
       r"\barange\b[^\n]{0,40}\bdtype\s*=\s*(torch\.)?float\b[^\n]{0,40}\binteger ranges?\b|"
       r"\bFP32 RoPE\b|\brotary\b[^\n]{0,10}\bin float32\b|cos_sin_cache should be float32",
       context=LOW_DTYPE_WORD + r"|\bFP32 RoPE\b|\brotary\b[^\n]{0,10}\bin float32\b|cos_sin_cache should be "
       r"float32|\bzero\.Init\b|non-fp32",
       unless=EXCEPTION_NAMED,
       cause="The rotary embedding's `inv_freq`, position indices or cos/sin cache (or a sinusoidal position "
       "table) were computed or stored in fp16 / bf16: registered as buffers, they are cast with the model "
       "(`.half()`, `.to(torch.bfloat16)`, FSDP mixed precision, DeepSpeed `zero.Init` creating tensors in the "
       "training dtype), positions were built with `torch.arange(..., dtype=float16)` or `.type_as(inv_freq)`, or "
       "the angles were computed under autocast. bf16 holds integers exactly only up to 256 and fp16 up to 2048, so "
       "positions and large angles (a large rope base) lose their fraction bits, distant positions collapse to one "
       "embedding and the cache is wrong at long positions (exported, an fp16 Range op is not supported either).",
       fix="Build positions as integers and compute the rotary `inv_freq`, the angles and the cos/sin cache in fp32 "
       "(`torch.arange(n, dtype=torch.int64).float()`, `.float()`, under `torch.autocast(..., enabled=False)`), "
       "keep `inv_freq` out of the cast (a plain float32 attribute, or recompute it in fp32 after `.to()`), and cast "
       "only the result to the activations' dtype (`.to(x.dtype)`); kernels such as flashinfer's take the cos/sin "
       "cache in float32."),
    _e("half-integer-rounding", "overflow", "integer values (codes, indices, counts) rounded in bf16 / fp16",
       r"\A(?=.*(\b(codebook|codes?|indices|index|ids|levels|counts?)\b[^\n]{0,80}\b(utili[sz]ation|usage|collaps\w*|"
       r"collid\w*|duplicat\w*)\b|\b(can ?not|can't|fails? to|unable to) (utili[sz]e|use|represent|reach) "
       r"((some|all|many|the) )?(codes|indices|levels|ids)\b|"
       r"\b(labels?|class(es)? (ids?|indices)|number of classes)\b[^.\n]{0,80}\b(exceed\w*|beyond|outside|larger "
       r"than|greater than)\b[^.\n]{0,30}\b(range|max\w*)\b|"
       r"\b(\w*_?ids?|labels?|indices|index|integers?|counts?|codes?)\b[^\n]{0,80}\b(lose|loses|lost|losing) "
       r"((their|its|some) )?precision\b|"
       r"dtype=torch\.(bfloat16|float16)\)\.(to\(torch\.(int(8|16|32|64)|long)\)|long\(\)|int\(\))))",
       context=LOW_DTYPE_WORD,
       unless=EXCEPTION_NAMED + r"|out of memory",
       cause="bf16 keeps 8 significant bits and holds integers exactly only up to 256 (fp16: 11 bits, up to 2048): "
       "integer-valued tensors computed or stored in half precision (a quantizer's codes and levels, indices, token "
       "or position ids, counts) round to their neighbours, so distinct codes collide and a codebook's "
       "utilisation drops, while float32 keeps them apart.",
       fix="Compute integer-valued quantities in float32 or an integer dtype: run the quantization or rounding step "
       "on `.float()` inputs under `torch.autocast(..., enabled=False)` and cast only its output back; keep indices "
       "and counts as int64."),
    _e("warp-array-dtype", "mismatch", "a Warp kernel given an array of another dtype than it declares",
       r"argument '\w+' expects an array with dtype=<class '[\w.]+'>\s+but passed array has dtype=|"
       r"\A(?=.*\b(wp\.\w+|warp)\b).*\bIncompatible array data types\b",
       "NVIDIA Warp checks every kernel argument's array dtype at launch and never converts: the array was built "
       "with another dtype than the kernel or destination declares (an int32 or float32 array where a vector "
       "type such as `wp.vec3i` or `wp.spatial_vector` is declared, a bool, "
       "int8 or uint8 mask where int32 is, float64 NumPy data where float32 is); some Warp releases also kept the "
       "source dtype when `wp.array(a, dtype=wp.vec3i)` was given a plain (N, 3) array, without conversion.",
       "Build the array in the declared dtype: convert the data first (`a.astype(np.int32)`, "
       "`mask.astype(np.int32)`, `a.astype(np.float32)`) and pass `dtype=` matching the kernel (`wp.array(faces."
       "reshape(-1, 3), dtype=wp.vec3i)`), or upgrade Warp where `wp.array(..., dtype=...)` performs the "
       "conversion."),
    _e("warp-array-view", "mismatch", "a Warp array viewed as a dtype of another size",
       r"cannot create an array view with dtype \w+ from source dtype \w+",
       "`array.view(dtype)` reinterprets the bytes in place, so it needs elements of the same size: an int64 index "
       "array (8 bytes each) cannot be viewed as int32 (4 bytes), the values must be converted.",
       "Convert the values instead of viewing them (`wp.array(a.numpy().astype(np.int32), dtype=wp.int32)` or a "
       "small conversion kernel), or pass int32 indices from the start."),
    _e("warp-builtin-mixed-scalars", "mismatch", "a Warp built-in given a vector and a scalar of another precision",
       r"Couldn't find a function '\w+' compatible with the arguments '[^']*\b(float(16|32|64)|vec\d[hfd]|"
       r"mat\d\d[hfd]|quat[hfd]|int(32|64))\b[^']*'",
       "Warp's built-in functions (`mul`, `add`, `dot`, ...) have overloads only for arguments of one scalar type "
       "and never promote: a float32 vector (`vec3f`) or value met a float64 (a NumPy float64 or a double read from "
       "a file), or an int where a float is declared.",
       "Cast the odd argument to the other's scalar type (`wp.float32(m)`, `float(np.float32(m))`, `wp.vec3f(v)`), "
       "or keep the data in float32 from where it is loaded (`np.asarray(x, dtype=np.float32)`)."),
    # default_collate: Python floats become float64 tensors
    _e("collate-python-float64", "mismatch", "the DataLoader's collate turned Python floats into float64",
       r"\A(?=.*\b(default_collate|DataLoader|dataloader)\b)"
       r"(?=.*\b(DoubleTensor|torch\.float64|float64|torch\.double)\b)"
       r"(?=.*\b(type|dtype|changed?|converts?|became|becomes)\b)",
       unless=EXCEPTION_NAMED,
       cause="`default_collate` keeps the dtype of tensors and NumPy arrays but turns Python float scalars into "
       "float64 (DoubleTensor), and NumPy arrays of float64 stay float64, so a Dataset returning Python floats or "
       "default NumPy arrays yields float64 batches.",
       fix="Return float32 from `__getitem__` (`torch.tensor(x, dtype=torch.float32)`, `np.float32` arrays), or cast "
       "in a custom `collate_fn` or after loading (`batch.float()`)."),
    _e("float-double", "mismatch", "float64 (Double) data meets float32 weights",
       r"(?=[^\n]*(Double|double|float64))(?=[^\n]*(\b|(?<=CUDA)|(?<=CPU))(Float|float|float32)(Tensor|Type)?\b)"
       r"(?![^\n]*(Half|BFloat16|bfloat16|float16))[^\n]*\b(dtype|scalar type|type)\b|"
       r"expected (Double|Float) tensor \(got (Float|Double) tensor\)|\b(Double did not match Float|Float did not "
       r"match Double)\b|"
       r"\b(float64|double)\W{0,2} (inputs?|weights?|tensors?|data|paths?)\b[^.\n]{0,60}\b(dtype|data ?type) "
       r"(mismatch|error)|"
       r"\b(crash\w*|fails?|errors?|throws?)\b[^.\n]{0,30}\b(when|with|on|for)\b[^.\n]{0,10}\b(float64|double)\W{0,2} "
       r"(inputs?|actions?|observations?|obs|features?|arrays?|targets?|rewards?)\b|"  # told in words
       # a type mismatch reported beside a printout of the float64 input
       r"\A(?=.*\b(type|dtype) mismatch\b)(?=.*\bdtype=torch\.(float64|double)\b)(?!.*\b(half|float16|bfloat16)\b)|"
       r"\bexpected (np\.|numpy\.|torch\.)?float32 (arrays?|tensors?|inputs?|data)\b[^\n]{0,20}\bgot (np\.|numpy\.|"
       r"torch\.)?float64\b|"
       r"invalid combination of arguments - got \(torch\.(cuda\.)?DoubleTensor\).{0,200}"
       r"\(torch\.(cuda\.)?FloatTensor other\)|"
       r"invalid combination of arguments - got \(torch\.(cuda\.)?FloatTensor\).{0,200}"
       r"\(torch\.(cuda\.)?DoubleTensor other\)",
       "A float64 (Double) tensor met float32 (Float) weights: tensors built from NumPy arrays or Python data "
       "default to float64 (`torch.from_numpy`, `torch.tensor(np_array)`; NumPy and SciPy functions such as filters "
       "and resampling return float64 even for float32 input), or part of the model was `.double()`.",
       "Cast the data to float32 where it enters: `torch.from_numpy(a).float()`, `a.astype(np.float32)`, "
       "`torch.tensor(a, dtype=torch.float32)`; use `model.double()` only if you want float64 throughout, and then "
       "`torch.set_default_dtype(torch.float64)` so that every tensor a library creates is float64 too (one dtype "
       "for all, or `.to(x.dtype)` at the boundary); a buffer that code allocates with a hard-coded dtype must match "
       "the data: create it with the input's dtype (`torch.empty(n, dtype=y0.dtype)`).",
       # a device without float64 instead; NumPy's removed `np.float` alias
       unless=r"(does ?n[o']t|does not|do not) support (float64|double)|module 'numpy' has no attribute|"
       r"\b(arrays?|inputs?|tensors?) must (be )?(of )?type (float32|fp32)\b"),
    _e("integer-tensor-division", "out-buffer", "`/` between integer tensors deprecated or refused (torch 1.5, 1.6)",
       r"Integer division of tensors using div or / is (no longer supported|deprecated)",
       "torch 1.5 warned that `/` between integer tensors is deprecated and 1.6 refused it (it floor-divided before "
       "and divides truly from 1.7), "
       "so code that divides integer tensors fails there: averaging a state dict or checkpoints divides every entry, "
       "including integer ones such as BatchNorm's `num_batches_tracked`, and index or count arithmetic does too.",
       "Say which division is meant: `torch.floor_divide(a, b)` / `a // b` for integers, `torch.true_divide(a, b)` "
       "or `a.float() / b` for a float result; when averaging state dicts, average only floating entries "
       "(`if v.is_floating_point()`) and keep integer ones from one checkpoint."),
    _e("assigned-grad-dtype", "mismatch", "a gradient assigned to `.grad` in another dtype than its parameter",
       r"assigned grad has data of a different type",
       "A gradient set by hand (`p.grad = g`: an aggregated or averaged gradient, one computed with NumPy or "
       "received from another process, a master copy's gradient) has another dtype than its parameter, float64 "
       "from NumPy or a secure-aggregation step against float32 parameters, or fp32 against bf16, and torch refuses "
       "to store it.",
       "Cast it to the parameter's dtype (and device) when assigning: `p.grad = g.to(dtype=p.dtype, "
       "device=p.device)`; build aggregated gradients in the parameters' dtype."),
    # a check against a legacy tensor type, which holds one dtype on one device
    _e("legacy-type-check", "mismatch", "a check for a legacy tensor type (`torch.FloatTensor`) failed",
       r"instead of <class 'torch\.(cuda\.)?\w+Tensor'>|"
       r"<class 'torch\.(cuda\.)?\w+Tensor'>[^\n]{0,20}\binstead of <class 'torch\.(cuda\.)?\w*Tensor'>|"
       r"\A(?=.*\bisinstance\([^)\n]*torch\.(cuda\.)?\w+Tensor\))(?=.*\bFalse\b)(?=.*\b(float64|Double|half|"
       r"float16|bfloat16|cuda)\b)",
       "A check against a legacy tensor type such as `isinstance(x, torch.FloatTensor)` is true only for a float32 "
       "tensor on the CPU: float64 data (what `torch.from_numpy` gives for NumPy's default dtype), a half or bf16 "
       "tensor, or a tensor on the GPU (`torch.cuda.FloatTensor`) fails it although it is a floating-point tensor.",
       "Pass float32 tensors on the device the check wants (`torch.from_numpy(x).float()`, "
       "`x.astype(np.float32)`); in your own code test the dtype itself (`x.dtype == torch.float32`, "
       "`x.is_floating_point()`) instead of the legacy type."),
    _e("sort-bool-cuda", "cpu-kernel", "sorting a bool tensor on CUDA",
       r"Sort currently does not support bool dtype on CUDA",
       "torch before 1.10 had no CUDA sort for bool tensors, and code sorted a bool one: a score or mask tensor "
       "built as bool (a metric's detection scores when there are no predictions, a comparison result).",
       "Sort a numeric tensor: cast first (`scores.float()`, `mask.to(torch.uint8)`), or upgrade torch; in a "
       "library (torchmetrics' mean average precision) upgrade to the release that builds its scores as float."),
    _e("metric-preds-not-float", "index", "a metric given a bool or integer prediction where it takes scores",
       r"Expected argument `?preds`? to be an? floating tensor with probability/logit scores, but got tensor with "
       r"dtype torch\.(bool|u?int\d+|long)",
       "A torchmetrics curve or ranking metric (AUROC, average precision, AUPRO) takes the predictions as float "
       "probabilities or logits, and got a thresholded mask or labels (bool or integer): a predicted mask where the "
       "score map was meant.",
       "Pass the scores (the anomaly map, `logits.sigmoid()`, `probs`) rather than the thresholded prediction, or "
       "cast a mask that is meant as scores (`pred.float()`)."),
)

# dtype mismatches with a known story (needs evidence in the text)
STORIES = (
    # told in words: a perplexity kept in fp16
    _e("perplexity-fp16-overflow", "overflow", "a perplexity (exp of the loss) past fp16's range",
       r"\A(?=.*\b(ppl|perplexity)\b)(?=.*\b(float16|fp16|half)\b)(?=.*\b(exceed\w*|overflow\w*|inf)\b)",
       unless=EXCEPTION_NAMED,
       cause="Perplexity is exp(loss), and fp16 tops out at 65504, so a loss above about 11 gives a perplexity that "
       "overflows to inf when it is computed or stored in float16.",
       fix="Compute and keep the perplexity (and the accumulated loss) in float32: `torch.exp(loss.float())`, or "
       "`math.exp(loss.item())`."),
    # told in words: NaN after merging an adapter in another dtype than the base was loaded for
    _e("merge-dtype-nan", "overflow", "NaN weights after merging an adapter in another dtype",
       r"\A(?=.*\bmerg\w*)(?=.*\b(adapters?|lora)\b)(?=.*\b(nan|NaN)s?\b)(?=.*\b(torch dtype|dtype|float16|bfloat16|"
       r"fp16|bf16)\b)",
       unless=EXCEPTION_NAMED + r"|\bsafe_merge\b",
       cause="The adapter was merged into a base loaded in another dtype than the one the merge was written for "
       "(a notebook that merges in float16): `merge_and_unload` adds B·A in the base's dtype, and in that dtype the "
       "merged weights came out NaN (an overflow or an unsupported cast on the way).",
       fix="Load the base with the dtype the merge expects (`torch_dtype=torch.float16`, or float32 for a faithful "
       "merge) before `merge_and_unload`, and check the merged weights with `torch.isfinite`."),
    # told in words: what `.half()` does to a metric's accumulated states
    _e("metric-states-half", "mismatch", "`.half()` on a module casts its metric states to fp16",
       r"\A(?=.*(\.half\(\)|\bfloat16\b|\bfp16\b))(?=.*\bmetrics?\b[^.\n]{0,40}\bstates?\b)",
       unless=EXCEPTION_NAMED,
       cause="`module.half()` (and DeepSpeed's fp16, which calls it) casts every floating tensor registered on the "
       "module, torchmetrics' metric states included, to float16, so accumulated sums and counts lose precision "
       "or overflow.",
       fix="Upgrade torchmetrics (its Metric ignores `.half()` / `.float()` / `.double()` and changes state dtypes "
       "only through `set_dtype`), keep metrics outside the module cast, or call `metric.set_dtype(torch.float32)` "
       "after casting the model."),
    # told in words: a continuous target cast to an integer type
    _e("float-target-cast-long", "mismatch", "a continuous target cast to an integer dtype",
       r"\A(?=.*\b(target|label|y)s?\s*=\s*(target|label|y)s?\.long\(\))(?=.*\b(float|regression|continuous|"
       r"truncat\w*|wrong)\b)",
       unless=EXCEPTION_NAMED,
       cause="A continuous (regression) target is converted with `.long()`, which truncates it to int64 before the "
       "loss, so the loss and metrics are silently wrong.",
       fix="Keep regression targets floating point: `target = target.float()` (float32, the model's dtype); "
       "`.long()` is for class indices only."),
    # told in words: fp16 autocast and no loss scaler in the training loop
    _e("fp16-autocast-no-scaler", "scaling", "fp16 autocast without a GradScaler",
       r"\A(?=.*\bautocast\b)(?=.*(\b(no|without|missing|never|forgot\w*)\b[^.\n]{0,30}\b(grad)?scaler\b|"
       r"grep -c GradScaler[^\n]*\n\s*0\b))(?=.*\b(fp16|float16|half)\b)",
       unless=EXCEPTION_NAMED,
       cause="Autocast on CUDA defaults to float16, and the loop has no GradScaler: small gradients underflow to "
       "zero (flush) in fp16 backward, so parts of the loss stop learning and others may overflow to inf.",
       fix="Autocast with `dtype=torch.bfloat16` on Ampere or newer (no scaler needed), or add a GradScaler for "
       "fp16 (`scaler.scale(loss).backward(); scaler.step(opt); scaler.update()`)."),
    # an integer arange fed to a float layer, the message not naming the dtypes
    _e("arange-into-linear", "mismatch", "an integer `torch.arange` tensor fed to a float layer",
       r"\A(?=.*(mat1 and mat2 must have the same dtype|expected m1 and m2 to have the same dtype))"
       r"(?=.*torch\.arange\(\s*-?\d+\s*(,\s*-?\d+\s*){0,2}\))(?!.*(half|bfloat16|float16|\bbf16\b|\bfp16\b))",
       "`torch.arange` with integer bounds makes an int64 (Long) tensor, and it was fed to a float32 layer "
       "(`nn.Linear`), whose matmul needs both operands in one floating dtype.",
       "Make the input float: `torch.arange(0, 9, dtype=torch.float32)` or `x.float()` before the layer."),
    # a helper that rebuilds a model returns it in the default dtype, told in words
    _e("rebuilt-in-default-dtype", "mismatch", "a model rebuilt by a helper comes back in the default dtype",
       r"\b(returns?|gives?|produces?|outputs?)\b[^.\n]{0,20}\W(float32|fp32)\W{0,2} (models?|modules?|tensors?|"
       r"outputs?)\b[^.\n]{0,60}\b(input|original|source)\b[^.\n]{0,30}\b(float64|double|fp64)\b|"
       r"\A(?=.*\bdown-?(convert|cast)\w* (\w+ ){0,3}to \W?(float32|fp32)\b)(?=.*\b(float64|double|fp64)\b)",
       "A helper that rebuilds or copies a model (a head remover, a converter, a `from_config` reconstruction) "
       "creates the new modules under torch's default dtype, float32 unless `torch.set_default_dtype` says "
       "otherwise, and loads the weights into them, so a float64 (or bf16 / fp16) model comes back float32: the "
       "values are cast silently and the precision of the input is lost.",
       "Cast the result back to the input's dtype (`new = new.to(next(old.parameters()).dtype)`), call the helper "
       "with the default dtype set to the model's (`torch.set_default_dtype(torch.float64)` around it), or fix the "
       "helper to create its modules with the input model's dtype."),
    # float32 is the low precision here: scientific code that needs float64
    _e("fp32-needs-fp64", "overflow", "a computation that float32 is too coarse for, told as fine in float64",
       r"\A(?=.*\b(nans?|infs?|diverg\w*|blows? up|wrong|incorrect|inaccurate)\b)"
       r"(?=.*\b(float32|fp32|single[- ]precision)\b)"
       r"(?=.*(\b(float64|fp64|double[- ]precision|x64)\b\W{0,2}[^.\n]{0,60}"
       r"\b(works?|fine|won'?t|no (problems?|nans?|issues?)|solves?|fixe[sd]|disappears?)\b|"
       r"\b(only works?|works only) (with|in|under) \W?(float64|fp64|double)\b|"
       # float32 named as JAX's default, the precision the report blames
       r"\b(float32|fp32)\W{0,3}\(?(the )?JAX'?s? default\b))|"
       # L-BFGS whose losses go to NaN or 1e+12 and beyond
       r"\A(?=.*\bL-?BFGS\b)(?=.*(\bnan\b|\de\+(1[2-9]|[2-3]\d)\b|\bdiverg\w*))",
       "float32 keeps about 7 significant digits, and this computation needs more: code that subtracts nearly equal "
       "numbers, divides by small differences or builds curvature from them (L-BFGS's curvature pairs and line "
       "search, PINN residuals of high-order derivatives, exchange-correlation functionals at small densities, "
       "Cholesky of ill-conditioned matrices) loses them in float32 and gives NaN, inf or wrong results that float64 "
       "does not; scientific libraries (DeepXDE, JAX with `jax_enable_x64`, GPyTorch) run such code in float64 for "
       "this reason, and fp16/bf16 are further still from it.",
       "Run that part in float64: `torch.set_default_dtype(torch.float64)` before building the model, DeepXDE's "
       "`dde.config.set_default_float('float64')`, JAX's `jax.config.update('jax_enable_x64', True)` (on a GPU "
       "without fast float64, only the sensitive part); or condition it better (an eps, a clamp, rescaled inputs), "
       "and keep half precision out of it.",
       unless=r"out of memory|half|fp16|bf16|float16|bfloat16|autocast|mixed precision"),
    _e("zero-dim-promotion", "overflow", "a 0-dim fp32 tensor cast down to an fp16 tensor's dtype and overflowing",
       r"\A(?=.*dtype=torch\.(float16|half)\))(?=.*torch\.tensor\(\s*-?[\d.]+(e[+-]?\d+)?\s*,\s*"
       r"dtype=torch\.float(32|64)\))(?=.*(?<![A-Za-z0-9_])(inf|INF|Inf|nan|NaN)(?![A-Za-z0-9_]))",
       "Type promotion ranks a 0-dim tensor like a Python scalar: an op between an fp16 tensor with dimensions and a "
       "0-dim float32 tensor of the same category runs in fp16, so the scalar's value is cast to fp16 first, and "
       "one above 65504 (65536) becomes inf; a 1-element float32 tensor with a dimension would have promoted the "
       "result to float32.",
       "Cast the fp16 operand up before the op (`x.float() * s`), or make the scale a 1-d tensor or keep it within "
       "fp16's range (scale after the op); `torch.result_type(a, b)` shows the dtype an op will use."),
    # a typed store (a database schema, an Arrow column) of float64 given float32 vectors, or the reverse
    _e("float-array-width", "mismatch", "a float32 array where a float64 one is expected (or the reverse)",
       r"expected \w*\(?Float64Array\)?,? (but )?got Float32Array|expected \w*\(?Float32Array\)?,? (but )?got "
       r"Float64Array",
       "The store's field is typed with one float width and the vectors come in the other: embedding models return "
       "float32 vectors, while a field declared as plain Float maps to float64 (Float64Array), so the write is "
       "refused.",
       "Convert before writing (`vec.astype(np.float64)`, or the store's float32 type for the field), or upgrade the "
       "store if it should coerce float32 to float64 itself."),
    _e("legacy-cpu-half-collate", "cpu-kernel", "a CPU HalfTensor built in the DataLoader of an old torch",
       r"torch\.HalfTensor constructor received an invalid combination of arguments - got \(torch\.HalfStorage\)",
       "In that torch float16 on the CPU was a storage type with almost no operations (not supported for tensors "
       "there), so the DataLoader's collate could not build a CPU HalfTensor from the workers' shared HalfStorage.",
       "Keep CPU data in float32 in the Dataset and DataLoader, and convert on the GPU (`batch.cuda().half()`), or "
       "upgrade torch."),
    _e("int-to-float32-rounding", "overflow", "large integers rounded when cast to float32",
       r"\A(?=.*\b(u?int(32|64)|UInt(32|64)|Int(32|64)|u32|u64|i32|i64)\b)(?=.*\b(float32|Float32|f32)\b)"
       r"(?=.*cast)(?=.*\b\d{8,}(\.0)?\b)",
       unless=EXCEPTION_NAMED,
       cause="float32 has a 24-bit mantissa, so integers above 16,777,216 (2^24) are not all representable: casting "
       "large int32 / uint32 / int64 values to float32 rounds them (4294967295 becomes 4294967296); the cast is "
       "lossy by design.",
       fix="Cast to float64 (exact up to 2^53) or keep the values integer or decimal when they must stay exact."),
    _e("numpy-nulp-float16", "cpu-kernel", "NumPy's ulp-based comparison without float16 support",
       r"\A(?=.*\b(assert_array_almost_equal_nulp|assert_array_max_ulp|nulp_diff|integer_repr)\b)"
       r"(?=.*\b(float16|np\.half|fp16)\b)",
       "`numpy.testing`'s ulp comparisons (`assert_array_almost_equal_nulp`, `assert_array_max_ulp`) built their "
       "integer representation for float32 and float64 only, so float16 inputs were not supported there (a "
       "ValueError when the values differ).",
       "Upgrade NumPy (1.15 added float16), or compare float16 arrays as float32 (`x.astype(np.float32)`) with an "
       "explicit tolerance."),
    _e("legacy-half-stateless", "cpu-kernel", "a HalfTensor without the functions an op needs (torch before 0.4)",
       r"Type (torch\.)?(cuda\.)?HalfTensor doesn'?t implement stateless methods",
       "In torch before 0.4 HalfTensor was not supported by many functions: the stateless forms (`torch.mm`, used by "
       "`F.linear`'s backward) were not implemented for it.",
       "Upgrade torch, or keep that layer (and its gradients) in fp32 there."),
    _e("plot-half-values", "cpu-kernel", "fp16 values handed to a plotting or image-logging call",
       r"Unsupported dtype\b[^\n]{0,80}(tb_figure|figure|plot\w*|imshow|add_image|add_figure)\b|"
       r"\b(tb_figure|imshow|add_figure)\b[^\n]{0,80}Unsupported dtype",
       "Under mixed precision the tensors logged as figures (alignments, spectrograms) are float16, and matplotlib / "
       "TensorBoard's image writers do not accept float16 arrays.",
       "Cast to float32 before plotting or logging (`x.float().cpu().numpy()`)."),
    _e("half-count-overflow", "overflow", "a sum or count over many elements accumulated in fp16",
       r"\A(?=.*\b(scatter|segment_\w+|scatter_mean|index_add|reduce=.mean.|max\(\)\.backward)\b)"
       r"(?=.*(half|float16|fp16)\b)(?=.*\b(different results?|wrong|garbage|incorrect|zero gradients|all-zero)\b)",
       unless=EXCEPTION_NAMED,
       cause="The reduction accumulates its sum (and its count) in fp16: fp16 holds at most 65504 and counts integers "
       "exactly only up to 2048, so over many elements the sum or count overflows or rounds, giving garbage or "
       "zeros where float32 is right.",
       fix="Reduce in float32 (`scatter(src.float(), idx, reduce='mean').half()`), or upgrade to a release that "
       "accumulates half reductions in float32."),
    _e("sparse-indices-values-device", "device", "a sparse tensor's indices and values on different devices",
       r"(Values|values) and (crow_|col_|ccol_|row_)?indices need to be on the same device",
       "A sparse tensor's indices and values ended up on different devices: built from index and value tensors on "
       "two devices, or by a torch path that moved one and not the other (`empty_like` of a CSR tensor with "
       "`device=` kept the indices where they were).",
       "Move the sparse tensor as a whole (`x.to('cuda')`) before such ops, build it from indices and values on one "
       "device (pass `device=`), or upgrade torch."),
    _e("sparse-extension-cpu-kernel", "device", "a sparse / scatter extension's CPU kernel given a GPU tensor",
       r"\b(mat|src|other|index|rowptr)\.device\(\)\.is_cpu\(\) INTERNAL ASSERT FAILED|\bmust be CPU tensor\b",
       "The extension picked its CPU kernel because one operand (a SparseTensor such as `adj_t`, an index) is on the "
       "CPU, while another is on the GPU: the operands are on different devices, not the same device.",
       "Move every operand to one device (`adj_t = adj_t.to(device)` along with `x`), e.g. with the data object "
       "(`data.to(device)`)."),
    _e("arrayfire-type-mismatch", "mismatch", "ArrayFire arrays of two dtypes in one op",
       r"\baf_\w+\b.{0,300}Type mismatch inputs|Type mismatch inputs.{0,100}\baf_\w+",
       "ArrayFire ops need their inputs in one dtype, and here they differ: typically float64 values (a NumPy array "
       "of Python floats) beside a float32 array.",
       "Create both in one dtype (`np.array(vals, dtype=np.float32)`, or `arr.as_type(af.Dtype.f32)`)."),
    # a large negative index: an id that wrapped around in a narrow integer dtype
    _e("negative-index-wrapped", "overflow", "a large negative index from an integer that wrapped around",
       r"(Tried to access index|\bindex) -\d{4,}\b[^\n]{0,40}\bout of (table|range|bounds)",
       "A large negative index (a token id, a position) is an integer that overflowed and wrapped around: ids saved "
       "as int16 (largest 32,767) or read as signed from uint16, or counts summed in int32, exceed their dtype and "
       "turn negative, which the embedding lookup then rejects.",
       "Store ids and indices as int64 (`torch.long`, `np.int64`; int32 at least for vocabularies above 32,767), and "
       "check the dtype of saved id arrays."),
    # unsigned and signed integers combined without promotion
    _e("unsigned-signed-mix", "mismatch", "uint8 values combined with negative int8 values without promotion",
       r"\A(?=.*\buint8\b)(?=.*\bint8\b)(?=.*(\bnegative\b|\[\s*-\d))"
       r"(?=.*\b(incorrect\w*|wrong|unexpected|expected:?)\b)",
       unless=EXCEPTION_NAMED,
       cause="A uint8 tensor is compared or combined with int8 values that are negative, and the path taken (a "
       "compiled kernel, a manual cast) did not apply type promotion: the int8 values are cast to uint8, so -10 "
       "becomes 246, and results are wrong.",
       fix="Promote both to one signed dtype first (`torch.promote_types(a.dtype, b.dtype)`, `.to(torch.int16)` or "
       "`int64`), or run the op uncompiled; upgrade torch (Inductor's lowering promotes in later releases)."),
    _e("int-arithmetic-wraps", "overflow", "integer arithmetic that wrapped around past its dtype's range",
       r"\A(?=.*\b(u?int(8|16|32)|np\.u?int(8|16|32)|(Byte|Int|Short)(Tensor)?|uint8_t|u?int(16|32)_t|"
       r"TYPE_U?INT(8|16))\b)(?=.*\b(overflow(s|ed|ing)?|wrap(s|ped|ping)?[ -]around|wraps|modulo (256|65536))\b)|"
       # an int32 dtype printed beside sums that came out hugely negative
       r"\A(?=.*(dtype\(.int32.\)|\btorch\.int32\b|\bnp\.int32\b))(?=.*(?<![\w.])-\d{9,10}(?![\d.]))|"
       # a uint8 difference printed as 255
       r"\bresult of\b[^\n]{0,40}\[255\]\s*uint8\b|"
       # token ids or sizes kept as uint16 past 65535, or uint16 read back as torch's signed int16
       r"\A(?=.*\buint16\b)(?=.*((?<![\d.])6553[56](?!\d|\.\d)|\bvocab\w*[^.\n]{0,40}\b(larger|greater|more|"
       r"bigger) than\b|\bto torch\b[^\n]{0,80}\bint16\b[^\n]{0,300}\b(wrap\w*|negative)\b))",
       # (a kernel's own index overflow is no arithmetic of the user's)
       unless=r"without overflow|illegal memory access|index out of|out of bounds|out of memory|\b2\^31\b|2\*\*31|"
       r"\boverflow in (the )?CUDA \w+|\b(more|larger) than 2\*\*3[12]\b|"
       r"INT_MAX|2147483647|\bnumel\b(?!\(\))|too large|\w*(Error|Exception):",
       cause="Integer arithmetic keeps its inputs' integer dtype: sums, products and counts that pass its range "
       "(uint8 255, uint16 65535, int16 32767, int32 about 2.1e9) overflow and wrap around silently to small, zero "
       "or negative values instead of failing (NumPy's default integer is int32 on Windows; an IntTensor holding an "
       "element count overflows past 2.1e9); images read as uint8 / uint16, labels or masks stored as uint8 and token "
       "ids of a vocabulary past 65535 stored as uint16 are the usual sources, and so is a converter that maps "
       "uint16 to the signed int16 (uint32 to int32).",
       fix="Cast to a wider or floating dtype before the arithmetic (`x.astype(np.float32)`, `x.to(torch.int64)`, "
       "`x.float()`) and back only at the end, clamped (`.clamp(0, 255).to(torch.uint8)`); store token ids as "
       "uint32 / int32 when the vocabulary has more than 65535 entries."),
    _e("spirv-64bit-args", "backend", "a Vulkan (SPIR-V) kernel given a 64-bit argument",
       r"SPIR-?V kernel only supports less than 32-bit arguments|"
       r"SPIR-?V[^\n]{0,80}\b(f64|i64|float64|int64)\b[^\n]{0,40}\b(not supported|unsupported)",
       "The Vulkan (SPIR-V) backend (Taichi's, for one) passes kernel arguments as 32-bit values in this release and "
       "many GPUs' Vulkan drivers have no 64-bit floats at all, so an f64 (float64) or i64 kernel argument is "
       "refused there.",
       "Pass f32 / i32 arguments (keep f64 data in a field or ndarray if the device has `shaderFloat64`), run on "
       "another backend (`ti.init(arch=ti.cuda)` or `ti.cpu`), or upgrade Taichi, whose Vulkan backend gained f64 "
       "arguments later."),
    _e("numpy-scalar-assign-old-torch", "mismatch", "a NumPy scalar assigned into a tensor of another type",
       r"can'?t assign a numpy\.\w+ to a (torch\.)?(cuda\.)?\w+Tensor",
       "Old PyTorch releases (before 0.4) could assign into a tensor (`t[i:j] = v`) only a Python number or a NumPy "
       "scalar of the tensor's own type: a NumPy int64 or float64 scalar into a FloatTensor (float32) is refused.",
       "Convert the value first: `t[i:j] = float(v)` (or `v.item()`, `torch.tensor(v, dtype=t.dtype)`, "
       "`np.float32(v)`), or upgrade PyTorch, which converts NumPy scalars on assignment."),
    _e("unsigned-int-array-check", "mismatch", "an unsigned integer array refused by a check for integer arrays",
       r"\A(?=.*\buint(16|32|64)\b)(?=.*\b(arrays? must (contain|be|hold) (of )?(integer|int)\w*|"
       r"(integer|int) (arrays?|values|types?) (required|expected))\b)",
       "A library's check for integer arrays lists the signed integer types (int8 to int64) but not this unsigned "
       "one (uint16, uint32 or uint64, which image readers and NumPy operations on unsigned data return), so a "
       "valid array of whole numbers is refused.",
       "Cast the array to a signed type the check accepts before the call (`a.astype(np.int64)`, `np.int32` when "
       "the values fit), or upgrade the library once its integer types add the unsigned ones."),
    _e("tensor-constructor-float32", "mismatch", "torch.Tensor(array) made float32 from another dtype",
       r"\A(?=.*\btorch\.Tensor\()(?=.*\b(numpy|np\.\w+|ndarray)\b)(?=.*\b((not|n't) (preserve|keep)|loses?|lost|"
       r"chang(es|ed|ing)|always)\b[^.\n]{0,30}\b(dtype|float32|data ?type)\b)|"
       r"\A(?=.*\b(numpy|np\.\w+|ndarray)\b)(?=.*\btorch\.Tensor\b[^.\n]{0,40}\b(conversion|converts?|constructor)\b)"
       r"(?=.*\b(does not|doesn'?t|not) (preserve|keep)\b[^.\n]{0,20}\bdtype\b)",
       cause="`torch.Tensor(array)` (the legacy constructor, capital T) always makes a float32 tensor: float16, "
       "float64 or integer NumPy arrays lose their dtype, so a half-precision model gets float32 inputs.",
       fix="Convert with `torch.from_numpy(array)` or `torch.tensor(array)` (both preserve the dtype), or cast "
       "explicitly to the model's dtype (`torch.as_tensor(array, dtype=model.dtype)`)."),
    # the user saw it: adapter weights kept fp32 beside a half-precision base, met outside autocast
    _e("lora-fp32-in-half-model", "mismatch", "LoRA weights kept in float32 beside a half-precision model",
       r"\A(?=.*(\blora\b([^.\n]|\.(?=\w)){0,60}\b(float32|fp32)\b|\b(float32|fp32)\b[^.\n]{0,30}\blora\b))"
       r"(?=.*\b(float16|fp16|half|bfloat16|bf16)\b)(?=.*\b(different dtypes?|dtypes? mismatch|same dtype|"
       r"expected scalar type|mat1 and mat2|should be the same|dtype data)\b)",
       unless=r"\b(int8|int4|4bit|8bit|nf4|uint8|Byte|Char|bitsandbytes|bnb|gptq|awq)\b",
       cause="The LoRA layers are float32 (trainable adapters are kept in fp32 for stable updates: PEFT's "
       "`autocast_adapter_dtype=True`, diffusers' `cast_training_params`) while the base model is float16/bf16, "
       "so outside autocast (a validation or inference pass) their matmul meets half-precision activations.",
       fix="Run validation and inference under `torch.autocast(device_type, dtype=torch.float16)` (as in "
       "training), or cast the adapter to the base dtype for inference (`pipe.unet.to(torch.float16)` / "
       "`model.to(dtype)` after training, or merge it with `merge_and_unload()`)."),
    # a module that records its dtype beside its weights and casts inputs to it: `.to(dtype)` leaves the record
    _e("dtype-attribute-in-words", "mismatch", "a dtype recorded on a module that `.to()` does not update",
       r"\A(?=.*(\b(has|have|keeps?|stores?) an? `?\.?dtype`? (param\w*|attribute|field|property)\b|"
       r"\b(self|cfg|config|\w+\.cfg|\w+\.config)\.dtype\b))(?=.*\.to\((torch\.)?\w+\))"
       r"(?=.*(\b(not|n't|never) (be |been |get |gets )?(updat|chang|reflect|sync)\w*|"
       r"\b(auto-?)?(converted|cast) (back )?to th(at|is|e stored|e recorded|e old) dtype\b|\bstale\b))",
       "The module records its dtype as an attribute or config field (`self.dtype`, `cfg.dtype`, as "
       "TransformerLens, SAELens and many pipelines do) and casts its inputs to it; `module.to(dtype)` converts "
       "the parameters but not that record, so inputs keep being cast to the old dtype: silently lower "
       "precision, or a mismatch with the new weights.",
       "Update the recorded dtype with the weights (`cfg.dtype = torch.float32` after `.to(torch.float32)`), or "
       "load the module in the wanted dtype (a `dtype=` argument to its loader) instead of converting it after; "
       "upgrade the library if its `.to()` override was added later."),
    # a uint8 tensor used to index: torch reads it as a mask, not as positions
    _e("uint8-index-is-mask", "index", _UINT8_INDEX_TITLE,
       r"\A(?=.*(\btorch\.uint8\b|\bdtype=torch\.uint8\b|\bByteTensor\b|\buint8\b))(?=.*\b(index\w*|indices)\b)"
       r"(?=.*\b(not (ok|okay|work\w*|correct)|wrong|empty|unexpected\w*|incorrect|strange|weird)\b)",
       unless=EXCEPTION_NAMED + r"|deprecated", cause=_UINT8_INDEX_CAUSE, fix=_UINT8_INDEX_FIX),
    # code generators that do not promote integer widths (nvFuser, TorchScript fusers)
    _e("codegen-operand-types", "index", "a code generator given operands of two integer or float types",
       r"Incompatible operand types: (int|int32_t|int64_t|long|float|double|half|__half|bfloat16) and "
       r"(int|int32_t|int64_t|long|float|double|half|__half|bfloat16)\b",
       cause="A fusing code generator (nvFuser or another TorchScript / JIT fuser) built an expression from two "
       "operand types it does not promote (an int32 index against int64 index math, or two float widths): the "
       "fuser's own type promotion is missing there.",
       fix="Give the op inputs of one type (`index.long()`, one float dtype), turn the fuser off for that code "
       "(`torch._C._jit_set_nvfuser_enabled(False)`, or run without scripting), or upgrade torch, where the fuser "
       "promotes these types."),
    _e("numpy-float-index", "index", "a float used as a NumPy index",
       r"only integers, slices .{0,60}and integer or boolean arrays are valid indices",
       unless=r"\b(str|string|dict|tuple)\b[^\n]{0,40}\bindices\b",
       cause="NumPy takes only integers, slices and integer or boolean arrays as indices, and got a float: a "
       "position computed with `/` instead of `//`, labels or ids loaded as float (`np.float` arrays, a float "
       "column), or a float from a config; NumPy refuses it since 1.12.",
       fix="Make the index an integer where it is made: `int(i)`, `i // n`, `labels.astype(np.int64)`."),
    _e("jax-branch-dtypes", "mismatch", "JAX control flow whose branches or carry hold two dtypes",
       r"DIFFERENT ShapedArray\((?P<a>bfloat16|float16|float32|float64)\[[^\]]*\]\) vs\.? ShapedArray\("
       r"(?!(?P=a)\[)(bfloat16|float16|float32|float64)\[|"
       r"(true_fun|false_fun|body_fun|branch\w*)[^\n]{0,120}(must have (identical|the same) types|type mismatch)",
       cause="A JAX control-flow primitive (`lax.cond`, `lax.scan`, `while_loop`, as optax.MultiSteps' gradient "
       "accumulation uses) needs both branches, or the loop carry, to keep one dtype per leaf, and here one side is "
       "bfloat16 (the model's parameters or updates) and the other float32 (an accumulator or optimizer state "
       "created in fp32).",
       fix="Give the state the parameters' dtype or cast the updates (`jax.tree.map(lambda u, p: u.astype(p.dtype), "
       "updates, params)`), keep the parameters in float32 with bf16 computation, or upgrade optax (later releases "
       "cast MultiSteps' accumulators)."),
    _e("numpy-float-is-double", "mismatch", "NumPy's `float` dtype is float64",
       r"(astype|dtype\s*=)\s*\(?\s*(np|numpy)\.float_?(?![\w])|astype\(\s*float\s*\)|dtype\s*=\s*float(?![\w.])",
       context=r"float64|\bdouble\b|\bDOUBLE\b|torch\.DoubleTensor",
       cause="`np.float` (an alias removed in NumPy 1.24), `np.float_` and Python's `float` as a NumPy dtype all "
       "mean float64 (double), not float32: the array, and every tensor or serving-side tensor made from it, is "
       "double.",
       fix="Ask for float32 by name: `a.astype(np.float32)` / `dtype=np.float32` (or `torch.from_numpy(a).float()`)."),
    _e("dynamic-casting-assert", "mismatch", "a kernel asserted on an input dtype it does not cast",
       r"needs_dynamic_casting<func_t>::check\(iter\)",
       "An elementwise kernel (its TensorIterator loop) got an input or output whose dtype differs from the ones "
       "it was compiled for, and asserts instead of casting: typically bf16/fp16 tensors (a model that loaded in "
       "bf16 by default) passed to an op that supports float32 only, such as `fake_quantize_per_channel_affine` on "
       "the CPU, or a scale / zero point of another dtype.",
       "Run that op in float32: `.float()` its inputs (and its scale), or load the model with "
       "`torch_dtype=torch.float32` when it runs on the CPU; cast the result back if the rest runs in bf16."),
    _e("quantize-float-only", "mismatch", "eager quantization given bf16/fp16 tensors (it takes float32)",
       r"Quantize only works on Float Tensor|\bquantize_per_(tensor|channel)(_dynamic)?\(",
       "Eager-mode quantization (`torch.quantize_per_tensor` / `quantize_per_channel`, inserted by FX / static "
       "quantization and by the IPEX / Neural Compressor flows) quantizes float32 tensors only; a model loaded or "
       "autocast in bf16 (`--bf16`, `torch_dtype=torch.bfloat16`) hands it bf16 activations.",
       "Quantize from the fp32 model: drop `--bf16` / `torch_dtype=torch.bfloat16` for the quantization run "
       "(calibrate and convert in float32), or cast the tensor to float32 right before it is quantized.",
       context=r"(?s)\b(bf16|bfloat16|BFloat16|float16|Half)\b.*(Error|error)|(Error|error).*\b(bf16|bfloat16|"
       r"BFloat16|float16|Half)\b"),
    _e("deform-conv-offset-dtype", "autocast", "a deformable convolution's input and offset in two dtypes",
       r"to have the same type as tensor for argument #\d+ '(offset|mask)'",
       "A deformable convolution (a custom CUDA op: mmcv / torchvision `deform_conv2d`, DCNv2-v4) checks that its "
       "input, offset and mask have one type; under AMP autocast the offset comes from a conv as float16 while the "
       "input stays float32, and autocast never casts a custom op's inputs (`.float()` inside the region is undone "
       "by the next autocast op).",
       "Run the op with autocast disabled and inputs in one dtype: `with torch.autocast('cuda', enabled=False): "
       "out = dcn(x.float(), offset.float(), mask.float())`, or give its Function `@torch.amp.custom_fwd("
       "device_type='cuda', cast_inputs=torch.float32)`."),
    _e("custom-function-autocast", "autocast", "a custom autograd Function under autocast",
       r"custom autograd functions?|autograd\.Function\b[^\n]{0,120}(autocast|\bamp\b|mixed precision)|"
       r"\A(?=.*\bcustom_bwd\b)(?=.*\b(bf16|bfloat16)\b)(?=.*\b(f16|fp16|float16)\b)|"
       # told as the fix: decorators added to a Function that failed under autocast
       r"\A(?=.*@?custom_fwd\b)(?=.*\b(autocast|mixed precision)\b)"
       r"(?=.*\b(errors?|fail\w*|fix\w*|problem)\b)(?!.*" + EXCEPTION_NAMED + r")",
       "Autocast casts the inputs of torch's own ops only: inside a custom `torch.autograd.Function` the fp16 "
       "inputs autocast produced meet the fp32 weights the Function holds (or its backward runs outside "
       "autocast in other dtypes; older `torch.cuda.amp.custom_bwd` re-entered autocast in float16 even after a "
       "bf16 forward).",
       "Make the Function autocast-aware: `@torch.amp.custom_fwd(device_type='cuda', cast_inputs=torch.float32)` "
       "on its forward and `@torch.amp.custom_bwd(device_type='cuda')` on its backward (it then runs in fp32), or "
       "cast the inputs to its weights' dtype inside forward.",
       context=r"(autocast|\bamp\b|mixed precision)(?s:.*)(float16|fp16|\bhalf\b)|(float16|fp16|\bhalf\b)(?s:.*)"
       r"(autocast|\bamp\b|mixed precision)|@?custom_fwd\b"),
    _e("custom-bwd-unpaired", "autocast", "`custom_bwd` on a backward whose forward has no `custom_fwd`",
       r"has no attribute '_fwd_used_autocast'",
       # a Function whose forward and setup_context are separate: custom_fwd cannot mark ctx (a torch limitation)
       "`@custom_bwd` runs the backward under the autocast state its forward saved in `ctx._fwd_used_autocast`, "
       "which only `@custom_fwd` on the forward sets: the backward of this Function is decorated without its "
       "forward (one decorator removed, or added on one side only), so the attribute is missing.",
       "Use the decorators together, `@torch.amp.custom_fwd(device_type='cuda')` on forward and "
       "`@torch.amp.custom_bwd(device_type='cuda')` on backward, or remove both when the forward casts its inputs "
       "itself.",
       unless=r"setup_context"),
    _e("custom-kernel-amp-assert", "autocast", "a custom kernel's dtype assertion under AMP",
       r"\A(?=.*\bAssertionError\b)(?=.*(\bAMP\b|autocast|mixed precision))(?=.*\b(cupy|\w+_kernel|kernels?|triton)\b)",
       unless=r"out of memory|\bshape\b",
       cause="A custom kernel (CuPy, Triton, a CUDA extension) asserts that its tensors share one dtype (or are "
       "float32), and autocast does not cast a custom kernel's arguments: under AMP the inputs arrive in float16 "
       "while a tensor the module computes itself (a learnable decay or threshold, a weight used outside an "
       "autocast op) stays float32.",
       fix="Cast the module's own tensors to the input's dtype before the launch (`w.sigmoid().to(x)`), or wrap the "
       "kernel's Function in `@torch.amp.custom_fwd(device_type='cuda', cast_inputs=torch.float32)` so it runs in "
       "fp32; or upgrade the library if its kernel got an fp16 fix."),
    _e("uint8-image-input", "mismatch", "uint8 image data where float is expected",
       r"(should be|expected|expects?|must be) an? float(ing[- ]point)? tensor[^\n]{0,40}\b(got|found) "
       r"(torch\.)?uint8",
       "Image data loaded as uint8 (0-255: PIL, OpenCV, `torchvision.io.decode_image`, a video reader) went "
       "straight into a model or transform that computes in floating point.",
       "Convert and scale once in the data pipeline: `x.float() / 255` (or `transforms.ToDtype(torch.float32, "
       "scale=True)`, `ToTensor()` for PIL images), then normalize and cast to the model's dtype "
       "(`.to(model.dtype)`)."),
    _e("pil-float-array", "numpy", "PIL given a float (or int64) array",
       r"Cannot handle this data type: \(1, 1, \d+\), [<>|]?[fi][248]",
       "`PIL.Image.fromarray` got a float (or 64-bit integer) array, such as a decoded image still in [0, 1] or "
       "[-1, 1] as float32 / float16, while PIL builds RGB images only from uint8 (H, W, 3) arrays.",
       "Scale and convert before handing it over: `Image.fromarray((x.clip(0, 1) * 255).round().astype(np.uint8))` "
       "(for a [-1, 1] image first `(x + 1) / 2`; for a tensor `x.float().cpu().permute(1, 2, 0).numpy()`)."),
    # NumPy's random.choice checks the sum to about 1e-8, finer than float32 rounding
    _e("choice-float32-probabilities", "numpy", "float32 probabilities refused by NumPy's random.choice",
       r"probabilities do not sum to 1",
       "NumPy's `random.choice(p=...)` checks that the probabilities sum to 1 within about 1e-8, and probabilities "
       "computed in float32 (a torch softmax or normalisation turned into NumPy) carry rounding errors of about "
       "1e-7, so a correct distribution fails the check; far from 1, they were never normalised.",
       "Normalise in float64 right before sampling: `p = np.asarray(p, dtype=np.float64); p /= p.sum()` (or "
       "sample in torch: `torch.multinomial(probs, 1)`, which takes float32)."),
    # torchvision's to_pil_image words its refusal so
    _e("to-pil-image-dtype", "numpy", "torchvision's to_pil_image given an array PIL cannot hold",
       r"Input type (uint16|uint32|uint64|int64|int8|float64|float16|bool|object) is not supported",
       "torchvision's `to_pil_image` (behind `ToPILImage` and the PIL-based resizing of many pipelines and "
       "predictors) builds a PIL image only from uint8 arrays (single-channel int16, int32 and float32 too), so a "
       "uint16 raster (a satellite or microscope GeoTIFF, a 16-bit PNG, a depth map), a float64 or an int64 array "
       "is refused.",
       "Convert where the image is read: scale to uint8 for an RGB image (`(a / a.max() * 255).astype(np.uint8)`, "
       "or a percentile stretch for satellite bands), or `a.astype(np.float32)` for a single-band map; a model "
       "that takes floats can skip PIL (`torch.from_numpy(a.astype(np.float32))`)."),
    # OpenCV's Python binding reads only 8/16/32-bit integer and float32/float64 arrays; NumPy's float16 is type 23
    _e("opencv-half-array", "numpy", "OpenCV given a float16 array",
       r"Expected Ptr<cv::UMat> for argument|data type = \d+ is not supported",
       "An OpenCV function (`cv2.resize`, `cv2.cvtColor`, ...) got a float16 NumPy array, such as a map or image "
       "computed by a half-precision model and turned into NumPy as it was: OpenCV's binding takes uint8, int16, "
       "int32, float32 and float64 arrays, and refuses float16 (NumPy type 23) with this message.",
       "Convert to float32 before OpenCV: `x.float().cpu().numpy()` for a tensor, `arr.astype(np.float32)` for an "
       "array (or scale to uint8 for an image); the model itself may stay in fp16.",
       context=r"float16|\bfp16\b|\bhalf\b|data type = 23\b|\bf2\b"),
    # a sum / mean / cumulative op whose accumulator keeps fp16 / bf16
    _e("half-accumulation", "precision", "a sum, mean or cumulative op accumulated in fp16 / bf16",
       r"\A(?=.*(\b(sums?|mean|cumsum|cumprod|add_n|reduce_sum|accumulat\w*|"
       r"running (sum|total|loss))\b[^\n]{0,80}\b(fp16|float16|half|bf16|bfloat16)\b|\b(fp16|float16|half|bf16|"
       r"bfloat16)\b[^\n]{0,80}\b(sums?|mean|cumsum|cumprod|add_n|reduce_sum|accumulat\w*)\b))"
       r"(?=.*\b(precision|inaccura\w*|incorrect|wrong (result|value|answer)s?|stuck|stall\w*|stops? growing|rounded|"
       r"ignored|weird constant|unexpected result|less accurate|deviat\w*|not (be )?useful|loss precision)\b)",
       unless=EXCEPTION_NAMED + r"|\b(loss scal\w*|GradScaler|fp16_opt_level|nans?|NaNs?|infs?|matmul|GEMM|gemm|"
       r"save_pretrained|converting|autocast|mixed precision)\b",
       cause="The reduction accumulated in fp16 / bf16: a running sum keeps only the dtype's 11 (fp16) or 8 (bf16) "
       "significant bits, so once it is large each small term rounds away (an fp16 sum stalls at 2048 when adding 1, "
       "bf16 at 256, a bf16 running loss stops growing at 4096), the result deviates from a float32 reference, and "
       "sums of many values overflow fp16's 65504; some kernels (CUDA cumprod in bf16, TensorFlow's add_n, a half "
       "mean cast back before the division, NumPy's float16 mean) keep their intermediates or accumulator in the "
       "input's dtype.",
       fix="Accumulate in float32: `torch.sum(x, dtype=torch.float32)`, `x.float().mean()`, `np.mean(a, "
       "dtype=np.float32)`, keep running losses and metrics in float32 (or as Python floats via `.item()`), and cast "
       "back only the final result."),
    # float32 accumulators: overflow past 3.4e38, stalls at 2**24, cancellation
    _e("float32-accumulation", "precision", "a float32 reduction that overflowed, stalled or cancelled",
       r"\A(?=.*\b(sum|mean|var|std|var_mean|std_mean|Welford|M2)\b)"
       r"(?=.*(\b(accumulat\w*|double accumulation)\b|\binaccurate for large float32 arrays\b))"
       r"(?=.*\b(float32|FloatTensor|single precision)\b)(?=.*\b(inf|nan|inaccurate|wrong|broken|overflow\w*)\b)"
       r"(?!.*\b(fp16|float16|half|bf16|bfloat16)\b)",
       unless=EXCEPTION_NAMED + r"|\b(float32|fp32)\s*(/|and|or|,)\s*(float64|fp64)\b",
       cause="A float32 reduction accumulated in float32 here (CUDA or Inductor kernels, NumPy's mean of a float32 "
       "array, old torch's var(dim) computed as E[x^2] - E[x]^2): sums of squares above 3.4e38 overflow to inf, tiny "
       "ones underflow to 0, a long sum of small terms stalls at 2^24 (16777216), and E[x^2] - E[x]^2 cancels "
       "catastrophically for large, close values; single precision is not enough for that reduction.",
       fix="Accumulate in float64: `x.double().var()`, `np.mean(a, dtype=np.float64)`, `torch.sum(x, "
       "dtype=torch.float64)`; use a two-pass or Welford algorithm, or eager mode or a release whose kernel "
       "accumulates in double."),
    # integer sums promote to int64 by design
    _e("sum-promotes-int", "mismatch", "torch.sum / cumsum / prod of integers returning int64",
       r"\b(torch\.)?(sum|cumsum|prod)\b[^\n]{0,40}\b(changes|promot\w*|turns|returns)\b[^\n]{0,20}\b(int32|int|bool)"
       r"\b[^\n]{0,10}\bto\b[^\n]{0,10}\b(int64|long)\b",
       "`torch.sum`, `cumsum` and `prod` promote integer and bool inputs to int64 when no dtype is given, by design "
       "(intended, so that the accumulation does not overflow).",
       "Pass the dtype you want (`t.sum(dtype=torch.int32)`) or cast the result (`.to(torch.int32)`)."),
    _e("parametrization-dtype-change", "autocast", "a parametrization whose result changed the tensor's dtype",
       r"Registering a parametrization may not change the dtype of the tensor",
       "`torch.nn.utils.parametrize` runs the parametrization once when it is registered and refuses a result in "
       "another dtype: under autocast an autocast-eligible op inside it (`baddbmm`, `matmul`) returns bf16 / fp16 for "
       "fp32 parameters (PEFT's LoRA on `target_parameters` in some releases), or the parametrization casts.",
       "Compute the parametrization with autocast disabled (`torch.autocast(device_type, enabled=False)`) and "
       "return the parameter's dtype (`.to(W.dtype)`), register it outside autocast, or upgrade peft."),
    _e("norm-kept-in-half", "precision", "a weight norm stored in the input's half precision",
       r"\b(norm|weight_norm)\w*\b[^\n]{0,60}\btruncated to (the )?input dtype\b|"
       r"\bnorm\b[^\n]{0,40}\btruncated to reduced precision\b",
       "The kernel allocates the norm in the input's fp16 / bf16 dtype (`torch.empty_like(g)`) instead of float32, "
       "and backward's 1/norm^3 amplifies that rounding.",
       "Compute and store the norm in float32 (as PyTorch's weight_norm does) and cast only the output; upgrade the "
       "kernel library."),
    # a KV cache in another dtype than the states written into it: allocated in float32 (the default dtype, an fp32
    # head's) for a half-precision model, or a preallocated cache beside states another layer upcast
    _e("kv-cache-dtype", "mismatch", "a KV cache in another dtype than the model's attention or its states",
       r"\A(?=.*(expected scalar type (Half|BFloat16) but found Float|expected scalar type Float but found "
       r"(Half|BFloat16)|" + MATMUL + r"))(?=.*\b(kv[ _-]?cache|past_keys|past_key_values|key and value states)\b)"
       r"(?=.*\b(float32|fp32|get_default_dtype|default dtype)\b)|"
       r"\b(float32|fp32|bf16|bfloat16|fp16|float16) (kv[ -])?cache\b[^\n]{0,40}\b(receives?|gets?|for an?)\b"
       r"[^\n]{0,30}\b(bf16|bfloat16|fp16|float16|float32|fp32)\b|"
       # told in words: a dtype mismatch once a static / preallocated cache is used
       r"\A(?=.*\b(dtype|data ?type)s? (mismatch|error|issue)s?\b)(?=.*\b(static[ _]?cache|StaticCache|"
       r"kv[ _-]?cache|key[ /_-]?value cache|past_key_values|cache_implementation)\b)",
       unless=NOT_A_DTYPE_FAULT,
       cause="The KV cache is in another dtype than the model's attention or the key/value states written into it: "
       "allocated with the default dtype (float32, `torch.get_default_dtype()`) or with the dtype of a parameter "
       "that is not the attention's (an lm_head kept or cast to float32), or preallocated (a static, fp8 or "
       "quantized cache) in one dtype while the states come in another (a rotary path that upcasts keys to fp32, an "
       "fp32 layer in a bf16 model); fp16 / bf16 keys and values written or concatenated into it meet float32 "
       "(`torch.cat` promotes to float32, the cache update with `index_copy_` or slice assignment does not cast) and "
       "the attention matmul gets two dtypes.",
       fix="Create the cache in the model's dtype (`dtype=model.dtype`, the attention weights' dtype or the "
       "config's), give static caches their dtype explicitly so it matches, or cast the states to the cache's dtype "
       "before writing them (`k.to(cache.dtype)`); with transformers, upgrade (later releases cast in the cache "
       "update) or fall back to the dynamic cache (no `cache_implementation=\"static\"`); run with "
       "`use_cache=False` to confirm."),
    # a blanket cast of the whole batch (apex O2, DeepSpeed's fp16 auto_cast, an old BatchEncoding.to) told in words
    _e("token-ids-cast-to-half", "index", "integer token ids cast to half precision with the rest of the batch",
       r"\A(?=.*(\b(input_ids|input ids|token (ids|indexes|indices))\b[^\n]{0,60}"
       r"\b(cast|convert\w*|turn\w*)\b[^\n]{0,40}|\b(cast|convert)\w*\b[^\n]{0,20}\b(the )?(input_ids|input ids|"
       r"token (ids|indexes|indices))\b[^\n]{0,60})(\bhalf\b|\bfp16\b|\bfloat16\b|HalfTensor|\bbf16\b|bfloat16))",
       unless=EXCEPTION_NAMED,
       cause="The integer token ids (`input_ids`) were cast to a float dtype with the rest of the batch: a blanket "
       "`.to(torch.float16)` / `.half()` on the whole batch or `BatchEncoding` (older transformers passed the dtype "
       "down to every tensor), apex AMP O2, or DeepSpeed's fp16 `auto_cast` of positional inputs. fp16 holds "
       "integers exactly only up to 2048, so larger ids round to other tokens, and the embedding wants Long indices.",
       fix="Keep token ids integer (int64, `.long()`): cast only floating tensors "
       "(`{k: v.to(dtype) if v.is_floating_point() else v for k, v in batch.items()}`), pass the batch to a "
       "DeepSpeed engine as keyword arguments or turn its `auto_cast` off, and upgrade transformers, whose "
       "`BatchEncoding.to` only moves the device."),
    _e("cpu-half-model", "mismatch", "an fp16/bf16 model on the CPU meets fp32 tensors",
       rf"(?=[^\n]{{0,200}}(Half|BFloat16|float16|bfloat16))(Input type \(.*?\) and (weight|bias) type|{MATMUL}|"
       r"expected scalar type \w+ but found)",
       "An fp16/bf16 model runs on the CPU (the text says so) and its inputs or some layers are float32: on the "
       "CPU nothing casts for you (CUDA autocast is off, processors return float32), and many CPU kernels have "
       "no fp16 at all.",
       "On the CPU load the model in float32 (`torch_dtype=torch.float32`, `model.float()`), or in bf16 under "
       "`torch.autocast('cpu', dtype=torch.bfloat16)`; if you keep fp16, cast the inputs with `.to(model.dtype)`; "
       "fp16 belongs on the GPU.",
       context=r"\b(on|with|using) (the )?cpu\b|device(_map)?\s*=\s*['\"]cpu|\.to\(['\"]cpu|\bcpu[ -]only\b|"
       r"\b(no|without( a)?) GPU\b|cpu\s*上|use_cpu|--cpu\b|device\(['\"]cpu"),
    _e("s001-generate-outside-autocast", "mismatch", "generate() outside the training autocast",
       MATMUL, "Training runs inside autocast but `generate()` (for example from a callback) runs outside it, "
       "so fp32 activations from upcast norms or adapters meet bf16/fp16 weights.",
       "Run generation under the training precision: `with torch.autocast(device_type, dtype=...): "
       "model.generate(...)`, or let amplora enforce the policy at the model boundary (`amplora.apply`).",
       context=r"generate|callback"),
    _e("s000-dora-magnitude", "mismatch", "DoRA magnitude / weight norm in fp32 fed to a bf16 matmul",
       MATMUL, "The DoRA magnitude / weight-norm path is computed in fp32 and its result is fed back into a "
       "bf16/fp16 matmul.",
       "Compute the norm in fp32 if you like, then `.to(x.dtype)` the rescaled weight before the matmul; "
       "amplora's DoRA does exactly this.", context=r"dora|magnitude|weight_norm|lora_magnitude"),
    _e("s004-backward-mixed-amp", "mismatch", "autocast and non-autocast tensors mixed in backward",
       MATMUL + r"|c10::Half != float|float != c10::Half",
       "In backward, half-precision tensors saved inside an autocast region meet fp32 tensors from outside it (an "
       "fp32 adapter or a tensor computed outside autocast, or a custom kernel's backward).",
       "Run forward and backward of a module in one autocast region, keep trainable params fp32 and cast them at "
       "use (`w.to(x.dtype)`); custom autograd Functions need `torch.amp.custom_fwd` / `custom_bwd`.",
       context=r"(?<!\w)(backward|autograd)"),  # not torch.compile's aot_autograd frames
)
