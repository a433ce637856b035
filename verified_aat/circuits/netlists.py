"""Boolean netlists: ISCAS ``.bench`` and BLIF parsers (Bristol Fashion: :mod:`.bristol`), and
reading a netlist file of any of these formats; the IR, simulation and measures are in
:mod:`.netlist_model` (re-exported here).

A :class:`Netlist` lists its gates in topological order (the parsers sort
files that define signals after their use).  Gate ops are ``AND NAND OR NOR
XOR XNOR`` (fan-in >= 1; XOR is parity, XNOR its negation), ``NOT BUFF``
(fan-in 1), ``CONST0 CONST1`` (fan-in 0) and ``CUBE`` for a BLIF single-cube
cover: ``cube`` holds the pattern over ``0 1 -`` (one character per argument,
``-`` ignores it) and ``polarity`` is the row's output value (1: the gate is
the AND of the literals; 0: its negation).  Covers that are plain AND, NAND,
OR, NOR, NOT or buffers are stored under those names, so ``.names a b y`` /
``00 1`` is ``NOR(a, b)``; BLIF constants are ``CONST0``/``CONST1`` (a
``.names`` block without rows is constant 0).  A cover of several rows is a ``COVER``:
``cubes`` holds the rows' patterns and ``polarity`` their common output value (1: the OR of
the cubes, an on-set; 0: its negation, an off-set; rows with both values are refused).
:func:`disjoint_cubes` rewrites a cover into disjoint cubes, whose sum is its multilinear
polynomial (:mod:`.linear`).

Measures (the numbers in ``shared/circuits/README.md``): ``gates`` counts
every gate, BUFF, NOT and constants included; depth(input) = depth(constant)
= 0 and depth(g) = 1 + max depth of its arguments (BUFF and NOT count as a
level); max fan-in is over all gates.  Gate types are listed most frequent
first (ties in order of first appearance), as in that table.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable

from ..errors import InputError
from ..wording import file_stem, plural
from .bristol import looks_like_bristol, parse_bristol
from .covers import MAX_DISJOINT_CUBES, MAX_SHANNON_WORK, disjoint_cubes  # noqa: F401 - disjoint_cubes re-exported
from .netlist_model import (CONSTANTS, OPS, UNARY, VARIADIC, BoolGate, Netlist, NetlistMeasures,  # noqa: F401
                            Parsed, assemble_netlist, check_text, live_signals,
                            measure_netlist, netlist_depths, simulate, simulate_words)

_ALIASES = {"BUF": "BUFF", "INV": "NOT", "GND": "CONST0", "VDD": "CONST1"}
_SEQUENTIAL = ("DFF", "LATCH", "DFFR", "DFFS")


# -- ISCAS .bench ------------------------------------------------------------
_NAME = r"[^\s(),=#]+"
_IO_RE = re.compile(rf"^(INPUT|OUTPUT)\s*\(\s*({_NAME})\s*\)$", re.IGNORECASE)
_GATE_RE = re.compile(rf"^({_NAME})\s*=\s*([A-Za-z_][A-Za-z0-9_]*)\s*\((.*)\)$")


def parse_bench(text: str, file: str = "<bench>", drop_dead: bool = False) -> Netlist:
    """Parse an ISCAS-85 ``.bench`` netlist (``INPUT(a)``, ``OUTPUT(y)``, ``y = NAND(a, b)``)."""
    check_text(text, file)
    p = Parsed(file, file_stem(file, "netlist"), [], [], [], drop_dead)
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        io = _IO_RE.match(line)
        if io:
            (p.inputs if io.group(1).upper() == "INPUT" else p.outputs).append((io.group(2), number))
            continue
        m = _GATE_RE.match(line)
        if not m:
            raise InputError(f"cannot parse line {line[:60]!r}; expected INPUT(x), OUTPUT(x) or x = OP(a, ...)",
                             file, number)
        name, op, inner = m.group(1), m.group(2).upper(), m.group(3).strip()
        op = _ALIASES.get(op, op)
        args = tuple(a.strip() for a in inner.split(",")) if inner else ()
        if any(not re.fullmatch(_NAME, a) for a in args):
            raise InputError(f"gate '{name}': bad argument list {inner[:60]!r}", file, number)
        if op in _SEQUENTIAL:
            raise InputError(f"gate '{name}': sequential element {op} is not supported", file, number)
        if op not in OPS or op == "CUBE":
            raise InputError(f"gate '{name}': unknown gate type {m.group(2)!r}", file, number)
        try:
            p.gates.append((BoolGate(name, op, args), number))
        except ValueError:
            raise InputError(f"gate '{name}': {op} cannot take {plural(len(args), 'argument')}", file, number) from None
    return assemble_netlist(p)


# -- BLIF --------------------------------------------------------------------
CONTINUED_INTO_NOTHING = ("the line ends in '\\' but the next holds no tokens (a blank line, a comment only, or the "
                          "end of the file): readers differ on what it continues; join the lines or drop the '\\'")


def _logical_lines(text: str, file: str) -> Iterable[tuple[int, list[str]]]:
    """Tokens of each logical line (comments dropped, ``\\`` continuations joined); the line after a ``\\`` must
    hold tokens (docs/circuit-format.md, "Netlists"), as the kernel's reader requires."""
    pending: list[str] = []
    start, cont = 0, False
    for number, raw in enumerate(text.split("\n") + [""], start=1):  # the last "": the end of the file
        line = raw.split("#", 1)[0].rstrip()
        if cont and not line.split():
            raise InputError(CONTINUED_INTO_NOTHING, file, number - 1)
        if not pending:
            start = number
        cont = line.endswith("\\")
        pending.extend((line[:-1] if cont else line).split())
        if not cont:
            if pending:
                yield start, pending
            pending = []


