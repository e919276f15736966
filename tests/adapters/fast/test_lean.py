"""The lean RMSNorm / SwiGLU stand-ins (amplora.adapters.fast.lean): the same output bits as the transformers modules,
gradients against autograd over those modules (bit-identical for SwiGLU, an fp64 reference for RMSNorm), what
they keep for backward, what `install` refuses, and that adapters replay their outputs instead of keeping them."""
from __future__ import annotations

import copy

import pytest
import torch
import torch.nn as nn
from transformers.models.llama.modeling_llama import LlamaMLP, LlamaRMSNorm

import amplora
from amplora.adapters.fast import lean
from amplora.adapters.fast.torch_private import function_of

from ..conftest import perturb_adapters, policy, rel_err, tiny_config, tiny_llama

F32, BF16, F16, F64 = torch.float32, torch.bfloat16, torch.float16, torch.float64
# RMSNorm gradient vs an fp64 reference, max |diff| / max |ref|: fp32 a few roundings over a 64-wide mean; half
# precision: the final rounding of the gradient to the input dtype (bf16 eps 7.8e-3, fp16 9.8e-4) dominates
NORM_TOL = {F32: 1e-6, BF16: 8e-3, F16: 1e-3}


def _norm(dtype, width=64):
    norm = LlamaRMSNorm(width, eps=1e-5)
    with torch.no_grad():
        norm.weight.uniform_(0.5, 1.5, generator=torch.Generator().manual_seed(0))
    return norm.to(dtype).requires_grad_(False)


def _x(dtype, shape=(3, 5, 64), seed=1):
    return (torch.randn(shape, generator=torch.Generator().manual_seed(seed)) * 2).to(dtype).requires_grad_(True)


@pytest.mark.parametrize("dtype", [F32, BF16, F16])
def test_rmsnorm_matches_transformers_forward_bits_and_gradient(dtype):
    norm = _norm(dtype)
    x_ref, x = _x(dtype), _x(dtype)
    y_ref, y = norm(x_ref), lean.LeanRMSNorm(norm)(x)
    assert y.grad_fn is not None and lean.replayable(y.grad_fn)
    assert y.dtype == y_ref.dtype and torch.equal(y, y_ref)
    gy = torch.randn(y.shape, generator=torch.Generator().manual_seed(7)).to(y.dtype)
    y.backward(gy)
    x64 = x.detach().double().requires_grad_(True)  # the fp64 reference of the same module
    _norm(dtype).double()(x64).backward(gy.double())
    assert x.grad.dtype == dtype
    assert rel_err(x.grad, x64.grad) <= NORM_TOL[dtype]
    y_ref.backward(gy)  # and no further from the reference than autograd over the transformers module
    assert rel_err(x.grad, x64.grad) <= max(2 * rel_err(x_ref.grad, x64.grad), NORM_TOL[F32])


@pytest.mark.parametrize("dtype", [F32, BF16])
def test_swiglu_matches_transformers_bit_for_bit(dtype):
    torch.manual_seed(0)
    mlp = LlamaMLP(tiny_config()).to(dtype).requires_grad_(False)
    x_ref, x = _x(dtype), _x(dtype)
    y_ref, y = mlp(x_ref), lean.LeanSwiGLU(mlp)(x)
    assert torch.equal(y, y_ref)
    gy = torch.randn(y.shape, generator=torch.Generator().manual_seed(7)).to(dtype)
    y_ref.backward(gy)
    y.backward(gy)
    assert torch.equal(x.grad, x_ref.grad)


