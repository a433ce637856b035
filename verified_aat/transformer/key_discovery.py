"""Finding key decompositions in a score's own circuit (unproved: the engine proves each one).

A score of the form −(a(x) − b(y))² + pen(y) + c(x) (up to how its terms are grouped) has the
key decomposition row_key = a, col_key = b, col_penalty = −pen; :func:`discover_hint` reads it
off the circuit.  Nothing trusts the result: :class:`~.key_join.KeyDecompositions` proves its
lemma like any other decomposition's before the join is used.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from ..circuits.builder import CircuitBuilder
from ..circuits.ir import Circuit, Kind
from .model import CircuitScore, Score


@dataclass(frozen=True)
class FoundHint:
    """A key decomposition found in a score's own circuit by :func:`discover_hint` (unproved)."""

    row_key: Circuit
    col_key: Circuit
    col_penalty: Circuit
    facts: tuple[tuple[str, Fraction], ...] = ()



# -- finding a decomposition in the score itself --------------------------------------

def discover_hint(score: Score, d: int) -> FoundHint | None:
    """A decomposition read off a score circuit of the form −(a(x) − b(y))² + pen(y) + c(x).

    The score is flattened into signed terms through adds and multiplications by the
    constant −1.  Exactly one term must be a square D·D with sign −1, where D flattens
    into terms that read only x (a) or only y (−b) or nothing; every other term must read
    only x (ignored: it does not depend on y) or only y or nothing (the penalty, negated).
    Nothing is trusted: the caller proves :func:`hint_lemma` for it like any other hint.
    """
    if not isinstance(score, CircuitScore):
        return None
    circuit = score.circuit
    side = _sides(circuit, d)
    terms = _signed_terms(circuit, circuit.outputs[0], 1)
    squares = [(sign, g) for sign, g in terms if side[g] == _X | _Y]
    if len(squares) != 1:
        return None
    sign, g = squares[0]
    inner = _square_of(circuit, g)
    if inner is None or sign * inner[0] != -1:
        return None
    row: list[tuple[int, int]] = []
    col: list[tuple[int, int]] = []
    for s, t in _signed_terms(circuit, inner[1], 1):
        if side[t] == _X | _Y:
            return None
        (col if side[t] == _Y else row).append((s, t))
    penalty = [(-s, t) for s, t in terms if side[t] == _Y]
    return FoundHint(_extract(circuit, row, d, 0), _extract(circuit, [(-s, t) for s, t in col], d, d),
                     _extract(circuit, penalty, d, d))


_X, _Y = 1, 2


def _sides(circuit: Circuit, d: int) -> list[int]:
    """Per gate: bit _X if it reads an i-coordinate, _Y if a j-coordinate."""
    out: list[int] = []
    for gate in circuit.gates:
        if gate.kind is Kind.INPUT:
            out.append(_X if gate.index < d else _Y)  # type: ignore[operator]
        else:
            s = 0
            for a in gate.args:
                s |= out[a]
            out.append(s)
    return out


def _minus_one(circuit: Circuit, g: int) -> bool:
    gate = circuit.gates[g]
    return gate.kind is Kind.CONST and gate.value == -1


def _signed_terms(circuit: Circuit, g: int, sign: int) -> list[tuple[int, int]]:
    """g as Σ ±term, looking through adds and products with the constant −1."""
    gate = circuit.gates[g]
    if gate.kind is Kind.ADD:
        return [term for a in gate.args for term in _signed_terms(circuit, a, sign)]
    if gate.kind is Kind.MUL and len(gate.args) == 2:
        first, second = gate.args
        if _minus_one(circuit, first) and not _minus_one(circuit, second):
            return _signed_terms(circuit, second, -sign)
        if _minus_one(circuit, second) and not _minus_one(circuit, first):
            return _signed_terms(circuit, first, -sign)
    return [(sign, g)]


def _square_of(circuit: Circuit, g: int) -> tuple[int, int] | None:
    """(±1, D) when gate g is ±D·D (a product of D, D and constants −1)."""
    gate = circuit.gates[g]
    if gate.kind is not Kind.MUL:
        return None
    minus = [a for a in gate.args if _minus_one(circuit, a)]
    rest = [a for a in gate.args if not _minus_one(circuit, a)]
    if len(rest) != 2 or rest[0] != rest[1]:
        return None
    return (-1) ** len(minus), rest[0]


def _extract(circuit: Circuit, terms: list[tuple[int, int]], d: int, offset: int) -> Circuit:
    """One circuit over ``v.<k>`` (k < d) computing Σ ±term; score input k + offset becomes v.k."""
    b = CircuitBuilder("found-key")
    wires = b.inputs([f"v.{k}" for k in range(d)])
    memo: dict[int, int] = {}

    def copy(g: int) -> int:
        if g in memo:
            return memo[g]
        gate = circuit.gates[g]
        if gate.kind is Kind.INPUT:
            w = wires[gate.index - offset]  # type: ignore[operator]
        elif gate.kind is Kind.CONST:
            w = b.const(gate.value)  # type: ignore[arg-type]
        else:
            args = [copy(a) for a in gate.args]
            if gate.kind is Kind.SIGN:
                w = b.sign(args[0])
            else:
                w = b.add(*args) if gate.kind is Kind.ADD else b.mul(*args)
        memo[g] = w
        return w

    parts = [copy(t) if s > 0 else b.neg(copy(t)) for s, t in terms]
    b.output(parts[0] if len(parts) == 1 else b.add(*parts))  # no terms: an add of fan-in 0, i.e. 0
    return b.build()