def _cover_gate(name: str, args: tuple[str, ...], rows: list[tuple[str, str, int]], file: str) -> BoolGate:
    """The gate of a ``.names`` block from its cover rows ``(pattern, out, line)``."""
    mixed = [line for _, out, line in rows if out != rows[0][1]]
    if mixed:
        raise InputError(f"'{name}': a cover mixes on-set (output 1) and off-set (output 0) rows", file, mixed[0])
    if len(rows) > 1 and args:
        gate = BoolGate(name, "COVER", args, polarity=int(rows[0][1]), cubes=tuple(r[0] for r in rows))
        try:
            disjoint_cubes(gate.cubes)
        except OverflowError:
            raise InputError(f"'{name}': the cover of {len(rows)} rows is too large to make disjoint (more than "
                             f"{MAX_DISJOINT_CUBES:,} cubes or {MAX_SHANNON_WORK:,} cube characters)", file, rows[0][2]) from None
        return gate
    if not rows:
        return BoolGate(name, "CONST0")  # an empty on-set
    pattern, out, _ = rows[0]
    if not args:
        return BoolGate(name, "CONST1" if out == "1" else "CONST0")
    pol = int(out)
    if set(pattern) == {"1"}:
        op = ("AND", "NAND") if len(args) > 1 else ("BUFF", "NOT")
        return BoolGate(name, op[1 - pol], args)
    if set(pattern) == {"0"}:
        op = ("NOR", "OR") if len(args) > 1 else ("NOT", "BUFF")
        return BoolGate(name, op[1 - pol], args)
    return BoolGate(name, "CUBE", args, pattern, pol)


