"""certify and check with the derivation sharded on a Dask LocalCluster: 1 process vs 2 and 3 workers.

Usage: ``python benchmarks/shards_bench.py [--quick]`` (``--quick``: 10⁵ gates only).  Each row runs in a
fresh process: certify (the engine, then the kernel's check) of the relu family on gate-edge, with the
shards of ``spec``.  Columns: wall and CPU seconds of this process and of the workers (from each worker's
``getrusage``; ``fork:N``, ``--jobs N`` on one machine, counts its children in this process's
CPU), bytes of shared inputs scattered to
the workers (both derivations), the workers' peak RSS,
and the certificate's sha256 (equal in every row of one size: byte-identical for any cluster size).
"""

from __future__ import annotations

import hashlib
import resource
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fresh_process import bench_main, run_fresh  # noqa: E402

SIZES = {"10^5": 20_000, "10^6": 200_000}  # relu --n giving that many gates


def _usage() -> tuple[float, int]:
    u = resource.getrusage(resource.RUSAGE_SELF)
    return u.ru_utime + u.ru_stime, u.ru_maxrss * 1024


def _children_cpu() -> float:
    u = resource.getrusage(resource.RUSAGE_CHILDREN)
    return u.ru_utime + u.ru_stime


def measure_one(arg: str) -> dict[str, Any]:
    size, spec = arg.split("@")
    from verified_aat.certificates.document import build_certificate, certificate_bytes
    from verified_aat.circuits.families import build_family
    from verified_aat.constructions.registry import get_construction
    from verified_aat.kernel import Options, check_certificate
    from verified_aat.shards import sharding
    from verified_aat.symbolic.certify import certify
    import json

    circuit = build_family("relu", SIZES[size])
    wall0, cpu0 = time.perf_counter(), time.process_time()
    cluster, jobs = (None, 1) if spec == "1 process" else (None, int(spec[5:])) if spec.startswith("fork:") \
        else (spec, 1)
    with sharding(cluster, jobs) as shards:
        result = certify(circuit, get_construction("gate-edge"), refute=False, shards=shards)
        doc = json.loads(certificate_bytes(build_certificate(result, include_timings=False)))
        wall1 = time.perf_counter()
        report = check_certificate(doc, Options(shards=shards))
        wall2 = time.perf_counter()
        workers = shards.client().run(_usage) if cluster is not None else {}  # forked children: in this process's
        moved = shards.moved_bytes if shards is not None else 0
        own = time.process_time() - cpu0 + _children_cpu()  # forked children are reaped by now; Dask's are not
    assert report.accepted, report.reasons
    return {"gates": size, "shards": spec, "certify+check wall s": round(wall2 - wall0, 2),
            "of which check": round(wall2 - wall1, 2), "this process CPU s": round(own, 2),
            "workers CPU s": round(sum(c for c, _ in workers.values()), 2),
            "scattered MB": round(moved / 2**20, 1),
            "worker peak RSS MB": round(max((r for _, r in workers.values()), default=0) / 2**20),
            "certificate sha256": hashlib.sha256(certificate_bytes(doc)).hexdigest()[:16], "ok": True}


def rows(quick: bool) -> list[dict[str, Any]]:
    sizes = ["10^5"] if quick else list(SIZES)
    return [run_fresh(__file__, f"{size}@{spec}", {"gates": size, "shards": spec, "ok": False})
            for size in sizes for spec in ("1 process", "fork:2", "local:2", "local:3")]


if __name__ == "__main__":
    raise SystemExit(bench_main(sys.argv[1:], measure_one, rows,
                                ["gates", "shards", "certify+check wall s", "of which check", "this process CPU s",
                                 "workers CPU s", "scattered MB", "worker peak RSS MB", "certificate sha256"]))
