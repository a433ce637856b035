"""The edited lines of a transformer spec: a line diff against the construction's own T_K.

Both sides are the text ``verified-aat compile`` writes (``json.dumps(..., indent=1,
sort_keys=True)``; every circuit line of the spec is one JSON line), so an edit made in a
compiled ``transformer.json`` shows up as exactly the lines that were changed, with the
user's own line numbers.  A file in another layout is re-indented first (and says so).
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass

from ..transformer.model import Transformer

CONTEXT = 2
"""Unchanged lines shown around each change."""
MAX_ROWS = 400
"""Rows shown at most (a wholesale rewrite is summarised, not printed)."""


@dataclass(frozen=True)
class DiffRow:
    """One line of the side-by-side diff; ``tag`` is ``equal``, ``replace``, ``delete``, ``insert`` or ``gap``."""

    tag: str
    old_number: int | None
    old: str
    new_number: int | None
    new: str


@dataclass(frozen=True)
class TransformerDiff:
    """The rows to show, the number of edited lines of the file, and whether it had to be re-indented."""

    file: str
    rows: tuple[DiffRow, ...]
    edited_lines: tuple[int, ...]  # line numbers (1-based) in the edited file
    reindented: bool
    truncated: bool


def compiled_text(transformer: Transformer) -> str:
    """``transformer.json`` as ``verified-aat compile`` writes it."""
    from ..transformer.spec import transformer_to_json

    return json.dumps(transformer_to_json(transformer), indent=1, sort_keys=True) + "\n"


def transformer_diff(edited_text: str, original: Transformer, file: str = "transformer.json") -> TransformerDiff:
    """The diff of ``edited_text`` (a spec file's text) against ``original`` (T_K) as ``compile`` writes it."""
    base = compiled_text(original).splitlines()
    new = edited_text.splitlines()
    reindented = False
    try:
        normal = json.dumps(json.loads(edited_text), indent=1, sort_keys=True).splitlines()
    except ValueError:
        normal = new
    if normal != new:
        new, reindented = normal, True
    rows: list[DiffRow] = []
    edited: list[int] = []
    matcher = difflib.SequenceMatcher(None, base, new, autojunk=False)
    for group in matcher.get_grouped_opcodes(CONTEXT):
        if rows:
            rows.append(DiffRow("gap", None, "…", None, "…"))
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                rows += [DiffRow("equal", i + 1, base[i], j + 1, new[j]) for i, j in zip(range(i1, i2), range(j1, j2))]
                continue
            edited += range(j1 + 1, j2 + 1)
            for k in range(max(i2 - i1, j2 - j1)):
                i, j = i1 + k, j1 + k
                rows.append(DiffRow(tag, i + 1 if i < i2 else None, base[i] if i < i2 else "",
                                    j + 1 if j < j2 else None, new[j] if j < j2 else ""))
    return TransformerDiff(file, tuple(rows[:MAX_ROWS]), tuple(edited), reindented, len(rows) > MAX_ROWS)
