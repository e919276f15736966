"""Reading JSONL (alpaca and chat forms), loss masks through the chat template, truncation, the metric."""
from __future__ import annotations

import json
import re

import pytest

from amplora.errors import AmploraError
from amplora.train.dataset import BUNDLED_EVAL, BUNDLED_TRAIN, bundled_path, load_splits, read_jsonl
from amplora.train.encoding import IGNORE, encode_all, encode_example, prompt_ids
from amplora.train.metric import parse_fields, score
from amplora.train.tiny_model import build_tokenizer

from .conftest import alpaca_rows, chat_rows, write_jsonl


@pytest.fixture(scope="module")
def tok():
    return build_tokenizer()


def test_alpaca_and_chat_forms(tmp_path):
    rows = [{"instruction": "Add.", "input": "2+2", "output": "4"}] + chat_rows(1)
    examples = read_jsonl(write_jsonl(tmp_path / "d.jsonl", rows))
    assert examples[0].prompt == [{"role": "user", "content": "Add.\n\n2+2"}] and examples[0].answer == "4"
    assert examples[1].answer == "0" and [m["role"] for m in examples[1].prompt] == \
        ["system", "user", "assistant", "user"]
    assert examples[1].where.endswith("d.jsonl:2")


@pytest.mark.parametrize("line, needle", [
    ('{"instruction": "a", "output": "b"', "d.jsonl:2: not valid JSON"),
    ('["a", "b"]', "d.jsonl:2: expected a JSON object, got list"),
    ('{"instruction": "a"}', "d.jsonl:2: missing field 'output'"),
    ('{"output": "a"}', "d.jsonl:2: missing field 'instruction'"),
    ('{"instruction": "a", "output": 3}', "d.jsonl:2: field 'output' must be a string, got int"),
    ('{"instruction": "a", "output": "  "}', "d.jsonl:2: field 'output' is empty"),
    ('{"messages": []}', "d.jsonl:2: 'messages' must be a non-empty list"),
    ('{"messages": [{"role": "user", "content": "hi"}]}', "d.jsonl:2: 'messages' has no assistant message"),
    ('{"messages": [{"role": "bot", "content": "hi"}]}', "d.jsonl:2: messages[0] has role 'bot'"),
    ('{"messages": [{"role": "user"}]}', "d.jsonl:2: messages[0] must be an object with 'role' and 'content'"),
])
def test_malformed_records_name_file_and_line(tmp_path, line, needle):
    path = write_jsonl(tmp_path / "d.jsonl", [alpaca_rows(1)[0], line])
    with pytest.raises(AmploraError) as e:
        read_jsonl(path)
    assert needle in str(e.value) and "\n" not in str(e.value)


def test_empty_and_missing_files(tmp_path):
    (tmp_path / "empty.jsonl").write_text("\n\n")
    with pytest.raises(AmploraError, match="has no examples"):
        read_jsonl(tmp_path / "empty.jsonl")
    with pytest.raises(AmploraError, match="not found"):
        read_jsonl(tmp_path / "nope.jsonl")


def test_held_out_split_is_deterministic_and_disjoint(alpaca_file):
    a = load_splits(str(alpaca_file), None, 0.25, seed=3)
    b = load_splits(str(alpaca_file), None, 0.25, seed=3)
    assert [e.where for e in a[1]] == [e.where for e in b[1]] and len(a[1]) == 4 and len(a[0]) == 12
    assert not {e.where for e in a[0]} & {e.where for e in a[1]}


def test_bundled_dataset_sizes_and_disjoint_splits():
    train, held = read_jsonl(bundled_path(BUNDLED_TRAIN)), read_jsonl(bundled_path(BUNDLED_EVAL))
    assert len(train) >= 500 and len(held) >= 100
    assert not {e.prompt[-1]["content"] for e in train} & {e.prompt[-1]["content"] for e in held}
    assert all(parse_fields(e.answer).keys() == {"kind", "dtypes", "phase", "fix"} for e in train + held)


