"""Reading training data: JSON Lines through amplora's own strict reader; JSON, Parquet, CSV, Arrow files and
`save_to_disk` directories through the `datasets` library. Several files are given comma-separated.

Every record becomes an Example: a conversation (a list of {role, content} ending with the answer to learn) or,
for plain `text` records, the text itself (loss on every token). Record forms: chat `messages`, ShareGPT
`conversations`, alpaca `instruction`/`input`/`output`, `prompt`/`completion`, `text`; detected from each record's
fields unless a form is forced. Anything malformed is a one-line error naming the file, the line (JSON Lines) or
row, and the field, raised before a run writes anything.
"""
from __future__ import annotations

import json
import os
import random
import sys
import tempfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from amplora.errors import AmploraError
from amplora.train.user_files import read_bytes, regular_file, regular_tree

ROLES = ("system", "user", "assistant")
BUNDLED_TRAIN = "precision_triage_train.jsonl"
BUNDLED_EVAL = "precision_triage_eval.jsonl"
FORMATS = ("auto", "alpaca", "chat", "sharegpt", "prompt-completion", "text")
# ShareGPT's speaker names (`from`) -> roles; "human"/"gpt" are the original, the rest appear in its derivatives
SHAREGPT_ROLES = {"system": "system", "human": "user", "user": "user", "gpt": "assistant", "assistant": "assistant",
                  "chatgpt": "assistant", "bing": "assistant", "bard": "assistant"}
# suffix -> the `datasets` builder that reads it; every other file name is read as JSON Lines
DATASETS_KINDS = {".json": "json", ".parquet": "parquet", ".csv": "csv", ".arrow": "arrow"}
EXPECTED = ("'messages' (chat), 'conversations' (ShareGPT), 'instruction' + 'output' (alpaca), "
            "'prompt' + 'completion', or 'text'")


@dataclass(frozen=True)
class Example:
    messages: tuple  # tuple of {"role", "content"} dicts, ending with the answer the model should give
    where: str  # "file:line" or "file:row N", for messages about this record
    text: str | None = None  # a plain-text record: no conversation, no answer; every token is learned

    @property
    def is_text(self) -> bool:
        return self.text is not None

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


def _text_field(record: dict, key: str, where: str, required: bool = True, form: str = "alpaca") -> str:
    if key not in record:
        if required:
            hint = {"alpaca": "alpaca form needs 'instruction' and 'output', 'input' optional; chat form needs "
                              "'messages'"}.get(form, f"{form} form")
            raise AmploraError(f"{where}: missing field {key!r} ({hint})")
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


def _turns(messages, where: str, field: str, role_key: str = "role", content_key: str = "content",
           role_map: dict | None = None) -> list[dict]:
    """A list of turns as {role, content}; `role_map` translates the speaker names of other schemas."""
    if not isinstance(messages, list) or not messages:
        raise AmploraError(f"{where}: {field!r} must be a non-empty list of {{{role_key}, {content_key}}} objects")
    valid = role_map or dict(zip(ROLES, ROLES))
    out = []
    for i, m in enumerate(messages):
        if not isinstance(m, dict) or role_key not in m or content_key not in m:
            raise AmploraError(f"{where}: {field}[{i}] must be an object with {role_key!r} and {content_key!r}")
        role = m[role_key]
        if not isinstance(role, str) or role.lower() not in valid or (role_map is None and role not in valid):
            raise AmploraError(f"{where}: {field}[{i}] has {role_key} {role!r}; valid: {', '.join(valid)}")
        content = m[content_key]
        if not isinstance(content, str):
            raise AmploraError(f"{where}: {field}[{i}].{content_key} must be a string, got "
                               f"{type(content).__name__}")
        out.append({"role": valid[role.lower()], "content": _unicode(content, where, f"{field}[{i}].{content_key}")})
    return out


def _conversation(turns: list[dict], where: str, field: str) -> tuple:
    assistant = [i for i, m in enumerate(turns) if m["role"] == "assistant"]
    if not assistant:
        raise AmploraError(f"{where}: {field!r} has no assistant message, so there is nothing to learn")
    if not turns[assistant[-1]]["content"].strip():
        raise AmploraError(f"{where}: the last assistant message is empty")
    return tuple(turns[: assistant[-1] + 1])  # trailing user turns have no answer to learn


def _chat(record: dict, where: str) -> Example:
    if "messages" not in record:
        raise AmploraError(f"{where}: missing field 'messages' (chat form: a list of {{role, content}})")
    return Example(_conversation(_turns(record["messages"], where, "messages"), where, "messages"), where)


