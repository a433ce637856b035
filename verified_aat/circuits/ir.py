"""The immutable IR for arithmetic circuits over Q (MATH.md §2).

Gates are stored in topological order: every argument index is smaller than
the gate's own index, so a well-formed :class:`Circuit` is acyclic by
construction.  Edges form a multiset: ``mul(x, x)`` has ``args == (x, x)``.
The basis is strict (input, const, add, mul, sign); conveniences offered by
the text format are expanded into these gates before a circuit exists, so
depth and class are always measured in this basis.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from fractions import Fraction


class Kind(str, enum.Enum):
    """A gate kind of the strict basis."""

    INPUT = "input"
    CONST = "const"
    ADD = "add"
    MUL = "mul"
    SIGN = "sign"

    def __str__(self) -> str:  # pragma: no cover - convenience
        return self.value


class Domain(str, enum.Enum):
    """The inputs on which a circuit is meant to compute its function."""

    RATIONALS = "rationals"
    BOOLEAN = "boolean"  # arithmetized netlists in threshold mode: {0,1} only


@dataclass(frozen=True, slots=True)
class Gate:
    """One gate.  ``value`` is set for const gates, ``index`` for input gates."""

    kind: Kind
    args: tuple[int, ...] = ()
    value: Fraction | None = None
    index: int | None = None
    name: str | None = None

    @property
    def fan_in(self) -> int:
        return len(self.args)


@dataclass(frozen=True, slots=True)
class Provenance:
    """Where a circuit came from, e.g. an imported netlist and its own measures.

    ``netlist_depth`` and ``netlist_gates`` count the netlist's Boolean gates,
    before arithmetization; ``arithmetization`` is ``"exact"`` or
    ``"threshold"`` (or ``None`` for circuits written directly).
    ``netlist_link`` (not compared, not hashed, not serialised) is the JSON
    text that ties an imported netlist to this exact circuit; see
    :func:`verified_aat.circuits.link_section.netlist_section`.
    """

    source_format: str | None = None
    source_path: str | None = None
    arithmetization: str | None = None
    netlist_gates: int | None = None
    netlist_depth: int | None = None
    netlist_max_fan_in: int | None = None
    netlist_gate_types: tuple[str, ...] = ()
    netlist_link: str | None = field(default=None, compare=False, hash=False, repr=False)


@dataclass(frozen=True, repr=False)
class Circuit:
    """An arithmetic circuit: gates in topological order and ordered outputs.

    Input gates carry indices ``0 .. n_inputs-1``, each exactly once.
    ``input_names``/``output_names`` are for people; they are not semantics.
    ``repr`` is one line of measures (``verified_aat.display``), not every gate.
    """

    gates: tuple[Gate, ...]
    outputs: tuple[int, ...]
    name: str = "circuit"
    domain: Domain = Domain.RATIONALS
    output_names: tuple[str, ...] | None = None
    provenance: Provenance | None = None
    _inputs: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        inputs: dict[int, int] = {}
        for position, gate in enumerate(self.gates):
            _check_gate(position, gate)
            if gate.kind is Kind.INPUT:
                if gate.index in inputs:
                    raise ValueError(f"input index {gate.index} is used twice")
                inputs[gate.index] = position
        if sorted(inputs) != list(range(len(inputs))):
            raise ValueError(f"input indices must be 0..{len(inputs) - 1}, got {sorted(inputs)}")
        for out in self.outputs:
            if not 0 <= out < len(self.gates):
                raise ValueError(f"output refers to gate {out}, which does not exist")
        if self.output_names is not None and len(self.output_names) != len(self.outputs):
            raise ValueError("output_names must name every output")
        object.__setattr__(self, "_inputs", tuple(inputs[i] for i in range(len(inputs))))

    # -- basic views -------------------------------------------------------
    @property
    def n_inputs(self) -> int:
        return len(self._inputs)

    @property
    def input_gates(self) -> tuple[int, ...]:
        """Gate index of input ``i`` at position ``i``."""
        return self._inputs

    @property
    def input_names(self) -> tuple[str, ...]:
        return tuple(self.gates[g].name or f"x{i}" for i, g in enumerate(self._inputs))

    @property
    def size(self) -> int:
        return len(self.gates)

    @property
    def n_edges(self) -> int:
        return sum(len(g.args) for g in self.gates)

    def gate_name(self, index: int) -> str:
        """A printable name for gate ``index`` (its own name or ``g<index>``)."""
        return self.gates[index].name or f"g{index}"

    def with_outputs(self, outputs: tuple[int, ...]) -> "Circuit":
        return Circuit(self.gates, outputs, self.name, self.domain, None, self.provenance)

    def __repr__(self) -> str:
        from ..display import circuit_repr
        return circuit_repr(self)

    def _repr_html_(self) -> str:
        """A small table of the circuit's measures for Jupyter."""
        from ..display import circuit_html
        return circuit_html(self)


def _check_gate(position: int, gate: Gate) -> None:
    """Validate one gate's arity, payload and topological order."""
    where = f"gate {gate.name or position}"
    if not isinstance(gate.kind, Kind):
        raise ValueError(f"{where}: unknown kind {gate.kind!r}")
    for arg in gate.args:
        if not isinstance(arg, int) or not 0 <= arg < position:
            raise ValueError(f"{where}: argument {arg} is not an earlier gate (cycle or undefined)")
    kind = gate.kind
    if kind in (Kind.INPUT, Kind.CONST) and gate.args:
        raise ValueError(f"{where}: {kind.value} takes no arguments, got {len(gate.args)}")
    if kind is Kind.CONST and not isinstance(gate.value, Fraction):
        raise ValueError(f"{where}: const needs a rational value")
    if kind is not Kind.CONST and gate.value is not None:
        raise ValueError(f"{where}: only const gates carry a value")
    if kind is Kind.INPUT and (not isinstance(gate.index, int) or gate.index < 0):
        raise ValueError(f"{where}: input needs an index >= 0")
    if kind is not Kind.INPUT and gate.index is not None:
        raise ValueError(f"{where}: only input gates carry an index")
    if kind is Kind.SIGN and len(gate.args) != 1:
        raise ValueError(f"{where}: sign takes exactly 1 argument, got {len(gate.args)}")
    if kind is Kind.MUL and len(gate.args) < 2:
        raise ValueError(f"{where}: mul takes at least 2 arguments, got {len(gate.args)}")


def sign(value: Fraction | int) -> int:
    """sign(v) in {-1, 0, 1}; sign(0) = 0."""
    return (value > 0) - (value < 0)
