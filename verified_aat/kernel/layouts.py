"""The kernel's own statement of each construction's encoding enc(C, x).

A *legitimate* encoding (docs/soundness.md, S2) lays out C's structure and
nothing else: its positions are roles of C (a gate, an edge occurrence
u → v in argument slot s, or a sink for an output gate), in a fixed order;
the row of a position is a function of that role's *local* structure only —
the kind, fan-in, id and constant of the gate(s) it touches — and each x_i
is placed only in the declared slot coordinate of positions whose carried
gate is input i.  Nothing may depend on the rest of the circuit (no depths,
no values), so the encoding cannot carry any part of C(x).

Each layout below is written from the construction's specification
(``specs/constructions/``), independently of its encoder in
``verified_aat/constructions/``: the kernel builds enc(C) itself and the
certificate's encoding hash must be the hash of this build.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .data import Circuit, Gate, Number


@dataclass(frozen=True)
class Role:
    """What a position stands for: ("gate", g) / ("edge", target v, source u, slot s) / ("sink", g, g)."""

    kind: str
    gate: int
    source: int | None = None
    slot: int | None = None


@dataclass(frozen=True)
class Encoding:
    coordinates: tuple[str, ...]
    rows: tuple[tuple[Number, ...], ...]
    roles: tuple[Role, ...]
    input_slots: tuple[tuple[int, int, int], ...]  # (position, coordinate, input index)
    readout: tuple[tuple[int, int], ...]           # (position, coordinate) per output
    role_kinds: tuple[str, ...]                    # which role kinds this layout has


class OutsideLayout(Exception):
    """The circuit is not in the domain of the layout (e.g. a mul of fan-in 3)."""


# -- local operation codes -------------------------------------------------------

def _fan_in_code(gate: Gate) -> int:
    """gate-edge / edge-only: add ↦ its fan-in k ≥ 0; mul −1, sign −2, input and const −3."""
    if gate.op == "add":
        return len(gate.args)
    return {"mul": -1, "sign": -2, "input": -3, "const": -3}[gate.op]


def _bounded_code(gate: Gate) -> int:
    """unique-hard: add of fan-in 0/1/2 ↦ 0/1/2, mul 3, sign 4, input and const 5 (edges: 6)."""
    if gate.op == "add":
        return len(gate.args)
    return {"mul": 3, "sign": 4, "input": 5, "const": 5}[gate.op]


def _const(gate: Gate) -> Number:
    return gate.value if gate.op == "const" else 0  # type: ignore[return-value]


# -- the class each layout is defined on ------------------------------------------

def _mul_binary(circuit: Circuit) -> None:
    for g, gate in enumerate(circuit.gates):
        if gate.op == "mul" and len(gate.args) != 2:
            raise OutsideLayout(f"gate {g} is a mul of fan-in {len(gate.args)} (the layout needs FSAC0: mul fan-in 2)")


def _fan_in_two(circuit: Circuit) -> None:
    for g, gate in enumerate(circuit.gates):
        if len(gate.args) > 2:
            raise OutsideLayout(f"gate {g} has fan-in {len(gate.args)} (the layout needs FNC0: fan-in <= 2)")


# -- the two position layouts -------------------------------------------------------

@dataclass(frozen=True)
class GateEdgeLayout:
    """Gates in index order, then every edge occurrence in (target, slot) order."""

    coordinates: tuple[str, ...]
    gate_row: Callable[[int, Gate], tuple[Number, ...]]
    edge_row: Callable[[int, int, int], tuple[Number, ...]]  # (source u, target v, argument slot s)
    domain: Callable[[Circuit], None]
    role_kinds: tuple[str, ...] = ("gate", "edge")

    def build(self, circuit: Circuit) -> Encoding:
        self.domain(circuit)
        val = self.coordinates.index("val")
        rows: list[tuple[Number, ...]] = []
        roles: list[Role] = []
        slots: list[tuple[int, int, int]] = []
        for g, gate in enumerate(circuit.gates):
            if gate.op == "input":
                slots.append((len(rows), val, gate.index))  # type: ignore[arg-type]
            rows.append(self.gate_row(g, gate))
            roles.append(Role("gate", g))
        for v, gate in enumerate(circuit.gates):
            for s, u in enumerate(gate.args):
                rows.append(self.edge_row(u, v, s))
                roles.append(Role("edge", v, u, s))
        readout = tuple((o, val) for o in circuit.outputs)
        return Encoding(self.coordinates, tuple(rows), tuple(roles), tuple(slots), readout, self.role_kinds)


def _edge_only_row(gate: Gate, u: int, target: int, slot: int | None) -> tuple[Number, ...]:
    """edge-only: (code(u), u, v, c_u, c_u²)."""
    c = _const(gate)
    return (_fan_in_code(gate), u, target, c, c * c)


def _edge_k_row(gate: Gate, u: int, target: int, slot: int | None) -> tuple[Number, ...]:
    """edge-k: (±(code(u) + 10), u, v, c_u), the sign − for argument slot 0 and sinks (slot None), + for slots ≥ 1."""
    sign = 1 if slot is not None and slot >= 1 else -1
    return (sign * (_fan_in_code(gate) + 10), u, target, _const(gate))


@dataclass(frozen=True)
class EdgeOnlyLayout:
    """Edges in (target, slot) order, then one sink per distinct output gate, in first-use order."""

    coordinates: tuple[str, ...] = ("op", "src", "tgt", "val", "sq")
    role_kinds: tuple[str, ...] = ("edge", "sink")
    row: Callable[[Gate, int, int, int | None], tuple[Number, ...]] = _edge_only_row

    def build(self, circuit: Circuit) -> Encoding:
        _mul_binary(circuit)
        val = self.coordinates.index("val")
        rows: list[tuple[Number, ...]] = []
        roles: list[Role] = []
        slots: list[tuple[int, int, int]] = []

        def place(u: int, target: int, role: Role) -> None:
            gate = circuit.gates[u]
            if gate.op == "input":
                slots.append((len(rows), val, gate.index))  # type: ignore[arg-type]
            rows.append(self.row(gate, u, target, role.slot))
            roles.append(role)

        for v, gate in enumerate(circuit.gates):
            for s, u in enumerate(gate.args):
                place(u, v, Role("edge", v, u, s))
        sink: dict[int, int] = {}
        for g in circuit.outputs:
            if g not in sink:
                sink[g] = len(rows)
                place(g, -1, Role("sink", g, g))
        readout = tuple((sink[g], val) for g in circuit.outputs)
        return Encoding(self.coordinates, tuple(rows), tuple(roles), tuple(slots), readout, self.role_kinds)


def _dot_gate(g: int, gate: Gate) -> tuple[Number, ...]:
    return (_fan_in_code(gate), g, g, _const(gate), 0, 1, g * g, g * g + 1)


def _dot_edge(u: int, v: int, s: int) -> tuple[Number, ...]:
    return (-4, u, v, 0, 0, 1, u * u + 1, v * v)


LAYOUTS: dict[str, GateEdgeLayout | EdgeOnlyLayout] = {
    # op, a, b, val, sq: gate g ↦ (code, g, g, c_g, 0); edge u → v ↦ (−4, u, v, 0, 0)
    "gate-edge": GateEdgeLayout(("op", "a", "b", "val", "sq"),
                                lambda g, gate: (_fan_in_code(gate), g, g, _const(gate), 0),
                                lambda u, v, s: (-4, u, v, 0, 0), _mul_binary),
    # plus one = 1, fa = a² + [edge], gb = b² + [gate]
    "gate-edge-dot": GateEdgeLayout(("op", "a", "b", "val", "sq", "one", "fa", "gb"), _dot_gate, _dot_edge,
                                    _mul_binary),
    # op, a, b, val with bounded codes; edge code 6
    "unique-hard": GateEdgeLayout(("op", "a", "b", "val"),
                                  lambda g, gate: (_bounded_code(gate), g, g, _const(gate)),
                                  lambda u, v, s: (6, u, v, 0), _fan_in_two),
    # one unique-hard rule for every head: as unique-hard, but an edge in argument slot s has code 6 + s
    "unique-hard-left": GateEdgeLayout(("op", "a", "b", "val"),
                                       lambda g, gate: (_bounded_code(gate), g, g, _const(gate)),
                                       lambda u, v, s: (6 + s, u, v, 0), _fan_in_two),
    # edge u → v ↦ (code(u), u, v, c_u, c_u²); sink g ↦ (code(g), g, −1, c_g, c_g²)
    "edge-only": EdgeOnlyLayout(),
    # edge u → v in slot s ↦ (±(code(u) + 10), u, v, c_u), + iff s ≥ 1; sink g ↦ (−(code(g) + 10), g, −1, c_g)
    "edge-k": EdgeOnlyLayout(("op", "src", "tgt", "val"), row=_edge_k_row),
}

LAYOUTS["unique-hard-right"] = LAYOUTS["unique-hard-left"]  # the same encoding; only the heads' rule differs


def encoding_digest(encoding: Encoding) -> str:
    """sha256 of the encoding's canonical lines (docs/certificates.md, "Encoding hash")::

        coordinates c1 c2 …
        role|kind gate source slot|v1 v2 …     (one line per position; None as '-')
        slot|p c i                              (input slots)
        read|p c                                (read-out)
    """
    import hashlib

    h = hashlib.sha256()
    h.update(("coordinates " + " ".join(encoding.coordinates) + "\n").encode())
    lines = []
    for role, row in zip(encoding.roles, encoding.rows):
        source = "-" if role.source is None else role.source
        slot = "-" if role.slot is None else role.slot
        lines.append(f"role|{role.kind} {role.gate} {source} {slot}|{' '.join(map(str, row))}\n")
        if len(lines) >= 4096:
            h.update("".join(lines).encode())
            lines = []
    lines += [f"slot|{p} {c} {i}\n" for p, c, i in encoding.input_slots]
    lines += [f"read|{p} {c}\n" for p, c in encoding.readout]
    h.update("".join(lines).encode())
    return h.hexdigest()
