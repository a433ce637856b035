"""Exact runs of real netlists (exact arithmetization, gate-edge): the settled run against ``eval``.

Usage: ``python benchmarks/exact_netlists.py [--full-below GATES] [--only TEXT]``.  Each row compiles a netlist of
``../shared/circuits/`` (or a generated stand-in for one the issue names that is not there: a c6288-like 16×16
NOR multiplier, and a mult64-like 64×64 array multiplier of textbook XOR full adders, with all 128 product bits
where Bristol's mult64 keeps 64), runs T exactly on two
seeded 0/1 vectors in this process, and prints CPU seconds beside wall time per run, whether the run
was settled (``stats.settled``) and whether the read-out equals the circuit's own evaluation.  The full
run (every value, also at positions that have not settled) is timed too below ``--full-below`` gates
(default 1,000; the full run of adder64, 1,130 gates, was killed after 290 s): past that its values grow doubly exponentially and it does not finish.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from netlist_generators import array_multiplier  # noqa: E402

import verified_aat.api as va  # noqa: E402
from verified_aat.circuits.evaluate import evaluate  # noqa: E402
from verified_aat.symbolic.attention import engine_keys  # noqa: E402
from verified_aat.transformer.exact_engine import ExactRunner  # noqa: E402

SHARED = ROOT.parent / "shared" / "circuits"
NETLISTS = ["iscas85/c432.bench", "iscas85/c499.bench", "iscas85/c880.bench", "bristol/zero_equal.txt",
            "bristol/neg64.txt", "bristol/adder64.txt", "c6288-like 16x16 NOR multiplier",
            "mult64-like 64x64 XOR multiplier", "bristol/FP-add.txt", "bristol/FP-mul.txt"]


def _circuit(name: str, tmp: Path) -> va.Circuit:
    if name.startswith(("c6288", "mult64")):  # generated stand-ins: neither file is among ../shared/circuits/
        bits, style = (16, "nor") if name.startswith("c6288") else (64, "xor")
        path = tmp / f"mul{bits}{style}.bench"
        path.write_text(array_multiplier(bits, style))
        return va.load_circuit(str(path))
    return va.load_circuit(str(SHARED / name))


def _timed(fn):  # type: ignore[no-untyped-def]
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--full-below", type=int, default=1000, metavar="GATES")
    p.add_argument("--only", metavar="TEXT", help="the rows whose netlist name contains TEXT")
    args = p.parse_args(argv)
    keys = engine_keys(va.construction("gate-edge").score_hints())
    header = ("netlist", "gates", "positions", "layers", "compile CPU s", "settled run CPU / wall s",
              "settled", "= eval", "full run CPU s")
    rows = []
    tmp = Path("/tmp") / "verified-aat-exact-netlists"
    tmp.mkdir(exist_ok=True)
    for name in [n for n in NETLISTS if args.only is None or args.only in n]:
        circuit = _circuit(name, tmp)
        compiled, _, compile_cpu = _timed(lambda: va.compile(circuit))
        encoding, rng = compiled.encoding, random.Random(7)
        vectors = [[rng.randint(0, 1) for _ in range(circuit.n_inputs)] for _ in range(2)]
        runs, equal, settled = [], True, True
        for xs in vectors:
            runner = ExactRunner(compiled.transformer, keys, forget=encoding.settle)
            result, wall, cpu = _timed(lambda: runner.run(encoding.instantiate(xs), needed=encoding.readout))
            runs.append((cpu, wall))
            equal &= encoding.read(result.outputs) == tuple(evaluate(circuit, xs))
            settled &= result.stats.settled
        full = "—"
        if circuit.size < args.full_below:
            _, _, full_cpu = _timed(lambda: ExactRunner(compiled.transformer, keys).run(encoding.instantiate(vectors[0])))
            full = f"{full_cpu:.2f}"
        cpu, wall = max(r[0] for r in runs), max(r[1] for r in runs)
        rows.append((name, f"{circuit.size:,}", f"{encoding.length:,}", str(compiled.transformer.n_layers),
                     f"{compile_cpu:.2f}", f"{cpu:.2f} / {wall:.2f}", str(settled), str(equal), full))
        print(f"done: {name}", file=sys.stderr, flush=True)
    widths = [max(len(r[k]) for r in [header, *rows]) for k in range(len(header))]
    for r in [header, tuple("-" * w for w in widths), *rows]:
        print("| " + " | ".join(x.ljust(w) for x, w in zip(r, widths)) + " |")
    return 0 if all(r[6] == r[7] == "True" for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
