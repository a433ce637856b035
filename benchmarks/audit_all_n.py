#!/usr/bin/env python
"""``audit --prove`` for every N: the all-N audit certificate (U_N = T for every length N ≥ 1), timed.

Rows, each measured in a fresh Python process (:mod:`fresh_process`):

* every construction of ``verified_aat.constructions.registry.CONSTRUCTIONS`` at K = 2 … 6 (its T_K,
  ``construction.transformer(K)``, the transformer for every circuit of depth ≤ K);
* the two hand-written specs of ``specs/transformers/`` (mixed poolings; bilinear scores);
* the round trip C → T_K → U_N of c880 (ISCAS-85, 383 gates, N = 1955) via gate-edge, and of a 10⁴-gate
  family member (inner-product, n = 4096, 12,289 gates, N = 24,577), one row per link: link 1 (T_K
  simulates C, the per-circuit certificate), link 2 (the all-N certificate), link 3 (by composition:
  U_N has ~10¹² gates and is not built) — then the whole round trip.

*prove* is :func:`verified_aat.audit.prove_all_n.prove_all_n` (the engine builds the certificate and the
kernel checks it once); *check* is :func:`verified_aat.kernel.check_certificate` on a fresh JSON copy
(``json.loads(json.dumps(cert))``).  CPU seconds are this process's plus its finished children's (the
solver workers).  *size* is the kernel's size of U_N as a polynomial in N (constants included), *depth*
U_N's depth for every N ≥ 2, both from the certificate's measures.

    python benchmarks/audit_all_n.py [--quick]     # --quick: K = 2, 3 only, and the c880 round trip
"""

from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path
from typing import Any

from fresh_process import bench_main, run_fresh

ROOT = Path(__file__).resolve().parent.parent
SPECS = ROOT / "specs" / "transformers"
C880 = ROOT.parent / "shared" / "circuits" / "iscas85" / "c880.bench"
KS = range(2, 7)
ROUND_TRIPS = {"c880": ("netlist", str(C880)), "inner-product-4096": ("family", "inner-product:4096")}
KEYS = ["case", "prove_cpu_s", "prove_s", "check_cpu_s", "check_s", "lemmas", "size", "depth", "status"]


def _cpu() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


class _Timer:
    def __enter__(self) -> "_Timer":
        self.wall, self.cpu = time.perf_counter(), _cpu()
        return self

    def __exit__(self, *_: Any) -> None:
        self.wall, self.cpu = time.perf_counter() - self.wall, _cpu() - self.cpu


def _check(doc: dict[str, Any]) -> tuple[Any, _Timer]:
    from verified_aat.kernel import check_certificate
    from verified_aat.kernel.report import Options
    copy = json.loads(json.dumps(doc))
    with _Timer() as timer:
        report = check_certificate(copy, Options(jobs=2))
    return report, timer


def _measures(doc: dict[str, Any]) -> tuple[str, int]:
    from verified_aat.kernel.audit_family import size_text
    return size_text(doc["measures"]), doc["measures"]["depth"]


def _all_n_row(case: str, transformer: Any) -> dict[str, Any]:
    from verified_aat.audit.prove_all_n import prove_all_n
    with _Timer() as prove:
        result = prove_all_n(transformer, jobs=2)
    row: dict[str, Any] = {"case": case, "prove_s": round(prove.wall, 3), "prove_cpu_s": round(prove.cpu, 3),
                           "lemmas": result.lemmas, "status": result.status, "ok": False}
    if result.certificate is None:
        return row | {"error": "; ".join(result.reasons)[:200]}
    report, check = _check(result.certificate)
    size, depth = _measures(result.certificate)
    return row | {"check_s": round(check.wall, 3), "check_cpu_s": round(check.cpu, 3), "size": size, "depth": depth,
                  "status": f"{result.status}/{'accepted' if report.accepted else 'REJECTED'}", "ok": report.accepted}


