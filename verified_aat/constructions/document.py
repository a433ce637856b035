"""Construction documents (``verified-aat/construction``, version 1): read and validate.

A document states a construction as data (docs/construction-format.md): its class, the
layout of the sequence (position groups whose rows are formulas over the position's
parameters), the read-out, the transformer ``T_K = prefix + K × block + suffix`` in the layer
form of the transformer spec, the schedule rules and the score hints.  Every problem is one
:class:`InputError` naming the file and the line of the offending key.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..transformer.jsonfile import Locator, parse_rational, read_json_file
from ..transformer.model import Layer, Pooling
from ..transformer.spec import FORMAT as SPEC_FORMAT, VERSION as SPEC_VERSION, transformer_from_json
from .base import Description, RoleRule, ScoreHint
from .document_description import description as _description
from .document_intentions import hints as _hints, schedule as _schedule
from .document_numbers import check_numbers
from .formula import MAX_ROW_DEGREE, Formula, FormulaError, check_folding, parse_formula, row_degree

FORMAT = "verified-aat/construction"
VERSION = 1
KINDS = ("add", "mul", "sign", "input", "const")
ROLES = ("gate", "edge", "sink")
PARAMETERS = {"gate": ("id", "k", "c", "index"), "edge": ("src", "dst", "slot", "k", "c"),
              "sink": ("src", "dst", "slot", "k", "c")}
ORDERS = {"gate": "by id", "edge": "by target id, then slot", "sink": "by first occurrence among the outputs"}
RESERVED = {"min", "max"} | {p for ps in PARAMETERS.values() for p in ps}
BUILTIN_DIR = Path(__file__).resolve().parent.parent / "data" / "constructions"
BUILTIN_NAMES = ("gate-edge", "gate-edge-dot", "unique-hard", "unique-hard-left", "unique-hard-right",
                 "edge-only", "edge-k")  # the built-in constructions (:mod:`.registry`), each a document here

_TOP = {"format", "version", "name", "summary", "paper", "coordinates", "structural", "class", "constants",
        "positions", "readout", "transformer", "schedule", "hints", "attends", "description"}
_OPTIONAL_TOP = {"summary", "paper", "constants", "hints", "class", "attends", "description"}
ATTENDS = ("in-edges", "slot-0", "slot-1")  # what a head attends to among a reader's in-edges (every-K proofs)
_CLASS = {"message", "fan_in", "bounded_fan_in"}
PLACEHOLDERS = ("{construction}", "{gate}", "{kind}", "{a_kind}", "{fan_in}")  # {a_kind}: "an add", "a mul"
DEFAULT_MESSAGE = "{construction}: gate '{gate}' is {a_kind} of fan-in {fan_in}, outside the construction's class"
_GROUP = {"role", "order", "row", "input", "target"}
_TRANSFORMER = {"functions", "prefix", "block", "suffix"}


@dataclass(frozen=True)
class ClassRule:
    """What ``check_class`` enforces: per-kind fan-in limits (``"*"``: every kind)."""

    message: str  # with the placeholders {construction}, {gate}, {kind}, {fan_in}
    limits: tuple[tuple[str, int | None, int | None], ...]  # (kind or "*", min, max)
    bounded_fan_in: bool


@dataclass(frozen=True)
class PositionGroup:
    """One group of positions: its role, a full row of formulas per source kind, the input slot."""

    role: str
    rows: tuple[tuple[str, tuple[Formula, ...]], ...]  # (gate kind, one formula per coordinate)
    input: int | None  # coordinate index receiving x_i, or None
    target: int  # sinks: the declared dst (0 otherwise)

    def row(self, kind: str) -> tuple[Formula, ...]:
        return dict(self.rows)[kind]


@dataclass(frozen=True)
class Document:
    """A validated construction document."""

    file: str
    data: Any
    name: str
    summary: str
    paper: str
    coordinates: tuple[str, ...]
    structural: tuple[str, ...]
    rule: ClassRule
    constants: tuple[tuple[str, Fraction], ...]
    groups: tuple[PositionGroup, ...]
    readout: tuple[str, int]  # (role, coordinate index)
    prefix: tuple[Layer, ...]
    block: tuple[Layer, ...]
    suffix: tuple[Layer, ...]
    schedule: tuple[tuple[str, RoleRule], ...]
    hints: tuple[tuple[str, ScoreHint], ...]
    description: Description = Description()

    def layers(self, depth_bound: int) -> int:
        return len(self.prefix) + depth_bound * len(self.block) + len(self.suffix)

    def layers_text(self) -> str:
        """The layer count as a function of K, e.g. ``2K`` or ``K + 1``."""
        per, fixed = len(self.block), len(self.prefix) + len(self.suffix)
        k = "K" if per == 1 else f"{per}K"
        return k if fixed == 0 else f"{k} + {fixed}"


class _Reader:
    def __init__(self, data: Any, file: str, loc: Locator):
        self.data, self.file, self.loc = data, file, loc

    def error(self, message: str, path: tuple[str | int, ...] = ()) -> InputError:
        return InputError(message, self.file, self.loc.line(path))

    def obj(self, value: Any, path: tuple[str | int, ...], keys: set[str], what: str,
            optional: set[str] = set()) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.error(f"{what} must be a JSON object", path)
        for key in value:
            if key not in keys:
                raise self.error(f"{what}: unknown key {key!r} (expected {', '.join(sorted(keys))})", path + (key,))
        for key in sorted(keys - optional):
            if key not in value:
                raise self.error(f"{what}: missing key {key!r}", path)
        return value

    def string(self, value: Any, path: tuple[str | int, ...], what: str) -> str:
        if not isinstance(value, str):
            raise self.error(f"{what} must be a string", path)
        return value

    def integer(self, value: Any, path: tuple[str | int, ...], what: str) -> int:
        if type(value) is not int or abs(value) > 10**6:
            raise self.error(f"{what} must be an integer (|n| ≤ 10⁶)", path)
        return value

    def lst(self, value: Any, path: tuple[str | int, ...], what: str) -> list[Any]:
        if not isinstance(value, list):
            raise self.error(f"{what} must be a list", path)
        return value


def load_document(path: str | os.PathLike[str]) -> Document:
    """Read and validate a construction document file (``-``: standard input)."""
    from ..files import shown
    data, locator = read_json_file(file := os.fspath(path), "construction document")
    return parse_document(data, shown(file), locator)


def parse_document(data: Any, file: str, locator: Locator | None = None) -> Document:
    """Validate a decoded document; every problem is an InputError at ``file:line``."""
    r = _Reader(data, file, locator or Locator(None))
    if not isinstance(data, dict):
        raise r.error(f"a construction document must be a JSON object, got {type(data).__name__}")
    if data.get("format") != FORMAT:
        raise r.error(f"not a construction document (\"format\" should be {FORMAT!r})", ("format",))
    if type(data.get("version")) is not int or data["version"] != VERSION:
        raise r.error(f"unsupported construction version {data.get('version')!r} (this tool reads {VERSION})",
                      ("version",))
    r.obj(data, (), _TOP, "the document", _OPTIONAL_TOP)
    check_numbers(data, file, r.loc)  # what the kernel cannot read is this document's error, not a later unknown
    name = r.string(data["name"], ("name",), "\"name\"")
    if not name or len(name) > 80 or not name.isascii() or not all(ch.isalnum() or ch in "-_." for ch in name):
        raise r.error(f"bad construction name {name!r} (ASCII letters, digits, - _ .; at most 80)", ("name",))
    _builtin_name(r, name)
    summary, paper = (r.string(data.get(key, ""), (key,), f"\"{key}\"") for key in ("summary", "paper"))
    coordinates = _coordinates(r)
    structural = _structural(r, coordinates)
    rule = _class(r, name)
    constants = _constants(r)
    groups = _groups(r, coordinates, constants, structural)
    readout = _readout(r, coordinates, groups)
    prefix, block, suffix = _transformer(r, name, coordinates)
    heads = {h.name for layer in prefix + block + suffix for h in layer.heads}
    schedule = _schedule(r, coordinates, groups, structural)
    hints = _hints(r, coordinates, heads)
    _attends(r, heads)
    return Document(file, data, name, summary, paper, coordinates, structural, rule, tuple(constants.items()),
                    groups, readout, prefix, block, suffix, schedule, hints, _description(r, coordinates, heads))


def _attends(r: _Reader, heads: set[str]) -> None:
    """``attends``: head → its intended set among a reader's in-edges (read by the every-K proof)."""
    data = r.data.get("attends", {})
    if not isinstance(data, dict):
        raise r.error("\"attends\" must be an object: head name → " + ", ".join(ATTENDS), ("attends",))
    for head, chosen in data.items():
        if head not in heads:
            raise r.error(f"\"attends\": unknown head {head!r} (heads: {', '.join(sorted(heads))})", ("attends", head))
        if chosen not in ATTENDS:
            raise r.error(f"\"attends\": head {head!r} attends to one of {', '.join(ATTENDS)}, not {chosen!r}"[:300],
                          ("attends", head))


