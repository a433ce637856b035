"""The kernel's readers of netlist text (ISCAS ``.bench``, BLIF, Bristol Fashion), each giving inputs, outputs
and gates ``(NGate, line)`` in file order for ``netlist_parse.py`` to order and check.

A netlist is its inputs and outputs in file order and its gates ``(name, op, args, cube, polarity)``; ``op`` is
one of ``AND NAND OR NOR XOR XNOR NOT BUFF CONST0 CONST1 CUBE``.  A BLIF ``.names`` block is a ``CUBE``
(``cube`` over ``0 1 -``, one character per argument; ``polarity`` the row's output), a
block without inputs or without rows a constant.  A Bristol Fashion file (header ``G W``,
input and output value widths, then ``k_in k_out wires… TYPE``) names input value v's bit j
``in{v}_b{j}`` (its j-th wire; inputs are the first wires), output value v's bit j
``out{v}_b{j}`` (outputs are the last wires) and any other wire ``w{i}``; XOR and AND are
themselves, INV/NOT is NOT, EQW is BUFF, ``1 1 v c EQ`` is the constant v, and
``2n n a… b… c… MAND`` is c_i = AND(a_i, b_i).  Anything else is a :class:`NetlistError`
naming the line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .problems import render

VARIADIC = ("AND", "NAND", "OR", "NOR", "XOR", "XNOR")
ALIASES = {"BUF": "BUFF", "INV": "NOT", "GND": "CONST0", "VDD": "CONST1"}


class NetlistError(ValueError):
    """A netlist that does not parse: a fixed message whose fields name the offending text, in full in ``data``."""

    def __init__(self, message: str, **data: object):
        super().__init__(render(message, data))
        self.message, self.data = message, data


@dataclass(frozen=True)
class NGate:
    name: str
    op: str
    args: tuple[str, ...]
    cube: str = ""
    polarity: int = 1
    cubes: tuple[str, ...] = ()  # a COVER's rows (a BLIF block of several rows)


_NAME = r"[^\s(),=#]+"
_IO = re.compile(rf"(INPUT|OUTPUT)\s*\(\s*({_NAME})\s*\)\Z", re.IGNORECASE)
_GATE = re.compile(rf"({_NAME})\s*=\s*([A-Za-z_][A-Za-z0-9_]*)\s*\((.*)\)\Z")
_ARG = re.compile(rf"{_NAME}\Z")
_DIGITS = re.compile(r"[0-9]{1,18}\Z")


def read_bench(text: str) -> tuple[list[str], list[str], list[tuple[NGate, int]]]:
    inputs: list[str] = []
    outputs: list[str] = []
    gates: list[tuple[NGate, int]] = []
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


def read_blif(text: str) -> tuple[list[str], list[str], list[tuple[NGate, int]]]:
    lines = _logical_lines(text)
    inputs: list[str] = []
    outputs: list[str] = []
    gates: list[tuple[NGate, int]] = []
    block: tuple[str, tuple[str, ...], int] | None = None
    rows: list[tuple[str, str, int]] = []
    state = "start"

    def close() -> None:
        if block is None:
            return
        name, args, line = block
        if any(out != rows[0][1] for _, out, _ in rows):
            raise NetlistError(f"line {line}: a cover with both on-set and off-set rows")
        if len(rows) > 1 and args:
            gates.append((NGate(name, "COVER", args, "", int(rows[0][1]), tuple(r[0] for r in rows)), line))
        elif not rows or not args:
            gates.append((NGate(name, "CONST1" if rows and rows[0][1] == "1" else "CONST0", ()), line))
        else:
            gates.append((NGate(name, "CUBE", args, rows[0][0], int(rows[0][1])), line))

    for number, tokens in lines:
        head = tokens[0]
        if state == "end":
            raise NetlistError(f"line {number}: text after .end")
        if not head.startswith("."):
            if block is None:
                raise NetlistError(f"line {number}: a cover row outside a .names block")
            k = len(block[1])
            pattern, out = ("", tokens[0]) if k == 0 and len(tokens) == 1 else (tokens[0], (tokens + [""])[1])
            if len(tokens) != (1 if k == 0 else 2) or len(pattern) != k or set(pattern) - set("01-") \
                    or out not in ("0", "1"):
                raise NetlistError(f"line {number}: bad cover row for {k} input(s): " + "{row!r:40}", row=" ".join(tokens))
            rows.append((pattern, out, number))
            continue
        close()
        block, rows = None, []
        cmd = head.lower()
        if cmd == ".model" and state == "start":
            state = "model"
        elif cmd in (".inputs", ".outputs"):
            (inputs if cmd == ".inputs" else outputs).extend(tokens[1:])
        elif cmd == ".names" and len(tokens) >= 2:
            block = (tokens[-1], tuple(tokens[1:-1]), number)
        elif cmd == ".end":
            state = "end"
        else:
            raise NetlistError(f"line {number}: " + "the kernel does not know {line!r}", line=" ".join(tokens))
    close()
    return inputs, outputs, gates


def _logical_lines(text: str) -> list[tuple[int, list[str]]]:
    """BLIF's lines as (first line number, tokens), comments dropped and ``\\`` continuations joined."""
    lines: list[tuple[int, list[str]]] = []
    pending: list[str] = []
    start = 0
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.split("#", 1)[0].rstrip()
        if not pending:
            start = number
        more = line.endswith("\\")
        pending.extend((line[:-1] if more else line).split())
        if not more:
            if pending:
                lines.append((start, pending))
            pending = []
    if pending:
        lines.append((start, pending))
    return lines


