"""Where inf/NaN first appeared: re-run a step op by op and name the first op that made a non-finite value from
finite ones.

    finding = amplora.doctor.nonfinite.locate(model, lambda: model(**batch).loss)   # None when all is finite
    print(finding.summary())

This is the expensive part: it runs only after the cheap always-on check (nonfinite_watch.py, or a trainer's
own loss/gradient check) has seen a non-finite value. The re-run goes through the forward (and, when the forward
is finite, the backward via `torch.autograd.grad`, so no `.grad` is touched) under a dispatch mode that checks
every op's outputs against its inputs.
"""
from __future__ import annotations

import math
import re
import sys
from dataclasses import asdict, dataclass, field

import torch

from amplora.doctor.capture import WatchingMode, live_frames, scan_frames
from amplora.doctor.held_state import half_copies
from amplora.doctor.naming import Namer, owner_path
from amplora.doctor.tracer import Recorder
from amplora.precision import HALF_DTYPES, dtype_name


@dataclass
class NonFinite:
    """The first non-finite value of a step, and why."""

    phase: str                   # forward / backward / optimizer step
    module: str | None
    op: str | None
    dtype: str                   # of the value that went non-finite
    limit: float                 # that dtype's largest finite value (65504 for fp16)
    largest: float               # largest finite magnitude among the op's inputs and outputs
    value: str                   # "inf" / "NaN" / "inf and NaN"
    inputs: list = field(default_factory=list)  # "role: dtype, max |x| = ..." of the still-finite inputs
    culprit: str = ""
    cause: str = ""
    fix: str = ""
    function: str = ""           # custom autograd.Function whose backward made it
    where: str = ""

    def summary(self) -> str:
        mod = f" ({self.module})" if self.module and self.module not in self.culprit else ""
        return (f"first non-finite value ({self.value}, {self.dtype}) in {self.phase}{mod}: {self.culprit}; "
                f"fix: {self.fix}")

    def rows(self) -> list[tuple[str, str]]:
        rows = [("phase", self.phase), ("module", self.module or "(no module running)")]
        if self.op:
            rows.append(("op", self.op))
        rows.append(("dtype", f"{self.dtype} (largest finite {_num(self.limit)})"
                              + (f"; the largest finite magnitude on the way was {_num(self.largest)}"
                                 if not math.isnan(self.largest) else "")))
        for i, text in enumerate(self.inputs):
            rows.append(("inputs" if i == 0 else "", text))
        rows += [("culprit", self.culprit), ("cause", self.cause), ("fix", self.fix)]
        if self.where:
            rows.append(("where", self.where))
        return rows

    def render(self) -> str:
        return "\n".join([f"non-finite values ({self.value}) first appeared in {self.phase}"]
                         + [f"  {label:<9}{text}" for label, text in self.rows()])

    def as_dict(self) -> dict:
        return asdict(self)


def _num(x: float) -> str:
    return f"{x:.6g}" if math.isfinite(x) else str(x)


def _smallest(dtype: torch.dtype) -> str:
    """The dtype's smallest positive (subnormal) value, as printed: a constant below it is 0 in that dtype."""
    return _num(float(torch.finfo(dtype).smallest_normal * torch.finfo(dtype).eps))


def _floats(values, role="out"):
    for i, v in enumerate(values):
        if isinstance(v, torch.Tensor) and v.is_floating_point() and v.device.type != "meta":
            yield (role if len(values) == 1 else f"{role}[{i}]"), v
        elif isinstance(v, (list, tuple)):
            yield from _floats(v, role)


def _state(t: torch.Tensor) -> tuple[bool, bool]:
    """(has inf, has NaN)"""
    return bool(torch.isinf(t).any()), bool(torch.isnan(t).any())


def _max_finite(t: torch.Tensor) -> float:
    a = t.detach().abs().float()
    a = a[torch.isfinite(a)]
    return float(a.max()) if a.numel() else 0.0


@dataclass
class Birth:
    op: str
    inputs: list            # (role, tensor)
    outputs: list           # (role, tensor)
    scalars: list           # (role, python number)
    value: str
    tier: int               # 0: non-finite from finite inputs; 1: NaN from NaN-free inputs (an inf met an inf)
    facts: object
    node_seq: int = -1


# factories that return memory without writing it
_UNINITIALISED = frozenset({"empty", "empty_like", "new_empty", "new_empty_strided", "empty_strided",
                            "empty_permuted"})


