"""`amplora explain`: an error message or a whole traceback -> cause and fix from the knowledge base.

Besides the matching entry it pulls out what the text itself says: dtypes, op / kernel names and devices, and
adds to the cause the two dtypes / devices the message names (the knowledge base's cause is the same for every
text of a kind; this sentence is what is particular to this one).
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

from amplora.doctor import kb

# token in an error message -> canonical dtype name (longest spellings first so 'c10::BFloat16' wins over 'Float')
_DTYPE_TOKENS = [
    (r"Float8_e4m3fnuz|float8_e4m3fnuz", "float8_e4m3fnuz"),
    (r"Float8_e5m2fnuz|float8_e5m2fnuz", "float8_e5m2fnuz"),
    (r"Float8_e4m3fn|float8_e4m3fn|\be4m3\b", "float8_e4m3fn"),
    (r"Float8_e5m2|float8_e5m2|\be5m2\b", "float8_e5m2"),
    (r"\bfloat8\b|\bfp8\b|\bFloat8\b", "fp8"),
    (r"c10::BFloat16|BFloat16|bfloat16|\bbf16\b|(?<=\dx)bf16\b", "bf16"),
    (r"c10::Half|at::Half|HalfTensor|\bHalf\b|float16|\bfp16\b|\bf16\b|(?<=\dx)f16\b|\bkHALF\b", "fp16"),
    (r"DoubleTensor|\bDouble\b|float64|\bdouble\b", "fp64"),
    (r"FloatTensor|\bFloat\b|float32|\bfloat\b|\bfp32\b|\bf32\b|(?<=\dx)f32\b|\bkFLOAT\b", "fp32"),
    (r"UInt64|\buint64\b|DT_UINT64", "uint64"),
    (r"LongTensor|\bLong\b|(?<!u)int64", "int64"),
    (r"IntTensor|\bInt\b|(?<!u)int32", "int32"),
    (r"ShortTensor|\bShort\b|\bint16\b", "int16"),
    (r"unsigned char|ByteTensor|\bByte\b|\buint8\b", "uint8"),
    (r"signed char|CharTensor|\bChar\b|\bint8\b", "int8"),
]
_DTYPE_RE = re.compile("|".join(f"(?P<g{i}>{p})" for i, (p, _) in enumerate(_DTYPE_TOKENS)), re.IGNORECASE)
_DEVICE_RE = re.compile(r"\b(cuda:\d+|cuda|cpu:\d+|cpu\d*|CPU|meta|mps|xpu(?::\d+)?|npu(?::\d+)?|hpu(?::\d+)?|"
                        r"privateuseone(?::\d+)?)\b")
# legacy type names carry the device: torch.cuda.HalfTensor / CUDAHalfType on the GPU, torch.HalfTensor on the CPU
_TYPE_NAME_RE = re.compile(r"\btorch\.(cuda\.)?([A-Z]\w*?)Tensor\b|\b(CUDA|CPU|MPS|XPU)([A-Z]\w*?)(?:Type|Tensor)\b")

# phrases that name an op even when no kernel name is quoted
_OP_PHRASES = [
    (r"mat1 and mat2|m1 and m2|self and mat2", "matmul (mm/addmm)"),
    (r"both vectors", "dot"),
    (r"Input type \(.*?\) and (weight|bias) type", "convolution"),
    (r"Index put", "index_put_"),
    (r"query, key,? and value", "scaled_dot_product_attention"),
    (r"unscale FP16 gradients", "GradScaler.unscale_"),
    (r"Expected out tensor", "out= write"),
    (r"\.numpy\(\)|ScalarType BFloat16|tensor to numpy", "Tensor.numpy"),
    (r"\bLayerNorm\b|\blayer_norm\b", "layer_norm"),
    (r"\bGroupNorm\b|\bgroup_norm\b", "group_norm"),
    (r"\bRMSNorm\b|\brms_norm\b", "rms_norm"),
    (r"\bBatchNorm\w*\b|\bbatch_norm\b", "batch_norm"),
]


@dataclass
class Explanation:
    recognized: bool
    error: str
    key: str = ""
    title: str = ""
    cause: str = ""
    fix: str = ""
    dtypes: list[str] = field(default_factory=list)
    ops: list[str] = field(default_factory=list)
    devices: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return asdict(self)


def error_line(text: str) -> str:
    """The last 'SomeError: message' line of a traceback (or the first non-empty line of a bare message)."""
    lines = [_undecorated(ln) for ln in text.strip().splitlines() if _undecorated(ln)]
    for i in reversed(range(len(lines))):
        if re.match(r"^[\w.]*(Error|Exception|Warning|Fault)\b.*?:", lines[i]):
            return lines[i]
        if re.fullmatch(r"[\w.]*(Error|Exception)", lines[i]) and i + 1 < len(lines):  # the message on the next line
            return f"{lines[i]}: {lines[i + 1]}"
    for line in reversed(lines):  # an exception quoted inside a sentence or after a prefix: '"onnxruntime...: [...Error]'
        m = re.search(r"[\w.]*[a-z](Error|Exception)\b\]?\s*:", line)
        if m:
            return line.strip("\"'")
    return lines[0] if lines else ""


def _undecorated(line: str) -> str:
    """`line` without what pasting adds around it: markdown quotes, code ticks, bold, list bullets, pytest's `E`."""
    line = re.sub(r"^(?:[>`*#|\-│┃❱]+\s*|E\s{2,})+", "", line.strip())
    line = re.sub(r"\s*[│┃]$", "", line)  # the right border of a Rich traceback box
    return re.sub(r"[`*]+$", "", line).strip()


