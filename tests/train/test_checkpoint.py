"""The checkpoint format: JSON + safetensors, read back exactly, never a pickle; damage is a one-line error."""
from __future__ import annotations

import json
import random

import pytest
import torch
from safetensors.torch import load_file, save_file

import amplora
from amplora.errors import AmploraError
from amplora.train import checkpoint
from amplora.train.optim import build_optimizer, build_scheduler
from amplora.train.tiny_model import build_model, build_tokenizer

from .conftest import run_cli


def _trained_parts():
    """A tiny adapter after two optimizer steps, so the optimizer holds per-parameter state."""
    torch.manual_seed(0)
    model = amplora.apply(build_model(build_tokenizer()), r=2, precision="fp32")
    named = amplora.trainable_parameters(model)
    opt = build_optimizer([p for _, p in named], 1e-2, 0.01)
    sched = build_scheduler(opt, 10, 0.2)
    for _ in range(2):
        for _, p in named:
            p.grad = torch.randn_like(p)
        opt.step()
        sched.step()
    scaler = torch.amp.GradScaler("cpu", enabled=True, init_scale=1024.0)
    return model, named, opt, sched, scaler


def _save(tmp_path, step=2, bookkeeping=None):
    model, named, opt, sched, scaler = _trained_parts()
    random.seed(123)
    torch.manual_seed(321)
    book = bookkeeping if bookkeeping is not None else {"skipped_steps": 1, "before": {"eval_loss": float("nan")}}
    dest = checkpoint.save_checkpoint(tmp_path, step, model, named, opt, sched, scaler, book, "tiny")
    return dest, (model, named, opt, sched, scaler)


def _same(a, b) -> bool:
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and a.dtype == b.dtype and a.shape == b.shape and torch.equal(a, b)
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and a != a:
        return isinstance(b, float) and b != b
    return type(a) is type(b) and a == b


def test_state_reads_back_exactly_from_json_and_safetensors(tmp_path):
    dest, (_, named, opt, sched, scaler) = _save(tmp_path)
    random.seed(123)
    torch.manual_seed(321)
    python_rng, torch_rng = random.getstate(), torch.get_rng_state()  # as _save left them
    assert sorted(p.name for p in dest.iterdir()) == ["adapter", checkpoint.STATE_FILE, checkpoint.TENSOR_FILE]
    state = checkpoint.load_checkpoint(dest)
    assert state["step"] == 2
    assert _same(state["optimizer"], opt.state_dict())  # int keys, tuples (betas), 0-d step tensors
    assert _same(state["scheduler"], sched.state_dict())
    assert _same(state["scaler"], scaler.state_dict())
    assert _same(state["rng"]["python"], python_rng)  # tuples come back as tuples: setstate accepts it
    assert torch.equal(state["rng"]["torch"], torch_rng)
    assert all(torch.equal(state["trainable"][n], p.detach()) for n, p in named)
    assert state["bookkeeping"]["skipped_steps"] == 1 and state["bookkeeping"]["lineage"]

    # restore puts it all back: the RNGs continue exactly where the saved run stood
    expected_random, expected_torch = random.random(), torch.rand(3)
    random.seed(0)
    torch.manual_seed(0)
    model2, named2, opt2, sched2, scaler2 = _trained_parts()
    with torch.no_grad():
        for _, p in named2:
            p.zero_()
    checkpoint.restore(state, named2, opt2, sched2, scaler2)
    assert random.random() == expected_random and torch.equal(torch.rand(3), expected_torch)
    assert _same(opt2.state_dict(), opt.state_dict()) and _same(sched2.state_dict(), sched.state_dict())
    assert all(torch.equal(p, q) for (_, p), (_, q) in zip(named2, named))


def _one_line_error(dest, match: str) -> str:
    with pytest.raises(AmploraError, match=match) as info:
        state = checkpoint.load_checkpoint(dest)
        _, named, opt, sched, scaler = _trained_parts()
        checkpoint.restore(state, named, opt, sched, scaler)
    assert "\n" not in str(info.value)
    return str(info.value)


def _edit_json(dest, edit) -> None:
    path = dest / checkpoint.STATE_FILE
    body = json.loads(path.read_text())
    edit(body)
    path.write_text(json.dumps(body))


def _edit_tensors(dest, edit) -> None:
    path = dest / checkpoint.TENSOR_FILE
    tensors = load_file(str(path))
    edit(tensors)
    save_file(tensors, str(path))


@pytest.mark.parametrize("damage, match", [
    (lambda d: (d / checkpoint.STATE_FILE).write_text('{"step": 3, '), r"trainer_state\.json: JSONDecodeError"),
    (lambda d: (d / checkpoint.TENSOR_FILE).write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{not json"),
     r"trainer_state\.safetensors"),
    (lambda d: (d / checkpoint.TENSOR_FILE).unlink(), r"trainer_state\.safetensors"),
    (lambda d: _edit_json(d, lambda b: b.pop("scheduler")), r"trainer_state\.json: key 'scheduler' is missing"),
    (lambda d: _edit_json(d, lambda b: b.update(step="3")), r"trainer_state\.json: key 'step' has the wrong type"),
    (lambda d: _edit_json(d, lambda b: b.update(format=99)), r"format 99 is not supported"),
    (lambda d: _edit_tensors(d, lambda t: t.pop("optimizer/state/0/exp_avg")),
     r"trainer_state\.json: key optimizer/state/\S*0/exp_avg: tensor 'optimizer/state/0/exp_avg' is missing"),
    (lambda d: _edit_tensors(d, lambda t: t.update(extra=torch.zeros(1))), r"tensor 'extra' is not referred to"),
    (lambda d: _edit_tensors(d, lambda t: t.update({"optimizer/state/1/exp_avg_sq": torch.zeros(3, 3)})),
     r"trainer_state\.json: key 'optimizer/state/1/exp_avg_sq' has shape \(3, 3\)"),
    (lambda d: _edit_tensors(d, lambda t: t.update({"rng/torch": torch.zeros(5, dtype=torch.uint8)})),
     r"trainer_state\.json: key 'rng' cannot be restored"),
    (lambda d: _edit_json(d, lambda b: b["optimizer"]["param_groups"].append(b["optimizer"]["param_groups"][0])),
     r"trainer_state\.json: key 'optimizer' cannot be restored"),
])
def test_a_damaged_checkpoint_is_a_one_line_error_naming_file_and_key(tmp_path, damage, match):
    dest, _ = _save(tmp_path)
    damage(dest)
    _one_line_error(dest, match)


class _Payload:
    """What a crafted pickle does when loaded: here it only creates a marker file."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return open, (self.marker, "w")


@pytest.mark.parametrize("named_checkpoint", [False, True])
def test_a_pickled_checkpoint_is_refused_without_being_loaded(tmp_path, capsys, named_checkpoint):
    run = tmp_path / "run"
    ckpt = run / "checkpoints" / "step-000004"
    ckpt.mkdir(parents=True)
    (run / "config.yaml").write_text("model: tiny\nmax_steps: 6\n")
    marker = tmp_path / "pwned"
    torch.save({"step": 4, "payload": _Payload(marker)}, ckpt / "trainer_state.pt")  # the earlier format
    assert not marker.exists()

    assert run_cli("train", "--resume", ckpt if named_checkpoint else run, "--quiet") == 2
    err = capsys.readouterr().err
    assert not marker.exists(), "the pickle was loaded"
    assert err.count("\n") == 1 and err.startswith("amplora: error: ")
    assert "trainer_state.pt" in err and "not supported" in err
    assert sorted(p.name for p in run.iterdir()) == ["checkpoints", "config.yaml"]  # nothing written
