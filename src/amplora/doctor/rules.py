"""Culprit, cause (one sentence) and fix (code-level) for each kind of fault, using live names."""
from __future__ import annotations

import re

from collections import Counter

import torch

from amplora.doctor import offload
from amplora.doctor.paste import extract_dtypes
from amplora.doctor.scene import Scene
from amplora.doctor.naming import (adapted_layer, dominant_dtype, float_params, leaf_params, owner_path,
                                   param_dtypes)
from amplora.precision import HALF_DTYPES, dtype_name


def _short_op(op: str | None) -> str:
    if not op:
        return "the op"
    parts = op.split(".")
    return parts[1] if parts[0] == "aten" and len(parts) > 1 else op


def _names(items, n=4) -> str:
    items = list(items)
    more = f", … ({len(items) - n} more)" if len(items) > n else ""
    return ", ".join(items[:n]) + more


def _torch_dtype(dtype: torch.dtype) -> str:
    return str(dtype)  # 'torch.bfloat16'


def _device_type(s: Scene) -> str:
    for _, t in s.tensors:
        if t.device.type in ("cuda", "cpu"):
            return t.device.type
    return "cuda" if torch.cuda.is_available() else "cpu"


def _floats(s: Scene):
    return [(i, role, t) for i, (role, t) in enumerate(s.tensors) if t.is_floating_point()]


def _where(s: Scene) -> str:
    return s.module_path or "the failing code"


def _reference_dtype(s: Scene, floats) -> torch.dtype:
    """The dtype the failing op 'should' run in: what the module's (frozen) weights are stored in."""
    present = Counter(t.dtype for _, _, t in floats)
    if s.module is not None:
        ref = dominant_dtype(s.module)
        if ref in present:
            return ref
    for i, _, t in floats:
        if i in s.params and s.tensors[i][1].requires_grad is False:
            return t.dtype
    root = s.namer.root_of(s.module) if s.module is not None else None
    ref = dominant_dtype(root) if root is not None else None
    if ref in present:
        return ref
    return present.most_common(1)[0][0]


def _generic(s: Scene):
    floats = _floats(s)
    if floats:
        culprit = "operands " + "; ".join(o.describe() for o in s.operands[:4])
    else:
        at = f", at {s.facts.where}" if s.facts.where else ""
        culprit = f"not visible to the doctor (the error was raised outside any torch op{at})"
    return culprit, s.entry.cause, s.entry.fix


# ---- dtype mismatches ------------------------------------------------------------------------------------------
def _mismatch(s: Scene):
    culprit, cause, fix = _mismatch_story(s)
    ints = [(role, t) for role, t in s.tensors if not (t.is_floating_point() or t.is_complex())]
    if s.entry.key == "int-input" and ints:  # the integer operand is the one to name, whatever else the op got
        role, t = ints[0]
        op = f"{_short_op(s.op)} in {_where(s)}" if s.op else _where(s)
        culprit = f"`{role}` is {dtype_name(t.dtype)}, not a floating-point tensor, where {op} needs floating point"
    if s.entry.key == "fp8-no-promotion":  # autocast never upcasts float8 storage: it must be upcast by hand
        cause, fix = s.entry.cause, s.entry.fix
    if torch.get_default_dtype() == torch.float64 and any(t.dtype == torch.float64 for _, _, t in _floats(s)):
        # the fault runs in the script's process: a default dtype left at float64 explains float64 modules
        cause = (f"{cause} torch's default dtype is float64 right now (`torch.set_default_dtype(torch.float64)` "
                 f"was called and not reset), so modules and tensors created since then (`nn.Linear`, `torch.zeros`, "
                 f"`torch.tensor` of floats) are float64.")
        fix = (f"Reset the default after the step that needed it (`torch.set_default_dtype(torch.float32)`), or give "
               f"that step `dtype=torch.float64` explicitly instead of changing the default. {fix}")
    return culprit, cause, fix