def parse_blif(text: str, file: str = "<blif>", drop_dead: bool = False) -> Netlist:
    """Parse a combinational single-model BLIF file (covers of any number of cubes)."""
    check_text(text, file)
    p = Parsed(file, file_stem(file, "netlist"), [], [], [], drop_dead)
    block: tuple[str, tuple[str, ...], int] | None = None
    rows: list[tuple[str, str, int]] = []
    seen_model = ended = False

    def close() -> None:
        if block is not None:
            p.gates.append((_cover_gate(block[0], block[1], rows, file), block[2]))

    for number, tokens in _logical_lines(text, file):
        head = tokens[0]
        if ended:
            raise InputError("text after .end (only one model is supported)", file, number)
        if not head.startswith("."):
            if block is None:
                raise InputError(f"cover row {' '.join(tokens)[:40]!r} outside a .names block", file, number)
            k = len(block[1])
            pattern, out = ("", tokens[0]) if k == 0 and len(tokens) == 1 else (tokens + [""])[:2]
            if len(tokens) != (1 if k == 0 else 2) or len(pattern) != k or set(pattern) - set("01-") \
                    or out not in ("0", "1"):
                raise InputError(f"bad cover row {' '.join(tokens)[:40]!r} for {plural(k, 'input')}", file, number)
            rows.append((pattern, out, number))
            continue
        close()
        block, rows = None, []
        cmd = head.lower()
        if cmd == ".model":
            if seen_model:
                raise InputError("only one .model is supported", file, number)
            seen_model = True
            p.name = tokens[1] if len(tokens) > 1 else p.name
        elif cmd in (".inputs", ".outputs"):
            (p.inputs if cmd == ".inputs" else p.outputs).extend((t, number) for t in tokens[1:])
        elif cmd == ".names":
            if len(tokens) < 2:
                raise InputError(".names needs at least an output signal", file, number)
            block = (tokens[-1], tuple(tokens[1:-1]), number)
        elif cmd == ".end":
            ended = True
        elif cmd in (".latch", ".mlatch"):
            raise InputError(f"sequential element {head} is not supported", file, number)
        else:
            raise InputError(f"unsupported BLIF command {head!r}", file, number)
    close()
    return assemble_netlist(p)


# -- files -------------------------------------------------------------------
def decode_netlist_bytes(data: bytes, file: str) -> str:
    """UTF-8 text of a netlist file; NUL bytes or invalid UTF-8 raise InputError with the line."""
    nul = data.find(b"\x00")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        at = exc.start if nul < 0 else min(nul, exc.start)
        raise InputError("binary data (not UTF-8 text) in a netlist", file, data.count(b"\n", 0, at) + 1) from None
    check_text(text, file)
    return text


NETLIST_FORMATS = ("bench", "blif", "bristol")


def netlist_format(path: str, text: str) -> str:
    """``"bench"``, ``"blif"`` or ``"bristol"``: by extension (``.bench``, ``.blif``,
    ``.bristol``), else ``"bristol"`` if the first non-blank line is two whole numbers (a
    Bristol Fashion header), else by whether lines start with ``.``."""
    suffix = Path(path).suffix.lower()
    if suffix in (".bench", ".blif", ".bristol"):
        return suffix[1:]
    text = text.removeprefix("\ufeff")
    if looks_like_bristol(text):
        return "bristol"
    starts = [ln.lstrip()[:1] for ln in text.split("\n") if ln.strip() and not ln.lstrip().startswith("#")]
    return "blif" if starts and starts[0] == "." else "bench"


def parse_netlist(text: str, file: str, fmt: str, drop_dead: bool = False) -> Netlist:
    """Dispatch to :func:`parse_bench`, :func:`parse_blif` or :func:`.bristol.parse_bristol`
    (``drop_dead``: drop gates no output depends on before any check; Bristol files have none
    that could be undefined)."""
    if fmt not in NETLIST_FORMATS:
        raise InputError(f"unknown netlist format {fmt!r} (expected bench, blif or bristol)", file, None)
    text = text.removeprefix("\ufeff")  # a byte-order mark (the kernel's reader skips it too)
    if fmt == "bristol":
        return parse_bristol(text, file)
    return parse_bench(text, file, drop_dead) if fmt == "bench" else parse_blif(text, file, drop_dead)


def read_netlist_file(path: str, fmt: str | None = None) -> tuple[bytes, str, str]:
    """A netlist file's bytes, its decoded text and its format (``fmt``, else :func:`netlist_format`)."""
    from ..files import read_input
    data = read_input(path, "netlist")
    text = decode_netlist_bytes(data, path)
    return data, text, fmt or netlist_format(path, text)


def read_netlist(path: str, fmt: str | None = None) -> tuple[Netlist, str]:
    """Read and parse a netlist file (``fmt``, else :func:`netlist_format`); returns the netlist
    and its format."""
    _, text, fmt = read_netlist_file(path, fmt)
    return parse_netlist(text, path, fmt), fmt
