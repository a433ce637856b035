"""The settled run's layer boundaries and its guards (exact_engine's module docstring, :mod:`.unknown`)."""

from __future__ import annotations

from operator import itemgetter
from typing import Iterable, Sequence

from ..circuits.ir import Kind
from . import activation_kernel
from .activation_kernel import ActivationKernel
from .exact_state import Vector
from .model import CircuitScore, Score
from .unknown import UNKNOWN, Form, _Symbolic, _Unknown

#: skip the positions where a layer provably leaves the row as it is (:meth:`Boundary.apply`); off: the
#: activation is applied at every candidate, as before (the tests compare the two)
SKIP_QUIET = True


_SYMBOLIC = frozenset((Form, _Unknown))


class Undetermined(Exception):
    """A settled run reached a score or key that reads ⊥: it must run in full."""


class Settling:
    """One settled run's bookkeeping: ``forget`` (per position, its (settle layer, coordinate) pairs, sorted), the
    positions ``due`` at a layer, and per position ``normal_until[p]``: ``rows[p]`` is its own image under every
    layer boundary before that layer (it was made by a boundary that forgot a coordinate, and no settle layer of
    p has passed since); 0 for the input rows."""

    def __init__(self, forget: Sequence[Sequence[tuple[int, int]]], d: int):
        self.forget, self.d = forget, d
        self.due: dict[int, list[int]] = {}
        self.normal_until = [0] * len(forget)
        self._atoms: dict[int, Form] = {}  # one object per atom: rows compare by identity first
        self._quiet: dict[frozenset[int], list[int]] = {}

    def atom(self, name: int) -> Form:
        found = self._atoms.get(name)
        if found is None:
            found = self._atoms[name] = Form.atom(name)
        return found

    def quiet(self, written: frozenset[int]) -> list[int]:
        """Per position, the first layer at which some coordinate in ``written`` is no longer forgotten (before it,
        a boundary replaces every coordinate in ``written`` by its atom)."""
        until = self._quiet.get(written)
        if until is None:
            of_pattern: dict[int, int] = {}
            until = []
            for pattern in self.forget:
                u = of_pattern.get(id(pattern))
                if u is None:
                    last = {c: s for s, c in pattern}  # sorted: the last settle layer of each coordinate
                    u = of_pattern[id(pattern)] = min((last.get(c, 0) for c in written), default=1 << 62)
                until.append(u)
            self._quiet[written] = until
        return until

    def at(self, layer: int) -> "Boundary":
        return Boundary(self, layer)


class Boundary:
    """The layer boundary of a settled run after ``layer``: in position p's row every coordinate whose settle
    layer is later becomes its own atom, and any other form becomes ⊥ (:mod:`.unknown`).  The row is then no
    longer the activation's output, which the incremental engine assumes of every row it does not apply the
    layer to again: so p is ``due`` at the next settle layer, where the layer is applied to it whatever changed."""

    __slots__ = ("settling", "layer", "_of_pattern")

    def __init__(self, settling: Settling, layer: int):
        self.settling, self.layer = settling, layer
        #: per pattern (by id): the coordinates it forgets after this layer and its next settle layer (0: none)
        self._of_pattern: dict[int, tuple[frozenset[int], int]] = {}

    def _forgets(self, pattern: Sequence[tuple[int, int]]) -> tuple[frozenset[int], int]:
        found = self._of_pattern.get(id(pattern))
        if found is None:
            layer = self.layer
            later = [(s, c) for s, c in pattern if s > layer]
            found = self._of_pattern[id(pattern)] = (frozenset(c for _, c in later), min(s for s, _ in later) if later else 0)
        return found

    def __call__(self, p: int, row: Vector) -> Vector:
        settling = self.settling
        coords, at = self._forgets(settling.forget[p])  # at 0: no coordinate forgotten (coords empty)
        settling.normal_until[p] = at
        if not at and _SYMBOLIC.isdisjoint(map(type, row)):
            return row
        new = [UNKNOWN if isinstance(v, _Symbolic) else v for v in row]  # unknown.collapse, inlined (hot loop)
        for c in coords:
            new[c] = settling.atom(p * len(row) + c)
        if at:
            settling.due.setdefault(at, []).append(p)
        return tuple(new)

    def forgotten(self, p: int) -> frozenset[int]:
        """The coordinates of position p that this boundary replaces by atoms."""
        return self._forgets(self.settling.forget[p])[0]

    # long because: one pass over the candidates, the skip test, the activation and the boundary inline (hot loop)
    def apply(self, act: ActivationKernel, candidates: Iterable[int], rows: list[Vector],
              tables: list[tuple[list[Vector], list[int]]]) -> tuple[list[int], int]:
        """The layer at ``candidates`` (``tables``: each head's pooled vector per set and set per position), each
        new row through the boundary, in place; the positions whose row changed and how many were applied.

        A candidate p is skipped when the layer provably leaves its row as it is: every coordinate the activation
        writes other than by copying it (``act.written``) is replaced by its atom at this boundary (before
        ``quiet[p]``), and the row is already its own image under this boundary (before ``normal_until[p]``);
        what the activation computes is then overwritten, the copies are the row's own values.  (The engine would
        find the same row: if the activation's outputs equal the row it keeps it, else the boundary maps them to
        the row.)"""
        layer, settling = self.layer, self.settling
        quiet, normal = settling.quiet(act.written), settling.normal_until
        skip, coarse = SKIP_QUIET, activation_kernel.COARSE
        apply, step, forgotten = act.apply_settled, act.settled_step, self.forgotten
        one = tables[0] if len(tables) == 1 else None
        out: list[int] = []
        count = 0
        for p in candidates:
            loose = quiet[p] > layer  # every coordinate the activation writes is forgotten at p
            if loose and skip and normal[p] > layer:
                continue
            count += 1
            row = rows[p]
            if one is not None:
                pooled: tuple[Vector, ...] = (one[0][one[1][p]],)
            else:
                pooled = tuple([per_set[set_of[p]] for per_set, set_of in tables])
            normal_now = normal[p] > layer
            new = step(row, *pooled, (2 if loose and normal_now else 1) if coarse else 0)
            if new is None:
                new = apply(row, pooled, forgotten, p, normal_now, loose)
            if new is not row and (new := self(p, new)) != row:
                rows[p] = new
                out.append(p)
        return out, count


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
