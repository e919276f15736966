"""The fused adapter node (amplora.adapters.fast.node): gradient-checked in fp64, and compared with the plain
autograd path and an fp64 reference across compute dtypes, base storage dtypes, LoRA/DoRA, NF4, dropout."""
from __future__ import annotations

import contextlib
import copy
import itertools

import pytest
import torch
import torch.nn as nn
from torch.utils._python_dispatch import TorchDispatchMode

import amplora
from amplora.adapters import layers, quant
from amplora.adapters.fast import node
from amplora.adapters.layers import LoraLinear
from amplora.precision import grad_gemm_dtype

from ..conftest import DEVICE, perturb_adapters, policy, rel_err

F32, BF16, F16, F64 = torch.float32, torch.bfloat16, torch.float16, torch.float64
# max |diff| / max |ref| against the fp64 reference, by compute dtype: a few rounding steps of each format
# (eps: fp32 1.2e-7, bf16 7.8e-3, fp16 9.8e-4), over reductions of a few dozen terms.
TOL = {F32: 1e-6, BF16: 1.5e-2, F16: 2e-3}
IN, OUT, R, SHAPE = 48, 40, 4, (3, 17)


def make_layer(method="lora", compute=F32, storage=None, bias=False, nf4=False, dropout=0.0, seed=0, device="cpu"):
    torch.manual_seed(seed)
    base = nn.Linear(IN, OUT, bias=bias)
    with torch.no_grad():
        base.weight.normal_(0, 0.2)
        if bias:
            base.bias.normal_(0, 0.5)
    base.requires_grad_(False).to(device)
    storage = storage or compute
    base = quant.quantize_nf4(base, compute, storage) if nf4 else base.to(storage)
    layer = LoraLinear(base, r=R, alpha=2 * R, dropout=dropout, dora=method == "dora", precision=policy(compute))
    with torch.no_grad():
        layer.lora_B.weight.normal_(0, 0.3)  # B = 0 at init would hide every term of the adapter path
        if layer.dora:
            layer.lora_magnitude_vector.mul_(1 + 0.2 * torch.rand(OUT).to(device))
    return layer


@contextlib.contextmanager
def on_path(layer, fused: bool):
    """The layer on the fast path (as built) or, fused=False, on the plain one."""
    fast = layer.fast
    layer.fast = fast if fused else None
    try:
        yield
    finally:
        layer.fast = fast


def run(layer, x, fused: bool, seed=3):
    """Output and gradients (x, A, B, m) of one forward/backward with a fixed upstream gradient."""
    with on_path(layer, fused):
        x = x.detach().requires_grad_(True)
        for p in layer.parameters():
            p.grad = None
        torch.manual_seed(seed)  # same dropout mask on both paths
        y = layer(x)
        gy = torch.randn(y.shape, generator=torch.Generator().manual_seed(7)).to(y.device, y.dtype)
        y.backward(gy)
    grads = {"x": x.grad, "A": layer.lora_A.weight.grad, "B": layer.lora_B.weight.grad}
    if layer.dora:
        grads["m"] = layer.lora_magnitude_vector.grad
    return y, grads


def fp64_reference(layer, x, gy_dtype):
    """The same layer computed densely in fp64 on the CPU from the weights it holds (NF4 dequantized)."""
    w = quant.dense_weight(layer.base_layer).double().cpu()
    bias = layer.base_layer.bias
    bias = None if bias is None else bias.cpu()
    x = x.detach().double().cpu().requires_grad_(True)
    a = layer.lora_A.weight.detach().double().cpu().requires_grad_(True)
    b = layer.lora_B.weight.detach().double().cpu().requires_grad_(True)
    s = layer.scaling
    z = x @ w.T + s * (x @ a.T) @ b.T
    grads = {}
    if layer.dora:
        m = layer.lora_magnitude_vector.detach().double().cpu().requires_grad_(True)
        norm = (w + s * b.detach() @ a.detach()).norm(dim=1).clamp_min(layers.DORA_EPS)
        z = (m / norm) * z
    y = z if bias is None else z + bias.double()
    gy = torch.randn(y.shape, generator=torch.Generator().manual_seed(7)).to(gy_dtype).double()
    y.backward(gy)
    grads = {"x": x.grad, "A": a.grad, "B": b.grad}
    if layer.dora:
        grads["m"] = m.grad
    return y, grads


