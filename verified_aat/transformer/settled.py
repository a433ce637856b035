"""The settled run's layer boundary and its guards (exact_engine's module docstring, :mod:`.unknown`)."""

from __future__ import annotations

from operator import itemgetter
from typing import Callable, Iterable, Sequence

from ..circuits.ir import Kind
from .exact_state import Vector
from .model import CircuitScore, Score
from .unknown import Form, _Symbolic, collapse, is_symbolic


class Undetermined(Exception):
    """A settled run reached a score or key that reads ⊥: it must run in full."""


def boundary(forget: Sequence[Sequence[tuple[int, int]]], layer: int,
             due: dict[int, list[int]]) -> Callable[[int, Vector], Vector]:
    """The layer boundary of a settled run after ``layer``: in position p's row every coordinate whose settle
    layer is later becomes its own atom, and any other form becomes ⊥ (:mod:`.unknown`).  The row is then no
    longer the activation's output, which the incremental engine assumes of every row it does not apply the
    layer to again: so p is ``due`` at the next settle layer, where the layer is applied to it whatever changed."""
    def at(p: int, row: Vector) -> Vector:
        pattern = forget[p]
        if pattern and pattern[-1][0] > layer:
            new = [collapse(v) for v in row]
            d = len(row)
            for s, c in pattern:
                if s > layer:
                    new[c] = Form.atom(p * d + c)
            due.setdefault(min(s for s, _ in pattern if s > layer), []).append(p)
            return tuple(new)
        if any(is_symbolic(v) for v in row):
            return tuple([collapse(v) for v in row])
        return row
    return at


def require_known(rows: list[Vector], cols: Iterable[int]) -> None:
    """Raise :class:`Undetermined` if some row holds a form or ⊥ in one of ``cols``."""
    for c in set(cols):
        if any(issubclass(t, _Symbolic) for t in set(map(type, map(itemgetter(c), rows)))):
            raise Undetermined


def score_cols(score: Score, d: int) -> tuple[int, ...]:
    """Every coordinate a score's evaluation touches (its compiled form also runs dead gates)."""
    if not isinstance(score, CircuitScore):
        return tuple({r for r, _, _ in score.entries()} | {c for _, c, _ in score.entries()})
    gates = score.circuit.gates
    touched = {a for g in gates for a in g.args} | set(score.circuit.outputs)
    return tuple({gates[k].index % d for k in touched if gates[k].kind is Kind.INPUT})  # type: ignore[operator]