def builtin_document_path(name: str) -> Path:
    """Where the shipped document of built-in construction ``name`` is."""
    return BUILTIN_DIR / f"{name}.json"


def _builtin_name(r: _Reader, name: str) -> None:
    """A document may use a built-in's name only if it is exactly that built-in's document."""
    if name not in BUILTIN_NAMES:
        return
    shipped = builtin_document_path(name)
    if shipped.is_file() and json.loads(shipped.read_text(encoding="utf-8")) == r.data:
        return
    raise r.error(f"name {name!r} is a built-in construction; choose another name", ("name",))


def _names(r: _Reader, key: str, what: str) -> tuple[str, ...]:
    items = r.lst(r.data[key], (key,), f"\"{key}\"")
    for k, c in enumerate(items):
        if not isinstance(c, str) or not c.isidentifier() or not c.isascii():
            raise r.error(f"bad {what} name {c!r} (letters, digits, _)", (key, k))
        if c in items[:k]:
            raise r.error(f"{what} {c!r} is listed twice", (key, k))
    return tuple(items)


def _coordinates(r: _Reader) -> tuple[str, ...]:
    coords = _names(r, "coordinates", "coordinate")
    if not coords:
        raise r.error("\"coordinates\" must not be empty", ("coordinates",))
    return coords


