"""Bristol Fashion circuits (the MPC/FHE format of SCALE-MAMBA and others) as netlists.

A file is::

    G W                  # gates, wires
    niv n_1 … n_niv      # input values and their bit widths
    nov m_1 … m_nov      # output values and their bit widths
    k_in k_out in… out… TYPE     # one gate a line, in topological order

Wires are numbered 0 … W−1: the first n_1 + … + n_niv are the inputs, value after value,
the last m_1 + … + m_nov the outputs; every other wire is assigned once by a gate.  Within a
value, its j-th wire is bit j, bit 0 the least significant (as in the shared ``adder64``).
Gates: ``2 1 a b c XOR`` / ``AND``; ``1 1 a c INV`` (or ``NOT``); ``1 1 a c EQW`` (c := a);
``1 1 v c EQ`` (c := the constant v ∈ {0, 1}); ``2n n a_1…a_n b_1…b_n c_1…c_n MAND`` (n
ANDs, c_i := a_i ∧ b_i, in parallel: none reads another's c_j).  A gate reads only input wires and
wires assigned on earlier lines.  Blank lines are ignored.

The netlist names input value v's bit j ``in{v}_b{j}``, output value v's bit j
``out{v}_b{j}`` and any other wire ``w{i}``; INV is ``NOT``, EQW ``BUFF``, EQ ``CONST0``/
``CONST1``, MAND one AND per output wire.  An output wire that is also an input wire
(possible only when W is smaller than inputs + outputs) is refused.  The kernel reads the
format on its own (``kernel/netlist_parse.py``) with the same names.

``.txt`` is also the circuit text format's extension; a ``.txt`` file is read as Bristol
Fashion when its first non-blank line is two whole numbers (which no circuit text file can
start with), or when asked (``--format bristol``).
"""

from __future__ import annotations

import re

from ..errors import InputError
from .netlist_model import BoolGate, Netlist, Parsed, assemble_netlist, check_text
from ..wording import file_stem, plural

_ARITY = {"XOR": (2, 1), "AND": (2, 1), "INV": (1, 1), "NOT": (1, 1), "EQW": (1, 1), "EQ": (1, 1)}
_OPS = {"XOR": "XOR", "AND": "AND", "INV": "NOT", "NOT": "NOT", "EQW": "BUFF"}
_HEADER = re.compile(r"\s*[0-9]+\s+[0-9]+\s*\Z")
_NUMBER = re.compile(r"[0-9]{1,18}\Z")


def looks_like_bristol(text: str) -> bool:
    """Whether the first non-blank line is two whole numbers (a Bristol Fashion header)."""
    for line in text.split("\n"):
        if line.strip():
            return _HEADER.match(line) is not None
    return False


def _numbers(tokens: list[str], file: str, number: int, what: str) -> list[int]:
    if not tokens or any(not _NUMBER.match(t) for t in tokens):
        raise InputError(f"expected {what} (whole numbers), got {' '.join(tokens)[:60]!r}", file, number)
    return [int(t) for t in tokens]


def _widths(tokens: list[str], file: str, number: int, what: str) -> list[int]:
    values = _numbers(tokens, file, number, f"the number of {what} values and their bit widths")
    if values[0] != len(values) - 1:
        raise InputError(f"the line says {plural(values[0], what + ' value')} but gives "
                         f"{plural(len(values) - 1, 'width')}", file, number)
    if any(w == 0 for w in values[1:]):
        raise InputError(f"an {what} value has bit width 0", file, number)
    return values[1:]


