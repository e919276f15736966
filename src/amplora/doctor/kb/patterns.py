"""Regex fragments shared by several knowledge-base topics."""
from __future__ import annotations

MATMUL = (r"(mat1 and mat2|m1 and m2|self and mat2|mat2 and self|both vectors|"
          r"a and b) (must )?(to )?have the same d?type|expected (m1|mat1) and (m2|mat2)|"
          r"expected both vectors to have same dtype|\b(bmm|mm|addmm|baddbmm|matmul|linear)\(\): expected both inputs "
          r"to have (the )?same dtype")
# the matmul message's tail quoted alone ("... leads to `float != c10::BFloat16` error")
MATMUL_TAIL = (r"(?<![\w:])(float|c10::(Half|BFloat16|Float|Double))\s*!=\s*c10::(Half|BFloat16|Float|Double)\b|"
               # retold operand by operand: "mat1 (Your Image Input): float (...) mat2 (Model's Weights): c10::BFloat16"
               r"\bmat1\b[^\n]{0,60}?\b(?:c10::)?(?P<m1>float|Float|Half|BFloat16|half|bfloat16)\b[^\n]{0,80}?\bmat2\b"
               r"[^\n]{0,60}?\b(?:c10::)?(?!(?P=m1)\b)(float|Float|Half|BFloat16|half|bfloat16)\b")
# integer storage of packed quantized weights (bitsandbytes uint8/int8, int8 GEMM); case-sensitive so the English
# "byte" / "char" of other messages does not count
PACKED = r"(?-i:unsigned char|signed char|\bByte\b|\bChar\b|\bu?int8\b|\bQU?Int8\b|Int8|UInt8)"
QUANT_CONTEXT = r"bitsandbytes|\bbnb\b|4bit|8bit|Linear4bit|Linear8bit|Params4bit|quantiz|qweight|gptq|awq|int8"
QUANT_KERNEL = (r"(?<![A-Za-z0-9])(awq\w*|\w*_awq\w*|gptq\w*|\w*marlin\w*|exllama\w*|exl2|machete|quantization method|"
                # GPTQ checkpoints' names: bits and group size ("OPT-13B-Erebus-4bit-128g")
                r"gemm_forward_cuda|gemv_forward_cuda|q4_matmul|[2348]-?bit-\d+g\b)")
# GPUs of compute capability below 8.0 (no native bf16), as reports name them
NO_BF16_GPU = r"(T4|V100|P100|P40|K80|GTX ?1[06][5-8]0( Ti)?|RTX ?20[6-8]0( Ti| Super)?|20[6-8]0 ?([Ss]uper|SUPER|Ti))"
LOW = r"(float16|bfloat16|\bfp16\b|\bbf16\b|\bHalf\b|float32|\bfp32\b|dtype)"
# a GPU other than the first, named or chosen (`cuda:1`, `.cuda(2)`): where a kernel that is not device-guarded fails
OTHER_GPU = r"(\bcuda:[1-9]\b|\.cuda\([1-9]\))"
# the device-mismatch messages' words for two devices met
DEVICE_CLASH = r"(\bsame device\b|\btwo devices\b|\bdifferent devices\b)"
# legacy tensor type names carry the device: torch.cuda.HalfTensor is on a GPU, torch.HalfTensor on the CPU
GPU_TYPE = r"(torch\.cuda\.\w+Tensor|\bCUDA\w+(Type|Tensor)\b|\b(MPS|XPU|PrivateUse1)\w+Type\b)"
CPU_TYPE = r"(torch\.(?!cuda\.)[A-Z]\w*Tensor|\bCPU\w+(Type|Tensor)\b)"
# a text showing that the base model is quantized (a flag, a config, a layer class), not just the word "int8"
QUANTIZED_BASE = (r"load_in_(8|4)bit|enable_int(8|4)\s*=\s*True|quantization_bit|BitsAndBytesConfig|"
                  r"Linear(8bitLt|4bit)|\bqlora\b|\bint8 quantiz|8-bit quantiz|4-bit quantiz|\bbnb\b[\w ]{0,20}quantiz|"
                  r"bnb_4bit_\w+|load_in_(8|4)_?bit|--bits[ =](8|4)\b|\bbits\s*=\s*(8|4)\b|\bgguf\w*|dequantiz\w*")
