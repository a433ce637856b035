"""Issue 19's rows: ``check`` with no solver on the path to ACCEPTED against the kernel before issue 19 (Z3 on
every lemma), each run in a fresh process, CPU seconds beside wall time.

Usage: ``python benchmarks/trust_bench.py --old DIR [--repeat N]``, DIR a checkout of the kernel before issue 19
(``git worktree add DIR 2d11ad9^``).  Each checkout certifies c880 (gate-edge, exact arithmetization) and the
10⁵-gate inner-product itself, in its own certificate format; the every-K rows check each checkout's own
``proofs/constructions/*.every-K.schematic.json``.  Rows: the old kernel with Z3 (its only way), today's kernel
by default (its own normal forms and proof objects, the trust line names any lemma left to a solver) and with
``--no-solver-trust``; the ratio is today's default CPU over the old CPU (issue 19's target: ≤ 1.5).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

from check_bench import ROOT, SHARED, _cli  # the fresh-process runner, with the checkout to run
CERTIFY = [("c880", ["certify", str(SHARED / "iscas85" / "c880.bench"), "-c", "gate-edge"]),
           ("inner-product 10^5", ["certify", "--family", "inner-product", "--n", "33333", "-c", "gate-edge"])]
EVERY_K = ["gate-edge", "gate-edge-dot", "edge-only", "edge-k", "unique-hard", "unique-hard-left",
           "unique-hard-right"]


def _best(checkout: Path, args: list[str], repeat: int) -> tuple[float, float] | str:
    """(median wall, median CPU) of ``repeat`` runs, or what went wrong."""
    runs = []
    for _ in range(repeat):
        code, wall, cpu = _cli(args, checkout)
        if code != 0:
            return f"exit {code}"
        runs.append((wall, cpu))
    return statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", required=True, type=Path, help="a checkout of the kernel before issue 19")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    old = args.old.resolve()
    rows: list[tuple[str, list[tuple[float, float] | str]]] = []
    with tempfile.TemporaryDirectory() as tmp:
        cases = []
        for name, certify in CERTIFY:
            certs = []
            for tag, checkout in (("old", old), ("new", ROOT)):
                cert = str(Path(tmp) / f"{tag}-{name.split()[0]}.cert.json")
                code, _, _ = _cli([*certify, "-o", cert], checkout)
                if code != 0:
                    print(f"{name}: certify ({tag}) exited {code}", file=sys.stderr)
                    return 1
                certs.append(cert)
            cases.append((name, certs[0], certs[1]))
        for construction in EVERY_K:
            file = f"proofs/constructions/{construction}.every-K.schematic.json"
            if (old / file).exists():
                cases.append((f"{construction} every-K", str(old / file), str(ROOT / file)))
        for name, old_cert, new_cert in cases:
            print(f"{name} …", file=sys.stderr)
            rows.append((name, [_best(old, ["check", old_cert], args.repeat),
                                _best(ROOT, ["check", new_cert], args.repeat),
                                _best(ROOT, ["check", new_cert, "--no-solver-trust"], args.repeat)]))

    def cell(value: tuple[float, float] | str) -> str:
        return value if isinstance(value, str) else f"{value[1]:.2f} / {value[0]:.2f}"

    print("| certificate | before issue 19, Z3 (CPU / wall s) | today, default | today, --no-solver-trust | "
          "CPU ratio |")
    print("|---|---|---|---|---|")
    for name, (before, today, strict) in rows:
        ratio = f"{today[1] / before[1]:.2f}×" if not isinstance(before, str) and not isinstance(today, str) else "–"
        print(f"| {name} | {cell(before)} | {cell(today)} | {cell(strict)} | {ratio} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
