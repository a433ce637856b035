"""Shared by the text and JSON formats: named definitions → a :class:`Circuit`, and back.

A reader collects :class:`Definition` records (in file order, forward
references allowed) and :func:`assemble` checks the references, orders the
gates topologically and builds the circuit.  The order is a stable
depth-first one: definitions keep their file order except that a gate used
before its definition is moved up just before its first user, so a file that
is already in topological order keeps its order exactly.  Inline rational
literals become anonymous const gates, one per value, placed just before
their first user.  :func:`gate_labels` gives every gate of a circuit a
unique, writable name for the printers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Sequence

from ..errors import InputError
from .ir import Circuit, Domain, Gate, Kind, Provenance

NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_.\[\]\-]*\Z", re.ASCII)

_FLOAT_WORDS = frozenset({"nan", "inf", "infinity"})
KEYWORDS = frozenset({"circuit", "domain", "arithmetization", "provenance", "input", "output"})
"""Statement keywords of the text format; they cannot name gates."""

Ref = str | Fraction
"""A reference to a gate: its name, or an inline rational literal."""


def is_valid_name(name: str) -> bool:
    """Whether ``name`` can be written in the text format (and does not read as a number)."""
    return (NAME_RE.match(name) is not None and name not in KEYWORDS
            and name.lower() not in _FLOAT_WORDS)  # 'nan', 'Infinity' read as numbers


@dataclass
class Definition:
    """One named gate as read from a file, before ordering."""

    name: str
    kind: Kind
    args: list[Ref] = field(default_factory=list)
    value: Fraction | None = None
    input_index: int | None = None
    line: int | None = None


@dataclass
class OutputRef:
    ref: Ref
    label: str
    line: int | None = None


def _cycle_text(cycle: Sequence[str], limit: int = 8) -> str:
    """``'a' uses 'c', 'c' uses 'b', 'b' uses 'a'`` (shortened for long cycles)."""
    steps = [f"'{a}' uses '{b}'" for a, b in zip(cycle, [*cycle[1:], cycle[0]])]
    if len(steps) > limit:
        steps = steps[:limit - 1] + [f"... ({len(steps) - limit} more) ...", steps[-1]]
    return ", ".join(steps)


# long because the topological order is one explicit-stack walk (no recursion on deep circuits) whose
# cycle report needs the stack it walks; splitting it would pass that state around.
def assemble(definitions: Sequence[Definition], outputs: Sequence[OutputRef], *, name: str,
             domain: Domain, provenance: Provenance | None, file: str | None,
             describe: Callable[[Definition], str] = lambda d: f"gate '{d.name}'") -> Circuit:
    """Check references, order topologically and build the circuit.

    Definitions must have unique names (the reader checks that, since it knows
    the lines).  Raises :class:`InputError` for undefined names and cycles.
    """
    by_name: dict[str, Definition] = {d.name: d for d in definitions}
    assert len(by_name) == len(definitions), "reader must reject duplicate names"
    for d in definitions:  # undefined names, reported in file order
        for ref in d.args:
            if isinstance(ref, str) and ref not in by_name:
                raise InputError(f"{describe(d)} uses undefined name '{ref}'", file, d.line)
    for out in outputs:
        if isinstance(out.ref, str) and out.ref not in by_name:
            raise InputError(f"output '{out.ref}' is not defined", file, out.line)

    gates: list[Gate] = []
    position: dict[str, int] = {}
    literal_position: dict[Fraction, int] = {}

    def literal(value: Fraction) -> int:
        if value not in literal_position:
            literal_position[value] = len(gates)
            gates.append(Gate(Kind.CONST, value=value))
        return literal_position[value]

    def emit(d: Definition) -> None:
        args = tuple(literal(a) if isinstance(a, Fraction) else position[a] for a in d.args)
        position[d.name] = len(gates)
        gates.append(Gate(d.kind, args, d.value, d.input_index, d.name))

    on_stack: set[str] = set()
    for root in definitions:
        if root.name in position:
            continue
        stack: list[tuple[Definition, int]] = [(root, 0)]
        on_stack.add(root.name)
        while stack:
            node, i = stack[-1]
            if i == len(node.args):
                stack.pop()
                on_stack.discard(node.name)
                emit(node)
                continue
            stack[-1] = (node, i + 1)
            ref = node.args[i]
            if isinstance(ref, Fraction):
                literal(ref)
            elif ref in position:
                continue
            elif ref in on_stack:
                names = [n.name for n, _ in stack]
                cycle = names[names.index(ref):]
                first = min(cycle, key=lambda n: (by_name[n].line or 0))
                k = cycle.index(first)
                cycle = cycle[k:] + cycle[:k]
                raise InputError(f"cycle among gates: {_cycle_text(cycle)}", file,
                                 by_name[first].line)
            else:
                on_stack.add(ref)
                stack.append((by_name[ref], 0))
    out_index = tuple(literal(o.ref) if isinstance(o.ref, Fraction) else position[o.ref]
                      for o in outputs)
    return Circuit(tuple(gates), out_index, name, domain,
                   tuple(o.label for o in outputs), provenance)


def _sanitized(name: str) -> str:
    text = re.sub(r"[^A-Za-z0-9_.\[\]\-]", "_", name)
    if not text or not (text[0].isalpha() or text[0] == "_") or not text[0].isascii():
        text = "n" + text
    return text if is_valid_name(text) else "n_" + text


def gate_labels(circuit: Circuit, valid: Callable[[str], bool] = is_valid_name) -> list[str]:
    """A unique name per gate: its own name when ``valid`` and not taken.

    Unnamed gates get ``g<index>`` (inputs ``x<i>``), invalid or duplicate
    names a sanitized variant; fresh names never clash with kept ones.
    """
    labels: list[str | None] = [None] * len(circuit.gates)
    taken: set[str] = set()
    for i, gate in enumerate(circuit.gates):
        if gate.name is not None and gate.name not in taken and valid(gate.name):
            labels[i] = gate.name
            taken.add(gate.name)
    for i, gate in enumerate(circuit.gates):
        if labels[i] is not None:
            continue
        if gate.name is not None:
            base = _sanitized(gate.name) if valid is is_valid_name else gate.name
        else:
            base = f"x{gate.index}" if gate.kind is Kind.INPUT else f"g{i}"
        label, k = base, 0
        while label in taken:
            k += 1
            label = f"{base}_{k}"
        labels[i] = label
        taken.add(label)
    return [label for label in labels if label is not None]
