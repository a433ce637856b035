"""Reading an encoding file (``compile``'s ``encoding.json``, ``run --encoding``): its structure is checked field by
field, and anything wrong is one :class:`InputError` ``FILE: $.path: what is wrong`` (docs/cli.md), never the
text of a Python exception.

Large encodings (10⁶ positions) stay fast: the usual file (rows of integer numerals, roles of the usual types)
is checked and converted column by column in C; value-by-value checks run only to find and name what is wrong.
"""

from __future__ import annotations

import json
from fractions import Fraction
from itertools import chain
from typing import Any, NamedTuple

from ..circuits.rationals import LongInt, NumeralError, read_exact
from ..errors import InputError
from ..wording import plural

_STR, _INT, _LIST = frozenset([str]), frozenset([int]), frozenset([list])


class Fields(NamedTuple):
    """An encoding file's fields, checked (the names of :class:`.encoding.Encoding`'s)."""

    construction: str
    coordinates: tuple[str, ...]
    rows: tuple[tuple[Fraction | int, ...], ...]
    input_slots: tuple[tuple[int, int, int], ...]
    readout: tuple[tuple[int, int], ...]
    roles: tuple[tuple[Any, ...], ...]  # four columns: kinds, gates, sources, slots
    n_inputs: int
    settle: tuple[tuple[tuple[int, int], ...], ...] | None


class _Reader:
    def __init__(self, file: str | None):
        self.file = file

    def error(self, path: str, message: str) -> InputError:
        return InputError(f"{path}: {message}", self.file)

    def field(self, data: dict[str, Any], key: str, path: str = "$") -> Any:
        if key not in data:
            raise self.error(path, f"no {key!r} field")
        return data[key]

    def list(self, value: Any, path: str, what: str) -> list[Any]:
        if type(value) is not list:
            raise self.error(path, f"expected a list ({what}), got {_shown(value)}")
        return value

    def natural(self, value: Any, path: str, bound: tuple[int, str] | None = None) -> int:
        """A JSON integer >= 0 (and below ``bound``'s limit): not a bool, a float or a string."""
        if type(value) is not int or value < 0:
            raise self.error(path, f"expected an integer >= 0, got {_shown(value)}")
        if bound is not None and value >= bound[0]:
            raise self.error(path, bound[1].format(v=value, n=bound[0]))
        return value

    def string(self, value: Any, path: str) -> str:
        if type(value) is not str:
            raise self.error(path, f"expected a string, got {_shown(value)}")
        return value

    def naturals(self, value: Any, path: str, what: str, bounds: tuple[tuple[int, str] | None, ...]) -> tuple[int, ...]:
        """``what``: a list of len(bounds) integers >= 0, each within its bound."""
        items = self.list(value, path, what)
        if len(items) != len(bounds):
            raise self.error(path, f"expected {what}, got {plural(len(items), 'item')}")
        return tuple(self.natural(v, f"{path}[{j}]", b) for j, (v, b) in enumerate(zip(items, bounds)))

    def row(self, value: Any, path: str, width: int) -> tuple[Fraction | int, ...]:
        items = self.list(value, path, f"one value per coordinate, {width}")
        if len(items) != width:
            raise self.error(path, f"expected one value per coordinate ({width}), got {len(items)}")
        return tuple(self.rational(v, f"{path}[{j}]") for j, v in enumerate(items))

    def rational(self, value: Any, path: str) -> Fraction | int:
        if isinstance(value, int) and not isinstance(value, bool):
            return int(value)  # a LongInt (circuits/rationals.py) as a plain int
        if type(value) is not str:
            raise self.error(path, f"expected a rational as a string ('-3', '1/2'), got {_shown(value)}")
        try:  # the one reader of numerals (circuits/rationals.py: the digit limit, then the exact value)
            return read_exact(value)
        except NumeralError as exc:
            raise self.error(path, str(exc)) from None


def _shown(value: Any) -> str:
    """``value`` for a message, short and on one line."""
    if isinstance(value, (list, dict)):
        return "a list" if isinstance(value, list) else "an object"
    text = repr(value) if isinstance(value, LongInt) else json.dumps(value)  # json.dumps would raise on one
    return text if len(text) <= 40 or isinstance(value, LongInt) else text[:37] + "..."


def read_fields(data: Any, file: str | None, format_: str, version: int) -> Fields:
    """The fields of an encoding file's JSON ``data`` (``file`` names it in messages), checked."""
    r = _Reader(file)
    if type(data) is not dict:
        raise r.error("$", f"expected a JSON object (an encoding), got {_shown(data)}")
    if data.get("format") != format_:
        raise InputError(f"not an encoding file (format should be {format_!r})", file)
    if data.get("version") != version or type(data.get("version")) is not int:
        raise InputError(f"unsupported encoding version {data.get('version')!r}", file)
    construction = r.string(r.field(data, "construction"), "$.construction")
    coordinates = tuple(r.string(c, f"$.coordinates[{j}]")
                        for j, c in enumerate(r.list(r.field(data, "coordinates"), "$.coordinates", "names")))
    n_inputs = r.natural(r.field(data, "n_inputs"), "$.n_inputs")
    width = len(coordinates)
    rows = _rows(r, r.list(r.field(data, "rows"), "$.rows", "one row per position"), width)
    n = len(rows)
    position, coordinate = (n, f"position {{v}} is outside the sequence ({plural(n, 'position')})"), \
        (width, f"coordinate {{v}} is outside the sequence ({plural(width, 'coordinate')})")
    slots = tuple(r.naturals(s, f"$.input_slots[{i}]", "[position, coordinate, input index]",
                             (position, coordinate, (n_inputs, f"reads input {{v}}; the circuit has {plural(n_inputs, 'input')}")))
                  for i, s in enumerate(r.list(r.field(data, "input_slots"), "$.input_slots", "input slots")))
    readout = tuple(r.naturals(s, f"$.readout[{i}]", "[position, coordinate]", (position, coordinate))
                    for i, s in enumerate(r.list(r.field(data, "readout"), "$.readout", "one per output")))
    roles = _roles(r, r.list(r.field(data, "roles"), "$.roles", "one role per position"))
    settle = _settle(r, data["settle"], n, width) if "settle" in data else None
    return Fields(construction, coordinates, rows, tuple((p, c, i) for p, c, i in slots),
                  tuple((p, c) for p, c in readout), roles, n_inputs, settle)


