"""The kernel's exact sparse polynomials over Q, with which ``netlist_link.py`` decides the
netlist link's lemmas (docs/soundness.md, N): a polynomial is a dict from monomials (sorted
tuples of variable numbers; y_i is −1 − i, a sign node an opaque atom) to non-zero rationals.
Every operation counts its work and raises :class:`TooLarge` past the limits (a rejection,
never a hang).
"""

from __future__ import annotations

from typing import Any

from .data import Number

MAX_MONOMIALS = 100_000       # terms of one polynomial
MAX_PRODUCT_WORK = 5_000_000  # term pairs multiplied for one lemma
Poly = dict[tuple[int, ...], Number]
SIGN_ATOM = 1 << 40           # variable number of a sign(…) node taken as an atom


class TooLarge(Exception):
    """A lemma beyond the kernel's size limits (a rejection, never a hang)."""


# -- exact sparse polynomials (monomial = sorted tuple of variables, y_i is -1-i) ---------------

def polynomials(order: list[tuple[Any, ...]], limit: int = MAX_PRODUCT_WORK) -> list[Poly]:
    """The polynomial of every node of a lemma listing (``netlist_link._Prover._canonical``);
    a sign node is an atom: an identity that holds for every value of it holds."""
    polys: list[Poly] = []
    work = 0
    for item in order:
        if item[0] in ("v", "y"):
            p: Poly = {(item[1] if item[0] == "v" else -1 - item[1],): 1}
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
            for m in item[1][1:]:
                work += len(p) * len(polys[m])
                if work > limit:
                    raise TooLarge(f"more than {limit} term products")
                p = _mul(p, polys[m])
        if len(p) > MAX_MONOMIALS:
            raise TooLarge(f"more than {MAX_MONOMIALS} monomials")
        polys.append(p)
    return polys


def add(out: Poly, q: Poly, c: Number = 1, shift: tuple[int, ...] = ()) -> Poly:
    """out += c·q·(the monomial ``shift``), in place."""
    for m, v in q.items():
        key = tuple(sorted(m + shift)) if shift else m
        s = out.get(key, 0) + c * v
        if s:
            out[key] = s
        else:
            out.pop(key, None)
    return out


def _mul(p: Poly, q: Poly) -> Poly:
    out: Poly = {}
    for m, c in p.items():
        add(out, q, c, m)
    return out


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
                work += len(powers[-1]) * len(subs[-1 - y])
                if work > limit:
                    raise TooLarge(f"more than {limit} term products")
                powers.append(_mul(powers[-1], subs[-1 - y]))
            work += len(powers[e])
            if work > limit or len(out) > MAX_MONOMIALS:
                raise TooLarge(f"more than {MAX_MONOMIALS} monomials or {limit} term products")
            add(out, powers[e], c, tuple(v for v in mono if v != y))
        d = out
    return d


def multiply(p: Poly, q: Poly) -> Poly:
    """p·q, within the size limits (``TooLarge`` past them)."""
    if len(p) * len(q) > MAX_PRODUCT_WORK:
        raise TooLarge(f"more than {MAX_PRODUCT_WORK} term products")
    out = _mul(p, q)
    if len(out) > MAX_MONOMIALS:
        raise TooLarge(f"more than {MAX_MONOMIALS} monomials")
    return out
