"""The precision doctor: preflight (`amplora doctor`), `doctor run`, `watch()`, `explain`.

    import amplora.doctor as doctor
    with doctor.watch(model):        # a dtype/device fault -> doctor.PrecisionFault with module, op, cause, fix
        ...
    doctor.explain("expected mat1 and mat2 to have the same dtype")  # -> Explanation(cause, fix, ...)
    doctor.preflight()                                                 # -> dict (what `amplora doctor --json` prints)
"""
from amplora.doctor.explain import Explanation, explain
from amplora.doctor.fault import Operand, PrecisionFault
from amplora.doctor.watch import Watcher, watch


def preflight(*, use_cache: bool = True) -> dict:
    """Versions, devices, probed kernel table, ranking and pick, warnings, and what `auto` resolves to."""
    from amplora.doctor.preflight import collect

    return collect(use_cache=use_cache)


__all__ = ["Explanation", "Operand", "PrecisionFault", "Watcher", "explain", "preflight", "watch"]