def _numerals(text: str) -> bool:
    """Whether ``int`` reads every comma-separated item of ``text`` as base-10 ASCII digits (it also takes
    spaces, underscores, a plus sign and other scripts' digits, which an encoding file never holds)."""
    return text.isascii() and not any(c in text for c in " _+\t\n\r\f\v")


def _rows(r: _Reader, rows: list[Any], width: int) -> tuple[tuple[Fraction | int, ...], ...]:
    """Every row; the usual file (rows of integer numerals) checked and converted in C, all rows at once."""
    if _LIST.issuperset(map(type, rows)) and set(map(len, rows)) <= {width}:
        flat = list(chain.from_iterable(rows))
        if not flat:
            return ((),) * len(rows)
        if _STR.issuperset(map(type, flat)) and _numerals(",".join(flat)):
            try:
                return tuple(zip(*[iter(list(map(int, flat)))] * width))
            except ValueError:  # some values are p/q or p.d (relu's 1/2): integer rows still in C, one by one
                return tuple(_integers(row) or r.row(row, f"$.rows[{i}]", width) for i, row in enumerate(rows))
    return tuple(r.row(row, f"$.rows[{i}]", width) for i, row in enumerate(rows))


def _integers(row: list[str]) -> tuple[int, ...] | None:
    """A row of integer numerals (checked by :func:`_numerals` for the whole file) in C, else None."""
    try:
        return tuple(map(int, row))
    except ValueError:
        return None


def _roles(r: _Reader, roles: list[Any]) -> tuple[tuple[Any, ...], ...]:
    """The roles as four columns (kind, gate, source, slot); the usual file checked in C, all roles at once."""
    if not roles:
        return (), (), (), ()
    if _LIST.issuperset(map(type, roles)) and set(map(len, roles)) == {4}:
        kinds, gates, sources, slots = zip(*roles)
        given = [v for v in chain(sources, slots) if v is not None]
        if _STR.issuperset(map(type, kinds)) and _INT.issuperset(map(type, chain(gates, given))) \
                and min(chain(gates, given)) >= 0:
            return kinds, gates, sources, slots
    return tuple(zip(*(_role(r, role, f"$.roles[{i}]") for i, role in enumerate(roles))))


def _role(r: _Reader, value: Any, path: str) -> tuple[str, int, int | None, int | None]:
    items = r.list(value, path, "[kind, gate, source or null, slot or null]")
    if len(items) != 4:
        raise r.error(path, f"expected [kind, gate, source or null, slot or null], got {plural(len(items), 'item')}")
    kind, gate, source, slot = items
    return (r.string(kind, f"{path}[0]"), r.natural(gate, f"{path}[1]"),
            None if source is None else r.natural(source, f"{path}[2]"),
            None if slot is None else r.natural(slot, f"{path}[3]"))


def _settle(r: _Reader, data: Any, n: int, width: int) -> tuple[tuple[tuple[int, int], ...], ...]:
    if type(data) is not dict:
        raise r.error("$.settle", f"expected an object with 'patterns' and 'of_position', got {_shown(data)}")
    coordinate = (width, f"coordinate {{v}} is outside the sequence ({plural(width, 'coordinate')})")
    patterns = []
    for k, pattern in enumerate(r.list(r.field(data, "patterns", "$.settle"), "$.settle.patterns", "patterns")):
        pairs = (r.naturals(e, f"$.settle.patterns[{k}][{j}]", "[layer, coordinate]", (None, coordinate))
                 for j, e in enumerate(r.list(pattern, f"$.settle.patterns[{k}]", "[layer, coordinate] pairs")))
        patterns.append(tuple(sorted((layer, c) for layer, c in pairs)))
    of_position = r.list(r.field(data, "of_position", "$.settle"), "$.settle.of_position", "pattern numbers")
    if len(of_position) != n:
        raise r.error("$.settle.of_position", f"needs one pattern number per position ({n}), got {len(of_position)}")
    if _INT.issuperset(map(type, of_position)) and (not of_position or 0 <= min(of_position) <= max(of_position)
                                                    < len(patterns)):
        return tuple(map(patterns.__getitem__, of_position))
    chosen = (len(patterns), "no pattern {v}: there are {n}")
    return tuple(patterns[r.natural(k, f"$.settle.of_position[{i}]", chosen)] for i, k in enumerate(of_position))
