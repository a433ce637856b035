"""enc(C, x): the sequence of vectors that lays out a circuit and its input.

An :class:`Encoding` holds the structural part (concrete rationals, the same
for every input x), the input slots (position, coordinate, input index) where
x_i is placed, and the read-out (position, coordinate) of every circuit
output.  Nothing else in the sequence depends on x, so the encoding cannot
smuggle in the answer: the checker relies on that.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from fractions import Fraction
from collections import deque
from itertools import chain, repeat
from typing import Any, Iterable, Iterator, Sequence

from ..circuits.rationals import format_rational
from ..limits import MAX_DIGITS
from ..errors import InputError
from ..wording import plural

FORMAT = "verified-aat/encoding"
_INT = frozenset([int])
VERSION = 1


@dataclass(frozen=True, slots=True)
class Role:
    """What a position stands for: ``("gate", g)`` or ``("edge", src, tgt, arg_slot)``."""

    kind: str
    gate: int
    source: int | None = None
    slot: int | None = None


def instances(cls: type, n: int, **columns: Iterable[Any]) -> list[Any]:
    """``n`` objects of the slotted dataclass ``cls``, field by field from ``columns`` (one iterable per field,
    every field given): what ``[cls(**row) for row in …]`` gives, with the loops in C, for 10⁶ roles or claims.
    Only for classes whose ``__init__`` just stores its fields (no ``__post_init__``, no defaults computed)."""
    assert set(columns) == set(cls.__slots__) and not hasattr(cls, "__post_init__"), cls
    made = list(map(object.__new__, repeat(cls, n)))
    for name, values in columns.items():
        deque(map(getattr(cls, name).__set__, made, values), maxlen=0)  # the slot's own setter: frozen or not
    return made


@dataclass(frozen=True, repr=False)
class Encoding:
    construction: str
    coordinates: tuple[str, ...]
    rows: tuple[tuple[Fraction | int, ...], ...]  # exact rationals; ints where integral
    input_slots: tuple[tuple[int, int, int], ...]  # (position, coordinate, input index)
    readout: tuple[tuple[int, int], ...]           # (position, coordinate) per circuit output
    roles: tuple[Role, ...]
    n_inputs: int
    #: per position, the (settle layer, coordinate) pairs of its schedule (optional; lets ``run`` do a
    #: settled run, exact_engine's module docstring); not part of what a certificate hashes
    settle: tuple[tuple[tuple[int, int], ...], ...] | None = field(default=None, compare=False)

    @property
    def length(self) -> int:
        return len(self.rows)

    def __repr__(self) -> str:
        from ..display import encoding_repr
        return encoding_repr(self)

    def instantiate(self, x: Sequence[Any]) -> list[list[Any]]:
        """The sequence enc(C, x) for concrete (or symbolic) input values ``x``."""
        if len(x) != self.n_inputs:
            raise InputError(f"the encoded circuit takes {plural(self.n_inputs, 'input')}, got {len(x)}")
        seq: list[list[Any]]
        if _INT.issuperset(map(type, chain.from_iterable(self.rows))):  # all ints, the usual case
            seq = list(map(list, self.rows))
        else:
            seq = [list(row) if _INT.issuperset(map(type, row)) else [_exact(v) for v in row] for row in self.rows]
        for position, coordinate, index in self.input_slots:
            seq[position][coordinate] = x[index]
        return seq

    def read(self, sequence: Sequence[Sequence[Any]]) -> tuple[Any, ...]:
        """The circuit outputs as read from a transformer's output sequence."""
        return tuple(sequence[p][c] for p, c in self.readout)

    # -- JSON ---------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {**self._head(), "rows": [_numerals(row, p) for p, row in enumerate(self.rows)],
                "input_slots": [list(s) for s in self.input_slots], "readout": [list(r) for r in self.readout],
                "roles": [[r.kind, r.gate, r.source, r.slot] for r in self.roles], **self._tail()}

    def _head(self) -> dict[str, Any]:
        return {"format": FORMAT, "version": VERSION, "construction": self.construction,
                "coordinates": list(self.coordinates), "n_inputs": self.n_inputs}

    def _tail(self) -> dict[str, Any]:
        return {} if self.settle is None else {"settle": _settle_json(self.settle)}

    def with_settle(self, settle: Sequence[tuple[tuple[int, int], ...]]) -> "Encoding":
        """This encoding with the schedule's settle layers of every position (see ``settle``); a layer below 0 (a
        ``kind_offsets`` entry of −1 at offset 0) is written 0: the entry is settled in the encoding either way."""
        if len(settle) != self.length:
            raise ValueError(f"settle layers for {plural(len(settle), 'position')}, the encoding has {self.length}")
        distinct = {id(pattern): pattern for pattern in settle}  # patterns are shared objects: keep them shared
        fixed = {key: tuple((max(s, 0), c) for s, c in pattern) for key, pattern in distinct.items()
                 if any(s < 0 for s, _ in pattern)}
        return replace(self, settle=tuple(fixed.get(id(pattern), pattern) for pattern in settle))

    @staticmethod
    def from_json(data: Any, file: str | None = None) -> "Encoding":
        """An encoding from its JSON document; anything wrong is one :class:`InputError` ``$.path: what``."""
        from .encoding_json import read_fields

        f = read_fields(data, file, FORMAT, VERSION)
        kinds, gates, sources, slots = f.roles
        roles = tuple(instances(Role, len(kinds), kind=kinds, gate=gates, source=sources, slot=slots))
        return Encoding(f.construction, f.coordinates, f.rows, f.input_slots, f.readout, roles, f.n_inputs, f.settle)

    def dumps(self) -> str:
        """:meth:`to_json` as indented JSON with one line per row, input slot, read-out and role (:meth:`chunks`)."""
        return "".join(self.chunks())

    def chunks(self) -> Iterator[str]:
        """:meth:`dumps` in pieces of at most BLOCK lines, each line written straight from the encoding
        (``json.dumps(indent=)`` runs the pure-Python encoder on every value and holds every row twice: 104 s and
        4.3 GB for 10⁶ gates; the whole text at once, 185 MB, and its bytes made compile's peak 1.5 GB)."""
        encode = json.JSONEncoder().encode
        kinds: dict[str, str] = {}

        def null(v: int | None) -> str:
            return "null" if v is None else str(v)

        big = {"rows": ('  ["' + '", "'.join(_numerals(row, p)) + '"]' if row else "  []" for p, row in enumerate(self.rows)),
               "input_slots": ("  [" + ", ".join(map(str, slot)) + "]" for slot in self.input_slots),
               "readout": ("  [" + ", ".join(map(str, at)) + "]" for at in self.readout),
               "roles": (f"  [{kinds.get(r.kind) or kinds.setdefault(r.kind, encode(r.kind))}, {r.gate}, "
                         f"{null(r.source)}, {null(r.slot)}]" for r in self.roles)}
        fields = [*((k, encode(v)) for k, v in self._head().items()), *((k, _listed(v)) for k, v in big.items()),
                  *((k, encode(v)) for k, v in self._tail().items())]
        yield "{\n"
        for n, (key, value) in enumerate(fields):
            yield (",\n" if n else "") + f" {encode(key)}: "
            yield from [value] if isinstance(value, str) else value
        yield "\n}"