def _two_weight_lists(s: Scene, floats):
    """A foreach update across two copies of the weights (an EMA or shadow model, an optimizer's state) whose
    lists hold two dtypes: one copy was cast and the other not."""
    op = _short_op(s.op)
    if not op.startswith("_foreach_"):
        return None
    by_arg: dict = {}  # argument -> the dtypes of its tensors
    for _, role, t in floats:
        by_arg.setdefault(role.split("[")[0], set()).add(t.dtype)
    single = [(a, next(iter(d))) for a, d in by_arg.items() if len(d) == 1]
    other = next((x for x in single[1:] if x[1] != single[0][1]), None) if single else None
    if other is None:
        return None
    (a, da), (b, db) = single[0], other
    named = next((s.params[i] for i, _, _ in floats if i in s.params), "")
    culprit = (f"{op} got `{a}` in {dtype_name(da)} and `{b}` in {dtype_name(db)}: two lists of weights"
               + (f" (such as {named})" if named else "") + " kept in two dtypes")
    cause = (f"{op} updates one copy of the weights from another (an EMA or shadow model, a hand-written optimizer's "
             f"state) and takes one dtype per position: one copy was cast to {dtype_name(da)} (an EMA kept in bf16 to "
             f"save memory, a model cast after its copy was made) while the other stayed {dtype_name(db)}.")
    fix = (f"Keep both copies in one dtype, the live weights' (fp32 for trained parameters), or cast inside the "
           f"update: `torch.{op}(ema, [p.to(e.dtype) for p, e in zip(params, ema)], w)`.")
    return culprit, cause, fix


