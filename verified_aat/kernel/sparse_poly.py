"""Exact sparse polynomials over Q, the normal form of S12a, S12c and N (docs/soundness.md): a dict from monomials
(sorted tuples of variable numbers; y_i is −1 − i, a sign node an opaque atom) to non-zero rationals. Past the limits
an operation raises :class:`TooLarge` (the lemma is not decided, never a hang)."""

from __future__ import annotations

from .data import MAX_BITS, Number, bits

MAX_MONOMIALS = 100_000       # terms of one polynomial
MAX_PRODUCT_WORK = 5_000_000  # term pairs multiplied for one lemma
Poly = dict[tuple[int, ...], Number]
SIGN_ATOM = 1 << 40           # variable number of a sign(…) node taken as an atom


class TooLarge(Exception):
    """A lemma beyond the kernel's size limits: not decided (neither proved nor refuted), never a hang."""


def add(out: Poly, q: Poly, c: Number = 1, shift: tuple[int, ...] = ()) -> Poly:
    """out += c·q·(the monomial ``shift``), in place; ``TooLarge`` for a coefficient past MAX_BITS bits (a sum of
    fractions grows with every term: one of 1,500 of 2,000 digits each took minutes)."""
    scaled: dict[int, Number] = {}  # c·v once per value object of q (alive all along: no caller passes out is q)
    for m, v in q.items():
        key = tuple(sorted(m + shift)) if shift else m
        cv = scaled[id(v)] if id(v) in scaled else scaled.setdefault(id(v), c * v)
        s = out[key] + cv if key in out else cv
        if s:
            out[key] = s
            if bits(s) > MAX_BITS:
                raise TooLarge(f"a coefficient past {MAX_BITS} bits")
        else:
            out.pop(key, None)
    return out


def mul(p: Poly, q: Poly) -> Poly:
    """p·q with no limit: the caller counts the work."""
    out: Poly = {}
    for m, c in p.items():
        add(out, q, c, m)
    return out


def multiply(p: Poly, q: Poly) -> Poly:
    """p·q, within the size limits (``TooLarge`` past them)."""
    if len(p) * len(q) > MAX_PRODUCT_WORK:
        raise TooLarge(f"more than {MAX_PRODUCT_WORK} term products")
    out = mul(p, q)
    if len(out) > max(MAX_MONOMIALS, len(p), len(q)):  # no larger than a factor (a constant times a long sum)
        raise TooLarge(f"more than {MAX_MONOMIALS} monomials")
    return out