def _structural(r: _Reader, coordinates: tuple[str, ...]) -> tuple[str, ...]:
    structural = _names(r, "structural", "structural coordinate")
    for k, c in enumerate(structural):
        if c not in coordinates:
            raise r.error(f"unknown coordinate {c!r} in \"structural\" (coordinates: {', '.join(coordinates)})",
                          ("structural", k))
    return structural


def _class(r: _Reader, name: str) -> ClassRule:
    path: tuple[str | int, ...] = ("class",)
    data = r.obj(r.data.get("class", {"fan_in": {}}), path, _CLASS, "\"class\"", {"bounded_fan_in", "message"})
    message = r.string(data.get("message", DEFAULT_MESSAGE), path + ("message",), "\"class.message\"")
    rest = message
    for placeholder in PLACEHOLDERS:
        rest = rest.replace(placeholder, "")
    if "{" in rest or "}" in rest or "\n" in message:
        raise r.error("\"class.message\": one line; the only placeholders are " + ", ".join(PLACEHOLDERS),
                      path + ("message",))
    fan_in = r.obj(data["fan_in"], path + ("fan_in",), set(KINDS) | {"*"}, "\"class.fan_in\"", set(KINDS) | {"*"})
    limits = []
    for kind, spec in fan_in.items():
        where = path + ("fan_in", kind)
        spec = r.obj(spec, where, {"min", "max"}, f"\"class.fan_in.{kind}\"", {"min", "max"})
        low = None if "min" not in spec else r.integer(spec["min"], where + ("min",), "\"min\"")
        high = None if "max" not in spec else r.integer(spec["max"], where + ("max",), "\"max\"")
        for bound, value in (("min", low), ("max", high)):
            if value is not None and value < 0:
                raise r.error(f"\"class.fan_in.{kind}.{bound}\": a fan-in is ≥ 0, got {value}", where + (bound,))
        if low is not None and high is not None and low > high:
            raise r.error(f"\"class.fan_in.{kind}\": min {low} is above max {high}, so the class has no {kind} gate "
                          "(leave the kind out, or write its range)", where)
        limits.append((kind, low, high))
    bounded = data.get("bounded_fan_in", False)
    if not isinstance(bounded, bool):
        raise r.error("\"class.bounded_fan_in\" must be true or false", path + ("bounded_fan_in",))
    return ClassRule(message, tuple(limits), bounded)


