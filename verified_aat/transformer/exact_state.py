"""The exact engine's per-score and per-layer state: prepared scores, argmax sets, pending
changes, incremental pooling (see :mod:`.exact_engine` for how a run uses them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import compress, islice, repeat
from operator import is_, is_not
from fractions import Fraction
from typing import Any, Callable, Sequence

from ..circuits.evaluate import compile_circuit
from ..circuits.ir import Circuit
from .activation_kernel import ActivationKernel
from .exact_kernels import BilinearKernel, CircuitKernel, normal, ratio
from .key_join import KeyHint
from .model import CircuitScore, Pooling, Score
from .unknown import UNKNOWN, shift

Number = int | Fraction
Vector = tuple[Number, ...]


def read_inputs(circuit: Circuit) -> set[int]:
    """Indices of the inputs that have a path to some output."""
    live = [False] * len(circuit.gates)
    for out in circuit.outputs:
        live[out] = True
    used: set[int] = set()
    for index in range(len(circuit.gates) - 1, -1, -1):
        if live[index]:
            gate = circuit.gates[index]
            if gate.index is not None:
                used.add(gate.index)
            for arg in gate.args:
                live[arg] = True
    return used



@dataclass
class _ScoreFn:
    """A score function prepared for the engine: which columns it reads, how to evaluate it."""

    i_cols: tuple[int, ...]
    j_cols: tuple[int, ...]
    pair: Callable[[Vector, Vector], Number]
    row: Callable[[Vector], Callable[[Vector], Number]] | None = None
    kernel: CircuitKernel | BilinearKernel | None = None


def _prepare_score(score: Score, d: int) -> _ScoreFn:
    if isinstance(score, CircuitScore):
        used = read_inputs(score.circuit)
        fn = compile_circuit(score.circuit)
        i_cols = tuple(c for c in range(d) if c in used)
        j_cols = tuple(c for c in range(d) if c + d in used)
        return _ScoreFn(i_cols, j_cols, lambda xi, xj: fn(*xi, *xj)[0],
                        kernel=CircuitKernel(score.circuit, i_cols, j_cols, d))
    entries = score.entries()
    i_cols = tuple(sorted({r for r, _, _ in entries}))
    j_cols = tuple(sorted({c for _, c, _ in entries}))

    def row(xi: Vector) -> Callable[[Vector], Number]:
        sums = [(c, sum((q * xi[r] for r, cc, q in entries if cc == c), Fraction(0))) for c in j_cols]
        weights = [(c, normal(w)) for c, w in sums if w]
        return lambda xj: sum(w * xj[c] for c, w in weights)

    return _ScoreFn(i_cols, j_cols, lambda xi, xj: row(xi)(xj), row, BilinearKernel(entries, i_cols, j_cols))


# -- argmax sets -------------------------------------------------------------------

class _Sets:
    """The argmax sets of one score on one sequence.

    ``set_of[p]`` numbers position p's set among ``sets`` (distinct, sorted positions).
    Reverse maps are built on first use: the positions holding each set, and the sets
    containing each position (-1, one set number, or a list of them).
    """

    __slots__ = ("set_of", "sets", "method", "_holders", "_containing", "_per_position")

    def __init__(self, set_of: list[int], sets: Sequence[Sequence[int]], method: str):
        self.set_of = set_of
        self.sets = sets
        self.method = method
        self._holders: list[list[int]] | None = None
        self._containing: list[Any] | None = None
        self._per_position: tuple[tuple[int, ...], ...] | None = None

    def holders(self) -> list[list[int]]:
        if self._holders is None:
            holders: list[list[int]] = [[] for _ in self.sets]
            for p, k in enumerate(self.set_of):
                holders[k].append(p)
            self._holders = holders
        return self._holders

    def containing(self) -> list[Any]:
        if self._containing is None:
            out: list[Any] = [-1] * len(self.set_of)
            for k, members in enumerate(self.sets):
                for p in members:
                    now = out[p]
                    if now == -1:
                        out[p] = k
                    elif type(now) is int:
                        out[p] = [now, k]
                    else:
                        now.append(k)
            self._containing = out
        return self._containing

    def per_position(self) -> tuple[tuple[int, ...], ...]:
        if self._per_position is None:
            as_tuples = [tuple(s) for s in self.sets]
            self._per_position = tuple(as_tuples[k] for k in self.set_of)
        return self._per_position


def _group(rows: list[Vector], cols: tuple[int, ...]) -> tuple[list[int], list[list[int]]]:
    """Group positions by their values in ``cols``: group of each position, positions of each group."""
    index: dict[tuple[Number, ...], int] = {}
    group_of: list[int] = []
    groups: list[list[int]] = []
    for position, row in enumerate(rows):
        key = tuple(row[c] for c in cols)
        g = index.get(key)
        if g is None:
            g = index[key] = len(groups)
            groups.append([])
        groups[g].append(position)
        group_of.append(g)
    return group_of, groups


def _argmax_python(fn: _ScoreFn, rows: list[Vector], i_groups: list[list[int]],
                   j_reps: list[Vector]) -> list[tuple[int, ...]]:
    """Per i-group, the j-groups of maximal score, with Python ints/Fractions."""
    best: list[tuple[int, ...]] = []
    for members in i_groups:
        xi = rows[members[0]]
        if fn.row is not None:
            score_row = fn.row(xi)
            scores = [score_row(xj) for xj in j_reps]
        else:
            pair = fn.pair
            scores = [pair(xi, xj) for xj in j_reps]
        top = max(scores)
        best.append(tuple(g for g, s in enumerate(scores) if s == top))
    return best


@dataclass
class _Pending:
    """Positions whose row changed since a consumer last looked; ``None``: treat all as changed."""

    changed: set[int] | None = None

    def note(self, positions: list[int], limit: int) -> None:
        if self.changed is not None and positions:
            self.changed.update(positions)
            if len(self.changed) > limit:
                self.changed = None

    def take(self) -> set[int] | None:
        changed, self.changed = self.changed, set()
        return changed


@dataclass
class _ScoreState:
    """One score function: how to evaluate it, a proved decomposition if any, its current argmax sets."""

    fn: _ScoreFn
    cols: tuple[int, ...]
    pending: _Pending
    hint: KeyHint | None = None
    heads_asked: set[str] = field(default_factory=set)
    sets: _Sets | None = None
    basis: list[Vector] | None = None  # the rows ``sets`` were computed (or last confirmed) on
    confirmed: int = -1  # the run (ExactRunner._runs) in which ``sets`` were last computed or confirmed on all rows


class _HeadPool:
    """Pooled vectors of one head of one (activation, heads) pair, per distinct argmax set."""

    __slots__ = ("sets", "pooling", "cols", "d", "per_set", "sums")

    def __init__(self, sets: _Sets, pooling: Pooling, cols: list[int], d: int, rows: list[Vector]):
        self.sets, self.pooling, self.cols, self.d = sets, pooling, cols, d
        self.sums: dict[int, list[Number]] = {}
        per_set: list[Vector] = []
        if pooling is Pooling.LEFTMOST:
            per_set = [rows[members[0]] for members in sets.sets]
        elif pooling is Pooling.RIGHTMOST:
            per_set = [rows[members[-1]] for members in sets.sets]
        else:
            for k, members in enumerate(sets.sets):
                if len(members) == 1:
                    per_set.append(rows[members[0]])
                    continue
                sums = self.sums[k] = _column_sums(rows, members, cols)
                per_set.append(self._mean(sums, len(members)))
        self.per_set = per_set

    def _mean(self, sums: list[Number], size: int) -> Vector:
        mean: list[Number | None] = [None] * self.d
        for c, total in zip(self.cols, sums):
            mean[c] = ratio(total, size)
        return tuple(mean)  # type: ignore[arg-type]

    # long because: the hot loop of incremental pooling, kept in one function (no call per changed position)
    def update(self, changed: set[int], rows: list[Vector], seen: list[Vector]) -> list[int]:
        """Pool again the sets with a member in ``changed`` (``seen``: rows at the last pooling);
        the numbers of the sets whose pooled vector changed."""
        containing = self.sets.containing()
        sets, per_set, all_sums = self.sets.sets, self.per_set, self.sums
        cols = list(enumerate(self.cols))
        touched: dict[int, int] = {}  # the sets whose sums changed: the first member that changed them
        summed_again: set[int] = set()  # sets summed from the current rows: no member's change is added again
        compare = summed_again.copy()  # and the sets whose mean may be the old one (see the end)
        average = self.pooling is Pooling.AVERAGE
        leftmost = self.pooling is Pooling.LEFTMOST
        out: list[int] = []
        for p in changed:
            old, new = seen[p], rows[p]
            if old is new:
                continue
            ks = containing[p]
            if ks == -1:
                continue
            for k in ((ks,) if type(ks) is int else ks):
                members = sets[k]
                if average and len(members) > 1:
                    if k in summed_again:
                        continue
                    sums = all_sums[k]
                    for i, c in cols:
                        a, b = old[c], new[c]
                        if a is not b and a != b:
                            if a is UNKNOWN or b is UNKNOWN:  # ⊥ cannot be taken out of a sum
                                sums[:] = _column_sums(rows, members, self.cols)
                                summed_again.add(k)
                                touched[k] = p
                                break
                            sums[i] = shift(sums[i], a, b)
                            if touched.setdefault(k, p) != p:  # a second member: its change may cancel the first's
                                compare.add(k)
                elif len(members) == 1 or p == (members[0] if leftmost else members[-1]):
                    if per_set[k] != new:
                        per_set[k] = new
                        out.append(k)
        for k in touched:
            mean = self._mean(all_sums[k], len(sets[k]))
            # sums shifted by one member's non-zero change (forms are canonical: unequal ones differ) changed the mean
            if k not in summed_again and k not in compare or mean != per_set[k]:
                per_set[k] = mean
                out.append(k)
        return out


def _column_sums(rows: list[Vector], members: Sequence[int], cols: Sequence[int]) -> list[Number]:
    """Σ rows[p][c] over the set's members, per pooled column c."""
    return [sum(rows[p][c] for p in members) for c in cols]


