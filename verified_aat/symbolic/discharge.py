"""Discharging lemmas: exact normal forms first, Z3 for the rest.

A lemma is SMT-LIB text whose single assertion is ``(not φ)``; it is proved
when φ holds for all reals.  The normal-form path evaluates the text to
sparse polynomials with sign atoms (:mod:`.polynomial`), lazily, so concrete
structure switches branches off before they are expanded; equal normal
forms on both sides mean proved.  Otherwise Z3 runs with a time limit: unsat is
proved, sat is a *failed* obligation (a candidate for refutation, never a
counterexample by itself), anything else is unknown.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from fractions import Fraction

from .polynomial import LazyEvaluator, TooLarge, add, scale

from ..status import Status

PROVED, UNKNOWN = Status.PROVED, Status.UNKNOWN  # the one vocabulary (status.py)
FAILED = "failed"  # a lemma's own verdict: it is false (a circuit's status is then refuted or unknown)


@dataclass(frozen=True)
class LemmaVerdict:
    """One lemma's answer: proved, failed (false) or unknown, by which procedure, and a model if false."""

    status: str
    solver: str
    seconds: float
    model: dict[str, str] | None = None
    reason: str = ""


def _tokens(text: str) -> list[str]:
    out: list[str] = []
    for line in text.splitlines():
        line = line.split(";", 1)[0]
        out.extend(line.replace("(", " ( ").replace(")", " ) ").split())
    return out


def _parse(tokens: list[str]) -> list[Any]:
    stack: list[list[Any]] = [[]]
    for tok in tokens:
        if tok == "(":
            stack.append([])
        elif tok == ")":
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(tok)
    assert len(stack) == 1, "unbalanced parentheses"
    return stack[0]


def _equations(text: str) -> tuple[LazyEvaluator, list[tuple[Any, Any]]] | None:
    """The lemma's equations φ = (lhs, rhs) pairs from ``(assert (not φ))``, or None."""
    functions: dict[str, tuple[list[str], Any]] = {}
    variables: dict[str, int] = {}
    goal = None
    for form in _parse(_tokens(text)):
        if form[0] == "define-fun" and form[1] != "sgn":
            if form[1] in functions or form[1] in variables:
                return None
            functions[form[1]] = ([p[0] for p in form[2]], form[4])
        elif form[0] == "declare-const":
            if form[1] in variables or form[1] in functions:
                return None  # a name declared twice: not a lemma this normal form may judge
            variables[form[1]] = len(variables)
        elif form[0] == "assert":
            if goal is not None or form[1][0] != "not":
                return None
            goal = form[1][1]
    if goal is None:
        return None
    parts = goal[1:] if goal[0] == "and" else [goal]
    if any(p[0] != "=" for p in parts):
        return None
    return LazyEvaluator(functions, variables), [(p[1], p[2]) for p in parts]


def normal_form(text: str) -> bool:
    """True when both sides of every equation have the same normal form (an exact proof)."""
    try:
        parsed = _equations(text)
        if parsed is None:
            return False
        evaluator, equations = parsed
        return all(not add(evaluator.value(lhs, {}), scale(evaluator.value(rhs, {}), Fraction(-1)))
                   for lhs, rhs in equations)
    except (ValueError, TypeError, ZeroDivisionError, RecursionError, TooLarge):
        return False


def run_z3(text: str, timeout_ms: int) -> LemmaVerdict:
    import z3

    from ..limits import Z3_MEMORY_MB

    start = time.perf_counter()
    z3.set_param("memory_max_size", Z3_MEMORY_MB)  # past it: unknown, never a machine's memory
    solver = z3.Solver()
    solver.set("timeout", timeout_ms)
    try:
        solver.from_string(text)
        result = solver.check()
    except z3.Z3Exception as exc:  # pragma: no cover - malformed lemma
        return LemmaVerdict(UNKNOWN, "z3", time.perf_counter() - start, reason=f"z3 error: {exc}")
    seconds = time.perf_counter() - start
    if result == z3.unsat:
        return LemmaVerdict(PROVED, "z3", seconds)
    if result == z3.sat:
        model = solver.model()
        values = {str(d.name()): str(model[d]) for d in model.decls()}
        return LemmaVerdict(FAILED, "z3", seconds, values)
    return LemmaVerdict(UNKNOWN, "z3", seconds, reason=str(solver.reason_unknown()))


def discharge(text: str, timeout_ms: int = 10_000) -> LemmaVerdict:
    """Prove one lemma: normal form, else Z3."""
    start = time.perf_counter()
    if normal_form(text):
        return LemmaVerdict(PROVED, "normal-form", time.perf_counter() - start)
    return run_z3(text, timeout_ms)


def _discharge_job(args: tuple[str, int]) -> LemmaVerdict:
    return discharge(*args)


def discharge_all(texts: list[str], timeout_ms: int, jobs: int = 1, progress: Any = None) -> list[LemmaVerdict]:
    """Discharge many lemmas, across processes when there are many of them."""
    if jobs <= 1 or len(texts) < 8:
        verdicts = []
        for text in texts:
            verdicts.append(discharge(text, timeout_ms))
            if progress:
                progress()
        return verdicts
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=jobs) as pool:
        verdicts = []
        for verdict in pool.map(_discharge_job, [(t, timeout_ms) for t in texts], chunksize=4):
            verdicts.append(verdict)
            if progress:
                progress()
        return verdicts
