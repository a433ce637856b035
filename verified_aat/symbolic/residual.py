"""Partial evaluation of a layer function with concrete structure.

Structural inputs are known numbers; value inputs are unknown.  A gate is
concrete when all its arguments are, or when it is a product with a concrete
zero factor (so a selector that is 0 switches a whole branch off).  What
the remaining, residual computation reads decides which value inputs an
obligation mentions.  This rule is part of the certificate format
(docs/certificates.md), and the checker implements it independently.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Mapping, Sequence

from ..circuits.ir import Circuit, Kind, sign
from ..circuits.smtlib import cone

Number = int | Fraction


def partial_evaluate(circuit: Circuit, outputs: Sequence[int], known: Mapping[int, Number]
                     ) -> tuple[list[Number | None], frozenset[int]]:
    """The outputs' values where concrete (else None), and the inputs the residual reads."""
    roots = [circuit.outputs[o] for o in outputs]
    value: dict[int, Number | None] = {}
    reads: dict[int, frozenset[int]] = {}
    empty: frozenset[int] = frozenset()
    for g in cone(circuit, roots):
        gate = circuit.gates[g]
        kind = gate.kind
        if kind is Kind.INPUT:
            if gate.index in known:
                value[g], reads[g] = known[gate.index], empty  # type: ignore[index]
            else:
                value[g], reads[g] = None, frozenset((gate.index,))  # type: ignore[arg-type]
            continue
        if kind is Kind.CONST:
            value[g], reads[g] = gate.value, empty
            continue
        args = [value[a] for a in gate.args]
        if all(v is not None for v in args):
            value[g], reads[g] = _apply(kind, args), empty  # type: ignore[arg-type]
        elif kind is Kind.MUL and any(v is not None and v == 0 for v in args):
            value[g], reads[g] = 0, empty
        else:
            value[g] = None
            acc: set[int] = set()
            for a in gate.args:
                if value[a] is None:
                    acc |= reads[a]
            reads[g] = frozenset(acc)
    out: set[int] = set()
    for r in roots:
        out |= reads[r]
    return [value[r] for r in roots], frozenset(out)


def concrete_outputs(circuit: Circuit, outputs: Sequence[int], known: Mapping[int, Number]) -> list[Number | None]:
    """The outputs' values when they are concrete under ``known`` (else None)."""
    return partial_evaluate(circuit, outputs, known)[0]


def _apply(kind: Kind, args: list[Number]) -> Number:
    if kind is Kind.ADD:
        total: Number = 0
        for v in args:
            total += v
        return total
    if kind is Kind.MUL:
        product: Number = 1
        for v in args:
            product *= v
        return product
    return sign(args[0])