def test_bundled_dataset_is_what_the_generator_makes(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "scripts" / "make_dataset.py"
    subprocess.run([sys.executable, str(script), "--out-dir", str(tmp_path)], check=True, capture_output=True)
    for name in (BUNDLED_TRAIN, BUNDLED_EVAL):
        assert (tmp_path / name).read_text() == bundled_path(name).read_text()


def test_loss_mask_covers_exactly_the_answers(tok):
    messages = read_jsonl_rows(chat_rows(2))[1].messages
    enc = encode_example(tok, messages, max_length=1000)
    answer_text = tok.decode([t for t in enc.labels if t != IGNORE])
    assert answer_text == "2<|im_end|>\n3<|im_end|>\n"  # both assistant turns, with the end-of-turn marker
    assert tok.decode(enc.input_ids) == tok.apply_chat_template(list(messages), tokenize=False)


def test_prompt_ids_are_the_training_prefix(tok):
    ex = read_jsonl_rows(alpaca_rows(1))[0]
    enc = encode_example(tok, ex.messages, 1000)
    prompt = prompt_ids(tok, ex.prompt, 1000)
    assert enc.input_ids[: len(prompt)] == prompt and all(t == IGNORE for t in enc.labels[: len(prompt)])


def test_truncation_is_counted_and_answerless_examples_dropped(tok):
    examples = read_jsonl_rows([{"instruction": "x" * 40, "output": "yes"}, {"instruction": "q", "output": "a"}])
    prompt_len = len(prompt_ids(tok, examples[0].prompt, 1000))
    encoded, stats = encode_all(tok, examples, max_length=prompt_len)  # first one loses its whole answer
    assert (stats.examples, stats.truncated, stats.dropped, len(encoded)) == (2, 1, 1, 1)
    encoded, stats = encode_all(tok, examples, max_length=prompt_len + 1)  # keeps one answer token
    assert (stats.truncated, stats.dropped, len(encoded)) == (1, 0, 2)
    with pytest.raises(AmploraError, match="no example kept an answer token"):
        encode_all(tok, examples[:1], max_length=5)


def test_metric_exact_and_fields():
    refs = ["kind=a; dtypes=bf16,fp32; phase=forward; fix=autocast"] * 2
    preds = ["kind=a; dtypes=bf16,fp32; phase=forward; fix=autocast\nextra", "kind=a; dtypes=fp32; phase=x"]
    result = score(preds, refs)
    assert result["exact_match"] == 0.5
    assert result["fields"] == {"kind": 1.0, "dtypes": 0.5, "phase": 0.5, "fix": 0.5}
    assert score(["hello"], ["hello "])["exact_match"] == 1.0 and score(["a"], ["b"])["fields"] == {}


def read_jsonl_rows(rows):
    from amplora.train.dataset import parse_record

    return [parse_record(json.loads(json.dumps(r)), f"mem:{i + 1}") for i, r in enumerate(rows)]


# --- JSON Lines exactly: '\n' separates records, nothing else does; strict JSON inside a line ---------------

GOOD = {"instruction": "a", "output": "b"}


@pytest.mark.parametrize("sep", ["\u2028", "\u2029", "\u0085"])  # the others str.splitlines() splits at are control characters, escaped inside JSON strings
def test_unicode_line_breaks_inside_a_record_are_text(tmp_path, sep):
    row = {"instruction": f"x{sep}y", "output": f"1{sep}2"}
    path = tmp_path / "d.jsonl"
    path.write_bytes((json.dumps(row, ensure_ascii=False) + "\n" + json.dumps(GOOD) + "\n").encode())
    examples = read_jsonl(path)
    assert [e.answer for e in examples] == [f"1{sep}2", "b"]
    assert examples[1].where.endswith("d.jsonl:2")  # lines are counted at '\n' only


def test_line_numbers_count_newlines_only(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_bytes((json.dumps({"instruction": "\u2028\u0085", "output": "x"}, ensure_ascii=False)
                      + "\n\n" + '{"instruction": "a"}\n').encode())
    with pytest.raises(AmploraError, match=r"d\.jsonl:3: missing field 'output'"):
        read_jsonl(path)


def test_bom_crlf_and_missing_final_newline_are_accepted(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(GOOD).encode() + b"\r\n \t\r\n" + json.dumps(GOOD).encode())
    examples = read_jsonl(path)
    assert [e.answer for e in examples] == ["b", "b"] and examples[1].where.endswith(":3")


@pytest.mark.parametrize("raw, needle", [
    (b'{"instruction": "a", "output": "b", "x": NaN}', "d.jsonl:2: not valid JSON (NaN is not a JSON number)"),
    (b'{"instruction": "a", "output": "b", "x": -Infinity}', "d.jsonl:2: not valid JSON (-Infinity"),
    (b'{"instruction": "a", "output": "b\\ud800"}', "d.jsonl:2: field 'output' has a lone surrogate \\ud800"),
    (b'{"messages": [{"role": "assistant", "content": "\\udc00"}]}',
     "d.jsonl:2: messages[0].content has a lone surrogate"),
    (b'{"instruction": "a", "output": "b\x00"}', "d.jsonl:2: not valid JSON (Invalid control character at column"),
    (b'{"instruction": "a", "output": "b", "output": "c"}', "d.jsonl:2: duplicate key 'output'"),
    (b"[" * 100_000 + b"]" * 100_000, "d.jsonl:2: JSON nested too deeply"),
    (b'{"instruction": "\xff", "output": "b"}', "d.jsonl:2: not UTF-8 text (byte 53 of the file)"),
    (b"\x0c", "d.jsonl:2: not valid JSON"),  # a form feed is not JSON whitespace: not a blank line
])
def test_invalid_json_lines_name_file_and_line(tmp_path, raw, needle):
    path = tmp_path / "d.jsonl"
    path.write_bytes(json.dumps(GOOD).encode() + b"\n" + raw + b"\n")
    with pytest.raises(AmploraError) as e:
        read_jsonl(path)
    assert needle in str(e.value) and "\n" not in str(e.value)


def test_escaped_nul_and_huge_numbers_are_valid_json(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_bytes(b'{"instruction": "a\\u0000", "output": "b", "n": ' + b"9" * 10_000 + b"}\n")
    assert read_jsonl(path)[0].prompt[0]["content"] == "a\x00"


def test_whitespace_only_file_has_no_examples(tmp_path):
    (tmp_path / "ws.jsonl").write_bytes(b" \n\t\r\n\n")
    with pytest.raises(AmploraError, match="has no examples"):
        read_jsonl(tmp_path / "ws.jsonl")


@pytest.mark.parametrize("kind", ["fifo", "device", "directory"])
def test_only_regular_files_are_read(tmp_path, kind):
    import os
    import signal

    if kind == "fifo":
        if not hasattr(os, "mkfifo"):
            pytest.skip("no FIFOs here")
        path = tmp_path / "pipe.jsonl"
        os.mkfifo(path)  # no writer: a blocking open would never return
        needle = "is a FIFO (named pipe), expected a regular file"
    elif kind == "device":
        path, needle = "/dev/zero", "is a character device, expected a regular file"  # endless: would fill memory
        if not os.path.exists(path):
            pytest.skip("no /dev/zero here")
    else:
        path, needle = tmp_path, "is a directory"
    needle = re.escape(needle)
    signal.signal(signal.SIGALRM, lambda *a: pytest.fail("reading blocked"))
    signal.alarm(10)
    try:
        with pytest.raises(AmploraError, match=needle):
            read_jsonl(path)
        with pytest.raises(AmploraError, match=needle):  # --eval-data takes the same path
            load_splits(None, str(path), 0.1, 0)
    finally:
        signal.alarm(0)


def test_size_is_bounded(tmp_path, monkeypatch):
    from amplora.train import dataset

    monkeypatch.setattr(dataset, "MAX_DATA_BYTES", 100)
    path = write_jsonl(tmp_path / "d.jsonl", alpaca_rows(10))
    with pytest.raises(AmploraError, match=r"d\.jsonl is larger than 100 bytes"):
        read_jsonl(path)


def test_eval_command_reads_through_the_same_reader(tmp_path, capsys):
    from .conftest import run_cli

    path = tmp_path / "d.jsonl"
    path.write_bytes(b'{"instruction": "a", "output": "b", "x": NaN}\n')
    assert run_cli("eval", "--model", "tiny", "--data", path) == 2
    assert "d.jsonl:1: not valid JSON (NaN" in capsys.readouterr().err
