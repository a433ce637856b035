"""The schedule's claims: what each position is meant to hold from which layer on.

A position's claim is a :class:`ClaimPattern`, shared by every position of one role kind whose rule's
reference gate has one kind and one depth, and the gates the pattern names (the position's gate and
source).  :class:`Schedule` keeps them as integer arrays over positions (pattern number, gate, source), so a
10⁶-gate circuit builds no object per position (issue 22); ``Schedule.claims`` makes a
:class:`PositionClaim` when one is asked for.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from operator import attrgetter
from typing import Any, Iterator, Sequence, overload

import numpy as np

from ..circuits.ir import Circuit, Kind
from .encoding import Encoding, instances


@dataclass(frozen=True, slots=True)
class ClaimTerm:
    """A claimed coordinate value: ``V(gate)`` or ``V(gate)·V(gate)``.

    ``power`` is 1 or 2.  The value of a const gate is its constant.
    """

    gate: int
    power: int = 1


@dataclass(frozen=True, slots=True)
class ClaimPattern:
    """What a claim says up to the gates it names: ``entries`` are (coordinate, names the
    source?, power, settle layer).  Shared by all claims of one role kind, ref-gate kind and
    depth, so that the per-position claims stay tiny at 10⁶ gates."""

    entries: tuple[tuple[int, bool, int, int], ...]
    settle: int  # the earliest settle layer (the rule's base when there are no entries)
    by_coordinate: dict[int, tuple[bool, int, int]] = field(init=False, repr=False, compare=False, hash=False)
    settle_pattern: tuple[tuple[int, int], ...] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_coordinate", {c: (src, power, s) for c, src, power, s in self.entries})
        object.__setattr__(self, "settle_pattern", tuple(sorted((s, c) for c, _, _, s in self.entries)))


@dataclass(frozen=True, slots=True)
class PositionClaim:
    """Coordinate c holds V(ref)^power from its settle layer on, for each entry of ``pattern``
    (ref is ``gate`` or, for entries that name the source, ``source``; a gate the rule never names is -1,
    a source None)."""

    pattern: ClaimPattern
    gate: int
    source: int | None = None

    @property
    def settle(self) -> int:
        """The earliest settle layer."""
        return self.pattern.settle

    @property
    def values(self) -> tuple[tuple[int, ClaimTerm], ...]:
        """(coordinate, term) for each claimed coordinate."""
        return tuple((c, self._term(src, power)) for c, src, power, _ in self.pattern.entries)

    def _term(self, names_source: bool, power: int) -> ClaimTerm:
        return ClaimTerm(self.source if names_source else self.gate, power)  # type: ignore[arg-type]

    def term(self, c: int) -> tuple[ClaimTerm, int] | None:
        """(term, settle layer) claimed for coordinate c, if any."""
        entry = self.pattern.by_coordinate.get(c)
        return None if entry is None else (self._term(entry[0], entry[1]), entry[2])

    def by_coordinate(self) -> dict[int, tuple[ClaimTerm, int]]:
        """coordinate → (term, settle layer), built on each call (claims are many; keep them small)."""
        return {c: (self._term(src, power), s) for c, src, power, s in self.pattern.entries}


class Claims(Sequence[PositionClaim | None]):
    """The claims of a schedule, one per position (None: never claimed), made from its arrays when asked."""

    def __init__(self, schedule: Schedule):
        self._s = schedule
        self._all: list[PositionClaim | None] | None = None

    def __len__(self) -> int:
        return len(self._s.number)

    @overload
    def __getitem__(self, p: int) -> PositionClaim | None: ...
    @overload
    def __getitem__(self, p: slice) -> list[PositionClaim | None]: ...

    def __getitem__(self, p: int | slice) -> Any:
        if self._all is not None or isinstance(p, slice):
            return self.as_list()[p]
        s = self._s
        number = int(s.number[p])
        if number < 0:
            return None
        source = int(s.source[p])
        return PositionClaim(s.patterns[number], int(s.gate[p]), None if source < 0 else source)

    def __iter__(self) -> Iterator[PositionClaim | None]:
        return iter(self.as_list())

    def __eq__(self, other: object) -> bool:
        return list(self) == list(other) if isinstance(other, (Claims, list, tuple)) else NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def as_list(self) -> list[PositionClaim | None]:
        """Every claim as an object (made once; for the position-by-position paths)."""
        if self._all is None:
            s = self._s
            at = np.flatnonzero(s.number >= 0)
            made = instances(PositionClaim, len(at), pattern=map(s.patterns.__getitem__, s.number[at].tolist()),
                             gate=s.gate[at].tolist(), source=[None if x < 0 else x for x in s.source[at].tolist()])
            self._all = [None] * len(s.number)
            for p, claim in zip(at.tolist(), made):
                self._all[p] = claim
        return self._all


@dataclass(frozen=True, eq=False)
class Schedule:
    """The intended invariant: per position, the number of its claim's pattern in ``patterns`` (-1: never
    claimed) and the gate and source the claim names (-1: none), as int64 arrays."""

    patterns: tuple[ClaimPattern, ...]
    number: np.ndarray
    gate: np.ndarray
    source: np.ndarray
    layers_needed: int

    @cached_property
    def claims(self) -> Claims:
        """One claim per position (``None``: never claimed)."""
        return Claims(self)

    def settle_layers(self) -> list[tuple[tuple[int, int], ...]]:
        """Per position, its claims' (settle layer, coordinate) pairs: what a settled run forgets before then."""
        table = [p.settle_pattern for p in self.patterns] + [()]
        return list(map(table.__getitem__, self.number.tolist()))