# ---- fp64 gradient checks of the Function itself ---------------------------------------------------------
# DoRA with dropout keeps the autograd path (node.supported), so it is not a case of the node
@pytest.mark.parametrize("dora,bias,dropout", [c for c in itertools.product([False, True], repeat=3)
                                               if not (c[0] and c[2])])
def test_gradcheck_fp64(dora, bias, dropout):
    torch.manual_seed(0)
    base = nn.Linear(6, 5, bias=bias).double().requires_grad_(False).to(DEVICE)
    x = torch.randn(2, 3, 6, dtype=F64, device=DEVICE, requires_grad=True)
    xd = torch.randn(2, 3, 6, dtype=F64, device=DEVICE, requires_grad=True) if dropout else None
    a = torch.randn(4, 6, dtype=F64, device=DEVICE, requires_grad=True)
    b = torch.randn(5, 4, dtype=F64, device=DEVICE, requires_grad=True)
    m = (torch.rand(5, dtype=F64, device=DEVICE) + 0.5).requires_grad_(True) if dora else None
    norm = torch.rand(5, dtype=F64, device=DEVICE) + 1.0 if dora else None

    def f(x, xd, a, b, m):
        return node.adapter_linear(x, xd, a, b, m, norm, base, 1.5)

    assert torch.autograd.gradcheck(f, (x, xd, a, b, m))


def test_gradcheck_dora_with_a_zero_scale():
    """g = 0 in some row: the output cannot give z back (y = 0·z), so z is saved instead; gradients stay exact."""
    torch.manual_seed(0)
    base = nn.Linear(6, 5, bias=False).double().requires_grad_(False).to(DEVICE)
    x = torch.randn(7, 6, dtype=F64, device=DEVICE, requires_grad=True)
    a = torch.randn(4, 6, dtype=F64, device=DEVICE, requires_grad=True)
    b = torch.randn(5, 4, dtype=F64, device=DEVICE, requires_grad=True)
    m = torch.tensor([0.0, 1.0, 0.7, 0.0, 2.0], dtype=F64, device=DEVICE, requires_grad=True)
    norm = torch.rand(5, dtype=F64, device=DEVICE) + 1.0
    assert torch.autograd.gradcheck(lambda x, a, b, m: node.adapter_linear(x, None, a, b, m, norm, base, 2.0),
                                    (x, a, b, m))


# ---- the dtype matrix: fused vs plain autograd vs fp64 ---------------------------------------------------
MATRIX = [(method, compute, storage, nf4, bias)
          for method in ("lora", "dora")
          for compute, storage in ((F32, F32), (BF16, BF16), (BF16, F32), (F16, F16), (F16, F32))
          for nf4 in (False, True)
          for bias in (False, True)
          if not (nf4 and compute == F16 and storage == F16)]  # an fp16-stored NF4 base is no different


@pytest.mark.parametrize("method,compute,storage,nf4,bias", MATRIX,
                         ids=[f"{m}-{str(c)[6:]}-store{str(s)[6:]}{'-nf4' if q else ''}{'-bias' if b else ''}"
                              for m, c, s, q, b in MATRIX])
