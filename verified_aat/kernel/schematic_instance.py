"""P10 (docs/soundness.md): a schematic certificate's theorem instantiated at a circuit, the one its ``instance``
section embeds (``certify --every-k``) or one given with ``check --circuit FILE`` (with both, the same circuit)."""

from __future__ import annotations

from typing import Any

from .data import NotChecked, as_dict, counted, load_structure
from .layouts import OutsideLayout, check_class
from .problems import Problem
from .rules import sha256_json
from .structure import depths


def instantiate(ctx: Any) -> list[str | Problem]:
    """P10: the circuit is in the class and within the depth bound; ``ctx.instance``: the theorem at it (C by the
    hash of its canonical structure, as a per-circuit certificate's ``hashes.circuit``)."""
    if "instance" in ctx.doc:
        structure = as_dict(ctx.doc["instance"], "$.instance", {"circuit"})["circuit"]
        C = load_structure(structure, "$.instance.circuit")
    if ctx.options.circuit_file is not None:  # only then the file's reader
        from .circuit_file import read_circuit
        given, C_file = read_circuit(*ctx.options.circuit_file[1:])
        if "instance" in ctx.doc and given != structure:
            return [Problem("the given circuit is not the certificate's embedded circuit (structure hashes {given:16} "
                            "and {embedded:16})", {"given": sha256_json(given), "embedded": sha256_json(structure)})]
        structure, C = given, C_file
    try:
        check_class(ctx.construction, C)
    except OutsideLayout as exc:
        raise NotChecked(f"the given circuit is not in the class the theorem covers: {exc}") from None
    depth = max(depths(C), default=0)
    if ctx.depth_bound is not None and depth > ctx.depth_bound:
        raise NotChecked(f"the given circuit has depth {depth}; the theorem covers depth ≤ {ctx.depth_bound}")
    K = max(1, depth) if ctx.depth_bound is None else ctx.depth_bound
    ctx.instance = (f"; so, for the given circuit C (sha256 {sha256_json(structure)}, {counted(len(C.gates), 'gate')}, "
                    f"{counted(len(C.outputs), 'output')}, depth {depth}) and every x ∈ R^{C.n_inputs}: "
                    f"{'T' if ctx.depth_bound else f'T_{K}'} (K = {K}) on enc_{ctx.doc['construction']}(C, x) reads out C(x)")
    return []
