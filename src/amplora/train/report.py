"""OUTPUT/report.html: one self-contained page (curves as an embedded PNG) describing a finished run."""
from __future__ import annotations

import base64
import html
import io
import json

from amplora import atomic
from amplora.train.memory_meter import size
from amplora.train.metric import first_line


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")  # no display, no GUI toolkit: a file is all we want
    import matplotlib.pyplot as plt

    return plt


def _png(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    _pyplot().close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _curves_png(history: list[dict], before: dict | None, after: dict | None) -> str:
    plt = _pyplot()
    fig, (ax_loss, ax_score) = plt.subplots(1, 2, figsize=(11, 3.8))
    train = [(h["step"], h["loss"]) for h in history if h.get("kind") == "train"]
    evals = [(h["step"], h["eval_loss"]) for h in history
             if h.get("kind") in ("before", "eval", "after") and h.get("eval_loss") is not None]
    if train:
        ax_loss.plot(*zip(*train), label="train loss", color="#1f77b4")
    if evals:
        ax_loss.plot(*zip(*evals), "o-", label="held-out loss", color="#d62728")
    ax_loss.set_xlabel("optimizer step")
    ax_loss.set_ylabel("cross-entropy (answer tokens)")
    ax_loss.set_title("loss")
    ax_loss.grid(alpha=0.3)
    ax_loss.legend()
    if before and after:
        names = ["exact"] + list(after.get("fields", {}))
        b = [before["exact_match"]] + [before["fields"].get(k, 0.0) for k in names[1:]]
        a = [after["exact_match"]] + [after["fields"].get(k, 0.0) for k in names[1:]]
        xs = range(len(names))
        bars_b = ax_score.bar([x - 0.2 for x in xs], [100 * v for v in b], width=0.4, label="before",
                              color="#999999")
        bars_a = ax_score.bar([x + 0.2 for x in xs], [100 * v for v in a], width=0.4, label="after",
                              color="#2ca02c")
        for bars in (bars_b, bars_a):
            ax_score.bar_label(bars, fmt="%.0f", fontsize=8)
        ax_score.set_xticks(list(xs), names)
        ax_score.set_ylim(0, 118)
        ax_score.legend(loc="upper center", ncol=2, frameon=False)
    ax_score.set_ylabel("held-out accuracy (%)")
    ax_score.set_title("held-out score before / after training")
    fig.tight_layout()
    return _png(fig)


def _memory_png(history: list[dict], memory: dict) -> str | None:
    """Peak (per logging window) and current memory at each logged step; under torchrun one more line per rank."""
    train = [h for h in history if h.get("kind") == "train" and "mem_peak_bytes" in h]
    if not train:
        return None
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(11, 3.2))
    gib = 2**30

    def curve(key, index=None):  # (steps, GiB) of the records holding it: a resume may change the rank count
        held = [h for h in train if key in h and (index is None or index < len(h[key]))]
        return [h["step"] for h in held], [(h[key] if index is None else h[key][index]) / gib for h in held]

    ranks = max((len(h.get("mem_peak_bytes_by_rank", ())) for h in train), default=0)
    ax.plot(*curve("mem_peak_bytes"), linewidth=2,
            label="peak since the previous record" + (" (max over ranks)" if ranks else ""))
    for rank in range(ranks if ranks > 1 else 0):
        ax.plot(*curve("mem_peak_bytes_by_rank", rank), linewidth=0.8, label=f"peak, rank {rank}")
    ax.plot(*curve("mem_current_bytes"), "--", label="current (max over ranks)" if ranks else "current")
    if any("mem_reserved_bytes" in h for h in train):
        ax.plot(*curve("mem_reserved_bytes"), ":", label="reserved (caching allocator)")
    est = memory.get("estimate")
    if est:
        ax.axhline(est["tensor_peak_bytes"] / gib, color="#999999", linewidth=1, label="estimated tensor peak")
    ax.set_xlabel("optimizer step")
    ax.set_ylabel("GiB")
    ax.set_title("memory: " + ("CUDA allocated" if memory.get("device") == "cuda" else "process RSS"))
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return _png(fig)


