"""The intentions of a construction document: its schedule rules and score hints (see :mod:`.document`)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ..circuits.ir import Circuit
from ..circuits.text_format import parse_circuit_text
from ..errors import InputError
from ..transformer.jsonfile import parse_rational
from .base import RoleRule, ScoreHint

KINDS = ("add", "mul", "sign", "input", "const")
ROLES = ("gate", "edge", "sink")
_RULE = {"scale", "offset", "ref", "claims", "kind_offsets"}
_HINT = {"row_key", "col_key", "col_penalty", "facts"}


def schedule(r: Any, coordinates: tuple[str, ...], groups: tuple[Any, ...],
             structural: tuple[str, ...] = ()) -> tuple[tuple[str, RoleRule], ...]:
    """One :class:`RoleRule` per role that has positions, each entry checked: a claim is about a value
    coordinate (never a structural one, which holds its row), each coordinate claimed at most once."""
    data = r.obj(r.data["schedule"], ("schedule",), set(ROLES), "\"schedule\"", set(ROLES))
    rules = []
    for role, rule in data.items():
        path: tuple[str | int, ...] = ("schedule", role)
        if role not in [g.role for g in groups]:
            raise r.error(f"\"schedule\": role {role!r} has no positions", path)
        rule = r.obj(rule, path, _RULE, f"schedule {role!r}", {"kind_offsets"})
        refs = ("gate",) if role == "gate" else ("source",)
        scale = r.integer(rule["scale"], path + ("scale",), f"schedule {role!r}: \"scale\"")
        offset = r.integer(rule["offset"], path + ("offset",), f"schedule {role!r}: \"offset\"")
        if scale < 0 or offset < 0:
            raise r.error(f"schedule {role!r}: \"scale\" and \"offset\" must be ≥ 0", path)
        if rule["ref"] not in refs:
            raise r.error(f"schedule {role!r}: \"ref\" must be {refs[0]!r}", path + ("ref",))
        claims = []
        for n, claim in enumerate(r.lst(rule["claims"], path + ("claims",), "\"claims\"")):
            where = path + ("claims", n)
            bad = [] if not isinstance(claim, list) or len(claim) != 3 else \
                [i for i, ok in enumerate((claim[0] in coordinates, claim[1] in refs,
                                           type(claim[2]) is int and claim[2] in (1, 2))) if not ok]
            if not isinstance(claim, list) or len(claim) != 3 or bad:
                where = where + tuple(bad[:1])
                raise r.error(f"schedule {role!r}: a claim is [coordinate, {refs[0]!r}, 1 or 2] with a known "
                              f"coordinate, got {claim!r}"[:300], where)
            if claim[0] in structural or claim[0] in [c for c, _, _ in claims]:
                raise r.error(f"schedule {role!r}: coordinate {claim[0]!r} is "
                              + ("structural: it holds its row, a claim cannot give it a value" if claim[0] in structural
                                 else "claimed twice"), where)
            claims.append((claim[0], claim[1], claim[2]))
        offsets = []
        for n, item in enumerate(r.lst(rule.get("kind_offsets", []), path + ("kind_offsets",), "\"kind_offsets\"")):
            where = path + ("kind_offsets", n)
            if (not isinstance(item, list) or len(item) != 3 or item[0] not in KINDS or item[1] not in coordinates
                    or type(item[2]) is not int or abs(item[2]) > 10**6):
                raise r.error(f"schedule {role!r}: a kind offset is [kind, coordinate, integer delta], "
                              f"got {item!r}"[:300], where)
            offsets.append((item[0], item[1], item[2]))
        rules.append((role, RoleRule(scale, offset, rule["ref"], tuple(claims), tuple(offsets))))
    return tuple(rules)


def hints(r: Any, coordinates: tuple[str, ...], heads: set[str]) -> tuple[tuple[str, ScoreHint], ...]:
    """One :class:`ScoreHint` per head that exists; key circuits over ``v.<coord>`` with one output."""
    data = r.data.get("hints", {})
    if not isinstance(data, dict):
        raise r.error("\"hints\" must be an object keyed by head name", ("hints",))
    names = [f"v.{c}" for c in coordinates]
    out = []
    for head, hint in data.items():
        path: tuple[str | int, ...] = ("hints", head)
        if head not in heads:
            raise r.error(f"hint for unknown head {head!r} (heads: {', '.join(sorted(heads))})", path)
        hint = r.obj(hint, path, _HINT, f"hint {head!r}", {"facts"})
        circuits = [_hint_circuit(r, hint[key], path + (key,), names, f"hint {head!r}, {key}")
                    for key in ("row_key", "col_key", "col_penalty")]
        facts = []
        for n, fact in enumerate(r.lst(hint.get("facts", []), path + ("facts",), "\"facts\"")):
            where = path + ("facts", n)
            if not isinstance(fact, list) or len(fact) != 2 or fact[0] not in coordinates:
                raise r.error(f"hint {head!r}: a fact is [coordinate, rational], got {fact!r}"[:300], where)
            facts.append((fact[0], Fraction(parse_rational(fact[1], f"hint {head!r}, fact", r.file,
                                                           r.loc.line(where)))))
        out.append((head, ScoreHint(*circuits, tuple(facts))))
    return tuple(out)


def _hint_circuit(r: Any, lines: Any, path: tuple[str | int, ...], names: list[str], what: str) -> Circuit:
    if not isinstance(lines, list) or not all(isinstance(line, str) for line in lines):
        raise r.error(f"{what}: expected a list of circuit text lines", path)
    try:
        circuit = parse_circuit_text("\n".join(lines), None, implicit_inputs=names, name="hint")
    except ValueError as exc:
        inner = exc.line if isinstance(exc, InputError) else None
        message = exc.message if isinstance(exc, InputError) else str(exc)
        line = r.loc.line(path + (inner - 1,)) if inner else r.loc.line(path)
        raise InputError(f"{what}: {message}", r.file, line) from None
    if len(circuit.outputs) != 1:
        raise r.error(f"{what}: a key circuit has exactly one output, this one has {len(circuit.outputs)}", path)
    return circuit
