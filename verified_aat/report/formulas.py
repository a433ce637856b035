"""A lemma's SMT-LIB text as formulas people read: sympy expressions printed as MathML.

A lemma (docs/certificates.md, "Rendering an obligation") defines ``sgn``, maybe some
``out_<coord>`` functions (an activation's cone, ``let``-bound per gate), declares its
variables and asserts ``(not φ)``.  The report shows φ — the identity that was proved for
all values of the variables — and each ``out_<coord>`` as an equation, with ``let``s
inlined.  Numerals are exact (``sympy.Rational``); ``sgn`` stays an unevaluated function.
MathML is rendered by the browser itself: no script, no network.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import sympy

from ..circuits.rationals import read_numeral
from .mathml_terms import TooLarge, chunks_html, sympy_chunks, written_chunks

CLAIM_LABEL = "the identity, for all real values of the variables"
MAX_TEXT = 8000
"""Lemmas longer than this (characters of SMT-LIB) are shown as text only."""

MAX_INLINED = 20_000
"""Nodes of a lemma's form with its ``let``s inlined, past which it is shown as text only: sympy prints a bound name
at each use, so k nested lets that each use the previous one twice print 2^k terms (a 2 KB lemma of 60 such lets kept
``report`` busy for hours; red team, round 12)."""
MAX_NESTING = 200  # levels of one form that are typeset (the conversion and sympy's printer recurse)

_TOKEN = re.compile(r"\(|\)|[^\s()]+")


class sgn(sympy.Function):  # noqa: N801 - the name printed in formulas
    """sign(v) ∈ {−1, 0, 1}, kept unevaluated so the formula is the lemma's own."""


@dataclass(frozen=True)
class Formula:
    """One rendered equation: a label and its MathML (``<math>`` element)."""

    label: str
    mathml: str


def parse_sexprs(text: str) -> list[Any]:
    """The top-level s-expressions of ``text`` (comments dropped); atoms stay strings."""
    stack: list[list[Any]] = [[]]
    for line in text.splitlines():
        line = line.split(";", 1)[0]
        for token in _TOKEN.findall(line):
            if token == "(":
                stack.append([])
            elif token == ")":
                if len(stack) == 1:
                    raise ValueError("unbalanced ')'")
                done = stack.pop()
                stack[-1].append(done)
            else:
                stack[-1].append(token)
    if len(stack) != 1:
        raise ValueError("unbalanced '('")
    return stack[0]


def _small(form: Any) -> bool:
    """Whether ``form`` with its lets inlined has at most MAX_INLINED nodes and MAX_NESTING levels (linear in its
    text: a bound name's size is computed once, where it is bound)."""
    def size(t: Any, env: dict[str, int], depth: int) -> int:
        if isinstance(t, str):
            return env.get(t, 1)
        if depth > MAX_NESTING:
            return MAX_INLINED + 1
        if len(t) == 3 and t[0] == "let" and isinstance(t[1], list):
            inner = dict(env)
            for binding in t[1]:
                if isinstance(binding, list) and len(binding) == 2 and isinstance(binding[0], str):
                    inner[binding[0]] = size(binding[1], env, depth + 1)
            return size(t[2], inner, depth + 1)
        total = 1
        for a in t:
            total += size(a, env, depth + 1)
            if total > MAX_INLINED:
                break
        return total

    return size(form, {}, 0) <= MAX_INLINED


class _Converter:
    """SMT-LIB terms (QF_NRA, as the lemma printer writes them) to sympy."""

    def __init__(self, evaluate: bool = True) -> None:
        self.symbols: dict[str, sympy.Symbol] = {}
        self.functions: dict[str, Any] = {}
        self.evaluate = evaluate

    def symbol(self, name: str) -> sympy.Symbol:
        if name not in self.symbols:
            self.symbols[name] = sympy.Symbol(name.replace("_", "."), real=True)
        return self.symbols[name]

    def term(self, t: Any, env: dict[str, Any]) -> Any:
        if isinstance(t, str):
            if t in env:
                return env[t]
            if re.fullmatch(r"[0-9]+(\.[0-9]+)?", t):
                return sympy.Rational(read_numeral(t))
            return self.symbol(t)
        head, args = t[0], t[1:]
        if head == "let":
            inner = dict(env)
            for name, value in args[0]:
                inner[name] = self.term(value, env)
            return self.term(args[1], inner)
        values = [self.term(a, env) for a in args]
        ev = self.evaluate
        if head == "+":
            return sympy.Add(*values, evaluate=ev)
        if head == "*":
            return sympy.Mul(*values, evaluate=ev)
        if head == "-":
            if len(values) == 1:
                return sympy.Mul(-1, values[0], evaluate=ev)
            return sympy.Add(values[0], *(sympy.Mul(-1, v, evaluate=ev) for v in values[1:]), evaluate=ev)
        if head == "/":
            return sympy.Mul(values[0], sympy.Pow(values[1], -1, evaluate=ev), evaluate=ev)
        if head == "sgn":
            return sgn(values[0])
        if head == "=":
            return sympy.Eq(values[0], values[1], evaluate=False)
        if head == "and":
            return sympy.And(*values, evaluate=False)
        if head == "not":
            return sympy.Not(values[0], evaluate=False)
        if head in (">", "<", ">=", "<="):
            return {">": sympy.Gt, "<": sympy.Lt, ">=": sympy.Ge, "<=": sympy.Le}[head](*values, evaluate=False)
        if head == "ite":
            return sympy.Piecewise((values[1], values[0]), (values[2], True))
        if head not in self.functions:
            self.functions[head] = sympy.Function(head.replace("_", "."))
        return self.functions[head](*values)