class NonFiniteTracer(WatchingMode):
    """Runs every op; remembers the first whose output is non-finite while its inputs were finite."""

    def __init__(self):
        super().__init__()
        self.first: Birth | None = None      # tier 0
        self.first_nan: Birth | None = None  # tier 1

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        if self.first is not None:
            return out
        try:
            self._check(func, args, kwargs, out)
        except Exception:  # the doctor must never break the re-run
            pass
        return out

    def _check(self, func, args, kwargs, out, caller=None):
        if getattr(getattr(func, "overloadpacket", None), "__name__", "") in _UNINITIALISED:
            return  # fresh memory holds whatever bits were there: NaN in it is no birth until it is read
        outs = list(_floats(out if isinstance(out, (list, tuple)) else [out]))
        if not outs:
            return
        states = [_state(t) for _, t in outs]
        inf, nan = any(s[0] for s in states), any(s[1] for s in states)
        if not (inf or nan):
            return
        names = [a.name for a in getattr(func, "_schema", None).arguments] if hasattr(func, "_schema") else []
        pairs = [(names[i] if i < len(names) else f"arg{i}", a) for i, a in enumerate(args)] + list(kwargs.items())
        ins = [(r, t) for role, v in pairs for r, t in _floats([v], role)]
        scalars = [(role, v) for role, v in pairs if isinstance(v, (int, float)) and not isinstance(v, bool)]
        if "out" in kwargs:  # an out= buffer is written, not read
            ins = [(r, t) for r, t in ins if not r.startswith("out")]
        in_states = [_state(t) for _, t in ins]
        scalar_bad = any(isinstance(v, float) and not math.isfinite(v) for _, v in scalars)
        value = _value(inf, nan)
        node = torch._C._current_autograd_node()
        seq = node._sequence_nr() if node is not None else -1
        if not any(a or b for a, b in in_states) and not scalar_bad:  # an intended -inf / NaN constant is no birth
            self.first = Birth(str(func), ins, outs, scalars, value, 0,
                               scan_frames(live_frames(caller or sys._getframe(2))), seq)
        elif nan and self.first_nan is None and not any(b for _, b in in_states):
            self.first_nan = Birth(str(func), ins, outs, scalars, "NaN", 1,
                                   scan_frames(live_frames(caller or sys._getframe(2))), seq)

    @property
    def birth(self) -> Birth | None:
        return self.first or self.first_nan


# ---- cause and fix -----------------------------------------------------------------------------------------------
def _short(op: str) -> str:
    return op.split(".default")[0]


def _saturated(dtype: torch.dtype) -> str:
    return (f"a sigmoid or softmax saturates in {dtype_name(dtype)}, where values within "
            f"{_num(float(torch.finfo(dtype).eps) / 2)} of 1 round to 1")


_SATURATED_FIX = ("return logits and use `F.binary_cross_entropy_with_logits` / `BCEWithLogitsLoss` (or "
                  "`log_softmax`), which never take log(0); or compute the sigmoid and the loss in fp32 "
                  "(`logits.float()`) and clamp p into [eps, 1 - eps]")


def _eps_note(located: str, dtype: torch.dtype) -> str:
    """A sentence for a failing line that adds an eps too small for a half dtype (1e-8 is 0 in fp16)."""
    if dtype not in HALF_DTYPES or not re.search(r"[+(,]\s*([\w.]*\.)?eps\b", located):  # an eps added or passed
        return ""
    return (f"; the eps on that line does not help if it is below {dtype_name(dtype)}'s smallest positive value "
            f"{_smallest(dtype)} (1e-8 and 1e-12 are 0 in fp16)")


