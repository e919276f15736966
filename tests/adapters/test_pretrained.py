"""An amplora model in a real transformers.Trainer and TRL SFTTrainer: checkpoints and save_model() hold a PEFT
adapter that peft.PeftModel.from_pretrained loads to the same logits, and resume restores the adapter exactly."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from peft import PeftModel
from safetensors.torch import load_file
from transformers import Trainer, TrainerCallback, TrainingArguments
from transformers.testing_utils import CaptureLogger
from transformers.utils import logging as hf_logging

import amplora
from amplora.adapters import pretrained
from amplora.train.tiny_model import build_model, build_tokenizer

from .conftest import VOCAB, rel_err, tiny_llama

ADAPTER_FILES = {"adapter_config.json", "adapter_model.safetensors"}


def _adapted(method: str = "lora"):
    return amplora.apply(tiny_llama(), method=method, r=4, alpha=8, precision="fp32")


def _rows(n: int = 8, length: int = 12) -> list[dict]:
    g = torch.Generator().manual_seed(3)
    ids = torch.randint(3, VOCAB, (n, length), generator=g)
    return [{"input_ids": row, "labels": row} for row in ids]


def _args(out, **kw) -> TrainingArguments:
    settings = dict(output_dir=str(out), max_steps=3, per_device_train_batch_size=2, learning_rate=1e-2,
                    use_cpu=True, report_to=[], save_steps=2, logging_strategy="no", disable_tqdm=True, seed=0)
    return TrainingArguments(**{**settings, **kw})


class AdapterAtStart(TrainerCallback):
    """The adapter weights as training (re)starts: after the Trainer loaded its checkpoint."""

    def on_train_begin(self, args, state, control, model=None, **kwargs):
        self.state = {k: v.clone() for k, v in pretrained.training_state(model).items()}


def _trainer_warnings(run) -> str:
    with CaptureLogger(hf_logging.get_logger("transformers.trainer")) as captured:
        run()
    return captured.out


def _check_adapter_dir(d, model) -> None:
    """PEFT's two files, and model.safetensors holding the trainable weights only (no base weight)."""
    assert ADAPTER_FILES <= {p.name for p in d.iterdir()}
    assert set(load_file(d / "model.safetensors")) == set(pretrained.adapter_keys(model))


def _peft_logits(d, ids) -> torch.Tensor:
    with torch.no_grad():
        return PeftModel.from_pretrained(tiny_llama(), str(d)).eval()(input_ids=ids).logits


@pytest.mark.parametrize("method", ["lora", "dora"])
def test_trainer_checkpoints_load_in_peft_and_resume_exactly(tmp_path, method):
    out, ids = tmp_path / "out", _rows()[0]["input_ids"][None]
    model = _adapted(method)
    trainer = Trainer(model=model, args=_args(out), train_dataset=_rows())
    trainer.train()
    trainer.save_model()  # into the output directory, next to its checkpoints
    ckpt = out / "checkpoint-2"
    assert ckpt.is_dir()  # save_model wrote files into the directory, leaving the checkpoints alone
    for d in (ckpt, out):
        _check_adapter_dir(d, model)
    with torch.no_grad():
        trained = model.eval()(input_ids=ids).logits
    assert rel_err(_peft_logits(out, ids), trained) < 1e-5

    resumed, start = _adapted(method), AdapterAtStart()
    again = Trainer(model=resumed, args=_args(tmp_path / "again"), train_dataset=_rows(), callbacks=[start])
    warnings = _trainer_warnings(lambda: again.train(resume_from_checkpoint=str(ckpt)))
    assert "missing keys" not in warnings and "unexpected keys" not in warnings, warnings
    saved = load_file(ckpt / "model.safetensors")
    assert start.state.keys() == saved.keys()
    assert all(torch.equal(start.state[k], saved[k]) for k in saved)
    # optimizer, scheduler and data order came back too: the resumed step lands where the uninterrupted run did
    final, expected = pretrained.training_state(resumed), pretrained.training_state(model)
    assert max(rel_err(final[k], expected[k]) for k in expected) < 1e-6


