"""The kernel's own SMT-LIB 2 printer (QF_NRA).

It is written independently of the engine's printer (``circuits/smtlib.py``)
to the same specification (docs/certificates.md, "Rendering"); the kernel
runs the solvers on *its own* text, and a certificate is accepted only when
the engine's lemma texts are byte-identical to the kernel's.  A printer bug
on either side is therefore a rejection, never a shared blind spot.

Semantics the kernel relies on (docs/soundness.md, S11): a circuit output is
one term in which every non-trivial gate is ``let``-bound once; ``sgn`` is
``ite``-defined with sgn(0) = 0; numerals are exact rationals; every symbol
is a plain identifier declared exactly once.
"""

from __future__ import annotations

from typing import Sequence

from .structure import cone
from .data import Circuit, Number

LOGIC = "(set-logic QF_NRA)"
SGN = "(define-fun sgn ((v Real)) Real (ite (> v 0.0) 1.0 (ite (< v 0.0) (- 1.0) 0.0)))"
HEADER = "; verified-aat obligation v1"


def numeral(value: Number) -> str:
    """``3.0``, ``(- 3.0)``, ``(/ 1.0 3.0)``, ``(- (/ 3.0 4.0))`` (an int or a Fraction: both have a numerator)."""
    n, d = value.numerator, value.denominator
    body = f"{abs(n)}.0" if d == 1 else f"(/ {abs(n)}.0 {d}.0)"
    return f"(- {body})" if n < 0 else body


def term(circuit: Circuit, output: int, params: Sequence[str]) -> str:
    """Output ``output`` as one term over ``params`` (input k is ``params[k]``).

    Inputs, constants, empty sums and one-argument sums are written in place;
    every other gate ``g`` is bound once as ``(let ((gN …)) …)``, innermost last.
    """
    root = circuit.outputs[output]
    text: dict[int, str] = {}
    bound: list[tuple[int, str]] = []
    for g in cone(circuit, [root]):
        gate = circuit.gates[g]
        if gate.op == "input":
            text[g] = params[gate.index]  # type: ignore[index]
            continue
        if gate.op == "const":
            text[g] = numeral(gate.value)  # type: ignore[arg-type]
            continue
        parts = [text[a] for a in gate.args]
        if gate.op == "add" and len(parts) <= 1:
            text[g] = parts[0] if parts else "0.0"
            continue
        if gate.op == "sign":
            expr = f"(sgn {parts[0]})"
        else:
            expr = f"({'+' if gate.op == 'add' else '*'} {' '.join(parts)})"
        text[g] = f"g{g}"
        bound.append((g, expr))
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

