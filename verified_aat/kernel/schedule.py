"""Claims: which coordinate of which position carries which gate value, from which layer, instantiated by the
kernel from the certificate's schedule rules (docs/soundness.md S4), with the base case (S5) and the read-out (S10).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator, Sequence

from .circuits import constant_values, depths
from .data import MAX_SCHEDULE_INT, Circuit, as_dict, as_int, as_list, counted, need, within
from .encoding import Encoding, Role

@dataclass(frozen=True, slots=True)
class Claims:
    """``claims[p]``: coordinate → (gate, power, settle) at position p, from a pattern shared by one rule, anchor depth
    and kind (coordinate → (the role's field naming the gate, power, settle)) and p's role (not a dict a position)."""

    patterns: list[dict[int, tuple[int, int, int]]]
    roles: Sequence[Role]

    def __len__(self) -> int:
        return len(self.patterns)

    def __getitem__(self, p: int) -> dict[int, tuple[int, int, int]]:
        role = self.roles[p]
        return {c: (role[f], power, settle) for c, (f, power, settle) in self.patterns[p].items()}


POWERS = (1, 2)
REFS = {"gate": ("gate",), "edge": ("gate", "source"), "sink": ("gate", "source")}


def claims_from_rules(rules: Any, circuit: Circuit, encoding: Encoding, structural: set[int]) -> Claims:
    """Instantiate the rules at every position; :class:`Malformed` when a rule breaks the kernel's rule form."""
    coords = encoding.coordinates
    obj = as_dict(rules, "$.hints.schedule", set(), set(encoding.role_kinds))
    parsed: dict[str, tuple[int, int, int, list[tuple[int, int, int]], dict[tuple[str, int], int]]] = {}
    field = Role._fields.index  # a role's gate and source by their place in the tuple Role
    for kind, raw in sorted(obj.items()):
        where = f"$.hints.schedule.{kind}"
        rule = as_dict(raw, where, {"scale", "offset", "ref", "claims", "kind_offsets"})
        scale, offset = (_integer(rule[key], f"{where}.{key}") for key in ("scale", "offset"))
        ref = rule["ref"]
        need(ref in REFS[kind], f"{where}.ref", "a {kind} position can anchor on {refs}, not {ref!r}", kind=kind,
             refs=REFS[kind], ref=ref)
        entries: list[tuple[int, str, int]] = []
        for k, claim in enumerate(as_list(rule["claims"], f"{where}.claims", len(coords), size=False)):
            cw = f"{where}.claims[{k}]"
            need(type(claim) is list and len(claim) == 3, cw, "expected [coordinate, ref, power]")
            need(claim[0] in coords, cw, "unknown coordinate {c!r}", c=claim[0])
            c = coords.index(claim[0])
            need(c not in structural, cw, f"{claim[0]} is structural: it keeps its encoded value, no claim may move it")
            need(c not in (e[0] for e in entries), cw, f"{claim[0]} is claimed twice")
            need(claim[1] in REFS[kind], cw, "a {kind} claim is about {refs}, not {ref!r}", kind=kind, refs=REFS[kind],
                 ref=claim[1])
            need(type(claim[2]) is int and claim[2] in POWERS, cw,
                 "power must be 1 or 2 (the kernel's claim forms V(g) and V(g)^2), got {power!r}", power=claim[2])
            entries.append((c, claim[1], claim[2]))
        deltas: dict[tuple[str, int], int] = {}
        for k, item in enumerate(as_list(rule["kind_offsets"], f"{where}.kind_offsets", 5 * len(coords), size=False)):
            kw = f"{where}.kind_offsets[{k}]"
            need(type(item) is list and len(item) == 3, kw, "expected [gate kind, coordinate, delta]")
            need(item[0] in ("input", "const", "add", "mul", "sign"), kw, "unknown gate kind {op!r}", op=item[0])
            need(item[1] in coords, kw, "unknown coordinate {c!r}", c=item[1])
            key = (item[0], coords.index(item[1]))
            need(key not in deltas, kw, "given twice")
            deltas[key] = _integer(item[2], f"{kw}[2]")
        parsed[kind] = (scale, offset, field(ref), [(c, field(r), power) for c, r, power in entries], deltas)
    depth, ops = depths(circuit), [gate.op for gate in circuit.gates]
    patterns: list[dict[int, tuple[int, int, int]]] = []
    shared: dict[Any, dict[int, tuple[int, int, int]]] = {None: {}}  # one pattern per rule, anchor depth and kind
    for role in encoding.roles:  # a Role is the tuple (kind, gate, source, slot)
        rule = parsed.get(role[0])
        anchor = rule and role[rule[2]]
        key = rule and (role[0], depth[anchor], ops[anchor] if rule[4] else None)
        pattern = shared.get(key)
        if pattern is None:
            scale, offset, _, entries, deltas = rule
            base, op = scale * depth[anchor] + offset, ops[anchor]
            pattern = shared[key] = {c: (r, power, base + deltas.get((op, c), 0)) for c, r, power in entries}
        patterns.append(pattern)
    return Claims(patterns, encoding.roles)


def _integer(value: Any, path: str) -> int:
    """A schedule integer: |value| ≤ MAX_SCHEDULE_INT is a size limit (*not checked* past it)."""
    within(abs(as_int(value, path)) <= MAX_SCHEDULE_INT, path, f"{value} (|x| at most {MAX_SCHEDULE_INT})")
    return value


def base_failures(claims: Claims, circuit: Circuit, encoding: Encoding) -> Iterator[str]:
    """S5: every claim settled at a layer ≤ 0 holds in enc(C, x) for every x."""
    slots = {(p, c): i for p, c, i in encoding.input_slots}
    constant = constant_values(circuit)
    for p in early(claims):
        for c, (g, power, settle) in claims[p].items():
            if settle > 0:
                continue
            gate = circuit.gates[g]
            if gate.op == "input":
                ok = power == 1 and slots.get((p, c)) == gate.index
            else:
                value = constant[g]
                ok = value is not None and (p, c) not in slots and encoding.rows[p][c] == value ** power
            if not ok:
                yield (f"position {p} ({encoding.coordinates[c]}) claims gate {g}^{power} from layer {settle} <= 0, "
                       f"which enc(C, x) does not hold")


def early(claims: Claims) -> Iterator[int]:
    """The positions with a claim settled at a layer ≤ 0 (their patterns found once)."""
    found = {k for k, x in dict(zip(map(id, claims.patterns), claims.patterns)).items() if any(s <= 0 for *_, s in x.values())}
    return (p for p, k in enumerate(map(id, claims.patterns)) if k in found)


def readout_failures(claims: Claims, circuit: Circuit, encoding: Encoding, n_layers: int) -> Iterator[str]:
    """S10: output k is read where a claim gives exactly V(output k), settled by the last layer."""
    for k, (o, (p, c)) in enumerate(zip(circuit.outputs, encoding.readout)):
        entry = claims[p].get(c)
        if entry is None or entry[0] != o or entry[1] != 1:
            yield f"output {k} is read at position {p} ({encoding.coordinates[c]}), where no claim gives V(gate {o})"
        elif entry[2] > n_layers:
            yield f"output {k} is right only from layer {entry[2]}, but the transformer has {counted(n_layers, 'layer')}"
