"""Knowledge base of precision/device error messages: what each means and how to fix it.

Entries are tried in order; the first whose `match` regex hits the text (and whose `context` regex, when given,
hits it too) wins. Backend- and context-specific entries come before the generic ones they refine; a
context-specific story needs evidence in the text (a `context`), otherwise the generic entry answers and says
what the message alone cannot tell. `kind` groups entries for the live diagnosis in diagnose.py, which refines
cause and fix with real names. Causes are one sentence (the live diagnosis prints them as such).

The entries live in topic modules (scaling, quantized, accelerators, backends, runtimes, webmobile, dataprep,
jaxtpu, scientific, tabular, frameworks, compilers, exported, devices, dtypes, generic); ENTRIES below fixes the order
in which their blocks are tried. A text that holds a known fault of another kind (others.py: a GPU too old for
FlashAttention, an op missing on MPS, loss scaling that is still calibrating) is not explained, even when dtype words
appear around it: it gets that fault's own advice.
"""
from __future__ import annotations

import html
import re
import textwrap

from amplora.doctor.kb import (accelerators, backends, compilers, dataprep, devices, dtypes, exported, frameworks,
                               generic, jaxtpu, lowbit, others, patterns, quantized, runtimes, scaling, scientific,
                               tabular, training, webmobile)
from amplora.doctor.kb.entry import Entry

ENTRIES: tuple[Entry, ...] = (
    *scaling.SCALING, *training.TRAINING, *lowbit.LOWBIT, *quantized.QUANTIZED, *accelerators.AUTOCAST,
    *accelerators.ACCELERATORS, *backends.BACKENDS, *backends.DIFFUSION, *runtimes.RUNTIMES, *webmobile.WEBMOBILE,
    *dataprep.DATAPREP, *jaxtpu.JAXTPU, *scientific.SCIENTIFIC, *tabular.TABULAR,
    *frameworks.FRAMEWORKS, *compilers.COMPILERS, *exported.EXPORTED,
    *backends.KERNELS, *scaling.OVERFLOW, *devices.DEVICES, *dtypes.BUFFERS, *backends.CAPABILITY, *dtypes.KERNELS,
    *dtypes.STORIES, *training.NONFINITE_REPORTS, *generic.FALLBACKS, *generic.LAST_RESORT,
)

# the same entries for a paste that ends in an exception: symptoms reported in words come last
BY_EXCEPTION: tuple[Entry, ...] = (
    tuple(e for e in ENTRIES if e not in training.NONFINITE_REPORTS) + training.NONFINITE_REPORTS
)

GENERAL_ADVICE = (
    "Not a message the doctor knows. General advice: run the script under `amplora doctor run script.py` to get "
    "the module, op and operand dtypes; run `amplora doctor` to see what your device supports; keep trainable "
    "params fp32, run forward/backward/generate under one autocast region, and cast at module boundaries with "
    "`.to(x.dtype)`."
)

# a paste that ends in a failed import: an install problem, whatever dtype or kernel its message names
IMPORT_ADVICE = (
    "Not a precision fault: an import failed, so a package (or a compiled extension inside one) is missing, built "
    "for another torch or CUDA, or older than the code expects, whatever dtype or kernel its message names. "
    "Install the package it names, or the release the project pins (`pip install -U <package>`, or rebuild the "
    "extension against the installed torch)."
)

