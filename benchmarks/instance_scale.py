"""Issue 22 by instantiation (P10): ``check EVERY_K_CERT --circuit FILE`` at 10⁵ and 10⁶ gates.

A schematic certificate proves the construction's T_K for every circuit of its class and depth ≤ K; the
kernel checks it (about a second) and instantiates it at the given circuit: its own reader, the class test
and the depth.  Nothing is derived per position, so the check costs about reading the circuit.  Each row
writes the family member as a text circuit file (``.circ``) in a separate process first (untimed), then times the
check in a fresh process: CPU seconds beside wall time, and the check process's peak RSS.

Usage: ``python benchmarks/instance_scale.py [--quick] [--ten7]`` (``--quick``: 10⁵ only; ``--ten7``: also
relu at 10⁷ gates with its first 10⁶ outputs, a few minutes to write and to check).
"""

from __future__ import annotations

import contextlib
import io
import resource
import subprocess
import sys
import tempfile
import time
from typing import Any

from fresh_process import ROOT, bench_main, run_fresh

SIZES = {"relu": {"10^5": 20_000, "10^6": 200_000, "10^7": 2_000_000},
         "inner-product": {"10^5": 33_333, "10^6": 333_333}, "random-fsac": {"10^5": 24_999, "10^6": 249_999}}
# --n giving about that many gates; 10^7 (relu, ``--ten7``) lifts the family's cap of n ≤ 10^6 and keeps the first
# 10^6 of its 2·10^6 outputs: the circuit formats allow at most 10^6 outputs (the other gates stay, dead)
CERTIFICATE = ROOT / "proofs" / "constructions" / "gate-edge.every-K.schematic.json"
KEYS = ["family", "gates", "circuit gates", "wall s", "CPU s", "peak RSS MB", "ok"]
WRITE = ("import dataclasses, sys; import verified_aat.circuits.families as F; "
         "from verified_aat.circuits.io import save_circuit; "
         "F.FAMILIES[sys.argv[1]] = dataclasses.replace(F.FAMILIES[sys.argv[1]], max_n=10**7); "
         "C = F.build_family(sys.argv[1], int(sys.argv[2])); "
         "C = dataclasses.replace(C, outputs=C.outputs[:10**6], output_names=C.output_names[:10**6]); "
         "save_circuit(C, sys.argv[3]); print(len(C.gates))")


def measure_one(arg: str) -> dict[str, Any]:
    family, size = arg.split("@")
    from verified_aat.cli.main import main
    with tempfile.TemporaryDirectory() as tmp:
        path = f"{tmp}/{family}.circ"
        written = subprocess.run([sys.executable, "-c", WRITE, family, str(SIZES[family][size]), path], check=True,
                                 cwd=ROOT, capture_output=True, text=True)
        before = resource.getrusage(resource.RUSAGE_SELF)
        t0 = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            code = main(["check", str(CERTIFICATE), "--circuit", path])
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_SELF)
    return {"family": family, "gates": size, "circuit gates": int(written.stdout.split()[-1]),
            "wall s": round(wall, 2), "CPU s": round(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, 2),
            "peak RSS MB": round(after.ru_maxrss / 1024), "ok": code == 0}


def rows(quick: bool) -> list[dict[str, Any]]:
    sizes = ["10^5"] if quick else ["10^5", "10^6"] + ["10^7"] * ("--ten7" in sys.argv)
    return [run_fresh(__file__, f"{family}@{size}", {"family": family, "gates": size, "ok": False})
            for size in sizes for family in SIZES if size in SIZES[family]]


if __name__ == "__main__":
    sys.exit(bench_main(sys.argv[1:], measure_one, rows, KEYS))