def extract_dtypes(text: str) -> list[str]:
    found: list[str] = []
    for m in _DTYPE_RE.finditer(text):
        name = _DTYPE_TOKENS[int(m.lastgroup[1:])][1]
        if name not in found:
            found.append(name)
    if any(name.startswith("float8_") for name in found):  # "Float8 Types ... Float8_e4m3fn": the format says it all
        found = [name for name in found if name != "fp8"]
    return found


def extract_ops(text: str) -> list[str]:
    ops: list[str] = []

    def add(name):
        if name and name not in ops:
            ops.append(name)

    for m in re.finditer(r"\"(\w+)\" not implemented|(\w+) not implemented for '", text):  # the kernel and a dtype
        add(m.group(1) or m.group(2))
    for m in re.finditer(r"\baten[.:]{1,2}(\w+)", text):
        add(m.group(1))
    for m in re.finditer(r"\bin method wrapper_[A-Za-z]+__(\w+)", text):  # wrapper_CUDA__index_select
        add(m.group(1))
    for m in re.finditer(r"while checking arguments for (\w+)", text):
        add(m.group(1))
    for m in re.finditer(r"\b([a-z][a-z_]+)\(\)(?:: | (?:input|expected|expects|requires|only|must)\b)", text):
        if m.group(1) != "operator":  # C++'s `operator()` in a backend's log line, not an op
            add(m.group(1))
    for m in re.finditer(r"Function '(\w+Backward\d*)'|\b(\w+Backward\d+)\b", text):
        add(m.group(1) or m.group(2))
    for m in re.finditer(r"\bof node \(/?([\w/.:-]+)\)|\bimplementation for (\w+)\(\d+\) node|"
                         r"\bof operator \((\w+)\)", text):
        add((m.group(1) or m.group(2) or m.group(3)).rsplit("/", 1)[-1])  # an ONNX node: its op type ends its path
    for m in re.finditer(r"\b(linalg\.\w+|torch\.linalg\.\w+)", text):
        add(m.group(1).replace("torch.", ""))
    for pattern, name in _OP_PHRASES:
        if re.search(pattern, text, re.IGNORECASE):
            add(name)
    return ops


def _typed_names(text: str) -> list[tuple[str, str]]:
    """(device, dtype) of each legacy type name in `text`: 'torch.cuda.HalfTensor' -> ('cuda', 'fp16')."""
    out = []
    for m in _TYPE_NAME_RE.finditer(text):
        if m.group(2):
            device, name = ("cuda" if m.group(1) else "cpu"), m.group(2)
        else:
            device, name = m.group(3).lower(), m.group(4)
        dtypes = extract_dtypes(name)
        out.append((device, dtypes[0] if dtypes else name))
    return out