def _sharegpt(record: dict, where: str) -> Example:
    if "conversations" not in record:
        raise AmploraError(f"{where}: missing field 'conversations' (ShareGPT form: a list of {{from, value}})")
    turns = record["conversations"]
    # some ShareGPT exports write {role, content} turns under `conversations`: take those as they are
    keys = ("role", "content") if isinstance(turns, list) and turns and isinstance(turns[0], dict) \
        and "role" in turns[0] else ("from", "value")
    return Example(_conversation(_turns(turns, where, "conversations", *keys, role_map=SHAREGPT_ROLES), where,
                                 "conversations"), where)


def _alpaca(record: dict, where: str) -> Example:
    instruction = _text_field(record, "instruction", where)
    output = _text_field(record, "output", where)
    extra = _text_field(record, "input", where, required=False)
    if not output.strip():
        raise AmploraError(f"{where}: field 'output' is empty")
    user = f"{instruction}\n\n{extra}" if extra.strip() else instruction
    return Example(({"role": "user", "content": user}, {"role": "assistant", "content": output}), where)


def _prompt_completion(record: dict, where: str) -> Example:
    """Strings: one user turn and its answer. Lists (TRL's conversational form): the prompt's turns, then the
    completion's assistant turn(s)."""
    for key in ("prompt", "completion"):
        if key not in record:
            raise AmploraError(f"{where}: missing field {key!r} (prompt-completion form needs 'prompt' and "
                               f"'completion')")
    prompt, completion = record["prompt"], record["completion"]
    if isinstance(prompt, str) and isinstance(completion, str):
        prompt, completion = _text_field(record, "prompt", where), _text_field(record, "completion", where)
        if not completion.strip():
            raise AmploraError(f"{where}: field 'completion' is empty")
        return Example(({"role": "user", "content": prompt}, {"role": "assistant", "content": completion}), where)
    if not (isinstance(prompt, list) and isinstance(completion, list)):
        raise AmploraError(f"{where}: 'prompt' and 'completion' must both be strings or both lists of "
                           f"{{role, content}}, got {type(prompt).__name__} and {type(completion).__name__}")
    answer = _turns(completion, where, "completion")
    wrong = next((i for i, m in enumerate(answer) if m["role"] != "assistant"), None)
    if wrong is not None:
        raise AmploraError(f"{where}: completion[{wrong}] has role {answer[wrong]['role']!r}; a completion is "
                           f"the assistant's")
    return Example(_conversation(_turns(prompt, where, "prompt") + answer, where, "completion"), where)


def _text(record: dict, where: str) -> Example:
    text = _text_field(record, "text", where, form="text")
    if not text.strip():
        raise AmploraError(f"{where}: field 'text' is empty")
    return Example((), where, text=text)


PARSERS = {"chat": _chat, "sharegpt": _sharegpt, "alpaca": _alpaca, "prompt-completion": _prompt_completion,
           "text": _text}


def detect_format(record: dict) -> str | None:
    """The form a record's fields say, most specific first: an alpaca record may carry a `text` rendering of
    itself, a chat record a `prompt` column; None when no form's field is there."""
    if "messages" in record:
        return "chat"
    if "conversations" in record:
        return "sharegpt"
    if "instruction" in record or "output" in record:
        return "alpaca"
    if "prompt" in record or "completion" in record:
        return "prompt-completion"
    if "text" in record:
        return "text"
    return None


def parse_record(record, where: str, form: str = "auto") -> Example:
    if not isinstance(record, dict):
        raise AmploraError(f"{where}: expected a JSON object, got {type(record).__name__}")
    if form == "auto":
        form = detect_format(record)
        if form is None:
            found = ", ".join(repr(k) for k in list(record)[:8]) or "none"
            raise AmploraError(f"{where}: no training fields (found {found}); expected {EXPECTED}")
    return PARSERS[form](record, where)


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


def read_jsonl(path: str | Path, form: str = "auto") -> list[Example]:
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
        examples.append(parse_record(parse_line(line, where), where, form))
    if not examples:
        raise AmploraError(f"data file {path} has no examples (it is empty)")
    return examples


def _rows_with_datasets(path: Path, kind: str, split_preference: tuple) -> list[dict]:
    """The rows of a file (or a save_to_disk directory) read by the `datasets` library, as plain dicts."""
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")  # the builders used here are local; never look online
    import datasets

    datasets.disable_progress_bars()
    datasets.logging.set_verbosity_error()
    label = "a save_to_disk directory" if kind == "disk" else kind.upper() if kind != "arrow" else "Arrow"
    # a private cache that goes away with the call: load_dataset converts to Arrow in its cache_dir, which would
    # otherwise leave a copy of every file read under ~/.cache/huggingface
    with tempfile.TemporaryDirectory(prefix="amplora-data-") as cache:
        try:
            if kind == "disk":
                ds = datasets.load_from_disk(str(path), keep_in_memory=True)
                if isinstance(ds, datasets.DatasetDict):
                    ds = ds[_pick_split(path, list(ds), split_preference)]
            else:
                # CSV cells stay text: pandas would read an answer "4" as the integer 4 and an empty cell as NaN
                extra = {"features": _csv_text_columns(path), "keep_default_na": False} if kind == "csv" else {}
                ds = datasets.load_dataset(kind, data_files=[str(path)], split="train", cache_dir=cache,
                                           keep_in_memory=True, **extra)
            return ds.to_list()
        except AmploraError:
            raise
        except Exception as e:  # pyarrow / pandas / datasets errors of a malformed file: one line
            first = (str(e).strip().splitlines() or [type(e).__name__])[0]
            if "corresponds to no data" in first:  # datasets' words for a file with no rows (a CSV header only)
                raise AmploraError(f"data file {path} has no examples (it is empty)") from None
            raise AmploraError(f"cannot read data file {path} as {label}: {first[:300]}") from None


