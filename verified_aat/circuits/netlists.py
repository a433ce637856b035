"""Boolean netlists: an immutable IR, ISCAS ``.bench`` and BLIF parsers (Bristol Fashion:
:mod:`.bristol`), simulation and measures.

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
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from ..errors import InputError
from .covers import MAX_DISJOINT_CUBES, MAX_SHARP_STEPS, disjoint_cubes

VARIADIC = ("AND", "NAND", "OR", "NOR", "XOR", "XNOR")
UNARY = ("NOT", "BUFF")
CONSTANTS = ("CONST0", "CONST1")
OPS = VARIADIC + UNARY + CONSTANTS + ("CUBE", "COVER")
_ALIASES = {"BUF": "BUFF", "INV": "NOT", "GND": "CONST0", "VDD": "CONST1"}
_SEQUENTIAL = ("DFF", "LATCH", "DFFR", "DFFS")


@dataclass(frozen=True, slots=True)
class BoolGate:
    """``name = op(args)``; ``cube``/``polarity`` only for ``CUBE`` gates, ``cubes``/``polarity``
    only for ``COVER`` gates."""

    name: str
    op: str
    args: tuple[str, ...] = ()
    cube: str = ""
    polarity: int = 1
    cubes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.op not in OPS:
            raise ValueError(f"gate {self.name!r}: unknown op {self.op!r}")
        k = len(self.args)
        if (self.op in UNARY and k != 1) or (self.op in CONSTANTS and k) or (self.op in VARIADIC and not k):
            raise ValueError(f"gate {self.name!r}: {self.op} cannot take {k} arguments")
        if self.op == "CUBE" and (len(self.cube) != k or set(self.cube) - set("01-") or self.polarity not in (0, 1)):
            raise ValueError(f"gate {self.name!r}: bad cube {self.cube!r} {self.polarity}")
        if self.op == "COVER" and (not self.cubes or self.polarity not in (0, 1)
                                   or any(len(c) != k or set(c) - set("01-") for c in self.cubes)):
            raise ValueError(f"gate {self.name!r}: bad cover {self.cubes!r} {self.polarity}")


@dataclass(frozen=True, slots=True)
class Netlist:
    """Named inputs, ordered outputs (repeats allowed) and gates in topological order."""

    name: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    gates: tuple[BoolGate, ...]

    def __post_init__(self) -> None:
        defined = set()
        for name in self.inputs:
            if name in defined:
                raise ValueError(f"input {name!r} is listed twice")
            defined.add(name)
        for gate in self.gates:
            missing = [a for a in gate.args if a not in defined]
            if missing or gate.name in defined:
                raise ValueError(f"gate {gate.name!r} is not in topological order or defined twice")
            defined.add(gate.name)
        if any(o not in defined for o in self.outputs):
            raise ValueError("an output is not a defined signal")


@dataclass(frozen=True, slots=True)
class NetlistMeasures:
    """Inputs, outputs, gates, depth (every gate a level), max fan-in, gate types."""

    n_inputs: int
    n_outputs: int
    gates: int
    depth: int
    max_fan_in: int
    gate_types: tuple[str, ...]


# -- simulation --------------------------------------------------------------
def _gate_value(gate: BoolGate, vals: list[int], mask: int) -> int:
    """The gate's value bit-parallel: each argument is an int of ``mask``'s width."""
    op = gate.op
    if op == "CONST0":
        return 0
    if op == "CONST1":
        return mask
    if op in ("CUBE", "COVER"):
        cover = 0
        for cube in gate.cubes or (gate.cube,):
            acc = mask
            for lit, v in zip(cube, vals):
                if lit != "-":
                    acc &= v if lit == "1" else ~v
            cover |= acc
        return cover & mask if gate.polarity else ~cover & mask
    if op in ("AND", "NAND", "BUFF"):
        acc = mask
        for v in vals:
            acc &= v
    elif op in ("OR", "NOR"):
        acc = 0
        for v in vals:
            acc |= v
    else:  # XOR, XNOR, NOT
        acc = 0
        for v in vals:
            acc ^= v
        if op == "NOT":
            return ~acc & mask
    return ~acc & mask if op in ("NAND", "NOR", "XNOR") else acc


def simulate_words(netlist: Netlist, words: Sequence[int], width: int) -> tuple[int, ...]:
    """Bit-parallel simulation: ``words[i]`` holds input ``i``; bit k is vector k."""
    if len(words) != len(netlist.inputs):
        raise ValueError(f"netlist {netlist.name} takes {len(netlist.inputs)} inputs, got {len(words)}")
    mask = (1 << width) - 1
    env = {name: w & mask for name, w in zip(netlist.inputs, words)}
    for gate in netlist.gates:
        env[gate.name] = _gate_value(gate, [env[a] for a in gate.args], mask)
    return tuple(env[o] for o in netlist.outputs)


def simulate(netlist: Netlist, bits: Sequence[int]) -> tuple[int, ...]:
    """The netlist's outputs (0/1) on one input vector of 0/1 values."""
    if any(b not in (0, 1) for b in bits):
        raise ValueError("netlist inputs must be 0 or 1")
    return simulate_words(netlist, [int(b) for b in bits], 1)


