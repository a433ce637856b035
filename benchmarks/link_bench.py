"""Issue 19's netlist link rows: the link by binary steps (the default since stop 51) against the link by candidates
on every shared netlist, both modes, the kernel's link alone in this process, CPU seconds beside wall time.

Usage: ``python benchmarks/link_bench.py [--only NAME,...]``.  Each netlist is imported twice (``steps=True`` and
``steps=False``, the same linear construction); the rows time ``netlist_steps.step_report`` and
``netlist_link.link_report`` on the kernel's reading of the same circuit, with no solver trusted, and give each
section's size.  A row that is not accepted says why instead of a time.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "circuits"
sys.path.insert(0, str(ROOT))

from verified_aat.circuits.arithmetize import import_netlist  # noqa: E402
from verified_aat.circuits.json_format import canonical_circuit_bytes  # noqa: E402
from verified_aat.circuits.link_section import netlist_section  # noqa: E402
from verified_aat.kernel.context import Context  # noqa: E402
from verified_aat.kernel.data import load_circuit  # noqa: E402
from verified_aat.kernel.netlist_link import link_report  # noqa: E402
from verified_aat.kernel.netlist_steps import step_report  # noqa: E402
from verified_aat.kernel.report import Options  # noqa: E402


def _time(path: Path, mode: str, steps: bool) -> tuple[str, int]:
    """('CPU / wall s' or why not accepted, the section's JSON bytes)."""
    circuit = import_netlist(str(path), mode, steps=steps)
    section = netlist_section(circuit)
    ctx = Context({"netlist": section}, Options(solver_trust=False))
    ctx.circuit = load_circuit(json.loads(canonical_circuit_bytes(circuit)), "$.circuit",
                               extra_keys={"format", "version", "domain"})
    wall, cpu = time.perf_counter(), time.process_time()
    problems = (step_report(ctx) if steps else link_report(ctx)[:2])[0]
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    failed = [str(p) for p in problems] + ctx.unchecked
    return (failed[0][:60] if failed else f"{cpu:.2f} / {wall:.2f}"), len(json.dumps(section))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated file names (default: every shared netlist)")
    args = parser.parse_args()
    files = sorted(p for p in SHARED.rglob("*") if p.suffix in (".bench", ".blif", ".txt")
                   and not p.name.startswith(("LICENSE", "README")))
    if args.only:
        files = [p for p in files if p.name in args.only.split(",")]
    print("| netlist | mode | by steps, CPU / wall s | by candidates, CPU / wall s | section KB, steps / candidates |")
    print("|---|---|---|---|---|")
    for path in files:
        for mode in ("exact", "threshold"):
            (steps, s_bytes), (cands, c_bytes) = _time(path, mode, True), _time(path, mode, False)
            print(f"| {path.name} | {mode} | {steps} | {cands} | {s_bytes / 1000:.0f} / {c_bytes / 1000:.0f} |",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
