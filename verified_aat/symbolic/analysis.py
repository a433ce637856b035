"""Static facts about layer functions: which inputs each output reads.

The symbolic engine keeps structural coordinates concrete.  What an
obligation depends on is decided here: a value output's lemma gets numerals
for the structural inputs its cone reads and free variables for all others.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ..circuits.ir import Circuit, Kind
from ..circuits.smtlib import cone


@dataclass(frozen=True)
class OutputReads:
    """For one circuit output: the input indices its cone reads, and whether it
    is just the wire of one input (``identity_of``)."""

    inputs: frozenset[int]
    identity_of: int | None


@lru_cache(maxsize=256)
def output_reads(circuit: Circuit) -> tuple[OutputReads, ...]:
    result = []
    for out in circuit.outputs:
        gates = cone(circuit, [out])
        inputs = frozenset(circuit.gates[g].index for g in gates if circuit.gates[g].kind is Kind.INPUT)
        root = circuit.gates[out]
        identity = root.index if root.kind is Kind.INPUT else None
        result.append(OutputReads(inputs, identity))  # type: ignore[arg-type]
    return tuple(result)


def reads_of(circuit: Circuit, outputs: list[int] | None = None) -> frozenset[int]:
    """Union of the inputs read by the given outputs (all outputs by default)."""
    infos = output_reads(circuit)
    chosen = range(len(infos)) if outputs is None else outputs
    out: set[int] = set()
    for i in chosen:
        out |= infos[i].inputs
    return frozenset(out)
