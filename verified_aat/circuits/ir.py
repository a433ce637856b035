"""The immutable IR for arithmetic circuits over Q (MATH.md §2).

Gates are stored in topological order: every argument index is smaller than
the gate's own index, so a well-formed :class:`Circuit` is acyclic by
construction.  Edges form a multiset: ``mul(x, x)`` has ``args == (x, x)``.
The basis is strict (input, const, add, mul, sign); conveniences offered by
the text format are expanded into these gates before a circuit exists, so
depth and class are always measured in this basis.  The measures and the structure hash
that a circuit's one-line ``repr`` shows are defined here too (re-exported by
:mod:`.measures` and :mod:`.json_format`), so that the IR needs nothing above it.
"""

from __future__ import annotations

import enum
import hashlib
import json
import weakref
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import compress, count, repeat
from operator import attrgetter, is_not
from typing import Any

from ..display import Rows, html_table, one_line
from .rationals import format_rational


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
        fast = _input_order(self.gates)
        if fast is not None:
            object.__setattr__(self, "_inputs", fast)
            self._check_outputs()
            return
        inputs: dict[int, int] = {}
        for position, gate in enumerate(self.gates):
            _check_gate(position, gate)
            if gate.kind is Kind.INPUT:
                if gate.index in inputs:
                    raise ValueError(f"input index {gate.index} is used twice")
                inputs[gate.index] = position
        if sorted(inputs) != list(range(len(inputs))):
            raise ValueError(f"input indices must be 0..{len(inputs) - 1}, got {sorted(inputs)}")
        self._check_outputs()
        object.__setattr__(self, "_inputs", tuple(inputs[i] for i in range(len(inputs))))

    def _check_outputs(self) -> None:
        for out in self.outputs:
            if not 0 <= out < len(self.gates):
                raise ValueError(f"output refers to gate {out}, which does not exist")
        if self.output_names is not None and len(self.output_names) != len(self.outputs):
            raise ValueError("output_names must name every output")

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
        """``<Circuit 'c17': class FNC0, 5 inputs, 2 outputs, 6 gates … sha256 …>``."""
        return one_line("Circuit", repr(self.name), self._display_rows())

    def _repr_html_(self) -> str:
        """A small table of the circuit's measures for Jupyter."""
        return html_table("Circuit", repr(self.name), self._display_rows())

    def _display_rows(self) -> Rows:
        """The measures and hash prefix shown by ``repr``, cached on the (frozen) circuit."""
        m = self.__dict__.get("_display_measures")
        if m is None:
            m = measure(self)
            object.__setattr__(self, "_display_measures", m)
        digest = self.__dict__.get("_display_sha256")
        if digest is None:
            digest = circuit_sha256(self)
            object.__setattr__(self, "_display_sha256", digest)
        source = self.provenance.source_format if self.provenance is not None else None
        return [("class", m.class_name), ("inputs", m.n_inputs), ("outputs", m.n_outputs), ("gates", m.size),
                ("edges", m.edges), ("depth", m.depth), ("domain", self.domain.value), ("from", source),
                ("sha256", digest[:12])]


def _input_order(gates: tuple[Gate, ...]) -> tuple[int, ...] | None:
    """The input gates' positions by index, checked in bulk when the circuit begins with its inputs
    0, 1, …, n − 1 in order (e.g. a witness padded with 10⁶ inputs), holds no other input gate and every
    other gate passes :func:`_check_gate`; None: check gate by gate (which also names the first problem)."""
    kinds = list(map(_KIND, gates))
    n = next(compress(count(), map(is_not, kinds, repeat(Kind.INPUT))), len(kinds))  # leading input gates
    head = gates[:n]
    indices = list(map(_INDEX, head))
    try:
        plain = (_EMPTY.issuperset(map(_ARGS, head)) and _NONE.issuperset(map(_VALUE, head))
                 and _INT.issuperset(map(type, indices)))
    except TypeError:  # an unhashable payload: not a plain input gate
        return None
    if not plain or indices != list(range(n)) or Kind.INPUT in kinds[n:]:
        return None
    try:
        for position in range(n, len(gates)):
            _check_gate(position, gates[position])
    except ValueError:
        return None
    return tuple(range(n))


_KIND, _ARGS, _VALUE, _INDEX = (attrgetter(f) for f in ("kind", "args", "value", "index"))
_EMPTY, _NONE, _INT = frozenset([()]), frozenset([None]), frozenset([int])


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


# -- measures (MATH.md §2), re-exported by .measures --------------------------------

class CircuitClass(str, enum.Enum):
    """The smallest of FNC⁰ ⊆ FSAC⁰ ⊆ FAC⁰ that holds a circuit's gates."""

    FNC0 = "FNC0"
    FSAC0 = "FSAC0"
    FAC0 = "FAC0"


def gate_depths(circuit: Circuit) -> list[int]:
    """depth(input) = depth(const) = 0, depth(g) = 1 + max depth(pred).  Remembered for the last circuit
    asked about (compile asks for the depth, then the schedule for every gate's: a pass over 10⁶ gates)."""
    last = _LAST_DEPTHS.get("circuit")
    if last is not None and last[0]() is circuit:
        return list(last[1])
    gates = circuit.gates
    leading = next(compress(count(), map(is_not, map(_KIND, gates), repeat(Kind.INPUT))), len(gates))
    depths: list[int] = [0] * leading  # leading input gates (a padded witness has 10⁶)
    at = depths.__getitem__
    for gate in gates[leading:]:
        depths.append(1 + max(map(at, gate.args)) if gate.args else
                      (0 if gate.kind in (Kind.INPUT, Kind.CONST) else 1))
    _LAST_DEPTHS["circuit"] = (weakref.ref(circuit), tuple(depths))
    return depths


_LAST_DEPTHS: dict[str, tuple[Any, tuple[int, ...]]] = {}


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
    return Measures(n_inputs=circuit.n_inputs, n_outputs=len(circuit.outputs), size=circuit.size,
                    edges=circuit.n_edges, depth=depth(circuit), max_fan_in=fan_in, circuit_class=cls,
                    has_sign=has_sign)


# -- the structure hash, re-exported by .json_format ----------------------------------

STRUCTURE_VERSION = 1  # also the circuit JSON format's version (json_format.VERSION)
CANONICAL_FORMAT = "verified-aat/circuit-structure"


def circuit_structure(circuit: Circuit) -> dict[str, Any]:
    """``{"gates": [...], "outputs": [...]}``: ops, argument indices, constants, input indices; no names."""
    gates: list[list[Any]] = []
    for gate in circuit.gates:
        if gate.kind is Kind.CONST:
            gates.append(["const", format_rational(gate.value)])  # type: ignore[arg-type]
        elif gate.kind is Kind.INPUT:
            gates.append(["input", gate.index])
        else:
            gates.append([gate.kind.value, list(gate.args)])
    return {"gates": gates, "outputs": list(circuit.outputs)}


def canonical_circuit_bytes(circuit: Circuit) -> bytes:
    """Deterministic structure-only JSON bytes (see :mod:`.json_format`) for hashing."""
    doc = {"format": CANONICAL_FORMAT, "version": STRUCTURE_VERSION, "domain": circuit.domain.value,
           **circuit_structure(circuit)}
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def circuit_sha256(circuit: Circuit) -> str:
    """The structure hash (sha256 of :func:`canonical_circuit_bytes`): what certificates state and
    ``check --circuit`` compares."""
    return hashlib.sha256(canonical_circuit_bytes(circuit)).hexdigest()
