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

from ..circuits.ir import Circuit
from ..transformer.model import Transformer
from .claims import Schedule, build_schedule
from .encoding import Encoding


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
        """The intended invariant of every position, from :meth:`schedule_rules` (``claims.build_schedule``:
        arrays over positions, one pattern per role kind, ref-gate kind and depth)."""
        from ..circuits.measures import gate_depths

        return build_schedule(circuit, gate_depths(circuit), self.schedule_rules(), encoding)

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
