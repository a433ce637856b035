"""What a check found, typed (issue 21): a :class:`Problem` is a fixed message whose ``{key}`` fields name the
offending values, kept in full in its ``data``; a :class:`Rejection` adds the check, its rule and its step of
docs/soundness.md.  Only :func:`render`, the one-line display, shortens the values.

Reject-only (as ``defence.py``): this code runs only for a check that fails or a case left *not checked*
(:func:`resource_limit`, :func:`no_link`), so a bug here can garble or lose a rejection's wording, or tell a
resource limit (*not checked*) from a rejection wrongly, but never make a certificate accepted
(``tests/test_trusted_base.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Mapping

CANDIDATES = ("the netlist section is a link by candidates (certify --cap N, or a certificate written before stop 51), "
              "which the kernel reads only when asked, its trusted lines being past issue 19's 3,000 (README): check it "
              "with --candidate-link (candidate_link=True), or certify again without --cap for a link by binary steps")  # N (wording only)
SHOWN = 5  # rejections a report's reasons show one by one (display only: ``rejections`` holds them all)


def render(message: str, data: Mapping[str, object]) -> str:
    """``message`` with each field ``{key}`` (``{key!r}``: its repr) showing ``data[key]`` in at most 60 characters
    (``{key:16}``: 16) — the display's shortening: a check puts the values in ``data`` in full."""
    def shown(m: re.Match[str]) -> str:
        text, width = (repr if m[2] else str)(data[m[1]]), int(m[3] or 60)
        if not text.isprintable():  # a forged certificate's id or name: its controls escaped, never printed raw
            text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
        return text if len(text) <= width else text[:width] + "…"
    return re.sub(r"\{(\w+)(!r)?(?::(\d+))?\}", lambda m: shown(m) if m[1] in data else m[0], message)


@dataclass(frozen=True)
class Problem:
    """What a check found: a fixed ``message`` whose ``{key}`` fields name the offending values, in full in ``data``."""
    message: str
    data: Mapping[str, object] = field(default_factory=dict)

    @property
    def detail(self) -> str:  # one line, the values shortened for display
        return render(self.message, self.data)


@dataclass(frozen=True, kw_only=True)
class Rejection(Problem):
    """A failed check's problem, with the check, the rule it enforces and its step of docs/soundness.md."""
    check: str
    step: str
    rule: str

    def __str__(self) -> str:
        return f"[{self.check}] {self.rule}: {self.detail} (docs/soundness.md {self.step})"


def resource_limit(exc: Exception) -> str | None:
    """What stopped a check when it is a resource limit (memory, stack, or Python's 4,300 digits for writing an int
    into a lemma's text), else None: *not checked* or a rejection (``rules.run_checks``), never an acceptance."""
    limit = {MemoryError: "out of memory", RecursionError: "too deeply nested for the interpreter's stack"}.get(type(exc))
    if isinstance(exc, ValueError) and "integer string conversion" in str(exc):
        limit = "a number of more than 4,300 digits to write"
    return None if limit is None else f"{limit} (a resource limit was reached)"


def shown_reasons(report: Any) -> list[str]:
    """A report's reasons as ``Report.reasons`` shows them: its first :data:`SHOWN` rejections, then what was not
    checked (display only: the verdict is the report's ``outcome``)."""
    more = len(report.rejections) - SHOWN
    return ([str(r) for r in report.rejections[:SHOWN]] + [f"… and {more} more rejection{'s' * (more > 1)}"]
            * (more > 0) + [f"not checked: {u}" for u in report.unchecked])


def trust_line(report: Any) -> str:
    """What an accepted verdict rests on, as ``Report.trust`` shows it: the kernel's normal form, or which lemmas a
    solver alone decided (display only: the verdict is the report's ``outcome``)."""
    lemmas, kernel_decided, solver_only = report.lemmas, report.kernel_decided, report.solver_only
    if not solver_only:
        return (f"{'all ' * (lemmas > 1)}{lemmas} lemma{'s' * (lemmas != 1)} decided by the kernel itself (normal "
                "form, checked proof object or a COPY's structure): no solver on the path to ACCEPTED")
    shown = "; ".join(solver_only[:SHOWN]) + (f"; … {len(solver_only) - SHOWN} more" if len(solver_only) > SHOWN else "")
    return (f"{kernel_decided} of {lemmas} lemma{'s' * (lemmas != 1)} decided by the kernel itself (normal form, "
            f"checked proof object); {len(solver_only)} {'more ' if kernel_decided == lemmas else ''}rest"
            f"{'s' * (len(solver_only) == 1)} on a solver's unsat alone: {shown}")


def no_link(ctx: Any) -> str:
    """Why a given file (circuit or netlist) that binarizes to the certified circuit is *not checked* (wording only:
    the verdict is *not checked* whatever this says)."""
    if ctx.original is None:
        return ("this certificate is about the binarized circuit: the given file binarizes to it, but the "
                "certificate does not record the circuit before binarization (certify it again with --binarize)")
    return ("this certificate is about the binarized circuit and the circuit before binarization it records "
            f"(sha256 {ctx.hashes['original']}); the given file binarizes to the same circuit but is not that one")
