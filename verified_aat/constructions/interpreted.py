"""A construction interpreted from its document (:mod:`.document`).

:class:`DocumentConstruction` implements every method of :class:`~.base.Construction` from a
validated :class:`~.document.Document`, so the engine (compile, certify, refute, run) treats it
like any construction; the registry serves the seven built-ins this way, from their shipped
documents, which tests/test_construction_documents.py proves equal, byte for byte, to what
their Python classes (the documents' writers) give.

Encoding is the hot path (10⁶ positions): each group's rows are compiled once, per gate kind,
into a function of the position's parameter tuple — constants and single parameters are picked
by one ``itemgetter``, other formulas are closures over the parsed tree (:func:`.formula.compiled_parts`).
"""

from __future__ import annotations

import os
import re
from fractions import Fraction
from operator import itemgetter
from typing import Callable

from ..circuits.ir import Circuit, Kind
from ..errors import InputError
from ..transformer.model import Transformer
from .base import Construction, Description, RoleRule, ScoreHint
from .document import PARAMETERS, Document, PositionGroup, load_document
from .encoding import Encoding, Role
from .formula import Formula, compiled_parts, exact, maybe_fraction
from ..wording import article

Row = tuple[Fraction | int, ...]
RowFunction = Callable[[tuple], Row]


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
        self._rows = {g.role: {Kind(kind): _row_function(formulas, PARAMETERS[g.role], self._constants)
                               for kind, formulas in g.rows} for g in document.groups}
        self._limits = {kind: tuple((low, high) for limited, low, high in document.rule.limits
                                    if limited in (kind.value, "*")) for kind in Kind}

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> "DocumentConstruction":
        """Read, validate and interpret a document file."""
        return cls(load_document(path))

    # -- class -------------------------------------------------------------
    def check_class(self, circuit: Circuit) -> None:
        limits = self._limits
        for index, gate in enumerate(circuit.gates):
            for low, high in limits[gate.kind]:
                n = gate.fan_in
                if (low is not None and n < low) or (high is not None and n > high):
                    kind = gate.kind.value
                    raise InputError(_fill(self.document.rule.message,
                                           {"{construction}": self.name, "{kind}": kind, "{a_kind}": article(kind),
                                            "{gate}": circuit.gate_name(index), "{fan_in}": str(n)}))

    def layers(self, depth_bound: int) -> int:
        return self.document.layers(depth_bound)

    def transformer(self, depth_bound: int) -> Transformer:
        d = self.document
        layers = d.prefix + d.block * depth_bound + d.suffix
        return Transformer(d.coordinates, layers, f"{self.name} K={depth_bound}")

    # -- encoding ----------------------------------------------------------
    def encode(self, circuit: Circuit) -> Encoding:
        self.check_class(circuit)
        gates = circuit.gates
        values = [exact(g.value) if g.kind is Kind.CONST and g.value is not None else 0 for g in gates]
        rows: list[Row] = []
        roles: list[Role] = []
        slots: list[tuple[int, int, int]] = []
        where: dict[int, int] = {}  # read-out gate → its position
        readout_role, coordinate = self.document.readout
        for group in self.document.groups:
            start = len(rows)
            _GROUPS[group.role](self._rows[group.role], group, circuit, values, rows, roles, slots)
            if group.role == readout_role:
                where = {role.gate: start + n for n, role in enumerate(roles[start:])}
        readout = tuple((where[o], coordinate) for o in circuit.outputs)
        return Encoding(self.name, self.coordinates, tuple(rows), tuple(slots), readout, tuple(roles),
                        circuit.n_inputs)

    # -- intentions ----------------------------------------------------------
    def schedule_rules(self) -> dict[str, RoleRule]:
        return dict(self.document.schedule)

    def score_hints(self) -> dict[str, ScoreHint]:
        return dict(self.document.hints)

    def description(self) -> Description:
        return self.document.description


