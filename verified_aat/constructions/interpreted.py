"""A construction interpreted from its document (:mod:`.document`).

:class:`DocumentConstruction` implements every method of :class:`~.base.Construction` from a
validated :class:`~.document.Document`, so the engine (compile, certify, refute, run) treats it
like a built-in.  The shipped documents of the seven built-ins are tested to give byte for
byte what their Python classes give (tests/test_construction_documents.py).
"""

from __future__ import annotations

import os
from fractions import Fraction

from ..circuits.ir import Circuit, Gate, Kind
from ..errors import InputError
from ..transformer.model import Transformer
from .base import Construction, RoleRule, ScoreHint
from .document import Document, PositionGroup, load_document
from .encoding import Encoding, Role
from .formula import Formula, exact
from ..wording import article


class DocumentConstruction(Construction):
    """The construction a document states; its intentions are checked like any other's."""

    def __init__(self, document: Document):
        self.document = document
        self.name = document.name
        self.summary = document.summary
        self.paper = document.paper
        self.coordinates = document.coordinates
        self.structural = document.structural
        self.bounded_fan_in = document.rule.bounded_fan_in
        self._constants = {name: exact(value) for name, value in document.constants}

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> "DocumentConstruction":
        """Read, validate and interpret a document file."""
        return cls(load_document(path))

    # -- class -------------------------------------------------------------
    def check_class(self, circuit: Circuit) -> None:
        rule = self.document.rule
        for index, gate in enumerate(circuit.gates):
            kind = gate.kind.value
            for limited, low, high in rule.limits:
                if limited not in (kind, "*"):
                    continue
                if (low is not None and gate.fan_in < low) or (high is not None and gate.fan_in > high):
                    raise InputError(_fill(rule.message, {"{construction}": self.name, "{kind}": kind,
                                                          "{a_kind}": article(kind),
                                                          "{gate}": circuit.gate_name(index),
                                                          "{fan_in}": str(gate.fan_in)}))

    def layers(self, depth_bound: int) -> int:
        return self.document.layers(depth_bound)

    def transformer(self, depth_bound: int) -> Transformer:
        d = self.document
        layers = d.prefix + d.block * depth_bound + d.suffix
        return Transformer(d.coordinates, layers, f"{self.name} K={depth_bound}")

    # -- encoding ----------------------------------------------------------
    def encode(self, circuit: Circuit) -> Encoding:
        self.check_class(circuit)
        rows: list[tuple[Fraction | int, ...]] = []
        roles: list[Role] = []
        slots: list[tuple[int, int, int]] = []
        where: dict[str, dict[int, int]] = {}  # role → gate → its position (gates, sinks)
        for group in self.document.groups:
            where[group.role] = {}
            for role, source, params in _positions(group, circuit):
                gate = circuit.gates[source]
                rows.append(self._row(group, gate, params))
                roles.append(role)
                if group.input is not None and gate.kind is Kind.INPUT:
                    slots.append((len(rows) - 1, group.input, gate.index))  # type: ignore[arg-type]
                if group.role != "edge":
                    where[group.role][source] = len(rows) - 1
        role, coordinate = self.document.readout
        readout = tuple((where[role][o], coordinate) for o in circuit.outputs)
        return Encoding(self.name, self.coordinates, tuple(rows), tuple(slots), readout, tuple(roles),
                        circuit.n_inputs)

    def _row(self, group: PositionGroup, gate: Gate, params: dict[str, int | Fraction]) -> tuple[Fraction | int, ...]:
        env = {**self._constants, **params}
        formulas: tuple[Formula, ...] = group.row(gate.kind.value)
        return tuple(exact(f.evaluate(env)) for f in formulas)

    # -- intentions ----------------------------------------------------------
    def schedule_rules(self) -> dict[str, RoleRule]:
        return dict(self.document.schedule)

    def score_hints(self) -> dict[str, ScoreHint]:
        return dict(self.document.hints)


def _fill(template: str, values: dict[str, str]) -> str:
    """Replace the placeholders in one pass (a gate name holding '{kind}' stays as it is)."""
    import re
    return re.sub("|".join(re.escape(k) for k in values), lambda m: values[m.group(0)], template)


def _constant(gate: Gate) -> Fraction | int:
    value = gate.value if gate.kind is Kind.CONST and gate.value is not None else Fraction(0)
    return exact(Fraction(value))


def _positions(group: PositionGroup, circuit: Circuit):  # type: ignore[no-untyped-def]
    """(role, source gate, parameters) of each position of ``group``, in the group's order."""
    gates = circuit.gates
    if group.role == "gate":
        for g, gate in enumerate(gates):
            yield Role("gate", g), g, {"id": g, "k": gate.fan_in, "c": _constant(gate),
                                       "index": gate.index if gate.kind is Kind.INPUT else 0}
    elif group.role == "edge":
        for v, gate in enumerate(gates):
            for s, u in enumerate(gate.args):
                yield Role("edge", v, u, s), u, {"src": u, "dst": v, "slot": s, "k": gates[u].fan_in,
                                                 "c": _constant(gates[u])}
    else:
        seen: set[int] = set()
        for g in circuit.outputs:
            if g not in seen:
                seen.add(g)
                yield Role("sink", g, g, None), g, {"src": g, "dst": group.target, "slot": 0,
                                                    "k": gates[g].fan_in, "c": _constant(gates[g])}
