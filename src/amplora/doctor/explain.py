"""`amplora explain`: an error message or a whole traceback -> cause and fix from the knowledge base.

Besides the matching entry it pulls out what the text itself says (paste.py: dtypes, op / kernel names, devices,
named operands), where a traceback was raised (frames.py) and what the paste shows around the message
(context.py), and adds them to the knowledge base's cause and fix, which are the same for every text of a kind.
"""
from __future__ import annotations

import re
import textwrap
from dataclasses import asdict, dataclass, field

from amplora.doctor import kb
from amplora.doctor.context import ROCM, paste_context
from amplora.doctor.frames import FRAMEWORK, calling_library, exception_tail, failing_line, raised_in
from amplora.doctor.paste import (error_line, extract_devices, extract_dtypes, extract_ops, situation, spelled,
                                  undecorated)

__all__ = ["Explanation", "error_line", "explain", "extract_devices", "extract_dtypes", "extract_ops", "spelled"]


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


# a paste longer than this keeps its head (the report) and its tail (the exception): the knowledge base's patterns
# read the whole text, so a log of megabytes would take minutes
_HEAD, _TAIL = 8_000, 40_000
# a longer line (a log pasted without its line breaks) is wrapped and a longer word (a base64 blob, a hash) split:
# patterns that read on along a line or a word from every position would take time quadratic in its length
_LINE, _WORD = 1_000, 200


def _wrapped(line: str) -> str:
    """A long line broken before each exception name it holds, then wherever it is still longer than _LINE."""
    parts = re.split(r" (?=[\w.]*(?:Error|Exception|Warning):)", line)
    return "\n".join(piece for part in parts for piece in textwrap.wrap(
        part, _LINE, expand_tabs=False, replace_whitespace=False, drop_whitespace=False, break_on_hyphens=False))


def _bounded(text: str) -> str:
    if len(text) > _HEAD + _TAIL:
        text = f"{text[:_HEAD]}\n...\n{text[-_TAIL:]}"
    text = re.sub(rf"\S{{{_WORD + 1},}}", lambda m: " ".join(textwrap.wrap(m.group(0), _WORD)), text)
    return re.sub(rf"[^\n]{{{_LINE + 1},}}", lambda m: _wrapped(m.group(0)), text)


def _named(line: str) -> int:
    """How many dtypes and devices `line` names."""
    return len(extract_dtypes(line)) + len(extract_devices(line))


def _told(text: str, key: str) -> str:
    """For an entry that reads a fault told in words: the user's own sentence that names two dtypes (or, for a
    device story, two devices), quoted, so the answer names the parts the user named."""
    count = extract_devices if key == "device-in-words" else extract_dtypes
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", text):
        if len(count(sentence)) >= 2 and len(sentence) <= 240:
            return f"The text says: \"{sentence.strip()}\"."
    return ""


