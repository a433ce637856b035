"""The second line of defence past a full run (docs/soundness.md, D): seeded (position, layer) steps, each
checked on its own.

Not part of the proof, and it can only reject.  Where the full run of ``defence.py`` cannot go — more
positions than its budget, or values at positions that have not settled yet growing past what the kernel
computes with — the interpreter checks a seeded sample of single steps instead.  A step (p, ℓ) builds the
state before layer ℓ that the proof's induction speaks of: at every position, the rows at structural
coordinates, C's exact gate value V(g)^k at every coordinate whose claim settles by ℓ − 1, and a seeded
rational anywhere else (any value must do: the lemmas of S9 hold for every value of those coordinates).
It applies layer ℓ at p exactly, pooling over the kernel's argmax sets, and compares p's structural
coordinates with the rows and every claim settled by ℓ with V(g)^k.  A step reads only p and the members
of p's argmax sets, so its cost does not grow with the sequence, and garbage never accumulates.

For a circuit over the Boolean domain (netlists) the inputs are 0/1 vectors, on which an arithmetized
netlist's values stay 0 or 1.  What this sample cannot see is a wrong argmax set (it uses the kernel's,
which S6 proves); the full run with actual scores on short sequences does.
"""

from __future__ import annotations

import random
from fractions import Fraction
from operator import add
from typing import Any, Iterable, Iterator

from .context import Context
from .circuits import too_big
from .data import Number, exact
from .defence_compile import Specialized, TooBig, evaluate, mean, rational, role
from .problems import Problem

MEMBER_COST = 8  # pooled member reads that cost as much as one activation evaluation (measured)
MAX_STEPS = 20_000  # steps sampled at most (about a second)
SEEDED = [[rational(Fraction(a - 9, b + 1)) for b in range(4)] for a in range(19)]  # a seeded value, made once


def boolean_vectors(n: int, seed: int, count: int = 3) -> Iterator[list[Number]]:
    """0/1 vectors for a circuit over the Boolean domain (a netlist's values stay 0 or 1): seeded bits, all ones,
    zeros, then ``count`` − 3 more seeded bits, each made when read (a sample reads the next only where C's values
    grow too large on one; at 10^6 inputs making one takes about a second)."""
    rng = random.Random(seed)
    yield [rng.randint(0, 1) for _ in range(n)]
    yield [1] * n
    yield [0] * n
    for _ in range(count - 3):
        yield [rng.randint(0, 1) for _ in range(n)]


def seeded_vectors(n: int, seed: int, count: int = 3) -> Iterator[list[Number]]:
    """Small integers (many ties), signed rationals, zeros, then ``count`` − 3 more, integers in −8..8 and signed
    rationals by turns, each made when read."""
    rng = random.Random(seed)
    yield [rng.choice((-2, -1, 0, 0, 1, 1, 2)) for _ in range(n)]
    fractions = [Fraction(rng.randint(-9, 9), rng.randint(1, 5)) for _ in range(n)]
    yield [rational(exact(v)) for v in fractions]
    yield [0] * n
    for k in range(count - 3):
        yield [rng.randint(-8, 8) if k % 2 == 0 else rational(exact(Fraction(rng.randint(-9, 9), rng.randint(1, 5))))
               for _ in range(n)]