def explain_birth(b: Birth, phase: str, module: str | None, function: str = "", underflow=None) -> NonFinite:
    """`underflow`: (dtype, FrameFacts) of the half-precision product where the zeros a log took were born."""
    dtype = b.outputs[0][1].dtype
    for _, t in b.outputs:
        if not torch.isfinite(t).all():
            dtype = t.dtype
            break
    limit = float(torch.finfo(dtype).max)
    largest = max([_max_finite(t) for _, t in b.inputs + b.outputs] + [0.0])
    inputs = [f"{r}: {dtype_name(t.dtype)} [{'x'.join(map(str, t.shape)) or 'scalar'}], "
              f"max |x| = {_num(_max_finite(t))}" for r, t in b.inputs[:6]]
    inputs += [f"{r}: constant {v!r}" for r, v in b.scalars[:3]]
    op, dt, where = _short(b.op), dtype_name(dtype), f" in {module}" if module else ""
    low = dtype in HALF_DTYPES
    big = [(r, v) for r, v in b.scalars if isinstance(v, (int, float)) and abs(v) > limit]
    divisor = next((t for r, t in b.inputs if r == "other"), None) if "div" in op else None
    logs = ("aten.log", "aten.log2", "aten.log10")
    logged = next((t for r, t in b.inputs if r == "self"), None) if op in logs else None
    exponent = next((v for r, v in b.scalars if r == "exponent" and isinstance(v, (int, float))),
                    None) if op.startswith("aten.pow") else None
    powered = next((t for r, t in b.inputs if r == "self"), None) if exponent is not None else None
    fn = f"{function}.backward" if function else ""
    located = (b.facts.line if b.facts else "").lower()  # the line, not what it reads
    if big and "mul" in op and "scal" in located:
        r, v = big[0]
        culprit = f"the loss scale {v:g} ({op}{where}) does not fit {dt}, whose limit is {_num(limit)}"
        cause = (f"{op} multiplied a value in {dt} by the constant {v:g}, a hand-made loss scale beyond {dt}'s range, "
                 f"so the scaled value is inf before backward starts and every gradient after it is inf or NaN.")
        fix = ("let `torch.amp.GradScaler` scale the loss (it keeps the scale in fp32 and backs off on overflow) with "
               "fp32 master weights, or multiply `loss.float()`; a static scale on an fp16 value must stay below "
               f"{_num(limit)} / max |loss|; or train in bf16, which needs no loss scale")
    elif big:
        r, v = big[0]
        culprit = f"the constant {v:g} ({op}{where}) does not fit {dt}, whose limit is {_num(limit)}"
        cause = f"{op} wrote the constant {v:g} into a {dt} tensor, where it becomes {'-' if v < 0 else ''}inf."
        fix = (f"use `torch.finfo(scores.dtype).min` instead of {v:g} for masks (it fits every dtype), or "
               f"compute the masked scores in fp32; a row masked entirely (all padding, an empty sequence) then "
               f"softmaxes -inf everywhere into NaN, so give such rows one unmasked position or zero them after")
    elif divisor is not None and bool((divisor == 0).any()):
        culprit = f"{op} divided by zero{(' in ' + fn) if fn else where}"
        half = divisor.dtype if divisor.dtype in HALF_DTYPES else dtype  # an fp16 divisor of an fp32 result
        low_div, hdt = half in HALF_DTYPES, dtype_name(half)
        tiny = _smallest(half) if low_div else ""
        if low_div and re.search(r"\(\s*1(\.0*)?\s*-\s*\w", located):  # 1 - a, with a rounded to 1
            culprit += f": 1 - a is 0 in {hdt} where a rounded to 1"
            detail = (f": the divisor is {hdt}, where a value within {_num(float(torch.finfo(half).eps) / 2)} of 1 "
                      f"(a cumulative product of alphas close to 1, a probability) rounds to 1, so 1 - a is 0")
        else:
            detail = (f": in {hdt} a divisor below {tiny} (a product of many factors under 1, a small variance or "
                      f"probability) is 0" if low_div else "")
        mixed = low_div and not low  # a half divisor among full-precision values
        cause = (f"{fn or op} divided finite values by a zero ({value_word(b.value)} from finite inputs){detail}"
                 f"{_eps_note(located, half)}"
                 + (f"; the divisor is {hdt} among {dt} values: a tensor kept in half precision to save memory (an "
                    f"optimizer's state, a table, a cache)" if mixed else "") + ".")
        fix = ("guard the division (`x / (d + eps)` or `d.clamp_min(eps)`)"
               + (f" in {fn}, and check it with `torch.autograd.gradcheck`" if fn else "")
               + (f"; compute the divisor in fp32 (`d.float()`, and the tables it comes from: a schedule made "
                  f"with `dtype=torch.float32`), where it does not underflow or round to 0" if low_div else "")
               + ("; keep such state in the dtype of the values it divides (`torch.zeros_like(p)`, not "
                  "`dtype=torch.float16`)" if mixed else ""))
    elif (logged is not None and low and bool((logged == 0).any())
          and re.search(r"log\w*\(\s*1(\.0*)?\s*-", located)):  # log(1 - p) of a saturated probability
        culprit = f"{op}{where} took the log of zero ({dt}): 1 - p is 0 where p rounded to 1"
        cause = f"{op} got 1 - p = 0: {_saturated(dtype)}, so log(1 - p) is log(0) = -inf."
        fix = _SATURATED_FIX
    elif logged is not None and underflow is not None and bool((logged == 0).any()):
        hdt, made = dtype_name(underflow[0]), underflow[1]
        culprit = (f"{op}{where} took the log of zeros born in {hdt} at {made.where} (`{made.code}`): a product of "
                   f"probabilities underflowed")
        widened = "; widening it afterwards keeps the 0" if logged.dtype != underflow[0] else ""
        cause = (f"`{made.code}` takes a product of probabilities (or scores) in {hdt}, where a value below "
                 f"{_smallest(underflow[0])} is 0, so after a few factors it underflowed to 0 where fp32 would not "
                 f"have{widened}, and log(0) = -inf.")
        fix = ("sum the log-probabilities in fp32 instead of multiplying the probabilities "
               "(`F.log_softmax(logits.float(), -1)` terms; `p ** w` becomes `w * logp`, a sum of products "
               "`torch.logsumexp`), or rescale at each step (divide by the sum, add its log), or at least multiply in "
               "fp32 (`probs.float()`)")
    elif logged is not None and bool((logged <= 0).any()):
        culprit = f"{op}{where} took the log of {'zero' if bool((logged == 0).any()) else 'a negative value'} ({dt})"
        product = re.search(r"(\w+) = [^;]*\bprod\(", b.facts.made) if b.facts else None  # made a line or two up
        cause = (f"{op} got a value that is 0 (log(0) = -inf), most often a probability that underflowed to zero in "
                 f"{dt} (fp16's smallest value is 6e-8), or a negative one (NaN){_eps_note(located, dtype)}"
                 + (f"; `{product.group(1)}` is a product of probabilities, which underflows to 0 after a few factors"
                    if product else "") + ".")
        fix = ("compute log-probabilities directly and in fp32: `F.log_softmax(logits.float(), -1)` (or "
               "`F.cross_entropy`) instead of `softmax(...).log()`, or `torch.log(p.clamp_min(eps))`"
               + ("; sum the log-probabilities instead of multiplying the probabilities "
                  "(`logp.gather(-1, ids[..., None]).squeeze(-1).sum(-1)`)" if product else ""))
    elif exponent is not None and exponent < 0 and powered is not None and bool((powered == 0).any()):
        culprit = f"{op}{where} raised exact zeros to the power {exponent:g} ({dt}): 0 to a negative power is inf"
        cause = (f"{op} got a 0 raised to {exponent:g}: a degree, count or norm that is 0 (a graph node without "
                 f"edges, an empty row or bag, a padded position) in a normalisation such as D^-1/2 or 1/n is inf, "
                 f"and the inf times the 0s around it gives NaN.")
        fix = ("clamp it before the power (`deg.clamp(min=1).pow(-0.5)`, or add self loops so no degree is 0), or "
               "set the infs to 0 afterwards (`d = d.masked_fill(d.isinf(), 0)`)")
    elif op in ("aten.rsqrt", "aten.reciprocal") and any(bool((t == 0).any()) for _, t in b.inputs):
        tiny = _smallest(dtype)
        culprit = f"{op}{where} got exact zeros ({dt}): 1/0 = inf"
        cause = (f"{op} of 0 is inf: a variance or mean square of zero rows (padding, a dead channel), with an eps that "
                 + (f"{dt} cannot hold (below {tiny}: 1e-8, 1e-12 round to 0) added to it." if low else
                    "is missing or too small."))
        fix = ("add an eps the dtype holds (1e-5 or more in fp16), or compute the norm in fp32 (`x.float()`) and cast "
               "the result back")
    elif b.tier == 0 and low and "inf" in b.value and op == "aten._to_copy" and b.facts and (b.facts.cast_entry
                                                                                          or b.facts.cast):
        in_max = max([_max_finite(t) for _, t in b.inputs] + [0.0])
        beyond = f"values up to {_num(in_max)} are beyond {dt}'s limit {_num(limit)}"
        if b.facts.cast_entry:  # a comprehension casting each entry of a state dict
            name = b.facts.cast_entry
            culprit = f"casting the state-dict entry `{name}` to {dt} overflowed it: {beyond}"
            cause = (f"The loop casts every entry of the state dict to {dt}, buffers included, and `{name}` holds "
                     f"values beyond {_num(limit)} (a mean or variance of raw targets or features, a large constant "
                     f"or table), which become inf, so whatever is computed from it after loading is inf or NaN.")
            fix = (f"cast only the entries that fit (keep `{name}` and other statistics buffers in fp32: "
                   f"`v.to({dtype}) if v.abs().max() < {_num(limit)} else v`), or scale the data so such statistics "
                   f"stay small" + ("; or save in bf16, which has fp32's range" if dtype == torch.float16 else ""))
        else:  # `.half()` / `.to()` of the model
            kind, name = b.facts.cast
            culprit = f"casting the model to {dt} overflowed its {kind} `{name}`: {beyond}"
            cause = (f"`.half()` / `.to({dtype})` casts every parameter and buffer, and the {kind} `{name}` holds "
                     f"values beyond {_num(limit)} (a mean or variance of raw features such as amounts or incomes, a "
                     f"large constant or table), which become inf, so everything computed from it is inf or NaN.")
            fix = (f"keep the module that holds `{name}` in fp32 after the cast (`model.half()`, then that module's "
                   f"`.float()`, casting its input to fp32 and its output back), or scale the data before the model "
                   f"so such statistics stay small; or use bf16, which has fp32's range")
    elif b.tier == 0 and low and "inf" in b.value:
        in_max = max([_max_finite(t) for _, t in b.inputs] + [0.0])
        culprit = (f"{op}{where} overflowed {dt}: finite inputs (max |x| = {_num(in_max)}) gave a result beyond "
                   f"{dt}'s limit {_num(limit)}")
        scalar = b.outputs[0][1].ndim == 0
        own = "," if phase != OUTSIDE else (
            f", on a 0-dim {dt} value of the script's own (a running sum over batches or tokens, a metric, a "
            f"hand-written loss) that no module keeps in fp32," if scalar else
            f", on {dt} values the script computes itself outside any module (probabilities, scores or a loss "
            f"written by hand) that no module keeps in fp32,")
        cause = f"{op} ran in {dt}, whose range ends at {_num(limit)}{own} and its result did not fit."
        if phase == OUTSIDE and scalar:
            fix = ("keep running sums, metrics and losses in fp32: accumulate `loss.float()` or `loss.item()` "
                   "(a Python float) and compute them from `logits.float()`")
        elif phase == OUTSIDE:
            fix = ("compute them in fp32 from `logits.float()`, with the stable fused forms: `torch.softmax(x, -1)` "
                   "/ `log_softmax` instead of exp and a sum (they subtract the maximum first), `logsumexp`")
        elif phase == "backward":
            fix = ("use loss scaling only as far as the gradients fit (GradScaler backs off by itself), or train in "
                   "bf16 instead of fp16 (fp32's range); compute that op in fp32")
        else:
            fix = (f"compute that op in fp32 (keep {module or 'the module'} in fp32, or run the model under "
                   f"`torch.autocast` so it upcasts), or use bf16 instead of fp16 (fp32's range)")
    elif b.tier == 0 and "inf" in b.value:  # fp32 / fp64: only huge weights or activations get there
        in_max = max([_max_finite(t) for _, t in b.inputs] + [0.0])
        culprit = (f"{op}{where} overflowed {dt}: inputs up to {_num(in_max)} gave a result beyond {dt}'s limit "
                   f"{_num(limit)}")
        cause = (f"Values grew until {op} passed even {dt}'s range, which takes weights or activations far too "
                 f"large: usually a learning rate too high for this model.")
        fix = "use a lower lr (and clip gradients: `clip_grad_norm_`); check the inputs and the loss scale"
    elif fn:
        culprit = f"{fn} made {b.value} from finite gradients ({op})"
        cause = f"The custom autograd.Function {function}'s backward computed {b.value} from finite inputs at {op}."
        fix = (f"fix {fn}: compute it in fp32 and guard divisions, logs and square roots (eps / clamp); check it "
               f"with `torch.autograd.gradcheck`")
    else:
        culprit = f"{op}{where} made {b.value} from {'finite' if b.tier == 0 else 'NaN-free'} inputs ({dt})"
        cause = (f"{op} in {dt} produced {b.value} from inputs that were still finite." if b.tier == 0 else
                 f"{op} combined infinities into NaN (e.g. inf - inf, 0 * inf, a softmax over a fully masked row).")
        fix = ("compute that op in fp32, mask with `torch.finfo(dtype).min` instead of -inf, and use bf16 instead "
               "of fp16 when values grow large")
    return NonFinite(phase=phase, module=module, op=op, dtype=dt, limit=limit, largest=largest, value=b.value,
                     inputs=inputs, culprit=culprit, cause=cause, fix=fix, function=function,
                     where=b.facts.located if b.facts else "")


