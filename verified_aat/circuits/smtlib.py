"""Print circuits and rationals as SMT-LIB 2 (QF_NRA) text.

This is a printer of the IR, like the text format: the symbolic engine and
the independent checker both use it so that they render the same lemma
text, while each derives *which* lemmas are needed on its own.  Sign is the
function ``sgn`` defined by :data:`SGN_DEFINITION` (sign(0) = 0).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

from .ir import Circuit, Kind

LOGIC = "(set-logic QF_NRA)"
SGN_DEFINITION = "(define-fun sgn ((v Real)) Real (ite (> v 0.0) 1.0 (ite (< v 0.0) (- 1.0) 0.0)))"


def numeral(value: Fraction | int) -> str:
    """An exact SMT-LIB real: ``3.0``, ``(- 3.0)``, ``(/ 1.0 3.0)``, ``(- (/ 3.0 4.0))``."""
    if type(value) is int:
        return f"{value}.0" if value >= 0 else f"(- {-value}.0)"
    q = Fraction(value)
    magnitude = abs(q)
    text = f"{magnitude.numerator}.0" if magnitude.denominator == 1 else \
        f"(/ {magnitude.numerator}.0 {magnitude.denominator}.0)"
    return f"(- {text})" if q < 0 else text


def cone(circuit: Circuit, roots: Sequence[int]) -> list[int]:
    """The gates that ``roots`` depend on, in topological order."""
    needed = set()
    stack = list(roots)
    while stack:
        g = stack.pop()
        if g in needed:
            continue
        needed.add(g)
        stack.extend(circuit.gates[g].args)
    return sorted(needed)


def _expression(circuit: Circuit, gate_index: int, params: Sequence[str], names: dict[int, str]) -> str:
    gate = circuit.gates[gate_index]
    args = [names[a] for a in gate.args]
    if gate.kind is Kind.INPUT:
        return params[gate.index]  # type: ignore[index]
    if gate.kind is Kind.CONST:
        return numeral(gate.value)  # type: ignore[arg-type]
    if gate.kind is Kind.SIGN:
        return f"(sgn {args[0]})"
    if not args:
        return "0.0"
    if len(args) == 1:
        return args[0]
    op = "+" if gate.kind is Kind.ADD else "*"
    return f"({op} {' '.join(args)})"


def circuit_term(circuit: Circuit, output: int, params: Sequence[str]) -> str:
    """Output number ``output`` of ``circuit`` as one SMT-LIB term over ``params``.

    Inputs and constants are inlined; every other gate of the output's cone
    is bound once with ``let`` (named ``gN``), so the text stays linear in
    the circuit's size.
    """
    root = circuit.outputs[output]
    order = cone(circuit, [root])
    names: dict[int, str] = {}
    bindings: list[tuple[str, str]] = []
    for g in order:
        gate = circuit.gates[g]
        expr = _expression(circuit, g, params, names)
        if gate.kind in (Kind.INPUT, Kind.CONST) or (not gate.args) or (len(gate.args) == 1 and gate.kind is Kind.ADD):
            names[g] = expr
        else:
            names[g] = f"g{g}"
            bindings.append((names[g], expr))
    body = names[root]
    for name, expr in reversed(bindings):
        body = f"(let (({name} {expr})) {body})"
    return body


def define_fun(name: str, circuit: Circuit, output: int, params: Sequence[str]) -> str:
    """``(define-fun name ((p Real) ...) Real body)`` for one circuit output."""
    signature = " ".join(f"({p} Real)" for p in params)
    return f"(define-fun {name} ({signature}) Real {circuit_term(circuit, output, params)})"


def smt_symbol(text: str) -> str:
    """A plain SMT-LIB symbol for a circuit input name like ``x.op`` or ``gather.val``."""
    out = "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in text)
    return out if out and not out[0].isdigit() else f"_{out}"