def _constants(r: _Reader) -> dict[str, Fraction]:
    data = r.data.get("constants", {})
    if not isinstance(data, dict):
        raise r.error("\"constants\" must be an object of named rationals", ("constants",))
    out: dict[str, Fraction] = {}
    for key, value in data.items():
        if not key.isidentifier() or not key.isascii() or key in RESERVED:
            raise r.error(f"bad constant name {key!r} (an identifier, not a parameter or min/max)", ("constants", key))
        out[key] = Fraction(parse_rational(value, f"constant {key!r}", r.file, r.loc.line(("constants", key))))
    return out


def _groups(r: _Reader, coordinates: tuple[str, ...], constants: dict[str, Fraction],
            structural: tuple[str, ...]) -> tuple[PositionGroup, ...]:
    items = r.lst(r.data["positions"], ("positions",), "\"positions\"")
    if not items:
        raise r.error("\"positions\" must list at least one group", ("positions",))
    groups: list[PositionGroup] = []
    for n, item in enumerate(items):
        path: tuple[str | int, ...] = ("positions", n)
        r.obj(item, path, _GROUP, f"position group {n + 1}", {"order", "input", "target"})
        role = item["role"]
        if role not in ROLES:
            raise r.error(f"position group {n + 1}: unknown role {role!r} (expected {', '.join(ROLES)})",
                          path + ("role",))
        if any(g.role == role for g in groups):
            raise r.error(f"position group {n + 1}: role {role!r} is listed twice", path + ("role",))
        if "order" in item and item["order"] != ORDERS[role]:
            raise r.error(f"{role} positions: \"order\" is always {ORDERS[role]!r}", path + ("order",))
        target = 0
        if role == "sink":
            if "target" not in item:
                raise r.error("sink positions: missing key 'target' (the dst of every sink)", path)
            value = parse_rational(item["target"], "sink target", r.file, r.loc.line(path + ("target",)))
            if not isinstance(value, int):
                raise r.error("sink positions: \"target\" must be an integer", path + ("target",))
            target = value
        elif "target" in item:
            raise r.error(f"{role} positions: \"target\" is for sinks only", path + ("target",))
        slot = item.get("input")
        if slot is not None and slot not in coordinates:
            raise r.error(f"{role} positions: unknown input coordinate {slot!r}", path + ("input",))
        if slot in structural:
            raise r.error(f"{role} positions: input coordinate {slot!r} is structural; x_i cannot go there",
                          path + ("input",))
        allowed = set(PARAMETERS[role]) | set(constants)
        groups.append(PositionGroup(role, _rows(r, item["row"], path + ("row",), role, coordinates, allowed, constants),
                                    None if slot is None else coordinates.index(slot), target))
    return tuple(groups)


def _rows(r: _Reader, data: Any, path: tuple[str | int, ...], role: str, coordinates: tuple[str, ...],
          allowed: set[str], constants: dict[str, Fraction]) -> tuple[tuple[str, tuple[Formula, ...]], ...]:
    """One full row per kind: the kind's own formulas, falling back on ``"*"`` per coordinate."""
    data = r.obj(data, path, set(KINDS) | {"*"}, f"{role} positions: \"row\"", set(KINDS) | {"*"})
    parsed: dict[str, dict[str, Formula]] = {}
    for kind, entries in data.items():
        where = path + (kind,)
        entries = r.obj(entries, where, set(coordinates), f"{role} positions: row {kind!r}", set(coordinates))
        parsed[kind] = {}
        for coord, text in entries.items():
            try:
                parsed[kind][coord] = parse_formula(text, allowed)
                if row_degree(parsed[kind][coord], set(PARAMETERS[role])) > MAX_ROW_DEGREE:
                    raise FormulaError(f"degree above {MAX_ROW_DEGREE} in the parameters (the kernel reads rows of "
                                       f"degree ≤ {MAX_ROW_DEGREE})")
                check_folding(parsed[kind][coord], constants)
            except FormulaError as exc:
                raise r.error(f"{role} positions, row {kind!r}, {coord}: {exc}", where + (coord,)) from None
    rows = []
    for kind in KINDS:
        row = []
        for coord in coordinates:
            formula = parsed.get(kind, {}).get(coord) or parsed.get("*", {}).get(coord)
            if formula is None:
                raise r.error(f"{role} positions: no formula for coordinate {coord!r} of a {kind} "
                              f"{'gate' if role == 'gate' else 'source'} (give it under {kind!r} or '*')", path)
            row.append(formula)
        rows.append((kind, tuple(row)))
    return tuple(rows)