def _mismatch_story(s: Scene):
    floats = _floats(s)
    if len({t.dtype for _, _, t in floats}) < 2:
        return _generic(s)
    if s.phase == "backward":
        return _backward_mix(s, floats)
    if s.phase == "optimizer step" and s.facts.optimizer is not None:
        found = _optimizer_mix(s, floats)
        if found is not None:
            return found
    found = _two_weight_lists(s, floats)
    if found is not None:
        return found
    ref = _reference_dtype(s, floats)
    off = [f for f in floats if f[2].dtype != ref]
    i, role, t = off[0]
    odt, rdt, op, mod = dtype_name(t.dtype), dtype_name(ref), _short_op(s.op), _where(s)
    dev = _device_type(s)
    low = ref if ref in HALF_DTYPES else t.dtype if t.dtype in HALF_DTYPES else ref  # autocast runs in the half dtype
    autocast_hint = (f'`with torch.autocast("{dev}", dtype={_torch_dtype(low)}): ...`' if low in HALF_DTYPES
                     else "autocast only if the model is meant to run in half precision")
    if i in s.params:
        name = s.params[i]
        culprit = f"parameter {name} is {odt} while {mod} computes in {rdt}"
        cause = (f"{mod} uses its {odt} parameter {name.rsplit('.', 1)[-1]} directly in {op} with {rdt} tensors, "
                 f"and no autocast region casts them.")
        fix = (f"Cast the parameter where it is used (`F.linear(x, w.to(x.dtype))`) or the module once "
               f"(`{owner_path(name) or 'module'}.to({_torch_dtype(ref)})`); keep fp32 copies only for trainable "
               f"params and cast them inside forward.")
        return culprit, cause, fix
    if i in s.buffers:
        name = s.buffers[i]
        culprit = f"buffer {name} is {odt} while {mod} computes in {rdt}"
        cause = (f"{name} is a buffer kept in {odt}: made in `__init__` or a setup method with the default dtype "
                 f"(`torch.zeros(...)` is fp32) after the model was cast, or of a dtype `model.to()` does not touch, "
                 f"and {op} meets it with {rdt} tensors; autocast never casts buffers.")
        fix = (f"Create it in the model's dtype (`torch.zeros(..., dtype={_torch_dtype(ref)})`, a dtype argument "
               f"to the setup method), or cast the model after the buffer exists (`model.to({_torch_dtype(ref)})`).")
        return culprit, cause, fix
    if i in s.producers:
        prod = s.producers[i]
        ppath = s.namer.module_path(prod)
        pdt = param_dtypes(prod, recurse=False)
        pdt = "no float params of its own" if pdt == "no float params" else f"params {pdt}"
        culprit = (f"{ppath} ({type(prod).__name__}, {pdt}) returned the {odt} activation that {mod} "
                   f"({rdt} weights) received")
        inner = s.recorder.promoter_within(prod, ref, t.dtype) if s.recorder is not None else None
        if inner is not None and inner is not prod:  # say which part of a container changed the dtype
            ipath = s.namer.module_path(inner)
            culprit = (f"{ipath} ({type(inner).__name__}) inside {ppath} turned {rdt} activations into {odt}, "
                       f"and {ppath} returned the {odt} activation that {mod} ({rdt} weights) received")
            cause = (f"{ipath} returns {odt} from {rdt} input (a tensor it makes with the default dtype, such as "
                     f"`torch.rand(...)` or `torch.ones(...)`, promotes what it touches), and with no autocast region "
                     f"active that meets {rdt} weights in {mod}.")
            fix = (f"In {type(inner).__name__}, make new tensors in the input's dtype (`dtype=x.dtype, "
                   f"device=x.device`) or return `out.to(x.dtype)`; or run the forward under {autocast_hint}.")
            return culprit, cause, fix
        if s.phase in ("generate", "eval") and not s.autocast:
            cause = (f"{s.phase} runs outside the autocast region training ran in, so the {odt} output of {ppath} "
                     f"meets {rdt} weights in {mod}.")
            fix = (f"Run generation under the training precision: "
                   f"`with torch.autocast(\"{dev}\", dtype={_torch_dtype(ref)}): model.generate(...)` (or "
                   f"`amplora.apply`, which enforces the policy at the model boundary); or make "
                   f"{type(prod).__name__} compute in fp32 and return `.to(input_dtype)`.")
        else:
            cause = (f"{ppath} returns {odt} activations ({pdt}) and, with no autocast region active, "
                     f"they meet {rdt} weights in {mod}.")
            fix = (f"In {type(prod).__name__}, compute in fp32 if you like but return `out.to(x.dtype)` "
                   f"(or cast {ppath} to {rdt}); or run the forward under {autocast_hint}.")
        return culprit, cause, fix
    if _is_module_input(s, t):
        params = param_dtypes(s.module) if s.module is not None else rdt
        culprit = f"the {odt} input passed into {mod} (params {params}) by its caller"
        cause = f"{mod} received {odt} activations while its parameters are {rdt}, and no autocast region casts them."
        fix = (f"Cast at the boundary (`x.to({_torch_dtype(ref)})` before calling {mod}, or `{mod}.to(x.dtype)`), "
               f"or run under {autocast_hint}.")
        if ref == torch.float32 and t.dtype in HALF_DTYPES:  # a full-precision module among half-precision ones
            cause = (f"{mod} kept fp32 parameters while the model around it is {odt}: it was created after the model "
                     f"was cast, or left out when the rest was loaded from a {odt} checkpoint with "
                     f"`load_state_dict(..., assign=True)`, which keeps the checkpoint's dtype.")
            fix = (f"Give {mod} the model's dtype (`{mod}.to({_torch_dtype(t.dtype)})`, or cast the whole model once "
                   f"after adding it), or keep it fp32 and run the forward under {autocast_hint}.")
        elif (t.dtype != torch.float64 and s.module is not None and hasattr(s.recorder, "assigned_in")
              and (loaded := s.recorder.assigned_in(s.module)) is not None and loaded[1] == ref):
            old, _, where = loaded
            cause = (f"{mod} received {odt} activations while its parameters are {rdt}: they became {rdt} at "
                     f"`load_state_dict(..., assign=True)` ({where}), which takes the checkpoint's tensors as they "
                     f"are instead of copying them into the model's {dtype_name(old)} parameters.")
            fix = (f"Load without `assign=True` (the copy casts the checkpoint into the model's "
                   f"{dtype_name(old)}), or cast after loading (`model.to({_torch_dtype(old)})`), or cast the "
                   f"inputs to {rdt}.")
        elif t.dtype == torch.float64:
            odd = _odd_buffers(s, t.dtype, None)
            cause = (f"{mod} received float64 activations while its parameters are {rdt}: float64 comes from NumPy "
                     f"(its arrays are float64, and `torch.from_numpy` / `torch.tensor` keep that) or from tensors made "
                     f"with `dtype=torch.double`"
                     + (f"; the model holds float64 buffer(s) ({_names(odd)}), which promote what they touch to "
                        f"float64." if odd else "."))
            fix = (f"Make the data and tables float32 where they are made: `torch.from_numpy(a).float()`, "
                   f"`torch.tensor(a, dtype=torch.float32)`, `np.asarray(a, dtype=np.float32)`"
                   + (f" (register `{odd[0].rsplit('.', 1)[-1]}` as float32)" if odd else "")
                   + f"; or cast at the boundary (`x.to({_torch_dtype(ref)})`).")
        elif t.dtype == torch.float32 and ref in HALF_DTYPES:
            odd = _odd_buffers(s, t.dtype, ref)
            plain = [] if odd else _plain_attributes(s, t.dtype, ref)
            if odd or plain:  # an fp32 buffer or plain tensor attribute mixed into half activations promotes them
                attr = (odd or plain)[0].rsplit(".", 1)[-1]
                held = (f"holds {odt} buffer(s) among {rdt} parameters ({_names(odd)}): a buffer made float32 in "
                        f"`__init__` (a position or sinusoid table, a mask) is not cast by `from_pretrained(dtype=...)`"
                        if odd else
                        f"keeps {odt} tensor(s) as plain attributes ({_names(plain)}): `self.{attr} = torch...` is "
                        f"neither a parameter nor a buffer, so `model.to({_torch_dtype(ref)})` left it {odt} (and on "
                        f"its device)")
                cause = (f"{cause.rstrip('.')}; the model {held}, and adding it to {rdt} activations promotes them to "
                         f"{odt}.")
                fix = (f"Cast the buffer to the activations' dtype where it is used (`self.{attr}.to(x.dtype)`), or "
                       f"register it in the model's dtype. {fix}" if odd else
                       f"Register it as a buffer (`self.register_buffer('{attr}', table, persistent=False)`), which "
                       f"`.to()` casts and moves, or cast it where it is used (`self.{attr}.to(x.dtype)`). {fix}")
        return culprit, cause, fix
    # computed inside this module's own forward: which parameters flowed into it?
    names = []
    for leaf in leaf_params(t):
        name = s.namer.param_name(leaf)
        if name and leaf.dtype == t.dtype and name not in names:
            names.append(f"{name} ({odt})")
    if not names and s.module is not None:
        names = [f"{mod}.{n} ({odt})" for n, p in float_params(s.module) if p.dtype == t.dtype]
    others = _names(f"{r} {dtype_name(x.dtype)}" for _, r, x in floats if x.dtype == ref)
    if names:
        culprit = f"off-policy {odt} parameter(s) of {mod} computed into the {odt} {role}: {_names(names)}"
        cause = (f"{mod} computes its {role} from {odt} parameters and feeds it to {op} together with {others}; "
                 f"outside autocast nothing casts it.")
        fix = ("Keep the fp32 masters but cast at use: compute the norm / scale in fp32, then `.to(x.dtype)` the "
               "result before the matmul (e.g. `F.linear(x, w.to(x.dtype))`).")
    elif s.module is not None:
        culprit = f"the {odt} {role} computed in {mod}'s forward (neither a parameter nor a module output)"
        cause = f"{mod} mixes a {odt} {role} with {others} in {op} outside autocast."
    else:
        culprit = f"the {odt} {role} (neither a parameter nor a module output), outside any module"
        cause = f"{op} got a {odt} {role} together with {others}, outside any module and outside autocast."
    if not names:
        fix = f"Cast at the boundary: `.to(x.dtype)` the {odt} tensor before {op}, or run under {autocast_hint}."
    return culprit, cause, fix