# -- measures ----------------------------------------------------------------
def netlist_depths(netlist: Netlist) -> dict[str, int]:
    """depth(input) = depth(constant) = 0; depth(g) = 1 + max over its arguments."""
    depths = dict.fromkeys(netlist.inputs, 0)
    for gate in netlist.gates:
        depths[gate.name] = 1 + max(depths[a] for a in gate.args) if gate.args else 0
    return depths


def measure_netlist(netlist: Netlist) -> NetlistMeasures:
    """The README's measures of a netlist (see the module docstring)."""
    depths = netlist_depths(netlist)
    counts: dict[str, int] = {}
    for gate in netlist.gates:
        counts[gate.op] = counts.get(gate.op, 0) + 1
    return NetlistMeasures(
        n_inputs=len(netlist.inputs),
        n_outputs=len(netlist.outputs),
        gates=len(netlist.gates),
        depth=max(depths.values(), default=0),
        max_fan_in=max((len(g.args) for g in netlist.gates), default=0),
        gate_types=tuple(sorted(counts, key=lambda op: -counts[op])),
    )


# -- assembling parsed files -------------------------------------------------
@dataclass
class _Parsed:
    """What a parser found, with line numbers, before checks and sorting."""

    file: str
    name: str
    inputs: list[tuple[str, int]]
    outputs: list[tuple[str, int]]
    gates: list[tuple[BoolGate, int]]
    drop_dead: bool = False


def live_signals(outputs: Iterable[str], gates: Iterable[BoolGate]) -> set[str]:
    """The signals some output depends on (undefined ones included)."""
    defs: dict[str, list[BoolGate]] = {}
    for gate in gates:
        defs.setdefault(gate.name, []).append(gate)
    live: set[str] = set()
    stack = list(outputs)
    while stack:
        name = stack.pop()
        if name not in live:
            live.add(name)
            stack.extend(a for g in defs.get(name, ()) for a in g.args)
    return live


def _assemble(p: _Parsed) -> Netlist:
    """Check definitions and uses, sort topologically (keeping file order when it is one);
    with ``drop_dead``, gates no output depends on are dropped first, unchecked."""
    if not (p.inputs or p.outputs or p.gates):
        raise InputError("empty netlist: no inputs, outputs or gates", p.file, None)
    if p.drop_dead:
        live = live_signals([name for name, _ in p.outputs], [g for g, _ in p.gates])
        p.gates = [(g, line) for g, line in p.gates if g.name in live]
    where: dict[str, int] = {}
    for name, line in p.inputs + [(g.name, line) for g, line in p.gates]:
        if name in where:
            raise InputError(f"signal '{name}' is defined twice (first on line {where[name]})", p.file, line)
        where[name] = line
    for gate, line in p.gates:
        for arg in gate.args:
            if arg not in where:
                raise InputError(f"gate '{gate.name}' uses undefined signal '{arg}'", p.file, line)
    for name, line in p.outputs:
        if name not in where:
            raise InputError(f"output '{name}' is not defined", p.file, line)
    if not p.outputs:
        raise InputError("netlist has no outputs", p.file, None)
    by_name = {g.name: (g, line) for g, line in p.gates}
    done: set[str] = {name for name, _ in p.inputs}
    on_path: list[str] = []
    order: list[BoolGate] = []
    for gate, _ in p.gates:  # iterative DFS, post-order
        if gate.name in done:
            continue
        stack: list[tuple[str, int]] = [(gate.name, 0)]
        on_path.append(gate.name)
        active = {gate.name}
        while stack:
            name, i = stack[-1]
            args = by_name[name][0].args
            if i < len(args):
                stack[-1] = (name, i + 1)
                arg = args[i]
                if arg in done:
                    continue
                if arg in active:
                    cycle = on_path[on_path.index(arg):] + [arg]
                    raise InputError("combinational cycle " + " -> ".join(f"'{c}'" for c in cycle),
                                     p.file, by_name[arg][1])
                stack.append((arg, 0))
                on_path.append(arg)
                active.add(arg)
            else:
                stack.pop()
                on_path.pop()
                active.discard(name)
                done.add(name)
                order.append(by_name[name][0])
    return Netlist(p.name, tuple(n for n, _ in p.inputs), tuple(n for n, _ in p.outputs), tuple(order))


