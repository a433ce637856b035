"""Families that use sign gates on rational inputs: ReLU, |x|, comparisons, max/min.

Identities used (s = sign(v), all exact over Q, MATH.md §2):

* |v| = v·s;   relu(v) = v/2 + (v/2)·s;   [v > 0] = s/2 + (s/2)·s.
* max(a, b) = b + h + h·sign(d) with d = a − b, h = d/2 (min: d = b − a, h = −d/2).

``max``/``min``/``argmax`` have constant depth 8 and quadratic size: input i
is the *first* maximum iff no j < i has x_j ≥ x_i and no j > i has x_j > x_i;
twice the number B_i of such j is a sum of sign terms, so
max = Σ_i x_i − Σ_i x_i·sign(2·B_i).  ``max-tree``/``min-tree`` are the
tournament versions: linear size, every gate of fan-in ≤ 2 (FNC⁰[sign]),
depth at most 5·ceil(log2 n).
"""

from __future__ import annotations

from fractions import Fraction

from ..builder import CircuitBuilder, Wire
from ..ir import Circuit, Domain
from ..measures import CircuitClass
from .base import Family
from .arithmetic import vector


HALF = Fraction(1, 2)


def greater_than_zero(b: CircuitBuilder, s: Wire, name: str | None = None) -> Wire:
    """[v > 0] = (s² + s)/2 from s = sign(v), as s/2 + (s/2)·s (3 levels)."""
    hs = b.scale(HALF, s)
    return b.add(hs, b.mul(hs, s), name=name)


def at_least_zero(b: CircuitBuilder, s: Wire, name: str | None = None) -> Wire:
    """[v >= 0] = 1 − (s² − s)/2 from s = sign(v), as 1 + s/2 + s·(−s/2) (3 levels)."""
    hs, nhs = b.scale(HALF, s), b.scale(-HALF, s)
    return b.add(b.const(1), hs, b.mul(s, nhs), name=name)


# -- builders ---------------------------------------------------------------
def build_relu(n: int) -> Circuit:
    """relu(x_i) = x_i/2 + (x_i/2)·sign(x_i), n outputs (depth 3)."""
    b = CircuitBuilder(f"relu-{n}")
    xs = vector(b, "x", n)
    half = b.const(HALF)  # the one constant gate scale() would look up per input
    for i, x in enumerate(xs, start=1):
        h = b.mul(half, x)
        b.output(b.add(h, b.mul(h, b.sign(x)), name=f"relu{i}"))
    return b.build()


def build_abs(n: int) -> Circuit:
    """|x_i| = x_i·sign(x_i), n outputs (depth 2)."""
    b = CircuitBuilder(f"abs-{n}")
    for i, x in enumerate(vector(b, "x", n), start=1):
        b.output(b.mul(x, b.sign(x), name=f"abs{i}"))
    return b.build()


def build_compare(n: int) -> Circuit:
    """Per pair i: outputs [x_i > y_i] (depth 6) and sign(x_i − y_i) (depth 3)."""
    b = CircuitBuilder(f"compare-{n}")
    xs, ys = vector(b, "x", n), vector(b, "y", n)
    for i, (x, y) in enumerate(zip(xs, ys), start=1):
        s = b.sign(b.sub(x, y), name=f"cmp{i}")
        b.output(greater_than_zero(b, s, name=f"gt{i}"))
        b.output(s)
    return b.build()


def build_wide_sum_sign(n: int) -> Circuit:
    """sign(x1 + ... + xn): one wide add under one sign (depth 2)."""
    b = CircuitBuilder(f"wide-sum-sign-{n}")
    b.output(b.sign(b.add(*vector(b, "x", n)), name="sign"))
    return b.build()


def _beaten(b: CircuitBuilder, xs: list[Wire], largest: bool) -> tuple[list[Wire], list[Wire]]:
    """(sign(2·B_i), −x_i) per i, where B_i counts the j that beat i (module doc)."""
    negs = [b.neg(x) for x in xs]
    terms: list[list[Wire]] = [[b.const(2 * j)] if j else [] for j in range(len(xs))]
    for i in range(len(xs)):
        for j in range(i + 1, len(xs)):
            d_ij, d_ji = b.add(xs[i], negs[j]), b.add(xs[j], negs[i])
            if not largest:
                d_ij, d_ji = d_ji, d_ij
            t, u = b.sign(d_ij), b.sign(d_ji)          # u = −t
            terms[i] += [b.mul(t, t), u]               # 2·[x_j beats x_i], j > i
            terms[j] += [b.mul(t, u), t]               # 2·[x_i beats x_j] − 2, i < j
    return [b.sign(b.add(*ts)) for ts in terms], negs


def _build_extreme(n: int, largest: bool) -> Circuit:
    b = CircuitBuilder(f"{'max' if largest else 'min'}-{n}")
    xs = vector(b, "x", n)
    sigmas, negs = _beaten(b, xs, largest)
    b.output(b.add(*xs, *[b.mul(nx, s) for nx, s in zip(negs, sigmas)],
                   name="max" if largest else "min"))
    return b.build()


def build_max(n: int) -> Circuit:
    """max(x1..xn) in constant depth 8, O(n²) gates."""
    return _build_extreme(n, True)