# a NaN the text itself tells is divergence (the loss grew first, or a lower learning rate avoids it): no precision
# fault, but the advice that applies
DIVERGENCE_ADVICE = (
    "Not a precision fault as told: a loss that grows before it turns NaN, or a NaN that a lower learning rate "
    "avoids, is the optimisation diverging. Lower the learning rate (or warm it up), clip gradients "
    "(`torch.nn.utils.clip_grad_norm_`), and check the data with `torch.isfinite`; `amplora doctor run script.py` "
    "names the first op that produced a non-finite value."
)
# a NaN in a training loss or gradient norm with no sign of precision in the text
NAN_ADVICE = (
    "Not a precision fault as told: a loss or gradient norm went NaN/inf, and the text shows no half precision and "
    "nothing else that points to it, so a learning rate too high, NaN in the data, or a log, division or square "
    "root of zero are as likely. `amplora doctor run script.py` names the op, module and phase where the first "
    "non-finite value appeared; if the run does use fp16 (`fp16=True`, AMP, `.half()`), an overflow past 65504 is "
    "the usual cause there: train in bf16 or fp32; a NaN grad_norm now and then beside a finite loss is what fp16 "
    "loss scaling logs on a step it skips, expected and harmless."
)
_DIVERGED = re.compile(patterns.DIVERGED, re.IGNORECASE)
_NONFINITE = re.compile(generic.NONFINITE, re.IGNORECASE)


def advice(text: str) -> str:
    """What to say about a text no entry explains."""
    pasted = plain(text)
    text = _unwrapped(pasted)
    known = others.other_kind(pasted) or others.other_kind(text)  # some patterns read the line breaks
    if known:
        return known
    if generic.OTHER_FAULT.search(text):  # an OOM, a missing module...: the general advice, not a NaN story
        return GENERAL_ADVICE
    if _DIVERGED.search(text):
        return DIVERGENCE_ADVICE
    return NAN_ADVICE if _NONFINITE.search(text) else GENERAL_ADVICE


# typographic quotes (pasted through a blog, a word processor or a chat client) read as plain ones
_PLAIN_QUOTES = str.maketrans({"\u201c": '"', "\u201d": '"', "\u201e": '"', "\u2033": '"',
                               "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u2032": "'",
                               "\uff08": "(", "\uff09": ")", "\uff1a": ": ", "\uff0c": ", ",  # full-width ( ) : ,
                               "\u3002": ".", "\uff0e": "."})  # an ideographic or full-width stop: "torch。cuda"


