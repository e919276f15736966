"""Data through the `datasets` library (Parquet, CSV, JSON, Arrow, save_to_disk), the record forms, plain-text
encoding, --chat-template, --model from the Hugging Face cache or a GGUF file, and the run-length / exact-match
defaults. Real files written by the real `datasets`, a real hub-cache layout, the tiny model."""
from __future__ import annotations

import json
import os
import shutil

import pytest

from amplora.errors import AmploraError
from amplora.train.chat_templates import TEMPLATES, read_chat_template
from amplora.train.config import BUNDLED_MAX_STEPS, build_config
from amplora.train.dataset import load_splits, read_data
from amplora.train.encoding import IGNORE, encode_all, segments
from amplora.train.model_loader import canonical_model_name, hub_cache_dir, load_model
from amplora.train.tiny_model import build_model, build_tokenizer

from .conftest import FAST, alpaca_rows, chat_rows, read_metrics, run_cli, write_jsonl

datasets = pytest.importorskip("datasets")


@pytest.fixture(autouse=True)
def quiet_datasets():
    datasets.disable_progress_bars()


def sharegpt_rows(n=6):
    return [{"conversations": [{"from": "system", "value": "Be brief."}, {"from": "human", "value": f"double {i}"},
                               {"from": "gpt", "value": str(2 * i)}]} for i in range(n)]


def text_rows(n=12):
    return [{"text": f"{i} plus {i} is {2 * i}."} for i in range(n)]


def test_every_file_kind_reads_the_same_examples(tmp_path):
    rows = alpaca_rows(5)
    ds = datasets.Dataset.from_list(rows)
    ds.to_parquet(tmp_path / "d.parquet")
    ds.to_csv(tmp_path / "d.csv", index=False)
    (tmp_path / "d.json").write_text(json.dumps(rows))  # a JSON array
    ds.save_to_disk(tmp_path / "disk")
    datasets.DatasetDict({"train": ds, "test": ds.select([0])}).save_to_disk(tmp_path / "dict")
    want = [e.messages for e in read_data(write_jsonl(tmp_path / "d.jsonl", rows))]
    for name in ("d.parquet", "d.csv", "d.json", "disk", "dict"):
        examples = read_data(tmp_path / name)
        assert [e.messages for e in examples] == want, name  # CSV answers such as "4" stay text
        assert examples[1].where == f"{tmp_path / name}:row 2"
    # --eval-data takes a DatasetDict's test split, --data its train split
    train, held, *_ = load_splits(str(tmp_path / "dict"), str(tmp_path / "dict"), 0.1, 0)
    assert len(train) == 5 and len(held) == 1
    with pytest.raises(AmploraError, match="holds splits a, b"):
        datasets.DatasetDict({"a": ds, "b": ds}).save_to_disk(tmp_path / "ab")
        read_data(tmp_path / "ab")


def test_several_files_comma_separated_repeated_or_listed(tmp_path):
    a = write_jsonl(tmp_path / "a.jsonl", alpaca_rows(3))
    datasets.Dataset.from_list(sharegpt_rows(2)).to_parquet(tmp_path / "b.parquet")
    examples = read_data(f"{a},{tmp_path / 'b.parquet'}")
    assert len(examples) == 5 and examples[3].where.endswith("b.parquet:row 1")
    assert examples[3].messages[1] == {"role": "user", "content": "double 0"}
    assert build_config({"data": ["x.jsonl", "y.parquet"]}).data == "x.jsonl,y.parquet"
    with pytest.raises(AmploraError, match="an empty name"):
        read_data(f"{a},")


