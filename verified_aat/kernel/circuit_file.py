"""S1's own reader of a circuit file given with ``check --circuit``: the text (``.circ``) and JSON formats.

Each file is reduced to the canonical structure that a certificate's ``circuit`` section holds and hashed
the same way, so "this certificate is about the circuit in FILE" rests on the kernel's reading of FILE, not
the engine's. Names, labels, arithmetization and provenance do not enter the structure. Gate order is the
formats' stable depth-first one (docs/circuit-format.md): definitions in file order, a gate used before its
definition just before its first user, an inline literal one constant gate per value just before its first
use. A file this reader cannot read is *not checked* (the command reports bad input before it gets here).
"""

from __future__ import annotations

import json
import re
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Union

from .data import MAX_GATES, STRUCTURE, Circuit, Malformed, NotChecked, load_structure, need, read_numeral
from .problems import Problem, no_link
from .rules import sha256_json

if TYPE_CHECKING:
    from .context import Context

_DEFINITION = re.compile(r"\s*([^\s=]+)\s*=(.*)\Z", re.S)
_LITERAL = re.compile(r"([+-]?)(\d+(?:/\d+)?|\d+\.\d*|\.\d+)\Z", re.ASCII)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.\[\]\-]*\Z", re.ASCII)
_KEYWORDS = ("circuit", "domain", "arithmetization", "provenance", "input", "output")
_OPS = ("const", "add", "mul", "sign")
Ref = Union[str, Fraction, int]  # a gate's name, or an inline literal's value
Gates = dict[str, tuple[str, list[Ref], Any]]  # name → (op, refs, constant value or input index), in file order


def literal(token: str) -> Ref | None:
    """The exact rational a token writes (``-3``, ``+7/2``, ``0.25``, ``.5``, ``5.``), None if it is no literal
    (a zero denominator, or more than MAX_DIGITS characters, included: then it is an undefined name)."""
    m = _LITERAL.match(token)
    value = read_numeral(("0" + m[2] if m[2][0] == "." else m[2]).removesuffix(".")) if m else None
    return None if value is None else -value if m[1] == "-" else value  # type: ignore[index]


def _define(gates: Gates, at: str, name: str, op: str, refs: list[Ref], value: Any, any_name: bool = False) -> None:
    """``any_name``: JSON names are any non-empty strings; ``value``: a constant's, or an input's index."""
    need(any_name or (_NAME.match(name) is not None and name not in _KEYWORDS
                      and name.lower() not in ("nan", "inf", "infinity")), at,
         "a gate name the format does not allow")
    need(name not in gates, at, "a name defined twice")
    need(op not in ("mul", "sign") or (len(refs) >= 2 if op == "mul" else len(refs) == 1), at,
         f"a {op} gate of fan-in {len(refs)}")
    gates[name] = (op, refs, value)


def _text(data: bytes) -> tuple[Gates, list[Ref], str]:
    gates: Gates = {}
    outputs: list[Ref] = []
    domain, inputs = "rationals", 0
    for number, raw in enumerate(data.decode("utf-8").removeprefix("\ufeff").split("\n"), start=1):
        line, at = raw.removesuffix("\r").split("#", 1)[0], f"line {number}"
        match = _DEFINITION.match(line)
        if match:
            op, *args = match[2].split() or ["?"]
            value = literal(args[0]) if op == "const" and len(args) == 1 else None
            need(op in _OPS and (op != "const" or value is not None), at, "a gate whose operation the kernel does not read")
            _define(gates, at, match[1], op, [] if op == "const" else [_ref(a) for a in args], value)
            continue
        keyword, *rest = line.split() or [""]
        if keyword == "input":
            for name in rest:
                _define(gates, at, name, "input", [], inputs)
                inputs += 1
        elif keyword == "output":
            outputs += [_ref(token.partition("=")[2] or token) for token in rest]
        elif keyword == "domain" and rest in (["rationals"], ["boolean"]):
            domain = rest[0]
        else:  # the structure does not read a circuit's name, arithmetization or provenance
            need(keyword in ("", "circuit", "arithmetization", "provenance"), at, "a statement the kernel does not read")
    return gates, outputs, domain


def _ref(token: str) -> Ref:
    """An argument: an inline rational literal, else a gate's name."""
    value = literal(token)
    return token if value is None else value


