"""The second line of defence (docs/soundness.md, D): run T exactly and compare with C.

Not part of the proof, and it can only reject.  The kernel's own small interpreter runs T on enc(C, x) for
seeded inputs x (small integers with many ties, signed rationals, zeros; 0/1 vectors over the Boolean domain)
and, after every layer, compares every settled claim with C's exact gate values, every structural coordinate
with the encoding, and at the end the read-out with C(x).  Any disagreement rejects the certificate with the
witness: it means the proof argument has a gap.  It shares nothing with ``transformer/exact_engine.py``.

Attention uses the actual scores on all pairs for up to :data:`ALL_PAIRS_LIMIT` positions, else the kernel's
argmax sets (the summary says which).  The run is incremental (a position is recomputed only when its own
vector or a member of one of its argmax sets changed), and each activation is compiled once per distinct
tuple of its structural inputs (exact partial evaluation), so a run costs about linear time.  A deterministic
budget of activation evaluations bounds the work; the layers the full run does not reach (budget, or values
past :data:`RUN_BITS`) are checked step by step on a seeded sample (``defence_sample.py``).
"""

from __future__ import annotations

from fractions import Fraction
from itertools import chain, islice
from typing import Any, Sequence

from .circuits import compiled, reads

from .context import Context
from .data import Bilinear, Circuit, Number, bits, counted
from .defence_compile import Specialized, TooBig, evaluate, mean, rational, role

ALL_PAIRS_LIMIT = 200
ALL_PAIRS_WORK = 4_000_000  # score gates evaluated per all-pairs attention
SET_CHECK_WORK = 1_000_000  # past ALL_PAIRS_LIMIT: score gates evaluated to test the kernel's sets, per head and function,
SET_CHECK_TOTAL = 4_000_000  # ... and for all of them together
VECTORS = 32  # seeded inputs run in full, while the budget lasts (3 left most of it unused on short sequences, and a
#               score made to read a value coordinate, a false key lemma a lying solver let through, went unseen: red team 12)
DEFAULT_BUDGET = 30_000  # activation evaluations, at least
PER_POSITION = 5         # ... or this many per position: about one full run of a typical construction
RUN_BITS = 4_096         # a value of the full run past this size stops it (garbage at unsettled positions grows
#                          doubly exponentially): the layers left are sampled step by step instead
SIZE_EVERY = 16          # ... looked at in every 16th vector a layer changes (positions of one kind grow alike)
DEFAULT_CAP = 1_000_000  # ... but at most this many (about 7 s): beyond ~2·10^5 positions a run is partial


def interned(sets: Sequence[tuple[int, ...]]) -> list[tuple[int, ...]]:
    """Equal argmax sets as one tuple object.  The join shares a tuple per row key only, so many
    row keys with one wide set (edges out of inputs attending to all sinks in edge-only/edge-k)
    would each pool it again whenever a member changes: quadratic.  Hashing once per object is linear."""
    by_value: dict[tuple[int, ...], tuple[int, ...]] = {}
    by_object: dict[int, tuple[int, ...]] = {}
    out = []
    for s in sets:
        t = by_object.get(id(s))
        if t is None:
            t = by_object[id(s)] = by_value.setdefault(s, s)
        out.append(t)
    return out


def _score_function(score: Circuit | Bilinear):  # type: ignore[no-untyped-def]
    if isinstance(score, Bilinear):
        entries = score.entries
        return lambda x, y: sum(q * x[r] * y[c] for r, c, q in entries)
    f = compiled(score)
    return lambda x, y: f(*x, *y)[0]


def _all_pairs(X: Sequence[Sequence[Number]], score, over=None) -> list[tuple[int, ...]]:  # type: ignore[no-untyped-def]
    """Each x's argmax set over ``over`` (default: X itself) by the actual scores."""
    out = []
    for x in X:
        values = [score(x, y) for y in (X if over is None else over)]
        top = max(values)
        out.append(tuple(j for j, v in enumerate(values) if v == top))
    return out


def _shown(members: tuple[int, ...]) -> str:
    inner = ", ".join(map(str, members)) if len(members) <= 2 else f"{members[0]}, …, {members[-1]}"  # the least, greatest
    return f"{{{inner}}} ({counted(len(members), 'member')})"


class OutOfBudget(TooBig):
    """The full run's budget ran out within a layer (compiling specializations): the run stops there."""