# an exception's name in the text: entries that read a fault told in words step aside for a pasted exception
EXCEPTION_NAMED = r"\w+(Error|Exception):"
# a NaN the text shows precision did not cause: the precision was changed and the NaN stayed, or GRPO's reward std
# over a single generation per prompt (NaN before any model arithmetic)
PRECISION_RULED_OUT = (r"reward_std['\"]?\s*[:=]\s*nan|"
                       r"\b(float16|fp16|half)\b[^.\n]{0,40}\b(do ?n'?t|does ?n'?t|do not|does not) (appear|seem) to "
                       r"(affect|matter|change)\b|\balready\b[^.\n]{0,40}\b(fp32|float32|full precision)\b|"
                       r"\btried (it )?(with |in |using )?(fp32|float32)\W{1,3}(and )?(fp16|float16|bf16|bfloat16)\b|"
                       r"(COMMANDLINE_ARGS\s*=|command-?line arguments\b)[^\n]{0,160}--no-half\b(?!-vae)|"
                       r"\btried\b[^.\n]{0,40}\b(formats|precisions|dtypes)\b[^.\n]{0,15}\b(including|even|also)\s+"
                       r"(fp32|float32|full precision)\b[^.\n]{0,40}\b(all|still)\b[^.\n]{0,30}"
                       r"\bsame (error|issue|problem)|"
                       r"\b(switch\w*|chang\w*|went|go(ne)?|mov\w*) (back )?to (fp32|float32|full precision)\b"
                       r"[^.\n]{0,40}"
                       r"\b(but|still)\b[^.\n]{0,40}\b(nan|NaN|inf)\b|"
                       # ("the fp32 model's loss is not nan but the fp16 model's is still nan" rules out nothing)
                       r"(\b(fp32|float32|full precision|32[- ]bit|bf16 false|fp16 false|precision 32)\b"
                       r"(?![^.\n]{0,60}\b(is not|isn'?t|not|no) (nan|inf)\b)[^.\n]{0,60}"
                       r"\b(also|too|still|as well|same)\b[^.\n]{0,40}\b(nan|inf)\b|"
                       r"\b(disabl\w*|turn\w* off)\b[^.\n]{0,10}\b(tf32|TF32)\b[^\n]{0,60}\b(still|persists?|remains"
                       r"?)\b|"
                       r"\b(tried|try|tries|switch\w*|chang\w*|set)\b[^.\n]{0,80}\b(bf16|fp16|fp32|precision)\b[^\n]{0,160}"
                       r"\b(does not|doesn't|didn't|did not|not|won't|nothing) (work|help|change|fix)\w*)")
# Ultralytics' AMP notice, which names NaN losses itself ("If you experience zero-mAP or NaN losses you can disable
# AMP"): no NaN of the user's beside it
AMP_NOTICE = r"\A(?=.*AMP: checks (skipped|passed))(?!.*\bNaN\b(?! losses you can disable))"
# a loss that grew before it went NaN, or a NaN that a lower learning rate avoids: divergence, which the text itself
# tells apart from an overflow
DIVERGED = (r"\bloss(es)?\b[^.\n]{0,30}\b(become|becomes|became|gets?|got|grows?|grew|keeps?|kept|goes|went|getting|"
            r"starts?|started)\b[^.\n]{0,20}\b(larger and larger|bigger and bigger|higher and higher|increas\w*|"
            r"explod\w*)|\b(have|had|need|needed) to (turn|bring|set|lower|reduce|decrease)\b[^.\n]{0,30}"
            r"\b(lr|learning rate)\b[^.\n]{0,60}\b(or|otherwise)\b[^.\n]{0,30}\b(nan|inf)\b|"
            r"\b(lower|smaller|reduc\w*|decreas\w*)\b[^.\n]{0,20}\b(lr|learning rate)\b[^.\n]{0,40}"
            r"\b(fixe[sd]|solve[sd]|avoids?|no (more )?nan|the nan (is )?gone)\b")
# the text says fp16 is what fails: without it (or in fp32) the same run works
ONLY_HALF_FAILS = (r"\b(remov\w*|without|disabl\w*|dropp?\w*|turn\w* off|no)\s+(the\s+)?[`'\"]?(--)?(fp16|half|amp)\b"
                   r"(?:[^.\n]|\.(?=\w)){0,80}\b(works?|worked|fine|well|ok|normal\w*|as expected)\b|"
                   r"\b(works?|worked|fine|well|as expected)\b(?:[^.\n]|\.(?=\w)){0,80}\bfrom\b[^.\n]{0,10}"
                   r"\b(fp16|float16|half)\b[^.\n]{0,10}\bto\b[^.\n]{0,10}\b(fp32|float32)\b|"
                   r"\bfrom\b[^.\n]{0,10}\b(fp16|float16|half)\b[^.\n]{0,10}\bto\b[^.\n]{0,10}\b(fp32|float32)\b"
                   r"(?:[^.\n]|\.(?=\w)){0,80}\b(works?|worked|fine|well|as expected)\b")
# a NaN seen beyond a training loss: in outputs, logits, evaluation or generation (where fp16 inference is the usual
# cause), only on the GPU while the CPU is right, or on an AMD GPU; a training loss or gradient norm that went NaN
# with nothing else in the text does not tell precision from a learning rate, the data or a bug
# ("Output:" alone on a line labels printed results, not a model's outputs)
NAN_BEYOND_TRAINING = (r"\b(logits?|outputs?(?!\W{0,3}\n)|output(ted|ting)|inference|infer(ring|red)?|generat\w*|"
                       r"eval\w*|validation|"
                       r"val[_ ]?loss|predict\w*|benchmark\w*|embeddings?|hidden[_ ]states|merg\w*)\b|!!!!|"
                       r"\bCPU\b[^.\n]{0,60}\b(works?|fine|right|correct|ok)\b|\b(ROCm|gfx\d+)\b")
