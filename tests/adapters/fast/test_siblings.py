"""Sibling layers that read the same input (q/k/v, gate/up) as one node (amplora.adapters.fast.siblings): which
layers are grouped, that a group is one node, that its outputs and gradients equal the layers run alone (fp64
gradcheck of the node; fp32 / bf16 / fp16 whole models against the ungrouped model), and the cases where a sibling
must run alone: another input, an input changed in place, merged or dropout layers, an output nobody used."""
from __future__ import annotations

import copy

import pytest
import torch
import torch.nn as nn

import amplora
from amplora.adapters.fast import node, siblings
from amplora.adapters.layers import LoraLinear

from ..conftest import perturb_adapters, policy, rel_err, tiny_llama

F32, BF16, F16, F64 = torch.float32, torch.bfloat16, torch.float16, torch.float64
# grouped vs alone, max |diff| / max |ref|: the same math with the r-wide GEMMs stacked and the input gradients
# summed in place (another summation order): fp32 a few roundings; half precision one rounding of the format
# (bf16 eps 7.8e-3, fp16 9.8e-4) on a few outputs
TOL = {F32: 1e-5, BF16: 2e-2, F16: 3e-3}


def _adapted(method="lora", precision="fp32", **kw):
    model = amplora.apply(tiny_llama(), method=method, r=4, alpha=8, precision=precision, **kw)
    perturb_adapters(model)
    return model


def _unlinked(model):
    alone = copy.deepcopy(model)
    siblings.unlink(alone)
    return alone


def _step(model, ids):
    """Logits and every adapter gradient of one forward/backward with a fixed upstream gradient."""
    model.zero_grad(set_to_none=True)
    logits = model(ids).logits
    gy = torch.randn(logits.shape, generator=torch.Generator().manual_seed(5)).to(logits.dtype)
    logits.backward(gy)
    return logits.detach(), {n: p.grad for n, p in amplora.trainable_parameters(model)}


def test_apply_groups_qkv_and_gate_up_and_nothing_else():
    model = _adapted()
    layer = model.model.layers[0]
    attn, mlp = layer.self_attn, layer.mlp
    assert attn.q_proj.fast.siblings is attn.k_proj.fast.siblings is attn.v_proj.fast.siblings is not None
    assert attn.q_proj.fast.siblings.members == [attn.q_proj, attn.k_proj, attn.v_proj]
    assert mlp.gate_proj.fast.siblings is mlp.up_proj.fast.siblings is not None
    assert attn.o_proj.fast.siblings is None and mlp.down_proj.fast.siblings is None
    assert attn.q_proj.fast.siblings is not model.model.layers[1].self_attn.q_proj.fast.siblings
    siblings.unlink(model)
    assert all(m.fast.siblings is None for m in model.modules() if isinstance(m, LoraLinear))
    # targets that leave one sibling out still group the others
    only_qv = amplora.apply(tiny_llama(), r=4, targets=["q_proj", "v_proj"], precision="fp32")
    attn = only_qv.model.layers[0].self_attn
    assert attn.q_proj.fast.siblings.members == [attn.q_proj, attn.v_proj]


def test_a_group_is_one_node_with_one_output_per_layer():
    attn = _adapted().model.layers[0].self_attn
    x = torch.randn(2, 5, 64, requires_grad=True)
    q, k, v = attn.q_proj(x), attn.k_proj(x), attn.v_proj(x)
    assert type(q.grad_fn).__name__ == "AdapterLinearBackward"
    assert q.grad_fn is k.grad_fn is v.grad_fn
    assert [t.output_nr for t in (q, k, v)] == [0, 1, 2]
    assert attn.q_proj.fast.siblings.pending is None  # all collected: nothing held
    for proj, y in ((attn.q_proj, q), (attn.k_proj, k), (attn.v_proj, v)):
        group, proj.fast.siblings = proj.fast.siblings, None
        assert torch.allclose(proj(x), y, rtol=0, atol=1e-6)
        proj.fast.siblings = group


@pytest.mark.parametrize("method", ["lora", "dora"])
@pytest.mark.parametrize("precision", ["fp32", "bf16-true", "fp16-mixed"])
def test_grouped_model_matches_the_layers_run_alone(method, precision, ids):
    model = _adapted(method, precision)
    alone = _unlinked(model)
    y, grads = _step(model, ids)
    y_ref, grads_ref = _step(alone, ids)
    tol = TOL[model.model.layers[0].self_attn.q_proj.compute_dtype]
    assert rel_err(y, y_ref) <= tol
    assert grads.keys() == grads_ref.keys()
    for name in grads:
        assert rel_err(grads[name], grads_ref[name]) <= tol, name