def _csv_text_columns(path: Path):
    """Every column of a CSV file as text (from its header line)."""
    import csv

    import datasets

    with open(path, newline="", encoding="utf-8-sig") as f:
        header = next(csv.reader(f), [])
    return datasets.Features({name: datasets.Value("string") for name in header})


def _pick_split(path: Path, splits: list[str], preference: tuple) -> str:
    for name in preference:
        if name in splits:
            return name
    if len(splits) == 1:
        return splits[0]
    raise AmploraError(f"data directory {path} holds splits {', '.join(splits)}; amplora takes "
                       f"{' or '.join(preference)} (or the only split): save the one to use on its own")


def read_file(path: str | Path, form: str = "auto", split_preference: tuple = ("train",)) -> list[Example]:
    """The examples of one data file or save_to_disk directory. Errors name `file:line` (JSON Lines) or
    `file:row N` (rows counted from 1)."""
    path = Path(path)
    kind = "disk" if path.is_dir() else DATASETS_KINDS.get(path.suffix.lower())
    if kind is None:
        return read_jsonl(path, form)
    if kind == "disk":
        if not any((path / marker).is_file() for marker in ("state.json", "dataset_dict.json")):
            raise AmploraError(f"data file {path} is a directory, and not one `datasets` save_to_disk wrote "
                               f"(no state.json or dataset_dict.json in it)")
        regular_tree(path, "data directory", MAX_DATA_BYTES)
    else:
        regular_file(path, "data file", MAX_DATA_BYTES)
    rows = _rows_with_datasets(path, kind, split_preference)
    examples = []
    for i, row in enumerate(rows, start=1):
        # Arrow files have one set of columns: a field a record lacks is a null, not an empty value
        record = {k: v for k, v in row.items() if v is not None}
        examples.append(parse_record(record, f"{path}:row {i}", form))
    if not examples:
        raise AmploraError(f"data file {path} has no examples (it is empty)")
    return examples


def data_paths(spec: str) -> list[str]:
    """`a.jsonl,b.parquet` -> both; a name that exists as given is one path even with a comma in it."""
    spec = str(spec)
    if os.path.lexists(spec) or "," not in spec:
        return [spec]
    parts = [p.strip() for p in spec.split(",")]
    if not all(parts):
        raise AmploraError(f"data {spec!r}: an empty name in the comma-separated list")
    return parts


def read_data(spec: str | Path, form: str = "auto", split_preference: tuple = ("train",)) -> list[Example]:
    """Examples of every file named in `spec` (comma-separated), in order."""
    return [e for p in data_paths(str(spec)) for e in read_file(p, form, split_preference)]


EVAL_SPLITS = ("test", "validation", "eval")


def load_splits(data: str | None, eval_data: str | None, eval_split: float, seed: int, form: str = "auto"
                ) -> tuple[list[Example], list[Example], str, str]:
    """(train, held_out, train_name, held_out_name). Defaults to the bundled dataset and its held-out split;
    a user's --data without --eval-data gives up `eval_split` of its examples (deterministic) as held-out."""
    if data is None:
        train = read_jsonl(bundled_path(BUNDLED_TRAIN))
        held_out = read_data(eval_data, form, EVAL_SPLITS) if eval_data is not None \
            else read_jsonl(bundled_path(BUNDLED_EVAL))
        return train, held_out, f"bundled:{BUNDLED_TRAIN}", str(eval_data or f"bundled:{BUNDLED_EVAL}")
    examples = read_data(data, form)
    if eval_data is not None:
        return examples, read_data(eval_data, form, EVAL_SPLITS), str(data), str(eval_data)
    if len(examples) < 2:
        raise AmploraError(f"data file {data} has {len(examples)} example; need at least 2 to hold one out "
                           f"(or pass --eval-data)")
    order = list(range(len(examples)))
    random.Random(seed).shuffle(order)
    n_held = min(max(1, round(len(examples) * eval_split)), len(examples) - 1)
    held = set(order[:n_held])
    train = [e for i, e in enumerate(examples) if i not in held]
    return train, [examples[i] for i in sorted(held)], str(data), f"{data} ({n_held} held out)"
