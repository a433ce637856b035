"""Exact normal forms for lemma terms: sparse polynomials over Q with sign atoms.

Why not sympy or python-flint here: a 10⁵-gate circuit has one add gate of
fan-in ~10⁵, whose lemma is a linear identity in ~10⁵ variables.  sympy
needs seconds to scale such a sum, and flint's multivariate contexts fix the
number of generators in advance.  A dict from monomials to Fractions handles
these in milliseconds; everything else about the normal form is the usual
one.  ``sgn(p)`` of a non-constant p becomes an atom variable keyed by p
scaled to leading coefficient 1, so sgn(2·y) = sgn(y) and sgn(−y) = −sgn(y).
Evaluation is lazy and products stop at a zero factor, so a branch that a
concrete selector switches off is never expanded.  Products are capped in
size; past the cap the normal form gives up (the caller falls back to Z3).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable

Monomial = tuple[tuple[int, int], ...]
Poly = dict[Monomial, Fraction]

MAX_TERMS = 200_000
ONE: Monomial = ()


class TooLarge(Exception):
    """A product would exceed :data:`MAX_TERMS` terms."""


def constant(value: Fraction) -> Poly:
    return {ONE: Fraction(value)} if value else {}


def variable(index: int) -> Poly:
    return {((index, 1),): Fraction(1)}


def add(*polys: Poly) -> Poly:
    if len(polys) == 1:
        return polys[0]
    out: Poly = dict(polys[0]) if polys else {}
    for p in polys[1:]:
        for mono, coef in p.items():
            value = out.get(mono, 0) + coef
            if value:
                out[mono] = value
            else:
                out.pop(mono, None)
    return out


def scale(p: Poly, factor: Fraction) -> Poly:
    if not factor:
        return {}
    return {m: c * factor for m, c in p.items()}


def _mono_mul(a: Monomial, b: Monomial) -> Monomial:
    if not a:
        return b
    if not b:
        return a
    merged: dict[int, int] = dict(a)
    for var, exp in b:
        merged[var] = merged.get(var, 0) + exp
    return tuple(sorted(merged.items()))


def mul(p: Poly, q: Poly) -> Poly:
    if len(p) == 1 and ONE in p:
        return scale(q, p[ONE])
    if len(q) == 1 and ONE in q:
        return scale(p, q[ONE])
    if len(p) * len(q) > MAX_TERMS:
        raise TooLarge
    out: Poly = {}
    for ma, ca in p.items():
        for mb, cb in q.items():
            m = _mono_mul(ma, mb)
            value = out.get(m, 0) + ca * cb
            if value:
                out[m] = value
            else:
                out.pop(m, None)
    return out


def constant_value(p: Poly) -> Fraction | None:
    if not p:
        return Fraction(0)
    if len(p) == 1 and ONE in p:
        return p[ONE]
    return None


class SignAtoms:
    """Interns sgn(p) for non-constant p as fresh variables."""

    def __init__(self, first_index: int):
        self.next = first_index
        self.atoms: dict[tuple, int] = {}
        self.atom_vars: set[int] = set()

    def sign(self, p: Poly) -> Poly:
        value = constant_value(p)
        if value is not None:
            return constant(Fraction((value > 0) - (value < 0)))
        lead = max(p)
        lc = p[lead]
        normal = {m: c / lc for m, c in p.items()}
        if len(normal) == 1 and len(lead) == 1 and lead[0][1] == 1 and lead[0][0] in self.atom_vars:
            atom = variable(lead[0][0])  # sgn(sgn(v)) = sgn(v)
        else:
            key = tuple(sorted(normal.items()))
            index = self.atoms.get(key)
            if index is None:
                index = self.atoms[key] = self.next
                self.atom_vars.add(index)
                self.next += 1
            atom = variable(index)
        return atom if lc > 0 else scale(atom, Fraction(-1))


class LazyEvaluator:
    """Evaluates the lemma fragment of SMT-LIB (define-fun, let, + - * /, sgn) to polynomials."""

    def __init__(self, functions: dict[str, tuple[list[str], Any]], variables: dict[str, int]):
        self.functions = functions
        self.variables = variables
        # sign atoms are numbered after every variable index, so an atom never shares one
        self.atoms = SignAtoms(max(variables.values(), default=-1) + 1)

    def value(self, expr: Any, env: dict[str, Callable[[], Poly]]) -> Poly:
        if isinstance(expr, str):
            if expr in env:
                return env[expr]()
            if expr in self.variables:
                return variable(self.variables[expr])
            return constant(Fraction(expr))
        head, *rest = expr
        if head == "let":
            inner = dict(env)
            for name, bound in rest[0]:
                inner[name] = self._thunk(bound, env)
            return self.value(rest[1], inner)
        if head == "*":
            product = constant(Fraction(1))
            for arg in rest:
                product = mul(product, self.value(arg, env))
                if not product:
                    return {}
            return product
        if head == "+":
            return add(*(self.value(a, env) for a in rest)) if rest else {}
        if head == "-":
            first = self.value(rest[0], env)
            if len(rest) == 1:
                return scale(first, Fraction(-1))
            return add(first, *(scale(self.value(a, env), Fraction(-1)) for a in rest[1:]))
        if head == "/":
            numerator = self.value(rest[0], env)
            divisor = constant_value(self.value(rest[1], env))
            if not divisor:
                raise ValueError("division by a non-constant or zero")
            return scale(numerator, 1 / divisor)
        if head == "sgn":
            return self.atoms.sign(self.value(rest[0], env))
        if head in self.functions:
            params, body = self.functions[head]
            return self.value(body, {p: self._thunk(a, env) for p, a in zip(params, rest)})
        raise ValueError(f"unsupported operator {head}")

    def _thunk(self, expr: Any, env: dict[str, Callable[[], Poly]]) -> Callable[[], Poly]:
        cache: list[Poly] = []

        def force() -> Poly:
            if not cache:
                cache.append(self.value(expr, env))
            return cache[0]

        return force
