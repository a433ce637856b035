"""The exact gate count of :func:`.unroll.unroll`'s circuit U_N, computed from T alone (MATH.md §5).

What ``audit`` compares the built circuit with, and what the round trip and the all-N prover use to
decide, before building anything, whether U_N is small enough to build.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from ..circuits.ir import Kind
from ..transformer.model import BilinearScore, Pooling, Transformer
from .unroll import op_size, score_size


@dataclass(frozen=True)
class SizeFormula:
    """The exact number of non-constant gates and a bound on the shared constants.

    With σ_h the score size (:func:`score_size`), α_l the activation's
    :func:`op_size`, d the dimension and κ the number of distinct constants
    in the transformer's circuits and matrices::

        gates(N) = N·d + Σ_l [ Σ_{h∈l} ( N²·(σ_h + 5) + 5·N²·(N−1) + pool_h(N) ) + N·α_l ]
        pool_h(N) = N²·(d + 6) + N·(2d + 2)   (average)
                  = N²·(d + 6) + N·d          (leftmost / rightmost)
        constants(N) ≤ 3 + 2N + κ            ({1, −1, ½} ∪ {−m, 1/m : m ≤ N} ∪ the transformer's)
        size(N) = gates(N) + constants(N)
    """

    gates: int
    constants_bound: int
    per_layer: tuple[int, ...]

    @property
    def size_bound(self) -> int:
        return self.gates + self.constants_bound


FORMULA_TEXT = ("size ≤ N·d + Σ_layers[Σ_heads(N²(σ+5) + 5N²(N−1) + N²(d+6) + N·(2d+2 | d)) + N·α] + 3 + 2N + κ "
                "(σ score size, α activation size, κ distinct constants of T; 2d+2 for average, d for "
                "leftmost/rightmost heads)")


def _constants(transformer: Transformer) -> set[Fraction]:
    values: set[Fraction] = set()
    for layer in transformer.layers:
        circuits = [layer.activation]
        for head in layer.heads:
            if isinstance(head.score, BilinearScore):
                values.update(q for _, _, q in head.score.entries() if q != 1)
            else:
                circuits.append(head.score.circuit)
        for circuit in circuits:
            values.update(g.value for g in circuit.gates if g.kind is Kind.CONST)  # type: ignore[misc]
    return values


def size_formula(transformer: Transformer, n_positions: int) -> SizeFormula:
    """The count of :class:`SizeFormula`, computed from T alone (not from the built circuit)."""
    n, d = n_positions, transformer.dimension
    per_layer = []
    for layer in transformer.layers:
        total = n * op_size(layer.activation)
        for head in layer.heads:
            pool = n * n * (d + 6) + (n * (2 * d + 2) if head.pooling is Pooling.AVERAGE else n * d)
            total += n * n * (score_size(head.score) + 5) + 5 * n * n * (n - 1) + pool
        per_layer.append(total)
    return SizeFormula(n * d + sum(per_layer), 3 + 2 * n + len(_constants(transformer)), tuple(per_layer))