def test_fused_matches_autograd_and_fp64(method, compute, storage, nf4, bias):
    layer = make_layer(method, compute, storage, bias=bias, nf4=nf4, device=DEVICE)
    x = torch.randn(*SHAPE, IN, generator=torch.Generator().manual_seed(5)).to(DEVICE, compute)
    y_f, g_f = run(layer, x, fused=True)
    y_p, g_p = run(layer, x, fused=False)
    y_r, g_r = fp64_reference(layer, x, compute)
    # the contract: output and input gradient in the compute dtype, adapter gradients in fp32
    assert y_f.dtype == compute and g_f["x"].dtype == compute
    assert all(g_f[k].dtype == F32 for k in g_f if k != "x")
    tol = TOL[compute]
    for name, fused, plain, ref in [("y", y_f, y_p, y_r)] + [(k, g_f[k], g_p[k], g_r[k]) for k in g_r]:
        err, plain_err = rel_err(fused, ref), rel_err(plain, ref)
        assert err <= tol, f"{name}: fused {err:.2e} > {tol:.0e} vs fp64"
        # and no less accurate than the autograd path it replaces (up to one more rounding)
        assert err <= 2 * plain_err + tol / 10, f"{name}: fused {err:.2e} vs autograd {plain_err:.2e}"


def test_both_layouts_of_the_b_gradient_match(monkeypatch):
    """∂B is computed in either GEMM layout (node.wide_grad_b: wide on CPU, B's own elsewhere); both give the
    same gradients within the dtype's tolerance and the fp64 gradcheck, on whatever device runs the tests."""
    for method, compute in itertools.product(("lora", "dora"), (F32, BF16, F16)):
        layer = make_layer(method, compute, device=DEVICE)
        x = torch.randn(*SHAPE, IN, generator=torch.Generator().manual_seed(5)).to(DEVICE, compute)
        grads = {}
        for wide in (True, False):
            monkeypatch.setattr(node, "wide_grad_b", lambda t, wide=wide: wide)
            grads[wide] = run(layer, x, fused=True)[1]["B"]
            # in B's layout when it reaches the optimizer, whichever way it was computed
            assert grads[wide].is_contiguous() and grads[wide].dtype == F32
        assert rel_err(grads[False], grads[True]) <= TOL[compute], (method, compute)
    # the point of B's own layout: AccumulateGrad takes the gradient as it is, with no copy
    layer = make_layer("lora", F32, device=DEVICE)
    x = torch.randn(*SHAPE, IN, device=DEVICE)
    copies = {}
    for wide in (True, False):
        monkeypatch.setattr(node, "wide_grad_b", lambda t, wide=wide: wide)
        layer.zero_grad(set_to_none=True)
        y = layer(x.requires_grad_(False))
        with OpLog() as log:
            y.sum().backward()
        copies[wide] = log.ops.count("aten.copy_")
    assert copies == {True: 1, False: 0}
    base = nn.Linear(6, 5).double().requires_grad_(False).to(DEVICE)
    x, a = (torch.randn(n, 6, dtype=F64, device=DEVICE, requires_grad=True) for n in (7, 4))
    b = torch.randn(5, 4, dtype=F64, device=DEVICE, requires_grad=True)
    assert torch.autograd.gradcheck(lambda x, a, b: node.adapter_linear(x, None, a, b, None, None, base, 1.5),
                                    (x, a, b))


@pytest.mark.parametrize("compute", [F32, BF16])
def test_lora_dropout_matches_autograd(compute):
    layer = make_layer("lora", compute, dropout=0.3).train()
    x = torch.randn(*SHAPE, IN, generator=torch.Generator().manual_seed(5)).to(compute)
    y_f, g_f = run(layer, x, fused=True)
    y_p, g_p = run(layer, x, fused=False)
    tol = TOL[compute]
    assert rel_err(y_f, y_p) <= tol
    for k in g_f:
        assert rel_err(g_f[k], g_p[k]) <= tol, k


# ---- what the node saves and does ---------------------------------------------------------------------
def saved_activation_bytes(layer, x, fused: bool) -> tuple[int, set]:
    params = {p.untyped_storage().data_ptr() for p in layer.parameters()}
    params |= {b.untyped_storage().data_ptr() for b in layer.buffers()}
    seen: dict[int, int] = {}

    def pack(t):
        ptr = t.untyped_storage().data_ptr()
        if ptr not in params:
            seen[ptr] = t.untyped_storage().nbytes()
        return t

    with on_path(layer, fused), torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        y = layer(x)
    return sum(seen.values()), set(seen), y