def _models(s: Scene, ref: torch.dtype | None) -> list:
    """The failing module's model, when known (other models may be alive), else every model the doctor saw; only
    those whose parameters are mostly `ref` (any, when `ref` is None)."""
    root = s.namer.root_of(s.module) if s.module is not None else None
    return [r for r in ([root] if root is not None else s.namer.roots()) if ref is None or dominant_dtype(r) == ref]


def _odd_buffers(s: Scene, dtype: torch.dtype, ref: torch.dtype | None) -> list[str]:
    """Floating buffers of `dtype` in models whose parameters are mostly `ref` (any, when `ref` is None)."""
    found = []
    for root in _models(s, ref):
        found += [n for n, b in root.named_buffers() if b.is_floating_point() and b.dtype == dtype]
    return found[:3]


def _plain_attributes(s: Scene, dtype: torch.dtype, ref: torch.dtype) -> list[str]:
    """Floating tensors of `dtype` kept as plain module attributes (`self.pe = torch.zeros(...)`: neither a parameter
    nor a buffer, so `model.to()` neither casts nor moves them) in models whose parameters are mostly `ref`."""
    found = []
    for root in _models(s, ref):
        for path, module in root.named_modules():
            found += [f"{path}.{attr}" if path else attr for attr, v in vars(module).items()
                      if not attr.startswith("_") and type(v) is torch.Tensor and v.is_floating_point()
                      and v.dtype == dtype]
    return found[:3]


