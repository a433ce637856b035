"""The exact engine: runs a transformer on a sequence of rational vectors (MATH.md §3).

For every layer and head, each position i attends to its argmax set
A_i = argmax_j s(x_i, x_j) over all positions j; average pooling takes the
exact mean of x_j over A_i, leftmost/rightmost take x_{min A_i}/x_{max A_i};
then x_i ← f(x_i, a_i⁽¹⁾, …, a_i⁽ᴴ⁾).  Values stay ints/Fractions throughout.

Argmax sets come from one of two paths, with the same result:

* **the key join** (:mod:`.key_join`), near-linear in the sequence length, for a
  score that has a key decomposition whose lemma is *proved* for this very
  score (:class:`~.key_join.KeyDecompositions`: a construction's hints, or one
  read off a score of the form −(a(x) − b(y))² + pen(y)), when the rows satisfy
  the decomposition's facts.  Without ``keys`` the engine never joins;
* **all pairs** otherwise: a score circuit reads only some coordinates, so
  positions with equal read coordinates have equal scores and the engine
  evaluates s once per (i-group, j-group) pair — with numpy int64 arrays when
  a bound check shows that no intermediate value can reach 2**62 (bilinear
  scores after an exact positive rescaling, :mod:`.exact_kernels`), else with
  Python ints/Fractions.

Argmax sets are reused while the columns the score reads are unchanged (checked
at the positions that changed since they were computed).  The layers themselves
are incremental, so that a deep transformer in which few positions change per
layer costs little per layer: each (activation, heads) pair remembers the rows
it last saw and its pooled vector per distinct argmax set (for averages, exact
running sums); at its next use only the sets with a changed member are pooled
again, and the activation is applied only at the positions whose own row or
pooled vector changed.  Every other position provably keeps its row: its inputs
are those of the last application, whose output was its row.  A new run (the
next sequence) starts from the same state: its rows are compared with the rows
each pair last saw.  An activation is
evaluated only on the inputs its computed outputs read, and equal inputs reuse
earlier outputs (a memo).  Inside the engine non-integral values are GMP rationals
(exact, like Fractions, and much faster); results are ints and Fractions.

:class:`ExactRunner` keeps all of this, the proofs and the argmax sets across
runs of one transformer on many sequences (``run --inputs``);
:func:`run_exact_reference` is the plain N² interpreter, kept for differential
tests.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Sequence

from ..circuits.evaluate import as_exact, compile_circuit
from ..circuits.ir import Circuit
from ..errors import InputError
from . import exact_kernels
from .exact_kernels import ActivationKernel, BilinearKernel, CircuitKernel, inner, normal, outer_row, ratio
from .key_join import KeyDecompositions, KeyHint, facts_hold, join_argmax
from .model import CircuitScore, Head, Pooling, Score, Transformer

Number = int | Fraction
Vector = tuple[Number, ...]
SOFTMAX_MESSAGE = "softmax pooling is not exact; use the float engine"
JOIN, ALL_PAIRS = "join", "all-pairs"


@dataclass(frozen=True)
class HeadTrace:
    """One head in one layer: the argmax set of every position."""

    head: str
    argmax: tuple[tuple[int, ...], ...]


@dataclass(frozen=True)
class LayerTrace:
    """The vectors after one layer and the argmax sets of its heads."""

    layer: str
    vectors: tuple[Vector, ...]
    heads: tuple[HeadTrace, ...]


@dataclass(frozen=True)
class RunStats:
    """Counts of one run.

    ``score_evaluations`` counts the (i-group, j-group) pairs scored on the all-pairs path;
    ``argmax_computed``/``argmax_reused`` the argmax sets computed or reused (per head and
    layer); ``argmax_int64`` those computed by the int64 kernels and ``argmax_join`` those
    computed by the key join; ``head_methods`` the (head, ``"join"``/``"all-pairs"``) pairs
    that occurred, in order of first use; ``activation_evaluations`` the activations
    actually evaluated (the reference evaluates one per position and layer) and
    ``activation_applications`` the (position, layer) pairs the engine looked at.
    """

    positions: int
    layers: int
    score_evaluations: int = 0
    argmax_computed: int = 0
    argmax_reused: int = 0
    activation_evaluations: int = 0
    seconds: float = 0.0
    argmax_int64: int = 0
    argmax_join: int = 0
    head_methods: tuple[tuple[str, str], ...] = ()
    activation_applications: int = 0

    def method_of(self, head: str) -> set[str]:
        """The paths that computed ``head``'s argmax sets in this run."""
        return {m for h, m in self.head_methods if h == head}