def extract_devices(text: str) -> list[str]:
    found: list[str] = []
    for m in _DEVICE_RE.finditer(text):
        device = "cpu" if m.group(1) == "CPU" else m.group(1)
        if device not in found:
            found.append(device)
    for device, _ in _typed_names(text):
        if device not in found and not any(d.startswith(device + ":") for d in found):
            found.append(device)
    return found


_LONG_NAMES = {"bf16": "bfloat16", "fp16": "float16, half", "fp32": "float32", "fp64": "float64, double",
               "int64": "Long", "int32": "Int", "uint8": "Byte", "int8": "Char", "fp8": "float8"}


def spelled(dtype: str) -> str:
    """A canonical dtype name with its other spellings: 'bf16' -> 'bf16 (bfloat16)'."""
    if dtype.startswith("float8"):
        return f"{dtype} (fp8)"
    return f"{dtype} ({_LONG_NAMES[dtype]})" if dtype in _LONG_NAMES else dtype


def _dtype_of(token: str) -> str:
    found = extract_dtypes(token)
    return spelled(found[0]) if found else token


_T = r"[`'\"]?(?:torch\.|c10::|at::)?(\w+)[`'\"]?"  # a dtype token as messages print it
_A = r"[`'\"]?(\w+)[`'\"]?"  # an argument / input name
# message shapes that say which operand has which dtype: (pattern, the groups holding dtypes, how to say it)
_NAMED_OPERANDS = [
    (rf"expected (?:dtype|scalar type) {_T} for (?:argument )?{_A} but got (?:dtype|scalar type) {_T}", (0, 2),
     lambda want, arg, got: f"Here `{arg}` is {_dtype_of(got)} where {_dtype_of(want)} is expected."),
    (rf"{_A} has dtype {_T},? (?:whereas|but|while|and) {_A} has dtype {_T}", (1, 3),
     lambda a, ta, b, tb: f"Here `{a}` is {_dtype_of(ta)} and `{b}` {_dtype_of(tb)}."),
    (rf"\b(\w+)\.dtype:? {_T},? and\s+(\w+)\.dtype:? {_T}", (1, 3),
     lambda a, ta, b, tb: f"Here `{a}` is {_dtype_of(ta)} and `{b}` {_dtype_of(tb)}."),
    (rf"promote {_T} and {_T}", (0, 1),
     lambda a, b: f"Here {_dtype_of(a)} meets {_dtype_of(b)}, which PyTorch does not promote."),
    (rf"\bdtype={_T},? out_dtype={_T}", (0, 1),
     lambda a, b: f"Here the input dtype is {_dtype_of(a)} and the output dtype {_dtype_of(b)}."),
    (rf"(?:Found|got) dtype {_T},? but expected {_T}", (0, 1),
     lambda got, want: f"Here a tensor is {_dtype_of(got)} where {_dtype_of(want)} is expected."),
    (rf"expected (?:scalar type|dtype) {_T},? but (?:found|got) (?:scalar type |dtype )?{_T}", (0, 1),
     lambda want, got: f"Here a tensor is {_dtype_of(got)} where {_dtype_of(want)} is expected."),
    (rf"expected type TensorOptions\(dtype={_T}.{{0,300}}? but got TensorOptions\(dtype={_T}", (0, 1),
     lambda want, got: f"Here the gradient is {_dtype_of(got)} where {_dtype_of(want)} is expected."),
    (rf"{_A} dtype \({_T}\) does not match {_A} dtype \({_T}\)", (1, 3),
     lambda a, ta, b, tb: f"Here `{a}` is {_dtype_of(ta)} and `{b}` {_dtype_of(tb)}."),
    (rf"Input type \({_T}\) and (weight|bias) type \({_T}\)", (0, 2),
     lambda a, role, b: f"Here the input is {_dtype_of(a)} and the {role} {_dtype_of(b)}."),
    (rf"found input tensor with {_T} and parameter tensor with {_T}", (0, 1),
     lambda a, b: f"Here the input is {_dtype_of(a)} and the parameters {_dtype_of(b)}."),
    (rf"found {_A} of type {_T} and {_A} of type {_T}", (1, 3),
     lambda a, ta, b, tb: f"Here `{a}` is {_dtype_of(ta)} and `{b}` {_dtype_of(tb)}."),
    (rf"\b(input\w*|weight|bias|self|src|source|other|query|key|value|mask)(?: dtype)? ?[=:(] ?{_T}\)?,? (?:and )?"
     rf"(input\w*|weight|bias|self|src|source|other|query|key|value|mask)(?: dtype)? ?[=:(] ?{_T}", (1, 3),
     lambda a, ta, b, tb: f"Here `{a}` is {_dtype_of(ta)} and `{b}` {_dtype_of(tb)}."),
    (r"argument #\d+ [`'\"]?(\w+)[`'\"]? to have the same type as tensor for argument #\d+ [`'\"]?(\w+)[`'\"]?; but "
     r"type ([\w.:]+?)\.? does not equal ([\w.:]+?)\.?(?:\s|$|\))", (2, 3),
     lambda a, b, ta, tb: f"Here `{a}` is {_dtype_of(ta)} and `{b}` {_dtype_of(tb)}."),
    (rf"\b([A-Za-z_]\w*) (?:must|should) be (?:one of )?((?:[\w.:]+(?:,? or |, ))+[\w.:]+),? but (?:got|found) {_T}",
     (1, 2), lambda name, want, got: f"Here `{name}` is {_dtype_of(got)} where {want} is expected."),
    (rf"Input {_A} of {_A} Op has type {_T} that does not match expected type of {_T}", (2, 3),
     lambda a, op, got, want: f"Here input `{a}` of the `{op}` op is {_dtype_of(got)} where {_dtype_of(want)} is "
                              f"expected."),
    (rf"got {_T} for the destination and {_T} for the source", (0, 1),
     lambda a, b: f"Here the destination is {_dtype_of(a)} and the source {_dtype_of(b)}."),
    (rf"got:? {_T} != {_T}", (0, 1),
     lambda a, b: f"Here one operand is {_dtype_of(a)} and the other {_dtype_of(b)}."),
    (rf"but got {_T} and {_T}\b", (0, 1),
     lambda a, b: f"Here one operand is {_dtype_of(a)} and the other {_dtype_of(b)}."),
]