def _storage(t: torch.Tensor) -> int:
    try:
        return t.untyped_storage().data_ptr()
    except Exception:
        return -1


def _optimizer_mix(s: Scene, floats):
    """A parameter, its gradient and its optimizer state (exp_avg, momentum...) must share one dtype."""
    owners = {}  # storage -> (what, param)
    for p, state in getattr(s.facts.optimizer, "state", {}).items():
        if not isinstance(p, torch.Tensor):
            continue
        owners[_storage(p)] = ("parameter", p)
        if p.grad is not None:
            owners[_storage(p.grad)] = ("gradient", p)
        for key, value in state.items():
            if isinstance(value, torch.Tensor) and value.numel() > 1:
                owners[_storage(value)] = (f"optimizer state '{key}'", p)
    for i, _, t in floats:  # say what each operand is
        hit = owners.get(_storage(t))
        if hit is not None and not s.operands[i].origin:
            s.operands[i].origin = f"{hit[0]} of {s.namer.param_name(hit[1]) or 'a parameter'}"
    for _, role, t in floats:
        hit = owners.get(_storage(t))
        if hit is None or t.dtype == hit[1].dtype:
            continue
        what, p = hit
        name = s.namer.param_name(p) or f"a {tuple(p.shape)} parameter"
        if s.module_path is None and s.namer.param_name(p):
            s.module_path = owner_path(name) or None
        pdt, odt = dtype_name(p.dtype), dtype_name(t.dtype)
        culprit = f"{what} of {name} is {odt} while the parameter is {pdt}"
        cause = (f"The optimizer step combines the {pdt} parameter {name} with its {odt} {what}, typically state "
                 f"or gradients cast (or loaded from a checkpoint) in another dtype.")
        fix = ("Keep gradients and optimizer state in the parameter's dtype: load state with "
               "`optimizer.load_state_dict(...)` (it casts to each param's dtype) instead of casting the state "
               "dict, and keep trainable params fp32 (`p.data = p.data.float()` before building the optimizer).")
        return culprit, cause, fix
    return None


def _is_module_input(s: Scene, t: torch.Tensor) -> bool:
    try:
        ptr = t.untyped_storage().data_ptr()
        return any(x.untyped_storage().data_ptr() == ptr for x in s.facts.module_inputs)
    except Exception:
        return False


def _backward_mix(s: Scene, floats):
    mod, op = _where(s), _short_op(s.op)
    mix = _names(f"{r} {dtype_name(t.dtype)}" for _, r, t in floats)
    fn = s.facts.backward_function
    if fn:
        culprit = f"custom autograd.Function {fn}.backward (created in {mod}'s forward) mixes {mix} in {op}"
        cause = (f"{fn}.backward computes with tensors of two dtypes ({mix}); autocast does not reach inside "
                 f"custom backward passes.")
        fix = ("In backward, bring operands to one dtype first (`grad.to(saved.dtype)`) and return each gradient "
               "`.to(input.dtype)`; or wrap forward/backward with `torch.amp.custom_fwd(device_type=...)` / "
               "`torch.amp.custom_bwd(device_type=...)`.")
    else:
        culprit = f"{s.cap.node_name if s.cap else 'a backward node'} of {mod}: {mix}"
        cause = (f"In the backward of {mod}, tensors saved inside an autocast region meet tensors from outside it "
                 f"(or from another device).")
        fix = ("Run forward and backward under one autocast region on one pinned device (`model.to(device)`, "
               "`CUDA_DEVICE_ORDER=PCI_BUS_ID`, `CUDA_VISIBLE_DEVICES=N`); don't mix AMP and non-AMP calls of "
               "the same module.")
    return culprit, cause, fix


