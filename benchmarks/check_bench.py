"""The kernel's `check` on fixed certificates: wall and CPU seconds, each run in a fresh process.

Usage: ``python benchmarks/check_bench.py [--repeat N] [--keep DIR]``.  Certifies c880 (the shared
ISCAS-85 netlist, gate-edge, exact arithmetization) and the 10⁵-gate inner-product (gate-edge) once,
then times ``verified-aat check CERT`` N times (default 3) in fresh processes and prints the best
and median of each.  Run it from two checkouts on the same certificates (``--keep DIR`` writes them
there, ``--certificates DIR`` reuses them) to compare kernels: the issue 17 budget is 1.2×.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "circuits"
CASES = [("c880", ["certify", str(SHARED / "iscas85" / "c880.bench"), "-c", "gate-edge"]),
         ("inner-product 10^5", ["certify", "--family", "inner-product", "--n", "33333", "-c", "gate-edge"])]


def _cli(args: list[str], checkout: Path = ROOT) -> tuple[int, float, float]:
    """Run the command line of ``checkout`` in a fresh process: (exit code, wall seconds, CPU seconds of the child)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    code = subprocess.run([sys.executable, "-m", "verified_aat.cli.main", *args], cwd=checkout,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                          env={**os.environ, "PYTHONPATH": str(checkout)}).returncode
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return code, wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", metavar="DIR", help="write the certificates here")
    parser.add_argument("--certificates", metavar="DIR", help="reuse the certificates written with --keep")
    args = parser.parse_args()
    folder = Path(args.certificates or args.keep or "/tmp/verified-aat-check-bench")
    folder.mkdir(parents=True, exist_ok=True)
    rows = []
    for name, certify in CASES:
        cert = folder / f"{name.split()[0]}.cert.json"
        if not args.certificates:
            code, wall, cpu = _cli([*certify, "-o", str(cert)])
            if code != 0:
                print(f"{name}: certify exited {code}", file=sys.stderr)
                return 1
        runs = []
        for _ in range(args.repeat):
            code, wall, cpu = _cli(["check", str(cert)])
            if code != 0:
                print(f"{name}: check exited {code}", file=sys.stderr)
                return 1
            runs.append((wall, cpu))
        walls, cpus = [w for w, _ in runs], [c for _, c in runs]
        rows.append((name, min(walls), statistics.median(walls), min(cpus), statistics.median(cpus)))
    print(f"{'certificate':<20} {'wall best':>10} {'wall median':>12} {'CPU best':>9} {'CPU median':>11}")
    for name, wb, wm, cb, cm in rows:
        print(f"{name:<20} {wb:>9.2f}s {wm:>11.2f}s {cb:>8.2f}s {cm:>10.2f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
