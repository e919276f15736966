"""What a pasted error says by itself: its exception line, the dtypes, ops and devices it names, and which operand
has which dtype."""
from __future__ import annotations

import re

# token in an error message -> canonical dtype name (longest spellings first so 'c10::BFloat16' wins over 'Float')
_DTYPE_TOKENS = [
    (r"Float8_e8m0fnu|float8_e8m0fnu|\be8m0\b", "float8_e8m0fnu"),
    (r"QUInt8|\bquint8\b", "quint8"),
    (r"QInt8|\bqint8\b", "qint8"),
    (r"QInt32|\bqint32\b", "qint32"),
    (r"Float8_e4m3fnuz|float8_e4m3fnuz", "float8_e4m3fnuz"),
    (r"Float8_e5m2fnuz|float8_e5m2fnuz", "float8_e5m2fnuz"),
    (r"Float8_e4m3fn|float8_e4m3fn|\be4m3\b", "float8_e4m3fn"),
    (r"Float8_e5m2|float8_e5m2|\be5m2\b", "float8_e5m2"),
    (r"\bfloat8\b|\bfp8\b|\bFloat8\b", "fp8"),
    (r"c10::BFloat16|BFloat16|bfloat16|\bbf16\b|(?<=\dx)bf16\b", "bf16"),
    # OpenCV's depths (CV_64F, CV_8UC3) and DALI's type ids (DALI_FLOAT) name NumPy dtypes too
    (r"c10::Half|at::Half|HalfTensor|\bHalf\b|float16|\bfp16\b|\bf16\b|caffe2::__f16\b|(?<=\dx)f16\b|\bkHALF\b|"
     r"\bCV_16F(C\d)?\b|\bDALI_FLOAT16\b", "fp16"),
    (r"DoubleTensor|\bDouble\b|float64|\bdouble\b|\bfp64\b|\bkDouble\b|\bCV_64F(C\d)?\b|\bDALI_FLOAT64\b", "fp64"),
    (r"FloatTensor|\bFloat\b|float32|\bfloat\b|\bfp32\b|\bf32\b|(?<=\dx)f32\b|\bkFLOAT\b|\bCV_32F(C\d)?\b|"
     r"\bDALI_FLOAT\b", "fp32"),
    (r"ComplexFloat|\bcomplex64\b|\bcfloat\b", "complex64"),
    (r"ComplexDouble|\bcomplex128\b|\bcdouble\b", "complex128"),
    (r"UInt64|\buint64\b|DT_UINT64", "uint64"),
    (r"\blong (long )?int\b|LongTensor|\bLong\b|(?<!u)int64", "int64"),  # C++ names: "long int"
    (r"IntTensor|\bInt\b|(?<!u)int32|\bCV_32S(C\d)?\b", "int32"),
    (r"\buint16\b|\bCV_16U(C\d)?\b", "uint16"),
    (r"ShortTensor|\bShort\b|\bint16\b|\bCV_16S(C\d)?\b", "int16"),
    (r"unsigned char|ByteTensor|\bByte\b|\buint8\b|\bCV_8U(C\d)?\b|\bDALI_UINT8\b", "uint8"),
    (r"signed char|CharTensor|\bChar\b|\bint8\b|\bCV_8S(C\d)?\b", "int8"),
    (r"BoolTensor|(?<=CPU)BoolType|(?<=CUDA)BoolType|\btorch\.bool\b|(?<=ScalarType )Bool\b|(?<=scalar type )Bool\b", "bool"),
]
_DTYPE_RE = re.compile("|".join(f"(?P<g{i}>{p})" for i, (p, _) in enumerate(_DTYPE_TOKENS)), re.IGNORECASE)
# (a word of a hyphenated model or repository name, `meta-llama/...`, is no device)
_DEVICE_RE = re.compile(r"\b(cuda:\d+|cuda|cpu:\d+|cpu\d*|CPU|meta|mps|xpu(?::\d+)?|npu(?::\d+)?|hpu(?::\d+)?|"
                        r"privateuseone(?::\d+)?)\b(?!-\w)")