@pytest.mark.parametrize("row, messages", [
    ({"conversations": [{"from": "human", "value": "hi"}, {"from": "gpt", "value": "yo"}]},
     [("user", "hi"), ("assistant", "yo")]),
    ({"conversations": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]},
     [("user", "hi"), ("assistant", "yo")]),
    ({"prompt": "hi", "completion": "yo"}, [("user", "hi"), ("assistant", "yo")]),
    ({"prompt": [{"role": "system", "content": "s"}, {"role": "user", "content": "hi"}],
      "completion": [{"role": "assistant", "content": "yo"}]}, [("system", "s"), ("user", "hi"), ("assistant", "yo")]),
    # alpaca datasets often carry a rendered `text` column too: the alpaca fields win
    ({"instruction": "hi", "output": "yo", "text": "### hi ### yo"}, [("user", "hi"), ("assistant", "yo")]),
])
def test_record_forms_are_detected(tmp_path, row, messages):
    (example,) = read_data(write_jsonl(tmp_path / "d.jsonl", [row]))
    assert [(m["role"], m["content"]) for m in example.messages] == messages and not example.is_text


def test_plain_text_is_learned_on_every_token(tmp_path):
    tok = build_tokenizer()
    (example,) = read_data(write_jsonl(tmp_path / "t.jsonl", [{"text": "2 plus 2 is 4."}]))
    assert example.is_text and example.messages == ()
    (enc,), stats = encode_all(tok, [example], 512)
    assert enc.labels == enc.input_ids and IGNORE not in enc.labels
    assert enc.input_ids[-1] == tok.eos_token_id and tok.decode(enc.input_ids[:-1]) == "2 plus 2 is 4."
    assert stats.answer_tokens == len(enc.input_ids)


@pytest.mark.parametrize("form, row, needle", [
    ("text", {"instruction": "a", "output": "b"}, "missing field 'text'"),
    ("alpaca", {"text": "a"}, "missing field 'instruction'"),
    ("chat", {"conversations": []}, "missing field 'messages'"),
    ("sharegpt", {"conversations": [{"from": "robot", "value": "x"}]}, "conversations[0] has from 'robot'"),
    ("prompt-completion", {"prompt": "a", "completion": ["b"]}, "'prompt' and 'completion' must both be strings or both lists"),
    ("prompt-completion", {"prompt": [{"role": "user", "content": "a"}],
                           "completion": [{"role": "user", "content": "b"}]}, "completion[0] has role 'user'"),
    ("auto", {"question": "a", "answer": "b"}, "no training fields (found 'question', 'answer')"),
    ("auto", {"text": " "}, "field 'text' is empty"),
])
def test_forced_and_wrong_forms_name_file_row_and_field(tmp_path, form, row, needle):
    datasets.Dataset.from_list([row, row]).to_parquet(tmp_path / "d.parquet")
    with pytest.raises(AmploraError) as e:
        read_data(tmp_path / "d.parquet", form)
    assert f"d.parquet:row 1: {needle}" in str(e.value) and "\n" not in str(e.value)


def test_unreadable_files_are_one_line_errors(tmp_path):
    (tmp_path / "bad.parquet").write_bytes(b"not parquet")
    with pytest.raises(AmploraError, match=r"cannot read data file .*bad\.parquet as PARQUET"):
        read_data(tmp_path / "bad.parquet")
    (tmp_path / "plain").mkdir()
    with pytest.raises(AmploraError, match="is a directory, and not one `datasets` save_to_disk wrote"):
        read_data(tmp_path / "plain")
    datasets.Dataset.from_dict({"instruction": [], "output": []}).to_parquet(tmp_path / "empty.parquet")
    with pytest.raises(AmploraError, match="has no examples"):
        read_data(tmp_path / "empty.parquet")
    (tmp_path / "empty.csv").write_text("instruction,output\n")
    with pytest.raises(AmploraError, match=r"empty\.csv has no examples"):
        read_data(tmp_path / "empty.csv")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fifos_are_refused_for_every_kind(tmp_path):
    import signal

    os.mkfifo(tmp_path / "pipe.parquet")
    datasets.Dataset.from_list(alpaca_rows(2)).save_to_disk(tmp_path / "disk")
    os.mkfifo(tmp_path / "disk" / "extra.arrow")
    signal.signal(signal.SIGALRM, lambda *a: pytest.fail("reading blocked"))
    signal.alarm(10)
    try:
        with pytest.raises(AmploraError, match=r"pipe\.parquet is a FIFO \(named pipe\), expected a regular file"):
            read_data(tmp_path / "pipe.parquet")
        with pytest.raises(AmploraError, match=r"extra\.arrow, which is a FIFO"):
            read_data(tmp_path / "disk")
    finally:
        signal.alarm(0)


