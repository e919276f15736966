"""Property-based tests of the readers of user files: the JSONL data reader and the YAML config.

Any input ends in a valid result or a one-line AmploraError: never another exception, never a hang.
Derandomized, so CI sees the same cases every run.
"""
from __future__ import annotations

import json
from datetime import timedelta

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from amplora.errors import AmploraError
from amplora.train.config import TrainConfig, build_config, load_yaml
from amplora.train.dataset import read_jsonl

FUZZ = settings(max_examples=200, deadline=timedelta(seconds=2), derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


def _one_line_error_or(fn, *args):
    try:
        return fn(*args)
    except AmploraError as e:
        assert "\n" not in str(e) and str(e)
        return None


# JSON values: every JSON type, nested a little, with arbitrary text (surrogates included)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12)
texts = st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=40)  # valid Unicode only
keys = st.sampled_from(["instruction", "input", "output", "messages", "role", "content", "x"])
record_like = st.dictionaries(keys, json_values | st.lists(st.dictionaries(keys, json_values, max_size=3),
                                                              max_size=3), max_size=4)


@FUZZ
@given(data=st.binary(max_size=2000))
def test_arbitrary_bytes(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("fuzz") / "d.jsonl"
    path.write_bytes(data)
    _one_line_error_or(read_jsonl, path)


# lines Python's json treats differently from JSON, or fails on with something other than JSONDecodeError
nasty_lines = st.sampled_from([
    "[" * 5000 + "]" * 5000, '{"output": ' + "{" * 3000, '{"instruction": "a", "output": "b", "n": ' + "7" * 5000 + "}",
    '{"instruction": "a", "output": "b", "n": NaN}', "-Infinity", '{"instruction": "a", "output": "\\udfff"}',
    '{"instruction": "a", "output": "b", "output": "c"}', "\ufeff{}", "\x00", "\u2028", "\x0c", " \t\r",
])
raw_line = st.builds(lambda v, a: json.dumps(v, ensure_ascii=a), json_values | record_like, st.booleans())


@FUZZ
@given(lines=st.lists(raw_line | nasty_lines, min_size=1, max_size=6), crlf=st.booleans())
def test_arbitrary_json_values_per_line(tmp_path_factory, lines, crlf):
    path = tmp_path_factory.mktemp("fuzz") / "d.jsonl"
    text = ("\r\n" if crlf else "\n").join(lines)
    path.write_bytes(text.encode("utf-8", "surrogatepass"))  # lone surrogates as raw bytes: invalid UTF-8
    examples = _one_line_error_or(read_jsonl, path)
    for e in examples or []:  # what is accepted is usable: encodable text, an answer to learn
        assert e.answer.strip() and all(m["content"].encode("utf-8") for m in e.messages)


rows = st.one_of(
    st.fixed_dictionaries({"instruction": texts, "output": texts.filter(str.strip)}, optional={"input": texts}),
    st.fixed_dictionaries({"messages": st.tuples(
        st.lists(st.fixed_dictionaries({"role": st.sampled_from(["system", "user", "assistant"]),
                                        "content": texts}), max_size=3),
        st.fixed_dictionaries({"role": st.just("assistant"), "content": texts.filter(str.strip)}),
    ).map(lambda t: t[0] + [t[1]])}))


def _expected_messages(row: dict) -> list[dict]:
    if "messages" in row:
        return row["messages"]
    extra = row.get("input", "")
    user = f"{row['instruction']}\n\n{extra}" if extra.strip() else row["instruction"]
    return [{"role": "user", "content": user}, {"role": "assistant", "content": row["output"]}]


@FUZZ
@given(records=st.lists(rows, min_size=1, max_size=8), ascii_only=st.booleans(), crlf=st.booleans(),
       bom=st.booleans(), final_newline=st.booleans())
def test_valid_records_round_trip(tmp_path_factory, records, ascii_only, crlf, bom, final_newline):
    path = tmp_path_factory.mktemp("fuzz") / "d.jsonl"
    end = "\r\n" if crlf else "\n"
    text = end.join(json.dumps(r, ensure_ascii=ascii_only) for r in records) + (end if final_newline else "")
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8"))
    examples = read_jsonl(path)
    assert len(examples) == len(records)
    for i, (example, row) in enumerate(zip(examples, records), start=1):
        assert list(example.messages) == _expected_messages(row)  # the text, byte for byte
        assert example.where == f"{path}:{i}"


# YAML: arbitrary text, and arbitrary mappings of the real keys to arbitrary YAML values
yaml_scalars = (st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30)
                | st.sampled_from(["1e-3", "2e-4", ".nan", "-.inf", "0x1F", "1_000", "yes", "2024-01-01", ""]))
yaml_values = st.recursive(yaml_scalars, lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=8)
config_keys = st.sampled_from(TrainConfig.field_names() + ["max-steps", "learning_rate", "eval-data"])


nasty_yaml = st.sampled_from([
    "seed: 2024-13-45\n", "lr: " + "9" * 400 + "\n", "seed: " + "9" * 5000 + "\n", "r: [" * 3000 + "\n",
    "? [a, b]\n: 1\n", "model: [tiny]\n", "data: \"a\\0b\"\n", "weight_decay: -1\n", "alpha: 1.0e+300\n",
    "epochs: 1.0e+30\n", "max_steps: 1.0e+30\n", "seed: -1\n", "\ufeffr: 4\n", "lr: .nan\n", "targets: {a: 1}\n",
])


@FUZZ
@given(text=st.text(max_size=400) | nasty_yaml | st.builds(str.__add__, nasty_yaml, st.text(max_size=40)))
def test_arbitrary_yaml_text(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("fuzz") / "c.yaml"
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    values = _one_line_error_or(load_yaml, path)
    if values is not None:
        _one_line_error_or(build_config, values, None, str(path))


@FUZZ
@given(mapping=st.dictionaries(config_keys, yaml_values, max_size=6),
       flags=st.dictionaries(config_keys, yaml_scalars, max_size=3))
def test_arbitrary_config_mappings(tmp_path_factory, mapping, flags):
    path = tmp_path_factory.mktemp("fuzz") / "c.yaml"
    try:
        path.write_text(yaml.safe_dump(mapping, allow_unicode=True))
    except UnicodeEncodeError:  # a lone surrogate in a generated string: not writable as UTF-8 text
        return
    values = _one_line_error_or(load_yaml, path)
    if values is None:
        return
    cfg = _one_line_error_or(build_config, values, flags, str(path))
    if cfg is not None:  # a config that validates survives its own config.yaml
        assert build_config(yaml.safe_load(yaml.safe_dump(cfg.as_dict()))) == cfg


def test_alias_bomb_is_refused_quickly(tmp_path):
    """Nine levels of nine aliases: repr() or str() of the value would be 9**9 items long."""
    levels = ["&a0 [x, x, x, x, x, x, x, x, x]"]
    levels += [f"&a{i} [{', '.join(['*a' + str(i - 1)] * 9)}]" for i in range(1, 10)]
    path = tmp_path / "c.yaml"
    for key in ("model", "lr", "method", "device"):
        path.write_text(f"targets: [{', '.join(levels)}]\n{key}: *a9\n")
        with pytest.raises(AmploraError, match=f"{key} must be"):
            build_config({k: v for k, v in load_yaml(path).items() if k != "targets"}, where=str(path))
