"""Lemma terms as readable, wrappable MathML: ``-x`` not ``(-1)(x)``, ``x`` not ``1·x``, ``a - b`` not ``a + (-1)b``.

Two printers share one output shape, a list of *chunks* (one ``<math>`` element each: a summand with
its sign, or a relation symbol with the first summand after it), so that a long identity wraps
between summands like text instead of running past the right margin:

* :func:`written_chunks` prints an SMT-LIB term as the lemma writes it (``let``s inlined, nothing
  collected), after exact local tidying only: numerals are exact rationals, ``(- 1.0)`` is ``-1``,
  factors 1 are dropped, a factor -1 becomes a minus sign, nested sums and products are flattened.
* :func:`sympy_chunks` splits a collected sympy expression at its top-level relation and summands
  (each printed by sympy's MathML printer).
"""

from __future__ import annotations

import re
from fractions import Fraction
from html import escape
from typing import Any

from ..circuits.rationals import read_numeral

MAX_MATHML = 200_000
"""Printed terms longer than this (characters) are refused (the caller shows the SMT-LIB text)."""
_RELATIONS = {"=": "=", ">": ">", "<": "&lt;", ">=": "≥", "<=": "≤"}
_OPEN, _CLOSE = "<mo stretchy=\"false\">(</mo>", "<mo stretchy=\"false\">)</mo>"
_NUMERAL = re.compile(r"[0-9]+(\.[0-9]+)?")


class TooLarge(ValueError):
    """The printed formula would be too long to typeset usefully."""


def tidy(t: Any, env: dict[str, Any] | None = None) -> Any:
    """The s-expression ``t`` as a small tree (``let`` inlined), locally simplified without collecting terms."""
    env = env or {}
    if isinstance(t, str):
        if t in env:
            return env[t]
        return ("num", read_numeral(t)) if _NUMERAL.fullmatch(t) else ("var", t.replace("_", "."))
    head, args = t[0], t[1:]
    if head == "let":
        inner = dict(env)
        for name, value in args[0]:
            inner[name] = tidy(value, env)
        return tidy(args[1], inner)
    xs = [tidy(a, env) for a in args]
    if head == "-":
        return negate(xs[0]) if len(xs) == 1 else add([xs[0], *map(negate, xs[1:])])
    if head == "+":
        return add(xs)
    if head == "*":
        return mul(xs)
    if head == "/":
        if xs[0][0] == "num" and xs[1][0] == "num" and xs[1][1] != 0:
            return ("num", xs[0][1] / xs[1][1])
        return ("div", xs[0], xs[1])
    if head in _RELATIONS:
        return ("rel", _RELATIONS[head], xs[0], xs[1])
    if head in ("and", "or"):
        return (head, xs)
    if head == "not":
        return ("not", xs[0])
    if head == "ite":
        return ("ite", *xs)
    return ("call", head.replace("_", "."), xs)


def negate(x: Any) -> Any:
    if x[0] == "num":
        return ("num", -x[1])
    if x[0] == "neg":
        return x[1]
    if x[0] == "mul" and x[1] != 1:
        return mul_of(-x[1], x[2])
    return ("neg", x)


def add(xs: list[Any]) -> Any:
    terms: list[Any] = []
    for x in xs:
        terms.extend(x[1] if x[0] == "add" else [x])
    terms = [x for x in terms if x != ("num", Fraction(0))]
    return ("num", Fraction(0)) if not terms else terms[0] if len(terms) == 1 else ("add", terms)


def mul(xs: list[Any]) -> Any:
    c, factors = Fraction(1), []
    for x in xs:
        while x[0] == "neg":
            c, x = -c, x[1]
        if x[0] == "num":
            c *= x[1]
        elif x[0] == "mul":
            c *= x[1]
            factors.extend(x[2])
        else:
            factors.append(x)
    return mul_of(c, factors)


def mul_of(c: Fraction, factors: list[Any]) -> Any:
    if c == 0 or not factors:
        return ("num", c if factors == [] else Fraction(0))
    if c == -1:
        return ("neg", mul_of(Fraction(1), factors))
    if c == 1 and len(factors) == 1:
        return factors[0]
    return ("mul", c, factors)


# -- printing: precedence 0 relations and connectives, 1 sums, 2 unary minus, 3 products, 4 atoms ----------

def _prec(x: Any) -> int:
    kind = x[0]
    if kind == "num":
        return 4 if x[1] >= 0 and x[1].denominator == 1 else 2 if x[1] < 0 else 3
    return {"var": 4, "call": 4, "ite": 4, "div": 3, "mul": 3, "neg": 2, "add": 1}.get(kind, 0)


def _paren(x: Any, above: int) -> str:
    body = _print(x)
    return f"<mrow>{_OPEN}{body}{_CLOSE}</mrow>" if _prec(x) < above else body


def _number(q: Fraction) -> str:
    if q < 0:
        return f"<mrow><mo>−</mo>{_number(-q)}</mrow>"
    return f"<mn>{q.numerator}</mn>" if q.denominator == 1 else \
        f"<mfrac><mn>{q.numerator}</mn><mn>{q.denominator}</mn></mfrac>"