def _memory_rows(memory: dict) -> list[tuple]:
    """The peaks in words. The estimate is the planner's tensor peak of one training step; on CPU the measurement
    is the whole process's resident memory, so the two differ by Python, the libraries and allocator slack."""
    rows = [("measured", memory["measured"]), ("peak of the run", size(memory["peak_bytes"])),
            ("peak during training steps", size(memory.get("train_peak_bytes"))),
            ("peak before scoring (imports, model loading)", size(memory.get("startup_peak_bytes")))]
    if "peak_bytes_by_rank" in memory:
        rows.append(("peak per rank", ", ".join(f"rank {i}: {size(v)}"
                                                for i, v in enumerate(memory["peak_bytes_by_rank"]))))
    if "reserved_peak_bytes" in memory:
        rows.append(("peak reserved (rank 0)" if "peak_bytes_by_rank" in memory else "peak reserved",
                     size(memory["reserved_peak_bytes"])))
    est = memory.get("estimate")
    if est:
        what = "allocated" if memory["device"] == "cuda" else "RSS, the whole process"
        rows.append(("estimate vs measured", f"estimated {size(est['tensor_peak_bytes'])} (planner's tensor peak "
                     f"of a step with every row max_length long), measured peak {size(memory.get('train_peak_bytes'))}"
                     f" ({what})"))
        if memory["device"] == "cuda":
            rows.append(("planned (with allocator allowance)", size(est["planned_bytes"])))
    return rows


def _table(rows: list[tuple], header: tuple | None = None) -> str:
    e = html.escape
    head = "<tr>" + "".join(f"<th>{e(str(h))}</th>" for h in header) + "</tr>" if header else ""
    body = "".join("<tr>" + "".join(f"<td>{e(str(c))}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table>{head}{body}</table>"


def _pct(v) -> str:
    return "-" if v is None else f"{100 * v:.1f}%"


def _score_rows(before: dict, after: dict) -> list[tuple]:
    rows = [("exact match", _pct(before["exact_match"]), _pct(after["exact_match"]))]
    rows += [(f"field: {k}", _pct(before["fields"].get(k)), _pct(v)) for k, v in after.get("fields", {}).items()]
    return rows


def render(summary: dict) -> str:
    """The HTML text for a run summary (see run.py for its keys)."""
    e = html.escape
    before, after = summary.get("before"), summary.get("after")
    png = _curves_png(summary.get("history", []), before, after)
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'><title>amplora run report</title><style>",
        "body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;color:#222}"
        "table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:3px 8px;"
        "vertical-align:top;text-align:left}pre{margin:0;white-space:pre-wrap;font-size:12px}"
        ".ok{color:#2ca02c}.bad{color:#d62728}",
        "</style></head><body>",
        f"<h1>amplora train: {e(summary['model'])}</h1>",
        f"<p>{e(summary.get('status', ''))}</p>",
    ]
    if before and after:
        parts.append(f"<h2>Held-out score: {_pct(before['exact_match'])} &rarr; {_pct(after['exact_match'])} "
                     f"exact match</h2>")
        parts.append(_table(_score_rows(before, after), ("metric", "before", "after")))
    parts.append(f"<img alt='loss and score curves' src='data:image/png;base64,{png}'>")
    memory = summary.get("memory")
    if memory:
        peak = f": peak {size(memory['peak_bytes'])}" if memory.get("peak_bytes") else ""
        parts.append(f"<h2>Memory{peak}</h2>" + _table(_memory_rows(memory)))
        mem_png = _memory_png(summary.get("history", []), memory)
        if mem_png:
            parts.append(f"<img alt='memory curve' src='data:image/png;base64,{mem_png}'>")
    parts.append("<h2>Run</h2>" + _table([(k, v) for k, v in summary.get("facts", {}).items()]))
    policy = summary.get("policy", {})
    parts.append("<h2>Precision policy</h2>" + _table([(k, v) for k, v in policy.items()]))
    parts.append("<h2>Data</h2>" + _table([(k, v) for k, v in summary.get("data", {}).items()]))
    if before and after:
        rows = []
        for i, ex in enumerate(summary.get("examples", [])):
            ok = first_line(after["predictions"][i]) == first_line(ex["reference"])
            rows.append(f"<tr><td><pre>{e(ex['prompt'])}</pre></td><td><pre>{e(ex['reference'])}</pre></td>"
                        f"<td><pre>{e(before['predictions'][i])}</pre></td>"
                        f"<td class='{'ok' if ok else 'bad'}'><pre>{e(after['predictions'][i])}</pre></td></tr>")
        parts.append("<h2>Held-out samples</h2><table><tr><th>prompt</th><th>reference</th><th>before</th>"
                     "<th>after</th></tr>" + "".join(rows) + "</table>")
    samples = summary.get("samples", [])
    if samples:
        parts.append("<h2>Generations during training (same model object, no autocast in the loop)</h2>")
        parts.append(_table([(s["step"], s["prompt"], s["output"]) for s in samples], ("step", "prompt", "output")))
    parts.append("<h2>Resolved config</h2><pre>" + e(json.dumps(summary.get("config", {}), indent=2)) + "</pre>")
    parts.append("</body></html>")
    return "\n".join(parts)


def write(path, summary: dict) -> None:
    atomic.write_text(path, render(summary))