def _out_buffer(s: Scene):
    if not s.tensors:
        return _generic(s)
    op = _short_op(s.op)
    inplace = not any(role == "out" for role, _ in s.tensors)
    out_idx = next((i for i, (role, _) in enumerate(s.tensors) if role == "out"), 0)
    out_t = s.tensors[out_idx][1]
    res = [t.dtype for i, (_, t) in enumerate(s.tensors) if i != out_idx and t.is_floating_point()]
    res_dtype = res[0] if res else out_t.dtype
    for d in res[1:]:
        res_dtype = torch.promote_types(res_dtype, d)
    res_dt = dtype_name(res_dtype)
    out_dt = dtype_name(out_t.dtype)
    told = re.search(r"result type (\w+) can't be cast to the desired output type (\w+)", s.message)
    if told and not res:  # no floating tensor among the operands: a Python float made the result float
        res_dt = (extract_dtypes(told.group(1)) or ["fp32"])[0]
    fn = s.facts.backward_function
    writer = f"custom autograd.Function {fn}.backward (created in {_where(s)}'s forward)" if fn else _where(s)
    how = "an in-place op" if inplace else "out="
    culprit = f"{writer} writes a {res_dt} result into a {out_dt} buffer via {how} ({op})"
    if told and not res:
        cause = (f"{op} multiplies or adds a Python float (a weight, an average's 1/n) into an {out_dt} tensor in "
                 f"place, so the result is {res_dt} and cannot be stored back; integer entries such as BatchNorm's "
                 f"`num_batches_tracked` sit among a state_dict's float weights.")
        fix = ("Leave integer entries out when averaging or scaling weights (keep one model's value: `if not "
               "v.is_floating_point(): continue`), or compute out of place in float and cast back "
               "(`(v.float() * w).to(v.dtype)`).")
        return culprit, cause, fix
    cause = (f"{op} computes in {res_dt} but its {how} target is {out_dt}, and autocast never casts out= or in-place "
             f"targets.")
    fix = (f"Allocate the buffer in the result's dtype (`torch.empty_like(x, dtype={_torch_dtype(res_dtype)})`) "
           f"and return `grad.to(x.dtype)`, or compute out of place and `buf.copy_(result)`.")
    return culprit, cause, fix


def _cpu_kernel(s: Scene):
    halves = [(i, r, t) for i, r, t in _floats(s) if t.dtype in HALF_DTYPES]
    op = _short_op(s.op)
    if not halves:
        return _generic(s)
    i, role, t = halves[0]
    dt = dtype_name(t.dtype)
    name = s.params.get(i)
    subject = f"parameter {name}" if name else f"the {dt} {role}"
    culprit = f"{subject} ({dt}, {t.device})"
    low = op.lower()
    call = ("torch.linalg.svd(W.float(), full_matrices=False)" if "svd" in low else
            "torch.linalg.qr(W.float())" if "qr" in low or "geqrf" in low else
            "torch.linalg.inv(W.float())" if "inv" in low else f"{op}(x.float(), ...)")
    version = torch.__version__.split("+")[0]
    where = "the CPU" if t.device.type == "cpu" else str(t.device)  # the kernel is missing where the tensor is
    cause = f"{op} has no {dt} kernel on {where} in torch {version}, so it cannot run on {subject}."
    fix = (f"Compute it in fp32 and cast back: `{call}`, then `.to({_torch_dtype(t.dtype)})` on the results "
           f"(amplora's PiSSA init does this); or keep the model fp32 on CPU." if t.device.type == "cpu" else
           f"Compute it in fp32 and cast back: `{call}`, then `.to({_torch_dtype(t.dtype)})`; or upgrade torch.")
    return culprit, cause, fix


def _left_on_meta(s: Scene):
    """The autograd engine's "invalid gradient ... expected device meta but got cpu" names no tensor: look for the
    parameters and buffers still on meta in the models the doctor knows."""
    roots = s.namer.roots()
    meta, real = [], []
    for root in roots:
        for name, t in list(root.named_parameters()) + list(root.named_buffers()):
            (meta if t.device.type == "meta" else real).append((name, t))
        if meta:
            break
    if not meta:
        return _generic(s)
    names = [n for n, _ in meta]
    other = str(real[0][1].device) if real else "cpu"
    s.module_path = owner_path(names[0]) or s.module_path
    node = re.search(r"Function (\w+) returned an invalid gradient", s.message)
    met = f" (the autograd engine met it when {node.group(1)} returned a {other} gradient for it)" if node else ""
    culprit = f"{len(names)} tensor(s) still on meta while the rest of the model is on {other}: {_names(names)}"
    cause = (f"{names[0]} was never loaded{met}: the state dict given to `load_state_dict(..., assign=True, "
             f"strict=False)` (or an init_empty_weights / device_map load) lacked it, so it kept its meta placeholder.")
    fix = (f"Load the missing keys (`load_state_dict(sd, strict=True)` names them; with strict=False read "
           f"`.missing_keys`), or materialize them with `model.to_empty(device='{other}')` and initialise them "
           f"(for a tied head: `model.tie_weights()`).")
    return culprit, cause, fix