def _print(x: Any) -> str:
    kind = x[0]
    if kind == "num":
        return _number(x[1])
    if kind == "var":
        return f"<mi>{escape(x[1])}</mi>"
    if kind == "call":
        return (f"<mrow><mi>{escape(x[1])}</mi>{_OPEN}"
                + "<mo>,</mo>".join(_print(a) for a in x[2]) + f"{_CLOSE}</mrow>")
    if kind == "neg":
        return f"<mrow><mo>−</mo>{_paren(x[1], 3)}</mrow>"
    if kind == "mul":
        parts = [] if x[1] == 1 else [_paren(("num", x[1]), 3)]
        for f in x[2]:
            if parts:
                parts.append("<mo>·</mo>" if f[0] == "num" else "<mo>&#x2062;</mo>")
            parts.append(_paren(f, 4 if f[0] in ("mul", "div") else 3))
        return "<mrow>" + "".join(parts) + "</mrow>"
    if kind == "div":
        return f"<mfrac>{_print(x[1])}{_print(x[2])}</mfrac>"
    if kind == "add":
        return "<mrow>" + "".join(_summand(t, k == 0) for k, t in enumerate(x[1])) + "</mrow>"
    if kind == "rel":
        return f"<mrow>{_print(x[2])}<mo>{x[1]}</mo>{_print(x[3])}</mrow>"
    if kind in ("and", "or"):
        op = "<mo>∧</mo>" if kind == "and" else "<mo>∨</mo>"
        return "<mrow>" + op.join(_paren(a, 1) for a in x[1]) + "</mrow>"
    if kind == "not":
        return f"<mrow><mo>¬</mo>{_paren(x[1], 4)}</mrow>"
    if kind == "ite":
        return (f"<mrow><mo>{{</mo><mtable><mtr><mtd>{_print(x[2])}</mtd><mtd><mtext>if </mtext>{_print(x[1])}"
                f"</mtd></mtr><mtr><mtd>{_print(x[3])}</mtd><mtd><mtext>otherwise</mtext></mtd></mtr></mtable>"
                f"</mrow>")
    raise ValueError(f"cannot print {kind}")


def _summand(t: Any, first: bool) -> str:
    """A summand with the sign it is written with: ``− x`` for -x, ``+ x`` otherwise (no sign if first)."""
    negative = t[0] == "neg" or (t[0] == "num" and t[1] < 0) or (t[0] == "mul" and t[1] < 0)
    if negative:
        body = t[1] if t[0] == "neg" else ("num", -t[1]) if t[0] == "num" else mul_of(-t[1], t[2])
        return f"<mo>−</mo>{_paren(body, 2)}"
    return ("" if first else "<mo>+</mo>") + _paren(t, 1)


def written_chunks(t: Any) -> list[str]:
    """The tidied term ``t`` (an s-expression) as MathML chunks, split at its relation and summands."""
    tree = tidy(t)
    chunks: list[str] = []

    def side(x: Any, lead: str) -> None:
        terms = x[1] if x[0] == "add" else [x]
        for k, term in enumerate(terms):
            text = _summand(term, k == 0)
            chunks.append((lead if k == 0 else "") + text)

    if tree[0] == "rel":
        side(tree[2], "")
        side(tree[3], f"<mo>{tree[1]}</mo>")
    elif tree[0] in ("and", "or"):
        op = "<mo>∧</mo>" if tree[0] == "and" else "<mo>∨</mo>"
        chunks += [(op if k else "") + _paren(a, 1) for k, a in enumerate(tree[1])]
    else:
        chunks.append(_print(tree))
    if sum(map(len, chunks)) > MAX_MATHML:
        raise TooLarge("formula too large to typeset")
    return chunks


def sympy_chunks(expr: Any) -> list[str]:
    """A sympy expression as MathML chunks: split at a top-level relation and at each side's summands."""
    import sympy
    from sympy.printing.mathml import mathml

    def body(e: Any) -> str:
        return mathml(e, printer="presentation")

    chunks: list[str] = []

    def side(e: Any, lead: str) -> None:
        terms = e.as_ordered_terms() if isinstance(e, sympy.Add) else [e]
        for k, term in enumerate(terms):
            sign = ""
            if term.could_extract_minus_sign():
                sign, term = "<mo>−</mo>", -term
                text = sign + (f"<mrow>{_OPEN}{body(term)}{_CLOSE}</mrow>" if isinstance(term, sympy.Add)
                               else body(term))
            else:
                text = ("" if k == 0 else "<mo>+</mo>") + body(term)
            chunks.append((lead if k == 0 else "") + text)

    if isinstance(expr, sympy.core.relational.Relational):
        op = {"==": "=", ">": ">", "<": "&lt;", ">=": "≥", "<=": "≤"}.get(expr.rel_op, escape(expr.rel_op))
        side(expr.lhs, "")
        side(expr.rhs, f"<mo>{op}</mo>")
    else:
        chunks.append(body(expr))
    if sum(map(len, chunks)) > MAX_MATHML:
        raise TooLarge("formula too large to typeset")
    return chunks


def chunks_html(chunks: list[str]) -> str:
    """The chunks as one wrapping block: inline ``<math>`` elements separated by spaces (break points)."""
    maths = " ".join(f'<math xmlns="http://www.w3.org/1998/Math/MathML">{c}</math>' for c in chunks)
    return f'<div class="formula">{maths}</div>'
