#!/usr/bin/env python
"""Audit scaling (issue 8, goal "Audit"): ``verified-aat audit -c gate-edge`` at growing length N.

The workload is what ``verified-aat audit -c gate-edge specs/circuits/square_multi_edge.circ
--lengths N`` runs (T_2 of gate-edge: d = 5, 4 layers, 4 average heads; 20 seeded
tie-heavy samples): unroll into U_N (Θ(L·H·N³) gates), check the class, the exact
size formula layer by layer and the depth, and compare with the exact engine on
every sample.  Each N runs in a fresh process, so the peak RSS is that length's.

    python benchmarks/audit_scale.py [--quick]

:func:`audit_rows` returns one dict per N:
``N, gates, depth, wall_s, cpu_s, peak_rss_mb, samples, ok, target_s, met`` (targets:
N = 16 in 5 s, N = 32 in 60 s, wall clock; ``None`` where there is none).
"""

from __future__ import annotations

import resource
import sys
import time
from pathlib import Path
from typing import Any

from fresh_process import bench_main, run_fresh

ROOT = Path(__file__).resolve().parent.parent
CIRCUIT = ROOT / "specs" / "circuits" / "square_multi_edge.circ"
CONSTRUCTION = "gate-edge"
SAMPLES = 20
TARGETS_S = {16: 5.0, 32: 60.0}


def _lengths(quick: bool) -> list[int]:
    return [8, 16] if quick else [8, 16, 24, 32]


def measure_one(n: int, samples: int = SAMPLES) -> dict[str, Any]:
    """Audit the gate-edge transformer of CIRCUIT at length ``n`` in this process (times include the compile)."""
    t0, c0 = time.perf_counter(), time.process_time()
    from verified_aat.audit import audit
    from verified_aat.circuits.io import load_circuit
    from verified_aat.constructions.registry import get_construction

    transformer = get_construction(CONSTRUCTION).compile(load_circuit(str(CIRCUIT))).transformer
    report = audit(transformer, [n], samples=samples)
    row = report.rows[0]
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    target = TARGETS_S.get(n)
    return {"N": n, "gates": row.size, "depth": row.depth, "wall_s": round(wall, 3), "cpu_s": round(cpu, 3),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            "samples": row.samples, "ok": report.ok, "target_s": target,
            "met": None if target is None else wall <= target}


def audit_rows(quick: bool) -> list[dict[str, Any]]:
    """One row per N (8, 16; and 24, 32 unless ``quick``), each measured in a fresh Python process."""
    return [run_fresh(__file__, str(n), {"N": n, "gates": None, "depth": None, "wall_s": None, "cpu_s": None,
                                         "peak_rss_mb": None, "samples": 0, "ok": False,
                                         "target_s": TARGETS_S.get(n), "met": False})
            for n in _lengths(quick)]


def main(argv: list[str]) -> int:
    return bench_main(argv, lambda arg: measure_one(int(arg)), audit_rows,
                      ["N", "gates", "depth", "wall_s", "cpu_s", "peak_rss_mb", "samples", "ok", "target_s", "met"])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
