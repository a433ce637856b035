"""enc(C) built from a construction document (:mod:`.layouts`) by one generic loop (docs/soundness.md S2; its hash,
which only the comparison with the certificate's reads, is ``agreement.encoding_digest``); only the per-circuit
checker builds one."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import repeat
from operator import itemgetter
from typing import Any, Callable, Iterable, Mapping, NamedTuple

from . import formula as fm
from .data import MAX_BITS, Circuit, NotChecked, Number, bits, exact
from .layouts import PARAMETERS, Construction, Group, check_class


class Role(NamedTuple):
    """What a position stands for: ("gate", g) / ("edge", target v, source u, slot s) / ("sink", g, g); a tuple."""

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


class Illegitimate(Exception):
    """The document's rows put something beside x_i in an input slot: not a legitimate encoding."""


def build(construction: Construction, circuit: Circuit) -> Encoding:
    """enc(C) with every input slot at 0, by one loop for every construction."""
    check_class(construction, circuit)
    rows: list[tuple[Number, ...]] = []
    roles: list[Role] = []
    slots: list[tuple[int, int, int]] = []
    where: dict[int, int] = {}
    ids = list(range(len(circuit.gates)))  # one int object a gate id in every group's roles and rows
    for group in construction.groups:
        first = len(rows)
        group_roles, ops, params = _positions(group, circuit, ids)
        fit = _work(len(params))
        rules = {kind: _row_builder(group.role, formulas, fit) for kind, formulas in group.rows}
        rows += [rules[op](each) for op, each in zip(ops, params)]
        roles += group_roles
        if group.input is not None:
            for p in range(first, len(rows)):
                source = circuit.gates[roles[p].source if roles[p].kind != "gate" else roles[p].gate]
                if source.op != "input":
                    continue
                if rows[p][group.input] != 0:
                    raise Illegitimate(f"the row of {roles[p].kind} position {p} holds {rows[p][group.input]} "
                                       f"in its input slot {construction.coordinates[group.input]}: x_i must be "
                                       "alone there")
                slots.append((p, group.input, source.index))  # type: ignore[arg-type]
        if group.role == construction.readout[0]:
            for p in range(len(rows) - 1, first - 1, -1):  # the first position of each gate
                where[roles[p].gate] = p
    readout_at = tuple((where[o], construction.readout[1]) for o in circuit.outputs)
    return Encoding(construction.coordinates, tuple(rows), tuple(roles), tuple(slots), readout_at, construction.role_kinds)


def _work(positions: int) -> Callable[[Number], Number]:
    """``formula.fit`` (MAX_BITS a step) charged to one group's budget, 10^8 + 10^4 bits a position (a shipped
    document's rows take a few hundred): constants are folded when the document is read, but what a formula
    computes from the parameters is computed at every position.  Past either the encoding is *not checked*."""
    left = [10**8 + 10**4 * positions]

    def fit(value: Number) -> Number:
        value = exact(value)
        size = bits(value)  # once a step, on the per-position hot path
        left[0] -= size
        if size > MAX_BITS or left[0] < 0:
            raise NotChecked(f"the document's row formulas compute a number past {MAX_BITS} bits, or more bits than "
                             "the encoding's work bound")
        return value
    return fit


def _row_builder(role: str, formulas: tuple[fm.Node, ...], fit: Callable[[Number], Number]) -> Callable[[tuple[Number, ...]], tuple[Number, ...]]:
    """The row of one group and kind from the position's parameter tuple (PARAMETERS order): a bare
    parameter or number is picked by index (one ``itemgetter``), anything else computed."""
    names = PARAMETERS[role]
    slots = {name: n for n, name in enumerate(names)}
    extra: list[Number] = []
    computed: list[Callable[[tuple[Number, ...]], Number]] = []
    picks: list[int] = []
    for node in formulas:
        if node[0] == "name":
            picks.append(slots[node[1]])
        elif node[0] == "num":
            extra.append(node[1])
            picks.append(len(names) + len(extra) - 1)
        else:
            computed.append(compile_formula(node, slots, fit))
            picks.append(-len(computed))  # fixed below, once the constants are counted
    width = len(names) + len(extra)
    picks = [p if p >= 0 else width + (-p - 1) for p in picks]
    constants = tuple(extra)
    pick = itemgetter(*picks) if len(picks) > 1 else (lambda t, p=picks[0]: (t[p],))
    if not computed:
        return lambda params: pick(params + constants)
    return lambda params: pick(params + constants + tuple(f(params) for f in computed))


def compile_formula(node: fm.Node, slots: Mapping[str, int], fit: Callable[[Number], Number]) -> Callable[[tuple[Any, ...]], Any]:
    """A closure computing ``evaluate(node, env)`` on exact numbers, with the parameters at the positions
    ``slots`` of a tuple (the per-circuit hot path)."""
    tag = node[0]
    if tag == "num":
        value = node[1]
        return lambda env: value
    if tag == "name":
        index = slots[node[1]]
        return lambda env: env[index]
    parts = [compile_formula(a, slots, fit) for a in node[1:]]
    if tag == "neg":
        (f,) = parts
        return lambda env: -f(env)
    (left, right), op = parts, fm.ARITHMETIC[tag]
    if tag in ("min", "max"):  # one of the operands: no new number
        return lambda env: op(left(env), right(env))
    return lambda env: fit(op(left(env), right(env)))  # fit: exact, and *not checked* past the work bound (every step)


def _positions(group: Group, circuit: Circuit, ids: list[int]) -> tuple[list[Role], list[str], list[tuple[Number, ...]]]:
    """Roles, source gates' kinds, parameters (PARAMETERS order) of the group's positions in the fixed ORDERS."""
    gates = circuit.gates
    constants = [gate.value if gate.op == "const" else 0 for gate in gates]
    if group.role == "gate":
        return (_roles(("gate", g, None, None) for g in ids), [gate.op for gate in gates],
                [(g, len(gate.args), constants[g], gate.index if gate.op == "input" else 0) for g, gate in zip(ids, gates)])
    if group.role == "edge":
        edges = [(v, s, u) for v, gate in zip(ids, gates) for s, u in enumerate(gate.args)]
        ops, fan_ins = [gate.op for gate in gates], [len(gate.args) for gate in gates]  # flat lists: a source at random
        return (_roles(("edge", v, u, s) for v, s, u in edges), [ops[u] for _, _, u in edges],  # is one cache line
                [(u, v, s, fan_ins[u], constants[u]) for v, s, u in edges])
    seen = list(dict.fromkeys(circuit.outputs))
    return (_roles(("sink", g, g, None) for g in seen), [gates[g].op for g in seen],
            [(g, group.target, 0, len(gates[g].args), constants[g]) for g in seen])


def _roles(fields: Iterable[tuple[str, int, int | None, int | None]]) -> list[Role]:
    """Roles from their four fields, each built in C (Role(...) is a Python-level __new__: 0.6 µs more each)."""
    return list(map(tuple.__new__, repeat(Role), fields))