def plain(text: str) -> str:
    """`text` without colour codes and per-line launcher or log prefixes, with typographic quotes replaced by ASCII
    ones, HTML entities (`&#39;`, `&quot;`, pasted from a web page's source) decoded, Markdown links that a forum
    made of file names (`[functional.py](https://...)`) turned back into the names, Markdown inline code unwrapped,
    a space that a wrapped line left before a dot (`torch .LongTensor`) removed, a kernel message's quotes put back
    around its words (`'kernel 'not implemented for' BFloat16 '`), the line breaks of a traceback
    pasted as one line put back, a traceback escaped inside a JSON or Python string (`\\'BFloat16\\'`,
    `\\n  File`) read as printed, the spaces and colons a retyped conv message lost put back (`Input type(c10:Half)
    should`), and a space between CJK characters and ASCII words; Windows line ends, quote
    markers of a reply (`> `), the `# ` of a message pasted as comment lines, the borders of a Rich panel and an
    indent shared by every line are dropped."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = textwrap.dedent(_BOX_BORDER.sub("", _QUOTE_MARK.sub("", _uncommented(text))))
    text = _LINE_PREFIX.sub("", _ANSI.sub("", text))
    if "\n" not in text.strip() and _TRACEBACK_LINE.search(text):  # a traceback whose line breaks a page lost
        text = _LOST_BREAK.sub("\n", text)
    text = re.sub(r"\[([^\]\n]{1,200})\]\(https?://[^)\s]+\)", r"\1", html.unescape(text))  # Markdown autolinks
    text = _INLINE_CODE.sub(r"\1", text)
    text = _ESCAPED_QUOTE.sub(r"\1", text)
    text = _WRAPPED_DOT.sub(".", text)
    text = _SHIFTED_QUOTES.sub(lambda m: f"\"{m[1]}\" not implemented for '{m[2]}'", text)
    if _ESCAPED_TRACEBACK.search(text):  # only then: `\n` is also part of Windows paths (C:\\new)
        text = text.replace("\\n", "\n")
    text = _RETYPED_CONV.sub(r"\1 type (", _RETYPED_C10.sub("c10::", _RETYPED_SHOULD.sub(") ", text)))
    return _CJK_NEXT_TO_ASCII.sub(" ", text.translate(_PLAIN_QUOTES))


# a conv message retyped by hand: "Input type(c10:BFloat16) and bias type(c10:Half)should be the same"
_RETYPED_CONV = re.compile(r"\b(Input|weight|bias) type\(")
_RETYPED_C10 = re.compile(r"\bc10:(?=[A-Z]\w+\))")
_RETYPED_SHOULD = re.compile(r"\)(?=should be the same\b)")
# a reply's quote markers (`> `, `> > `; not a doctest's `>>>`) and a Rich panel's left and right borders
_QUOTE_MARK = re.compile(r"^[ \t]*(?:>(?!>>)[ \t]?)+", re.MULTILINE)
_BOX_BORDER = re.compile(r"^[ \t]*[│┃][ \t]?|[ \t]*[│┃][ \t]*$", re.MULTILINE)
# what a terminal or launcher adds to every line: colour codes, torchrun's `[rank0]:` / `[default0]:`, a log
# record's timestamp and level
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_LINE_PREFIX = re.compile(r"(?m)^[ \t]*\[(?:rank|default)\d+\]:[ \t]?|"
                          r"^\[?\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?\]?[ \t]*(?:-[ \t]*)?"
                          r"(?:(?:ERROR|WARNING|INFO|DEBUG|CRITICAL)[ \t]*-?[ \t]*)?")

# a message pasted as Python comments under the call that raised it, wrapped onto more than one `# ` line
_COMMENT_RUN = re.compile(r"(?m)(?:^[ \t]*# .*\n?){2,}")
_COMMENTED_ERROR = re.compile(r"^[ \t]*# (?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception): ", re.MULTILINE)


def _uncommented(text: str) -> str:
    """`text` with the `# ` dropped from a run of comment lines that holds an exception line."""
    return _COMMENT_RUN.sub(lambda m: (re.sub(r"(?m)^[ \t]*# ", "", m.group(0))
                                       if _COMMENTED_ERROR.search(m.group(0)) else m.group(0)), text)


# Markdown inline code around a word of the message: "`scatter()`: Expected `self.dtype` to be equal to `src.dtype`"
_INLINE_CODE = re.compile(r"(?<![`\w])`([^`\n]{1,120})`(?![`\w])")
_TRACEBACK_LINE = re.compile(r"Traceback \(most recent call last\)|\bFile \"[^\"]+\", line \d+")
_LOST_BREAK = re.compile(r"\s+(?=Traceback \(most recent call last\)|File \"|"
                         r"(?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception|Warning): )")

# a terminal or forum that wraps a long line can leave a space before a dot: "found type torch .LongTensor"
_WRAPPED_DOT = re.compile(r"(?<=\btorch) \.(?=[A-Za-z])|(?<=\btorch\.cuda) \.(?=[A-Z])")

# the quotes of a kernel message retyped or machine-translated with spaces inside them, or shifted off their words:
# "'weight_norm_fwd_first_im_kernel 'not implemented for' BFloat16 '"
_SHIFTED_QUOTES = re.compile(r"['\"]\s*(\w+)\s*['\"]\s*not implemented for\s*['\"]\s*"
                             r"(Half|BFloat16|Float|Double|Long|Int|Bool|Byte|Char|Short|Complex\w+|Float8\w+)\s*['\"]")

# quotes escaped by a JSON or Python string that holds a message ("not implemented for \\'BFloat16\\'")
_ESCAPED_QUOTE = re.compile(r"\\(['\"])")
_ESCAPED_TRACEBACK = re.compile(r"Traceback \(most recent call last\):\\n|\\n\s+File \"")

# Chinese / Japanese / Korean text runs into ASCII words without a space ("fp16推理", "loss为nan"), and `\b` sees no
# boundary there (CJK characters are word characters): a space between them lets the patterns read both
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
_CJK_NEXT_TO_ASCII = re.compile(f"(?<=[{_CJK}])(?=[A-Za-z0-9])|(?<=[A-Za-z0-9])(?=[{_CJK}])")


def _unwrapped(text: str) -> str:
    """`text` with line breaks and runs of spaces collapsed: a message wrapped by a terminal, an e-mail or a forum
    reads as the one line it was."""
    return re.sub(r"\s+", " ", text)


def lookup(text: str, error_line: str = "", exception: bool = False) -> Entry | None:
    """The first entry that matches `text` (an error message or a whole traceback), or None. When `error_line` (the
    exception the paste ends in) is a fault of another kind (out of memory, a shape mismatch, an import error...),
    dtype words elsewhere in the paste do not make it a precision fault: only an entry matching that line answers.
    With `exception` (the paste ends in an exception), the entries for results reported in words (NaN or black
    output, drift, slowness) come after the generic ones, so that a log line above the exception does not answer
    for it."""
    text = plain(text)
    if others.other_kind(text) or (not exception and _FALLBACK_BESIDE_FAILURE.search(text)):
        return None
    other = (bool(error_line) and bool(generic.OTHER_FAULT.search(error_line))
             and not generic.OTHER_FAULT_CAUSED_BY_OURS.search(text))
    entry = _first_hit(text, BY_EXCEPTION if exception else ENTRIES, error_line if exception else "")
    if entry is not None and not exception and _on_a_warning_line(entry, text):
        # a warning above an error told without its exception name ("... due to error Expected all tensors..."):
        # the error answers, if an entry explains it on a line that reports an error
        rest = _WARNING_LINES.sub("", text)
        later = _first_hit(rest, ENTRIES, "")
        m = later.match.search(rest) if later is not None else None
        if m is not None and re.search(r"error|exception|failed", lines_around(rest, m.start(), m.end()), re.I):
            entry = later
    return entry if entry is None or not other or entry.match.search(plain(error_line)) else None


def _first_hit(text: str, entries, error_line: str) -> Entry | None:
    unwrapped = _unwrapped(text)
    for entry in entries:
        # line-bound patterns ([^\n], (?m)) read only the text as pasted
        if entry.hits(text) or (not entry.line_bound and entry.hits(unwrapped)):
            if error_line and _only_a_warning(entry, text, plain(error_line)):
                continue  # a warning logged above another exception does not answer for it
            return entry
    return None


_WARNING_LINES = re.compile(r"(?m)^.*(\w*Warning\b|warnings\.warn\().*$")


def _on_a_warning_line(entry: Entry, text: str) -> bool:
    m = entry.match.search(text)
    return m is not None and bool(_WARNING_LINES.search(lines_around(text, m.start(), m.end())))


_FALLBACK_BESIDE_FAILURE = re.compile(patterns.FALLBACK_BESIDE_FAILURE, re.IGNORECASE | re.DOTALL)


def _only_a_warning(entry: Entry, text: str, error_line: str) -> bool:
    """Whether `entry` matches `text` only on a warning line while the paste ends in an exception it does not
    match."""
    return not entry.match.search(error_line) and _on_a_warning_line(entry, text)


def lines_around(text: str, start: int, end: int | None = None) -> str:
    """The whole lines of `text` that hold `text[start:end]` (the one line holding `start` without `end`)."""
    stop = text.find("\n", start if end is None else end)
    return text[text.rfind("\n", 0, start) + 1:stop if stop >= 0 else len(text)]


def by_key(key: str) -> Entry:
    for entry in ENTRIES:
        if entry.key == key:
            return entry
    raise KeyError(key)
