"""The knowledge-base entry: a message regex (plus an optional context regex), its cause and its fix."""
from __future__ import annotations

import re
from dataclasses import dataclass

_I = re.IGNORECASE | re.DOTALL


@dataclass(frozen=True)
class Entry:
    key: str
    kind: str
    title: str
    match: re.Pattern
    cause: str
    fix: str
    context: re.Pattern | None = None
    unless: re.Pattern | None = None

    @property
    def line_bound(self) -> bool:
        """Whether a pattern depends on line breaks (so it must not read a text with its lines joined)."""
        return any(p is not None and ("\\n" in p.pattern or "(?m)" in p.pattern)
                   for p in (self.match, self.context, self.unless))

    def hits(self, text: str) -> bool:
        return (bool(self.match.search(text)) and (self.context is None or bool(self.context.search(text)))
                and (self.unless is None or not self.unless.search(text)))


def make(key, kind, title, match, cause, fix, context=None, unless=None) -> Entry:
    """An entry: `match` must hit the text, `context` (when given) too, and `unless` (when given) must not."""
    return Entry(key, kind, title, re.compile(match, _I), cause, fix, re.compile(context, _I) if context else None,
                 re.compile(unless, _I) if unless else None)