_KINDS = tuple(Kind)
_KIND_NUMBER = {kind: number for number, kind in enumerate(_KINDS)}
_ROLE_KIND, _ROLE_GATE, _ROLE_SOURCE, _GATE_KIND = (attrgetter(f) for f in ("kind", "gate", "source", "kind"))


class PatternTable:
    """The claim patterns of a schedule's rules, one per (role kind, ref-gate kind, settle base)."""

    def __init__(self, circuit: Circuit, depths: Sequence[int], rules: dict[str, Any], coords: tuple[str, ...]):
        self.circuit, self.depths, self.rules = circuit, depths, rules
        self.plans = {kind: (sorted((coords.index(c), r, power) for c, r, power in rule.claims),
                             {(k, coords.index(c)): d for k, c, d in rule.kind_offsets})
                      for kind, rule in rules.items()}
        self.uses_gate = {kind: any(r == "gate" for _, r, _ in self.plans[kind][0]) or rule.ref == "gate"
                          for kind, rule in rules.items()}
        self.uses_source = {kind: any(r == "source" for _, r, _ in self.plans[kind][0]) or rule.ref == "source"
                            for kind, rule in rules.items()}
        self.patterns: list[ClaimPattern] = []
        self.numbers: dict[tuple, int] = {}

    def number_at(self, role_kind: str, gate_kind: Kind, depth: int) -> int:
        """The number of the pattern of a ``role_kind`` position whose reference gate has this kind and depth."""
        rule = self.rules[role_kind]
        base = rule.scale * depth + rule.offset
        kind = gate_kind.value
        number = self.numbers.get((role_kind, kind, base))
        if number is None:
            entries_plan, deltas = self.plans[role_kind]
            entries = tuple((c, r == "source", power, base + deltas.get((kind, c), 0)) for c, r, power in entries_plan)
            number = self.numbers[(role_kind, kind, base)] = len(self.patterns)
            self.patterns.append(ClaimPattern(entries, min((e[3] for e in entries), default=base)))
        return number

    def one(self, role: Any) -> PositionClaim | None:
        """The claim of one position, by definition (what :func:`build_schedule` computes for all at once)."""
        rule = self.rules.get(role.kind)
        if rule is None:
            return None
        anchor = role.gate if rule.ref == "gate" else role.source
        number = self.number_at(role.kind, self.circuit.gates[anchor].kind, self.depths[anchor])
        return PositionClaim(self.patterns[number], role.gate if self.uses_gate[role.kind] else -1,
                             role.source if self.uses_source[role.kind] else None)


def build_schedule(circuit: Circuit, depths: Sequence[int], rules: dict[str, Any], encoding: Encoding) -> Schedule:
    """The claims of every position by its role's rule, as arrays: each distinct (role kind, ref-gate kind,
    depth) is looked up once, whatever the number of positions."""
    table = PatternTable(circuit, depths, rules, encoding.coordinates)
    roles, n = encoding.roles, len(encoding.roles)
    kinds = list(map(_ROLE_KIND, roles))
    names = list(dict.fromkeys(kinds))
    kind_of = np.fromiter(map({k: i for i, k in enumerate(names)}.__getitem__, kinds), np.int64, n)
    gate_of = np.fromiter(map(_ROLE_GATE, roles), np.int64, n)
    source_of = np.nan_to_num(np.array(list(map(_ROLE_SOURCE, roles)), dtype=float), nan=-1).astype(np.int64)
    gate_kind = np.fromiter(map(_KIND_NUMBER.__getitem__, map(_GATE_KIND, circuit.gates)), np.int64, len(circuit.gates))
    depth = np.asarray(depths, dtype=np.int64)
    span = int(depth.max(initial=0)) + 1  # a key: gate kind * span + depth
    number, gate, source = np.full(n, -1, np.int64), np.full(n, -1, np.int64), np.full(n, -1, np.int64)
    for i, kind in enumerate(names):
        rule = rules.get(kind)
        if rule is None:
            continue
        at = np.flatnonzero(kind_of == i)
        anchor = gate_of[at] if rule.ref == "gate" else source_of[at]
        if anchor.size and anchor.min() < 0:
            raise ValueError(f"schedule rule {kind!r} refers to the source of a position that has none")
        keys = gate_kind[anchor] * span + depth[anchor]  # few distinct values: looked up by a table, not sorted
        found = np.zeros(len(_KINDS) * span, np.int64)
        for k in np.flatnonzero(np.bincount(keys, minlength=len(found))).tolist():
            found[k] = table.number_at(kind, _KINDS[k // span], k % span)
        number[at] = found[keys]
        if table.uses_gate[kind]:
            gate[at] = gate_of[at]
        if table.uses_source[kind]:
            source[at] = source_of[at]
    readout = [entry[2] for p, c in encoding.readout if number[p] >= 0
               and (entry := table.patterns[number[p]].by_coordinate.get(c)) is not None]  # (source?, power, settle)
    return Schedule(tuple(table.patterns), number, gate, source, max(readout, default=0))
