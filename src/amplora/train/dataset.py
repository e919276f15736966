"""Reading training data: JSONL in alpaca form (instruction/input/output) or chat form (messages).

Every record becomes a conversation (a list of {role, content}). Anything malformed is a one-line error naming
file:line and what is wrong, raised before a run writes anything.
"""
from __future__ import annotations

import json
import random
import sys
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from amplora.errors import AmploraError
from amplora.train.user_files import read_bytes

ROLES = ("system", "user", "assistant")
BUNDLED_TRAIN = "precision_triage_train.jsonl"
BUNDLED_EVAL = "precision_triage_eval.jsonl"


@dataclass(frozen=True)
class Example:
    messages: tuple  # tuple of {"role", "content"} dicts, ending with the answer the model should give
    where: str  # "file:line", for messages about this record

    @property
    def prompt(self) -> list[dict]:
        """The conversation up to (not including) the last assistant answer: what eval generates from."""
        last = max(i for i, m in enumerate(self.messages) if m["role"] == "assistant")
        return list(self.messages[:last])

    @property
    def answer(self) -> str:
        return [m for m in self.messages if m["role"] == "assistant"][-1]["content"]


def bundled_path(name: str) -> Path:
    return Path(str(resources.files("amplora") / "data" / name))


def _text_field(record: dict, key: str, where: str, required: bool = True) -> str:
    if key not in record:
        if required:
            raise AmploraError(f"{where}: missing field {key!r} (alpaca form needs 'instruction' and 'output', "
                               f"'input' optional; chat form needs 'messages')")
        return ""
    value = record[key]
    if not isinstance(value, str):
        raise AmploraError(f"{where}: field {key!r} must be a string, got {type(value).__name__}")
    return _unicode(value, where, f"field {key!r}")


def _unicode(text: str, where: str, what: str) -> str:
    """json.loads lets "\\ud800" (half a surrogate pair) through; no tokenizer can encode it."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise AmploraError(f"{where}: {what} has a lone surrogate \\u{ord(text[e.start]):04x} at character "
                           f"{e.start} (not a Unicode character)") from None
    return text


def _chat_messages(record: dict, where: str) -> tuple:
    messages = record["messages"]
    if not isinstance(messages, list) or not messages:
        raise AmploraError(f"{where}: 'messages' must be a non-empty list of {{role, content}} objects")
    out = []
    for i, m in enumerate(messages):
        if not isinstance(m, dict) or "role" not in m or "content" not in m:
            raise AmploraError(f"{where}: messages[{i}] must be an object with 'role' and 'content'")
        if m["role"] not in ROLES:
            raise AmploraError(f"{where}: messages[{i}] has role {m['role']!r}; valid: {', '.join(ROLES)}")
        if not isinstance(m["content"], str):
            raise AmploraError(f"{where}: messages[{i}].content must be a string, got {type(m['content']).__name__}")
        out.append({"role": m["role"], "content": _unicode(m["content"], where, f"messages[{i}].content")})
    assistant = [i for i, m in enumerate(out) if m["role"] == "assistant"]
    if not assistant:
        raise AmploraError(f"{where}: 'messages' has no assistant message, so there is nothing to learn")
    if not out[assistant[-1]]["content"].strip():
        raise AmploraError(f"{where}: the last assistant message is empty")
    return tuple(out[: assistant[-1] + 1])  # trailing user turns have no answer to learn


def parse_record(record, where: str) -> Example:
    if not isinstance(record, dict):
        raise AmploraError(f"{where}: expected a JSON object, got {type(record).__name__}")
    if "messages" in record:
        return Example(_chat_messages(record, where), where)
    instruction = _text_field(record, "instruction", where)
    output = _text_field(record, "output", where)
    extra = _text_field(record, "input", where, required=False)
    if not output.strip():
        raise AmploraError(f"{where}: field 'output' is empty")
    user = f"{instruction}\n\n{extra}" if extra.strip() else instruction
    return Example(({"role": "user", "content": user}, {"role": "assistant", "content": output}), where)


MAX_DATA_BYTES = 4 << 30  # every record is held in memory, so far beyond any sensible in-memory dataset
_BOM = b"\xef\xbb\xbf"
_JSON_BLANK = " \t\r"  # JSON's own whitespace; U+2028, U+0085, \f and friends are not


class _NotJson(ValueError):
    """A JSON extension Python's json accepts and JSON does not (NaN, Infinity), or a duplicate key."""


