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
each pair last saw.  An activation is evaluated only on the inputs its computed
outputs read, and equal inputs reuse earlier outputs (a memo).  Inside the engine non-integral values are GMP rationals
(exact, like Fractions, and much faster); results are ints and Fractions.

:class:`ExactRunner` keeps all of this, the proofs and the argmax sets across
runs of one transformer on many sequences (``run --inputs``); with ``max_bits``, a value
past that many bits stops the run (:class:`~verified_aat.errors.LimitReached`).
:func:`run_exact_reference` is the plain N² interpreter, kept for differential tests.

**The settled run** (``forget``: per position, (settle layer s, coordinate c) pairs, a
construction's schedule) computes only what can reach a settled value: a row that a layer
before s writes gets an atom (:mod:`.unknown`) for coordinate c; the input rows stay, since
they are exact and small already.  ⊥ is the sound abstraction "some rational": ``0·⊥ = 0``, anything else with ⊥ is
⊥, so every number the settled run computes is exactly the one the full run computes, and
forgetting can only turn values into ⊥.  The schedule is not trusted for this: a wrong one
gives ⊥, never a wrong number.  What it buys: positions that have not settled hold values
that may grow doubly exponentially (netlists in exact arithmetization), and none of those
is built.  A score or key that would read ⊥, or a ⊥ where the caller needs a value (the
read-out), makes the engine run again in full.  Two shortcuts give the same rows (:mod:`.settled`): a
position whose every written coordinate the boundary forgets, and whose row is already its boundary
image, is not applied at all; and a key holding forms is first read with ⊥ in their place, whose
outputs are taken where no ⊥ reaches a coordinate the boundary keeps.
"""

from __future__ import annotations

import time
from itertools import chain
from fractions import Fraction
from typing import Any, Sequence

from ..circuits.ir import Circuit
from ..errors import InputError
from ..gc_pause import gc_paused
from . import exact_kernels
from .activation_kernel import ActivationKernel
from .exact_kernels import inner, outer_row
from .exact_state import (Vector, _HeadPool, _LayerState, _Pending, _ScoreFn, _ScoreState, _Sets,  # noqa: F401
                          _apply_full, _argmax_python, _group, _prepare_score, read_inputs)
from .exact_reference import run_exact_reference  # noqa: F401 - re-exported
from .exact_results import (SOFTMAX_MESSAGE, HeadTrace, LayerTrace, RunResult, RunStats,  # noqa: F401
                            check_bits, check_sequence)
from .key_join import KeyDecompositions, facts_hold, hint_columns, join_argmax
from .model import Head, Pooling, Score, Transformer
from .settled import Boundary, Settling, Undetermined as _Undetermined, require_known as _require_known
from .settled import score_cols as _score_cols
from .unknown import is_symbolic
from ..wording import plural

Number = int | Fraction
JOIN, ALL_PAIRS = "join", "all-pairs"


# -- the engine --------------------------------------------------------------------

class ExactRunner:
    """Runs one transformer exactly on any number of sequences.

    ``keys`` (:class:`~.key_join.KeyDecompositions`) lets the engine use the key join for
    every score whose decomposition lemma its prover proves; without it, every argmax
    set is computed on all pairs.  ``join=False`` turns the join off even with keys.
    """

    def __init__(self, transformer: Transformer, keys: KeyDecompositions | None = None, join: bool = True,
                 forget: Sequence[Sequence[tuple[int, int]]] | None = None, max_bits: int | None = None):
        self.transformer, self.max_bits = transformer, max_bits  # max_bits: a larger value is LimitReached
        self.keys = keys if join else None
        #: the settled run (module docstring): position p's coordinate c is ⊥ before layer s, for (s, c) in forget[p]
        self.forget = forget
        self.d = transformer.dimension
        self._scores: dict[int, tuple[Score, _ScoreFn]] = {}
        self._score_states: dict[int, _ScoreState] = {}
        self._kernels: dict[int, tuple[Circuit, int, ActivationKernel]] = {}
        self._layer_states: dict[tuple[Any, ...], _LayerState] = {}
        self._pendings: list[_Pending] = []
        self._counts: dict[str, int] = {}
        self._methods: dict[tuple[str, str], None] = {}
        self._runs = 0  # runs so far; ``_fixed``: the coordinates no row changes in this run (_fixed_columns)
        self._fixed: frozenset[int] = frozenset()

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

    def _fixed_columns(self, forget: Sequence[Sequence[tuple[int, int]]] | None) -> frozenset[int]:
        """The coordinates that every layer copies unchanged (its activation's output there is its input) and, in a
        settled run, no position forgets: no row changes there during a run."""
        moved: set[int] = set()
        for layer in self.transformer.layers:
            moved |= self._kernel(layer.activation, len(layer.heads)).written
        for pattern in {id(pattern): pattern for pattern in forget or ()}.values():
            moved.update(c for _, c in pattern)
        return frozenset(range(self.d)) - moved

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
            if state.confirmed == self._runs and self._fixed.issuperset(cols):  # no layer changes what it reads
                changed = ()
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
                state.confirmed = self._runs
                self._count("argmax_reused")
                self._methods[(head.name, state.sets.method)] = None
                return state.sets
        self._count("argmax_computed")
        hint = state.hint
        if self.forget is not None:
            _require_known(rows, _score_cols(head.score, self.d)
                           + (() if hint is None else tuple(hint_columns(hint, self.transformer.coordinates))))
        if hint is not None and n and facts_hold(rows, hint, self.transformer.coordinates):
            joined = join_argmax(rows, hint)
            sets = _Sets(joined.set_ids.tolist(), list(joined.distinct), JOIN)
            self._count("argmax_join")
        else:
            sets = self._all_pairs(state.fn, rows)
        state.sets, state.basis, state.confirmed = sets, list(rows), self._runs
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
    def _apply(self, state: _LayerState, heads: Sequence[Head], head_sets: list[_Sets], rows: list[Vector],
               boundary: Boundary | None = None) -> list[int]:
        """Pool and apply the activation in place; the positions whose row changed (after ``boundary``,
        a settled run's layer boundary, maps each new row)."""
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
        tables = [(pool.per_set, pool.sets.set_of) for pool in pools]
        if boundary is not None:  # a settled run: its own loop (skips, the boundary; settled.Boundary.apply)
            out, count = boundary.apply(act, candidates, rows, tables)
            self._count("activation_applications", count)
            return out
        self._count("activation_applications", len(candidates))
        return _apply_full(act, candidates, rows, tables)

    # -- a run -------------------------------------------------------------------
    @gc_paused  # millions of long-lived small objects, no cycles worth collecting early (gc_pause.py)
    def run(self, sequence: Sequence[Sequence[Any]], trace: bool = False,
            needed: Sequence[tuple[int, int]] = ()) -> RunResult:
        """Run on ``sequence`` with exact rationals; see the module docstring.

        With ``forget``, a settled run; it is run again in full should a score read ⊥ or an output
        coordinate in ``needed`` (position, coordinate) — e.g. the read-out — be ⊥ at the end
        (``stats.settled`` says which run the result is from).
        """
        if self.forget is not None:
            if len(self.forget) != len(sequence):
                raise InputError(f"the settled run has settle layers for {plural(len(self.forget), 'position')}, "
                                 f"the sequence has {len(sequence)}")
            try:
                result = self._run(sequence, trace, self.forget)
                if not any(is_symbolic(result.outputs[p][c]) for p, c in needed):
                    return result
            except _Undetermined:
                pass
            self._layer_states.clear()  # their rows held ⊥: start afresh
            self._score_states.clear()
        return self._run(sequence, trace, None)

    def _run(self, sequence: Sequence[Sequence[Any]], trace: bool,
             forget: Sequence[Sequence[tuple[int, int]]] | None) -> RunResult:
        start = time.perf_counter()
        rows = check_sequence(self.transformer, sequence)
        integral = _INT.issuperset(map(type, chain.from_iterable(rows)))  # then only changed rows need outer_row
        if not integral:
            rows = [row if _INT.issuperset(map(type, row)) else tuple([inner(v) for v in row]) for row in rows]
        touched: set[int] = set()
        n = len(rows)
        self._runs += 1
        self._fixed = self._fixed_columns(forget)
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
        settling = None if forget is None else Settling(forget, self.d)
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
            boundary = None
            if settling is not None:  # rows forgotten earlier whose value settles now: apply the layer to them again
                layer_state.pending.note(settling.due.pop(number, []), limit)
                boundary = settling.at(number)
            changed = self._apply(layer_state, layer.heads, head_sets, rows, boundary)
            touched.update(changed)
            if self.max_bits is not None:
                check_bits(rows, changed, number, self.max_bits)
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
                         c("argmax_join", 0), tuple(self._methods), c("activation_applications", 0),
                         forget is not None)
        return RunResult(_outputs(rows, touched if integral else None), tuple(layers) if trace else None, stats)


def run_exact(transformer: Transformer, sequence: Sequence[Sequence[Any]], trace: bool = False,
              keys: KeyDecompositions | None = None, forget: Sequence[Sequence[tuple[int, int]]] | None = None,
              needed: Sequence[tuple[int, int]] = ()) -> RunResult:
    """Run ``transformer`` on ``sequence`` with exact rationals; see the module docstring.

    With ``keys``, argmax sets come from the key join wherever a decomposition is proved; with
    ``forget`` (settle layers per position) a settled run, in full again if a ``needed`` value is ⊥.
    """
    return ExactRunner(transformer, keys, forget=forget).run(sequence, trace, needed)


def _outputs(rows: list[Vector], touched: set[int] | None) -> tuple[Vector, ...]:
    """The rows as the rest of the code base has them (:func:`outer_row`); with ``touched``, every other
    row is known to be an input row of ints (nothing to convert)."""
    if touched is None:
        return tuple(map(outer_row, rows))
    out = list(rows)
    for p in touched:
        out[p] = outer_row(rows[p])
    return tuple(out)


_INT = frozenset((int,))
