"""The netlist link section by binary steps (``verified_aat/kernel/netlist_steps.py``, docs/soundness.md N′).

The linear construction (:mod:`.linear`) makes every netlist signal one literal c + b·w and every k-input gate a
depth-balanced tree of k − 1 binary steps (or, in threshold mode, one sign form); its engine records each gate's
trace (``LinearEngine.traces``).  This section states those traces over C's gate indices:

* ``steps[name]`` for a fold: ``[[i, j, literal], ...]``, the n-th step f(L[i], L[j]) appended to L (the gate's
  operand literals, as the kernel's reader lists them, then the steps' results);
* ``["sign", literal]`` for a sign form (the literal before a NAND's, NOR's or off-set cube's negation);
* ``["cover", cubes, folds, sum]`` for a BLIF cover: its disjoint cubes, each cube's fold, and the literal of
  their sum (before an off-set's negation);
* a literal ``[c]`` or ``[c, b, w]``: c + b·w, c ∈ {0, 1}, b = ±1, w a gate of C or a shadow gate.

Only the gates some output depends on have steps, and C keeps every gate their steps name, also where no output
reads it (a step whose result is a constant above its operands' gates): the section has no shadow gates.  The kernel reads a BLIF row of '0's only (which the engine's reader calls NOR, or OR for an
off-set) as a cube of negated literals: its steps are AND steps over 1 − x, so each literal is written negated
(AND(1 − x, 1 − y) = 1 − OR(x, y)).
"""

from __future__ import annotations

import hashlib
from typing import Any

from .affine import Form
from .ir import Circuit
from .link_section import link_file
from .linear import LinearEngine, read_by_outputs
from .netlists import BoolGate, Netlist


def step_section(circuit: Circuit, eng: LinearEngine, netlist: Netlist, *, file: str, fmt: str, mode: str,
                 data: bytes, text: str) -> dict[str, Any]:
    """The step section for ``circuit``, which ``eng`` (after ``run_linear``) has just built."""
    index = eng.final  # C keeps every wire the traces name (LinearEngine.traced): no shadow gates

    def lit(x: Form, negate: bool = False) -> list[Any]:
        x = x.affine(-1, 1) if negate else x
        assert x.const in (0, 1) and all(c in (1, -1) for _, c in x.terms)
        return [int(x.const)] + ([int(x.terms[0][1]), index[x.terms[0][0]]] if x.terms else [])

    def fold(trace: list[Any], negate: bool = False) -> list[Any]:
        return [[i, j, lit(z, negate)] for i, j, z in trace]

    steps: dict[str, Any] = {}
    read = set(read_by_outputs(netlist))
    for gate in (g for g in netlist.gates if g.name in read):  # a gate no output depends on needs none
        trace = eng.traces[gate.name]
        negate = written_negated(fmt, gate)
        if trace[:1] == ["sign"]:
            steps[gate.name] = ["sign", lit(trace[1], negate)]
        elif trace[:1] == ["cover"]:
            steps[gate.name] = ["cover", list(trace[1]), [fold(t) for t in trace[2]], lit(trace[3])]
        else:
            steps[gate.name] = fold(trace, negate)
    return {"file": link_file(file), "format": fmt, "mode": mode, "sha256": hashlib.sha256(data).hexdigest(),
            "text": text, "steps": steps}


def written_negated(fmt: str, gate: BoolGate) -> bool:
    """Whether the gate's steps are written negated: a BLIF row of 0s, which the engine's reader calls NOR (OR for
    an off-set) and the kernel reads as a cube of negated literals (AND₂(1 − x, 1 − y) = 1 − OR₂(x, y))."""
    return fmt == "blif" and gate.op in ("NOR", "OR") and len(gate.args) > 1
