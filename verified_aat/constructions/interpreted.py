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
from itertools import chain, compress, count, repeat
from operator import attrgetter, is_, itemgetter
from typing import Callable, Iterator

from ..circuits.ir import Circuit, Kind
from ..errors import InputError, LimitReached
from ..limits import MAX_LAYERS
from ..transformer.model import Transformer
from .base import Construction, Description, RoleRule, ScoreHint
from .document import PARAMETERS, Document, PositionGroup, load_document
from .encoding import Encoding, Role, instances
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
        #: per role and kind, the row's columns when no coordinate needs a closure (:func:`_row_plan`)
        self._plans = {g.role: {Kind(kind): _row_plan(formulas, PARAMETERS[g.role], self._constants)
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
        count = self.layers(depth_bound)
        if count > MAX_LAYERS:
            raise LimitReached(f"{self.name}: T_K for K = {depth_bound:,} would have {count:,} layers (the "
                               f"layers limit, {MAX_LAYERS:,}: what the kernel checks); nothing built")
        layers = d.prefix + d.block * depth_bound + d.suffix
        return Transformer(d.coordinates, layers, f"{self.name} K={depth_bound}")

    # -- encoding ----------------------------------------------------------
    def encode(self, circuit: Circuit) -> Encoding:
        self.check_class(circuit)
        gates = circuit.gates
        values: list[int | Fraction] = [0] * len(gates)
        for g in compress(count(), map(is_, map(_KIND, gates), repeat(Kind.CONST))):
            if gates[g].value is not None:
                values[g] = exact(gates[g].value)
        rows: list[Row] = []
        roles: list[Role] = []
        slots: list[tuple[int, int, int]] = []
        where: dict[int, int] = {}  # read-out gate → its position
        readout_role, coordinate = self.document.readout
        for group in self.document.groups:
            start = len(rows)
            if group.role in ("gate", "edge"):
                _BULK[group.role](self._rows[group.role], self._plans[group.role], group, circuit, values, rows,
                                  roles, slots)
            else:
                _GROUPS[group.role](self._rows[group.role], group, circuit, values, rows, roles, slots)
            if group.role == readout_role:
                where = dict(zip(map(_GATE, roles[start:]), count(start)))
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


def _row_plan(formulas: tuple[Formula, ...], parameters: tuple[str, ...], constants: dict[str, int | Fraction]
              ) -> tuple[tuple[int | None, ...], tuple[int | Fraction, ...]] | None:
    """The row of one (group, kind) as columns, when every coordinate is a parameter or a constant: per
    coordinate the parameter's index (None: a constant), and the constants; None when some coordinate is
    another formula.  The same values :func:`_row_function` picks."""
    slots = {name: n for n, name in enumerate(parameters)}
    picks: list[int | None] = []
    fixed: list[int | Fraction] = []
    for f in formulas:
        kind, value = compiled_parts(f.tree, slots, constants)
        if kind == "fn":
            return None
        picks.append(value if kind == "slot" else None)
        if kind == "const":
            fixed.append(exact(value))
    return tuple(picks), tuple(fixed)


def _planned(plan: tuple[tuple[int | None, ...], tuple[int | Fraction, ...]], column: Callable[[int], list],
             n: int) -> Iterator[Row]:
    """The rows of ``n`` positions by a :func:`_row_plan`: parameter i's ``column(i)``, or the plan's constant."""
    picks, fixed = plan
    constant = iter(fixed)
    return zip(*[column(i) if i is not None else repeat(next(constant), n) for i in picks])


def _exactly(inner: Callable[[tuple], int | Fraction]) -> Callable[[tuple], int | Fraction]:
    """``inner`` with an integral Fraction turned into an int (rows hold ints where integral)."""
    return lambda p: exact(inner(p))


def _gates(fns, plans, group: PositionGroup, circuit: Circuit, values, rows, roles, slots) -> None:  # type: ignore[no-untyped-def]
    """One row per gate, in order: the gates of one kind are built in bulk (as columns where :func:`_row_plan`
    allows), then put in place (kinds alternate in most circuits: runs of one kind are short)."""
    gates, slot, start = circuit.gates, group.input, len(rows)
    kinds = list(map(_KIND, gates))
    where: dict[Kind, list[int]] = {}
    for g, kind in enumerate(kinds):
        where.setdefault(kind, []).append(g)
    params = (range(len(gates)), list(map(len, map(_ARGS, gates))), values,
              [gate.index if kind is Kind.INPUT else 0 for gate, kind in zip(gates, kinds)])
    built: list = [None] * len(gates)
    for kind, at in where.items():
        columns = [list(map(column.__getitem__, at)) for column in params]
        plan = plans[kind]
        made = map(fns[kind], zip(*columns)) if plan is None else _planned(plan, columns.__getitem__, len(at))
        for g, row in zip(at, made):
            built[g] = row
        if kind is Kind.INPUT and slot is not None:
            slots.extend(zip([start + g for g in at], repeat(slot), columns[3]))
    rows.extend(built)
    roles.extend(instances(Role, len(gates), kind=repeat("gate"), gate=range(len(gates)), source=repeat(None),
                           slot=repeat(None)))


_KIND, _ARGS, _GATE = (attrgetter(f) for f in ("kind", "args", "gate"))


def _edges(fns, plans, group: PositionGroup, circuit: Circuit, values, rows, roles, slots) -> None:  # type: ignore[no-untyped-def]
    """One row per edge occurrence (u → v, argument slot s), in order of v then s: columns built in bulk, and
    zipped as they are when every source kind's row is the same :func:`_row_plan`."""
    gates, slot, start = circuit.gates, group.input, len(rows)
    arity = list(map(len, map(_ARGS, gates)))
    target = list(chain.from_iterable(map(repeat, range(len(gates)), arity)))
    position = list(chain.from_iterable(map(range, arity)))
    source = list(chain.from_iterable(map(_ARGS, gates)))
    kinds = list(map(_KIND, map(gates.__getitem__, source)))
    plan = {plans[kind] for kind in set(kinds)}
    if len(plan) == 1 and None not in plan:
        columns = (lambda: source, lambda: target, lambda: position, lambda: list(map(arity.__getitem__, source)),
                   lambda: list(map(values.__getitem__, source)))  # (src, dst, slot, k, c), built if picked
        rows.extend(_planned(plan.pop(), lambda i: columns[i](), len(source)))
    else:
        rows.extend(map(_call, map(fns.__getitem__, kinds), zip(source, target, position,
                                                                 map(arity.__getitem__, source),
                                                                 map(values.__getitem__, source))))
    roles.extend(instances(Role, len(source), kind=repeat("edge"), gate=target, source=source, slot=position))
    if slot is not None:
        for i in compress(count(), map(is_, kinds, repeat(Kind.INPUT))):
            slots.append((start + i, slot, gates[source[i]].index))


def _call(fn: Callable[[tuple], Row], parameters: tuple) -> Row:
    return fn(parameters)


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


_GROUPS = {"sink": _sinks}
_BULK = {"gate": _gates, "edge": _edges}  # the groups built as columns where their rows' plans allow


def _fill(template: str, values: dict[str, str]) -> str:
    """Replace the placeholders in one pass (a gate name holding '{kind}' stays as it is)."""
    return re.sub("|".join(re.escape(k) for k in values), lambda m: values[m.group(0)], template)