def _meta_buffers(roots) -> list[tuple[str, bool]]:
    """(name, non-persistent) of the buffers still on meta in the first root that has any."""
    for root in roots:
        found = []
        for path, module in root.named_modules():
            for name, buf in module.named_buffers(recurse=False):
                if buf is not None and buf.device.type == "meta":
                    found.append((f"{path}.{name}" if path else name, name in module._non_persistent_buffers_set))
        if found:
            return found
    return []


def _offloaded(s: Scene):
    """A fault on weights a device_map offloaded (they sit on meta outside their module's forward); None if not."""
    root = s.namer.root_of(s.module) if s.module is not None else None  # the failing model, not another one alive
    keys, names = offload.offloaded([root] if root is not None else s.namer.roots())
    if not names or not (any(t.device.type == "meta" for _, t in s.tensors) or "meta" in s.message):
        return None
    s.module_path = s.module_path or next(iter(keys)) or None  # the offloaded module, not a guess inside it
    return offload.explain(keys, names, _names(names))


def _device(s: Scene):
    found = _offloaded(s)
    if found:
        return found
    devices = Counter(str(t.device) for _, t in s.tensors)
    if len(devices) < 2:
        return _left_on_meta(s) if s.entry.key == "meta-device" else _generic(s)
    odd = "meta" if "meta" in devices else devices.most_common()[-1][0]
    other = next(d for d in devices if d != odd)
    odd_params = [s.params[i] for i, (_, t) in enumerate(s.tensors) if str(t.device) == odd and i in s.params]
    root = s.namer.root_of(s.module) if s.module is not None else None
    if root is not None:
        everywhere = [n for n, p in root.named_parameters() if str(p.device) == odd]
        odd_params = odd_params + [n for n in everywhere if n not in odd_params]
    mod = _where(s)
    buffers = _meta_buffers([root] if root is not None else s.namer.roots()) if odd == "meta" and not odd_params else []
    if buffers:
        names = [n for n, _ in buffers]
        culprit = f"{len(names)} buffer(s) still on meta while the rest is on {other}: {_names(names)}"
        unsaved = [n for n, kept_out in buffers if kept_out]
        if unsaved:
            cause = (f"{unsaved[0]} is a non-persistent buffer (`register_buffer(..., persistent=False)`), so it is not "
                     f"in the state dict: building the model on meta and loading with `load_state_dict(..., "
                     f"assign=True)` replaced every saved tensor but left it a meta placeholder.")
        else:
            cause = (f"{names[0]} was never loaded: the state dict given to a model built on meta lacked it, so it "
                     f"kept its meta placeholder.")
        fix = (f"Recompute such buffers on the real device after loading (call the code that fills "
               f"{names[0].rsplit('.', 1)[-1]} again), or build the model with `to_empty(device='{other}')` and rerun "
               f"its init before loading; a persistent buffer travels in the checkpoint.")
        return culprit, cause, fix
    if odd_params:
        culprit = f"{len(odd_params)} parameter(s) on {odd} while the activations are on {other}: {_names(odd_params)}"
    else:
        culprit = f"the input of {mod} is on {odd} while its weights are on {other}"
    if odd == "meta":
        cause = (f"{mod} got tensors on meta and {other}: those weights were never materialized (an "
                 f"init_empty_weights / device_map load that did not finish, or a `.to('meta')`).")
        fix = (f"Load real weights before use (`model.to_empty(device='{other}')` then `load_state_dict(...)`, or "
               f"`from_pretrained(..., device_map=None)`), and move batches with `{{k: v.to('{other}') ...}}`.")
    else:
        cause = f"{mod} got tensors on {odd} and {other}: part of the model or batch was not moved to one device."
        fix = ("Move the model and every input to one device (`model.to(device)`, "
               "`batch = {k: v.to(device) for k, v in batch.items()}`) and pin GPUs with CUDA_VISIBLE_DEVICES.")
    return culprit, cause, fix


