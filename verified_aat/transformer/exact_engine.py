"""The exact engine: runs a transformer on a sequence of rational vectors (MATH.md §3).

For every layer and head, each position i attends to its argmax set
A_i = argmax_j s(x_i, x_j) over all positions j; average pooling takes the
exact mean of x_j over A_i, leftmost/rightmost take x_{min A_i}/x_{max A_i};
then x_i ← f(x_i, a_i⁽¹⁾, …, a_i⁽ᴴ⁾).  Values stay ints/Fractions throughout.

Every score comes from the head's own score function.  Speed comes from
three observations that do not change any value:

* a score circuit reads only some coordinates (those with a path to its
  output), so positions with equal read coordinates have equal scores: the
  engine evaluates s once per (i-group, j-group) pair and expands;
* positions in one i-group share their argmax set, so pooled vectors are
  computed once per distinct argmax set;
* the argmax sets of an earlier layer are reused only for the same score
  function and after checking that every column the score reads is equal,
  at every position, to the columns it was computed on.

and from exact kernels (:mod:`.exact_kernels`):

* when the values a score reads and its constants are integers and a bound
  check shows that no intermediate value can reach 2**62, the score is
  evaluated on the whole (i-group, j-group) grid with numpy int64 arrays
  (bilinear scores after an exact positive rescaling); otherwise with Python
  ints/Fractions;
* pooled vectors are computed only in the coordinates the activation reads,
  and an average is recomputed only when one of the values it averages has
  changed;
* an activation is evaluated only on the inputs its computed outputs read,
  outputs that are plain inputs are copied, and equal inputs (the same as at
  this position in the previous layer with this activation, or as anywhere
  before) reuse the earlier outputs.

:func:`run_exact_reference` is the plain N² interpreter, kept for
differential tests.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Sequence

from ..circuits.evaluate import as_exact, compile_circuit, evaluate
from ..circuits.ir import Circuit
from ..errors import InputError
from . import exact_kernels
from .exact_kernels import ActivationKernel, BilinearKernel, CircuitKernel
from .model import BilinearScore, CircuitScore, Head, Pooling, Score, Transformer

Number = int | Fraction
Vector = tuple[Number, ...]
SOFTMAX_MESSAGE = "softmax pooling is not exact; use the float engine"


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
    """Counts of one run.  ``score_evaluations`` counts (i-group, j-group) pairs,
    ``argmax_int64`` the argmax computations done by the int64 kernels, and
    ``activation_evaluations`` the activations actually evaluated (the
    reference evaluates one per position and layer)."""

    positions: int
    layers: int
    score_evaluations: int = 0
    argmax_computed: int = 0
    argmax_reused: int = 0
    activation_evaluations: int = 0
    seconds: float = 0.0
    argmax_int64: int = 0


@dataclass(frozen=True)
class RunResult:
    outputs: tuple[Vector, ...]
    trace: tuple[LayerTrace, ...] | None
    stats: RunStats


def check_sequence(transformer: Transformer, sequence: Sequence[Sequence[Any]]) -> list[Vector]:
    """The sequence as exact vectors of the transformer's dimension, or an InputError."""
    d = transformer.dimension
    rows: list[Vector] = []
    for position, vector in enumerate(sequence):
        if len(vector) != d:
            raise InputError(f"position {position}: expected a vector of {d} values, got {len(vector)}")
        try:
            rows.append(tuple(as_exact(v) for v in vector))
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


@dataclass
class _Argmax:
    """Argmax sets of one head: groups of positions and, per i-group, the max j-groups."""

    snapshot: tuple[list[Number], ...]
    i_group_of: list[int]
    j_groups: list[list[int]]
    best: list[tuple[int, ...]]
    plan: tuple[list[list[int]], list[int]] | None = None
    pool_cache: dict[tuple[int, tuple[int, ...]], tuple[tuple[Vector, ...], Vector]] = field(default_factory=dict)


