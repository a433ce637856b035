"""The kernel's reading of a construction document (docs/construction-format.md), the layout of enc(C, x): the
certificate's ``construction_document``, or the shipped one of the built-in it names. Why this reader makes every
encoding legitimate (a row names only the role's local parameters, positions in ORDERS): docs/soundness.md S2.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from . import formula as fm
from .data import Circuit, NotChecked, Number, as_dict, as_int, as_list, as_name, need, read_numeral
from .problems import render
from .rules import sha256_json

FORMAT = "verified-aat/construction"
VERSION = 1
KINDS = ("add", "mul", "sign", "input", "const")
PARAMETERS = {"gate": ("id", "k", "c", "index"), "edge": ("src", "dst", "slot", "k", "c"),
              "sink": ("src", "dst", "slot", "k", "c")}
ORDERS = {"gate": "by id", "edge": "by target id, then slot", "sink": "by first occurrence among the outputs"}
TOP = {"format", "version", "name", "coordinates", "structural", "positions", "readout", "transformer", "schedule"}
OPTIONAL_TOP = {"summary", "paper", "constants", "hints", "class", "attends", "description"}
SHIPPED = Path(__file__).resolve().parent.parent / "data" / "constructions"
MAX_CONSTANTS = 256


@dataclass(frozen=True)
class Group:
    """One position group: its role, a row of formulas per source kind, its input coordinate."""

    role: str
    rows: tuple[tuple[str, tuple[fm.Node, ...]], ...]  # (kind, one formula per coordinate)
    input: int | None
    target: int  # sinks: their dst


@dataclass(frozen=True)
class Construction:
    """A construction document as the kernel reads it."""

    name: str
    digest: str                                      # sha256 of the document's canonical JSON
    coordinates: tuple[str, ...]
    limits: tuple[tuple[str, int | None, int | None], ...]  # (kind or "*", min fan-in, max fan-in)
    groups: tuple[Group, ...]
    readout: tuple[str, int]                         # (role, coordinate index)
    data: Any                                        # the raw document (the schematic reads its schedule)

    @property
    def role_kinds(self) -> tuple[str, ...]:
        return tuple(g.role for g in self.groups)

    def group(self, role: str) -> Group | None:
        return next((g for g in self.groups if g.role == role), None)

    def fan_in_range(self, kind: str) -> tuple[int, int | None]:
        """The fan-ins of ``kind`` the class allows, as (min, max or None: unbounded)."""
        low, high = 0, None
        for limited, lo, hi in self.limits:
            if limited in (kind, "*"):
                low = max(low, lo or 0)
                high = hi if high is None else high if hi is None else min(high, hi)
        return low, high


class OutsideLayout(Exception):
    """The circuit is not in the domain of the construction (e.g. a mul of fan-in 3)."""


def check_class(construction: Construction, circuit: Circuit) -> None:  # S2; P10 for a schematic instance
    ranges = {kind: construction.fan_in_range(kind) for kind in KINDS}
    for g, gate in enumerate(circuit.gates):
        (low, high), n = ranges[gate.op], len(gate.args)
        if n < low or (high is not None and n > high):
            raise OutsideLayout(f"gate {g} is a {gate.op} of fan-in {n}; {construction.name}'s class allows "
                                f"{low}..{'' if high is None else high}")


# -- reading a document ------------------------------------------------------------------

def read_construction(data: Any, path: str) -> Construction:
    """The kernel's strict reading of a construction document (everything else in it is ignored)."""
    doc = as_dict(data, path, TOP, OPTIONAL_TOP)
    need(doc["format"] == FORMAT, f"{path}.format", f"must be {FORMAT!r}")
    need(type(doc["version"]) is int and doc["version"] == VERSION, f"{path}.version",
         f"this kernel reads construction version {VERSION}")
    name = doc["name"]
    need(type(name) is str and 0 < len(name) <= 80 and name.isascii() and all(ch.isalnum() or ch in "-_." for ch in name),
         f"{path}.name", "a construction name: ASCII letters, digits, - _ . (at most 80; no look-alike of a built-in)")
    coordinates = tuple(as_name(c, f"{path}.coordinates[{k}]")
                        for k, c in enumerate(as_list(doc["coordinates"], f"{path}.coordinates", 256)))
    need(bool(coordinates) and len(set(coordinates)) == len(coordinates), f"{path}.coordinates",
         "coordinates must be distinct and at least one")
    raw_constants = doc.get("constants", {})
    need(type(raw_constants) is dict and len(raw_constants) <= MAX_CONSTANTS, f"{path}.constants",
         f"expected an object of at most {MAX_CONSTANTS} named rationals")
    reserved = {"min", "max"} | {p for ps in PARAMETERS.values() for p in ps}
    constants = {}
    for key, value in raw_constants.items():
        need(as_name(key, f"{path}.constants") not in reserved, f"{path}.constants.{key}",
             "a constant may not be named like a parameter or min/max")
        constants[key] = _rational(value, f"{path}.constants.{key}")
    groups = tuple(_group(raw, f"{path}.positions[{n}]", coordinates, constants)
                   for n, raw in enumerate(as_list(doc["positions"], f"{path}.positions", 3, size=False)))
    roles = [g.role for g in groups]
    need(bool(groups) and len(set(roles)) == len(roles), f"{path}.positions", "one group per role, at least one")
    readout = as_dict(doc["readout"], f"{path}.readout", {"role", "coordinate"})
    need(readout["role"] in ("gate", "sink") and readout["role"] in roles, f"{path}.readout.role",
         "the read-out role must be 'gate' or 'sink' and have positions")
    need(readout["coordinate"] in coordinates, f"{path}.readout.coordinate", "not a coordinate")
    return Construction(name, sha256_json(data), coordinates, _limits(doc.get("class"), f"{path}.class"), groups,
                        (readout["role"], coordinates.index(readout["coordinate"])), data)


