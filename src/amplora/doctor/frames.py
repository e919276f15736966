"""The traceback in a paste: where it was raised, the library that called, the source line of the last frame."""
from __future__ import annotations

import re

from amplora.doctor.paste import undecorated


# a traceback frame as Python, IPython/Jupyter and Rich print it: (path, line, function)
_FRAME_RE = re.compile(r'File "(?P<a>[^"]+)", line (?P<al>\d+), in (?P<af>\S+)|'
                       r'File (?P<b>~?[^\s":]+\.py):(?P<bl>\d+), in (?P<bf>[\w.<>]+)|'
                       r'(?P<c>(?:~|/|[A-Za-z]:\\)[^\s":]+\.py):(?P<cl>\d+) in (?P<cf>[\w.<>]+)|'
                       # older IPython: `path.py in func(args)` (a Colab link around the path), the line on `-->`
                       r'(?P<d>(?:~|/|[A-Za-z]:\\)[^\s":\[\]()]+\.py)(?:\]\([^)\s]*\))? in (?P<df>[\w.<>]+)\(')
# the current line of an older IPython frame: `--> 420     mqloss = ...`
_ARROW_RE = re.compile(r"^-+>\s*(\d+)\s(.*)$", re.MULTILINE)
# the current line of a Rich frame, among the lines shown around it: `│ ❱ 116 │   return F.linear(...)   │`
_RICH_CURRENT_RE = re.compile(r"❱\s*\d+\s*│(.*)$", re.MULTILINE)


def _frames(text: str) -> list[tuple[str, str, str]]:
    matches = list(_FRAME_RE.finditer(text))
    frames = []
    for m, nxt in zip(matches, matches[1:] + [None]):
        if m["d"]:  # its line is on the `-->` before the next frame
            arrow = _ARROW_RE.search(text, m.end(), nxt.start() if nxt else len(text))
            frames.append((m["d"], arrow.group(1) if arrow else "?", m["df"]))
        else:
            frames.append((m["a"] or m["b"] or m["c"], m["al"] or m["bl"] or m["cl"], m["af"] or m["bf"] or m["cf"]))
    return frames
_LIBRARY_RE = re.compile(r"(?:site|dist)-packages[/\\]([A-Za-z_][\w.-]*)[/\\]?(.*)")


# packages whose frames end every traceback of an op: a mismatch raised there says nothing about whose code is at fault
FRAMEWORK = {"torch", "torchvision", "torchaudio", "numpy", "triton", "accelerate"}


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
    if last["d"]:  # the last frame: its `-->` line is the next one in the rest of the text
        arrow = _ARROW_RE.search(text, last.end())
        line = undecorated(arrow.group(2)) if arrow else ""
        return line if line and len(line) <= 160 else ""
    if last["c"]:  # Rich shows lines around the current one and marks it; its box ends with `╰`
        end = text.find("╰", last.end())
        current = _RICH_CURRENT_RE.search(text, last.end(), end if end >= 0 else len(text))
        line = undecorated(current.group(1)) if current else ""
        return line if line and len(line) <= 160 else ""
    for raw in text[last.end():].splitlines()[1:3]:
        line = undecorated(raw)
        if not line or re.fullmatch(r"[~^\s]+", line):
            continue
        if _FRAME_RE.search(line) or re.match(r"[\w.]*(Error|Exception)\b", line) or len(line) > 160:
            return ""
        return line
    return ""


def calling_library(text: str) -> str:
    """The innermost installed package other than the framework on a traceback's stack ('' when the innermost
    frame outside the framework is the user's own code)."""
    for path, _, _ in reversed([f for f in _frames(text) if not f[0].startswith("<")]):
        m = _LIBRARY_RE.search(path)
        package = m.group(1).split(".")[0] if m else ""
        if package not in FRAMEWORK:
            return package
    return ""


def exception_tail(text: str, line: str) -> str:
    """The exception a paste ends in with the lines its message continues on (a state-dict error lists its keys
    below); just `line` when the paste holds no exception line."""
    if not re.match(r"^[\w.]*(Error|Exception|Warning|Fault)\b", line):
        return line
    head = line.split(": ", 1)[-1][:60]
    at = text.rfind(head)
    return text[at:] if head and at >= 0 else line