def build_min(n: int) -> Circuit:
    """min(x1..xn) in constant depth 8, O(n²) gates."""
    return _build_extreme(n, False)


def build_argmax(n: int) -> Circuit:
    """One-hot indicator of the leftmost maximum, n outputs (depth 8)."""
    b = CircuitBuilder(f"argmax-{n}")
    sigmas, _ = _beaten(b, vector(b, "x", n), True)
    for i, s in enumerate(sigmas, start=1):
        b.output(b.add(b.const(1), b.neg(s), name=f"first_max{i}"))
    return b.build()


def _build_tree(n: int, largest: bool) -> Circuit:
    b = CircuitBuilder(f"{'max' if largest else 'min'}-tree-{n}")
    layer = vector(b, "x", n)
    factor = HALF if largest else -HALF
    while len(layer) > 1:
        nxt: list[Wire] = []
        for k in range(0, len(layer) - 1, 2):
            p, q = layer[k], layer[k + 1]
            d = b.sub(p, q) if largest else b.sub(q, p)
            h = b.scale(factor, d)
            nxt.append(b.add(b.add(q, h), b.mul(h, b.sign(d))))
        if len(layer) % 2:
            nxt.append(layer[-1])
        layer = nxt
    b.output(layer[0], name="max" if largest else "min")
    return b.build()


def build_max_tree(n: int) -> Circuit:
    """max(x1..xn) by a tournament of fan-in-2 gates (depth <= 5·ceil(log2 n))."""
    return _build_tree(n, True)


def build_min_tree(n: int) -> Circuit:
    """min(x1..xn) by a tournament of fan-in-2 gates (depth <= 5·ceil(log2 n))."""
    return _build_tree(n, False)


# -- references -------------------------------------------------------------
def ref_relu(xs: list[Fraction]) -> list[Fraction]:
    return [max(Fraction(x), Fraction(0)) for x in xs]


def ref_abs(xs: list[Fraction]) -> list[Fraction]:
    return [Fraction(abs(x)) for x in xs]


def ref_compare(xs: list[Fraction]) -> list[Fraction]:
    n = len(xs) // 2
    out: list[Fraction] = []
    for x, y in zip(xs[:n], xs[n:]):
        out += [Fraction(int(x > y)), Fraction((x > y) - (x < y))]
    return out


def ref_wide_sum_sign(xs: list[Fraction]) -> list[Fraction]:
    total = sum(xs)
    return [Fraction((total > 0) - (total < 0))]


def ref_max(xs: list[Fraction]) -> list[Fraction]:
    return [Fraction(max(xs))]


def ref_min(xs: list[Fraction]) -> list[Fraction]:
    return [Fraction(min(xs))]


def ref_argmax(xs: list[Fraction]) -> list[Fraction]:
    first = xs.index(max(xs))
    return [Fraction(int(i == first)) for i in range(len(xs))]


QUADRATIC_MAX_N = 1000
"""n limit for the O(n²) families (n = 1000 is about 3·10⁶ gates)."""


def families() -> list[Family]:
    R, FSAC0, FNC0 = Domain.RATIONALS, CircuitClass.FSAC0, CircuitClass.FNC0
    one = lambda n: n  # noqa: E731
    two = lambda n: 2 * n  # noqa: E731
    return [
        Family("relu", "relu(x_i) = x_i/2 + (x_i/2)*sign(x_i) for each of n inputs (depth 3)",
               1, build_relu, ref_relu, R, one, FNC0, True, True),
        Family("abs", "|x_i| = x_i*sign(x_i) for each of n inputs (depth 2)",
               1, build_abs, ref_abs, R, one, FNC0, True, True),
        Family("compare", "per pair: [x_i > y_i] and sign(x_i - y_i); inputs x1..xn, y1..yn (depth 6)",
               1, build_compare, ref_compare, R, two, FNC0, True, True),
        Family("wide-sum-sign", "sign(x1 + ... + xn), one wide add under a sign (depth 2)",
               1, build_wide_sum_sign, ref_wide_sum_sign, R, one, FSAC0, True, True),
        Family("max", "max(x1..xn) in constant depth 8 via first-maximum indicators, O(n^2) gates",
               1, build_max, ref_max, R, one, FSAC0, True, True, QUADRATIC_MAX_N),
        Family("min", "min(x1..xn) in constant depth 8 via first-minimum indicators, O(n^2) gates",
               1, build_min, ref_min, R, one, FSAC0, True, True, QUADRATIC_MAX_N),
        Family("argmax", "one-hot indicator of the leftmost maximum of x1..xn (depth 8), O(n^2) gates",
               1, build_argmax, ref_argmax, R, one, FSAC0, True, True, QUADRATIC_MAX_N),
        Family("max-tree", "max(x1..xn) by a tournament, max(a,b) = b + relu(a-b); fan-in <= 2, depth <= 5 log2 n",
               1, build_max_tree, ref_max, R, one, FNC0, True, False),
        Family("min-tree", "min(x1..xn) by a tournament, min(a,b) = b - relu(b-a); fan-in <= 2, depth <= 5 log2 n",
               1, build_min_tree, ref_min, R, one, FNC0, True, False),
    ]