def read_bristol(text: str) -> tuple[list[str], list[str], list[tuple[NGate, int]]]:
    rows = [(number, line.split()) for number, line in enumerate(text.split("\n"), start=1) if line.strip()]
    if len(rows) < 3:
        raise NetlistError("a Bristol Fashion file needs three header lines")

    def ints(row: tuple[int, list[str]], count: int | None = None) -> list[int]:
        if not row[1] or not all(_DIGITS.match(t) for t in row[1]) or count not in (None, len(row[1])):
            raise NetlistError(f"line {row[0]}: " + "the kernel does not know {line!r}", line=" ".join(row[1]))
        return [int(t) for t in row[1]]
    n_gates, n_wires = ints(rows[0], 2)
    widths = [ints(rows[1]), ints(rows[2])]
    if any(v[0] != len(v) - 1 or 0 in v[1:] for v in widths) or len(widths[1]) < 2:
        raise NetlistError("lines 2-3: expected the number of values and their (positive) bit widths")
    n_in, n_out = sum(widths[0][1:]), sum(widths[1][1:])
    if n_in + n_out > min(n_wires, len(text)) or len(rows) - 3 != n_gates:  # each wire costs text
        raise NetlistError("line 1: the header does not match the wires, the gates or the text's length")
    io = [[f"{kind}{v}_b{j}" for v, width in enumerate(ws[1:]) for j in range(width)]
          for kind, ws in zip(("in", "out"), widths)]
    names = dict(enumerate(io[0])) | {n_wires - n_out + k: name for k, name in enumerate(io[1])}
    gates: list[tuple[NGate, int]] = []
    for number, tokens in rows[3:]:
        kind, nums = tokens[-1], ints((number, tokens[:-1]))
        k_in, k_out, *_ = nums + [0, 0]
        src, dst = nums[2:2 + k_in], nums[2 + k_in:]
        arity = {"XOR": (2, 1), "AND": (2, 1), "INV": (1, 1), "NOT": (1, 1), "EQW": (1, 1), "EQ": (1, 1)}
        expected = (2 * k_out, k_out) if kind == "MAND" and k_out else arity.get(kind)
        if len(nums) != 2 + k_in + k_out or (k_in, k_out) != expected or (kind == "EQ" and src[0] > 1) \
                or any(w >= n_wires for w in dst + ([] if kind == "EQ" else src)) or any(w < n_in for w in dst):
            raise NetlistError(f"line {number}: " + "the kernel does not know the gate {line!r}", line=" ".join(tokens))
        ins, outs = [names.get(w, f"w{w}") for w in src], [names.get(w, f"w{w}") for w in dst]
        if kind == "MAND":
            gates += [(NGate(outs[i], "AND", (ins[i], ins[k_out + i])), number) for i in range(k_out)]
        elif kind == "EQ":
            gates.append((NGate(outs[0], "CONST1" if src[0] else "CONST0", ()), number))
        else:
            gates.append((NGate(outs[0], {"INV": "NOT", "EQW": "BUFF"}.get(kind, kind), tuple(ins)), number))
    return io[0], io[1], gates