def _rational(value: Any, path: str) -> Number:
    """A document's rational: a JSON integer, or a string ``p``, ``p/q`` or ``d.ddd`` (any terms: a person wrote it)."""
    q = value if type(value) is int and abs(value) < 10**300 else read_numeral(value) if type(value) is str else None
    need(q is not None, path, "expected a rational 'p', 'p/q' or a decimal, got {value!r}", value=value)
    return q  # type: ignore[return-value]


def _limits(raw: Any, path: str) -> tuple[tuple[str, int | None, int | None], ...]:
    if raw is None:
        return ()
    obj = as_dict(raw, path, {"fan_in"}, {"message", "bounded_fan_in"})
    fan_in = as_dict(obj["fan_in"], f"{path}.fan_in", set(), set(KINDS) | {"*"})
    limits = []
    for kind, spec in fan_in.items():
        spec = as_dict(spec, f"{path}.fan_in.{kind}", set(), {"min", "max"})
        low = as_int(spec["min"], f"{path}.fan_in.{kind}.min", 0, 10**6) if "min" in spec else None
        high = as_int(spec["max"], f"{path}.fan_in.{kind}.max", 0, 10**6) if "max" in spec else None
        limits.append((kind, low, high))
    return tuple(limits)


def _group(raw: Any, path: str, coordinates: tuple[str, ...], constants: dict[str, Number]) -> Group:
    obj = as_dict(raw, path, {"role", "row"}, {"order", "input", "target"})
    role = obj["role"]
    need(type(role) is str and role in PARAMETERS, f"{path}.role", f"the role must be one of {list(PARAMETERS)}")
    need(obj.get("order", ORDERS[role]) == ORDERS[role], f"{path}.order",
         f"{role} positions are always ordered {ORDERS[role]!r}")
    need(("target" in obj) == (role == "sink"), f"{path}.target", "a sink group, and only a sink group, has a target")
    target = 0
    if role == "sink":
        target = _rational(obj["target"], f"{path}.target")  # type: ignore[assignment]
        need(type(target) is int, f"{path}.target", "the sinks' target must be an integer")
    slot = obj.get("input")
    need(slot is None or slot in coordinates, f"{path}.input", "the input slot must be one coordinate (or null)")
    allowed = frozenset(PARAMETERS[role]) | frozenset(constants)
    row = as_dict(obj["row"], f"{path}.row", set(), set(KINDS) | {"*"})
    parsed: dict[str, dict[str, fm.Node]] = {}
    for kind, entries in row.items():
        entries = as_dict(entries, f"{path}.row.{kind}", set(), set(coordinates))
        parsed[kind] = {c: _formula(text, allowed, constants, f"{path}.row.{kind}.{c}") for c, text in entries.items()}
    rows = []
    for kind in KINDS:
        formulas = []
        for c in coordinates:
            node = parsed.get(kind, {}).get(c) or parsed.get("*", {}).get(c)
            need(node is not None, f"{path}.row", f"no formula for coordinate {c!r} of a {kind} source")
            formulas.append(node)
        rows.append((kind, tuple(formulas)))  # type: ignore[arg-type]
    return Group(role, tuple(rows), None if slot is None else coordinates.index(slot), target)


def _formula(text: Any, allowed: frozenset[str], constants: Mapping[str, Number], path: str) -> fm.Node:
    node = fm.parse(text, allowed, path)
    if fm.degree(node, allowed - frozenset(constants)) > fm.MAX_DEGREE:
        raise NotChecked(f"{path}: a row formula of degree above {fm.MAX_DEGREE} is beyond the kernel's limits")
    return fm.fold(node, constants)


def construction_of(name: Any, embedded: Any, path: str = "$.construction_document") -> Construction:
    """The construction a certificate is about: its embedded document, or the shipped one of its name.
    A document named like a built-in must be exactly that built-in's document."""
    need(type(name) is str, "$.construction", "expected a string")
    builtin = shipped_construction(name)
    if embedded is None:
        if builtin is None:
            raise NotChecked(render("construction {name!r} is not a built-in and the certificate embeds no "
                                    "construction document: the kernel cannot state its encoding", {"name": name}))
        return builtin
    need(builtin is None or sha256_json(embedded) == builtin.digest, path,
         "the embedded document is named {name!r}, a built-in, but differs from the shipped one", name=name)
    construction = read_construction(embedded, path)
    need(construction.name == name, f"{path}.name", "the document's name must be the certificate's construction")
    return construction


@functools.cache
def shipped_construction(name: str) -> Construction | None:
    """Built-in ``name`` as the kernel reads its shipped document (``.data``: the document), read once per process;
    None: no such built-in."""
    path = SHIPPED / f"{name}.json"
    if not (0 < len(name) <= 80 and all(ch.isalnum() or ch in "-_" for ch in name)) or not path.is_file():
        return None
    return read_construction(json.loads(path.read_text(encoding="utf-8")), f"shipped:{name}")
