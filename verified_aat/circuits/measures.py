"""Depth, size, fan-ins and the circuit class, in the strict basis (MATH.md §2).

The measures are defined in :mod:`.ir` (a circuit's ``repr`` shows them) and re-exported here.
"""

from __future__ import annotations

from .ir import CircuitClass, Measures, classify, depth, gate_depths, measure  # noqa: F401 - defined with the IR
from .ir import Circuit, Kind


def first_gate_outside(circuit: Circuit, max_add: int | None, max_mul: int | None,
                       allow_sign: bool = True) -> int | None:
    """Index of the first gate that breaks the given fan-in bounds, or None."""
    for index, gate in enumerate(circuit.gates):
        if gate.kind is Kind.ADD and max_add is not None and gate.fan_in > max_add:
            return index
        if gate.kind is Kind.MUL and max_mul is not None and gate.fan_in > max_mul:
            return index
        if gate.kind is Kind.SIGN and not allow_sign:
            return index
    return None