def test_gradcheck_fp64_group_of_mixed_layers():
    """LoRA and DoRA layers of different rank, scaling and bias in one node, against finite differences."""
    torch.manual_seed(0)
    specs = [(5, 4, 1.5, False, True), (3, 2, 2.0, True, False), (4, 3, 0.5, True, True)]  # out, r, s, bias, dora
    layers, params, leaves = [], [], []
    for out, r, s, bias, dora in specs:
        base = nn.Linear(6, out, bias=bias).double().requires_grad_(False)
        a = torch.randn(r, 6, dtype=F64, requires_grad=True)
        b = torch.randn(out, r, dtype=F64, requires_grad=True)
        m = (torch.rand(out, dtype=F64) + 0.5).requires_grad_(True) if dora else None
        layers.append(node.Layer(base, s, torch.rand(out, dtype=F64) + 1.0 if dora else None))
        params += [a, b, m]
        leaves += [t for t in (a, b, m) if t is not None]
    x = torch.randn(2, 3, 6, dtype=F64, requires_grad=True)

    def f(x, *flat):
        it = iter(flat)
        ps = tuple(None if p is None else next(it) for p in params)
        # one output: gradcheck takes one output at a time, and the node sees only that output's gradient
        return torch.cat([y.flatten() for y in node.adapter_linears(x, None, tuple(layers), ps)])

    assert torch.autograd.gradcheck(f, (x, *leaves))


def test_an_output_nobody_uses_gives_no_gradient():
    attn = _adapted().model.layers[0].self_attn
    x = torch.randn(2, 5, 64, requires_grad=True)
    q, k, _ = attn.q_proj(x), attn.k_proj(x), attn.v_proj(x)
    (q.sum() + k.square().sum()).backward()
    assert attn.v_proj.lora_A.weight.grad is None and attn.v_proj.lora_B.weight.grad is None
    grad_x = x.grad.clone()
    x.grad = None
    for proj in (attn.q_proj, attn.k_proj):
        proj.fast.siblings = None
    (attn.q_proj(x).sum() + attn.k_proj(x).square().sum()).backward()
    assert rel_err(grad_x, x.grad) <= TOL[F32]


def test_a_sibling_fed_another_input_runs_alone_and_the_group_stops():
    attn = _adapted().model.layers[0].self_attn
    group = attn.q_proj.fast.siblings
    x1, x2 = torch.randn(2, 5, 64), torch.randn(2, 5, 64)
    attn.q_proj(x1)
    k = attn.k_proj(x2)  # cross-attention style: keys from another tensor
    assert not group.enabled and group.pending is None
    attn.k_proj.fast.siblings = None
    assert torch.equal(k, attn.k_proj(x2))
    attn.k_proj.fast.siblings = group
    q = attn.q_proj(x1)  # from now on every layer alone: nothing is computed ahead and kept
    assert group.pending is None and q.shape == (2, 5, 64)


def test_an_input_changed_in_place_is_not_served_a_stale_output():
    attn = _adapted().model.layers[0].self_attn
    x = torch.randn(2, 5, 64)
    attn.q_proj(x)
    x.mul_(2)
    k = attn.k_proj(x)
    attn.k_proj.fast.siblings = None
    assert torch.equal(k, attn.k_proj(x))


def test_merged_or_dropout_siblings_run_alone_with_the_same_result(ids):
    model = _adapted(dropout=0.1)
    assert not model.model.layers[0].self_attn.q_proj.fast.fusable()
    model.eval()  # dropout off: the outputs must equal the ungrouped model's
    with torch.no_grad():
        assert torch.equal(model(ids).logits, _unlinked(model)(ids).logits)
    merged = _adapted()
    expected = merged(ids).logits.detach()
    amplora.merge(merged, keep_adapters=True)
    q = merged.model.layers[0].self_attn.q_proj
    assert q.merged and not q.fast.fusable()
    assert rel_err(merged(ids).logits, expected) <= 1e-5


def test_generation_without_grad_uses_the_group_and_matches(ids):
    model = _adapted("dora", "bf16-true")
    alone = _unlinked(model)
    with torch.no_grad():
        y, y_ref = model(ids).logits, alone(ids).logits
    assert rel_err(y, y_ref) <= TOL[BF16]
    out = model.generate(ids[:1, :4], max_new_tokens=5, do_sample=False)
    ref = alone.generate(ids[:1, :4], max_new_tokens=5, do_sample=False)
    assert torch.equal(out, ref)


def test_link_skips_siblings_of_different_width_or_dtype():
    parent = nn.Module()
    parent.q_proj = LoraLinear(nn.Linear(8, 8).requires_grad_(False), r=2, alpha=4)
    parent.k_proj = LoraLinear(nn.Linear(6, 8).requires_grad_(False), r=2, alpha=4)
    parent.gate_proj = LoraLinear(nn.Linear(8, 8).requires_grad_(False), r=2, alpha=4)
    parent.up_proj = LoraLinear(nn.Linear(8, 8).bfloat16().requires_grad_(False), r=2, alpha=4,
                                precision=policy(BF16))
    assert siblings.link(parent) == 0
    assert all(m.fast.siblings is None for m in parent.children())