# legacy type names carry the device: torch.cuda.HalfTensor / CUDAHalfType on the GPU, torch.HalfTensor on the CPU
_TYPE_NAME_RE = re.compile(r"\btorch\.(cuda\.)?([A-Z]\w*?)Tensor\b|"
                           r"\b(CUDA|CPU|MPS|XPU|PrivateUse1)([A-Z]\w*?)(?:Type|Tensor)\b")

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
    (r"\b(F\.|torch\.)?(log_)?softmax\(", "softmax"),
    (r"\bGroupNorm\b|\bgroup_norm\b", "group_norm"),
    (r"\bRMSNorm\b|\brms_norm\b", "rms_norm"),
    (r"\bBatchNorm\w*\b|\bbatch_norm\b", "batch_norm"),
]


# a line that looks like an exception and is a library's notice: xformers' "A matching Triton is not available, some
# optimizations will not be enabled. / Error caught was: No module named 'triton'"
_NOTICE = re.compile(r"Error caught was:")


def error_line(text: str) -> str:
    """The last 'SomeError: message' line of a traceback (or the first non-empty line of a bare message), with the
    lines a terminal or forum wrapped it onto."""
    raw = [undecorated(ln) for ln in text.strip().splitlines()]
    lines = [ln for ln in raw if ln]
    at = [i for i, ln in enumerate(raw) if ln]  # where each of `lines` sits in `raw`
    for i in reversed(range(len(lines))):
        if _NOTICE.match(lines[i]):
            continue
        if re.match(r"^[\w.]*(Error|Exception|Warning|Fault)\b.*?:", lines[i]):
            return _unwrapped_message(raw, at[i])
        if re.fullmatch(r"[\w.]*(Error|Exception)", lines[i]) and i + 1 < len(lines):  # the message on the next line
            return f"{lines[i]}: {lines[i + 1]}"
    for line in reversed(lines):  # an exception quoted inside a sentence or after a prefix: '"onnxruntime...: [...Error]'
        m = re.search(r"[\w.]*[a-z](Error|Exception)\b\]?\s*:", line)
        if m:
            return line.strip("\"'")
    return lines[0] if lines else ""


def _unwrapped_message(lines: list[str], i: int) -> str:
    """`lines[i]` and the lines it was wrapped onto: while a long line (60 characters or more, as wrapping leaves
    them) ends mid-sentence, the next one goes on in lower case ("... but got index" / "is on cpu, different from
    other tensors on xpu:0"); then the detail lines a library prints under its message ("query.dtype: ...")."""
    out = last = lines[i]
    end = i + 1  # the first line after the message and the lines it was wrapped onto
    for nxt in lines[i + 1:i + 4]:
        if (not nxt or len(last) < 60 or re.search(r"[.!?:;)\]'\"`]$", last) or not re.match(r"[a-z0-9(]", nxt)
                or "File \"" in nxt):
            break
        out, last = f"{out} {nxt}", nxt
        end += 1
    for nxt in lines[end:end + 6]:  # the message's own detail lines: "  query.dtype: torch.bfloat16"
        if not nxt or not _DETAIL_LINE.match(nxt):
            break
        out = f"{out} {nxt}"
    return out


_DETAIL_LINE = re.compile(r"[a-z_][\w.\[\]]*\s*:\s+\S")


def undecorated(line: str) -> str:
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
    for m in re.finditer(r"'\w+::(\w+)' is only available for these backends", text):  # a library's custom op
        add(m.group(1))
    for m in re.finditer(r"\bin method wrapper_[A-Za-z]+__(\w+)", text):  # wrapper_CUDA__index_select
        add(m.group(1))
    for m in re.finditer(r"while checking arguments for (\w+)", text):
        add(m.group(1))
    for m in re.finditer(r"\b([a-z][a-z_]+)\(\)(?:: | (?:input|expected|expects|requires|only|must)\b)", text):
        if m.group(1) not in ("operator", "what"):  # C++'s `operator()` and an exception's `what():`, not ops
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
            device, name = m.group(3).lower().replace("privateuse1", "privateuseone"), m.group(4)  # DirectML's
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
               "int64": "Long", "int32": "Int", "uint8": "Byte", "int8": "Char", "fp8": "float8",
               "complex64": "ComplexFloat, two float32", "complex128": "ComplexDouble, two float64"}


