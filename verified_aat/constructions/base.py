"""What every construction provides, as plain immutable data.

A construction compiles a circuit class into transformers ``T_K`` that depend
only on the depth bound ``K`` (never on the circuit) and lays circuits out
with :class:`~verified_aat.constructions.encoding.Encoding`.  For
certification it also states its *intentions* — which coordinates are
structural, when each position is meant to carry what (:class:`Schedule`),
and a key decomposition of each score (:class:`ScoreHint`).  Intentions are
never trusted: the symbolic engine and the checker prove them.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import count, groupby, repeat
from operator import attrgetter, itemgetter
from typing import Any, Sequence

from ..circuits.ir import Circuit
from ..transformer.model import Transformer
from .encoding import Encoding, Role, instances


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
    (ref is ``gate`` or, for entries that name the source, ``source``)."""

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


@dataclass(frozen=True)
class RoleRule:
    """The schedule of every position of one role kind ("gate" or "edge").

    The position settles at layer ``scale · depth(ref) + offset`` where ``ref``
    is the position's gate (``"gate"``) or, for edges, the source gate
    (``"source"``); from then on coordinate ``coord`` holds V(ref)^power for
    each entry of ``claims``.  Rules are data so that certificates can carry
    them and the checker can re-derive every claim.
    """

    scale: int
    offset: int
    ref: str
    claims: tuple[tuple[str, str, int], ...]  # (coordinate, ref, power)
    kind_offsets: tuple[tuple[str, str, int], ...] = ()  # (kind of the ref gate, coordinate, delta)


@dataclass(frozen=True)
class Schedule:
    """The intended invariant: one claim per position (``None``: never claimed)."""

    claims: tuple[PositionClaim | None, ...]
    layers_needed: int

    def settle_layers(self) -> list[tuple[tuple[int, int], ...]]:
        """Per position, its claims' (settle layer, coordinate) pairs: what a settled run forgets before then."""
        return [() if claim is None else claim.pattern.settle_pattern for claim in self.claims]


@dataclass(frozen=True)
class ScoreHint:
    """A claimed key decomposition of a score function.

    The claim: for all real vectors x, y satisfying ``facts``,
    ``score(x, y) + (row_key(x) − col_key(y))² + col_penalty(y)`` does not
    depend on y.  Then argmax_j score(x_i, x_j) = argmin_j
    (row_key_i − col_key_j)² + col_penalty_j, computable by a key join.
    Each key circuit has ``d`` inputs named ``v.<coord>`` and one output.
    """

    row_key: Circuit
    col_key: Circuit
    col_penalty: Circuit
    facts: tuple[tuple[str, Fraction], ...] = ()


@dataclass(frozen=True)
class Description:
    """The prose of a construction's specification (``describe.py``, the report's layout table).

    ``layout``: (coordinate, at a gate position, at an edge position); ``codes``: (what, its ``op``
    code); ``argmax``: (head, its intended argmax set); ``positions``/``readout``: ``None`` for the
    default texts.  Informational only: nothing here is trusted or checked.
    """

    layout: tuple[tuple[str, str, str], ...] = ()
    positions: str | None = None
    codes: tuple[tuple[str, str], ...] = ()
    argmax: tuple[tuple[str, str], ...] = ()
    readout: str | None = None


@dataclass(frozen=True)
class CompiledConstruction:
    """Everything ``compile`` produces for one circuit."""

    construction: str
    transformer: Transformer
    encoding: Encoding
    depth_bound: int
    schedule: Schedule | None = field(default=None, repr=False, compare=False)  # the intended invariant (its
    # settle layers are also in ``encoding.settle``)


