"""Threshold-style families meant for bits x_i ∈ {0, 1} (domain ``boolean``).

A threshold gate [Σ x_i ≥ θ] is one unbounded add and one sign (MATH.md §2):
with s = sign(Σ x_i − θ), [v ≥ 0] = 1 − (s² − s)/2 and [v > 0] = (s² + s)/2.
The circuits compute these formulas exactly on every rational input, so the
reference functions below are stated for rationals too; the domain says only
what the circuits are meant for.
"""

from __future__ import annotations

from fractions import Fraction

from ..builder import CircuitBuilder
from ..ir import Circuit, Domain
from ..measures import CircuitClass
from .base import Family
from .arithmetic import vector
from .signs import at_least_zero, greater_than_zero


def threshold_of(n: int) -> int:
    """The threshold θ = n // 3 + 1 used by the ``threshold`` family."""
    return n // 3 + 1


def build_threshold(n: int) -> Circuit:
    """[x1 + ... + xn ≥ n//3 + 1] (depth 5)."""
    b = CircuitBuilder(f"threshold-{n}", Domain.BOOLEAN)
    v = b.add(*vector(b, "x", n), b.const(-threshold_of(n)))
    b.output(at_least_zero(b, b.sign(v), name="threshold"))
    return b.build()


def build_majority(n: int) -> Circuit:
    """[x1 + ... + xn > n/2] (strict; depth 5)."""
    b = CircuitBuilder(f"majority-{n}", Domain.BOOLEAN)
    v = b.add(*vector(b, "x", n), b.const(Fraction(-n, 2)))
    b.output(greater_than_zero(b, b.sign(v), name="majority"))
    return b.build()


def build_parity(n: int) -> Circuit:
    """Σ_{k odd, 1 ≤ k ≤ n} [S = k] with S = Σ x_i and [v = 0] = 1 − sign(v)² (depth 6)."""
    b = CircuitBuilder(f"parity-{n}", Domain.BOOLEAN)
    total = b.add(*vector(b, "x", n), name="count")
    odd = range(1, n + 1, 2)
    terms = [b.const(len(odd))]
    for k in odd:
        s = b.sign(b.add(total, b.const(-k)))
        terms.append(b.mul(s, b.neg(s)))          # −sign(S − k)²
    b.output(b.add(*terms, name="parity"))
    return b.build()


def ref_threshold(xs: list[Fraction]) -> list[Fraction]:
    return [Fraction(int(sum(xs) >= threshold_of(len(xs))))]


def ref_majority(xs: list[Fraction]) -> list[Fraction]:
    return [Fraction(int(2 * sum(xs) > len(xs)))]


def ref_parity(xs: list[Fraction]) -> list[Fraction]:
    total = Fraction(sum(xs))
    hit = total.denominator == 1 and 1 <= total <= len(xs) and total.numerator % 2 == 1
    return [Fraction(int(hit))]


def families() -> list[Family]:
    B, FSAC0 = Domain.BOOLEAN, CircuitClass.FSAC0
    one = lambda n: n  # noqa: E731
    return [
        Family("threshold", "[x1 + ... + xn >= n//3 + 1] for bits, one wide add and one sign (depth 5)",
               1, build_threshold, ref_threshold, B, one, FSAC0, True, True),
        Family("majority", "[x1 + ... + xn > n/2] for bits (strict majority; depth 5)",
               1, build_majority, ref_majority, B, one, FSAC0, True, True),
        Family("parity", "x1 xor ... xor xn for bits as sum over odd k of [sum = k] (depth 6, O(n) gates)",
               1, build_parity, ref_parity, B, one, FSAC0, True, True),
    ]
