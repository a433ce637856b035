#!/usr/bin/env python
"""Audit of a transformer with one large activation: ``verified-aat audit MODEL --lengths N``.

The model (built here) has one layer with one average head and an activation of GATES gates (a chain of adds
and products by 1/2 over x and the head's value), so U_N is about N·GATES gates.  What it measures is the cost
per sample that does not grow with N: reading the model file (the JSON line locator), compiling T's activation
for the exact engine (once per audit, not per sample) and evaluating it.  Each N in a fresh process.

    python benchmarks/audit_activation.py [--quick]
"""

from __future__ import annotations

import json
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from fresh_process import bench_main, run_fresh

GATES = 30_000
SAMPLES = 20


def model(gates: int = GATES) -> dict[str, Any]:
    lines, prev = ["g0 = const 1/2", "g1 = add x.v avg.v"], "g1"
    for k in range(2, gates):
        lines.append(f"g{k} = mul g0 {prev}" if k % 3 == 0 else f"g{k} = add {prev} {'x.w' if k % 3 == 1 else 'avg.w'}")
        prev = f"g{k}"
    lines.append(f"output x.k {prev} x.w")
    return {"coordinates": ["k", "v", "w"], "format": "verified-aat/transformer", "functions": {"big": lines},
            "layers": [{"activation": "big", "name": "L1", "heads": [{"name": "avg", "pooling": "average", "score": {
                "bilinear": {"i.k j.k": "2", "i.v j.v": "1"}}}]}], "name": "big-activation", "version": 1}


def measure_one(arg: str) -> dict[str, Any]:
    """Read the model from a one-line JSON file and audit it at length N, in this process."""
    n = int(arg)
    from verified_aat.audit import audit
    from verified_aat.transformer.spec import load_transformer

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.json"
        path.write_text(json.dumps(model()))
        t0, c0 = time.perf_counter(), time.process_time()
        transformer = load_transformer(path)
        read_cpu = time.process_time() - c0
        report = audit(transformer, [n], samples=SAMPLES)
    return {"N": n, "gates": report.rows[0].size, "read_cpu_s": round(read_cpu, 2),
            "wall_s": round(time.perf_counter() - t0, 2), "cpu_s": round(time.process_time() - c0, 2),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            "samples": report.rows[0].samples, "ok": report.ok}


def rows(quick: bool) -> list[dict[str, Any]]:
    return [run_fresh(__file__, str(n), {"N": n, "ok": False}) for n in ([2] if quick else [2, 3])]


if __name__ == "__main__":
    sys.exit(bench_main(sys.argv[1:], measure_one, rows,
                        ["N", "gates", "read_cpu_s", "wall_s", "cpu_s", "peak_rss_mb", "samples", "ok"]))
