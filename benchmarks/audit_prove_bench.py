#!/usr/bin/env python
"""``audit --prove`` timing (issue 10, A1): the upper-bound certificate for compiled gate-edge T_6.

The workload is ``verified-aat audit -c gate-edge specs/circuits/mixed_depth6.circ --lengths 2..8
--prove`` (T_6: d = 5, 12 layers) and the same at N = 16, then ``check`` of the certificate.
Each case runs in a fresh process; CPU seconds include the solver worker processes.

    python benchmarks/audit_prove_bench.py [--quick]

:func:`prove_rows` returns one dict per case:
``lengths, lemmas, prove_s, prove_cpu_s, check_s, check_cpu_s, status, ok, target_s, met``
(target: N = 2..8 in 120 s wall on 2 cores).
"""

from __future__ import annotations

import resource
import sys
import time
from pathlib import Path
from typing import Any

from fresh_process import bench_main, run_fresh

ROOT = Path(__file__).resolve().parent.parent
CIRCUIT = ROOT / "specs" / "circuits" / "mixed_depth6.circ"
CASES = {"2..8": (list(range(2, 9)), 120.0), "16": ([16], None)}


def _cpu() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def measure_one(case: str) -> dict[str, Any]:
    """Prove (engine + kernel) and then check again with the kernel alone, in this process."""
    lengths, target = CASES[case]
    from verified_aat.audit.prove import prove_audit
    from verified_aat.circuits.io import load_circuit
    from verified_aat.constructions.registry import get_construction
    from verified_aat.kernel import check_certificate
    from verified_aat.kernel.report import Options

    transformer = get_construction("gate-edge").compile(load_circuit(str(CIRCUIT))).transformer
    t0, c0 = time.perf_counter(), _cpu()
    result = prove_audit(transformer, lengths, jobs=2)
    t1, c1 = time.perf_counter(), _cpu()
    report = check_certificate(result.certificate, Options(jobs=2)) if result.certificate else None
    t2, c2 = time.perf_counter(), _cpu()
    ok = result.status == "proved" and report is not None and report.accepted
    return {"lengths": case, "lemmas": result.lemmas, "prove_s": round(t1 - t0, 3), "prove_cpu_s": round(c1 - c0, 3),
            "check_s": round(t2 - t1, 3), "check_cpu_s": round(c2 - c1, 3), "status": result.status, "ok": ok,
            "target_s": target, "met": None if target is None else (t1 - t0) <= target}


def prove_rows(quick: bool) -> list[dict[str, Any]]:
    """One row per case (2..8 always, 16 unless ``quick``), each in a fresh Python process."""
    return [run_fresh(__file__, case, {"lengths": case, "status": "ERROR", "ok": False, "met": False})
            for case in (["2..8"] if quick else list(CASES))]


def main(argv: list[str]) -> int:
    return bench_main(argv, measure_one, prove_rows,
                      ["lengths", "lemmas", "prove_s", "prove_cpu_s", "check_s", "check_cpu_s", "status", "target_s",
                       "met"])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
