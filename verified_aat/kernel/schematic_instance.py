"""P10: a schematic certificate's theorem instantiated at the circuit given with ``check --circuit FILE``.

The theorem holds for every circuit of the construction's class of depth ≤ K (for every K ≥ 1, or for the
certificate's K), so for the given circuit C it holds at K = max(1, depth(C)); with a fixed K, depth(C) ≤ K
is needed.  The kernel reads the file with its own reader (``circuit_file.py``), tests the class with the
encoding's own test (``encoding.check_class``) and takes the depth over all gates (``structure.depths``,
the depth of the schedule).  Nothing is derived per circuit: checking C costs reading it (the command's parser
reads it first, for bad input).  A circuit the theorem does not cover is *not checked*: the certificate is not at fault.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .circuit_file import read_circuit
from .layouts import OutsideLayout, check_class
from .rules import sha256_json
from .structure import depths


@dataclass(frozen=True)
class Instance:
    sha256: str    # of the circuit's canonical structure, as a per-circuit certificate's hashes.circuit
    gates: int
    outputs: int
    inputs: int
    depth: int
    K: int         # the K the theorem is instantiated at


def instantiate(ctx: Any) -> list[str]:
    """P10: the given circuit is in the class and within the depth bound; ``ctx.instance`` says at which K."""
    structure, C = read_circuit(*ctx.options.circuit_file[1:])
    try:
        check_class(ctx.construction, C)
    except OutsideLayout as exc:
        ctx.unchecked.append(f"the given circuit is not in the class the theorem covers: {exc}")
        return []
    depth = max(depths(C), default=0)
    if ctx.depth_bound is not None and depth > ctx.depth_bound:
        ctx.unchecked.append(f"the given circuit has depth {depth}; the theorem covers depth ≤ {ctx.depth_bound}")
        return []
    K = max(1, depth) if ctx.depth_bound is None else ctx.depth_bound
    ctx.instance = Instance(sha256_json(structure), len(C.gates), len(C.outputs), C.n_inputs, depth, K)
    return []


def instance_sentence(ctx: Any) -> str:
    """The theorem at the given circuit, appended to the schematic theorem."""
    i, name = ctx.instance, ctx.doc["construction"]
    T = f"T_{i.K}" if ctx.depth_bound is None else "T"
    return (f"; so, for the given circuit C (sha256 {i.sha256}, {i.gates} gates, {i.outputs} outputs, depth "
            f"{i.depth}) and every x ∈ R^{i.inputs}: {T} (K = {i.K}) on enc_{name}(C, x) reads out C(x)")