@pytest.mark.parametrize("compute,storage", [(F32, F32), (BF16, BF16), (BF16, F32)])
def test_lora_saves_only_x_and_h(compute, storage):
    layer = make_layer("lora", compute, storage)
    x = torch.randn(64, IN, dtype=compute, requires_grad=True)
    nbytes, ptrs, _ = saved_activation_bytes(layer, x, fused=True)
    assert x.untyped_storage().data_ptr() in ptrs
    assert nbytes == x.numel() * x.element_size() + 64 * R * x.element_size()  # x and h = x·Aᵀ, nothing else
    plain_bytes, _, _ = saved_activation_bytes(layer, x, fused=False)
    assert nbytes <= plain_bytes  # autograd also keeps a compute-dtype copy of W when storage != compute


def test_dora_saves_its_output_not_a_second_activation():
    """On the CPU (a GPU keeps z: the zero check that allows this would synchronize it)."""
    layer = make_layer("dora", F32)
    x = torch.randn(64, IN, requires_grad=True)
    nbytes, ptrs, y = saved_activation_bytes(layer, x, fused=True)
    assert {x.untyped_storage().data_ptr(), y.untyped_storage().data_ptr()} <= ptrs
    assert nbytes == (64 * IN + 64 * R + 64 * OUT) * 4  # x, h and y
    plain_bytes, _, _ = saved_activation_bytes(layer, x, fused=False)
    assert nbytes < plain_bytes


def saved_of(y: torch.Tensor) -> list[torch.Tensor]:
    """The tensors the adapter node saved for backward. torch < 2.12 refuses to hand them out when the node's input
    is an intermediate ("backward through the graph a second time"); training through it is unaffected."""
    try:
        return [t for t in y.grad_fn.saved_tensors if t is not None]
    except RuntimeError as e:
        if "second time" in str(e) and torch.__version__ < (2, 12):
            pytest.skip(f"torch {torch.__version__} cannot read a custom node's saved tensors of an intermediate")
        raise


def swiglu_input(dtype):
    gate, up = (torch.randn(64, IN, generator=torch.Generator().manual_seed(s)).to(dtype).requires_grad_(True)
                for s in (1, 2))
    return torch.nn.functional.silu(gate) * up


def rmsnorm_input(dtype):
    from transformers.models.llama.modeling_llama import LlamaRMSNorm

    norm = LlamaRMSNorm(IN).to(dtype).requires_grad_(False)
    with torch.no_grad():
        norm.weight.uniform_(0.5, 1.5)
    return norm(torch.randn(64, IN, generator=torch.Generator().manual_seed(1)).to(dtype).requires_grad_(True))


@pytest.mark.parametrize("method,make_input,dtype", [("lora", swiglu_input, F32), ("dora", swiglu_input, F32),
                                                     ("lora", swiglu_input, BF16), ("lora", rmsnorm_input, F32),
                                                     ("dora", rmsnorm_input, F32)])
def test_product_input_is_recomputed_not_saved(method, make_input, dtype):
    """x = act(gate) * up (SwiGLU's down_proj input) or weight * (h * rsqrt(var)) (RMSNorm, fp32): the product
    nodes keep the operands anyway, so the adapter recomputes x in backward instead of keeping a copy — with
    bit-identical gradients."""
    layer = make_layer(method, dtype)
    x = make_input(dtype)
    leaf = x.detach().requires_grad_(True)  # the same values, saved the ordinary way
    # (inspected on the node itself: a saved-tensor hook would switch the recompute off, by design)
    saved = saved_of(layer(x))
    saved_leaf = saved_of(layer(leaf))
    assert not any(t.untyped_storage().data_ptr() == x.untyped_storage().data_ptr() for t in saved)
    assert any(t.untyped_storage().data_ptr() == leaf.untyped_storage().data_ptr() for t in saved_leaf)
    assert len(saved) == len(saved_leaf) - 1
    grads = []
    for inp in (x, leaf):
        for p in layer.parameters():
            p.grad = None
        y = layer(inp)
        y.backward(torch.randn(y.shape, generator=torch.Generator().manual_seed(7)).to(y.dtype))
        grads.append([p.grad for p in layer.parameters() if p.requires_grad])
    assert len(grads[0]) == (3 if method == "dora" else 2)
    for g_product, g_leaf in zip(*grads):
        assert torch.equal(g_product, g_leaf)


