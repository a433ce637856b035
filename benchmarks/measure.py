"""Measurements shared by the benchmark sections: certify + check one circuit, size families."""

from __future__ import annotations

import gc
import json
import time
from typing import Any

from verified_aat.api import certificate
from verified_aat.certificates.document import dumps_certificate
from verified_aat.kernel import Options, check_certificate
from verified_aat.circuits.families import FAMILIES, build_family
from verified_aat.circuits.ir import Circuit
from verified_aat.circuits.measures import depth
from verified_aat.constructions.registry import get_construction
from verified_aat.symbolic.certify import certify


def n_for_gates(family: str, target: int) -> int:
    """The member ``n`` whose gate count is nearest ``target`` (gate counts are affine in n)."""
    fam = FAMILIES[family]
    lo = max(fam.min_n, 8)
    g1, g2 = build_family(family, lo).size, build_family(family, 2 * lo).size
    slope = (g2 - g1) / lo
    n = round((target - (g1 - slope * lo)) / slope)
    return max(fam.min_n, min(fam.max_n, n))


def measure_certify(circuit: Circuit, construction: str = "gate-edge", timeout_ms: int = 10_000,
                    jobs: int = 1) -> dict[str, Any]:
    """Certify ``circuit``, write the certificate as JSON text, parse it back and check it with z3.

    Times: ``certify_s`` is the :func:`certify` call alone; ``write_s`` is
    building and serialising the certificate; ``check_s`` (``check_cpu_s``: CPU) the trusted kernel on the
    parsed-back document.  ``ok`` is True iff proved and accepted.
    """
    row: dict[str, Any] = {"gates": circuit.size, "edges": circuit.n_edges, "depth": depth(circuit)}
    t0 = time.perf_counter()
    result = certify(circuit, get_construction(construction), timeout_ms=timeout_ms, jobs=jobs)
    row["certify_s"] = time.perf_counter() - t0
    row.update(positions=result.encoding.length, layers=result.transformer.n_layers,
               lemmas=len(result.derivation.lemmas), solver_calls=result.solver_calls,
               nf_proofs=sum(1 for v in result.verdicts.values() if v.solver == "normal-form"),
               phases={k: round(v, 4) for k, v in result.seconds.items()},
               certify_status=result.status, problems=list(result.problems[:5]))
    row["certify_us_per_gate"] = row["certify_s"] / circuit.size * 1e6
    if result.status != "proved":
        row.update(status=f"{result.status.upper()} (not checked)", ok=False, check_s=None, cert_mb=None)
        return row
    t0 = time.perf_counter()
    text = dumps_certificate(certificate(result, circuit=circuit))  # with the netlist link for netlists
    row["write_s"] = time.perf_counter() - t0
    row["cert_mb"] = len(text.encode("utf-8")) / 1e6
    del result
    doc = json.loads(text)
    del text
    gc.collect()
    t0, c0 = time.perf_counter(), time.process_time()
    report = check_certificate(doc, Options(solvers=("z3",), timeout_ms=timeout_ms))
    row["check_s"] = time.perf_counter() - t0
    row["check_cpu_s"] = time.process_time() - c0
    row["check_defence"] = report.defence
    row["check_us_per_gate"] = row["check_s"] / circuit.size * 1e6
    row["check_reasons"] = list(report.reasons[:5])
    row["check_solver_runs"] = report.solver_runs
    row["ok"] = report.accepted
    row["status"] = "proved/accepted" if report.accepted else "proved/REJECTED"
    del doc
    gc.collect()
    return row


def failure_text(what: str, row: dict[str, Any]) -> str:
    reasons = row.get("problems") or row.get("check_reasons") or [row.get("error", "")]
    return f"{what}: {row.get('status')}: " + "; ".join(str(r) for r in reasons if r)