@pytest.mark.parametrize("name", list(TEMPLATES))
def test_named_chat_templates_render_prefix_stably(name):
    tok = build_tokenizer()
    tok.chat_template = read_chat_template(name)
    messages = list(read_data_rows(chat_rows(1))[0].messages)
    pieces = segments(tok, messages)
    answers = [text for text, is_answer in pieces if is_answer]
    assert len(answers) == 2 and answers[0].startswith("0") and answers[1].startswith("0")


def read_data_rows(rows):
    from amplora.train.dataset import parse_record

    return [parse_record(r, f"mem:{i + 1}") for i, r in enumerate(rows)]


def test_chat_template_files_and_errors(tmp_path):
    path = tmp_path / "t.jinja"
    path.write_text(TEMPLATES["chatml"])
    assert read_chat_template(str(path)) == TEMPLATES["chatml"]
    path.write_text("{% for m in messages %}\n{{ m['content'] }\n")
    with pytest.raises(AmploraError, match=r"t\.jinja:2: Jinja syntax error"):
        read_chat_template(str(path))
    with pytest.raises(AmploraError, match="neither a known name \\(chatml, llama3, zephyr\\) nor a file"):
        read_chat_template("vicuna")


def save_tiny(directory, with_template=True):
    tok = build_tokenizer()
    if not with_template:
        tok.chat_template = None
    build_model(tok).save_pretrained(directory)
    tok.save_pretrained(directory)
    for leftover in directory.glob("chat_template.jinja"):  # transformers 5 writes the template here
        if not with_template:
            leftover.unlink()
    return directory


def test_a_base_model_without_template_needs_one_for_chat_data(tmp_path):
    base = save_tiny(tmp_path / "base", with_template=False)
    with pytest.raises(AmploraError, match="has no chat template.*--chat-template chatml"):
        load_model(str(base))
    assert not load_model(str(base), need_template=False).tokenizer.chat_template  # plain text needs none
    lm = load_model(str(base), chat_template=read_chat_template("chatml"))
    assert lm.tokenizer.chat_template == TEMPLATES["chatml"]


def fake_hub_cache(root, model_id: str, source):
    """The layout huggingface_hub's own downloads leave: models--org--name/{refs/main, snapshots/<commit>/}."""
    commit = "0123456789abcdef0123456789abcdef01234567"
    repo = root / f"models--{model_id.replace('/', '--')}"
    shutil.copytree(source, repo / "snapshots" / commit)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(commit)
    return repo / "snapshots" / commit


def test_a_model_id_loads_from_the_hugging_face_cache_only(tmp_path, monkeypatch):
    snapshot = fake_hub_cache(tmp_path / "hub", "amplora-test/tiny-llama", save_tiny(tmp_path / "src"))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    assert hub_cache_dir() == tmp_path / "hub"
    assert canonical_model_name("amplora-test/tiny-llama") == "amplora-test/tiny-llama"
    lm = load_model("amplora-test/tiny-llama")
    assert lm.name == "amplora-test/tiny-llama" and str(snapshot) in lm.description
    with pytest.raises(AmploraError) as e:
        canonical_model_name("amplora-test/absent")
    assert f"not in the Hugging Face cache at {tmp_path / 'hub'}" in str(e.value) and "never downloads" in str(e.value)
    monkeypatch.delenv("HF_HUB_CACHE")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "home"))
    assert hub_cache_dir() == tmp_path / "home" / "hub"


def test_a_file_that_is_not_gguf_is_refused(tmp_path):
    (tmp_path / "model.bin").write_bytes(b"x")
    with pytest.raises(AmploraError, match="is a file but not a .gguf file"):
        canonical_model_name(str(tmp_path / "model.bin"))


