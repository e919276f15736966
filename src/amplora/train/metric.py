"""The score: exact match of the answer line, plus per-field accuracy for `key=value; key=value` answers.

The bundled task answers with one triage line (`kind=...; dtypes=...; phase=...; fix=...`): a prediction counts
as exact when its first line equals the reference line (surrounding whitespace ignored). For answers that are
not key=value lines (a user's own data), only the exact match is reported.
"""
from __future__ import annotations


def first_line(text: str) -> str:
    for line in text.strip().splitlines():
        if line.strip():
            return line.strip()
    return ""


def parse_fields(line: str) -> dict[str, str] | None:
    """`a=1; b=x,y` -> {"a": "1", "b": "x,y"}; None when the line is not of that form."""
    fields = {}
    for part in line.split(";"):
        key, sep, value = part.partition("=")
        if not sep or not key.strip():
            return None
        fields[key.strip()] = value.strip()
    return fields or None


def score(predictions: list[str], references: list[str]) -> dict:
    """{"n", "exact_match", "fields": {key: accuracy}, "field_accuracy"} (accuracies in [0, 1])."""
    if len(predictions) != len(references):
        raise ValueError(f"{len(predictions)} predictions for {len(references)} references")
    n = len(references)
    exact = sum(first_line(p) == first_line(r) for p, r in zip(predictions, references))
    ref_fields = [parse_fields(first_line(r)) for r in references]
    result = {"n": n, "exact_match": exact / n if n else 0.0, "fields": {}, "field_accuracy": None}
    if n and all(ref_fields):
        keys = list(dict.fromkeys(k for f in ref_fields for k in f))
        hits = dict.fromkeys(keys, 0)
        for pred, ref in zip(predictions, ref_fields):
            got = parse_fields(first_line(pred)) or {}
            for k in keys:
                hits[k] += k in ref and got.get(k) == ref[k]
        totals = {k: sum(k in f for f in ref_fields) for k in keys}
        result["fields"] = {k: hits[k] / totals[k] for k in keys}
        result["field_accuracy"] = sum(result["fields"].values()) / len(keys)
    return result


def summary(result: dict) -> str:
    """One line: `exact 12.0% | kind 80.0% dtypes 75.0% ...` (n examples)."""
    parts = [f"exact {100 * result['exact_match']:.1f}%"]
    if result["fields"]:
        parts.append(" ".join(f"{k} {100 * v:.1f}%" for k, v in result["fields"].items()))
    return " | ".join(parts) + f" (n={result['n']})"
