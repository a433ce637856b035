"""Wide gates in the netlist link: one k-input AND/OR/NAND/NOR/XOR/XNOR gate (a generated .bench), certified with
gate-edge in each arithmetization and re-checked by the kernel with ``--no-solver-trust``; fresh processes, CPU
seconds beside wall time.

Usage: ``python benchmarks/wide_gates.py [--widths 16,32,64] [--old DIR]``, DIR an older checkout (e.g.
``git worktree add /tmp/old 0d22155``) whose kernel checks today's certificate too: its verdict shows what the
shifted coordinates (``kernel/netlist_decide.py``) changed.  A row's check is ``ACCEPTED`` (exit 0), ``NOT
CHECKED`` (3: a lemma past the limits, or left to a solver) or ``REJECTED`` (1).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from check_bench import _cli  # the fresh-process runner, with the checkout to run

OPS = ["AND", "OR", "NAND", "NOR", "XOR", "XNOR"]
VERDICT = {0: "ACCEPTED", 1: "REJECTED", 3: "NOT CHECKED"}


def _bench(folder: Path, op: str, k: int) -> Path:
    ins = [f"x{i}" for i in range(k)]
    path = folder / f"{op.lower()}{k}.bench"
    path.write_text("\n".join([f"INPUT({x})" for x in ins] + ["OUTPUT(g)", f"g = {op}({', '.join(ins)})"]) + "\n")
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--widths", default="16,32,64")
    parser.add_argument("--old", type=Path, help="an older checkout whose kernel checks the same certificates")
    args = parser.parse_args()
    widths = [int(w) for w in args.widths.split(",")]
    header = f"{'gate':6} {'k':>3} {'mode':9} | {'certify wall':>12} {'cpu':>6} | {'check wall':>10} {'cpu':>6} verdict"
    print(header + ("  | older kernel" if args.old else ""))
    print("-" * len(header))
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for op in OPS:
            for k in widths:
                netlist = _bench(Path(tmp), op, k)
                for mode in ("exact", "threshold"):
                    cert = Path(tmp) / f"{op}{k}{mode}.cert.json"
                    code, wall, cpu = _cli(["certify", str(netlist), "-c", "gate-edge", "--mode", mode,
                                            "--no-kernel", "-o", str(cert)])
                    if code != 0 or not cert.exists():
                        print(f"{op:6} {k:3} {mode:9} | certify exited {code}")
                        failed += 1
                        continue
                    check = ["check", str(cert), "--circuit", str(netlist), "--no-solver-trust"]
                    got, cwall, ccpu = _cli(check)
                    failed += got != 0
                    row = (f"{op:6} {k:3} {mode:9} | {wall:12.2f} {cpu:6.2f} | {cwall:10.2f} {ccpu:6.2f} "
                           f"{VERDICT.get(got, f'exit {got}')}")
                    if args.old:
                        old, owall, ocpu = _cli(check, args.old.resolve())
                        row += f"  | {VERDICT.get(old, f'exit {old}')} {owall:.2f} s wall {ocpu:.2f} s CPU"
                    print(row, flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