@pytest.mark.slow
def test_a_users_gguf_file_is_converted_once_and_cached(tmp_path, monkeypatch):
    from amplora.train.embedded_model import STAMP, gguf_path
    from amplora.train.model_loader import model_directory

    monkeypatch.setenv("AMPLORA_CACHE", str(tmp_path / "cache"))
    mine = tmp_path / "my model.gguf"
    shutil.copyfile(gguf_path(), mine)
    name = canonical_model_name(str(mine))
    assert name == str(mine.resolve())
    directory = model_directory(name)
    assert (directory / "model.safetensors").is_file() and str(mine) in (directory / STAMP).read_text()
    before = (directory / "model.safetensors").stat().st_mtime_ns
    assert model_directory(name) == directory and (directory / "model.safetensors").stat().st_mtime_ns == before
    assert load_model(str(mine)).tokenizer.chat_template


def test_run_length_and_exact_match_defaults():
    bundled = build_config()
    assert bundled.max_steps == BUNDLED_MAX_STEPS and bundled.exact_match is True
    mine = build_config(overrides={"data": "x.jsonl"})
    assert mine.max_steps == 0 and mine.epochs == 1.0 and mine.exact_match is False
    assert build_config(overrides={"data": "x.jsonl", "max_steps": 7}).max_steps == 7
    assert build_config(overrides={"data": "x.jsonl", "exact_match": True}).exact_match is True
    with pytest.raises(AmploraError, match="unknown data_format 'yaml'"):
        build_config(overrides={"data_format": "yaml"})


def test_help_shows_every_default(capsys):
    with pytest.raises(SystemExit):
        run_cli("train", "--help")
    text = " ".join(capsys.readouterr().out.split())
    from amplora.train.cli import TRAIN_FLAGS

    section = text.split("options:")[1]
    entries = [f"{flag} {dest.upper()} " for flag, dest, *_ in TRAIN_FLAGS] + [
        "--packing ", "--activation-checkpointing ", "--exact-match, ", "--overwrite "]
    starts = sorted(section.index(f" {entry}") for entry in entries)  # where each option's own entry starts
    for start, end in zip(starts, starts[1:] + [section.index(" --quiet ")]):
        assert "(default: " in section[start:end], section[start:end]
    assert "(default: 60 on the bundled data;" in text and "(default: 16)" in text


def test_text_data_trains_by_epoch_without_exact_match(tmp_path, capsys):
    datasets.Dataset.from_list(text_rows(12)).to_parquet(tmp_path / "t.parquet")
    out = tmp_path / "run"
    fast = [a for a in FAST if a not in ("--max-steps", "3")]  # the length comes from the data: 1 epoch
    assert run_cli("train", *fast, "--data", tmp_path / "t.parquet", "--eval-split", "0.25", "--output", out) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["facts"]["steps"] == 5  # 9 training rows, batches of 2: ceil(9 / 2)
    assert summary["before"] is None and "held-out loss" in summary["status"]
    kinds = {r["kind"]: r for r in read_metrics(out)}
    assert kinds["before"]["exact_match"] is None and kinds["after"]["eval_loss"] is not None
    assert (out / "report.html").is_file()
    # asking for exact match on data with no answers: refused before anything is written
    code = run_cli("train", *FAST, "--data", tmp_path / "t.parquet", "--exact-match", "--output", tmp_path / "x")
    err = capsys.readouterr().err
    assert code == 2 and "the held-out data is plain text" in err and not (tmp_path / "x").exists()


def test_sharegpt_csv_of_chat_data_with_exact_match_on_request(tmp_path):
    datasets.Dataset.from_list(sharegpt_rows(8)).to_parquet(tmp_path / "s.parquet")
    out = tmp_path / "run"
    assert run_cli("train", *FAST, "--data", tmp_path / "s.parquet", "--data", write_jsonl(
        tmp_path / "a.jsonl", alpaca_rows(4)), "--exact-match", "--chat-template", "zephyr", "--output", out) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["after"]["n"] >= 1 and "exact match" in summary["status"]
    assert summary["config"]["data"].count(",") == 1 and summary["config"]["chat_template"] == "zephyr"