OUTSIDE = "the script's own code (outside any module)"


def root_at_zero(op: str, result: torch.Tensor, facts) -> NonFinite:
    """A loss whose gradient came back inf/NaN took a square root or norm that was 0: its backward divides by it."""
    dt, op = dtype_name(result.dtype), _short(op)
    tiny = _smallest(result.dtype)
    zeros = int((result == 0).sum())
    return NonFinite(
        phase="backward", module=None, op=op, dtype=dt, limit=float(torch.finfo(result.dtype).max),
        largest=_max_finite(result), value="inf and NaN",
        inputs=[f"{op} result: {dt} [{'x'.join(map(str, result.shape)) or 'scalar'}], {zeros} of them 0"],
        culprit=f"the backward of {op} at 0, in the loss computed outside any module ({zeros} value(s) were 0)",
        cause=(f"The gradient of a square root or norm divides by its result, so it is inf (and NaN after) where that "
               f"is 0: a distance or norm of identical or zero vectors (an anchor that is its own positive, a padded "
               f"row), " + (f"and an eps below {dt}'s smallest positive value {tiny} (1e-12, 1e-8) is 0 there."
                            if result.dtype in HALF_DTYPES else "with no eps inside the root to keep it off 0.")),
        fix=("add an eps the dtype holds inside the root (`(d2 + 1e-6).sqrt()`, `d2.clamp_min(1e-6).sqrt()`), or "
             "compute distances and norms in fp32 (`a.float()`); `F.pairwise_distance` adds its eps for you"),
        where=facts.located if facts else "")


