"""Issue 22 by the every-K theorem: ``certify --every-k`` and ``check`` of its certificate at 10⁵–10⁷ gates.

``certify CIRCUIT -c gate-edge --every-k`` proves gate-edge's T_K for every circuit of the class (about a second),
embeds the circuit in the certificate and ends with the kernel's check (P1–P10); ``check CERT`` re-checks it with
nothing else given.  Nothing is derived per position, so both cost about reading the circuit.  Each measurement is
a fresh process (peak RSS its own); CPU seconds are user + system.  ``certify`` builds the family member in the
process, as ``certify --family NAME --n N`` does, and writes the certificate; ``check`` reads it.

Usage: ``python benchmarks/every_k_scale.py [--quick] [--ten7]`` (``--quick``: 10⁵ only; ``--ten7``: also relu
at 10⁷ gates, n = 2·10⁶ past the family's cap of n ≤ 10⁶, a few minutes).
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import os
import resource
import sys
import tempfile
import time
from typing import Any

from fresh_process import bench_main, run_fresh

SIZES = {"relu": {"10^5": 20_000, "10^6": 200_000, "10^7": 2_000_000},
         "inner-product": {"10^5": 33_333, "10^6": 333_333}, "random-fsac": {"10^5": 24_999, "10^6": 249_999}}
KEYS = ["family", "gates", "circuit gates", "certify wall s", "certify CPU s", "certify peak MB", "certificate MB",
        "check wall s", "check CPU s", "check peak MB", "ok"]
CERTS = os.path.join(tempfile.gettempdir(), "every_k_scale")


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def measure_one(arg: str) -> dict[str, Any]:
    """``certify:FAMILY@SIZE`` or ``check:FAMILY@SIZE`` (the certificate the certify row wrote)."""
    job, case = arg.split(":")
    family, size = case.split("@")
    path = os.path.join(CERTS, f"{family}-{size}.every-k.json")
    w0, c0 = time.perf_counter(), _cpu()
    if job == "certify":
        import verified_aat as va
        import verified_aat.circuits.families as F
        from verified_aat.certificates.document import write_certificate
        F.FAMILIES[family] = dataclasses.replace(F.FAMILIES[family], max_n=10**7)
        circuit = F.build_family(family, SIZES[family][size])
        result = va.certify(circuit, "gate-edge", every_k=True)
        os.makedirs(CERTS, exist_ok=True)
        if result.certificate is not None:
            write_certificate(result.certificate, path)
        ok, gates = result.status == "proved" and result.kernel == "accepted", circuit.size
    else:
        from verified_aat.cli.main import main
        with contextlib.redirect_stdout(io.StringIO()):
            ok, gates = main(["check", path]) == 0, None
    row = {f"{job} wall s": round(time.perf_counter() - w0, 2), f"{job} CPU s": round(_cpu() - c0, 2),
           f"{job} peak MB": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024), "ok": ok}
    if gates is not None:
        row.update({"circuit gates": gates, "certificate MB": round(os.path.getsize(path) / 2**20, 1)})
    return row


def rows(quick: bool) -> list[dict[str, Any]]:
    sizes = ["10^5"] if quick else ["10^5", "10^6"] + ["10^7"] * ("--ten7" in sys.argv)
    table = []
    for size in sizes:
        for family in (f for f in SIZES if size in SIZES[f]):
            base = {"family": family, "gates": size, "ok": False}
            made = run_fresh(__file__, f"certify:{family}@{size}", base)
            checked = run_fresh(__file__, f"check:{family}@{size}", base)
            table.append({**base, **made, **checked, "ok": made["ok"] and checked["ok"]})
    return table


if __name__ == "__main__":
    sys.exit(bench_main(sys.argv[1:], measure_one, rows, KEYS))