def run_defence(ctx: Context) -> tuple[list[str], str]:
    """(problems with witnesses, a one-line summary of what was run): the full run while the budget and the
    numbers allow, then seeded single steps of the layers it did not reach (``defence_sample.py``)."""
    C, T, E = ctx.circuit, ctx.transformer, ctx.encoding
    assert C is not None and T is not None and E is not None
    n_layers, N = len(T.layers), len(ctx.rows)
    budget = ctx.options.defence_budget
    if budget is None:
        budget = max(DEFAULT_BUDGET, min(PER_POSITION * N, DEFAULT_CAP))
    if budget == 0:
        return [], "skipped (budget 0)"
    from .defence_sample import boolean_vectors, sample_steps, seeded_vectors
    bits = ctx.domain == "boolean" or ctx.doc.get("netlist") is not None  # a netlist's values stay 0/1 on 0/1
    vectors = boolean_vectors if bits else seeded_vectors  # made when read: a sample alone reads one of them
    seeded, inputs = vectors(C.n_inputs, ctx.options.seed, VECTORS), []  # those run: made only if the budget allows
    spent, reached, done, why, run = 0, 0, [], "", None
    specialized = {fn.number: Specialized(fn.layer.activation, T.dimension, ctx.structural) for fn in ctx.functions}
    tested: dict[tuple[int, int], int] = {}  # the heads whose sets were tested against actual scores (all inputs)
    for vector in range(VECTORS if budget >= N else 0):  # none when the budget is below one full layer (N)
        if spent >= budget or (vector and spent + 2 * N > budget):
            break
        inputs.append(x := next(seeded))
        layer = 0
        try:
            run = _Run(ctx, x, specialized, tested)  # one compiled specialization per key for all inputs
            problem = run.check_layer(0)
            while problem is None and layer < n_layers and spent + run.pending_cost(layer + 1) <= budget:
                spent += run.apply(layer + 1, budget - spent)
                layer += 1
                problem = run.check_layer(layer)
        except TooBig as exc:
            why = str(exc) if isinstance(exc, OutOfBudget) else f"values grow too large ({exc})"
            problem = run.untested() if run is not None else None
            if problem is not None:
                return [f"x = ({', '.join(map(str, x))}): {problem}"], "found a disagreement"
            break
        if problem is None and layer == n_layers:
            problem = run.check_readout()
        if problem is None and layer < n_layers:
            problem = run.untested()
        if problem is not None:
            return [f"x = ({', '.join(map(str, x))}): {problem}"], "found a disagreement"
        done.append(f"{layer}/{n_layers}")
        reached = max(reached, layer)
        if layer < n_layers:
            break
    attention = "actual scores on all pairs" if run is not None and run.brute else "the kernel's argmax sets" + (
        f" (tested against the actual scores, {counted(sum(tested.values()), 'score gate')})" * any(tested.values()))
    full = (f"{counted(len(done), 'seeded input')}, layers run {done[0] + ' each' if len(done) > 1 == len(set(done)) else ', '.join(done)}, "
            f"{counted(spent, 'activation evaluation')}, attention from {attention}") if done else ""
    if reached == n_layers and not why:
        return [], full
    fallback = () if bits else boolean_vectors(C.n_inputs, ctx.options.seed)  # where C's values grow too large
    candidates = chain(inputs, islice(seeded, max(0, 3 - len(inputs))), fallback)  # the first 3, each made once
    problem, sampled = sample_steps(ctx, candidates, range(reached + 1, n_layers + 1),
                                    max(budget - spent, budget // 4), ctx.options.seed)  # the layers not reached
    stopped = f"full run stopped: {why}" if why else "" if done else \
        f"no full run: {N} positions exceed the budget of {budget} activation evaluations"
    return ([problem], "found a disagreement") if problem else ([], "; ".join(p for p in (full, stopped, sampled) if p))


class _Run:
    """One incremental exact run of T on enc(C, x)."""

    def __init__(self, ctx: Context, x: list[Number], specialized: dict[int, Specialized], tested: dict):
        self.ctx, self.tested, self.problem = ctx, tested, None  # tested: (function, head) → score gates its test took
        C, T, E = ctx.circuit, ctx.transformer, ctx.encoding
        self.T, self.E = T, E
        self.values = evaluate(C, x, rational)  # type: ignore[arg-type]
        X = [row if not any(type(v) is Fraction for v in row) else tuple(rational(v) for v in row)
             for row in ctx.rows]
        for p, c, i in E.input_slots:  # type: ignore[union-attr]
            X[p] = X[p][:c] + (x[i],) + X[p][c + 1:]
        self.X: list[tuple[Number, ...]] = X
        self.N = len(X)
        score_size = max((len(h.score.gates) if isinstance(h.score, Circuit) else 1
                          for fn in ctx.functions for h in fn.layer.heads), default=1)
        self.brute = self.N <= ALL_PAIRS_LIMIT and self.N * self.N * score_size <= ALL_PAIRS_WORK
        self.number = {fn.layers[0]: fn for fn in ctx.functions}
        self.function_of = {layer: fn for fn in ctx.functions for layer in fn.layers}
        self.pending = {fn.number: set(range(self.N)) for fn in ctx.functions}
        self.sets: dict[tuple[int, int], list[tuple[int, ...]]] = {}
        self.holders: dict[tuple[int, int], dict[int, list[int]]] = {}
        self.containing: dict[tuple[int, int], dict[int, list[tuple[int, ...]]]] = {}
        self.pooled: dict[tuple[int, int], dict[int, tuple[Number, ...]]] = {}
        self.score_dirty: dict[Any, bool] = {}
        self.specialized = specialized
        self.settle_at: dict[int, list[tuple[int, int]]] = {}
        for p, claim in enumerate(ctx.claims):
            for c, (_, _, s) in claim.items():
                self.settle_at.setdefault(max(s, 0), []).append((p, c))
        self.changed: list[int] = []
        self._reads: dict[int, set[int]] = {}

    # -- attention -------------------------------------------------------------------
    def _install(self, key: tuple[int, int], sets: list[tuple[int, ...]]) -> None:
        self.sets[key] = sets
        holders: dict[int, list[int]] = {}
        objects: dict[int, tuple[int, ...]] = {}
        for p, s in enumerate(sets):
            holders.setdefault(id(s), []).append(p)
            objects[id(s)] = s
        containing: dict[int, list[tuple[int, ...]]] = {}
        for s in objects.values():
            for j in s:
                containing.setdefault(j, []).append(s)
        self.holders[key], self.containing[key], self.pooled[key] = holders, containing, {}

    def _attend(self, fn) -> None:  # type: ignore[no-untyped-def]
        for h, head in enumerate(fn.layer.heads):
            key = (fn.number, h)
            if not self.brute:
                if key not in self.sets:
                    self._install(key, interned(self.ctx.sets[key]))
                if key not in self.tested:
                    self.tested[key] = 0
                    self.problem = self.problem or self._test_sets(fn, h, head)
                continue
            if key in self.sets and not self.score_dirty.get(key, True):
                continue
            fresh = _all_pairs(self.X, _score_function(head.score))
            shared: dict[tuple[int, ...], tuple[int, ...]] = {}
            self._install(key, [shared.setdefault(s, s) for s in fresh])
            self.pending[fn.number] = set(range(self.N))
            self.score_dirty[key] = False

    def _test_sets(self, fn, h: int, head) -> str | None:  # type: ignore[no-untyped-def]
        """The kernel's sets of a head against the actual scores at evenly spread positions, as many as SET_CHECK_WORK
        score gates allow (once per head and function, on the first input): past ALL_PAIRS_LIMIT the run pools over
        the kernel's sets, so a false key lemma that a solver's unsat let through went unseen (red team, round 10)."""
        size = len(head.score.gates) if isinstance(head.score, Circuit) else len(head.score.entries) or 1
        left = SET_CHECK_TOTAL - sum(self.tested.values())
        m = min(self.N, min(SET_CHECK_WORK, left) // (self.N * size))
        self.tested[(fn.number, h)] = m * self.N * size
        score, sets = _score_function(head.score), self.ctx.sets[(fn.number, h)]
        for p in sorted({k * self.N // m for k in range(m)}):
            actual = _all_pairs([self.X[p]], score, self.X)[0]
            if actual != sets[p]:
                return (f"layer {fn.layers[0]}'s head {head.name} at position {p} ({role(self.E, p)}): the actual "
                        f"scores' argmax set is {_shown(actual)}, the kernel's {_shown(sets[p])}")
        return None

    def untested(self) -> str | None:
        """The heads of the layers the run did not reach, tested on its last state (its structure is the rows', and the
        key lemma and brute force speak of any values)."""
        for fn in [] if self.brute else self.ctx.functions:
            for h, head in enumerate(fn.layer.heads):
                if (fn.number, h) not in self.tested:
                    self.tested[(fn.number, h)] = 0
                    problem = self._test_sets(fn, h, head)
                    if problem:
                        return problem
        return None

    def _pool(self, head: tuple[tuple[int, int], str], p: int, c: int) -> Number:
        key, pooling = head
        members = self.sets[key][p]
        cache = self.pooled[key]
        found = cache.get(id(members))
        if found is None:
            found = cache[id(members)] = {}
        value = found.get(c)
        if value is None:
            if pooling == "leftmost":
                value = self.X[members[0]][c]
            elif pooling == "rightmost":
                value = self.X[members[-1]][c]
            elif len(members) == 1:
                value = self.X[members[0]][c]
            else:
                value = mean(sum(self.X[j][c] for j in members), len(members))
            found[c] = value
        return value

    # -- one layer -----------------------------------------------------------------------
    def pending_cost(self, layer: int) -> int:
        return len(self.pending[self.function_of[layer].number])

    def apply(self, layer: int, left: int) -> int:
        """Layer ``layer`` on the pending positions; returns the activations evaluated and what the specializations it
        compiled cost (past ``left``, OutOfBudget: an activation that reads a structural id was compiled once a
        position, and once an input: a 236 KB certificate took 40 s, red team round 9)."""
        fn = self.function_of[layer]
        self._attend(fn)
        todo = sorted(self.pending[fn.number])
        self.pending[fn.number] = set()
        spec = self.specialized[fn.number]
        heads = [((fn.number, h), head.pooling) for h, head in enumerate(fn.layer.heads)]
        pool_at = self._pool

        def pool(h: int, p: int, c: int) -> Number:
            return pool_at(heads[h], p, c)

        X, key, function, cost = self.X, spec.key, spec.function, spec.cost
        updates = []
        for p in todo:
            if len(todo) + spec.cost - cost > left:
                raise OutOfBudget(f"the budget ran out compiling the activation of layer {layer}, one specialization a "
                                  f"structural key ({spec.builds} of them)")
            own = X[p]
            new = function(key(own, pool, p))(own, pool, p)
            if new != own:
                if not len(updates) % SIZE_EVERY and any(bits(v) > RUN_BITS for v in new):
                    raise TooBig(f"past {RUN_BITS} bits at position {p} after layer {layer}")
                updates.append((p, new))
        moved: set[int] = set()
        d = self.T.dimension  # type: ignore[union-attr]
        for p, new in updates:
            old = X[p]
            moved.update(c for c in range(d) if new[c] != old[c])
            X[p] = new
        self._propagate([p for p, _ in updates], moved)
        return len(todo) + spec.cost - cost

    def _propagate(self, changed: list[int], moved: set[int]) -> None:
        """Mark pending, for every function, the changed positions and the holders of every set they are in."""
        self.changed = changed
        if not changed:
            return
        for fn in self.ctx.functions:
            pending = self.pending[fn.number]
            pending.update(changed)
            for h, head in enumerate(fn.layer.heads):
                key = (fn.number, h)
                if key not in self.sets:
                    continue
                if self.brute and self._score_reads(head) & moved:
                    self.score_dirty[key] = True
                cache, holders, containing = self.pooled[key], self.holders[key], self.containing[key]
                handled: set[int] = set()
                for j in changed:
                    for s in containing.get(j, ()):
                        if id(s) not in handled:
                            handled.add(id(s))
                            cache.pop(id(s), None)
                            pending.update(holders[id(s)])

    def _score_reads(self, head) -> set[int]:  # type: ignore[no-untyped-def]
        found = self._reads.get(id(head))
        if found is None:
            d = self.T.dimension  # type: ignore[union-attr]
            score = head.score
            if isinstance(score, Bilinear):
                found = {r for r, _, _ in score.entries} | {c for _, c, _ in score.entries}
            else:
                found = {k % d for k in reads(score, list(score.outputs))}
            self._reads[id(head)] = found
        return found

    # -- comparisons -------------------------------------------------------------------
    def check_layer(self, layer: int) -> str | None:
        ctx, E = self.ctx, self.E
        if self.problem:
            return self.problem
        structural = ctx.structural
        if layer == 0:
            candidates: Any = range(self.N)
        else:
            candidates = set(self.changed)
            candidates.update(p for p, _ in self.settle_at.get(layer, ()))
        for p in sorted(candidates):
            row, vec = ctx.rows[p], self.X[p]
            for c in structural:
                if vec[c] != row[c]:
                    return (f"after layer {layer}, position {p} ({role(E, p)}) structural coordinate "
                            f"{E.coordinates[c]} is {vec[c]}, the encoding says {row[c]}")  # type: ignore[union-attr]
            for c, (g, power, s) in ctx.claims[p].items():
                if s <= layer and vec[c] != self.values[g] ** power:
                    return (f"after layer {layer}, position {p} ({role(E, p)}) coordinate {E.coordinates[c]} "  # type: ignore[union-attr]
                            f"is {vec[c]}, but its claim V(gate {g})^{power} is {self.values[g] ** power}")
        return None

    def check_readout(self) -> str | None:
        C, E = self.ctx.circuit, self.E
        for k, (o, (p, c)) in enumerate(zip(C.outputs, E.readout)):  # type: ignore[union-attr]
            if self.X[p][c] != self.values[o]:
                return f"output {k} reads {self.X[p][c]}, C(x) gives {self.values[o]}"
        return None