# long because it is one pass over the format: three header lines, then the gate lines, each way a line
# can be malformed with its own file:line message.
def parse_bristol(text: str, file: str = "<bristol>") -> Netlist:
    """Parse a Bristol Fashion circuit (module docstring)."""
    check_text(text, file)
    lines = [(number, raw.split()) for number, raw in enumerate(text.split("\n"), start=1) if raw.strip()]
    if len(lines) < 3:
        raise InputError("a Bristol Fashion file needs three header lines (gates wires; inputs; outputs)", file,
                         lines[-1][0] if lines else None)
    (l1, head), (l2, ins), (l3, outs) = lines[:3]
    if len(head) != 2:
        raise InputError(f"expected 'gates wires' on the first line, got {' '.join(head)[:60]!r}", file, l1)
    n_gates, n_wires = _numbers(head, file, l1, "'gates wires'")
    if outs and outs[-1].isalpha() and len(ins) == 3:  # line 3 is a gate: the old format's one line of bit counts
        raise InputError("this looks like the old Bristol format (line 2: the two parties' input bits and the output "
                         "bits); convert it to Bristol Fashion (a line of input value widths, then one of output "
                         "value widths)", file, l2)
    in_widths, out_widths = _widths(ins, file, l2, "input"), _widths(outs, file, l3, "output")
    if not out_widths:
        raise InputError("the circuit has no outputs", file, l3)
    n_in, n_out = sum(in_widths), sum(out_widths)
    if n_in + n_out > n_wires:
        raise InputError(f"{n_in} input and {n_out} output wires do not fit in {plural(n_wires, 'wire')}", file, l1)
    if n_in + n_out > len(text):
        raise InputError(f"{n_in} input and {n_out} output wires are more than a file this short can use", file, l2)
    names: dict[int, str] = {}
    k = 0
    for v, width in enumerate(in_widths):
        for j in range(width):
            names[k], k = f"in{v}_b{j}", k + 1
    k = n_wires - n_out
    for v, width in enumerate(out_widths):
        for j in range(width):
            names[k], k = f"out{v}_b{j}", k + 1
    p = Parsed(file, file_stem(file, "netlist"), [(names[i], l2) for i in range(n_in)],
                [(names[i], l3) for i in range(n_wires - n_out, n_wires)], [])
    assigned: dict[int, int] = {}  # wire -> line
    for number, tokens in lines[3:]:
        kind = tokens[-1]
        counts = _numbers(tokens[:2], file, number, "'inputs outputs wires… TYPE'")
        if len(tokens) < 3 or len(counts) != 2 or len(tokens) != 3 + counts[0] + counts[1]:
            raise InputError(f"expected 'k_in k_out', k_in + k_out wires and a type, got {' '.join(tokens)[:60]!r}",
                             file, number)
        k_in, k_out = counts
        wires = _numbers(tokens[2:-1], file, number, "wire numbers") if len(tokens) > 3 else []
        if kind == "MAND":
            if k_out == 0 or k_in != 2 * k_out:
                raise InputError(f"MAND takes 2n input wires and n outputs, got {k_in} and {k_out}", file, number)
        elif kind not in _ARITY:
            raise InputError(f"unknown gate type {kind[:20]!r} (expected XOR, AND, INV, EQ, EQW or MAND)", file, number)
        elif (k_in, k_out) != _ARITY[kind]:
            raise InputError(f"{kind} takes {plural(_ARITY[kind][0], 'input wire')} and 1 output, got {k_in} and {k_out}",
                             file, number)
        sources, targets = wires[:k_in], wires[k_in:]
        if kind == "EQ":
            if sources[0] not in (0, 1):
                raise InputError(f"EQ assigns the constant 0 or 1, not {sources[0]}", file, number)
            sources = []
        for w in sources + targets:
            if w >= n_wires:
                raise InputError(f"wire {w} is out of range (the circuit has {plural(n_wires, 'wire')})", file, number)
        for w in targets:
            if w < n_in:
                raise InputError(f"gate assigns input wire {w} ({names[w]})", file, number)
            if w in assigned:
                raise InputError(f"wire {w} is assigned twice (first on line {assigned[w]})", file, number)
            assigned[w] = number
            names.setdefault(w, f"w{w}")
        for w in sources:  # assigned on an earlier line: a MAND's ANDs are parallel, none reads another's output
            if w >= n_in and assigned.get(w, number) == number:
                raise InputError(f"wire {w} is used before it is assigned", file, number)
        if kind == "MAND":
            n = k_out
            for i, c in enumerate(targets):
                p.gates.append((BoolGate(names[c], "AND", (names[sources[i]], names[sources[n + i]])), number))
        elif kind == "EQ":
            p.gates.append((BoolGate(names[targets[0]], "CONST1" if wires[0] else "CONST0"), number))
        else:
            p.gates.append((BoolGate(names[targets[0]], _OPS[kind], tuple(names[w] for w in sources)), number))
    if len(lines) - 3 != n_gates:
        raise InputError(f"the header says {plural(n_gates, 'gate')}, the file has {len(lines) - 3}", file, l1)
    for i in range(n_wires - n_out, n_wires):
        if i not in assigned:
            raise InputError(f"output wire {i} ({names[i]}) is never assigned", file, l3)
    return assemble_netlist(p)