def explain(text: str) -> Explanation:
    """Explain an error message or traceback. `recognized` is False when no knowledge-base entry matches."""
    text = kb.plain(_bounded(text))
    line = exception = error_line(text)
    entry = kb.lookup(text, exception_tail(text, line), exception=bool(re.match(r"[\w.]*(Error|Exception)\b", line)))
    failed_import = bool(kb.generic.IMPORT_FAILURE.match(line))  # an install problem, whatever dtype it names
    if failed_import and entry is not None and entry.key not in kb.generic.EXPLAINS_IMPORT_FAILURE:
        entry = None
    m = entry.match.search(text) if entry is not None else None
    if m and not re.match(r"[\w.]*(Error|Exception|Warning)\b", line):  # no exception line: the line the entry
        read = undecorated(kb.lines_around(text, m.start()))  # read stands for it, if it names more
        if read and _named(read) > _named(line):
            line = read
    text_dtypes = extract_dtypes(text)
    facts = dict(error=line, dtypes=extract_dtypes(line) or text_dtypes,
                 ops=extract_ops(re.sub(r"\s+", " ", text)),
                 devices=extract_devices(line or text))
    if entry is None:
        return Explanation(recognized=False, fix=kb.IMPORT_ADVICE if failed_import else kb.advice(text), **facts)
    here = situation(line or text, facts["dtypes"], facts["devices"], full=text)
    if entry.key.endswith("-in-words"):
        here = f"{here} {_told(text, entry.key)}".strip()
    unnamed = [op for op in facts["ops"] if op.lower() not in f"{entry.title} {entry.cause} {here}".lower()]
    if unnamed:
        here = f"{here} The op is {unnamed[0]}.".strip()  # the one thing a fixed answer cannot guess
    said = f"{entry.title} {entry.cause} {entry.fix} {here}".lower()
    devices = extract_devices(text)
    if (entry.kind in ("cpu-kernel", "device-capability", "quantized", "backend", "overflow", "mismatch")
            and len(devices) == 1
            and not re.search(rf"\b{re.escape(devices[0].split(':')[0])}\b", said)
            and not (devices[0].startswith("cuda") and ROCM.search(text))):  # ROCm runs as "cuda" too
        here = f"{here} The text shows a run on {devices[0]}.".strip()  # which device refused the dtype
    more_cause, more_fix = paste_context(entry, text, exception, text_dtypes, said)
    here = f"{here} {more_cause}".strip()
    where = raised_in(text)
    if where:
        here = f"{here} It is raised in {where}.".strip()
        code = (failing_line(text) if entry.kind in ("device", "mismatch", "index")
                and entry.key != "legacy-cuda-type-no-gpu" else "")  # there the last line is torch's CUDA start
        if code:
            here = f"{here} The failing line is `{code}`: one of its tensors is the odd one."
    fix = entry.fix
    m = re.match(r"([A-Za-z_][\w-]*) \(", where)  # raised in an installed package
    library = m.group(1) if m else ""
    if library in FRAMEWORK:
        library = calling_library(text) or library
    if (entry.kind == "mismatch" and re.search(r"\bapex\b|\bamp\.initialize\b", text, re.IGNORECASE)
            and (not library or re.search(r"\bT5|_t5_|\bt5\b", text))):
        library = "apex"  # installed apex swaps in its fused norms (T5's too) without a frame of its own in a paste
        if re.search(r"\bapex\.amp\b|\bamp\.initialize\b|\bopt_level\b", text) and not re.search(
                r"Fused\w*Norm|fused_\w*norm", text, re.IGNORECASE):
            library = "apex.amp"  # its casting lists, not its norms
    if entry.kind == "mismatch" and library in kb.generic.LIBRARY_FIXES:
        fix = f"{kb.generic.LIBRARY_FIXES[library]} {fix}"
    elif entry.kind == "mismatch" and re.search(kb.patterns.QUANTIZED_BASE, text, re.IGNORECASE):
        fix = f"{kb.generic.QUANTIZED_BASE_FIX} {fix}"
        if re.search(r"deepspeed", text, re.IGNORECASE) and re.search(r"8[- ]?bit|int8|bits?[ =_]+8\b", text):
            fix = f"{kb.generic.QUANTIZED_DEEPSPEED_FIX} {fix}"
    elif entry.kind == "mismatch" and library and library not in FRAMEWORK:
        fix = (f"It is raised inside {library}'s own code: unless your code cast something {library} uses, upgrade "
               f"{library} (such mismatches are often bugs fixed in a later release) or report it. {fix}")
    elif entry.kind == "device" and library and library not in FRAMEWORK:
        fix = (f"{fix} It is raised inside {library}: if your own tensors and model are on one device, compare the "
               f"installed {library} version with the one the code was written for.")
    return Explanation(recognized=True, key=entry.key, title=entry.title, cause=f"{entry.cause} {here}".strip(),
                       fix=f"{fix} {more_fix}".strip(), **facts)