def _value(inf: bool, nan: bool) -> str:
    """What a tensor holds: 'inf', 'NaN' or 'inf and NaN'."""
    return "inf and NaN" if inf and nan else "inf" if inf else "NaN"


def value_word(value: str) -> str:
    return {"inf": "an inf", "NaN": "a NaN"}.get(value, value)


def nonfinite_params(roots, params=None) -> list[tuple[str, torch.Tensor]]:
    """Named parameters (of `roots`, or just `params`) holding inf/NaN: the exact check, after a cheap one."""
    namer = Namer(list(roots))
    found = []
    if params is None:
        params = list({id(p): p for r in roots for p in r.parameters()}.values())
    for p in params:
        if p.is_floating_point() and p.device.type != "meta" and not torch.isfinite(p.detach()).all():
            found.append((namer.param_name(p) or f"<unnamed {tuple(p.shape)}>", p))
    return found


def _vanishes(eps, dtype: torch.dtype) -> bool:
    """Whether `eps` is a positive float that is 0 in the half dtype `dtype` (Adam's 1e-8 in fp16)."""
    return (isinstance(eps, float) and eps > 0 and dtype in HALF_DTYPES
            and float(torch.tensor(eps, dtype=dtype)) == 0)


def zero_eps(optimizer, roots) -> str:
    """A note for an optimizer that keeps state in fp16 with an eps that is 0 there (Adam's 1e-8): the run may stay
    finite, but wherever a squared gradient's average underflows the update divides by zero. "" when none does."""
    held = [(g["eps"], p) for g in optimizer.param_groups for p in g["params"]
            if _vanishes(g.get("eps"), p.dtype)
            and any(isinstance(v, torch.Tensor) and v.dtype == p.dtype and v.shape == p.shape
                    for v in optimizer.state.get(p, {}).values())]
    if not held:
        return ""
    eps, p = held[0]
    dt, opt = dtype_name(p.dtype), type(optimizer).__name__
    name = Namer(list(roots)).param_name(p) if roots else None
    which = f"{len(held)} {dt} parameter(s)" + (f" ({name}, ...)" if name else "")
    return (f"{opt} updates {which} with {dt} state and eps={eps:g}, which is 0 in {dt} (its smallest positive value "
            f"is {_smallest(p.dtype)}): wherever the average of squared gradients underflows, m / (sqrt(v) + eps) "
            f"divides by zero, and updates below half a {dt} step of a weight are lost, so training can go NaN or "
            f"quietly learn nothing. Keep trainable parameters and optimizer state in fp32 (master weights) and let "
            f"autocast run the matmuls in {dt} (`fp16=True` with fp32 weights in a Trainer), or use bf16; state "
            f"that must stay {dt} needs eps >= 1e-4.")