@pytest.mark.parametrize("dtype", [F32, BF16])
def test_swiglu_with_an_adapter_behind_it_gives_autograds_gradients_bit_for_bit(dtype):
    """down_proj's adapter replays act(gate)·up from the lean node, which keeps act(gate) for its own backward:
    every gradient is the same bits as the transformers MLP's (where the adapter replays autograd's product)."""
    torch.manual_seed(0)
    mlp = LlamaMLP(tiny_config()).to(dtype).requires_grad_(False)
    mlp.down_proj = amplora.LoraLinear(mlp.down_proj, r=4, alpha=8, precision=policy(dtype))
    with torch.no_grad():
        mlp.down_proj.lora_B.weight.normal_(0, 0.3)
    results = []
    for module in (mlp, lean.LeanSwiGLU(mlp)):
        x = _x(dtype)
        module.zero_grad(set_to_none=True)
        y = module(x)
        y.backward(torch.randn(y.shape, generator=torch.Generator().manual_seed(7)).to(dtype))
        results.append((y, x.grad, mlp.down_proj.lora_A.weight.grad, mlp.down_proj.lora_B.weight.grad))
    for ref, got in zip(*results):
        assert torch.equal(got, ref)


def _saved_storages(root) -> dict[int, int]:
    """data_ptr -> nbytes of every tensor the autograd graph under `root` keeps (walked, not hooked: a saved-tensor
    hook would switch the replay off)."""
    seen, kept, stack = set(), {}, [root]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        tensors = []
        for name in dir(node):
            if name.startswith("_saved_") and not name.endswith("_sym"):
                value = getattr(node, name, None)
                tensors += value if isinstance(value, (list, tuple)) else [value]
        if hasattr(node, "saved_tensors"):
            tensors += list(node.saved_tensors)
        for t in tensors:
            if isinstance(t, torch.Tensor):
                kept[t.untyped_storage().data_ptr()] = t.untyped_storage().nbytes()
        stack += [f for f, _ in node.next_functions]
    return kept


@pytest.mark.parametrize("dtype", [F32, BF16])
def test_lean_modules_keep_less(dtype):
    """Per token, the transformers RMSNorm keeps an fp32 copy of its input (bf16: twice its bytes) and the MLP keeps
    act(gate) besides gate and up; the lean ones keep the input in its dtype plus one fp32 scale, and gate and up.
    (An fp32 RMSNorm keeps the same either way; what it saves there is the adapters' copy of its output.)"""
    norm, mlp = _norm(dtype), LlamaMLP(tiny_config()).to(dtype).requires_grad_(False)
    tokens = 3 * 5
    for module, lean_module, lean_bytes in (
            (norm, lean.LeanRMSNorm(norm), tokens * (64 * dtype.itemsize + 4)),
            (mlp, lean.LeanSwiGLU(mlp), 2 * tokens * 128 * dtype.itemsize)):
        params = {p.untyped_storage().data_ptr() for p in module.parameters()}
        x = _x(dtype)
        kept = {k: v for k, v in _saved_storages(lean_module(x).grad_fn).items() if k not in params}
        kept_ref = {k: v for k, v in _saved_storages(module(x).grad_fn).items() if k not in params}
        assert sum(kept.values()) == lean_bytes
        if module is mlp or dtype != F32:
            assert sum(kept_ref.values()) >= 1.5 * lean_bytes
        else:
            assert sum(kept_ref.values()) == lean_bytes


def test_install_replaces_what_it_reproduces_and_restores():
    model = tiny_llama().to(BF16)
    ids = torch.randint(3, 256, (2, 16), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        ref = model(ids).logits
    replaced = lean.install(model)
    layers = model.config.num_hidden_layers
    assert len(replaced) == 3 * layers + 1  # two norms and the MLP per layer, the final norm
    assert isinstance(model.model.layers[0].mlp, lean.LeanSwiGLU)
    assert isinstance(model.model.norm, lean.LeanRMSNorm)
    assert [n for n, _ in model.named_parameters()] == [n for n, _ in tiny_llama().named_parameters()]
    with torch.no_grad():
        assert torch.equal(model(ids).logits, ref)
    lean.restore(model)
    assert isinstance(model.model.norm, LlamaRMSNorm) and isinstance(model.model.layers[0].mlp, LlamaMLP)
    assert not lean.install(nn.Sequential(nn.Linear(4, 4)))


class OffsetRMSNorm(LlamaRMSNorm):
    """Named and shaped like an RMSNorm, computing something else (as a Gemma-style w·(1 + x̂) norm would)."""

    def forward(self, x):
        return super().forward(x) * 1.5


class ShiftedMLP(LlamaMLP):
    """A SiLU gate/up/down MLP whose forward adds a constant: shaped like SwiGLU, computing something else."""

    def __init__(self, config):
        super().__init__(config)
        self.act_fn = nn.SiLU()

    def forward(self, x):
        return self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x) + 1)


