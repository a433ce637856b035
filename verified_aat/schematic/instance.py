"""``certify --every-k``: the construction's every-K theorem instantiated at one circuit (docs/soundness.md P10).

No per-circuit derivation: the schematic prover proves T_K for every circuit of the construction's class
(``prove_construction``, about a second for a built-in), the circuit's canonical structure goes into the
certificate's ``instance`` section, and the trusted kernel re-checks the schematic proof (P1–P9) and
instantiates it at that circuit (P10: the class, K = its depth).  So the certificate costs what reading the
circuit costs, at any size, and ``check`` needs neither the circuit file nor a derivation.  It covers the
construction's own T_K and any transformer the schematic prover proves for every circuit of depth ≤ its K;
anything else (an every-K claim that is refuted or unknown) is *unknown* here: the per-circuit route
(``certify`` without ``--every-k``) may still prove or refute this one circuit.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..circuits.ir import Circuit
from ..circuits.measures import depth as circuit_depth
from ..status import Status
from .prove import PROVED, REFUTED, SchematicResult, prove_construction

if TYPE_CHECKING:
    from ..constructions.base import Construction
    from ..kernel.report import Report
    from ..transformer.model import Transformer


@dataclass
class InstanceResult:
    """The outcome of ``certify --every-k`` (``va.certify(..., every_k=True)``): *proved* only when the kernel
    accepted the every-K certificate instantiated at ``circuit`` (or, with ``kernel`` off, the engine proved it)."""

    status: Status
    construction: str
    circuit: Circuit
    depth: int
    schematic: SchematicResult         # the every-K proof (or why there is none)
    certificate: dict[str, Any] | None = None
    theorem: str = ""
    kernel: str | None = None          # the kernel's outcome, "not checked by the kernel", or None (not reached)
    kernel_report: Report | None = None
    problems: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)

    def __repr__(self) -> str:
        from ..display import instance_repr
        return instance_repr(self)

    def _repr_html_(self) -> str:
        from ..display import instance_html
        return instance_html(self)


def certify_every_k(circuit: Circuit, construction: Construction, transformer: Transformer | None = None, *,
                    timeout_ms: int = 20_000, witness_budget: float = 60.0, kernel: bool = True) -> InstanceResult:
    """The every-K theorem of ``construction`` (for its own T_K, or for ``transformer`` at the K it is meant for)
    instantiated at ``circuit``, checked by the kernel; a circuit outside the class is an InputError."""
    from ..certificates.document import certificate_bytes, instance_section
    from ..circuits.ir import circuit_sha256

    clock = time.perf_counter()
    construction.check_class(circuit)  # InputError, as compile raises it on the per-circuit route
    depth = circuit_depth(circuit)
    proof = prove_construction(construction, None, transformer, timeout_ms, witness_budget)
    seconds = {"prove-construction": time.perf_counter() - clock}
    result = InstanceResult(Status.UNKNOWN, construction.name, circuit, depth, proof, seconds=seconds)
    if proof.status != PROVED:
        why = ("a witness circuit refutes it (verified-aat prove-construction shows the circuit and input)"
               if proof.status == REFUTED else "not proved: " + "; ".join(proof.problems[:3]))
        result.problems = [f"the every-K theorem of {construction.name} is {proof.status}: {why}; certify without "
                           "--every-k proves or refutes this one circuit"]
        return result
    if proof.depth_bound is not None and depth > proof.depth_bound:
        result.problems = [f"the circuit has depth {depth}; the transformer's theorem covers depth ≤ "
                           f"{proof.depth_bound}"]
        return result
    doc = dict(proof.certificate or {})
    t0 = time.perf_counter()
    doc["instance"] = instance_section(circuit)
    doc["info"] = {**doc.get("info", {}), "circuit": {"name": circuit.name, "gates": circuit.size, "depth": depth,
                                                      "sha256": circuit_sha256(circuit)}}
    seconds["certificate"] = time.perf_counter() - t0
    result.certificate = doc
    if not kernel:
        result.status, result.kernel = Status.PROVED, "not checked by the kernel"
        seconds["total"] = time.perf_counter() - clock
        return result
    from ..kernel import check_certificate
    from ..kernel.report import Options
    t0 = time.perf_counter()
    report = check_certificate(json.loads(certificate_bytes(doc)), Options(timeout_ms=timeout_ms))
    seconds["kernel"] = time.perf_counter() - t0
    seconds["total"] = time.perf_counter() - clock
    result.kernel, result.kernel_report = report.outcome, report
    if report.accepted:
        result.status, result.theorem = Status.PROVED, report.theorem
    else:  # the engine's proof is not the kernel's: unknown, and no certificate
        result.certificate = None
        result.problems = [f"the trusted kernel did not accept the certificate: {r}" for r in report.reasons[:4]]
    return result