def _readout(r: _Reader, coordinates: tuple[str, ...], groups: tuple[PositionGroup, ...]) -> tuple[str, int]:
    path: tuple[str | int, ...] = ("readout",)
    data = r.obj(r.data["readout"], path, {"role", "coordinate"}, "\"readout\"")
    role = data["role"]
    if role not in ("gate", "sink") or role not in [g.role for g in groups]:
        raise r.error(f"\"readout\": role must be 'gate' or 'sink' and have positions, got {role!r}", path + ("role",))
    if data["coordinate"] not in coordinates:
        raise r.error(f"\"readout\": unknown coordinate {data['coordinate']!r}", path + ("coordinate",))
    return role, coordinates.index(data["coordinate"])


class _MappedLocator(Locator):
    """Lines of the pseudo transformer spec's paths, found in the document's ``transformer``."""

    def __init__(self, inner: Locator, spans: list[tuple[str, int]]):
        super().__init__(None)
        self.inner, self.spans = inner, spans

    def line(self, path):  # type: ignore[no-untyped-def]
        path = tuple(path)
        if path[:1] == ("layers",) and len(path) >= 2 and isinstance(path[1], int) and path[1] < len(self.spans):
            group, index = self.spans[path[1]]
            return self.inner.line(("transformer", group, index) + path[2:])
        if path[:1] == ("functions",):
            return self.inner.line(("transformer",) + path)
        return self.inner.line(("transformer",) + path[:0])


def _transformer(r: _Reader, name: str, coordinates: tuple[str, ...]) -> tuple[tuple[Layer, ...], ...]:
    path: tuple[str | int, ...] = ("transformer",)
    data = r.obj(r.data["transformer"], path, _TRANSFORMER, "\"transformer\"", {"prefix", "suffix", "functions"})
    parts = {g: r.lst(data.get(g, []), path + (g,), f"\"transformer.{g}\"") for g in ("prefix", "block", "suffix")}
    if not parts["block"]:
        raise r.error("\"transformer.block\" must have at least one layer (T_K repeats it K times)", path + ("block",))
    spans = [(g, i) for g in ("prefix", "block", "suffix") for i in range(len(parts[g]))]
    spec = {"format": SPEC_FORMAT, "version": SPEC_VERSION, "name": name, "coordinates": list(coordinates),
            "functions": data.get("functions", {}), "layers": parts["prefix"] + parts["block"] + parts["suffix"]}
    try:
        t = transformer_from_json(spec, r.file, locator=_MappedLocator(r.loc, spans))
    except InputError as exc:  # "layer 5" of the flattened list becomes "block layer 2"
        import re
        message = re.sub(r"\blayer (\d+)\b", lambda m: _layer_label(spans, int(m.group(1))), exc.message)
        raise InputError(f"transformer: {message}", exc.file, exc.line) from None
    for (group, index, h, name) in [(*at, h, x.name) for at, layer in zip(spans, t.layers)
                                    for h, x in enumerate(layer.heads) if x.pooling is Pooling.SOFTMAX][:1]:
        raise r.error(f"transformer: {group} layer {index + 1}, head {name!r}: softmax pooling is not exact over Q, "
                      "so no construction with it can be proved", path + (group, index, "heads", h, "pooling"))
    return tuple(tuple(layer for (g, _), layer in zip(spans, t.layers) if g == group) for group in parts)  # type: ignore[return-value]


def _layer_label(spans: list[tuple[str, int]], number: int) -> str:
    if 1 <= number <= len(spans):
        group, index = spans[number - 1]
        return f"{group} layer {index + 1}"
    return f"layer {number}"