BLOCK = 4096  # lines of one piece of Encoding.chunks


def _listed(lines: Iterable[str]) -> Iterator[str]:
    """A JSON list, one item a line, in pieces of BLOCK lines."""
    block: list[str] = []
    opened = False
    for line in chain(lines, [None]):
        if line is not None:
            block.append(line)
        if block and (line is None or len(block) == BLOCK):
            yield (",\n" if opened else "[\n") + ",\n".join(block)
            block, opened = [], True
    yield "\n ]" if opened else "[]"


def _numerals(row: Sequence[Fraction | int], position: int) -> list[str]:
    """The row's values as numerals: ``str`` (fast, in C) unless one is past Python's 4,300 digits; InputError for one
    past the digits an encoding file may hold (MAX_DIGITS, as ``from_json`` reads it: ``run`` refused such a file that
    ``compile`` wrote, e.g. edge-only's sq = c² of a 6,000-digit constant; red team, round 12)."""
    try:
        return list(map(str, row))
    except ValueError:
        texts = list(map(format_rational, row))
    for c, text in enumerate(texts):
        if (digits := len(text) - text.startswith("-") - ("/" in text)) > MAX_DIGITS:
            raise InputError(f"position {position}, coordinate {c}: the encoding would hold a number of {digits:,} "
                             f"digits, past the {MAX_DIGITS:,} an encoding file may hold (the digits-per-number limit)")
    return texts


def _settle_json(settle: tuple[tuple[tuple[int, int], ...], ...]) -> dict[str, Any]:
    """Distinct patterns once, then one pattern number per position."""
    index: dict[tuple[tuple[int, int], ...], int] = {}
    of_position = [index.setdefault(pattern, len(index)) for pattern in settle]
    return {"patterns": [[list(e) for e in pattern] for pattern in index], "of_position": of_position}


def _exact(v: Fraction) -> int | Fraction:
    return v.numerator if v.denominator == 1 else v
