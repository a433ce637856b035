"""The kernel's reader of a ``.circ`` text file (docs/circuit-format.md), entered only for that format."""

from __future__ import annotations

import re

from .circuit_file import OPS, Gates, Ref, define
from .data import need
from .document_transformer import read_literal  # the text format's literals, as a document's circuits read them

_DEFINITION = re.compile(r"\s*([^\s=]+)\s*=(.*)\Z", re.S)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.\[\]\-]*\Z", re.ASCII)
_KEYWORDS = ("circuit", "domain", "arithmetization", "provenance", "input", "output")


def read(data: bytes) -> tuple[Gates, list[Ref], str]:
    """The gates in file order, the outputs and the domain of a text file."""
    gates: Gates = {}
    outputs: list[Ref] = []
    domain, inputs = "rationals", 0
    for number, raw in enumerate(data.decode("utf-8").removeprefix("\ufeff").split("\n"), start=1):
        line, at = raw.removesuffix("\r").split("#", 1)[0], f"line {number}"
        match = _DEFINITION.match(line)
        if match:
            op, *args = match[2].split() or ["?"]
            value = read_literal(args[0]) if op == "const" and len(args) == 1 else None
            need(op in OPS and (op != "const" or value is not None), at, "a gate whose operation or number the kernel does not read")
            _named(gates, at, match[1], op, [] if op == "const" else [_ref(a) for a in args], value)
            continue
        keyword, *rest = line.split() or [""]
        if keyword == "input":
            for name in rest:
                _named(gates, at, name, "input", [], inputs)
                inputs += 1
        elif keyword == "output":
            outputs += [_ref(token.partition("=")[2] or token) for token in rest]
        elif keyword == "domain" and rest in (["rationals"], ["boolean"]):
            domain = rest[0]
        else:  # the structure does not read a circuit's name, arithmetization or provenance
            need(keyword in ("", "circuit", "arithmetization", "provenance"), at, "a statement the kernel does not read")
    return gates, outputs, domain


def _named(gates: Gates, at: str, name: str, op: str, refs: list[Ref], value: object) -> None:
    need(_NAME.match(name) is not None and name not in _KEYWORDS and name.lower() not in ("nan", "inf", "infinity"),
         at, "a gate name the format does not allow")
    define(gates, at, name, op, refs, value)


def _ref(token: str) -> Ref:
    """An argument: an inline rational literal, else a gate's name."""
    value = read_literal(token)
    return token if value is None else value