class Construction(abc.ABC):
    """A named circuit-to-transformer construction."""

    name: str
    summary: str
    paper: str  # what the paper claims for this construction
    structural: tuple[str, ...]  # coordinates that never change and carry the layout
    bounded_fan_in: bool = False  # FNC⁰: --binarize also splits n-ary sums, not only products

    @abc.abstractmethod
    def check_class(self, circuit: Circuit) -> None:
        """Raise InputError naming the first gate outside the construction's class."""

    @abc.abstractmethod
    def layers(self, depth_bound: int) -> int:
        """How many layers T_K has."""

    def least_k_with(self, layers: int) -> int:
        """The least K whose T_K has at least ``layers`` layers."""
        k = 1
        while self.layers(k) < layers:
            k += 1
        return k

    @abc.abstractmethod
    def transformer(self, depth_bound: int) -> Transformer:
        """T_K: one transformer for every circuit of depth ≤ K in the class."""

    @abc.abstractmethod
    def encode(self, circuit: Circuit) -> Encoding:
        """enc(C, ·): structure plus input slots and read-out."""

    @abc.abstractmethod
    def schedule_rules(self) -> dict[str, RoleRule]:
        """The intended invariant, as one rule per role kind."""

    def schedule(self, circuit: Circuit, encoding: Encoding) -> Schedule:
        """The intended invariant of every position, from :meth:`schedule_rules`.

        Positions with the same role kind and the same referenced gates (e.g. all edges out
        of one gate) get one shared :class:`PositionClaim`: O(gates) objects, not O(positions).
        """
        from ..circuits.measures import gate_depths

        made = _Claims(circuit, gate_depths(circuit), self.schedule_rules(), encoding.coordinates)
        roles = encoding.roles
        kinds = list(map(_ROLE_KIND, roles))
        claims: list[PositionClaim | None] = []
        for kind, run in groupby(zip(count(), kinds), key=itemgetter(1)):
            lo = next(run)[0]
            hi = lo + 1 + len(list(run))
            if not made.bulk(kind, roles[lo:hi], kinds.count(kind) == hi - lo, claims):
                made.shared_run(kind, roles[lo:hi], claims)
        readout = [claims[p].term(c)[1] for p, c in encoding.readout  # type: ignore[union-attr,index]
                   if claims[p] is not None and claims[p].term(c) is not None]  # type: ignore[union-attr]
        return Schedule(tuple(claims), max(readout, default=0))

    @abc.abstractmethod
    def score_hints(self) -> dict[str, ScoreHint]:
        """Key decompositions of the score functions, by head name."""

    def description(self) -> Description:
        """The specification's prose; the Python classes state it as ``layout_doc()``, ``CODES_DOC``,
        ``ARGMAX_DOC``, ``POSITIONS_DOC``, ``READOUT_DOC`` (their documents as ``"description"``)."""
        layout = getattr(self, "layout_doc", dict)()
        return Description(tuple((c, g, e) for c, (g, e) in layout.items()), getattr(self, "POSITIONS_DOC", None),
                           tuple(getattr(self, "CODES_DOC", ())), tuple(getattr(self, "ARGMAX_DOC", {}).items()),
                           getattr(self, "READOUT_DOC", None))

    def compile(self, circuit: Circuit, depth_bound: int | None = None) -> CompiledConstruction:
        from ..circuits.measures import depth as circuit_depth
        from ..errors import InputError

        self.check_class(circuit)
        depth = circuit_depth(circuit)
        k = depth if depth_bound is None else depth_bound
        if k < depth:
            raise InputError(f"depth bound {k} is below the circuit's depth {depth}", "--depth-bound (-K)")
        encoding = self.encode(circuit)
        schedule = self.schedule(circuit, encoding)
        return CompiledConstruction(self.name, self.transformer(max(k, 1)),
                                    encoding.with_settle(schedule.settle_layers()), max(k, 1), schedule)


