"""Sign-free families: sums, products, inner products, a polynomial identity.

Inputs are named ``x1 .. xn`` (then ``y1 .. yn``, ``z1 .. zn`` for families
with several vectors), in that order.
"""

from __future__ import annotations

from fractions import Fraction
from math import prod

from ..builder import CircuitBuilder, Wire
from ..ir import Circuit, Domain, Kind
from ..measures import CircuitClass
from .base import Family


def vector(b: CircuitBuilder, letter: str, n: int) -> list[Wire]:
    """Inputs ``letter1 .. letter{n}``."""
    return b.inputs(f"{letter}{i}" for i in range(1, n + 1))


def add_tree(b: CircuitBuilder, args: list[Wire]) -> Wire:
    """A balanced tree of binary additions (depth ceil(log2 k)); 0 for k = 0."""
    return b.tree(Kind.ADD, args) if args else b.add()


# -- builders ---------------------------------------------------------------
def build_sum(n: int) -> Circuit:
    """x1 + ... + xn as one add gate of fan-in n (depth 1; n = 0 gives 0)."""
    b = CircuitBuilder(f"sum-{n}")
    b.output(b.add(*vector(b, "x", n), name="sum"))
    return b.build()


def build_sum_tree(n: int) -> Circuit:
    """x1 + ... + xn by a balanced tree of binary adds (FNC⁰, depth ceil(log2 n))."""
    b = CircuitBuilder(f"sum-tree-{n}")
    b.output(add_tree(b, vector(b, "x", n)), name="sum")
    return b.build()


def build_inner_product(n: int) -> Circuit:
    """Σ x_i·y_i: n binary products and one add of fan-in n (depth 2)."""
    b = CircuitBuilder(f"inner-product-{n}")
    xs, ys = vector(b, "x", n), vector(b, "y", n)
    b.output(b.add(*[b.mul(x, y) for x, y in zip(xs, ys)], name="dot"))
    return b.build()


def build_sum_of_products(n: int) -> Circuit:
    """Σ x_i·y_i·z_i: triple products as binary product trees, one sum (depth 3)."""
    b = CircuitBuilder(f"sum-of-products-{n}")
    xs, ys, zs = vector(b, "x", n), vector(b, "y", n), vector(b, "z", n)
    b.output(b.add(*[b.product_tree([x, y, z]) for x, y, z in zip(xs, ys, zs)], name="total"))
    return b.build()


def build_power_sum(n: int) -> Circuit:
    """Σ x_i³ with x³ = (x·x)·x (depth 3)."""
    b = CircuitBuilder(f"power-sum-{n}")
    xs = vector(b, "x", n)
    b.output(b.add(*[b.mul(b.square(x), x) for x in xs], name="cubes"))
    return b.build()


def build_product_tree(n: int) -> Circuit:
    """x1·...·xn by a balanced tree of binary products (FNC⁰, depth ceil(log2 n))."""
    b = CircuitBuilder(f"product-tree-{n}")
    b.output(b.product_tree(vector(b, "x", n)), name="product")
    return b.build()


def build_unbounded_product(n: int) -> Circuit:
    """x1·...·xn as ONE mul gate of fan-in n: FAC⁰, outside FSAC⁰ for n >= 3."""
    b = CircuitBuilder(f"unbounded-product-{n}")
    b.output(b.mul(*vector(b, "x", n), name="product"))
    return b.build()


def build_polynomial_identity(n: int) -> Circuit:
    """Per i, the pair (x_i+y_i)² and x_i² + x_i·y_i + x_i·y_i + y_i² (equal; depth 2).

    The second add lists the product gate twice (a multi-edge).
    """
    b = CircuitBuilder(f"polynomial-identity-{n}")
    xs, ys = vector(b, "x", n), vector(b, "y", n)
    for i, (x, y) in enumerate(zip(xs, ys), start=1):
        s = b.add(x, y)
        xy = b.mul(x, y)
        b.output(b.square(s, name=f"lhs{i}"))
        b.output(b.add(b.square(x), xy, xy, b.square(y), name=f"rhs{i}"))
    return b.build()


# -- references (plain Python, no circuit) ----------------------------------
def _halves(xs: list[Fraction], parts: int) -> list[list[Fraction]]:
    n = len(xs) // parts
    return [xs[k * n:(k + 1) * n] for k in range(parts)]


def ref_sum(xs: list[Fraction]) -> list[Fraction]:
    return [Fraction(sum(xs))]


def ref_inner_product(xs: list[Fraction]) -> list[Fraction]:
    x, y = _halves(xs, 2)
    return [Fraction(sum(a * b for a, b in zip(x, y)))]


def ref_sum_of_products(xs: list[Fraction]) -> list[Fraction]:
    x, y, z = _halves(xs, 3)
    return [Fraction(sum(a * b * c for a, b, c in zip(x, y, z)))]


def ref_power_sum(xs: list[Fraction]) -> list[Fraction]:
    return [Fraction(sum(a**3 for a in xs))]


def ref_product(xs: list[Fraction]) -> list[Fraction]:
    return [Fraction(prod(xs))]


def ref_polynomial_identity(xs: list[Fraction]) -> list[Fraction]:
    x, y = _halves(xs, 2)
    out: list[Fraction] = []
    for a, b in zip(x, y):
        value = Fraction((a + b) ** 2)
        out += [value, value]
    return out


def families() -> list[Family]:
    R, FSAC0, FNC0, FAC0 = Domain.RATIONALS, CircuitClass.FSAC0, CircuitClass.FNC0, CircuitClass.FAC0
    return [
        Family("sum", "x1 + ... + xn, one add gate of fan-in n (n = 0: the empty sum 0)",
               0, build_sum, ref_sum, R, lambda n: n, FSAC0, False, True),
        Family("sum-tree", "x1 + ... + xn by a balanced tree of binary adds (depth ceil(log2 n))",
               1, build_sum_tree, ref_sum, R, lambda n: n, FNC0, False, False),
        Family("inner-product", "sum_i x_i*y_i over inputs x1..xn, y1..yn (depth 2)",
               1, build_inner_product, ref_inner_product, R, lambda n: 2 * n, FSAC0, False, True),
        Family("sum-of-products", "sum_i x_i*y_i*z_i over x1..xn, y1..yn, z1..zn; binary product trees (depth 3)",
               1, build_sum_of_products, ref_sum_of_products, R, lambda n: 3 * n, FSAC0, False, True),
        Family("power-sum", "sum_i x_i^3, cubes as (x*x)*x (depth 3)",
               1, build_power_sum, ref_power_sum, R, lambda n: n, FSAC0, False, True),
        Family("product-tree", "x1*...*xn by a balanced tree of binary muls (FNC0, depth ceil(log2 n))",
               1, build_product_tree, ref_product, R, lambda n: n, FNC0, False, False),
        Family("unbounded-product", "x1*...*xn as ONE mul of fan-in n: FAC0, outside FSAC0 (n >= 3)",
               3, build_unbounded_product, ref_product, R, lambda n: n, FAC0, False, True),
        Family("polynomial-identity", "per i: (x_i+y_i)^2 and x_i^2 + 2 x_i y_i + y_i^2 side by side (depth 2)",
               1, build_polynomial_identity, ref_polynomial_identity, R, lambda n: 2 * n, FSAC0, False, True),
    ]
