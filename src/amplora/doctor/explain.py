"""`amplora explain`: an error message or a whole traceback -> cause and fix from the knowledge base.

Besides the matching entry it pulls out what the text itself says: dtypes, op / kernel names and devices.
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

from amplora.doctor import kb

# token in an error message -> canonical dtype name (longest spellings first so 'c10::BFloat16' wins over 'Float')
_DTYPE_TOKENS = [
    (r"c10::BFloat16|BFloat16|bfloat16|\bbf16\b", "bf16"),
    (r"c10::Half|at::Half|HalfTensor|\bHalf\b|float16|\bfp16\b", "fp16"),
    (r"DoubleTensor|\bDouble\b|float64|\bdouble\b", "fp64"),
    (r"FloatTensor|\bFloat\b|float32|\bfloat\b|\bfp32\b", "fp32"),
    (r"LongTensor|\bLong\b|int64", "int64"),
    (r"IntTensor|\bInt\b|int32", "int32"),
]
_DTYPE_RE = re.compile("|".join(f"(?P<g{i}>{p})" for i, (p, _) in enumerate(_DTYPE_TOKENS)), re.IGNORECASE)
_DEVICE_RE = re.compile(r"\b(cuda:\d+|cuda|cpu|meta|mps|xpu)\b")

# phrases that name an op even when no kernel name is quoted
_OP_PHRASES = [
    (r"mat1 and mat2|m1 and m2|self and mat2", "matmul (mm/addmm)"),
    (r"both vectors", "dot"),
    (r"Input type \(.*?\) and (weight|bias) type", "convolution"),
    (r"Index put", "index_put_"),
    (r"query, key,? and value", "scaled_dot_product_attention"),
    (r"unscale FP16 gradients", "GradScaler.unscale_"),
    (r"Expected out tensor", "out= write"),
    (r"\.numpy\(\)|ScalarType BFloat16", "Tensor.numpy"),
]


@dataclass
class Explanation:
    recognized: bool
    error: str
    key: str = ""
    title: str = ""
    cause: str = ""
    fix: str = ""
    ref: str = ""
    dtypes: list[str] = field(default_factory=list)
    ops: list[str] = field(default_factory=list)
    devices: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return asdict(self)


def error_line(text: str) -> str:
    """The last 'SomeError: message' line of a traceback (or the first non-empty line of a bare message)."""
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    for ln in reversed(lines):
        if re.match(r"^[\w.]*(Error|Exception|Warning|Fault)\b.*?:", ln):
            return ln
    return lines[0] if lines else ""


def extract_dtypes(text: str) -> list[str]:
    found: list[str] = []
    for m in _DTYPE_RE.finditer(text):
        name = _DTYPE_TOKENS[int(m.lastgroup[1:])][1]
        if name not in found:
            found.append(name)
    return found


def extract_ops(text: str) -> list[str]:
    ops: list[str] = []

    def add(name):
        if name and name not in ops:
            ops.append(name)

    for m in re.finditer(r"\"(\w+)\" not implemented|(\w+) not implemented for", text):
        add(m.group(1) or m.group(2))
    for m in re.finditer(r"\baten[.:]{1,2}(\w+)", text):
        add(m.group(1))
    for m in re.finditer(r"while checking arguments for (\w+)", text):
        add(m.group(1))
    for m in re.finditer(r"\b([a-z_]+)\(\): ", text):
        add(m.group(1))
    for m in re.finditer(r"Function '(\w+Backward\d*)'|\b(\w+Backward\d+)\b", text):
        add(m.group(1) or m.group(2))
    for m in re.finditer(r"\b(linalg\.\w+|torch\.linalg\.\w+)", text):
        add(m.group(1).replace("torch.", ""))
    for pattern, name in _OP_PHRASES:
        if re.search(pattern, text, re.IGNORECASE):
            add(name)
    return ops


def extract_devices(text: str) -> list[str]:
    found: list[str] = []
    for m in _DEVICE_RE.finditer(text):
        if m.group(1) not in found:
            found.append(m.group(1))
    return found


def explain(text: str) -> Explanation:
    """Explain an error message or traceback. `recognized` is False when no knowledge-base entry matches."""
    line = error_line(text)
    entry = kb.lookup(text)
    facts = dict(error=line, dtypes=extract_dtypes(line or text), ops=extract_ops(text),
                 devices=extract_devices(line or text))
    if entry is None:
        return Explanation(recognized=False, fix=kb.GENERAL_ADVICE, **facts)
    return Explanation(recognized=True, key=entry.key, title=entry.title, cause=entry.cause, fix=entry.fix,
                       ref=entry.ref, **facts)
