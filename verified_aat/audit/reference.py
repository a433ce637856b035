"""An independent reference evaluator of a transformer, for the audit of its unrolling (MATH.md §3, §5).

The audit compares the unrolled circuit U_N, evaluated by :mod:`.flat`, with
the transformer T itself.  If both sides shared an evaluator, a bug in it
could make them agree on a wrong value.  This module therefore shares no
evaluation code with the rest of the package: not ``circuits/evaluate.py``,
not :mod:`.flat`, not the exact engines in ``transformer/``.  It only reads
T's data (gate kinds, arguments, constants, matrices, pooling rules) and
interprets it on :class:`~fractions.Fraction` values, written for clarity,
not speed: every score pair is computed, the argmax set is
``{j : s_ij = max_j′ s_ij′}``, average pooling divides the sum by the size
of that set, leftmost / rightmost take its smallest / largest member.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence

from ..circuits.ir import Circuit, Kind
from ..errors import InputError, LimitReached
from ..limits import MAX_VALUE_BITS
from ..transformer.model import BilinearScore, Head, Pooling, Transformer

Vector = tuple[Fraction, ...]


@dataclass(frozen=True)
class ReferenceLayer:
    """One layer's result: the new vectors and, per head, every position's argmax set."""

    vectors: tuple[Vector, ...]
    argmax: tuple[tuple[tuple[int, ...], ...], ...]  # [head][position] -> sorted positions


@dataclass(frozen=True)
class ReferenceRun:
    """T on one sequence: the input vectors and every layer's result."""

    inputs: tuple[Vector, ...]
    layers: tuple[ReferenceLayer, ...]

    @property
    def outputs(self) -> tuple[Vector, ...]:
        return self.layers[-1].vectors if self.layers else self.inputs


ONE, MINUS_ONE, ZERO = Fraction(1), Fraction(-1), Fraction(0)  # Fractions are immutable: one of each will do


def _sign(v: Fraction) -> Fraction:
    return ONE if v > 0 else (MINUS_ONE if v < 0 else ZERO)


def interpret(circuit: Circuit, inputs: Sequence[Fraction]) -> list[Fraction]:
    """The outputs of ``circuit`` on ``inputs``: one pass over the gates in their (topological) order."""
    values: list[Fraction] = []
    for gate in circuit.gates:
        if gate.kind is Kind.INPUT:
            assert gate.index is not None
            values.append(inputs[gate.index])
        elif gate.kind is Kind.CONST:
            assert gate.value is not None  # a Fraction already (ir.Gate); Fraction(v) copied it at every use
            values.append(gate.value)
        elif gate.kind is Kind.ADD:  # two operands (most sums) without a generator and a Fraction(0) a gate
            args = gate.args
            values.append(values[args[0]] + values[args[1]] if len(args) == 2 else sum((values[a] for a in args), ZERO))
        elif gate.kind is Kind.MUL:
            product = Fraction(1)
            for a in gate.args:
                product *= values[a]
                if product.numerator.bit_length() + product.denominator.bit_length() > MAX_VALUE_BITS:
                    raise LimitReached(f"a product of more than {MAX_VALUE_BITS:,} bits (the bits-per-value limit)")
            values.append(product)
        elif gate.kind is Kind.SIGN:
            values.append(_sign(values[gate.args[0]]))
        else:  # pragma: no cover - the IR has no other kinds
            raise ValueError(f"unknown gate kind {gate.kind}")
    return [values[o] for o in circuit.outputs]


def score(head: Head, xi: Vector, xj: Vector) -> Fraction:
    """s(x_i, x_j): the bilinear form x_iᵀ Q x_j, or the score circuit on (x_i, x_j)."""
    if isinstance(head.score, BilinearScore):
        return sum((Fraction(q) * xi[r] * xj[c] for r, row in enumerate(head.score.matrix)  # its non-zero entries:
                    for c, q in enumerate(row) if q), Fraction(0))  # d = 256 with one entry took 54 s at N = 2
    return interpret(head.score.circuit, list(xi) + list(xj))[0]


def pool(head: Head, rows: Sequence[Vector], chosen: Sequence[int]) -> Vector:
    """The pooled vector over the argmax set ``chosen`` (non-empty, increasing)."""
    if head.pooling is Pooling.AVERAGE:
        d = len(rows[0])
        return tuple(sum((rows[j][c] for j in chosen), Fraction(0)) / len(chosen) for c in range(d))
    if head.pooling is Pooling.LEFTMOST:
        return rows[chosen[0]]
    if head.pooling is Pooling.RIGHTMOST:
        return rows[chosen[-1]]
    raise InputError(f"head {head.name}: softmax pooling has no exact reference")


def reference_run(transformer: Transformer, sequence: Sequence[Sequence[Any]]) -> ReferenceRun:
    """T on ``sequence`` (exact rationals), with every layer's vectors and argmax sets."""
    d = transformer.dimension
    rows = tuple(tuple(Fraction(v) for v in vector) for vector in sequence)
    if not rows or any(len(r) != d for r in rows):
        raise InputError(f"the reference needs a non-empty sequence of vectors of dimension {d}")
    inputs, layers = rows, []
    for layer in transformer.layers:
        pooled: list[list[Fraction]] = [[] for _ in rows]
        sets = []
        for head in layer.heads:
            head_sets = []
            for i, xi in enumerate(rows):
                scores = [score(head, xi, xj) for xj in rows]
                best = max(scores)
                chosen = tuple(j for j, s in enumerate(scores) if s == best)
                head_sets.append(chosen)
                pooled[i].extend(pool(head, rows, chosen))
            sets.append(tuple(head_sets))
        rows = tuple(tuple(interpret(layer.activation, list(x) + pooled[i])) for i, x in enumerate(rows))
        layers.append(ReferenceLayer(rows, tuple(sets)))
    return ReferenceRun(inputs, tuple(layers))