@dataclass(frozen=True)
class RunResult:
    outputs: tuple[Vector, ...]
    trace: tuple[LayerTrace, ...] | None
    stats: RunStats


def check_sequence(transformer: Transformer, sequence: Sequence[Sequence[Any]]) -> list[Vector]:
    """The sequence as exact vectors of the transformer's dimension, or an InputError."""
    d = transformer.dimension
    rows: list[Vector] = []
    append = rows.append
    for position, vector in enumerate(sequence):
        if len(vector) != d:
            raise InputError(f"position {position}: expected a vector of {d} values, got {len(vector)}")
        row = tuple(vector)
        if all(type(v) is int for v in row):
            append(row)
            continue
        try:
            append(tuple([as_exact(v) for v in row]))
        except TypeError as exc:
            raise InputError(f"position {position}: {exc}") from None
    return rows


# -- score analysis --------------------------------------------------------------

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
                sums = [sum(rows[p][c] for p in members) for c in cols]
                self.sums[k] = sums
                per_set.append(self._mean(sums, len(members)))
        self.per_set = per_set

    def _mean(self, sums: list[Number], size: int) -> Vector:
        mean: list[Number | None] = [None] * self.d
        for c, total in zip(self.cols, sums):
            mean[c] = ratio(total, size)
        return tuple(mean)  # type: ignore[arg-type]

    def update(self, changed: set[int], rows: list[Vector], seen: list[Vector]) -> list[int]:
        """Pool again the sets with a member in ``changed`` (``seen``: rows at the last pooling);
        the numbers of the sets whose pooled vector changed."""
        containing = self.sets.containing()
        sets, per_set = self.sets.sets, self.per_set
        touched: set[int] = set()
        average = self.pooling is Pooling.AVERAGE
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
                    sums = self.sums[k]
                    for i, c in enumerate(self.cols):
                        if old[c] != new[c]:
                            sums[i] += new[c] - old[c]
                            touched.add(k)
                elif len(members) == 1 or p == (members[0] if self.pooling is Pooling.LEFTMOST else members[-1]):
                    if per_set[k] != new:
                        per_set[k] = new
                        out.append(k)
        for k in touched:
            mean = self._mean(self.sums[k], len(sets[k]))
            if mean != per_set[k]:
                per_set[k] = mean
                out.append(k)
        return out


@dataclass
class _LayerState:
    """One (activation, heads) pair: the rows it last saw and its pooled vectors."""

    act: ActivationKernel
    pending: _Pending
    pools: list[_HeadPool] | None = None
    seen: list[Vector] | None = None
    new_run: bool = False  # first use in a run: the rows that differ from ``seen`` are changed too


# -- the engine --------------------------------------------------------------------

