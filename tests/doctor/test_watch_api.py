"""watch(): the exception's fields, what passes through untouched, clean-up, eager mode, nesting."""
from __future__ import annotations

import json

import pytest
import torch
from torch import nn
from torch.nn.modules import module as module_mod
from torch.utils._python_dispatch import _get_current_dispatch_mode

import amplora.doctor as doctor
from amplora.doctor import PrecisionFault

from .conftest import PROGRAMS


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(8)
        self.proj = nn.Linear(8, 8)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block(), Block()])

    def forward(self, x):
        for b in self.blocks:
            x = b.proj(b.norm(x))
        return x


def _hook_counts():
    return len(module_mod._global_forward_pre_hooks), len(module_mod._global_forward_hooks)


def test_fields_and_cause_for_a_plain_module():
    net = Net()
    net.blocks[1].proj.to(torch.bfloat16)  # one layer left in bf16
    before = _hook_counts()
    with pytest.raises(PrecisionFault) as info:
        with doctor.watch(net):
            net(torch.randn(2, 8))
    f = info.value
    assert f.phase == "forward"
    assert f.module == "blocks.1.proj"
    assert f.op.startswith("aten.addmm")
    assert {o.dtype for o in f.operands} == {"fp32", "bf16"}
    assert "blocks.1.proj.weight" in " ".join(o.origin for o in f.operands) + f.culprit
    assert "output of blocks.1.norm" in " ".join(o.origin for o in f.operands)
    assert isinstance(f.__cause__, RuntimeError) and not isinstance(f.__cause__, PrecisionFault)
    json.dumps(f.as_dict())  # plain data
    assert _get_current_dispatch_mode() is None and _hook_counts() == before  # nothing left behind