class _Claims:
    """The claims of :meth:`Construction.schedule`: one per position, shared by role kind and referenced
    gates, over patterns shared by role kind, ref-gate kind and settle layer."""

    def __init__(self, circuit: Circuit, depths: list[int], rules: dict[str, RoleRule], coords: tuple[str, ...]):
        self.circuit, self.depths, self.rules = circuit, depths, rules
        self.plans = {kind: (sorted((coords.index(c), r, power) for c, r, power in rule.claims),
                             {(k, coords.index(c)): d for k, c, d in rule.kind_offsets})
                      for kind, rule in rules.items()}
        self.uses_gate = {kind: any(r == "gate" for _, r, _ in self.plans[kind][0]) or rule.ref == "gate"
                          for kind, rule in rules.items()}
        self.uses_source = {kind: any(r == "source" for _, r, _ in self.plans[kind][0]) or rule.ref == "source"
                            for kind, rule in rules.items()}
        self.shared: dict[tuple, PositionClaim] = {}
        self.patterns: dict[tuple, ClaimPattern] = {}

    def pattern(self, role_kind: str, anchor: int) -> ClaimPattern:
        """The pattern of a ``role_kind`` position whose rule's reference is gate ``anchor``."""
        return self.pattern_at(role_kind, self.circuit.gates[anchor].kind, self.depths[anchor])

    def pattern_at(self, role_kind: str, gate_kind: Any, depth: int) -> ClaimPattern:
        """The pattern of a ``role_kind`` position whose reference gate has this kind and depth."""
        rule = self.rules[role_kind]
        base = rule.scale * depth + rule.offset
        kind = gate_kind.value
        pattern = self.patterns.get((role_kind, kind, base))
        if pattern is None:
            entries_plan, deltas = self.plans[role_kind]
            entries = tuple((c, r == "source", power, base + deltas.get((kind, c), 0)) for c, r, power in entries_plan)
            pattern = self.patterns[(role_kind, kind, base)] = ClaimPattern(
                entries, min((e[3] for e in entries), default=base))
        return pattern

    def one(self, role: Role) -> PositionClaim | None:
        rule = self.rules.get(role.kind)
        if rule is None:
            return None
        gate = role.gate if self.uses_gate[role.kind] else None
        source = role.source if self.uses_source[role.kind] else None
        key = (role.kind, gate, source)
        claim = self.shared.get(key)
        if claim is None:
            anchor = role.gate if rule.ref == "gate" else role.source
            claim = self.shared[key] = PositionClaim(self.pattern(role.kind, anchor), role.gate,  # type: ignore[arg-type]
                                                     role.source)
        return claim

    def shared_run(self, kind: str, roles: Sequence[Role], claims: list[PositionClaim | None]) -> None:
        """The claims of a run of roles of one kind, as :meth:`one` gives them one by one: one claim per
        distinct (kind, gate, source) key, made from the key's first role (with the loops in C)."""
        if kind not in self.rules:
            claims.extend(repeat(None, len(roles)))
            return
        gates, sources = list(map(_ROLE_GATE, roles)), list(map(_ROLE_SOURCE, roles))
        keys = list(zip(repeat(kind), gates if self.uses_gate[kind] else repeat(None),
                        sources if self.uses_source[kind] else repeat(None)))
        first = dict(zip(reversed(keys), reversed(roles)))  # reversed: each key keeps its first role
        shared = self.shared
        new = [key for key in first if key not in shared]
        made = [first[key] for key in new]
        anchors = list(map(_ROLE_GATE if self.rules[kind].ref == "gate" else _ROLE_SOURCE, made))
        at = list(zip(map(_GATE_KIND, map(self.circuit.gates.__getitem__, anchors)), map(self.depths.__getitem__, anchors)))
        of_key = {key: self.pattern_at(kind, *key) for key in dict.fromkeys(at)}  # (gate kind, depth) → pattern
        shared.update(zip(new, instances(PositionClaim, len(made), pattern=map(of_key.__getitem__, at),
                                         gate=map(_ROLE_GATE, made), source=map(_ROLE_SOURCE, made))))
        claims.extend(map(shared.__getitem__, keys))

    def bulk(self, kind: str, roles: Sequence[Role], only_run: bool, claims: list[PositionClaim | None]) -> bool:
        """The claims of a long run of roles of one kind (the only run of that kind) that each name their own
        gate and no source, e.g. a gate per position: appended at once (no two share a claim); False: not such
        a run."""
        rule = self.rules.get(kind)
        if rule is None:
            claims.extend(repeat(None, len(roles)))
            return True
        if (len(roles) < BULK_CLAIMS or not only_run or rule.ref != "gate" or self.uses_source[kind]
                or not self.uses_gate[kind]):
            return False
        gates = list(map(_ROLE_GATE, roles))
        if len(set(gates)) != len(gates) or not _NONE.issuperset(map(_ROLE_SOURCE, roles)):
            return False
        keys = list(zip(map(_GATE_KIND, map(self.circuit.gates.__getitem__, gates)), map(self.depths.__getitem__, gates)))
        of_key = {key: self.pattern_at(kind, *key) for key in dict.fromkeys(keys)}  # (gate kind, depth) → pattern
        claims.extend(instances(PositionClaim, len(gates), pattern=list(map(of_key.__getitem__, keys)), gate=gates,
                                source=repeat(None)))
        return True


BULK_CLAIMS = 1024  # a run of at least this many positions gets its claims in bulk
_ROLE_KIND, _ROLE_GATE, _ROLE_SOURCE, _GATE_KIND = (attrgetter(f) for f in ("kind", "gate", "source", "kind"))
_NONE = frozenset([None])
