"""The depth of the unrolled circuit U_N as a formula in T alone (MATH.md §5), for every N ≥ 2.

Every position of U_N is built the same way, so the depth of coordinate c
after layer l is one number D_l[c], the same at every position and for every
N ≥ 2.  With D_0 = 0 (inputs) and, per head of layer l, s the depth of a
score copy on (x_i, x_j) (each coordinate at its depth D_{l−1}), the gadgets
of :mod:`.unroll` add fixed depths (an addition of any fan-in counts 1):

* argmax: −s_ij (s + 1), s_ij′ − s_ij (s + 2), σ = sign (s + 3), σ² (s + 4),
  σ² + σ (s + 5), ½·(…) = gt (s + 6), Σ_{j′≠j} gt (s + 7), its sign (s + 8),
  −1·sign (s + 9), so **M_ij has depth M = s + 10**;
* average: c_i (M + 1), S_i[c] = Σ_j M_ij·x_j[c] (2 + max(M, D[c])),
  [c_i = m]/m (M + 2 … M + 7), r_i = Σ_m (M + 8),
  **a_i[c] = S_i[c]·r_i: 1 + max(2 + max(M, D[c]), M + 8)**;
* leftmost / rightmost: P_ij (M + 1), [P_ij = 0] (M + 2 … M + 5), L_ij (M + 6),
  **a_i[c] = Σ_j L_ij·x_j[c]: 2 + max(M + 6, D[c])**;
* the activation copy on (x_i, a_i⁽¹⁾, …) gives D_l.

Copies of T's circuits keep additions and split a product of fan-in k into
the balanced binary tree of ``CircuitBuilder.tree``; :func:`copy_depths`
follows that split on depths, so a factor's own depth counts, not only
⌈log₂ k⌉.  The depth of U_N is the largest depth of any gate, dead gates of
a copy included (a copy keeps every gate of T's circuit).

**N = 1 is special.**  With one position the sums over j′ ≠ j are empty:
Σ_{j′≠j} gt is an addition of fan-in 0 (depth 1, value 0), so M_11 has depth
4 whatever the score's depth, and the leftmost / rightmost prefix sum P_11 is
empty as well.  The unrolled circuit at N = 1 is therefore usually shallower;
the formula is stated, and checked by the audit, for N ≥ 2 only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ..circuits.ir import Circuit, Kind
from ..transformer.model import BilinearScore, Head, Pooling, Transformer

ARGMAX_DEPTH = 10           # M_ij = s + 10
AVERAGE_RECIPROCAL = 8      # r_i = M + 8
UNIQUE_SELECT = 6           # L_ij = M + 6


def tree_depth(depths: Sequence[int]) -> int:
    """Depth of the binary tree ``CircuitBuilder.tree`` builds over arguments of these depths."""
    layer = list(depths)
    while len(layer) > 2:
        nxt = [1 + max(layer[i], layer[i + 1]) for i in range(0, len(layer) - 1, 2)]
        if len(layer) % 2:
            nxt.append(layer[-1])
        layer = nxt
    return layer[0] if len(layer) == 1 else 1 + max(layer)


def copy_depths(circuit: Circuit, inputs: Sequence[int]) -> tuple[list[int], int]:
    """Depths of a binarised copy of ``circuit`` with input k at depth ``inputs[k]``.

    Returns the outputs' depths and the largest depth of a gate the copy creates (0 if none).
    """
    depth: list[int] = []
    deepest = 0
    for gate in circuit.gates:
        if gate.kind is Kind.INPUT:
            assert gate.index is not None
            depth.append(inputs[gate.index])
            continue
        if gate.kind is Kind.CONST:
            depth.append(0)
            continue
        args = [depth[a] for a in gate.args]
        if gate.kind is Kind.MUL:
            value = tree_depth(args)
            if len(args) > 1:
                deepest = max(deepest, value)
        else:  # add (any fan-in, 0 gives depth 1) or sign
            value = 1 + max(args, default=0)
            deepest = max(deepest, value)
        depth.append(value)
    return [depth[o] for o in circuit.outputs], deepest


def score_depths(head: Head, coordinate_depths: Sequence[int]) -> tuple[int, int]:
    """(depth of s_ij, largest depth of a gate of its copy)."""
    d = list(coordinate_depths)
    if isinstance(head.score, BilinearScore):
        terms = [1 + max(d[r], d[c]) + (1 if q != 1 else 0) for r, c, q in head.score.entries()]
        s = 1 + max(terms, default=0)
        return s, s
    outputs, deepest = copy_depths(head.score.circuit, d + d)
    return outputs[0], deepest


def pooled_depths(head: Head, marks: int, coordinate_depths: Sequence[int]) -> list[int]:
    """Depths of the pooled vector a_i (the deepest gates of the pooling gadget) given M_ij at ``marks``."""
    if head.pooling is Pooling.AVERAGE:
        return [1 + max(2 + max(marks, dc), marks + AVERAGE_RECIPROCAL) for dc in coordinate_depths]
    return [2 + max(marks + UNIQUE_SELECT, dc) for dc in coordinate_depths]


@dataclass(frozen=True)
class DepthFormula:
    """The depth of U_N for every N ≥ 2, and where it comes from.

    ``per_layer[l]`` is the deepest gate created for layer l + 1;
    ``coordinates[l][c]`` the depth of coordinate c after layer l (l = 0: inputs);
    ``argmax[l][h]`` the depth of the gates M_ij of head h of layer l + 1.
    """

    depth: int
    per_layer: tuple[int, ...]
    coordinates: tuple[tuple[int, ...], ...]
    argmax: tuple[tuple[int, ...], ...]


def depth_formula(transformer: Transformer) -> DepthFormula:
    """The depth of ``unroll(transformer, N)`` for every N ≥ 2, computed from the transformer alone."""
    current = [0] * transformer.dimension
    coordinates = [tuple(current)]
    per_layer, argmax = [], []
    for layer in transformer.layers:
        deepest = 0
        pooled: list[int] = []
        marks_of_heads = []
        for head in layer.heads:
            s, score_max = score_depths(head, current)
            marks = s + ARGMAX_DEPTH
            a = pooled_depths(head, marks, current)
            deepest = max(deepest, score_max, marks, *a)
            pooled.extend(a)
            marks_of_heads.append(marks)
        outputs, act_max = copy_depths(layer.activation, current + pooled)
        deepest = max(deepest, act_max)
        current = outputs
        coordinates.append(tuple(current))
        per_layer.append(deepest)
        argmax.append(tuple(marks_of_heads))
    return DepthFormula(max(per_layer, default=0), tuple(per_layer), tuple(coordinates), tuple(argmax))