@dataclass
class _LayerState:
    """One (activation, heads) pair: the rows it last saw and its pooled vectors."""

    act: ActivationKernel
    pending: _Pending
    pools: list[_HeadPool] | None = None
    seen: list[Vector] | None = None
    new_run: bool = False  # first use in a run: the rows that differ from ``seen`` are changed too


def _new_rows(step: Callable[..., Any], apply: Callable[..., Any], rows: list[Vector],
              tables: list[tuple[list[Vector], list[int]]]) -> tuple[list[Any], list[int]]:
    """The activation at every position: the new rows (``step`` where the memo has the outputs, else
    ``apply``, which fills it) and the positions whose row is a new object (it may still equal the old one).
    ``step`` runs in chunks of growing size, so that later chunks find what earlier ones put in the memo."""
    n = len(rows)
    steps = map(step, rows, *[map(per_set.__getitem__, set_of) for per_set, set_of in tables])
    news: list[Any] = []
    size = FIRST_CHUNK
    while len(news) < n:
        start = len(news)
        news.extend(islice(steps, size))
        for p in list(compress(range(start, len(news)), map(is_, news[start:], repeat(None)))):
            news[p] = apply(rows[p], tuple([per_set[set_of[p]] for per_set, set_of in tables]))
        size = min(2 * size, LAST_CHUNK)
    return news, list(compress(range(n), map(is_not, news, rows)))


FIRST_CHUNK, LAST_CHUNK = 1 << 8, 1 << 16  # positions per chunk of _new_rows


def _apply_full(act: ActivationKernel, candidates: Any, rows: list[Vector],
                tables: list[tuple[list[Vector], list[int]]]) -> list[int]:
    """The activation at ``candidates`` (every position when a range), in place (a full run); the positions whose
    row changed.  ``tables``: each head's pooled vector per set and set per position."""
    apply = act.apply
    news: Any
    if type(candidates) is range:  # every position: one call each, the loops in C (_new_rows)
        news, at = _new_rows(act.step, apply, rows, tables)
    else:
        news, at = {}, []
        step = act.step
        for p in candidates:
            row = rows[p]
            pooled = tuple([per_set[set_of[p]] for per_set, set_of in tables])
            new = step(row, *pooled)
            if new is None:
                new = apply(row, pooled)
            if new is not row:
                news[p] = new
                at.append(p)
    out: list[int] = []
    for p in at:
        new = news[p]
        if new != rows[p]:
            rows[p] = new
            out.append(p)
    return out