def _check_text(text: str, file: str) -> None:
    """Reject NUL bytes and other binary junk, naming the line."""
    bad = re.search(r"[\x00-\x08\x0b\x0e-\x1f\x7f\ufffd]", text)
    if bad:
        line = text.count("\n", 0, bad.start()) + 1
        raise InputError(f"binary data (byte {ord(bad.group()):#04x}) in a text netlist", file, line)


# -- ISCAS .bench ------------------------------------------------------------
_NAME = r"[^\s(),=#]+"
_IO_RE = re.compile(rf"^(INPUT|OUTPUT)\s*\(\s*({_NAME})\s*\)$", re.IGNORECASE)
_GATE_RE = re.compile(rf"^({_NAME})\s*=\s*([A-Za-z_][A-Za-z0-9_]*)\s*\((.*)\)$")


def parse_bench(text: str, file: str = "<bench>", drop_dead: bool = False) -> Netlist:
    """Parse an ISCAS-85 ``.bench`` netlist (``INPUT(a)``, ``OUTPUT(y)``, ``y = NAND(a, b)``)."""
    _check_text(text, file)
    p = _Parsed(file, Path(file).stem or "netlist", [], [], [], drop_dead)
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
            raise InputError(f"gate '{name}': {op} cannot take {len(args)} argument(s)", file, number) from None
    return _assemble(p)


# -- BLIF --------------------------------------------------------------------
def _logical_lines(text: str) -> Iterable[tuple[int, list[str]]]:
    """Tokens of each logical line (comments dropped, ``\\`` continuations joined)."""
    pending: list[str] = []
    start = 0
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.split("#", 1)[0].rstrip()
        if not pending:
            start = number
        cont = line.endswith("\\")
        pending.extend((line[:-1] if cont else line).split())
        if not cont:
            if pending:
                yield start, pending
            pending = []
    if pending:
        yield start, pending


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
                             f"{MAX_DISJOINT_CUBES} cubes or {MAX_SHARP_STEPS} steps)", file, rows[0][2]) from None
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
    _check_text(text, file)
    p = _Parsed(file, Path(file).stem or "netlist", [], [], [], drop_dead)
    block: tuple[str, tuple[str, ...], int] | None = None
    rows: list[tuple[str, str, int]] = []
    seen_model = ended = False

    def close() -> None:
        if block is not None:
            p.gates.append((_cover_gate(block[0], block[1], rows, file), block[2]))

    for number, tokens in _logical_lines(text):
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
                raise InputError(f"bad cover row {' '.join(tokens)[:40]!r} for {k} input(s)", file, number)
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
    return _assemble(p)


# -- files -------------------------------------------------------------------
def decode_netlist_bytes(data: bytes, file: str) -> str:
    """UTF-8 text of a netlist file; NUL bytes or invalid UTF-8 raise InputError with the line."""
    nul = data.find(b"\x00")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        at = exc.start if nul < 0 else min(nul, exc.start)
        raise InputError("binary data (not UTF-8 text) in a netlist", file, data.count(b"\n", 0, at) + 1) from None
    _check_text(text, file)
    return text


NETLIST_FORMATS = ("bench", "blif", "bristol")


def netlist_format(path: str, text: str) -> str:
    """``"bench"``, ``"blif"`` or ``"bristol"``: by extension (``.bench``, ``.blif``,
    ``.bristol``), else ``"bristol"`` if the first non-blank line is two whole numbers (a
    Bristol Fashion header), else by whether lines start with ``.``."""
    from .bristol import looks_like_bristol
    suffix = Path(path).suffix.lower()
    if suffix in (".bench", ".blif", ".bristol"):
        return suffix[1:]
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
    if fmt == "bristol":
        from .bristol import parse_bristol
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