def _scaler(s: Scene):
    opt = s.facts.optimizer
    params = [p for g in getattr(opt, "param_groups", []) for p in g["params"]] if opt is not None else []
    if s.entry.key == "no-inf-checks":
        culprit = f"none of the optimizer's {len(params)} parameters has a gradient"
        return culprit, s.entry.cause, s.entry.fix
    if s.entry.key in ("unscale-twice", "scaler-step-twice"):  # the order of calls, not the parameters' dtype
        call = "unscale_" if s.entry.key == "unscale-twice" else "step"
        at = f", the second time at {s.facts.where}" if s.facts.where else ""
        return f"GradScaler.{call} called twice for one optimizer before scaler.update(){at}", s.entry.cause, \
            s.entry.fix
    if s.entry.key == "amp-unscale-bf16":  # bf16 needs no scaler: the fix is to drop it, not to upcast
        bf16 = [s.namer.param_name(p) or f"<unnamed {tuple(p.shape)}>" for p in params if p.dtype == torch.bfloat16]
        culprit = (f"{len(bf16)} bf16 parameter(s) in a GradScaler-driven optimizer: {_names(bf16)}" if bf16
                   else "bf16 gradients handed to a GradScaler")
        return culprit, s.entry.cause, s.entry.fix
    bad = [p for p in params if p.grad is not None and p.grad.dtype == torch.float16]
    bad = bad or [p for p in params if p.dtype == torch.float16]
    names = [s.namer.param_name(p) or f"<unnamed {tuple(p.shape)}>" for p in bad]
    if names and not names[0].startswith("<"):
        s.module_path = adapted_layer(owner_path(names[0]))
    culprit = (f"{len(bad)} trainable fp16 parameter(s) in the optimizer: {_names(n + ' (fp16)' for n in names)}"
               if bad else "trainable fp16 parameters in the optimizer")
    cause = ("The trainable parameters are fp16 themselves, so their gradients are fp16 and GradScaler.unscale_ "
             "refuses them: loss scaling needs fp32 master weights.")
    fix = ("Keep trainable params fp32 before building the optimizer (`for p in trainable: p.data = p.data.float()`;"
           " PEFT: keep `autocast_adapter_dtype=True`; `amplora.apply` does this) and let autocast run the "
           "matmuls in fp16.")
    return culprit, cause, fix


def _numpy(s: Scene):
    at = f" at {s.facts.where}" if s.facts.where else ""
    return f"a bf16 tensor passed to `.numpy()`{at}", s.entry.cause, s.entry.fix


def _overflow(s: Scene):
    culprit, cause, fix = _generic(s)
    half = next((t for _, _, t in _floats(s) if t.dtype in HALF_DTYPES), None)
    if s.entry.key == "multinomial-nan" and half is not None:  # probabilities sampled in half precision
        dt = dtype_name(half.dtype)
        cause = (f"{cause.rstrip('.')}; here the probabilities themselves are {dt}, and sampling code run on {dt} "
                 f"logits (a division by a temperature near 0, top-k / top-p filling, a repetition penalty, the "
                 f"softmax) can overflow {dt} on its own, even when the model's logits are finite.")
        fix = (f"Do the sampling math in fp32: `torch.softmax(logits.float() / temperature, -1)` (greedy `argmax` "
               f"for temperature 0), then sample; {fix[:1].lower()}{fix[1:]}")
    return culprit, cause, fix


HANDLERS = {"mismatch": _mismatch, "overflow": _overflow, "index": _mismatch, "attention": _mismatch, "backward-dtype": _mismatch,
            "out-buffer": _out_buffer, "cpu-kernel": _cpu_kernel, "device": _device, "scaler": _scaler,
            "numpy": _numpy}


def apply_rules(s: Scene) -> tuple[str, str, str]:
    if s.entry.kind == "mismatch" and any(str(t.device) != str(s.tensors[0][1].device) for _, t in s.tensors):
        return _device(s)  # 'Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor)'
    return HANDLERS.get(s.entry.kind, _generic)(s)
