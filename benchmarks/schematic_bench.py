"""Schematic proofs (``prove-construction``): time per construction and K, prover and kernel.

Each row proves T_K (or every K) with the prover, then re-checks the certificate with the trusted
kernel (Z3), in this process; CPU seconds include the solver (it runs in-process).
"""

from __future__ import annotations

import time
from typing import Any

from verified_aat.kernel import check_certificate
from verified_aat.schematic.prove import schematic_builtins
from verified_aat.schematic import prove_construction


def schematic_rows(quick: bool) -> list[dict[str, Any]]:
    """One row per construction and K (every K, then 1..8; with ``quick`` every K and K = 8 only)."""
    rows = []
    bounds: list[int | None] = [None, 8] if quick else [None, *range(1, 9)]
    for name in schematic_builtins():
        for k in bounds:
            result = prove_construction(name, k)
            row: dict[str, Any] = {"construction": name, "K": "every" if k is None else k, "lemmas": result.lemmas,
                                   "prove_s": result.seconds, "prove_cpu_s": result.cpu_seconds,
                                   "status": result.status, "ok": result.status == "proved"}
            if result.certificate is not None:
                wall, cpu = time.perf_counter(), time.process_time()
                report = check_certificate(result.certificate)
                row.update(check_s=time.perf_counter() - wall, check_cpu_s=time.process_time() - cpu,
                           accepted=report.accepted)
                row["ok"] = report.accepted
            rows.append(row)
    return rows