def _no_constant(name: str):
    raise _NotJson(f"not valid JSON ({name} is not a JSON number)")


def _object(pairs: list) -> dict:
    record = dict(pairs)
    if len(record) != len(pairs):
        seen = set()
        duplicate = next(k for k, _ in pairs if k in seen or seen.add(k))
        raise _NotJson(f"duplicate key {_short(duplicate)} in one object")
    return record


def _int(text: str):
    try:
        return int(text)
    except ValueError:  # more digits than Python converts (sys.get_int_max_str_digits); amplora reads no numbers
        return float(text)


def _short(text: str, n: int = 40) -> str:
    return repr(text if len(text) <= n else text[:n] + "...")


def parse_line(line: str, where: str):
    """One JSON Lines record, strictly JSON: no NaN/Infinity, no duplicate keys, no lone surrogates."""
    try:
        record = json.loads(line, parse_constant=_no_constant, object_pairs_hook=_object, parse_int=_int)
    except json.JSONDecodeError as e:
        msg = e.msg.removesuffix(" at")  # "Invalid control character at"
        raise AmploraError(f"{where}: not valid JSON ({msg} at column {e.colno})") from None
    except _NotJson as e:
        raise AmploraError(f"{where}: {e}") from None
    except RecursionError:  # json's C scanner counts its nesting against the recursion limit and stops cleanly
        raise AmploraError(f"{where}: JSON nested too deeply (more than about {sys.getrecursionlimit()} levels)"
                           ) from None
    return record


def read_jsonl(path: str | Path) -> list[Example]:
    """Records of a JSON Lines file: one JSON value per '\\n'-terminated line ('\\r\\n' too); blank lines are
    skipped, a UTF-8 byte order mark at the start is ignored, the last line needs no '\\n'."""
    path = Path(path)
    data = read_bytes(path, "data file", MAX_DATA_BYTES)
    start = len(_BOM) if data.startswith(_BOM) else 0  # most tools skip a BOM; JSON Lines text is UTF-8 anyway
    try:
        text = data[start:].decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, start + e.start) + 1
        raise AmploraError(f"{path}:{line}: not UTF-8 text (byte {start + e.start} of the file)") from None
    examples = []
    # '\n' only: str.splitlines() would also split inside records, at U+2028, U+0085, \f and the like
    for lineno, line in enumerate(text.split("\n"), start=1):
        if not line.strip(_JSON_BLANK):
            continue
        where = f"{path}:{lineno}"
        examples.append(parse_record(parse_line(line, where), where))
    if not examples:
        raise AmploraError(f"data file {path} has no examples (it is empty)")
    return examples


def load_splits(data: str | None, eval_data: str | None, eval_split: float, seed: int
                ) -> tuple[list[Example], list[Example], str, str]:
    """(train, held_out, train_name, held_out_name). Defaults to the bundled dataset and its held-out split;
    a user's --data without --eval-data gives up `eval_split` of its examples (deterministic) as held-out."""
    if data is None:
        train = read_jsonl(bundled_path(BUNDLED_TRAIN))
        held_out = read_jsonl(eval_data if eval_data is not None else bundled_path(BUNDLED_EVAL))
        return train, held_out, f"bundled:{BUNDLED_TRAIN}", str(eval_data or f"bundled:{BUNDLED_EVAL}")
    examples = read_jsonl(data)
    if eval_data is not None:
        return examples, read_jsonl(eval_data), str(data), str(eval_data)
    if len(examples) < 2:
        raise AmploraError(f"data file {data} has {len(examples)} example; need at least 2 to hold one out "
                           f"(or pass --eval-data)")
    order = list(range(len(examples)))
    random.Random(seed).shuffle(order)
    n_held = min(max(1, round(len(examples) * eval_split)), len(examples) - 1)
    held = set(order[:n_held])
    train = [e for i, e in enumerate(examples) if i not in held]
    return train, [examples[i] for i in sorted(held)], str(data), f"{data} ({n_held} held out)"
