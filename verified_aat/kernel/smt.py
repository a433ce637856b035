"""The kernel's own SMT-LIB 2 printer (QF_NRA, docs/soundness.md S11), written independently of the engine's
(``circuits/smtlib.py``) to docs/certificates.md, "Rendering": the solvers run on the kernel's text, which a
certificate's lemma texts must equal byte for byte, so a printer bug on either side is a rejection."""

from __future__ import annotations

from typing import Sequence

from .structure import cone
from .data import Circuit, Number

LOGIC = "(set-logic QF_NRA)"
SGN = "(define-fun sgn ((v Real)) Real (ite (> v 0.0) 1.0 (ite (< v 0.0) (- 1.0) 0.0)))"
HEADER = "; verified-aat obligation v1"
OPERATOR = {"add": "+", "mul": "*", "sign": "sgn"}


def numeral(value: Number) -> str:
    """``3.0``, ``(- 3.0)``, ``(/ 1.0 3.0)``, ``(- (/ 3.0 4.0))`` (an int or a Fraction: both have a numerator)."""
    n, d = value.numerator, value.denominator
    body = f"{abs(n)}.0" if d == 1 else f"(/ {abs(n)}.0 {d}.0)"
    return f"(- {body})" if n < 0 else body


def term(circuit: Circuit, output: int, params: Sequence[str]) -> str:
    """Output ``output`` as one term over ``params`` (input k is ``params[k]``): inputs, constants, empty and
    one-operand sums in place, every other gate g bound once as ``(let ((gN …)) …)``, innermost last."""
    root = circuit.outputs[output]
    text: dict[int, str] = {}
    bound: list[tuple[int, str]] = []
    for g in cone(circuit, [root]):
        gate = circuit.gates[g]
        if gate.op == "input":
            text[g] = params[gate.index]  # type: ignore[index]
        elif gate.op == "const":
            text[g] = numeral(gate.value)  # type: ignore[arg-type]
        elif gate.op == "add" and len(gate.args) <= 1:
            text[g] = text[gate.args[0]] if gate.args else "0.0"
        else:  # a sign has one operand: (sgn a)
            bound.append((g, f"({OPERATOR[gate.op]} {' '.join(text[a] for a in gate.args)})"))
            text[g] = f"g{g}"
    return "".join(f"(let ((g{g} {expr})) " for g, expr in bound) + text[root] + ")" * len(bound)


def define_fun(name: str, circuit: Circuit, output: int, params: Sequence[str]) -> str:
    signature = " ".join(f"({p} Real)" for p in params)
    return f"(define-fun {name} ({signature}) Real {term(circuit, output, params)})"


def declare(names: Sequence[str]) -> str:
    return "".join(f"(declare-const {n} Real)\n" for n in names)


def bilinear_term(entries: Sequence[tuple[int, int, Number]], row: Sequence[str], col: Sequence[str]) -> str:
    parts = [f"(* {numeral(q)} {row[r]} {col[c]})" for r, c, q in entries]
    if not parts:
        return "0.0"
    return parts[0] if len(parts) == 1 else f"(+ {' '.join(parts)})"
