"""What a circuit's structure alone says: depths, cones and the inputs a cone reads (no evaluation: the schematic
and audit checkers do not run :mod:`.circuits`)."""

from __future__ import annotations

from typing import Sequence

from .data import Bilinear, Circuit


def depths(circuit: Circuit) -> list[int]:
    """depth(input) = depth(const) = 0, depth(g) = 1 + max depth(args) (an empty add: 1)."""
    out: list[int] = []
    for gate in circuit.gates:
        if gate.op in ("input", "const"):
            out.append(0)
        else:
            out.append(1 + max(map(out.__getitem__, gate.args), default=0))
    return out


def cone(circuit: Circuit, roots: Sequence[int]) -> list[int]:
    """The gates the roots depend on, in increasing (topological) order."""
    seen: set[int] = set()
    stack = list(roots)
    while stack:
        g = stack.pop()
        if g not in seen:
            seen.add(g)
            stack.extend(circuit.gates[g].args)
    return sorted(seen)


def reads(circuit: Circuit, roots: Sequence[int]) -> set[int]:
    """The input indices in the cone of the roots (a sound over-approximation of what they read)."""
    return {circuit.gates[g].index for g in cone(circuit, roots) if circuit.gates[g].op == "input"}  # type: ignore[misc]


def score_reads(score: Circuit | Bilinear, d: int) -> set[int]:
    """Coordinates (of either vector) the score may read."""
    if isinstance(score, Bilinear):
        return {r for r, _, _ in score.entries} | {c for _, c, _ in score.entries}
    return {k % d for k in reads(score, list(score.outputs))}