def _json(data: bytes) -> tuple[Gates, list[Ref], str]:
    doc = json.loads(data)
    need(type(doc) is dict and doc.get("format") == "verified-aat/circuit" and doc.get("version") == 1, "$",
         "not a circuit document of format 'verified-aat/circuit', version 1")
    inputs, listed, outputs = doc.get("inputs"), doc.get("gates"), doc.get("outputs")
    need(type(inputs) is list and all(type(n) is str for n in inputs) and len(set(inputs)) == len(inputs), "$.inputs",
         "not a list of distinct names")
    need(type(listed) is list and type(outputs) is list and all(type(o) is str for o in outputs), "$",
         "'gates' or 'outputs' is not a list of the format's entries")
    gates: Gates = {}
    by_input = {name: i for i, name in enumerate(inputs)}
    for k, gate in enumerate(listed):
        name, op, args, raw = gate.get("name"), gate.get("op"), gate.get("args", []), gate.get("value")
        value = (literal(str(raw)) if type(raw) in (str, int) else None) if op == "const" else by_input.get(name)
        need(type(name) is str and name != "" and op in ("input", *_OPS) and type(args) is list
             and all(type(a) is str for a in args) and (op not in ("input", "const") or (not args and value is not None)),
             f"$.gates[{k}]", "a gate the kernel does not read (an input listed in 'inputs', a rational constant)")
        _define(gates, f"$.gates[{k}]", name, op, list(args), value, any_name=True)
    need(len([g for g in gates.values() if g[0] == "input"]) == len(inputs), "$.inputs", "'inputs' and the input gates differ")
    need(doc.get("domain") in (None, "rationals", "boolean"), "$.domain", "a domain the kernel does not read")
    return gates, list(outputs), doc.get("domain") or "rationals"


def _ordered(defs: Gates, outputs: list[Ref], domain: str) -> dict[str, Any]:
    """The canonical structure, gates in the formats' stable depth-first order (no recursion)."""
    gates: list[list[Any]] = []
    at: dict[Ref, int] = {}  # a name, or a literal's value (its one constant gate)

    def index(ref: Ref) -> int:  # a name already placed, or a literal's one constant gate
        if ref not in at:
            at[ref] = len(gates)
            gates.append(["const", str(ref)])
        return at[ref]

    need(all(type(r) is not str or r in defs for r in [*(r for g in defs.values() for r in g[1]), *outputs]), "$",
         "a reference to an undefined name")
    on_stack: set[str] = set()
    for root in defs:
        stack = [] if root in at else [(root, 0)]
        on_stack.update(name for name, _ in stack)
        while stack:
            name, i = stack[-1]
            op, refs, value = defs[name]
            if i == len(refs):
                stack.pop()
                on_stack.discard(name)
                at[name] = len(gates)
                gates.append([op, value] if op == "input" else ["const", str(value)] if op == "const"
                             else [op, [index(r) for r in refs]])
                continue
            stack[-1] = (name, i + 1)
            ref = refs[i]
            if type(ref) is not str:
                index(ref)
            elif ref not in at:
                need(ref not in on_stack, "$", "a cycle among gates")
                on_stack.add(ref)
                stack.append((ref, 0))
        need(len(gates) <= MAX_GATES, "$", f"more than {MAX_GATES} gates")
    return {"format": STRUCTURE, "version": 1, "domain": domain, "gates": gates, "outputs": [index(r) for r in outputs]}


def read_circuit(data: bytes, fmt: str) -> tuple[dict[str, Any], Circuit]:
    """The canonical structure of a circuit file in format ``text``, ``json`` or ``structure`` (the canonical form
    itself, as the API hands an in-memory circuit), and the circuit it loads to; :class:`NotChecked` if unreadable."""
    try:
        value = json.loads(data) if fmt == "structure" else _ordered(*(_text(data) if fmt == "text" else _json(data)))
        return value, load_structure(value, "$circuit-file")
    except (Malformed, ValueError, UnicodeDecodeError, AttributeError, TypeError) as exc:
        raise NotChecked(f"the kernel's own {fmt} reader does not read the given circuit file ({exc})") from None


def given_circuit(ctx: Context) -> list[Problem]:
    """S1: ``--circuit FILE`` is the certified circuit B or the recorded C; a file that merely binarizes to B
    (a hash the command computed) is *not checked*, never accepted; any other file is rejected."""
    wanted = sha256_json(read_circuit(*ctx.options.circuit_file[1:])[0])
    if wanted in (ctx.hashes["circuit"], ctx.hashes.get("original")):
        return []
    if ctx.hashes["circuit"] in ctx.options.binarized_sha256:
        ctx.unchecked.append(no_link(ctx))
        return []
    return [Problem("the given circuit has structure hash {given:16}, the certified one {circuit:16}"
                    + (" (before binarization {original:16})" if "original" in ctx.hashes else ""),
                    {"given": wanted, **ctx.hashes})]