def sample_steps(ctx: Context, inputs: Iterable[list[Number]], layers: range, budget: int, seed: int
                 ) -> tuple[Problem | None, str]:
    """(a disagreement with its witness or None, a one-line summary): seeded steps (p, ℓ), ℓ in ``layers``,
    while ``budget`` (activation evaluations, a pooled member read costing 1/MEMBER_COST) lasts."""
    C, T, E = ctx.circuit, ctx.transformer, ctx.encoding
    assert C is not None and T is not None and E is not None
    if not layers or not ctx.rows:
        return None, ""
    values = x = None
    for candidate in inputs:  # the first whose gate values stay within what the kernel computes with
        try:
            values, x = evaluate(C, candidate, rational), candidate
            break
        except TooBig:
            continue
    if values is None:
        return None, "sampled steps not run: C's values on every seeded input grow too large"
    run, N = _Steps(ctx, values, seed), len(ctx.rows)
    total = N * len(layers)
    steps, spent, seen, rng = 0, 0, set(), random.Random(seed + 1)
    every = total <= min(budget, MAX_STEPS)  # then every step, in order
    while spent < budget and steps < min(total, MAX_STEPS):
        k = steps if every else rng.randrange(total)
        if k in seen:
            if len(seen) * 2 > total:  # dense: the rest in order would repeat the draw; stop at what was drawn
                break
            continue
        seen.add(k)
        layer, p = layers[k // N], k % N
        problem, cost = run.step(p, layer)
        steps, spent = steps + 1, spent + cost
        if problem is not None:
            return Problem("x = ({x:200}) (length {n}), sampled step: {step:600}",
                           {"x": ", ".join(map(str, x)), "n": len(x), "step": problem}), ""
    what = "every one" if steps == total else f"{steps:,} distinct seeded ones ({100 * steps / total:.2g}%)"
    return None, (f"(position, layer) steps one by one at layers {layers.start}–{layers.stop - 1}: {what} of "
                  f"{total:,}, {'0/1 inputs' if set(x) <= {0, 1} else 'seeded inputs'}, seeded values at unsettled "
                  f"coordinates, attention from the kernel's argmax sets")


class _Steps:
    """The state before a layer, built per position on demand, and one step of a layer at a position."""

    def __init__(self, ctx: Context, values: list[Any], seed: int):
        self.ctx, self.values = ctx, values
        T = ctx.transformer
        assert T is not None
        self.d = T.dimension
        self.function_of = {layer: fn for fn in ctx.functions for layer in fn.layers}
        self.specialized: dict[int, Specialized] = {}
        self.seed = seed
        self.means: dict[tuple, Any] = {}  # (function, head, set, coordinate, layer) → the pooled mean

    def _vector(self, j: int, before: int, havoc: dict[tuple[int, int], Any]) -> tuple[Any, ...]:
        row, structural = self.ctx.rows[j], self.ctx.structural
        pattern, owner = self.ctx.claims.patterns[j], self.ctx.claims.roles[j]  # claims[j] without its dict
        out = []
        for c in range(self.d):
            entry = pattern.get(c)  # (the role's field naming the gate, power, settle)
            if c in structural:
                out.append(row[c])
            elif entry is not None and entry[2] <= before:
                out.append(self.values[owner[entry[0]]] ** entry[1])
            else:
                if (j, c) not in havoc:  # a seeded value in -9..9 over 1..4, from a hash (no generator per value)
                    h = hash((self.seed, j, c, before))
                    havoc[(j, c)] = SEEDED[h % 19][h // 19 % 4]
                out.append(havoc[(j, c)])
        return tuple(out)

    def step(self, p: int, layer: int) -> tuple[str | None, int]:
        """Layer ``layer`` at position ``p`` from the state the induction assumes: (a disagreement, its cost)."""
        ctx, E = self.ctx, self.ctx.encoding
        fn = self.function_of[layer]
        spec = self.specialized.get(fn.number)
        if spec is None:
            spec = self.specialized[fn.number] = Specialized(fn.layer.activation, self.d, ctx.structural)
        havoc: dict[tuple[int, int], Any] = {}
        vectors: dict[int, tuple[Any, ...]] = {}
        reads = [0]

        def vector(j: int) -> tuple[Any, ...]:
            found = vectors.get(j)
            if found is None:
                found = vectors[j] = self._vector(j, layer - 1, havoc)
            return found

        heads = fn.layer.heads

        def pool(h: int, q: int, c: int) -> Any:
            members = ctx.sets[(fn.number, h)][q]
            pooling = heads[h].pooling
            if pooling in ("leftmost", "rightmost") or len(members) == 1:
                reads[0] += 1
                return vector(members[0] if pooling == "leftmost" else members[-1])[c]
            key = (fn.number, h, id(members), c, layer)  # a set is shared by many positions: its mean, once
            found = self.means.get(key)
            if found is None:
                reads[0] += len(members)
                every = (fn.number, h, id(members), layer)  # every coordinate's mean: one pass over a wide set
                whole = self.means.get(every)
                if whole is None:
                    sums = [0] * self.d
                    for j in members:
                        sums = list(map(add, sums, self._vector(j, layer - 1, havoc)))
                    whole = self.means[every] = [mean(total, len(members)) for total in sums]
                found = self.means[key] = whole[c]
            return found

        own, built = vector(p), spec.cost
        new = spec.function(spec.key(own, pool, p))(own, pool, p)
        cost = 1 + reads[0] // MEMBER_COST + spec.cost - built
        row = ctx.rows[p]
        for c in sorted(ctx.structural):
            if new[c] != row[c]:
                return (f"layer {layer} at position {p} ({role(E, p)}) sets structural coordinate "
                        f"{E.coordinates[c]} to {new[c]}, the encoding says {row[c]}"), cost  # type: ignore[union-attr]
        for c, (g, power, s) in sorted(ctx.claims[p].items()):
            if s <= layer and new[c] != self.values[g] ** power:
                shown = "a number too large to show" if too_big(new[c]) else new[c]
                return (f"layer {layer} at position {p} ({role(E, p)}) gives coordinate {E.coordinates[c]} = "  # type: ignore[union-attr]
                        f"{shown}, but its claim V(gate {g})^{power} is {self.values[g] ** power}, from the claims "
                        f"settled by layer {layer - 1} and seeded values elsewhere"), cost
        return None, cost
