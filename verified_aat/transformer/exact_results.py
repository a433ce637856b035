"""What a run of the exact engine (and of its reference interpreter) returns: outputs, traces and
counts; and the check of a sequence both run on (MATH.md §3)."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain
from typing import Any, Sequence

from ..circuits.evaluate import as_exact, value_bits
from ..errors import InputError, LimitReached
from .exact_state import Vector
from .model import Transformer
from .unknown import is_symbolic
from ..wording import plural

_INT = frozenset((int,))
SOFTMAX_MESSAGE = "softmax pooling is not exact; use the float engine"


@dataclass(frozen=True)
class HeadTrace:
    """One head in one layer: the argmax set of every position."""

    head: str
    argmax: tuple[tuple[int, ...], ...]


@dataclass(frozen=True)
class LayerTrace:
    """The vectors after one layer and the argmax sets of its heads."""

    layer: str
    vectors: tuple[Vector, ...]
    heads: tuple[HeadTrace, ...]


@dataclass(frozen=True)
class RunStats:
    """Counts of one run.

    ``score_evaluations`` counts the (i-group, j-group) pairs scored on the all-pairs path;
    ``argmax_computed``/``argmax_reused`` the argmax sets computed or reused (per head and
    layer); ``argmax_int64`` those computed by the int64 kernels and ``argmax_join`` those
    computed by the key join; ``head_methods`` the (head, ``"join"``/``"all-pairs"``) pairs
    that occurred, in order of first use; ``activation_evaluations`` the activations
    actually evaluated (the reference evaluates one per position and layer) and
    ``activation_applications`` the (position, layer) pairs the engine looked at; ``settled``
    whether the run was a settled one (outputs may hold ``UNKNOWN``, ⊥, where nothing settled).
    """

    positions: int
    layers: int
    score_evaluations: int = 0
    argmax_computed: int = 0
    argmax_reused: int = 0
    activation_evaluations: int = 0
    seconds: float = 0.0
    argmax_int64: int = 0
    argmax_join: int = 0
    head_methods: tuple[tuple[str, str], ...] = ()
    activation_applications: int = 0
    settled: bool = False  # a settled run: coordinates not yet settled were ⊥ (UNKNOWN in outputs)

    def method_of(self, head: str) -> set[str]:
        """The paths that computed ``head``'s argmax sets in this run."""
        return {m for h, m in self.head_methods if h == head}


@dataclass(frozen=True)
class RunResult:
    outputs: tuple[Vector, ...]
    trace: tuple[LayerTrace, ...] | None
    stats: RunStats


def check_sequence(transformer: Transformer, sequence: Sequence[Sequence[Any]]) -> list[Vector]:
    """The sequence as exact vectors of the transformer's dimension, or an InputError."""
    d = transformer.dimension
    given: list[Vector] = list(map(tuple, sequence))
    if set(map(len, given)) <= {d} and _INT.issuperset(map(type, chain.from_iterable(given))):
        return given  # all ints, the usual case: as they are
    rows: list[Vector] = []
    append = rows.append
    for position, row in enumerate(given):
        if len(row) != d:
            raise InputError(f"position {position}: expected a vector of {plural(d, 'value')}, got {len(row)}")
        if all(type(v) is int for v in row):
            append(row)
            continue
        try:
            append(tuple([as_exact(v) for v in row]))
        except TypeError as exc:
            raise InputError(f"position {position}: {exc}") from None
    return rows


def check_bits(rows: Sequence[Vector], changed: Sequence[int], layer: int, max_bits: int) -> None:
    """:class:`LimitReached` if a changed row holds a value of more than ``max_bits`` bits (⊥ has none)."""
    for p in changed:
        for c, v in enumerate(rows[p]):
            if (v.bit_length() if type(v) is int else 0 if is_symbolic(v) else value_bits(v)) > max_bits:
                raise LimitReached(f"layer {layer}, position {p}, coordinate {c}: a value of more than {max_bits:,} "
                                   f"bits (the bits-per-value limit of the exact engine)")
