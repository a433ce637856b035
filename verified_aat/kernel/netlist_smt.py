"""The solvers' verdict on a netlist-link lemma the kernel's own procedures leave open (``netlist_link.py``).

Part of the solver runner: it runs only with solver trust on, for a lemma that then rests on the solvers and
that the verdict's trust line names, so it is counted with ``solvers.py``, apart from the trusted base. Before the
solvers, the kernel's own search for a countermodel (``countermodel.py``, S12d) may answer sat with an exact model.
"""

from __future__ import annotations

import time
from fractions import Fraction
from typing import Any

from .data import Number
from .netlist_decide import Node
from .report import SAT, UNSAT


def solvers_verdict(ctx: Any, order: list[Node], lhs: int, rhs: int, bs: list[int]) -> tuple[str, int]:
    """("ok" | why not, solver runs): each solver of the options in turn; "ok" only if every one says unsat."""
    from .countermodel import WORK, find_countermodel, shown  # S12d before any solver: it can only say "sat"
    from .solvers import SOLVERS, out_of_time
    text, runs = smt_text(order, lhs, rhs, bs), 0
    point = find_countermodel(text, ctx.__dict__.setdefault("countermodel_left", [WORK]))
    if point is not None:  # a real model of the lemma, as a solver's sat: a deeper cut is tried, at the last a rejection
        return (f"a counterexample over its frontier variables{' under the hypotheses F_i ∈ {0,1}' if bs else ''} "
                f"(exact evaluation, S12d: {shown(point)})"), runs
    started = ctx.__dict__.setdefault("solvers_started", time.monotonic())  # the certificate's first solver run
    for solver in ctx.options.solvers:
        late = out_of_time(started, ctx.options.timeout_ms)
        if late:
            return f"unknown: {late}", runs
        runs += 1
        ctx.solver_runs += 1
        try:
            answer = SOLVERS[solver](text, ctx.options.timeout_ms)
        except ImportError:
            return f"unknown: solver {solver} is not installed", runs
        if answer == SAT:
            return f"{solver} finds a counterexample over its frontier variables" + (
                " under the hypotheses F_i ∈ {0,1}" if bs else ""), runs
        if answer != UNSAT:
            return f"unknown: {solver} says {answer}", runs
    ctx.solver_only.append(f"a netlist-link lemma ({'+'.join(ctx.options.solvers)})")
    return "ok", runs


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


def _real(q: Number) -> str:
    q = Fraction(q)
    body = f"{abs(q.numerator)}.0" if q.denominator == 1 else f"(/ {abs(q.numerator)}.0 {q.denominator}.0)"
    return f"(- {body})" if q < 0 else body