def explain_params(bad, roots, optimizer=None, phase="optimizer step") -> NonFinite:
    """Weights that are non-finite: made so by the last optimizer step (or before this forward)."""
    name, p = bad[0]
    dt = dtype_name(p.dtype)
    limit = float(torch.finfo(p.dtype).max)
    g = p.grad
    gmax = _max_finite(g) if g is not None else 0.0
    inf, nan = _state(p.detach())
    g_inf, g_nan = _state(g.detach()) if g is not None else (False, False)
    value = _value(inf, nan)
    group = {}  # the parameter's group: its lr and eps
    if optimizer is not None:
        group = next((grp for grp in optimizer.param_groups if any(q is p for q in grp["params"])), {})
    lr, eps = group.get("lr"), group.get("eps")
    opt = type(optimizer).__name__ if optimizer is not None else "an optimizer"
    names = ", ".join(n for n, _ in bad[:4]) + (f" and {len(bad) - 4} more" if len(bad) > 4 else "")
    inputs = [f"grad: {dtype_name(g.dtype)}, max |g| = {_num(gmax)}" if g is not None else "grad: none"]
    if lr is not None:
        inputs.append(f"lr: {lr:g}" + (f" (lr x max |g| = {_num(float(lr) * gmax)})" if gmax else ""))
    low = p.dtype in HALF_DTYPES
    culprit = f"{len(bad)} parameter(s) became {value} at {opt} step: {names}"
    if _vanishes(eps, p.dtype):
        # Adam-like state in the parameter's dtype: eps is 0 there and v underflows, so m / (sqrt(v) + eps) is x / 0
        cause = (f"{opt}'s eps={eps:g} is below {dt}'s smallest positive value ({_smallest(p.dtype)}), so it is 0 in {dt} "
                 f"optimizer state, and the average of squared gradients underflows to 0 as well, so the update "
                 f"m / (sqrt(v) + eps) divides by zero even with finite gradients and a small step.")
        fix = (f"keep trainable parameters and optimizer state in fp32 (master weights) and let autocast run the "
               f"matmuls in {dt}, or use bf16; an optimizer that must run in {dt} needs eps >= 1e-4")
    elif held := half_copies(p):
        hdt = dtype_name(held[0][0].dtype)
        names = ", ".join(f"`{n}`" for _, n in held)
        where = held[0][1].split(".")[0] if held[0][1] != "a tensor" else "the code that creates it"
        culprit = f"{culprit}; tensors of {name}'s shape are kept in {hdt}: {names}"
        cause = (f"The weights are {dt} but tensors of their shape, most likely the optimizer state an update reads "
                 f"({names}), are {hdt}: there an eps such as 1e-8 is 0 and squares of small gradients underflow to "
                 f"0, so an update that divides by sqrt(state) + eps gets 0/0 = NaN or x/0 = inf with finite "
                 f"gradients, and values above {_num(float(torch.finfo(held[0][0].dtype).max))} overflow.")
        fix = (f"keep optimizer state in the weights' dtype ({dt}): create it with `torch.zeros_like(p)` (no "
               f"`dtype=torch.{'float16' if hdt == 'fp16' else 'bfloat16'}`) in {where}; state that must stay "
               f"{hdt} needs eps >= 1e-4 and values within its range")
    elif g_inf or g_nan:
        # the step only applied what backward made: an overflow there that no scaler caught
        gdt = dtype_name(g.dtype)
        culprit = f"{culprit}, whose gradient was already {'inf' if g_inf else 'NaN'}"
        cause = (f"The gradient of {name} was non-finite before {opt}'s step: backward overflowed {gdt} ("
                 f"{_num(float(torch.finfo(g.dtype).max))}), most often a loss multiplied by a fixed scale (2**16 "
                 f"in fp16) or many gradients summed into one parameter (a bias or temperature every logit shares), "
                 f"and nothing skipped the step.")
        fix = ("let `torch.amp.GradScaler` scale the loss (it lowers the loss scale and skips steps whose gradients "
               "are inf) with fp32 master weights, or keep the loss and such shared parameters in fp32; or train in "
               "bf16, which needs no loss scaling")
    elif low and 0 < gmax and (lr if isinstance(lr, (int, float)) else 1.0) * gmax < 1.0:
        # a step of lr x |g| < 1 cannot pass 65504: the update divided by something that was 0 in half precision
        cause = (f"{opt.capitalize() if optimizer is None else opt} made {dt} weights {value} from small finite "
                 f"gradients (max |g| = {_num(gmax)}), which a plain step cannot do: the update divided by a "
                 f"denominator that is 0 in {dt}, an Adam-like sqrt(v) + eps whose eps (1e-8) and average of squared "
                 f"gradients underflow below {dt}'s smallest value {_smallest(p.dtype)}.")
        fix = (f"keep trainable parameters and optimizer state in fp32 (master weights) and let autocast run the "
               f"matmuls in {dt}, or use bf16; an update that must run in {dt} needs eps >= 1e-4")
    else:
        cause = (f"{opt.capitalize() if optimizer is None else opt} updated {dt} weights with finite gradients and "
                 f"the result passed {dt}'s limit {_num(limit)}" + (" (there is no fp32 master copy)." if low else "."))
        fix = "lower the learning rate" + ("; keep trainable parameters in fp32 (master weights) and let autocast run "
                                           "the matmuls in fp16/bf16, or use bf16 instead of fp16" if low else
                                           " (and clip gradients: `clip_grad_norm_`)")
    return NonFinite(phase=phase, module=owner_path(name) if not name.startswith("<") else None,
                     op=f"{opt}.step" if optimizer is not None else None, dtype=dt, limit=limit,
                     largest=max(_max_finite(p), gmax), value=value, inputs=inputs, culprit=culprit, cause=cause,
                     fix=fix)


