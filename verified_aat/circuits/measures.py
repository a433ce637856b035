"""Depth, size, fan-ins and the circuit class, in the strict basis (MATH.md §2)."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from .ir import Circuit, Kind


class CircuitClass(str, enum.Enum):
    """The smallest of FNC⁰ ⊆ FSAC⁰ ⊆ FAC⁰ that holds a circuit's gates."""

    FNC0 = "FNC0"
    FSAC0 = "FSAC0"
    FAC0 = "FAC0"


def gate_depths(circuit: Circuit) -> list[int]:
    """depth(input) = depth(const) = 0, depth(g) = 1 + max depth(pred)."""
    depths: list[int] = []
    for gate in circuit.gates:
        depths.append(1 + max(depths[a] for a in gate.args) if gate.args else
                      (0 if gate.kind in (Kind.INPUT, Kind.CONST) else 1))
    return depths


def depth(circuit: Circuit) -> int:
    """The largest depth of any gate (0 for a circuit of inputs and consts)."""
    depths = gate_depths(circuit)
    return max(depths, default=0)


@dataclass(frozen=True)
class Measures:
    """Everything `info` reports about a circuit."""

    n_inputs: int
    n_outputs: int
    size: int
    edges: int
    depth: int
    max_fan_in: dict[str, int]
    circuit_class: CircuitClass
    has_sign: bool

    @property
    def class_name(self) -> str:
        return f"{self.circuit_class.value}[sign]" if self.has_sign else self.circuit_class.value


def classify(circuit: Circuit) -> tuple[CircuitClass, bool]:
    """The class (FNC⁰/FSAC⁰/FAC⁰) and whether sign gates occur."""
    max_add = max((g.fan_in for g in circuit.gates if g.kind is Kind.ADD), default=0)
    max_mul = max((g.fan_in for g in circuit.gates if g.kind is Kind.MUL), default=0)
    has_sign = any(g.kind is Kind.SIGN for g in circuit.gates)
    if max_mul > 2:
        cls = CircuitClass.FAC0
    elif max_add > 2:
        cls = CircuitClass.FSAC0
    else:
        cls = CircuitClass.FNC0
    return cls, has_sign


def measure(circuit: Circuit) -> Measures:
    fan_in: dict[str, int] = {}
    for gate in circuit.gates:
        if gate.kind in (Kind.ADD, Kind.MUL, Kind.SIGN):
            fan_in[gate.kind.value] = max(fan_in.get(gate.kind.value, 0), gate.fan_in)
    cls, has_sign = classify(circuit)
    return Measures(
        n_inputs=circuit.n_inputs,
        n_outputs=len(circuit.outputs),
        size=circuit.size,
        edges=circuit.n_edges,
        depth=depth(circuit),
        max_fan_in=fan_in,
        circuit_class=cls,
        has_sign=has_sign,
    )


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