def test_install_leaves_modules_it_does_not_reproduce_or_that_carry_hooks():
    model = nn.Sequential(OffsetRMSNorm(64), ShiftedMLP(tiny_config()), LlamaRMSNorm(64), LlamaRMSNorm(64))
    model[3].register_forward_hook(lambda *args: None)  # e.g. accelerate's offloading: the stand-in would drop it
    assert lean.install(model) == ["2"]


@pytest.mark.parametrize("method,dtype", [("lora", F32), ("dora", F32), ("lora", BF16), ("dora", BF16)])
def test_adapters_replay_lean_outputs(method, dtype):
    """q/k/v, gate/up and down_proj adapters keep none of the norm or SwiGLU outputs, and training gradients are
    those of the transformers modules (lean_modules=False): same loss bits, adapter gradients within rounding."""
    precision = "fp32" if dtype == F32 else "bf16-true"
    base = tiny_llama()
    models = []
    for flag in (True, False):
        torch.manual_seed(0)  # the same adapter initialisation
        models.append(amplora.apply(copy.deepcopy(base), method=method, r=4, alpha=8, precision=precision,
                                    lean_modules=flag))
        perturb_adapters(models[-1])
    ids = torch.randint(3, 256, (2, 16), generator=torch.Generator().manual_seed(1))
    emb = models[0].get_input_embeddings()(ids).detach()
    replayed = []  # the adapters' inputs that the lean modules produce (held here, so no storage is reused)
    for layer in models[0].model.layers:
        for adapted in (layer.self_attn.q_proj, layer.mlp.gate_proj, layer.mlp.down_proj):
            adapted.register_forward_pre_hook(lambda mod, args: replayed.append(args[0]))
    grads, losses = [], []
    for m in models:
        logits = m(inputs_embeds=emb.clone().requires_grad_(True)).logits
        if m is models[0]:
            assert len(replayed) == 3 * len(m.model.layers)
            assert all(lean.replayable(x.grad_fn) for x in replayed)
            assert not {x.untyped_storage().data_ptr() for x in replayed} & set(_saved_storages(logits.grad_fn))
        loss = logits.float().logsumexp(-1).mean()
        loss.backward()
        if m is models[0]:  # a norm's output, replayed once for q/k/v (or gate/up), is dropped by its backward
            norms = [x.grad_fn for x in replayed if function_of(x.grad_fn) is lean._RMSNormFn]
            assert len(norms) == 2 * len(m.model.layers) and all(n.replayed is None for n in norms)
        losses.append(loss.detach())
        grads.append({n: p.grad for n, p in amplora.trainable_parameters(m)})
    assert torch.equal(losses[0], losses[1])
    # the RMSNorm input gradient is computed in another order (measured: 5e-7 fp32; bf16 LoRA 9.6e-3, one bf16
    # rounding of a gradient flipped and carried into the layer below; DoRA 0)
    for name, g in grads[0].items():
        assert rel_err(g, grads[1][name]) <= (2e-6 if dtype == F32 else 2e-2), name


def _nodes(root, cls) -> list:
    """The autograd nodes of custom Function `cls` in the graph under `root`."""
    seen, found, stack = set(), [], [root]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        if function_of(node) is cls:
            found.append(node)
        stack += [f for f, _ in node.next_functions]
    return found