# a text that names fp16 (a flag, a cast, a dtype), automatic mixed precision (fp16 unless it says otherwise), bf16
# (16-bit image, audio and integer data is no half precision)
HALF_WORDS = (r"((?<![A-Za-z0-9])(use_|enable_)?fp16(_run|_enabled?)?(?![A-Za-z0-9])|(?<![A-Za-z0-9_])(float[ -]?16|"
              r"half[- ]precision|--fp16|fp16=True|16-mixed|torch\.half|mixed_float16|"
              r"16[- ]?bit(?![- ]?(png|pngs|images?|tiff?|depth|audio|pcm|wav|integers?|int|unsigned|gr[ae]yscale)\b)|"
              r"to_fp16|"
              r"--no-half|no_half|--half|half=True|HalfTensor|F16)"
              r"(?![A-Za-z0-9_])|\bhalf\(\)|\bprecision[\] =:'\"]+16\b|\bin half\b|半精度)")
AMP_WORDS = (r"(?<![A-Za-z0-9_])(amp|AMP|autocast|GradScaler|mix(ed)?[ _-]precision(ed)?|use_amp|apex|"
             r"opt_level\W{0,3}O[123])"
             r"(?![A-Za-z0-9_])|混合?精度|"
             r"自動混合精度|혼합 ?정밀도")
BF16_WORDS = r"(?<![A-Za-z0-9_])(bf16|bfloat16|--bf16|bf16=True|bf16-true|torch\.bfloat16)(?![A-Za-z0-9_])"
# a 16-bit float named as a word of its own (a dtype, not a flag)
LOW_DTYPE_WORD = r"(?<![A-Za-z0-9_])(bf16|bfloat16|fp16|float16|half)(?![A-Za-z0-9_])"
# evidence of half precision, or of loss scaling and overflow, which exist only for it, anywhere in the text
HALF_EVIDENCE = (f"{HALF_WORDS}|{AMP_WORDS}|{BF16_WORDS}|" r"(?<![A-Za-z0-9_])(half|Half|loss[ _]scal\w*|overflow(s|ed|ing)?)"
                 r"(?![A-Za-z0-9_])|\.half\(\)|\bprecision (is )?(set to |=\s*|of )?['\"]?(16|bf16)\b")
# bf16 is the only half precision the text shows: bf16 has fp32's range, so an overflow story does not fit it
BF16_ONLY = (r"\A(?=.*\b(bf16|bfloat16)\b)(?!.*(" + HALF_WORDS + "|" + AMP_WORDS + r"|(?<![A-Za-z0-9_])(half|Half)"
             r"(?![A-Za-z0-9_])|\.half\(\)|\bprecision (is )?(set to |=\s*|of )?['\"]?16\b))")
# CUDA that failed to start: a capability check (bf16, TF32) then fails for the driver, not for the GPU
CUDA_INIT_FAILED = (r"CUDA initialization: |NVIDIA driver on your system is too old|Found no NVIDIA driver|"
                    r"no CUDA GPUs are available")

# a warning that falls back by itself ("using FP32 instead") beside a failure the user reports in words, with no
# exception: the warning does not answer for that failure (the app stopping, not working)
_FAILURE = (r"\b(stops?|stopped|stopping|not working|does ?n[o']t work|do ?n[o']t work|failure|fails|failed|crash\w*|"
            r"hangs?|hanging|freez\w*|stuck|nothing happens)\b")
FALLBACK_BESIDE_FAILURE = rf"using FP32 instead.*{_FAILURE}|{_FAILURE}.*using FP32 instead"

# fp16 dynamic loss scaling logging a skipped step (apex, DeepSpeed, fairseq, Megatron)
LOSS_SCALE_SKIP = (r"OVERFLOW!? ?Skipping step|overflow[.,]? +skipping step|Attempted loss scale|"
                   r"reducing loss scale to")
# every output one and the same value ("全是一个固定值"), in Chinese: an fp16 report's wording of a collapsed model
SAME_OUTPUT_ZH = r"(全是|都是|全为|都为)\S{0,10}(固定|相同|同一)"
# a text that says its fp16 run is right: no fp16 story can be its fault
HALF_SAID_RIGHT = (r"\b(f16|fp16|float16)\b( models?| controls?| results?| outputs?| graphs?)?( and \w+( controls?)?)? "
                   r"(is|are) (correct|right|fine|ok)\b")
# what a last-resort answer must not take: faults of another kind that name a dtype in passing
NOT_A_DTYPE_FAULT = (r"expected size to be one of int|"
                     r"out of memory|size mismatch|shapes? cannot|\bshape\b.{0,40}\bmismatch|modified by an inplace "
                     r"operation|No module named|Attempting to cast down|\binvalid choice: |check_ptr_type|"
                     r"Missing Input: ")
