"""How the netlist link (``netlist_link.py``) states a lemma to the solvers and evaluates it on {0,1}^k: a
lemma is a node listing (``v`` variable, ``y`` operand, ``n`` numeral, ``+`` affine sum, ``mul``, ``sign``)."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from .data import Number

Node = tuple[Any, ...]


def smt_text(order: list[Node], lhs: int, rhs: int, bs: list[int]) -> str:
    """QF_NRA: the listing as definitions, y_i = F_i ∈ {0,1} for the operands ``bs``, and lhs ≠ rhs."""
    lines = ["(set-logic QF_NRA)"] + [f"(declare-fun y{i} () Real)" for i in range(len(bs))]
    for k, item in enumerate(order):
        if item[0] == "v":
            lines.append(f"(declare-fun x{item[1]} () Real)")
            expr = f"x{item[1]}"
        elif item[0] in ("y", "n"):
            expr = f"y{item[1]}" if item[0] == "y" else _real(item[1])
        elif item[0] == "+":
            expr = "(+ " + " ".join([_real(item[1])] + [f"(* {_real(c)} n{m})" for m, c in item[2]]) + ")"
        elif item[0] == "mul":
            expr = "(* " + " ".join(f"n{m}" for m in item[1]) + ")"
        else:
            a = f"n{item[1][0]}"
            expr = f"(ite (> {a} 0.0) 1.0 (ite (< {a} 0.0) (- 1.0) 0.0))"
        lines.append(f"(define-fun n{k} () Real {expr})")
    lines += [f"(assert (= y{i} n{b}))\n(assert (or (= y{i} 0.0) (= y{i} 1.0)))" for i, b in enumerate(bs)]
    lines += [f"(assert (not (= n{lhs} n{rhs})))", "(check-sat)"]
    return "\n".join(lines) + "\n"


def evaluate(order: list[Node], bits: tuple[int, ...], lhs: int, rhs: int) -> bool:
    """Whether both sides (over the y only) are equal at y = bits, computed exactly."""
    values: list[Number] = []
    for item in order:
        if item[0] in ("y", "n"):
            values.append(bits[item[1]] if item[0] == "y" else item[1])
        elif item[0] == "+":
            values.append(item[1] + sum(c * values[m] for m, c in item[2]))
        elif item[0] == "mul":
            values.append(math.prod(values[m] for m in item[1]))
        else:
            values.append((values[item[1][0]] > 0) - (values[item[1][0]] < 0))
    return values[lhs] == values[rhs]


def _real(q: Number) -> str:
    q = Fraction(q)
    body = f"{abs(q.numerator)}.0" if q.denominator == 1 else f"(/ {abs(q.numerator)}.0 {q.denominator}.0)"
    return f"(- {body})" if q < 0 else body
