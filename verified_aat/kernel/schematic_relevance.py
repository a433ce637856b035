"""What the read-out depends on: the claims a schematic proof needs, by a backward walk from the read-out coordinate
through T's layers (docs/soundness.md P9, also for the trailing layers of a fixed K)."""

from __future__ import annotations

from dataclasses import dataclass

from .structure import reads, score_reads
from .data import Layer, Transformer, within
from .derivation import Function


@dataclass(frozen=True)
class Needs:
    """Per layer function (by number): the coordinates it claims and the heads whose argmax sets matter."""

    coordinates: dict[int, frozenset[int]]
    heads: dict[int, frozenset[int]]

    def claims(self, fn: Function, c: int) -> bool:
        return c in self.coordinates.get(fn.number, frozenset())

    def attends(self, fn: Function, h: int) -> bool:
        return h in self.heads.get(fn.number, frozenset())


def read_by(layer: Layer, d: int, wanted: frozenset[int], pooled: bool = True) -> tuple[frozenset[int], frozenset[int]]:
    """The input coordinates and heads that the ``wanted`` outputs of ``layer`` read (``pooled`` False:
    the focus only, for a lemma that holds whatever the heads pool)."""
    inputs = reads(layer.activation, [layer.activation.outputs[c] for c in sorted(wanted)])
    focus = {k for k in inputs if k < d}
    heads = {(k - d) // d for k in inputs if k >= d} if pooled else set()
    if pooled:
        focus |= {(k - d) % d for k in inputs if k >= d}
        for h in heads:
            focus |= score_reads(layer.heads[h].score, d)
    return frozenset(focus), frozenset(heads)


def needs(T: Transformer, functions: list[Function], readout: int, trailing: int, every_K: bool) -> Needs:
    """The claims of each function: the union, over the layers that use it, of the coordinates needed
    after that layer.  Every K: T is one block repeated, so the backward walk goes round the block from the union of
    the sets needed at its end so far until that union stops growing (reads distribute over unions: the same claims)."""
    by_layer = {n: fn for fn in functions for n in fn.layers}
    d = T.dimension
    coordinates: dict[int, set[int]] = {fn.number: set() for fn in functions}
    heads: dict[int, set[int]] = {fn.number: set() for fn in functions}
    order = list(range(len(T.layers), 0, -1))
    after = frozenset({readout})
    seen: set[frozenset[int]] = set()
    memo: dict[tuple[int, frozenset[int], bool], tuple[frozenset[int], frozenset[int]]] = {}  # a function's reads of a
    left = 10**8  # set, once; the gates its misses walk (L layers of one G-gate function walked L·G: red team 26)
    while after not in seen:
        seen.add(after)
        for number in order:
            fn = by_layer[number]
            coordinates[fn.number] |= after
            tail = not every_K and number > len(T.layers) - trailing
            if (key := (fn.number, after, tail)) not in memo:
                left -= len(fn.layer.activation.gates) + sum(len(getattr(h.score, "gates", ())) for h in fn.layer.heads)
                within(left >= 0, "$.transformer", "the read-out's needs (P9) walk more than 10^8 gates of T's circuits")
                memo[key] = read_by(fn.layer, d, after, pooled=not tail)
            after, read = memo[key]
            heads[fn.number] |= read
        after = after.union(*seen) if every_K else frozenset({readout})  # every K: go on from the union of the sets
        # met, which rises to its fixed point in ≤ d rounds (the sets' own cycle took the lcm of its lengths: red team 26)
    return Needs({n: frozenset(s) for n, s in coordinates.items()}, {n: frozenset(s) for n, s in heads.items()})