def lemma_formulas(smt2: str) -> list[Formula]:
    """The definitions and the claimed identity of one lemma, as MathML; [] if the text is too large.

    Sums and products are collected by sympy (readable); a claim that collecting makes trivial
    (both sides equal, as in a key-decomposition lemma) is shown as written instead."""
    if len(smt2) > MAX_TEXT:
        return []
    conv = _Converter()
    formulas: list[Formula] = []
    for form in parse_sexprs(smt2):
        if not isinstance(form, list) or not form:
            continue
        if not _small(form):
            return []
        if form[0] == "define-fun" and form[1] != "sgn":
            formulas.append(_definition(conv, form))
        elif form[0] == "assert":
            claim = form[1][1] if isinstance(form[1], list) and form[1][:1] == ["not"] else ["not", form[1]]
            expr = conv.term(claim, {})
            if isinstance(expr, sympy.Eq) and expr.lhs == expr.rhs:  # collected into x = x: show the lemma's own terms
                try:
                    formulas.append(Formula(CLAIM_LABEL, chunks_html(written_chunks(claim))))
                except (TooLarge, ValueError, IndexError, TypeError, ZeroDivisionError):
                    return []
                continue
            formulas.append(Formula(CLAIM_LABEL, _math(expr)))
    return formulas


def _definition(conv: _Converter, form: list[Any]) -> Formula:
    """``(define-fun f ((p Real) …) Real body)`` as the equation f(p, …) = body."""
    params = [conv.symbol(p[0]) for p in form[2]]
    body = conv.term(form[4], {p[0]: s for p, s in zip(form[2], params)})
    call = sympy.Function(form[1].replace("_", "."))(*params)
    return Formula(f"definition of {form[1]}", _math(sympy.Eq(call, body, evaluate=False)))


def _math(expr: Any) -> str:
    """``expr`` as wrapping MathML: one ``<math>`` per summand (see :mod:`.mathml_terms`)."""
    return chunks_html(sympy_chunks(expr))


HYPOTHESIS_LABEL = "hypothesis"
HYPOTHESES_CLAIM_LABEL = "the claim, for all real values of the variables satisfying the hypotheses"


class _ConverterWithOr(_Converter):
    """As :class:`_Converter`, with ``or`` (schematic lemmas' hypotheses state orders as disjunctions)."""

    def term(self, t: Any, env: dict[str, Any]) -> Any:
        if isinstance(t, list) and t[:1] == ["or"]:
            return sympy.Or(*(self.term(a, env) for a in t[1:]), evaluate=False)
        return super().term(t, env)


def hypothesis_formulas(smt2: str) -> list[Formula]:
    """A lemma with hypotheses (schematic and audit lemmas: several asserts) as formulas: each
    ``(assert ψ)`` is a hypothesis shown as ψ, the last, ``(assert (not φ))``, the claim φ; [] if too large
    or not typesettable (the caller then shows the SMT-LIB text)."""
    if len(smt2) > MAX_TEXT:
        return []
    conv = _ConverterWithOr()
    formulas: list[Formula] = []
    try:
        forms = [f for f in parse_sexprs(smt2) if isinstance(f, list) and f]
        if not all(map(_small, forms)):
            return []
        last = max((k for k, f in enumerate(forms) if f[0] == "assert"), default=-1)
        for k, form in enumerate(forms):
            if form[0] == "define-fun" and form[1] != "sgn":
                formulas.append(_definition(conv, form))
            elif form[0] == "assert":
                claim = k == last and isinstance(form[1], list) and form[1][:1] == ["not"]
                expr = conv.term(form[1][1] if claim else form[1], {})
                formulas.append(Formula(HYPOTHESES_CLAIM_LABEL if claim else HYPOTHESIS_LABEL, _math(expr)))
    except (ValueError, TypeError, IndexError, AttributeError, sympy.SympifyError):  # TooLarge too
        return []
    return formulas
