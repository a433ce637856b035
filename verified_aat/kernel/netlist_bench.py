"""The kernel's reader of ISCAS ``.bench`` text into the canonical form of ``netlist_form.py``
(docs/soundness.md N)."""

from __future__ import annotations

import re

from .netlist_form import Gates, NGate, NetlistError

VARIADIC = ("AND", "NAND", "OR", "NOR", "XOR", "XNOR")
ALIASES = {"BUF": "BUFF", "INV": "NOT", "GND": "CONST0", "VDD": "CONST1"}
_NAME = r"[^\s(),=#]+"
_IO = re.compile(rf"(INPUT|OUTPUT)\s*\(\s*({_NAME})\s*\)\Z", re.IGNORECASE)
_GATE = re.compile(rf"({_NAME})\s*=\s*([A-Za-z_][A-Za-z0-9_]*)\s*\((.*)\)\Z")
_ARG = re.compile(rf"{_NAME}\Z")


def read_bench(text: str) -> tuple[list[str], list[str], Gates]:
    inputs: list[str] = []
    outputs: list[str] = []
    gates: Gates = []
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        io = _IO.match(line)
        if io:
            (inputs if io.group(1).upper() == "INPUT" else outputs).append(io.group(2))
            continue
        m = _GATE.match(line)
        if m is None:
            raise NetlistError(f"line {number}: " + "not INPUT(x), OUTPUT(x) or x = OP(a, ...): {line!r}", line=line)
        op = ALIASES.get(m.group(2).upper(), m.group(2).upper())
        inner = m.group(3).strip()
        args = tuple(a.strip() for a in inner.split(",")) if inner else ()
        arity_ok = {"NOT": len(args) == 1, "BUFF": len(args) == 1, "CONST0": not args, "CONST1": not args}
        if any(_ARG.match(a) is None for a in args) or not arity_ok.get(op, op in VARIADIC and len(args) >= 1):
            raise NetlistError(f"line {number}: " + "the kernel does not know the gate {line!r}", line=line)
        gates.append((NGate(m.group(1), op, args), number))
    return inputs, outputs, gates