# ---- the re-run -------------------------------------------------------------------------------------------------
def input_gradient(module: str, dtype: torch.dtype) -> NonFinite:
    """Parameter gradients went inf/NaN although the gradient into `module`'s output was finite and a re-run of its
    forward and backward stayed finite, and its input requires grad: the NaN came through a gradient taken with
    respect to that input inside the loss (a gradient penalty), whose own backward made it."""
    dt = dtype_name(dtype)
    half = dtype in HALF_DTYPES
    cause = ("The loss holds a gradient of the model's output with respect to its input (`torch.autograd.grad(..., "
             "create_graph=True)`: an eikonal or gradient-penalty term, an input-gradient norm), and the backward "
             "through that term made it: the derivative of sqrt (a norm) is infinite where the gradient is 0"
             + (f", and in {dt} small input gradients underflow to 0 and an eps such as 1e-12, below {dt}'s "
                f"smallest value {_num(float(torch.finfo(dtype).tiny * torch.finfo(dtype).eps))}, rounds to 0."
                if half else "."))
    fix = ("compute the gradient penalty in fp32 (`g = g.float()` before its norm), take the norm as "
           "`torch.sqrt(g.pow(2).sum(-1) + eps)` with an eps the dtype can hold (>= 1e-6 in fp32; none below 1e-4 in "
           "fp16), and scale inputs to unit range so their gradients are not tiny")
    return NonFinite(phase="backward", module=module, op="sqrt", dtype=dt,
                     limit=float(torch.finfo(dtype).max), largest=float("nan"), value="inf/NaN",
                     culprit=f"the gradient penalty on the gradient of {module}'s output with respect to its input",
                     cause=cause, fix=fix)


def after_output(module: str, out: torch.Tensor, grad: torch.Tensor, stale=None, exp=None) -> NonFinite:
    """The gradient that came back into a model's (finite) output is inf/NaN: it was born after the model, in the
    loss computed from that output outside any module, or came in with a tensor the loss reads that already held
    inf/NaN (`stale`: name, tensor, where it was made). `exp`: (dtype, frame facts) of an exp that loss took in
    half precision."""
    inf, nan = _state(grad.detach())
    dt = dtype_name(out.dtype)
    largest = _max_finite(out)
    half = out.dtype in HALF_DTYPES
    top = float(torch.finfo(out.dtype).max)
    cause = ("The inf/NaN was born between the model's output and the loss, in code outside any module (a "
             "hand-written loss or similarity, exp / sum / log, a scaling by a temperature or a square): "
             + (f"in {dt}, exp() of anything above {_num(math.log(top))} and squares above {_num(math.sqrt(top))} "
                f"overflow {dt}'s {_num(top)}, and so does the gradient of a loss multiplied by a loss scale too "
                f"large for {dt} activations."
                if half else "in fp32 that is most often a log or division of zero, a sqrt of a negative value, or "
                             "exp() above 88."))
    fix = ("compute the loss in fp32 (`out.float()` before it), use the fused stable forms (`F.cross_entropy` / "
           "`log_softmax` instead of exp, sum and log; `BCEWithLogitsLoss`), scale targets into range; "
           "`torch.autograd.set_detect_anomaly(True)` names the op"
           + ("; a hand-written loss scale must come down until the gradients fit (or let `torch.amp.GradScaler` "
              "choose it: it skips the overflowing steps and lowers the scale)" if half else ""))
    o = out.detach()
    if half and o.numel() and bool((o >= 0).all()) and float(o.max()) == 1.0:  # probabilities that reached 1
        cause = (f"The model's output holds probabilities that are exactly 1 (or 0): {_saturated(out.dtype)}, so a "
                 f"hand-written log(1 - p) or log(p) of them is log(0) = -inf.")
        fix = _SATURATED_FIX
    culprit = (f"the loss computed from {module}'s output: the output is finite ({dt}, max |x| = {_num(largest)}) "
               f"but the gradient coming back into it is not")
    where = ""
    if exp is not None and stale is None and fix is not _SATURATED_FIX:
        edt, facts = dtype_name(exp[0]), exp[1]
        where = facts.located if facts else ""
        at = f" at `{facts.code}`" if facts and facts.code else ""
        info = torch.finfo(exp[0])
        culprit = (f"the loss computed from {module}'s output takes exp() in {edt}{at}: the output is finite ({dt}, "
                   f"max |x| = {_num(largest)}) but the gradient coming back into it is not")
        cause = (f"The loss takes exp() in {edt} outside any module: in {edt} exp() is inf above "
                 f"{_num(math.log(info.max))} and 0 below {_num(math.log(info.smallest_normal * info.eps))}, so what is "
                 f"divided or normalised by its results (a hand-written softmax or partition function, an "
                 f"attention or transport plan, a scaling iterated on them) grows past {_num(info.max)}, and its "
                 f"gradients overflow first.")
        fix = ("compute that part in fp32 (`.float()` before the exp, cast the result back) or in the log domain "
               "(`torch.logsumexp`, `log_softmax`, log-domain iterations), so that nothing divides by an exp that "
               "underflowed")
    inputs = [f"{module} output: {dt}, max |x| = {_num(largest)}"]
    if stale is not None:
        name, tensor, made = stale
        held = _value(*_state(tensor.detach()))
        inputs.append(f"{name}: {dtype_name(tensor.dtype)} {list(tensor.shape)}, holds {held}")
        culprit = (f"`{name}`, which the loss code reads, already held {held} before this step"
                   + (f" ({made})" if made else "") + f"; {module}'s output is finite")
        cause = (f"A tensor the loss uses was inf/NaN before the model ran ({name}, made outside the training step: "
                 f"a division by a count or sum of 0, a log of 0, a power of 0 to a negative exponent), so every "
                 f"loss computed with it is inf/NaN whatever the model does.")
        fix = (f"Check `{name}` where it is made (`torch.isfinite({name}).all()`) and guard that computation: clamp "
               f"counts or denominators to at least 1 or eps (`counts.clamp(min=1)`), or drop the empty entries")
    return NonFinite(phase="loss (outside any module)", module=None, op="exp" if where else None, dtype=dt,
                     limit=top, largest=largest, value=_value(inf, nan), inputs=inputs,
                     culprit=culprit, cause=cause, fix=fix, where=where)