def test_backward_fault_names_the_module_whose_forward_made_the_node():
    class Bad(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            out = torch.empty(g.shape, dtype=torch.float16)
            torch.mm(g, torch.eye(g.shape[1]), out=out)  # mm's out= must match the result dtype
            return out

    class Wrapped(nn.Module):
        def forward(self, x):
            return Bad.apply(x)

    net = nn.Sequential(nn.Linear(4, 4), nn.Sequential(nn.Identity(), Wrapped()), nn.Linear(4, 1))
    with pytest.raises(PrecisionFault) as info, doctor.watch(net):
        net(torch.randn(3, 4)).sum().backward()
    assert info.value.phase == "backward"
    assert info.value.module == "1.1"
    assert "Bad.backward" in info.value.culprit


def test_non_precision_errors_pass_through_untouched():
    with pytest.raises(RuntimeError, match="cannot be multiplied") as info, doctor.watch():
        torch.ones(2, 3) @ torch.ones(4, 5)
    assert not isinstance(info.value, PrecisionFault)
    with pytest.raises(KeyError), doctor.watch():
        {}["missing"]


def test_handled_faults_inside_the_block_are_ignored():
    with doctor.watch():
        try:
            torch.ones(2, 2) @ torch.ones(2, 2, dtype=torch.bfloat16)
        except RuntimeError:
            pass  # the user's own fallback
        y = torch.ones(2, 2) @ torch.ones(2, 2)
    assert y.sum().item() == 8


def test_eager_mode_raises_at_the_op_as_the_original_type():
    w = torch.randn(4, 4, dtype=torch.float16)
    watcher = doctor.watch(eager=True).start()
    try:
        with pytest.raises(NotImplementedError) as info:  # existing `except NotImplementedError` still matches
            torch.linalg.svd(w)
    finally:
        watcher.stop()
    assert isinstance(info.value, PrecisionFault)
    assert info.value.phase == "init" and "svd" in info.value.op
    assert _get_current_dispatch_mode() is None


def test_nested_watch_keeps_the_inner_diagnosis():
    net = Net()
    net.blocks[0].proj.half()
    with pytest.raises(PrecisionFault) as info:
        with doctor.watch(net):
            with doctor.watch(net):
                net(torch.randn(2, 8))
    assert info.value.module == "blocks.0.proj"
    assert _get_current_dispatch_mode() is None


def test_conv_type_mismatch_blames_the_input_of_a_half_module():
    conv = nn.Conv1d(2, 3, 1).half()
    with pytest.raises(PrecisionFault) as info, doctor.watch(conv):
        conv(torch.randn(1, 2, 5))
    f = info.value
    assert f.module == "Conv1d" and f.phase == "forward"
    assert f.culprit == "the fp32 input passed into Conv1d (params fp16) by its caller"
    assert "x.to(torch.float16)" in f.fix


def test_non_long_indices_fault():
    emb = nn.Embedding(10, 4)
    with pytest.raises(PrecisionFault) as info, doctor.watch(emb):
        emb(torch.tensor([1.0, 2.0]))
    assert info.value.key == "long-indices"
    assert "Long" in info.value.fix or "long" in info.value.fix


def test_numpy_of_bf16_is_diagnosed_from_the_traceback():
    with pytest.raises(PrecisionFault) as info, doctor.watch():
        torch.ones(2, dtype=torch.bfloat16).numpy()
    assert info.value.key == "numpy-bf16" and ".float().numpy()" in info.value.fix
    assert "test_watch_api.py" in info.value.culprit


def test_index_put_dtype_mismatch():
    cache = torch.zeros(4, 3, dtype=torch.bfloat16)
    with pytest.raises(PrecisionFault) as info, doctor.watch():
        cache.index_put_((torch.tensor([1]),), torch.ones(1, 3))
    assert info.value.key == "index-dtype"
    assert {o.dtype for o in info.value.operands} >= {"bf16", "fp32"}


def test_overhead_instruments_are_cheap_objects():
    """The hot path is one dispatch-mode call per op; nothing is stored per op (only per module call)."""
    net = Net()
    with doctor.watch(net) as w:
        for _ in range(3):
            net(torch.randn(2, 8)).sum().backward()
    assert w.fault is None
    assert len(w.recorder.intervals) == 3 * 5  # root + 4 leaf calls per forward
    assert 0 < len(w.recorder.producers) <= 5  # cleared at every outermost forward


def test_programs_dir_is_importable():
    assert (PROGRAMS / "_tiny.py").is_file()


def test_optimizer_step_with_state_in_another_dtype():
    net = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 2))
    opt = torch.optim.AdamW(net.parameters(), lr=1e-3, foreach=False)
    net(torch.randn(2, 4)).sum().backward()
    opt.step()
    for state in opt.state.values():  # a checkpoint whose optimizer state was saved in bf16
        state["exp_avg"] = state["exp_avg"].bfloat16()
    with pytest.raises(PrecisionFault) as info, doctor.watch(net):
        net(torch.randn(2, 4)).sum().backward()
        opt.step()
    f = info.value
    assert f.phase == "optimizer step" and f.module == "0"
    assert f.culprit == "optimizer state 'exp_avg' of 0.weight is bf16 while the parameter is fp32"
    assert "load_state_dict" in f.fix
    assert any(o.origin == "optimizer state 'exp_avg' of 0.weight" for o in f.operands)


def test_where_shows_the_source_line_of_the_user_frame():
    class Head(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(4, 2).to(torch.bfloat16)

        def forward(self, x):
            return self.proj(x)  # the line the fault names

    with pytest.raises(PrecisionFault) as info:
        with doctor.watch():
            Head()(torch.randn(3, 4))
    assert info.value.where.endswith(": `return self.proj(x)  # the line the fault names`"), info.value.where


def test_an_fp32_module_among_bf16_ones_is_told_to_take_their_dtype():
    head = nn.Linear(4, 2)  # fp32, fed bf16 activations
    with pytest.raises(PrecisionFault) as info:
        with doctor.watch(head):
            head(torch.randn(3, 4, dtype=torch.bfloat16))
    f = info.value
    assert "assign=True" in f.cause and "to(torch.bfloat16)" in f.fix
    assert "dtype=torch.bfloat16" in f.fix and "dtype=torch.float32" not in f.fix  # autocast runs in the half dtype


class Frontend(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("window", torch.hann_window(64))

    def forward(self, wav):
        return torch.stft(wav, 64, 16, window=self.window, return_complex=True).abs()


def test_an_integer_input_is_the_culprit_not_the_float_buffer_beside_it():
    pcm = torch.randint(-2000, 2000, (2, 400), dtype=torch.int16)  # PCM samples never converted to float
    with pytest.raises(PrecisionFault) as ei, doctor.watch():
        Frontend()(pcm)
    f = ei.value
    assert f.key == "int-input" and "int16" in f.culprit and "window" not in f.culprit, f.culprit
    assert "32768" in f.fix