def _named_operands(text: str) -> str:
    """A sentence saying which named operand has which dtype, when the message says so (else '')."""
    m = re.search(r"expected type TensorOptions\(.{0,40}?device=([\w:]+).{0,300}? but got TensorOptions\(.{0,40}?"
                  r"device=([\w:]+)", text)
    if m and m.group(1) != m.group(2):
        return f"Here the gradient is on {m.group(2)} where {m.group(1)} is expected."
    for pattern, dtype_groups, say in _NAMED_OPERANDS:
        m = re.search(pattern, text, re.IGNORECASE)
        named = [extract_dtypes(m.group(i + 1)) for i in dtype_groups] if m else []
        if m and all(named) and named[0][0] != named[-1][0]:
            return say(*m.groups())
    return ""


def situation(text: str, dtypes: list[str], devices: list[str], full: str = "") -> str:
    """One sentence naming what this message is about: the two operands (or dtypes / devices) it names in `text`
    (the error line) or, for named operands, anywhere in `full` (the whole paste)."""
    named = _named_operands(text) or (_named_operands(full) if full else "")
    if named:
        return named
    typed = _typed_names(text)
    if len(typed) >= 2:
        m = re.search(r"(Input|input)\w* type.{0,80}?\b(weight|bias|parameter)", text)
        roles = ("the input", f"the {m.group(2)}") if m else ("one tensor", "the other")
        (d1, t1), (d2, t2) = typed[:2]
        return f"Here {roles[0]} is {spelled(t1)} on {d1} and {roles[1]} {spelled(t2)} on {d2}."
    m = re.search(r"found input tensor at (\S+?) and parameter tensor at (\S+?)(?:[\s!.,]|$)", text)
    if m:
        return f"Here the input is on {m.group(1)} and the parameters on {m.group(2)}."
    parts = []
    if len(devices) >= 2:
        parts.append("devices " + " and ".join(devices[:2]))
    if len(dtypes) >= 2:
        parts.append("dtypes " + " and ".join(spelled(d) for d in dtypes[:2]))
    return f"This message names {'; '.join(parts)}." if parts else ""


