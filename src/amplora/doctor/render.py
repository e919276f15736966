"""Human output for the doctor (rich): preflight report, fault diagnosis, dtype-flow table, explanations."""
from __future__ import annotations

import re

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from amplora.doctor.explain import Explanation
from amplora.doctor.fault import PrecisionFault

_STATUS = {"ok": "[green]ok[/]", "missing": "[red]missing[/]"}


def _cell(status: str) -> str:
    return _STATUS.get(status, f"[yellow]{escape(status[:40])}[/]")


def preflight(info: dict, console: Console) -> None:
    v = info["versions"]
    console.print(f"[bold]amplora doctor[/] — preflight ({info['elapsed_s']:.1f} s)")
    console.print("versions: " + ", ".join(f"{k} {v[k]}" for k in ("python", "torch", "transformers", "bitsandbytes",
                                                                    "peft", "amplora") if v.get(k))
                  + f", CUDA {v['cuda'] or 'none (CPU build)'}")
    devices = Table(title="devices", title_justify="left")
    for col in ("device", "name", "memory", "compute cap.", "bf16", "fp16"):
        devices.add_column(col)
    for d in info["devices"]:
        bf16 = "native" if d["native_bf16"] else ("[yellow]emulated[/]" if d.get("bf16_emulated") else "[red]no[/]")
        fp16 = "native" if d["native_fp16"] else "[yellow]no native[/]"
        mem = f"{d['memory_gb']} GiB" if d.get("memory_gb") else "?"
        cap = d.get("capability") or f"{d.get('cores')} cores"
        devices.add_row(d["id"], escape(d["name"]), mem, cap, bf16, fp16)
    console.print(devices)
    for d in info["devices"]:
        ops = list(next(iter(d["kernels"].values())))
        table = Table(title=f"kernels on {d['id']} (probed{', cached' if d['kernels_cached'] else ''})",
                      title_justify="left")
        table.add_column("dtype")
        for op in ops:
            table.add_column(op)
        for dtype, row in d["kernels"].items():
            table.add_row(dtype, *(_cell(row[op]) for op in ops))
        console.print(table)
    console.print("CPU features: " + (", ".join(info["cpu_features"]) or "none of avx2/avx512/amx reported"))
    console.print("ranked devices: " + "; ".join(f"{i + 1}. {r['device']} ({escape(r['why'])})"
                                                  for i, r in enumerate(info["ranking"])))
    console.print(f"pick: [bold]{info['pick']['device']}[/] — {escape(info['pick']['why'])}")
    a = info["auto"]
    console.print(f"precision=auto -> [bold]{a['preset']}[/] — {escape(a['why'])}")
    console.print(f"  {escape(a['policy'])}")
    if info["warnings"]:
        console.print("[bold yellow]warnings[/]")
        for w in info["warnings"]:
            console.print(f"  [yellow]![/] {escape(w)}")
    else:
        console.print("[green]no warnings[/]")


def fault(f: PrecisionFault, console: Console) -> None:
    console.print(f"[bold red]amplora doctor: {f.title} in {escape(f.phase)}[/]")
    _finding_rows(f.rows(), console)


def nonfinite(f, console: Console) -> None:
    """A nonfinite.NonFinite finding: where inf/NaN first appeared."""
    console.print(f"[bold red]amplora doctor: non-finite values ({escape(f.value)}) first appeared in "
                  f"{escape(f.phase)}[/]")
    _finding_rows(f.rows(), console)


def note(text: str, console: Console) -> None:
    """A hazard the run showed without failing on it."""
    console.print(f"[bold yellow]amplora doctor: note:[/] {escape(text)}")


def _finding_rows(rows, console: Console) -> None:
    """A diagnosis's (label, text) rows as a two-column table, culprit and fix highlighted."""
    table = Table(show_header=False, box=None, padding=(0, 1))
    table.add_column(style="bold", no_wrap=True)
    table.add_column(overflow="fold")
    for label, text in rows:
        style = {"culprit": "[magenta]", "fix": "[green]"}.get(label, "")
        table.add_row(label, f"{style}{escape(text)}[/]" if style else escape(text))
    console.print(table)


def make_console(stderr: bool = False) -> Console:
    """A console that does not squeeze tables into 80 columns when output goes to a pipe or a file."""
    console = Console(stderr=stderr)
    if not console.is_terminal:
        console = Console(stderr=stderr, width=160)
    return console


def group_flow(rows: list[dict]) -> list[dict]:
    """Fold rows that differ only by layer index ('model.layers.3.mlp' ...) into one 'model.layers.*.mlp' row."""
    groups: dict[tuple, dict] = {}
    for r in rows:
        pattern = re.sub(r"\.\d+(?=\.|$)", ".*", str(r["module"]))
        key = (pattern, r["type"], r["inputs"], r["params"], r["outputs"], r["autocast"], bool(r["warnings"]))
        if r["warnings"]:
            key += (r["module"],)  # rows with warnings stay on their own, with their exact path
            pattern = r["module"]
        g = groups.get(key)
        if g is None:
            groups[key] = dict(r, module=pattern, count=1)
        else:
            g["count"] += 1
            g["calls"] += r["calls"]
    return list(groups.values())


def flow(rows: list[dict], console: Console) -> None:
    table = Table(title="dtype flow per module (--report)", title_justify="left")
    for col in ("module", "type", "calls", "inputs", "params", "outputs", "autocast"):
        table.add_column(col, overflow="fold")
    for r in group_flow(rows):
        style = "yellow" if r["warnings"] else None
        name = str(r["module"]) + (f" (x{r['count']})" if r["count"] > 1 else "")
        table.add_row(escape(name), r["type"], str(r["calls"]), r["inputs"], r["params"], r["outputs"],
                      r["autocast"], style=style)
    console.print(table)
    warns = [(r["module"], w) for r in rows for w in r["warnings"]]
    if warns:
        console.print(f"[bold yellow]{len(warns)} suspicious dtype mix(es)[/] (warnings, not errors):")
        for module, w in warns:
            console.print(f"  [yellow]![/] {escape(str(module))}: {escape(w)}")
    else:
        console.print("[green]no suspicious dtype mixes[/]")


def explanation(e: Explanation, console: Console) -> None:
    if not e.recognized:
        console.print("[bold yellow]unrecognized[/]" + (f": {escape(e.error)}" if e.error else ""))
    else:
        console.print(f"[bold]{escape(e.title)}[/]")
        console.print(f"[bold]cause[/]  {escape(e.cause)}")
    facts = [("dtypes", e.dtypes), ("ops", e.ops), ("devices", e.devices)]
    for label, values in facts:
        if values:
            console.print(f"[bold]{label}[/] {escape(', '.join(values))}")
    console.print(f"[bold green]fix[/]    {escape(e.fix)}" if e.recognized else escape(e.fix))