def test_bf16_rmsnorm_output_is_saved_as_usual():
    """transformers' own RMSNorm (amplora.apply(lean_modules=False)) casts between its products in half precision:
    no replay through casts, x is saved. (The lean RMSNorm that apply installs is replayed: test_lean.py.)"""
    layer = make_layer("lora", BF16)
    x = rmsnorm_input(BF16)
    saved = saved_of(layer(x))
    assert any(t.untyped_storage().data_ptr() == x.untyped_storage().data_ptr() for t in saved)


def test_product_under_saved_tensor_hooks_is_saved_as_usual():
    layer = make_layer("lora", F32)
    gate, up = torch.randn(8, IN, requires_grad=True), torch.randn(8, IN, requires_grad=True)
    x = gate * up
    packed = []
    with torch.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
        y = layer(x)
    assert any(t.untyped_storage().data_ptr() == x.untyped_storage().data_ptr() for t in packed)
    y.sum().backward()
    assert layer.lora_A.weight.grad is not None


class OpLog(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.ops = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.append(str(func.overloadpacket))
        return func(*args, **(kwargs or {}))


def test_create_graph_gives_the_same_gradients_and_refuses_a_second_backward():
    """The node's backward skips torch's no_grad region when grad is off already (our once_differentiable); with
    create_graph=True grad is on, and it still behaves as once_differentiable: same first-order gradients, an
    error if they are differentiated again."""
    for method in ("lora", "dora"):
        layer = make_layer(method, F32)
        x = torch.randn(5, IN, requires_grad=True)
        (plain,) = torch.autograd.grad(layer(x).square().sum(), x)
        (graphed,) = torch.autograd.grad(layer(x).square().sum(), x, create_graph=True)
        assert torch.equal(graphed, plain) and graphed.requires_grad
        with pytest.raises(RuntimeError, match="differentiate twice"):
            graphed.sum().backward()


def test_no_dropout_work_when_p_is_zero():
    layer = make_layer("lora", F32).train()
    x = torch.randn(8, IN, requires_grad=True)
    with OpLog() as log:
        layer(x).sum().backward()
    assert not [op for op in log.ops if "dropout" in op or "bernoulli" in op], log.ops


def test_fp16_adapter_gradients_survive_a_token_long_sum_past_fp16_range():
    """Loss-scaled fp16 gradients summed over many tokens can pass 65504; the adapter-gradient GEMMs run in fp32
    for fp16 (amplora.precision.grad_gemm_dtype), so ∂A and ∂B stay finite and match fp64 where an fp16 GEMM
    gives inf."""
    layer = make_layer("lora", compute=F16)
    x = torch.rand(1, 4096, IN).to(F16)  # positive inputs, a constant upstream gradient: the sums grow linearly
    x.requires_grad_(True)
    y = layer(x)
    gy = torch.full(y.shape, 32.0, dtype=F16)  # what a 2^16 loss scale makes of small gradients
    y.backward(gy)
    x64 = x.detach().double().reshape(-1, IN)
    a, b, s = layer.lora_A.weight.detach().double(), layer.lora_B.weight.detach().double(), layer.scaling
    gy64 = gy.double().reshape(-1, OUT)
    ref_a = s * (gy64 @ b).T @ x64
    ref_b = s * gy64.T @ (x64 @ a.T)
    assert ref_a.abs().max() > 65504 and ref_b.abs().max() > 65504  # the case is real: fp16 could not hold it
    assert torch.isfinite(layer.lora_A.weight.grad).all() and torch.isfinite(layer.lora_B.weight.grad).all()
    assert rel_err(layer.lora_A.weight.grad, ref_a) <= TOL[F16]
    assert rel_err(layer.lora_B.weight.grad, ref_b) <= TOL[F16]
    assert grad_gemm_dtype(F16) == F32 and grad_gemm_dtype(BF16) == BF16


def test_caller_autocast_in_backward_changes_nothing():
    """A caller running backward inside an autocast of another dtype: the node's dtypes are its own (S002)."""
    layer = make_layer("dora", F32)
    x = torch.randn(*SHAPE, IN)
    _, ref = run(layer, x, fused=True)
    xx = x.clone().requires_grad_(True)
    y = layer(xx)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        y.backward(torch.randn(y.shape, generator=torch.Generator().manual_seed(7)))
    assert xx.grad.dtype == F32 and layer.lora_A.weight.grad.dtype == F32
    torch.testing.assert_close(xx.grad, ref["x"], rtol=1e-6, atol=1e-7)
    torch.testing.assert_close(layer.lora_magnitude_vector.grad, ref["m"], rtol=1e-6, atol=1e-7)


def test_fallbacks_keep_the_autograd_path():
    assert not node.supported(make_layer("dora", F32).base_layer, dora=True, dropout=True)
    base = make_layer("lora", F32).base_layer
    base.weight.requires_grad_(True)  # someone unfroze the base: its weight needs a gradient the node never makes
    assert not node.supported(base, dora=False, dropout=False)
    layer = make_layer("dora", F32, dropout=0.1).train()
    x = torch.randn(*SHAPE, IN)
    y_f, g_f = run(layer, x, fused=True)
    y_p, g_p = run(layer, x, fused=False)
    torch.testing.assert_close(y_f, y_p)


# ---- a whole model: the fused node against the autograd path ----------------------------------------------
@pytest.mark.parametrize("method,preset", [("lora", "fp32"), ("dora", "fp32"), ("lora", "bf16-true"),
                                           ("dora", "bf16-mixed"), ("dora", "fp16-mixed")])
def test_model_loss_and_grads_match_autograd(base_fp32, ids, method, preset):
    results = []
    for fused in (True, False):
        torch.manual_seed(0)  # the same adapter init for both models
        model = amplora.apply(copy.deepcopy(base_fp32).to(DEVICE), method=method, r=4, alpha=8, precision=preset,
                              path="fused" if fused else "plain")
        perturb_adapters(model)
        loss = model(ids, labels=ids).loss
        loss.backward()
        results.append((loss.detach(), {n: p.grad for n, p in amplora.trainable_parameters(model)}))
    (loss_f, g_f), (loss_p, g_p) = results
    tol = {"fp32": 1e-5, "bf16-true": 3e-2, "bf16-mixed": 3e-2, "fp16-mixed": 5e-3}[preset]
    assert abs(loss_f - loss_p) <= tol * abs(loss_p)
    worst = max(rel_err(g_f[n], g_p[n]) for n in g_p)
    assert worst <= 10 * tol, f"worst adapter-gradient difference {worst:.2e}"



# ---- A, Bᵀ in the compute dtype and DoRA's norm kept per version of the weights --------------------------
@pytest.mark.parametrize("method", ["lora", "dora"])
@pytest.mark.parametrize("compute", [F32, BF16])
def test_casts_follow_every_change_of_the_weights(method, compute):
    layer = make_layer(method, compute)
    x = torch.randn(*SHAPE, IN).to(compute)

    def fresh():  # the layer as it is now, computed by a copy that starts with nothing kept, bit for bit
        with torch.enable_grad():
            return copy.deepcopy(layer)(x).detach()

    def step(p):  # an optimizer step: in place
        p.add_(0.1)

    def load(p):  # load_state_dict: a copy in place
        p.copy_(torch.randn_like(p))

    def swap(p):  # a new tensor behind the parameter
        p.data = p.data.clone().mul_(2)

    with torch.no_grad():
        y = layer(x)
        cached = layer.fast.kept
        assert cached is not None and torch.equal(y, fresh())
        assert torch.equal(layer(x), y) and layer.fast.kept is cached  # reused while nothing changed
        for change, p in ((step, layer.lora_A.weight), (load, layer.lora_B.weight), (swap, layer.lora_B.weight),
                          (swap, layer.lora_A.weight)):
            change(p)
            y_new = layer(x)
            assert layer.fast.kept is not cached and not torch.equal(y_new, y), change.__name__
            assert torch.equal(y_new, fresh()), change.__name__
            y, cached = y_new, layer.fast.kept
    assert torch.equal(layer(x).detach(), y) and layer.fast.kept is cached  # with grad: the same copies


def test_dora_terms_are_dropped_when_the_base_weight_changes():
    layer = make_layer("dora", F32)
    x = torch.randn(*SHAPE, IN)
    with torch.no_grad():
        y0 = layer(x)
        layer.base_layer.weight.mul_(1.5)
        layer.refresh_weight_norm()  # what PiSSA, merge and load do after changing W
        y1 = layer(x)
    with torch.enable_grad():
        assert torch.equal(y1, layer(x).detach()) and not torch.equal(y0, y1)


@pytest.mark.parametrize("storage", [F32, BF16])
def test_weight_norm_in_row_blocks_is_the_norm_over_the_whole_weight(storage, monkeypatch):
    """‖W_i‖² is computed a block of rows at a time (no W-sized fp32 temporary): the same bits as over all of W,
    here in four blocks, the last one partial."""
    monkeypatch.setattr(layers, "_NORM_BLOCK", 11 * IN)
    layer = make_layer("dora", storage)
    w = layer.base_layer.weight
    assert OUT > 3 * 11 and torch.equal(layer.weight_sq_norm, w.float().pow(2).sum(dim=1))
    with torch.no_grad():
        w.mul_(1.5)
    layer.refresh_weight_norm()
    assert torch.equal(layer.weight_sq_norm, w.float().pow(2).sum(dim=1))


@pytest.mark.parametrize("method", ["lora", "dora"])
def test_casts_see_a_fused_optimizer_step(method):
    """AdamW(fused=True) updates parameters in place without bumping their version counters: a generate()
    between backward and the optimizer step, then another after it, must not reuse the first one's A and B."""
    layer = make_layer(method, BF16)
    x = torch.randn(*SHAPE, IN).to(BF16)
    opt = torch.optim.AdamW([p for p in layer.parameters() if p.requires_grad], lr=0.1, fused=True)
    layer(x).float().pow(2).sum().backward()
    with torch.no_grad():
        y0 = layer(x)  # builds the cache
    versions = [p._version for p in layer.parameters()]
    opt.step()
    assert [p._version for p in layer.parameters()] == versions  # why versions alone are not enough
    with torch.no_grad():
        y1 = layer(x)
    with torch.enable_grad():
        assert torch.equal(y1, layer(x).detach()) and not torch.equal(y0, y1)


def test_dora_magnitude_zeroed_by_a_fused_step_makes_the_node_keep_z():
    """m driven to exactly 0 by a fused optimizer (which bumps no version counter): g has zeros, so y / g cannot
    give z back. The node must notice and keep z: the magnitude gradient stays finite and equals autograd's."""
    layer = make_layer("dora", F32, device=DEVICE)
    x = torch.randn(*SHAPE, IN, device=DEVICE)
    run(layer, x, fused=True)  # the zero check is made and kept for these weights
    m = layer.lora_magnitude_vector
    opt = torch.optim.SGD([m], lr=1.0, fused=True)
    m.grad = torch.zeros_like(m)
    m.grad[:3] = m.detach()[:3]  # m - 1.0 * m: exactly zero
    opt.step()
    assert (m[:3] == 0).all()
    _, g_f = run(layer, x, fused=True)
    _, g_p = run(layer, x, fused=False)
    assert torch.isfinite(g_f["m"]).all()
    # fp32 sums in another order (CUDA's reductions differ from the plain path's by up to ~3e-5 relative); y / g
    # with g = 0 would give inf or NaN, not a rounding difference
    torch.testing.assert_close(g_f["m"], g_p["m"], rtol=1e-4, atol=1e-5)