# a traceback frame as Python, IPython/Jupyter and Rich print it: (path, line, function)
_FRAME_RE = re.compile(r'File "(?P<a>[^"]+)", line (?P<al>\d+), in (?P<af>\S+)|'
                       r'File (?P<b>~?[^\s":]+\.py):(?P<bl>\d+), in (?P<bf>[\w.<>]+)|'
                       r'(?P<c>(?:~|/|[A-Za-z]:\\)[^\s":]+\.py):(?P<cl>\d+) in (?P<cf>[\w.<>]+)')


def _frames(text: str) -> list[tuple[str, str, str]]:
    return [(m["a"] or m["b"] or m["c"], m["al"] or m["bl"] or m["cl"], m["af"] or m["bf"] or m["cf"])
            for m in _FRAME_RE.finditer(text)]
_LIBRARY_RE = re.compile(r"(?:site|dist)-packages[/\\]([A-Za-z_][\w.-]*)[/\\]?(.*)")


# packages whose frames end every traceback of an op: a mismatch raised there says nothing about whose code is at fault
_FRAMEWORK = {"torch", "torchvision", "torchaudio", "numpy", "triton", "accelerate"}


def raised_in(text: str) -> str:
    """Where a pasted traceback ends: 'hqq (hqq/core/quantize.py, line 217, in forward_pytorch)', with the last
    frame of the user's own code when the end is in a library; '' without a traceback."""
    frames = [f for f in _frames(text) if not f[0].startswith("<")]  # not <string>, <stdin>
    if not frames:
        return ""

    def name(path: str, line: str, func: str) -> tuple[str, str]:
        m = _LIBRARY_RE.search(path)
        if m:
            package, inner = m.group(1).split(".")[0], m.group(2).replace("\\", "/")
            return package, f"{package} ({m.group(1)}/{inner}, line {line}, in {func})".replace("/,", ",")
        base = re.split(r"[/\\]", path)[-1]
        return "", f"{base}, line {line}, in {func}"

    package, last = name(*frames[-1])
    if not package:
        return last
    own = [name(*f)[1] for f in frames if not name(*f)[0]]
    return f"{last}, called from {own[-1]}" if own else last


def failing_line(text: str) -> str:
    """The source line Python printed under a traceback's last frame ('' when the paste shows none): it names the
    tensors the message does not."""
    last = None
    for last in _FRAME_RE.finditer(text):
        pass
    if last is None:
        return ""
    for raw in text[last.end():].splitlines()[1:3]:
        line = _undecorated(raw)
        if not line or re.fullmatch(r"[~^\s]+", line):
            continue
        if _FRAME_RE.search(line) or re.match(r"[\w.]*(Error|Exception)\b", line) or len(line) > 160:
            return ""
        return line
    return ""


def _calling_library(text: str) -> str:
    """The innermost installed package other than the framework on a traceback's stack ('' when the innermost
    frame outside the framework is the user's own code)."""
    for path, _, _ in reversed([f for f in _frames(text) if not f[0].startswith("<")]):
        m = _LIBRARY_RE.search(path)
        package = m.group(1).split(".")[0] if m else ""
        if package not in _FRAMEWORK:
            return package
    return ""


def _exception_tail(text: str, line: str) -> str:
    """The exception a paste ends in with the lines its message continues on (a state-dict error lists its keys
    below); just `line` when the paste holds no exception line."""
    if not re.match(r"^[\w.]*(Error|Exception|Warning|Fault)\b", line):
        return line
    head = line.split(": ", 1)[-1][:60]
    at = text.rfind(head)
    return text[at:] if head and at >= 0 else line