def _train_step(model, emb, replay: bool):
    """Loss, input gradient, adapter gradients and the graph's kept bytes of one step, with residual-sum replay
    on or off; also the norm nodes (checked after backward)."""
    for m in model.modules():
        if isinstance(m, lean.LeanRMSNorm):
            m.replay_sums = replay
    model.zero_grad(set_to_none=True)
    x = emb.clone().requires_grad_(True)
    logits = model(inputs_embeds=x).logits
    params = {p.untyped_storage().data_ptr() for p in model.parameters()}
    kept = sum(v for k, v in _saved_storages(logits.grad_fn).items() if k not in params)
    norms = _nodes(logits.grad_fn, lean._RMSNormFn)
    loss = logits.float().logsumexp(-1).mean()
    loss.backward()
    grads = {n: p.grad for n, p in amplora.trainable_parameters(model)}
    return loss.detach(), x.grad, grads, kept, norms


@pytest.mark.parametrize("dtype,kept", [(F32, "y"), (BF16, "y"), (F32, "z"), (BF16, "z")])
def test_norms_behind_dora_replay_their_residual_sums(dtype, kept):
    """A norm whose input is h + o_proj(...) or h + down_proj(...) with DoRA there keeps neither: h is the previous
    norm's input and DoRA keeps its output (y, or z when g has a zero: then y = g·z is replayed). Every gradient
    is the same bits as with the sums kept, the graph keeps exactly those sums fewer, and backward leaves no
    replayed tensor behind."""
    precision = "fp32" if dtype == F32 else "bf16-true"
    torch.manual_seed(0)
    model = amplora.apply(tiny_llama(num_hidden_layers=3), method="dora", r=4, alpha=8, precision=precision)
    perturb_adapters(model)
    if kept == "z":  # a zero in g: DoRA keeps z instead of its output
        with torch.no_grad():
            for layer in model.model.layers:
                layer.self_attn.o_proj.lora_magnitude_vector[0] = 0
                layer.mlp.down_proj.lora_magnitude_vector[0] = 0
    ids = torch.randint(3, 256, (2, 16), generator=torch.Generator().manual_seed(1))
    emb = model.get_input_embeddings()(ids).detach()
    loss, grad_x, grads, kept_bytes, norms = _train_step(model, emb, replay=True)
    loss_ref, grad_x_ref, grads_ref, kept_ref, _ = _train_step(model, emb, replay=False)
    layers = len(model.model.layers)
    # 2 norms per layer + the final one; all but the first (its input is the embedding) replay theirs
    assert len(norms) == 2 * layers + 1
    assert sum(n.source is not None for n in norms) == 2 * layers
    assert {n.source[1].outputs[n.source[2]] for n in norms if n.source is not None} == {kept}
    assert all(n.x_cache is None and n.replayed is None for n in norms)
    assert kept_ref - kept_bytes == 2 * layers * ids.numel() * 64 * dtype.itemsize
    assert torch.equal(loss, loss_ref) and torch.equal(grad_x, grad_x_ref)
    for name, g in grads.items():
        assert torch.equal(g, grads_ref[name]), name


@pytest.mark.parametrize("case", ["lora", "checkpointing"])
def test_norm_inputs_are_kept_behind_lora_and_under_checkpointing(case):
    """LoRA keeps no output to replay a sum from; under checkpointing, reading another node's saved tensors would
    recompute its region, so nothing is replayed there either. Gradients are those of the sums kept."""
    torch.manual_seed(0)
    model = amplora.apply(tiny_llama(num_hidden_layers=2), method="lora" if case == "lora" else "dora", r=4,
                          alpha=8, precision="fp32")
    perturb_adapters(model)
    if case == "checkpointing":
        model.train()
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    emb = model.get_input_embeddings()(torch.arange(3, 35).view(2, 16)).detach()
    loss, grad_x, grads, _, norms = _train_step(model, emb, replay=True)
    loss_ref, grad_x_ref, grads_ref, _, _ = _train_step(model, emb, replay=False)
    assert len(norms) == 2 * 2 + 1 and not any(n.source is not None for n in norms)
    assert torch.equal(loss, loss_ref) and torch.equal(grad_x, grad_x_ref)
    for name, g in grads.items():
        assert torch.equal(g, grads_ref[name]), name