class ExactRunner:
    """Runs one transformer exactly on any number of sequences.

    ``keys`` (:class:`~.key_join.KeyDecompositions`) lets the engine use the key join for
    every score whose decomposition lemma its prover proves; without it, every argmax
    set is computed on all pairs.  ``join=False`` turns the join off even with keys.
    """

    def __init__(self, transformer: Transformer, keys: KeyDecompositions | None = None, join: bool = True):
        self.transformer = transformer
        self.keys = keys if join else None
        self.d = transformer.dimension
        self._scores: dict[int, tuple[Score, _ScoreFn]] = {}
        self._score_states: dict[int, _ScoreState] = {}
        self._kernels: dict[int, tuple[Circuit, int, ActivationKernel]] = {}
        self._layer_states: dict[tuple[Any, ...], _LayerState] = {}
        self._pendings: list[_Pending] = []
        self._counts: dict[str, int] = {}
        self._methods: dict[tuple[str, str], None] = {}

    # -- caches ------------------------------------------------------------------
    def _score_key(self, score: Score) -> tuple[int, _ScoreFn]:
        """The prepared function of ``score`` and a key shared by equal score functions."""
        cached = self._scores.get(id(score))
        if cached is not None and cached[0] is score:
            return id(cached[0]), cached[1]
        for other, prepared in self._scores.values():
            if other == score:
                self._scores[id(score)] = (other, prepared)
                return id(other), prepared
        prepared = _prepare_score(score, self.d)
        self._scores[id(score)] = (score, prepared)
        return id(score), prepared

    def _score_state(self, head: Head) -> tuple[int, _ScoreState]:
        key, fn = self._score_key(head.score)
        state = self._score_states.get(key)
        if state is None:
            state = _ScoreState(fn, tuple(sorted(set(fn.i_cols) | set(fn.j_cols))), self._pending())
            self._score_states[key] = state
        if self.keys is not None and state.hint is None and head.name not in state.heads_asked:
            state.heads_asked.add(head.name)
            state.hint = self.keys.proved(head, self.transformer.coordinates)
        return key, state

    def _kernel(self, circuit: Circuit, n_heads: int) -> ActivationKernel:
        cached = self._kernels.get(id(circuit))
        if cached is None or cached[0] is not circuit or cached[1] != n_heads:
            cached = (circuit, n_heads, ActivationKernel(circuit, self.d, n_heads))
            self._kernels[id(circuit)] = cached
        return cached[2]

    def _pending(self) -> _Pending:
        pending = _Pending()
        self._pendings.append(pending)
        return pending

    def _count(self, name: str, k: int = 1) -> None:
        self._counts[name] = self._counts.get(name, 0) + k

    # -- argmax ------------------------------------------------------------------
    def _argmax(self, head: Head, state: _ScoreState, rows: list[Vector]) -> _Sets:
        """The argmax sets of ``head``'s score on ``rows``, reused while its read columns are unchanged."""
        changed = state.pending.take()
        n = len(rows)
        if state.sets is not None and state.basis is not None and len(state.basis) == n:
            basis, cols = state.basis, state.cols
            same = True
            for p in (range(n) if changed is None else changed):
                row, old = rows[p], basis[p]
                if row is old:
                    continue
                for c in cols:
                    if row[c] != old[c]:
                        same = False
                        break
                if not same:
                    break
                basis[p] = row
            if same:
                self._count("argmax_reused")
                self._methods[(head.name, state.sets.method)] = None
                return state.sets
        self._count("argmax_computed")
        hint = state.hint
        if hint is not None and n and facts_hold(rows, hint, self.transformer.coordinates):
            joined = join_argmax(rows, hint)
            sets = _Sets(list(joined.set_ids), joined.distinct, JOIN)
            self._count("argmax_join")
        else:
            sets = self._all_pairs(state.fn, rows)
        state.sets, state.basis = sets, list(rows)
        self._methods[(head.name, sets.method)] = None
        return sets

    def _all_pairs(self, fn: _ScoreFn, rows: list[Vector]) -> _Sets:
        i_group_of, i_groups = _group(rows, fn.i_cols)
        _, j_groups = _group(rows, fn.j_cols)
        j_reps = [rows[g[0]] for g in j_groups]
        best: list[tuple[int, ...]] | None = None
        if exact_kernels.USE_INT64 and fn.kernel is not None:
            i_reps = [rows[g[0]] for g in i_groups]
            best = fn.kernel.argmax([[r[c] for r in i_reps] for c in fn.i_cols],
                                    [[r[c] for r in j_reps] for c in fn.j_cols], len(i_reps), len(j_reps))
            if best is not None:
                self._count("argmax_int64")
        if best is None:
            best = _argmax_python(fn, rows, i_groups, j_reps)
        self._count("score_evaluations", len(i_groups) * len(j_groups))
        index: dict[tuple[int, ...], int] = {}
        sets: list[list[int]] = []
        of_group: list[int] = []
        for chosen in best:
            k = index.get(chosen)
            if k is None:
                k = index[chosen] = len(sets)
                sets.append(sorted(p for g in chosen for p in j_groups[g]))
            of_group.append(k)
        return _Sets([of_group[g] for g in i_group_of], sets, ALL_PAIRS)

    # -- one layer ---------------------------------------------------------------
    def _apply(self, state: _LayerState, heads: Sequence[Head], head_sets: list[_Sets], rows: list[Vector]
               ) -> list[int]:
        """Pool and apply the activation in place; the positions whose row changed."""
        act, n, d = state.act, len(rows), self.d
        changed = state.pending.take()
        if state.new_run:
            state.new_run = False
            seen = state.seen
            if changed is not None and seen is not None and len(seen) == n:
                changed.update(p for p in range(n) if rows[p] != seen[p])
                if len(changed) > n // 4:
                    changed = None
            else:
                changed = None
        pools = state.pools
        candidates: Any
        if (changed is None or pools is None or state.seen is None or len(state.seen) != n
                or any(pool.sets is not sets or pool.pooling is not head.pooling
                       for pool, sets, head in zip(pools, head_sets, heads))):
            pools = state.pools = [_HeadPool(sets, head.pooling, act.pooled_cols[h], d, rows)
                                   for h, (head, sets) in enumerate(zip(heads, head_sets))]
            state.seen = list(rows)
            candidates = range(n)
        else:
            seen = state.seen
            candidates = set(changed)
            for pool in pools:
                moved = pool.update(changed, rows, seen)
                if moved:
                    holders = pool.sets.holders()
                    for k in moved:
                        candidates.update(holders[k])
            for p in changed:
                seen[p] = rows[p]
        self._count("activation_applications", len(candidates))
        apply = act.apply
        out: list[int] = []
        if len(pools) == 1:
            per_set, set_of = pools[0].per_set, pools[0].sets.set_of
            for p in candidates:
                row = rows[p]
                new = apply(row, (per_set[set_of[p]],))
                if new is not row:
                    rows[p] = new
                    out.append(p)
        else:
            tables = [(pool.per_set, pool.sets.set_of) for pool in pools]
            for p in candidates:
                row = rows[p]
                new = apply(row, tuple([per_set[set_of[p]] for per_set, set_of in tables]))
                if new is not row:
                    rows[p] = new
                    out.append(p)
        return out

    # -- a run -------------------------------------------------------------------
    def run(self, sequence: Sequence[Sequence[Any]], trace: bool = False) -> RunResult:
        """Run on ``sequence`` with exact rationals; see the module docstring."""
        start = time.perf_counter()
        rows = [row if all(type(v) is int for v in row) else tuple([inner(v) for v in row])
                for row in check_sequence(self.transformer, sequence)]
        n = len(rows)
        self._counts = {}
        self._methods = {}
        # argmax sets are checked against all rows; each (activation, heads) pair treats as changed
        # the positions that changed after its last use and those whose new row differs from it
        for score_state in self._score_states.values():
            score_state.pending.changed = None
        for layer_state in self._layer_states.values():
            layer_state.new_run = True
        evaluations_before = sum(kernel.evaluations for _, _, kernel in self._kernels.values())
        limit = max(n // 4, 16)
        layers: list[LayerTrace] = []
        for number, layer in enumerate(self.transformer.layers, start=1):
            act = self._kernel(layer.activation, len(layer.heads))
            act.trim_memo()
            head_sets: list[_Sets] = []
            keys: list[int] = []
            for head in layer.heads:
                if head.pooling is Pooling.SOFTMAX:
                    raise InputError(SOFTMAX_MESSAGE)
                key, state = self._score_state(head)
                keys.append(key)
                head_sets.append(self._argmax(head, state, rows))
            state_key = (id(act), tuple(keys), tuple(h.pooling for h in layer.heads))
            layer_state = self._layer_states.get(state_key)
            if layer_state is None or layer_state.act is not act:
                layer_state = self._layer_states[state_key] = _LayerState(act, self._pending())
            changed = self._apply(layer_state, layer.heads, head_sets, rows)
            for pending in self._pendings:
                pending.note(changed, limit)
            if trace:
                layers.append(LayerTrace(layer.name or f"layer {number}", tuple(map(outer_row, rows)),
                                         tuple(HeadTrace(h.name, s.per_position())
                                               for h, s in zip(layer.heads, head_sets))))
        evaluations = sum(kernel.evaluations for _, _, kernel in self._kernels.values()) - evaluations_before
        c = self._counts.get
        stats = RunStats(n, self.transformer.n_layers, c("score_evaluations", 0), c("argmax_computed", 0),
                         c("argmax_reused", 0), evaluations, time.perf_counter() - start, c("argmax_int64", 0),
                         c("argmax_join", 0), tuple(self._methods), c("activation_applications", 0))
        return RunResult(tuple(map(outer_row, rows)), tuple(layers) if trace else None, stats)


def run_exact(transformer: Transformer, sequence: Sequence[Sequence[Any]], trace: bool = False,
              keys: KeyDecompositions | None = None) -> RunResult:
    """Run ``transformer`` on ``sequence`` with exact rationals; see the module docstring.

    With ``keys``, argmax sets come from the key join wherever a decomposition is proved.
    """
    return ExactRunner(transformer, keys).run(sequence, trace)


from .exact_reference import run_exact_reference  # noqa: E402,F401 - re-exported; it imports this module's types