@dataclass
class _Engine:
    score_cache: dict[int, tuple[Score, _ScoreFn]] = field(default_factory=dict)
    activation_cache: dict[int, tuple[Circuit, int, ActivationKernel]] = field(default_factory=dict)
    last_argmax: dict[int, _Argmax] = field(default_factory=dict)
    activation_state: dict[int, list[Any]] = field(default_factory=dict)
    score_evaluations: int = 0
    argmax_computed: int = 0
    argmax_reused: int = 0
    argmax_int64: int = 0

    def score_fn(self, score: Score, d: int) -> tuple[int, _ScoreFn]:
        """The prepared function of ``score`` and a key shared by equal score functions."""
        cached = self.score_cache.get(id(score))
        if cached is not None and cached[0] is score:
            return id(cached[0]), cached[1]
        for other, prepared in self.score_cache.values():
            if other == score:
                self.score_cache[id(score)] = (other, prepared)
                return id(other), prepared
        prepared = _prepare_score(score, d)
        self.score_cache[id(score)] = (score, prepared)
        return id(score), prepared

    def activation(self, circuit: Circuit, d: int, n_heads: int) -> ActivationKernel:
        cached = self.activation_cache.get(id(circuit))
        if cached is None or cached[0] is not circuit or cached[1] != n_heads:
            cached = (circuit, n_heads, ActivationKernel(circuit, d, n_heads))
            self.activation_cache[id(circuit)] = cached
        return cached[2]


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
        weights = [(c, as_exact(w)) for c, w in sums if w]
        return lambda xj: sum(w * xj[c] for c, w in weights)

    return _ScoreFn(i_cols, j_cols, lambda xi, xj: row(xi)(xj), row, BilinearKernel(entries, i_cols, j_cols))


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


def _argmax(engine: _Engine, key: int, fn: _ScoreFn, rows: list[Vector]) -> _Argmax:
    """The argmax sets of one head on ``rows``, reused when the read columns are unchanged."""
    cols = sorted(set(fn.i_cols) | set(fn.j_cols))
    snapshot = tuple([row[c] for row in rows] for c in cols)
    previous = engine.last_argmax.get(key)
    if previous is not None and previous.snapshot == snapshot:
        engine.argmax_reused += 1
        return previous
    engine.argmax_computed += 1
    i_group_of, i_groups = _group(rows, fn.i_cols)
    _, j_groups = _group(rows, fn.j_cols)
    j_reps = [rows[g[0]] for g in j_groups]
    best: list[tuple[int, ...]] | None = None
    if exact_kernels.USE_INT64 and fn.kernel is not None:
        i_reps = [rows[g[0]] for g in i_groups]
        best = fn.kernel.argmax([[r[c] for r in i_reps] for c in fn.i_cols],
                                [[r[c] for r in j_reps] for c in fn.j_cols], len(i_reps), len(j_reps))
        if best is not None:
            engine.argmax_int64 += 1
    if best is None:
        best = _argmax_python(fn, rows, i_groups, j_reps)
    engine.score_evaluations += len(i_groups) * len(j_groups)
    result = _Argmax(snapshot, i_group_of, j_groups, best)
    engine.last_argmax[key] = result
    return result


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


def _pool_plan(am: _Argmax) -> tuple[list[list[int]], list[int]]:
    """The distinct argmax sets of ``am`` as sorted positions, and the set of each i-group."""
    if am.plan is None:
        index: dict[tuple[int, ...], int] = {}
        sets: list[list[int]] = []
        of_group: list[int] = []
        for chosen in am.best:
            k = index.get(chosen)
            if k is None:
                k = index[chosen] = len(sets)
                sets.append(sorted(p for g in chosen for p in am.j_groups[g]))
            of_group.append(k)
        am.plan = (sets, of_group)
    return am.plan


def _pool(head: Head, am: _Argmax, rows: list[Vector], d: int, cols: list[int]) -> list[Vector]:
    """The pooled vector of every position, computed once per distinct argmax set.

    Averages are computed in the coordinates ``cols`` only (the others are
    None: the activation does not read them) and reused from the previous
    layer when the averaged vectors are unchanged (compared by value, which
    is quick when they are the very same objects).
    """
    sets, of_group = _pool_plan(am)
    per_set: list[Vector] = []
    if head.pooling is Pooling.LEFTMOST:
        per_set = [rows[positions[0]] for positions in sets]
    elif head.pooling is Pooling.RIGHTMOST:
        per_set = [rows[positions[-1]] for positions in sets]
    else:
        cache = am.pool_cache
        wanted = tuple(cols)
        for k, positions in enumerate(sets):
            if len(positions) == 1:
                per_set.append(rows[positions[0]])
                continue
            members = tuple([rows[p] for p in positions])
            previous = cache.get((k, wanted))
            if previous is not None and previous[0] == members:
                per_set.append(previous[1])
                continue
            n = len(positions)
            mean: list[Number | None] = [None] * d
            for c in cols:
                mean[c] = as_exact(Fraction(sum(row[c] for row in members)) / n)
            vector = tuple(mean)
            cache[(k, wanted)] = (members, vector)
            per_set.append(vector)  # type: ignore[arg-type]
    by_group = [per_set[k] for k in of_group]
    return [by_group[g] for g in am.i_group_of]


