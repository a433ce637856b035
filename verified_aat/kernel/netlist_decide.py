"""How the netlist link (``netlist_link.py``) decides a lemma, a node listing (``v`` variable, ``y`` operand, ``n``
numeral, ``+`` affine sum, ``mul``, ``sign``): docs/soundness.md N's shifted coordinates (its branch and bound, in
threshold mode only: ``netlist_threshold.py``)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from .data import Number, exact
from .sparse_poly import MAX_MONOMIALS, MAX_PRODUCT_WORK, SIGN_ATOM, Poly, TooLarge, add, mul

Node = tuple[Any, ...]


def children(node: Node) -> list[int]:
    """The nodes a listing node reads: a sum's terms, a product's factors, a sign's argument."""
    return [m for m, _ in node[2]] if node[0] == "+" else list(node[1]) if node[0] in ("mul", "sign") else []


def affine_literal(order: list[Node], node: Node) -> tuple[Node, Number, Number] | None:
    """(x, c, k) if ``node`` is an affine literal c + k·x of one variable node x (k ≠ 0), else None."""
    if node[0] == "+" and len(node[2]) == 1 and order[node[2][0][0]][0] in ("v", "y") and node[2][0][1] != 0:
        return order[node[2][0][0]], node[1], node[2][0][1]
    return None


# -- identities over all of R^k, as exact sparse polynomials (sparse_poly.py) --------------------------------

# Shifted coordinates z = x − a for the variables x of a lemma (docs/soundness.md N): (a per variable, a for the others)
Shift = tuple[dict[int, Number], Number]


def polynomials(order: list[tuple[Any, ...]], limit: int = MAX_PRODUCT_WORK,
                shift: Shift = ({}, 0)) -> list[Poly]:
    """The polynomial of every node of a lemma listing (``netlist_link._Prover._canonical``), each variable
    x written z + a; a sign node is an atom: an identity that holds for every value of it holds."""
    polys: list[Poly] = []
    work = 0
    for item in order:
        if item[0] in ("v", "y"):
            var = item[1] if item[0] == "v" else -1 - item[1]
            a = shift[0].get(var, shift[1])
            p: Poly = {(var,): 1, (): a} if a else {(var,): 1}
        elif item[0] == "n":
            p = {(): item[1]} if item[1] else {}
        elif item[0] == "+":
            p = {(): item[1]} if item[1] else {}
            for m, c in item[2]:
                add(p, polys[m], c)
        elif item[0] == "sign":
            p = {(SIGN_ATOM + len(polys),): 1}  # an opaque variable
        else:
            p = polys[item[1][0]]
            for m in item[1][1:]:  # a monomial is a tuple of its variables: degree costs as terms do (F1, round 4)
                work += len(p) * len(polys[m]) * (1 + _degree(p) + _degree(polys[m]))
                if work > limit:
                    raise TooLarge(f"more than {limit} term products")
                p = mul(p, polys[m])
        if len(p) > MAX_MONOMIALS:
            raise TooLarge(f"more than {MAX_MONOMIALS} monomials")
        polys.append(p)
    return polys


def _degree(p: Poly) -> int:
    return max(map(len, p), default=0)


def substitute(d: Poly, subs: list[Poly], limit: int = MAX_PRODUCT_WORK) -> Poly:
    """d after replacing y_i by subs[i], one y at a time (fewest terms first) until d vanishes:
    products of wide operands cancel before they would be expanded."""
    work = 0
    while d:
        ys = {v for mono in d for v in mono if v < 0}
        if not ys:
            return d
        y = min(ys, key=lambda v: (len(subs[-1 - v]), v))
        powers: list[Poly] = [{(): 1}]
        out: Poly = {}
        for mono, c in d.items():
            e = mono.count(y)
            while len(powers) <= e:
                work += len(powers[-1]) * len(subs[-1 - y]) * (1 + _degree(powers[-1]) + _degree(subs[-1 - y]))
                if work > limit:
                    raise TooLarge(f"more than {limit} term products")
                powers.append(mul(powers[-1], subs[-1 - y]))
            work += len(powers[e]) * (1 + len(mono) + _degree(powers[e]))
            if work > limit or len(out) > MAX_MONOMIALS:
                raise TooLarge(f"more than {MAX_MONOMIALS} monomials or {limit} term products")
            add(out, powers[e], c, tuple(v for v in mono if v != y))
        d = out
    return d


def difference(order: list[tuple[Any, ...]], lhs: int, rhs: int, bs: list[int], limit: int) -> Poly:
    """lhs − rhs with y_i = bs[i] substituted, in the first shift where it stays within the limits (each
    shift first with a fiftieth of them); zero iff the lemma is an identity.  ``TooLarge`` if none does."""
    shifts: list[Shift] = [({}, 0), (_literal_shifts(order), 0), ({}, Fraction(1, 2)), ({}, 1)]
    tries = [(budget, shift) for budget in (limit // 50, limit) for shift in shifts]
    for budget, shift in tries[:-1]:
        try:
            return _difference(order, lhs, rhs, bs, budget, shift)
        except TooLarge:
            pass
    return _difference(order, lhs, rhs, bs, *tries[-1])


def _difference(order: list[tuple[Any, ...]], lhs: int, rhs: int, bs: list[int], limit: int, shift: Shift) -> Poly:
    polys = polynomials(order, limit, shift)
    d = add(dict(polys[lhs]), polys[rhs], -1)
    if d and bs:  # y_i = F_i is u_i = F_i − a_i, for u_i = y_i − a_i
        d = substitute(d, [add(dict(polys[n]), {(): shift[0].get(-1 - i, shift[1])}, -1) for i, n in enumerate(bs)],
                       limit)
    return d


def _literal_shifts(order: list[tuple[Any, ...]]) -> dict[int, Number]:
    """Per variable x, the a that makes its first affine literal c + k·x in the listing a monomial k·z."""
    shifts: dict[int, Number] = {}
    for item in order:
        literal = affine_literal(order, item)
        if literal is not None:
            (kind, number), c, k = literal
            shifts.setdefault(number if kind == "v" else -1 - number, exact(-Fraction(c) / k))
    return shifts