def _round_trip_rows(name: str) -> list[dict[str, Any]]:
    from verified_aat.audit.round_trip import round_trip
    from verified_aat.circuits.families import build_family
    from verified_aat.circuits.io import load_circuit
    kind, source = ROUND_TRIPS[name]
    if kind == "netlist":
        circuit = load_circuit(source)
    else:
        family, n = source.split(":")
        circuit = build_family(family, int(n))
    with _Timer() as whole:
        result = round_trip(circuit, "gate-edge", keep_certificates=True, jobs=2)
    seconds = result.seconds
    head = f"{name} round trip (N = {result.n_positions:,}, T_K {result.layers} layers)"
    rows = []
    lower = result.certificates.get("lower_bound")
    audit = result.certificates.get("audit")
    wall, cpu = seconds.get("lower bound", (0.0, 0.0))
    row: dict[str, Any] = {"case": f"{head}: link 1, T_K simulates C", "prove_s": round(wall, 3),
                           "prove_cpu_s": round(cpu, 3), "status": result.lower_bound, "ok": False}
    if lower is not None:
        report, check = _check(lower)
        row |= {"check_s": round(check.wall, 3), "check_cpu_s": round(check.cpu, 3), "lemmas": report.lemmas,
                "status": f"{result.lower_bound}/{'accepted' if report.accepted else 'REJECTED'}",
                "ok": report.accepted}
    rows.append(row)
    wall, cpu = seconds.get("audit proof", (0.0, 0.0))
    row = {"case": f"{head}: link 2, U_N = T_K ({result.audit_method})", "prove_s": round(wall, 3),
           "prove_cpu_s": round(cpu, 3), "lemmas": result.audit_lemmas, "status": result.audit, "ok": False}
    if audit is not None:
        report, check = _check(audit)
        size, depth = _measures(audit)
        row |= {"check_s": round(check.wall, 3), "check_cpu_s": round(check.cpu, 3), "size": size, "depth": depth,
                "status": f"{result.audit}/{'accepted' if report.accepted else 'REJECTED'}", "ok": report.accepted}
    rows.append(row)
    phases = [p for p in seconds if p not in ("lower bound", "audit proof")]
    rows.append({"case": f"{head}: link 3, U_N(enc(C, x)) = C(x) ({result.method}; U_N "
                         f"{result.unrolled_gates:,} gates, {'built' if result.unrolled_built else 'not built'})",
                 "prove_s": round(sum(seconds[p][0] for p in phases), 3),
                 "prove_cpu_s": round(sum(seconds[p][1] for p in phases), 3), "status": result.identity,
                 "ok": result.identity == "proved"})
    rows.append({"case": f"{head}: whole round trip", "prove_s": round(whole.wall, 3),
                 "prove_cpu_s": round(whole.cpu, 3), "status": result.status,
                 "check_s": round(sum(r.get("check_s", 0) for r in rows), 3),
                 "check_cpu_s": round(sum(r.get("check_cpu_s", 0) for r in rows), 3),
                 "ok": result.status == "proved" and all(r["ok"] for r in rows)})
    return rows


def measure_one(case: str) -> dict[str, Any]:
    """One case in this process: ``con:NAME:K``, ``spec:FILE`` or ``rt:NAME`` (its rows under ``rows``)."""
    kind, _, rest = case.partition(":")
    if kind == "con":
        from verified_aat.constructions.registry import get_construction
        name, k = rest.rsplit(":", 1)
        return _all_n_row(f"{name} T_{k}", get_construction(name).transformer(int(k)))
    if kind == "spec":
        from verified_aat.transformer.spec import load_transformer
        return _all_n_row(f"specs/transformers/{rest}", load_transformer(SPECS / rest))
    rows = _round_trip_rows(rest)
    return {"rows": rows, "ok": all(r["ok"] for r in rows)}


def cases(quick: bool) -> list[str]:
    from verified_aat.constructions.registry import CONSTRUCTIONS
    ks = KS if not quick else range(2, 4)
    out = [f"con:{name}:{k}" for name in CONSTRUCTIONS for k in ks]
    out += [f"spec:{name}" for name in ("mixed_pooling.json", "bilinear_scores.json")]
    return out + [f"rt:{name}" for name in (ROUND_TRIPS if not quick else ["c880"])]


def all_n_rows(quick: bool) -> list[dict[str, Any]]:
    """Every row, each case in a fresh process (a round trip gives one row per link and one in all)."""
    rows: list[dict[str, Any]] = []
    for case in cases(quick):
        got = run_fresh(__file__, case, {"case": case, "status": "ERROR", "ok": False})
        rows.extend(got["rows"] if "rows" in got else [got])
    return rows


def main(argv: list[str]) -> int:
    return bench_main(argv, measure_one, all_n_rows, KEYS)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