def _expand(am: _Argmax) -> tuple[tuple[int, ...], ...]:
    sets = [tuple(sorted(p for g in chosen for p in am.j_groups[g])) for chosen in am.best]
    return tuple(sets[g] for g in am.i_group_of)


def run_exact(transformer: Transformer, sequence: Sequence[Sequence[Any]], trace: bool = False) -> RunResult:
    """Run ``transformer`` on ``sequence`` with exact rationals; see the module docstring."""
    start = time.perf_counter()
    rows = check_sequence(transformer, sequence)
    d = transformer.dimension
    engine = _Engine()
    layers: list[LayerTrace] = []
    for number, layer in enumerate(transformer.layers, start=1):
        pooled: list[list[Vector]] = []
        head_traces: list[HeadTrace] = []
        act = engine.activation(layer.activation, d, len(layer.heads))
        for h, head in enumerate(layer.heads):
            if head.pooling is Pooling.SOFTMAX:
                raise InputError(SOFTMAX_MESSAGE)
            key, fn = engine.score_fn(head.score, d)
            am = _argmax(engine, key, fn, rows)
            pooled.append(_pool(head, am, rows, d, act.pooled_cols[h]))
            if trace:
                head_traces.append(HeadTrace(head.name, _expand(am)))
        rows, state = act.run(rows, pooled, engine.activation_state.get(id(act)))
        engine.activation_state[id(act)] = state
        if trace:
            layers.append(LayerTrace(layer.name or f"layer {number}", tuple(rows), tuple(head_traces)))
    evaluations = sum(kernel.evaluations for _, _, kernel in engine.activation_cache.values())
    stats = RunStats(len(rows), transformer.n_layers, engine.score_evaluations, engine.argmax_computed,
                     engine.argmax_reused, evaluations, time.perf_counter() - start, engine.argmax_int64)
    return RunResult(tuple(rows), tuple(layers) if trace else None, stats)


# -- the reference -----------------------------------------------------------------

def _reference_score(score: Score, xi: Vector, xj: Vector) -> Number:
    if isinstance(score, BilinearScore):
        d = len(xi)
        return as_exact(sum((score.matrix[r][c] * xi[r] * xj[c] for r in range(d) for c in range(d)), Fraction(0)))
    return evaluate(score.circuit, list(xi) + list(xj))[0]


def run_exact_reference(transformer: Transformer, sequence: Sequence[Sequence[Any]]) -> RunResult:
    """The obviously correct engine: every score pair with the circuit interpreter."""
    start = time.perf_counter()
    rows = check_sequence(transformer, sequence)
    n, d = len(rows), transformer.dimension
    layers: list[LayerTrace] = []
    evaluations = 0
    for number, layer in enumerate(transformer.layers, start=1):
        args: list[list[Number]] = [list(row) for row in rows]
        head_traces = []
        for head in layer.heads:
            if head.pooling is Pooling.SOFTMAX:
                raise InputError(SOFTMAX_MESSAGE)
            sets = []
            for i in range(n):
                scores = [_reference_score(head.score, rows[i], rows[j]) for j in range(n)]
                evaluations += n
                top = max(scores)
                chosen = [j for j in range(n) if scores[j] == top]
                sets.append(tuple(chosen))
                if head.pooling is Pooling.AVERAGE:
                    pooled = [as_exact(Fraction(sum(rows[j][c] for j in chosen), len(chosen))) for c in range(d)]
                else:
                    pooled = list(rows[min(chosen) if head.pooling is Pooling.LEFTMOST else max(chosen)])
                args[i].extend(pooled)
            head_traces.append(HeadTrace(head.name, tuple(sets)))
        rows = [tuple(evaluate(layer.activation, a)) for a in args]
        layers.append(LayerTrace(layer.name or f"layer {number}", tuple(rows), tuple(head_traces)))
    stats = RunStats(n, transformer.n_layers, evaluations, transformer.n_heads, 0, n * len(layers),
                     time.perf_counter() - start)
    return RunResult(tuple(rows), tuple(layers), stats)