def test_load_best_model_at_end_restores_the_best_checkpoint(tmp_path):
    model = _adapted()
    # eval on the training rows with the highest loss as "best": the first checkpoint, not the last one
    args = _args(tmp_path / "out", save_steps=1, eval_strategy="steps", eval_steps=1, load_best_model_at_end=True,
                 metric_for_best_model="loss", greater_is_better=True)
    trainer = Trainer(model=model, args=args, train_dataset=_rows(), eval_dataset=_rows(4))
    warnings = _trainer_warnings(trainer.train)
    assert "missing keys" not in warnings, warnings
    best = trainer.state.best_model_checkpoint
    assert best is not None and best.endswith("checkpoint-1")
    now = pretrained.training_state(model)
    for name, expect in ((best, True), (str(tmp_path / "out" / "checkpoint-3"), False)):
        saved = load_file(f"{name}/model.safetensors")
        assert all(torch.equal(now[k], saved[k]) for k in saved) == expect


def test_trl_sft_trainer_saves_a_peft_adapter(tmp_path):
    trl = pytest.importorskip("trl")
    from datasets import Dataset

    tokenizer = build_tokenizer()
    model = amplora.apply(build_model(tokenizer), r=4, alpha=8, precision="fp32")
    data = Dataset.from_list([{"text": f"{a} plus {b} is {a + b}."} for a in range(4) for b in range(2)])
    args = trl.SFTConfig(output_dir=str(tmp_path / "out"), max_steps=2, save_steps=2, per_device_train_batch_size=2,
                         learning_rate=1e-2, max_length=32, use_cpu=True, report_to=[], logging_strategy="no",
                         disable_tqdm=True)  # and TRL's bf16=True: accelerate's autocast must not touch the head
    trainer = trl.SFTTrainer(model=model, args=args, train_dataset=data, processing_class=tokenizer)
    trainer.train()
    trainer.save_model(str(tmp_path / "final"))
    for d in (tmp_path / "out" / "checkpoint-2", tmp_path / "final"):
        _check_adapter_dir(d, model)
    assert any(t.abs().sum() > 0 for k, t in load_file(tmp_path / "final" / "adapter_model.safetensors").items()
               if k.endswith("lora_B.weight"))  # it trained
    ids = torch.tensor([tokenizer("3 plus 1 is 4.")["input_ids"]])
    with torch.no_grad():
        trained = model.eval()(input_ids=ids).logits
        loaded = PeftModel.from_pretrained(build_model(tokenizer), str(tmp_path / "final")).eval()(input_ids=ids)
    assert rel_err(loaded.logits, trained) < 1e-5


def test_merged_model_saves_whole_and_adapted_model_refuses_push(tmp_path):
    model = _adapted()
    with pytest.raises(amplora.AmploraError, match="push_to_hub"):
        model.save_pretrained(tmp_path / "hub", push_to_hub=True)
    merged = amplora.merge(model)
    merged.save_pretrained(tmp_path / "merged")
    names = {p.name for p in (tmp_path / "merged").iterdir()}
    assert "config.json" in names and not names & ADAPTER_FILES
    assert set(load_file(tmp_path / "merged" / "model.safetensors")) == set(tiny_llama().state_dict())


def test_a_failed_save_into_a_directory_is_one_line_and_leaves_what_was_there(tmp_path):
    """save_pretrained writes into a Trainer's checkpoint directory (other files stay): past a file size limit it is
    one AmploraError naming the directory, and neither a partial adapter nor a temporary directory is left."""
    out = tmp_path / "ckpt"
    out.mkdir()
    (out / "trainer_state.json").write_text("{}")
    code = (
        "import resource, signal, sys\n"
        "from amplora.adapters import io\n"
        "from amplora.errors import AmploraError\n"
        "from tests.adapters.test_pretrained import _adapted\n"
        "model = _adapted()\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (20_000, 20_000))\n"
        "try:\n"
        f"    io.save_adapter_into(model, {str(out)!r})\n"
        "except AmploraError as e:\n"
        "    print(e); sys.exit(2)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          cwd=Path(__file__).parents[2], env={**os.environ, "PYTHONPATH": "src:."})
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert proc.stdout.strip() == f"cannot write {out}: File too large"
    assert sorted(p.name for p in out.iterdir()) == ["trainer_state.json"]