def _outputs(out) -> list:
    """The floating tensors a module call returned: the tensor itself, a tuple's or list's, a dict's (a
    `ModelOutput` is one) values."""
    if isinstance(out, torch.Tensor):
        items = [out]
    elif isinstance(out, (list, tuple)):
        items = list(out)
    elif isinstance(out, dict):
        items = list(out.values())
    else:
        items = []
    return [t for t in items if isinstance(t, torch.Tensor) and t.is_floating_point()]


def _loss_of(out):
    """The tensor a step's backward starts from: `.loss`, else the output itself (first tensor)."""
    loss = getattr(out, "loss", None)
    if isinstance(loss, torch.Tensor):
        return loss
    if isinstance(out, torch.Tensor):
        return out
    if isinstance(out, (list, tuple)):
        return next((o for o in out if isinstance(o, torch.Tensor)), None)
    if isinstance(out, dict):
        return out.get("loss", next((v for v in out.values() if isinstance(v, torch.Tensor)), None))
    return None


def explain_located(birth: Birth, phase: str, roots: list, recorder: Recorder, function: str = "") -> NonFinite:
    """`explain_birth` with its module named: in backward the module whose forward created the failing node, else
    the innermost module running; `function` names a custom autograd.Function the frames did not show."""
    module = None
    if phase == "backward" and birth.node_seq >= 0:
        module = recorder.module_for_node(birth.node_seq)
    elif birth.facts.modules:
        module = birth.facts.modules[0]
    path = Namer(list(roots) + list(reversed(recorder.roots))).module_path(module) if module is not None else None
    return explain_birth(birth, phase, path,
                         (birth.facts.backward_function or function) if phase == "backward" else "")


def locate(model, fn, *, grad_output=None, recorder: Recorder | None = None, roots=None) -> NonFinite | None:
    """Re-run `fn()` (a forward that returns a loss, a model output or a tensor) op by op and name where inf/NaN
    first appeared: non-finite weights first (then the last optimizer step made them), else the forward, else
    the backward of the returned tensor (`grad_output`, default ones). Returns None when the re-run is finite
    throughout (a different batch or random draw, or a fault outside `fn`)."""
    roots = list({id(m): m for m in [model, *(roots or [])] if m is not None}.values())
    bad = nonfinite_params(roots)
    if bad:
        return explain_params(bad, roots, phase="optimizer step (weights were already non-finite)")
    own = recorder is None
    if own:
        recorder = Recorder()
        recorder.install()
    tracer = NonFiniteTracer()
    try:
        with torch.enable_grad(), tracer:
            out = fn()
        birth, phase = tracer.birth, "forward"
        loss = _loss_of(out)
        if birth is None and loss is not None and loss.requires_grad:
            params = [p for r in roots for p in r.parameters() if p.requires_grad]
            params = list({id(p): p for p in params}.values())
            if params:
                tracer = NonFiniteTracer()
                g = grad_output if grad_output is not None else torch.ones_like(loss)
                with tracer:
                    torch.autograd.grad(loss, params, g, allow_unused=True)
                birth, phase = tracer.birth, "backward"
        return explain_located(birth, phase, roots, recorder) if birth is not None else None
    finally:
        if own:
            recorder.remove()