def spelled(dtype: str) -> str:
    """A canonical dtype name with its other spellings: 'bf16' -> 'bf16 (bfloat16)'."""
    if dtype.startswith("float8"):
        return f"{dtype} (fp8)"
    return f"{dtype} ({_LONG_NAMES[dtype]})" if dtype in _LONG_NAMES else dtype


def _dtype_of(token: str) -> str:
    found = extract_dtypes(token)
    return spelled(found[0]) if found else token


def _a_and_b(a: str, ta: str, b: str, tb: str) -> str:
    return f"Here `{a}` is {_dtype_of(ta)} and `{b}` {_dtype_of(tb)}."


def _got_where(got: str, want: str) -> str:
    return f"Here a tensor is {_dtype_of(got)} where {_dtype_of(want)} is expected."


def _one_and_other(a: str, b: str) -> str:
    return f"Here one operand is {_dtype_of(a)} and the other {_dtype_of(b)}."


_T = r"[`'\"]?(?:torch\.|c10::|at::)?(long (?:long )?int\b|\w+)[`'\"]?"  # a dtype token as messages print it
_A = r"[`'\"]?(\w+)[`'\"]?"  # an argument / input name
# message shapes that say which operand has which dtype: (pattern, the groups holding dtypes, how to say it)
_NAMED_OPERANDS = [
    (rf"expected (?:dtype|scalar type) {_T} for (?:argument )?{_A} but got (?:dtype|scalar type) {_T}", (0, 2),
     lambda want, arg, got: f"Here `{arg}` is {_dtype_of(got)} where {_dtype_of(want)} is expected."),
    (rf"{_A} has dtype {_T},? (?:whereas|but|while|and) {_A} has dtype {_T}", (1, 3),
     _a_and_b),
    (rf"\b(\w+)\.dtype:? {_T},? and\s+(\w+)\.dtype:? {_T}", (1, 3),
     _a_and_b),
    (rf"promote {_T} and {_T}", (0, 1),
     lambda a, b: f"Here {_dtype_of(a)} meets {_dtype_of(b)}, which PyTorch does not promote."),
    (rf"\bdtype={_T},? out_dtype={_T}", (0, 1),
     lambda a, b: f"Here the input dtype is {_dtype_of(a)} and the output dtype {_dtype_of(b)}."),
    (rf"(?:Found|got) dtype {_T},? but expected {_T}", (0, 1),
     _got_where),
    (rf"expected (?:scalar type|dtype) {_T},? but (?:found|got) (?:scalar type |dtype )?{_T}", (0, 1),
     lambda want, got: _got_where(got, want)),
    (rf"expected type TensorOptions\(dtype={_T}.{{0,300}}? but got TensorOptions\(dtype={_T}", (0, 1),
     lambda want, got: f"Here the gradient is {_dtype_of(got)} where {_dtype_of(want)} is expected."),
    (rf"{_A} dtype \({_T}\) does not match {_A} dtype \({_T}\)", (1, 3),
     _a_and_b),
    # an assert that prints both sides: "hidden_states.dtype (torch.bfloat16) == w1_scale.dtype (torch.float16)"
    (rf"\b(\w+)\.dtype \({_T}\)\s*[=!]=\s*(\w+)\.dtype \({_T}\)", (1, 3),
     _a_and_b),
    (rf"Input type \({_T}\) and (weight|bias) type \({_T}\)", (0, 2),
     lambda a, role, b: f"Here the input is {_dtype_of(a)} and the {role} {_dtype_of(b)}."),
    (rf"found input tensor with {_T} and parameter tensor with {_T}", (0, 1),
     lambda a, b: f"Here the input is {_dtype_of(a)} and the parameters {_dtype_of(b)}."),
    (rf"found {_A} of type {_T} and {_A} of type {_T}", (1, 3),
     _a_and_b),
    (rf"\b(input\w*|weight|bias|self|src|source|other|query|key|value|mask)(?: dtype)? ?[=:(] ?{_T}\)?,? (?:and )?"
     rf"(input\w*|weight|bias|self|src|source|other|query|key|value|mask)(?: dtype)? ?[=:(] ?{_T}", (1, 3),
     _a_and_b),
    (r"argument #\d+ [`'\"]?(\w+)[`'\"]? to have the same type as tensor for argument #\d+ [`'\"]?(\w+)[`'\"]?; but "
     r"type ([\w.:]+?)\.? does not equal ([\w.:]+?)\.?(?:\s|$|\))", (2, 3),
     lambda a, b, ta, tb: _a_and_b(a, ta, b, tb)),
    (rf"\b([A-Za-z_]\w*) (?:must|should) be (?:one of )?((?:[\w.:]+(?:,? or |, ))+[\w.:]+),? but (?:got|found) {_T}",
     (1, 2), lambda name, want, got: f"Here `{name}` is {_dtype_of(got)} where {want} is expected."),
    (rf"Input {_A} of {_A} Op has type {_T} that does not match expected type of {_T}", (2, 3),
     lambda a, op, got, want: f"Here input `{a}` of the `{op}` op is {_dtype_of(got)} where {_dtype_of(want)} is "
                              f"expected."),
    (rf"got {_T} for the destination and {_T} for the source", (0, 1),
     lambda a, b: f"Here the destination is {_dtype_of(a)} and the source {_dtype_of(b)}."),
    (rf"got:? {_T} != {_T}", (0, 1),
     _one_and_other),
    (rf"but got {_T} and {_T}\b", (0, 1),
     _one_and_other),
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


# messages that name the tensors or the sides that are off: (pattern, the sentence its groups fill)
_NAMED_SENTENCES = (
    (r"found input tensor at (\S+?) and parameter tensor at (\S+?)(?:[\s!.,]|$)",
     "Here the input is on {0} and the parameters on {1}."),
    # the check names the argument that is off
    (r"\bTensor for (?:argument #\d+ )?[\"'`](\w+)[\"'`] is on (\w+(?::\d+)?),? but expected (?:it to be )?on "
     r"(\w+(?::\d+)?)", "Here `{0}` is on {1} where {2} is expected."),
    # an index tensor, or the tensor it indexes, built without device=
    (r"indices should be either on cpu or on the same device as the indexed tensor \((\w+(?::\d+)?)\)",
     "Here the indices and the tensor they index (on {0}) are on different devices: a tensor built with "
     "`torch.arange(n)` or `torch.tensor(a_list)` without `device=` is on the CPU, on either side."),
    # a module that pinned its tensors' device when it was set up
    (r"\bThe device of [\"'`]?(\w+)[\"'`]? has changed\b",
     "Here `{0}` arrives on another device than the one it was on when the module was set up."),
    # a kernel's own check that two of its tensors share a dtype
    (r"\b(\w+)\.(?:scalar_type|dtype)\(\) ?== ?(\w+)\.(?:scalar_type|dtype)\(\)",
     "Here the check compares `{0}` and `{1}`: one of them has another dtype."),
)


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
    for pattern, sentence in _NAMED_SENTENCES:
        m = re.search(pattern, text)
        if m:
            return sentence.format(*m.groups())
    parts = []
    if len(devices) >= 2:
        parts.append("devices " + " and ".join(devices[:2]))
    if len(dtypes) >= 2:
        named = [spelled(d) for d in dtypes[:3]]
        parts.append("dtypes " + ", ".join(named[:-1]) + " and " + named[-1])
    if len(dtypes) == 1 and re.search(r"\b(but (got|found|is)|got|found|(?i:unsupported|not supported|not allowed|"
                                      r"forbidden))\b", text):
        parts.append(f"dtype {spelled(dtypes[0])}")  # the one it refused
    return f"This message names {'; '.join(parts)}." if parts else ""
