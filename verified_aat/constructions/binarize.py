"""Turn n-ary products (and, optionally, n-ary sums) into balanced binary trees."""

from __future__ import annotations

from dataclasses import dataclass

from ..circuits.builder import CircuitBuilder
from ..circuits.ir import Circuit, Gate, Kind
from ..circuits.measures import depth
from ..wording import plural


@dataclass(frozen=True)
class Binarized:
    circuit: Circuit
    depth_before: int
    depth_after: int
    gates_rewritten: int
    widest: int = 0  # the largest fan-in rewritten (0 when nothing was)
    roots: tuple[int, ...] = ()  # the gate of ``circuit`` that computes each gate of the original (its tree's root)

    @property
    def depth_increase(self) -> int:
        return self.depth_after - self.depth_before


def binarize(circuit: Circuit, sums: bool = False) -> Binarized:
    """Replace every mul of fan-in > 2 (and add of fan-in > 2 if ``sums``) by a
    balanced tree of binary gates; the tree's root keeps the gate's name."""
    b = CircuitBuilder(circuit.name, circuit.domain)
    new_index: list[int] = []
    rewritten = widest = 0
    for gate in circuit.gates:
        args = [new_index[a] for a in gate.args]
        kind = gate.kind
        if kind is Kind.MUL and len(args) > 2 or (sums and kind is Kind.ADD and len(args) > 2):
            rewritten += 1
            widest = max(widest, len(args))
            new_index.append(b.tree(kind, args, gate.name))
        elif kind is Kind.INPUT:
            new_index.append(b.input(gate.name))
        else:
            new_index.append(b.append(Gate(kind, tuple(args), gate.value, None, gate.name)))
    for out, name in zip(circuit.outputs, circuit.output_names or [None] * len(circuit.outputs)):
        b.output(new_index[out], name)
    result = b.build(circuit.provenance)
    return Binarized(result, depth(circuit), depth(result), rewritten, widest, tuple(new_index))


def describe_binarized(result: Binarized) -> str:
    """One line: what was rewritten, and that the depth (hence T_K) now depends on the widest gate."""
    text = (f"binarized: {plural(result.gates_rewritten, 'gate')} rewritten, depth {result.depth_before} → "
            f"{result.depth_after} (+{result.depth_increase})")
    if result.gates_rewritten:
        text += (f"; a tree of fan-in n has depth ⌈log₂ n⌉ (here n ≤ {result.widest}), so T_K now depends "
                 "on the circuit's widest gate, not only on its depth")
    return text


