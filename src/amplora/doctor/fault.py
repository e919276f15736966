"""The diagnosis the doctor hands back: `PrecisionFault`, an exception that carries every field as data."""
from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass
class Operand:
    """One tensor argument of the failing op, as the doctor saw it."""

    role: str                  # schema argument name: self, mat2, out, input, weight, ...
    dtype: str                 # fp32 / bf16 / fp16 / int64 ...
    device: str
    shape: tuple
    origin: str = ""           # 'parameter model.x.weight', 'output of model.layers.0.input_layernorm', ...

    def describe(self) -> str:
        shape = "x".join(str(s) for s in self.shape) or "scalar"
        text = f"{self.role}: {self.dtype} {self.device} [{shape}]"
        return f"{text}  <- {self.origin}" if self.origin else text


class PrecisionFault(RuntimeError):
    """A dtype or device fault, diagnosed. The original exception is `__cause__` (and `.original`).

    Fields: phase, module, op, operands (list[Operand]), culprit, cause, fix, kind, key (knowledge-base entry),
    error (the original one-line message).
    """

    def __init__(self, *, phase: str, module: str | None, op: str | None, operands: list[Operand],
                 culprit: str, cause: str, fix: str, kind: str, key: str, error: str,
                 original: BaseException | None = None, where: str = ""):
        self.phase = phase
        self.module = module
        self.op = op
        self.operands = operands
        self.culprit = culprit
        self.cause = cause
        self.fix = fix
        self.kind = kind
        self.key = key
        self.error = error
        self.where = where
        self.original = original
        super().__init__(self.render())

    @property
    def title(self) -> str:
        return "out of memory" if self.kind == "memory" else "precision fault"

    def as_dict(self) -> dict:
        return {
            "phase": self.phase, "module": self.module, "op": self.op,
            "operands": [asdict(o) | {"shape": list(o.shape)} for o in self.operands],
            "culprit": self.culprit, "cause": self.cause, "fix": self.fix,
            "kind": self.kind, "key": self.key, "error": self.error, "where": self.where,
        }

    def rows(self) -> list[tuple[str, str]]:
        """(label, text) rows in display order; renderers (plain text, rich) share them."""
        rows = [("phase", self.phase), ("module", self.module or "(no module running)")]
        if self.op:
            rows.append(("op", self.op))
        for i, operand in enumerate(self.operands):
            rows.append(("operands" if i == 0 else "", operand.describe()))
        rows += [("culprit", self.culprit), ("cause", self.cause), ("fix", self.fix)]
        if self.where:
            rows.append(("where", self.where))
        rows.append(("error", self.error))
        return rows

    def render(self) -> str:
        lines = [f"{self.title} in {self.phase}"]
        lines += [f"  {label:<9}{text}" for label, text in self.rows()]
        return "\n".join(lines)

    def __reduce__(self):  # picklable across processes (e.g. DataLoader workers, distributed ranks)
        return (_rebuild, (self.as_dict(),))


def _rebuild(d: dict) -> PrecisionFault:
    ops = [Operand(o["role"], o["dtype"], o["device"], tuple(o["shape"]), o.get("origin", "")) for o in d["operands"]]
    return PrecisionFault(phase=d["phase"], module=d["module"], op=d["op"], operands=ops, culprit=d["culprit"],
                          cause=d["cause"], fix=d["fix"], kind=d["kind"], key=d["key"], error=d["error"],
                          where=d.get("where", ""))


_TYPED: dict[type, type] = {}


def typed_fault_class(original: type[BaseException]) -> type[PrecisionFault]:
    """A PrecisionFault subclass that is also `original`'s type, so `except NotImplementedError:` still works
    when the doctor raises at the failing op (used by DoctorCallback, where no `with` block wraps the fault)."""
    if original in _TYPED:
        return _TYPED[original]
    cls = PrecisionFault
    if issubclass(original, Exception) and not issubclass(PrecisionFault, original):
        try:
            cls = type(f"PrecisionFault[{original.__name__}]", (PrecisionFault, original), {})
        except TypeError:  # layout conflict with an exotic exception type: plain PrecisionFault
            cls = PrecisionFault
    _TYPED[original] = cls
    return cls
