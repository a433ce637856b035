"""Small circuit gadgets shared by the constructions.

All of them expand into the strict basis through :class:`CircuitBuilder`.
Indicators over integer codes use either a Lagrange polynomial (no sign
gate, MATH.md §4.1) or ``1 − sign((v − c)²)``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

from ..circuits.builder import CircuitBuilder, Wire
from ..circuits.ir import Circuit


def lagrange_indicator(b: CircuitBuilder, v: Wire, code: int, codes: Sequence[int], name: str | None = None) -> Wire:
    """Π_{c'≠c} (v − c')/(c − c'): 1 at ``code``, 0 at the other ``codes``."""
    factors: list[Wire] = []
    denominator = Fraction(1)
    for other in codes:
        if other == code:
            continue
        factors.append(b.add(v, b.const(-other)))
        denominator *= code - other
    if not factors:
        return b.const(1)
    if denominator == 1 and len(factors) == 1:
        return factors[0]
    if denominator == 1:
        return _named(b, b.product_tree(factors[:-1]), factors[-1], name)
    return b.mul(b.const(1 / denominator), b.product_tree(factors), name=name)


def _named(b: CircuitBuilder, left: Wire, right: Wire, name: str | None) -> Wire:
    return b.mul(left, right, name=name)


def equals_indicator(b: CircuitBuilder, v: Wire, code: int, name: str | None = None) -> Wire:
    """[v = code] for integer v: 1 − sign((v − code)²)."""
    shifted = b.add(v, b.const(-code))
    return b.add(b.const(1), b.neg(b.sign(b.square(shifted))), name=name)


def differs_indicator(b: CircuitBuilder, v: Wire, code: int, name: str | None = None) -> Wire:
    """[v ≠ code] for integer v: sign((v − code)²)."""
    shifted = b.add(v, b.const(-code))
    return b.sign(b.square(shifted), name=name)


def select_update(b: CircuitBuilder, old: Wire, cases: Sequence[tuple[Wire, Wire]], name: str | None = None) -> Wire:
    """old + Σ selector·(new − old): each selector is 0 or 1, at most one is 1."""
    terms = [old]
    for selector, new in cases:
        terms.append(b.mul(selector, b.sub(new, old)))
    return b.add(*terms, name=name)


def key_distance_score(b: CircuitBuilder, key_i: Wire, key_j: Wire, penalty_j: Wire) -> Wire:
    """−(key_i − key_j)² − penalty_j."""
    diff = b.sub(key_i, key_j, name="key_diff")
    return b.add(b.neg(b.square(diff)), b.neg(penalty_j), name="score")


def operation_selectors(b: CircuitBuilder, op: Wire, mul_code: int, sign_code: int,
                        negative_codes: Sequence[int]) -> tuple[Wire, Wire, Wire]:
    """(is_add, is_mul, is_sign) for an integer code: add codes are the fan-ins ≥ 0,
    the others are the distinct negative ``negative_codes``.  One sign gate,
    sign(2·op + 1), separates the two groups; Lagrange polynomials pick among
    the negative codes."""
    t = b.sign(b.add(b.scale(2, op), b.const(1)), name="add_test")  # +1 for add codes, −1 otherwise
    is_add = b.scale(Fraction(1, 2), b.add(b.const(1), t), name="is_add")
    not_add = b.scale(Fraction(1, 2), b.add(b.const(1), b.neg(t)), name="not_add")
    is_mul = b.mul(not_add, lagrange_indicator(b, op, mul_code, negative_codes), name="is_mul")
    is_sign = b.mul(not_add, lagrange_indicator(b, op, sign_code, negative_codes), name="is_sign")
    return is_add, is_mul, is_sign


def operation_values(b: CircuitBuilder, op: Wire, m1: Wire, m2: Wire) -> tuple[Wire, Wire, Wire]:
    """The gate's value from the mean m1 and mean square m2 of its k inputs:
    add k·m1 (the 1/k rescaling), mul 2·m1² − m2 (polarization), sign sign(m1)."""
    add_value = b.mul(op, m1, name="add_value")
    mul_value = b.add(b.scale(2, b.square(m1)), b.neg(m2), name="mul_value")
    return add_value, mul_value, b.sign(m1, name="sign_value")


def unary_circuit(names: Sequence[str], build) -> Circuit:  # type: ignore[no-untyped-def]
    """A one-output circuit over inputs ``names``; ``build(b, wires)`` returns the output wire."""
    b = CircuitBuilder("hint")
    wires = {n: b.input(n) for n in names}
    b.output(build(b, wires))
    return b.build()
