"""A small builder for circuits in the strict basis.

Families, netlist arithmetization and the constructions all build circuits
through this class, so that conveniences (negation, scaling, subtraction)
always expand into the strict basis and depth is counted honestly.
Constants are shared: ``const(3)`` twice gives one gate.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import repeat
from typing import Iterable

from .ir import Circuit, Domain, Gate, Kind, Provenance

Wire = int


class CircuitBuilder:
    """Append-only construction of a :class:`Circuit`; wires are gate indices."""

    def __init__(self, name: str = "circuit", domain: Domain = Domain.RATIONALS):
        self.name = name
        self.domain = domain
        self._gates: list[Gate] = []
        self._consts: dict[Fraction, Wire] = {}
        self._n_inputs = 0
        self._outputs: list[Wire] = []
        self._output_names: list[str] = []

    def append(self, gate: Gate) -> Wire:
        """Append a gate as it is (its arguments must be earlier wires)."""
        self._gates.append(gate)
        return len(self._gates) - 1

    _append = append

    def input(self, name: str | None = None) -> Wire:
        wire = self._append(Gate(Kind.INPUT, index=self._n_inputs, name=name))
        self._n_inputs += 1
        return wire

    def inputs(self, names: Iterable[str | None]) -> list[Wire]:
        """One input gate per name, in order (built in bulk: a witness pads with 10⁶ of them)."""
        names = list(names)
        start, first = len(self._gates), self._n_inputs
        self._gates.extend(map(Gate, repeat(Kind.INPUT, len(names)), repeat((), len(names)),
                               repeat(None, len(names)), range(first, first + len(names)), names))
        self._n_inputs += len(names)
        return list(range(start, len(self._gates)))

    def const(self, value: Fraction | int | str, name: str | None = None) -> Wire:
        q = Fraction(value)
        if name is None and q in self._consts:
            return self._consts[q]
        wire = self._append(Gate(Kind.CONST, value=q, name=name))
        if name is None:
            self._consts[q] = wire
        return wire

    def add(self, *args: Wire, name: str | None = None) -> Wire:
        return self._append(Gate(Kind.ADD, tuple(args), name=name))

    def mul(self, *args: Wire, name: str | None = None) -> Wire:
        if len(args) < 2:
            raise ValueError("mul takes at least 2 arguments")
        return self._append(Gate(Kind.MUL, tuple(args), name=name))

    def sign(self, arg: Wire, name: str | None = None) -> Wire:
        return self._append(Gate(Kind.SIGN, (arg,), name=name))

    # -- conveniences, expanded into the strict basis ----------------------
    def scale(self, factor: Fraction | int, arg: Wire, name: str | None = None) -> Wire:
        """factor · arg as one binary mul with a constant."""
        return self.mul(self.const(factor), arg, name=name)

    def neg(self, arg: Wire, name: str | None = None) -> Wire:
        return self.scale(-1, arg, name=name)

    def sub(self, a: Wire, b: Wire, name: str | None = None) -> Wire:
        return self.add(a, self.neg(b), name=name)

    def square(self, a: Wire, name: str | None = None) -> Wire:
        return self.mul(a, a, name=name)

    def tree(self, kind: Kind, args: list[Wire], name: str | None = None) -> Wire:
        """A balanced tree of binary ``kind`` gates over ``args`` (depth ceil(log2 k)).

        The root gets ``name``; a single argument is returned as it is.
        """
        assert kind in (Kind.ADD, Kind.MUL) and args
        layer = list(args)
        while len(layer) > 2:
            nxt = [self._append(Gate(kind, (layer[i], layer[i + 1]))) for i in range(0, len(layer) - 1, 2)]
            if len(layer) % 2:
                nxt.append(layer[-1])
            layer = nxt
        return layer[0] if len(layer) == 1 else self._append(Gate(kind, tuple(layer), name=name))

    def product_tree(self, args: list[Wire]) -> Wire:
        """A balanced tree of binary products; 1 for no factors."""
        return self.tree(Kind.MUL, args) if args else self.const(1)

    def gate(self, wire: Wire) -> Gate:
        return self._gates[wire]

    @property
    def n_gates(self) -> int:
        return len(self._gates)

    def output(self, wire: Wire, name: str | None = None) -> None:
        self._outputs.append(wire)
        self._output_names.append(name or self._gates[wire].name or f"g{wire}")

    def build(self, provenance: Provenance | None = None) -> Circuit:
        return Circuit(tuple(self._gates), tuple(self._outputs), self.name, self.domain,
                       tuple(self._output_names), provenance)