def _row_function(formulas: tuple[Formula, ...], parameters: tuple[str, ...],
                  constants: dict[str, int | Fraction]) -> RowFunction:
    """The row of one (group, kind) as a function of the parameter tuple (in ``parameters`` order).

    Every coordinate is an index into ``p + computed + fixed``: a parameter, a closure's value, or a
    constant; one ``itemgetter`` builds the row.  Values are exact (ints where integral), as ``_eval``
    followed by :func:`.formula.exact` gives them."""
    slots = {name: n for n, name in enumerate(parameters)}
    fractional = {"c"} | {n for n, v in constants.items() if type(v) is not int}
    closures: list[Callable[[tuple], int | Fraction]] = []
    fixed: list[int | Fraction] = []
    picks: list[tuple[str, int]] = []
    for f in formulas:
        kind, value = compiled_parts(f.tree, slots, constants)
        if kind == "slot":
            picks.append(("p", value))
        elif kind == "const":
            fixed.append(exact(value))
            picks.append(("fixed", len(fixed) - 1))
        else:
            closure = _exactly(value) if maybe_fraction(f.tree, fractional) else value
            closures.append(closure)
            picks.append(("computed", len(closures) - 1))
    base = {"p": 0, "computed": len(parameters), "fixed": len(parameters) + len(closures)}
    indices = [base[part] + n for part, n in picks]
    pick: Callable[[tuple], Row] = itemgetter(*indices)
    if len(indices) == 1:  # an itemgetter of one index gives the value, not a 1-tuple
        single = itemgetter(indices[0])
        pick = lambda values: (single(values),)  # noqa: E731
    tail = tuple(fixed)
    if not closures:
        return (lambda p: pick(p + tail)) if tail else pick
    if len(closures) == 1:
        only = closures[0]
        return lambda p: pick(p + (only(p),) + tail)
    if len(closures) == 2:
        first, second = closures
        return lambda p: pick(p + (first(p), second(p)) + tail)
    return lambda p: pick(p + tuple([f(p) for f in closures]) + tail)


def _exactly(inner: Callable[[tuple], int | Fraction]) -> Callable[[tuple], int | Fraction]:
    """``inner`` with an integral Fraction turned into an int (rows hold ints where integral)."""
    return lambda p: exact(inner(p))


def _gates(fns, group: PositionGroup, circuit: Circuit, values, rows, roles, slots) -> None:  # type: ignore[no-untyped-def]
    slot, add_row, add_role = group.input, rows.append, roles.append
    start = len(rows)
    for g, gate in enumerate(circuit.gates):
        kind = gate.kind
        if kind is Kind.INPUT:
            add_row(fns[kind]((g, gate.fan_in, values[g], gate.index)))
            if slot is not None:
                slots.append((start + g, slot, gate.index))
        else:
            add_row(fns[kind]((g, gate.fan_in, values[g], 0)))
        add_role(Role("gate", g))


def _edges(fns, group: PositionGroup, circuit: Circuit, values, rows, roles, slots) -> None:  # type: ignore[no-untyped-def]
    gates, slot, add_row, add_role = circuit.gates, group.input, rows.append, roles.append
    fan_in = [len(g.args) for g in gates]
    kinds = [g.kind for g in gates]
    for v, gate in enumerate(gates):
        for s, u in enumerate(gate.args):
            kind = kinds[u]
            add_row(fns[kind]((u, v, s, fan_in[u], values[u])))
            add_role(Role("edge", v, u, s))
            if kind is Kind.INPUT and slot is not None:
                slots.append((len(rows) - 1, slot, gates[u].index))


def _sinks(fns, group: PositionGroup, circuit: Circuit, values, rows, roles, slots) -> None:  # type: ignore[no-untyped-def]
    gates, seen = circuit.gates, set()
    for g in circuit.outputs:
        if g in seen:
            continue
        seen.add(g)
        gate = gates[g]
        rows.append(fns[gate.kind]((g, group.target, 0, gate.fan_in, values[g])))
        roles.append(Role("sink", g, g, None))
        if gate.kind is Kind.INPUT and group.input is not None:
            slots.append((len(rows) - 1, group.input, gate.index))


_GROUPS = {"gate": _gates, "edge": _edges, "sink": _sinks}


def _fill(template: str, values: dict[str, str]) -> str:
    """Replace the placeholders in one pass (a gate name holding '{kind}' stays as it is)."""
    return re.sub("|".join(re.escape(k) for k in values), lambda m: values[m.group(0)], template)