# what a paste shows around the message, which the knowledge base's fixed cause cannot know
_MIXED_SETTING = re.compile(
    r"(?<![\w-])(precision\s*=\s*['\"]?(16|bf16)(-mixed)?['\"]?|--precision[ =]['\"]?(16|bf16|half|fp16)(-mixed)?\b|"
    r"\bAMP\b|[Mm]ixed[- ][Pp]recision|--(fp16|bf16|use[-_]amp|amp)\b|(fp16|bf16|use_amp|amp)\s*="
    r"\s*True|mixed_precision\s*=\s*['\"]?(fp16|bf16)['\"]?|--mixed_precision[ =](fp16|bf16)|"
    r"torch\.(cuda\.)?(amp\.)?autocast\([^)\n]{0,60}\)?)")
_NO_NATIVE_BF16 = re.compile(r"\b((Tesla )?(T4|V100|P100|P40|K80|M40|M60)|GTX ?1[06][5-8]0( Ti)?|RTX ?20[6-8]0( Ti| Super)?|"
                             r"Titan (V|Xp?|RTX)|Quadro RTX ?[4-8]000)\b")
_ROCM = re.compile(r"\b(ROCm|HIP|gfx\d{3,4}[a-z]?|Instinct|MI[123]\d{2}X?|Radeon|hipBLASLt|hipBLAS|MIOpen|rocBLAS)\b")
# hardware a paste shows that is not a CUDA GPU: (pattern, the word an answer about it says, what to add to the cause
# with the match, what to add to the fix): what each lacks in fp16 / bf16 / fp64
_HARDWARE = [
    (_ROCM, "rocm",
     "The text shows an AMD ROCm GPU ({}): ROCm's fp16/bf16 kernels (FlashAttention, hipBLASLt GEMMs, fused norms) "
     "differ per GPU architecture, and some have given NaN or wrong results where CUDA does not.",
     "On ROCm, if the other half dtype, fp32 or plain attention (`attn_implementation='eager'`) is clean, that kernel "
     "is at fault: keep it off, or upgrade ROCm / torch."),
    (re.compile(r"\b(XPU|xpu(?::\d+)?|Intel Arc|Arc [AB]\d{3}|Iris Xe|UHD Graphics|IPEX|"
                r"intel_extension_for_pytorch|oneAPI|level_zero)\b"), "intel",
     "The text shows an Intel GPU ({}): Intel integrated GPUs (Iris Xe, UHD) run fp16 but not bf16, and only "
     "data-center Intel GPUs have fp64.",
     "On an Intel iGPU use fp16 or fp32 rather than bf16, and float32 rather than float64."),
    (re.compile(r"\b(MPS|mps(?::\d+)?|Apple (silicon|M\d)|M[1-4] (Pro|Max|Ultra)|Metal)\b"), "mps",
     "The text shows Apple MPS ({}): MPS has no float64, runs bf16 only on recent macOS and torch, and lacks some "
     "ops.",
     "On MPS use float32 or fp16 (not float64), and `PYTORCH_ENABLE_MPS_FALLBACK=1` to run a missing op on the CPU."),
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
# a dtype a backend says it has no kernel for, as its message spells it
_REFUSED = re.compile(r"not implemented for '?(?:DT_)?([A-Za-z]\w*)'?|scalar_type:\s*([A-Za-z]\w*?)\s*is not su",
                      re.IGNORECASE)


def _context(entry, text: str, dtypes: list[str], said: str) -> tuple[str, str]:
    """(a sentence for the cause, a sentence for the fix) from what the paste shows besides the message: a mixed
    precision setting, a GPU without bf16, an AMD GPU, the dtype a backend refused."""
    cause, fix = [], []
    m = _MIXED_SETTING.search(text)
    if m and entry.kind in ("mismatch", "index"):
        half = "bf16 (bfloat16)" if "bf16" in m.group(0).lower() or "bfloat16" in m.group(0) else "fp16 (float16, half)"
        cause.append(f"The text shows mixed precision (`{m.group(0).strip()}`): there layer outputs come out "
                     f"{half} while tensors made by hand (a parameter, buffer, mask token or constant used directly) "
                     f"stay fp32, so the two meet here.")
    if m and entry.kind == "mismatch" and {"fp16", "bf16"} <= set(extract_dtypes(error_line(text) or text)):
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
    m = _REFUSED.search(text)
    if m and entry.kind in ("device-capability", "backend", "cpu-kernel"):
        token = m.group(1) or m.group(2)
        known = extract_dtypes(token)
        name = spelled(known[0]) if known else token.lower()
        if name.split(" ")[0] not in said:
            cause.append(f"The refused dtype is {name}.")
    return " ".join(cause), " ".join(fix)


# a paste longer than this keeps its head (the report) and its tail (the exception): the knowledge base's patterns
# read the whole text, so a log of megabytes would take minutes
_HEAD, _TAIL = 8_000, 40_000


def _bounded(text: str) -> str:
    return text if len(text) <= _HEAD + _TAIL else f"{text[:_HEAD]}\n...\n{text[-_TAIL:]}"


def explain(text: str) -> Explanation:
    """Explain an error message or traceback. `recognized` is False when no knowledge-base entry matches."""
    text = kb.plain(_bounded(text))
    line = error_line(text)
    entry = kb.lookup(text, _exception_tail(text, line), exception=bool(re.match(r"[\w.]*(Error|Exception)\b", line)))
    m = entry.match.search(text) if entry is not None else None
    if m and not re.match(r"[\w.]*(Error|Exception|Warning)\b", line):  # no exception line: the line the entry
        read = _undecorated(text[text.rfind("\n", 0, m.start()) + 1:].split("\n", 1)[0])  # read, if it names more

        def named(s: str) -> int:
            return len(extract_dtypes(s)) + len(extract_devices(s))
        line = read if read and named(read) > named(line) else line
    facts = dict(error=line, dtypes=extract_dtypes(line) or extract_dtypes(text),
                 ops=extract_ops(re.sub(r"\s+", " ", text)),
                 devices=extract_devices(line or text))
    if entry is None:
        return Explanation(recognized=False, fix=kb.GENERAL_ADVICE, **facts)
    here = situation(line or text, facts["dtypes"], facts["devices"], full=text)
    unnamed = [op for op in facts["ops"] if op.lower() not in f"{entry.title} {entry.cause} {here}".lower()]
    if unnamed:
        here = f"{here} The op is {unnamed[0]}.".strip()  # the one thing a fixed answer cannot guess
    said = f"{entry.title} {entry.cause} {entry.fix} {here}".lower()
    devices = extract_devices(text)
    if (entry.kind in ("cpu-kernel", "device-capability", "quantized", "backend", "overflow", "mismatch")
            and len(devices) == 1
            and not re.search(rf"\b{re.escape(devices[0].split(':')[0])}\b", said)
            and not (devices[0].startswith("cuda") and _ROCM.search(text))):  # ROCm runs as "cuda" too
        here = f"{here} The text shows a run on {devices[0]}.".strip()  # which device refused the dtype
    more_cause, more_fix = _context(entry, text, extract_dtypes(text), said)
    here = f"{here} {more_cause}".strip()
    where = raised_in(text)
    if where:
        here = f"{here} It is raised in {where}.".strip()
        code = failing_line(text) if entry.kind in ("device", "mismatch", "index") else ""
        if code:
            here = f"{here} The failing line is `{code}`: one of its tensors is the odd one."
    fix = entry.fix
    m = re.match(r"([A-Za-z_][\w-]*) \(", where)  # raised in an installed package
    library = m.group(1) if m else ""
    if library in _FRAMEWORK:
        library = _calling_library(text) or library
    if entry.kind == "mismatch" and library in kb.generic.LIBRARY_FIXES:
        fix = f"{kb.generic.LIBRARY_FIXES[library]} {fix}"
    elif entry.kind == "mismatch" and re.search(kb.patterns.QUANTIZED_BASE, text, re.IGNORECASE):
        fix = f"{kb.generic.QUANTIZED_BASE_FIX} {fix}"
    elif entry.kind == "mismatch" and library and library not in _FRAMEWORK:
        fix = (f"It is raised inside {library}'s own code: unless your code cast something {library} uses, upgrade "
               f"{library} (such mismatches are often bugs fixed in a later release) or report it. {fix}")
    return Explanation(recognized=True, key=entry.key, title=entry.title, cause=f"{entry.cause} {here}".strip(),
                       fix=f"{fix} {more_fix}".strip(), **facts)
