"""DoctorCallback in a real transformers.Trainer: preflight at start, faults in callbacks' generate() diagnosed."""
from __future__ import annotations

import sys

import pytest
import torch
from peft import LoraConfig, get_peft_model
from torch.utils._python_dispatch import _get_current_dispatch_mode
from transformers import Trainer, TrainerCallback, TrainingArguments

from amplora.doctor import PrecisionFault
from amplora.integrations import DoctorCallback

from .conftest import PROGRAMS

sys.path.insert(0, str(PROGRAMS))
from _tiny import batch, tiny_llama  # noqa: E402


class SampleEachStep(TrainerCallback):
    """What many recipes do: sample from the model in a callback, outside the Trainer's autocast (S001)."""

    def __init__(self, ids):
        self.ids = ids
        self.samples = 0

    def on_step_end(self, args, state, control, model=None, **kwargs):
        model.generate(input_ids=self.ids[:1, :4], max_new_tokens=2, do_sample=False)
        self.samples += 1


def _trainer(model, tmp_path, callbacks):
    ids = batch(8, 8)
    data = [{"input_ids": row, "labels": row} for row in ids]
    args = TrainingArguments(output_dir=str(tmp_path / "out"), max_steps=2, per_device_train_batch_size=2, bf16=True,
                             use_cpu=True, report_to=[], save_strategy="no", logging_strategy="no",
                             disable_tqdm=True)
    return Trainer(model=model, args=args, train_dataset=data, callbacks=callbacks), ids


def _peft_bf16_with_fp32_norms():
    base = tiny_llama(torch.bfloat16)
    for name, module in base.named_modules():
        if name.endswith("norm"):
            module.float()
    return get_peft_model(base, LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"]))


def test_callback_generate_fault_is_diagnosed(tmp_path):
    model = _peft_bf16_with_fp32_norms()
    doctor_cb = DoctorCallback()
    trainer, ids = _trainer(model, tmp_path, [doctor_cb])
    trainer.add_callback(SampleEachStep(ids))
    with pytest.raises(PrecisionFault) as info:
        trainer.train()
    f = info.value
    assert isinstance(f, RuntimeError)  # code catching the original error type still catches it
    assert f.phase == "generate"
    assert f.module == "base_model.model.model.layers.0.self_attn.q_proj.base_layer"
    assert "base_model.model.model.layers.0.input_layernorm" in f.culprit
    assert "torch.autocast" in f.fix
    assert doctor_cb.preflight_info is not None and doctor_cb.preflight_info["devices"]
    # the run is over: the doctor steps aside at the next module call
    with torch.no_grad():
        model(input_ids=ids[:1, :3])
    assert _get_current_dispatch_mode() is None
    doctor_cb.close()


def test_clean_training_with_callback(tmp_path):
    """Generation inside the training precision: no fault, and the doctor is gone after training."""
    model = _peft_bf16_with_fp32_norms()

    class SampleUnderAutocast(SampleEachStep):
        def on_step_end(self, args, state, control, model=None, **kwargs):
            with torch.autocast("cpu", dtype=torch.bfloat16):
                super().on_step_end(args, state, control, model=model, **kwargs)

    doctor_cb = DoctorCallback(preflight=False, report=True)
    trainer, ids = _trainer(model, tmp_path, [doctor_cb])
    sampler = SampleUnderAutocast(ids)
    trainer.add_callback(sampler)
    trainer.train()
    assert sampler.samples == 2
    assert doctor_cb.watcher.fault is None
    assert doctor_cb.watcher.flow_warnings() == []
    assert _get_current_dispatch_mode() is None
    assert sys.excepthook is not doctor_cb._excepthook


def test_callback_traces_a_nan_born_in_a_custom_backward(tmp_path, caplog):
    from nan_custom_backward import CustomAct

    model = tiny_llama(torch.float32)
    model.model.layers[0].mlp.act_fn = CustomAct()
    doctor_cb = DoctorCallback(preflight=False)
    ids = batch(4, 8)
    args = TrainingArguments(output_dir=str(tmp_path / "out"), max_steps=2, per_device_train_batch_size=2,
                             use_cpu=True, report_to=[], save_strategy="no", logging_strategy="no",
                             disable_tqdm=True)
    trainer = Trainer(model=model, args=args, train_dataset=[{"input_ids": r, "labels": r} for r in ids],
                      callbacks=[doctor_cb])
    with caplog.at_level("WARNING", logger="amplora.doctor"):
        trainer.train()  # no exception: the Trainer decides what a NaN means
    found = doctor_cb.nonfinite
    assert found is not None and found.phase == "backward" and found.function == "ScaledSiLU"
    assert found.module == "model.layers.0.mlp.act_fn" and found.op.startswith("aten.div")
    assert any("ScaledSiLU.backward" in r.getMessage() for r in caplog.records)


def test_callback_logs_a_note_for_an_fp16_model_trained_with_adamw(tmp_path, caplog):
    """A model cast to fp16 before the Trainer: AdamW keeps fp16 state where its eps of 1e-8 is 0."""
    model = tiny_llama(torch.float16)
    doctor_cb = DoctorCallback(preflight=False)
    ids = batch(4, 8)
    args = TrainingArguments(output_dir=str(tmp_path / "out"), max_steps=2, per_device_train_batch_size=2,
                             use_cpu=True, report_to=[], save_strategy="no", logging_strategy="no",
                             disable_tqdm=True)
    trainer = Trainer(model=model, args=args, train_dataset=[{"input_ids": r, "labels": r} for r in ids],
                      callbacks=[doctor_cb])
    with caplog.at_level("WARNING", logger="amplora.doctor"):
        trainer.train()
    assert len(doctor_cb.notes) == 1 and "eps=1e-08, which is 0 in fp16" in doctor_cb.notes[0]
    assert sum("step 1: note: AdamW updates" in r.getMessage() for r in caplog.records) == 1


def test_callback_explains_an_out_of_memory_step(tmp_path):
    from oom_in_forward import GreedyAct

    model = tiny_llama(torch.float32)
    model.model.layers[1].mlp.act_fn = GreedyAct()
    doctor_cb = DoctorCallback(preflight=False)
    trainer, _ = _trainer(model, tmp_path, [doctor_cb])
    with pytest.raises(PrecisionFault) as info:
        trainer.train()
    f = info.value
    assert isinstance(f, RuntimeError) and f.kind == "memory"
    assert (f.phase, f.module) == ("forward", "model.layers.1.mlp.act_fn")
    assert "peak so far" in f.culprit and "--activation-checkpointing" in f.fix
    doctor_cb.close()
