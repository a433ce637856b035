"""The Boolean netlist IR shared by every netlist parser (:mod:`.netlists`, :mod:`.bristol`,
:mod:`.aiger`): gates, netlists, simulation, measures, and the checks and topological sort
that turn what a parser found (:class:`Parsed`) into a :class:`Netlist`.  The ops and the
measures are described in :mod:`.netlists`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Sequence

from ..errors import InputError
from ..wording import plural, unprintable

VARIADIC = ("AND", "NAND", "OR", "NOR", "XOR", "XNOR")
UNARY = ("NOT", "BUFF")
CONSTANTS = ("CONST0", "CONST1")
OPS = VARIADIC + UNARY + CONSTANTS + ("CUBE", "COVER")


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
            raise ValueError(f"gate {self.name!r}: {self.op} cannot take {plural(k, 'argument')}")
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
        raise ValueError(f"netlist {netlist.name} takes {plural(len(netlist.inputs), 'input')}, got {len(words)}")
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
class Parsed:
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


def assemble_netlist(p: Parsed) -> Netlist:
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


def check_line_breaks(text: str, file: str | None) -> None:
    """Refuse a lone CR (classic Mac OS line ends): every reader here, and the kernel's, breaks lines at LF
    (CRLF too), so such a file would read as one line, an "empty" file when it begins with a comment."""
    if text.count("\r") != text.count("\r\n"):
        at = re.search("\r(?!\n)", text).start()  # type: ignore[union-attr]  # there is one
        raise InputError("a carriage return (CR) that ends no CRLF: line breaks are LF or CRLF, not a lone CR "
                         "(classic Mac OS); convert the file, e.g. tr '\\r' '\\n'", file, text.count("\n", 0, at) + 1)


def check_text(text: str, file: str) -> None:
    """Reject NUL bytes and other binary junk, and lone CR line breaks, naming the line."""
    check_line_breaks(text, file)
    bad = re.search(r"[\x00-\x08\x0b\x0e-\x1f\x7f\ufffd]", text)
    if bad:
        line = text.count("\n", 0, bad.start()) + 1
        raise InputError(f"binary data (byte {ord(bad.group()):#04x}) in a text netlist", file, line)
    for other in re.finditer(r"[^\x00-\x7f]", text):  # C1 controls, bidirectional overrides: not in names
        if other.group().isspace():  # U+0085, U+2028, U+2029 …: separators, as both readers split on them
            continue
        problem = unprintable(other.group()) if other.start() or other.group() != "\ufeff" else None
        if problem:  # at the character's own column on its line (unprintable saw the one character: column 1)
            column = other.start() - text.rfind("\n", 0, other.start())
            raise InputError(problem.replace(" at column 1", f" at column {column}"), file,
                             text.count("\n", 0, other.start()) + 1)
