"""Random single-gate edits of each construction's T, forged and checked under a solver that answers unsat to
everything (docs/soundness.md S12d): what gets through?

Each edit changes one gate of one of T's circuits (a constant, an input, an argument, add/mul swapped, a sign made
or removed). ``tests/forge.py`` turns the edited T into a certificate with the kernel's own derivation (every hash,
count and lemma text consistent, every lemma claimed proved); the kernel checks it with every solver replaced by
one that answers unsat. An accepted certificate is checked again with the real solvers: if that check does not
accept, a false lemma got through the lying solver (FALSE ACCEPT); if it does, the edit was harmless. The table
also counts the rejections S12d made (a countermodel found by exact evaluation).

Usage: ``python benchmarks/lying_solver.py [--edits N] [--seed S] [--constructions a,b] [--without-s12d]``; stop 47 measured
155 false accepts of ~2,000 forged certificates (seed 7, 120 edits each) before S12d, 0 after (seeds 7, 11, 23).
"""

from __future__ import annotations

import argparse
import copy
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import mutants  # noqa: E402
from forge import Forgery, forge, verdict  # noqa: E402

from verified_aat.certificates.kernel_form import transformer_form  # noqa: E402
from verified_aat.constructions.registry import get_construction  # noqa: E402
from verified_aat.kernel import solvers  # noqa: E402

CONSTRUCTIONS = ("gate-edge", "gate-edge-dot", "edge-only", "edge-k", "unique-hard", "unique-hard-left",
                 "unique-hard-right")
CIRCUITS = {"probe": mutants.probe_circuit, "fnc": mutants.probe_fnc_circuit, "sign": mutants.sign_circuit}


def edit(T: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    """T with one gate of one circuit changed, or None when the drawn change is no change."""
    new = copy.deepcopy(T)
    gates = new["functions"][rng.randrange(len(new["functions"]))]["gates"]
    g = rng.randrange(len(gates))
    op, arg = gates[g]
    if op == "const":
        v = int(arg) if arg.lstrip("-").isdigit() else 1
        gates[g] = ["const", str(rng.choice([v + 1, v - 1, -v, 2 * v, 0]))]
    elif op == "input":
        gates[g] = ["input", rng.randrange(1 + max(a[1] for a in gates if a[0] == "input"))]
    elif op in ("add", "mul") and g > 0:
        r = rng.random()
        if r < 0.4:
            gates[g] = ["mul" if op == "add" else "add", arg]
        elif r < 0.8:
            args = list(arg)
            args[rng.randrange(len(args))] = rng.randrange(g)
            gates[g] = [op, args]
        else:
            gates[g] = ["sign", [arg[0]]]
    elif op == "sign":
        gates[g] = ["add", list(arg)]
    return None if new == T else new


def measure(construction: str, circuit_name: str, edits: int, seed: int) -> dict[str, int]:
    circuit = CIRCUITS[circuit_name]()
    T0 = transformer_form(get_construction(construction).compile(circuit).transformer)
    rng = random.Random(seed)
    row = dict.fromkeys(("forged", "rejected", "by S12d", "not checked", "harmless", "FALSE ACCEPT"), 0)
    for _ in range(edits):
        T = edit(T0, rng)
        try:
            doc = forge(Forgery(circuit, T, construction=construction)) if T is not None else None
        except Exception:  # noqa: BLE001 - an edit the forger cannot derive (a malformed T): not a certificate
            doc = None
        if doc is None:
            continue
        tally(row, doc, lambda doc=doc: verdict(doc, jobs=1).outcome == "accepted")
    return row


def tally(row: dict[str, int], doc: dict[str, Any], harmless: Any) -> None:
    """Count ``doc``'s verdict under a solver that answers unsat to everything; ``harmless()`` decides an accepted one."""
    real = dict(solvers.SOLVERS)
    row["forged"] += 1
    solvers.SOLVERS.update({name: (lambda text, timeout_ms: solvers.UNSAT) for name in real})
    try:
        report = verdict(doc, jobs=1)
    finally:
        solvers.SOLVERS.update(real)
    if report.outcome == "rejected":
        row["rejected"] += 1
        row["by S12d"] += "S12d" in str(report.rejections[0])
    elif report.outcome != "accepted":
        row["not checked"] += 1
    else:
        row["harmless" if harmless() else "FALSE ACCEPT"] += 1


NETLIST_OPS = ("AND", "NAND", "OR", "NOR", "XOR", "XNOR")


def measure_netlist(path: Path, edits: int, seed: int) -> dict[str, int]:
    """Gate-type swaps in the embedded netlist of a threshold-mode certificate of ``path`` (a .bench file), its
    sha256 made again. A swap the honest kernel rejects but that leaves the netlist's function on {0,1}^n as it was
    (random 0/1 words) is not counted as a false accept: the lying solver's verdict is then right."""
    import contextlib
    import hashlib
    import io
    import json
    import re
    import tempfile

    from verified_aat.circuits.netlist_model import simulate_words
    from verified_aat.circuits.netlists import parse_bench
    from verified_aat.cli.main import main as cli
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "cert.json"
        with contextlib.redirect_stdout(io.StringIO()):
            assert cli(["certify", str(path), "--mode", "threshold", "--no-kernel", "-o", str(out)]) == 0
        honest = json.loads(out.read_text())
    text = honest["netlist"]["text"]
    lines, rng = text.split("\n"), random.Random(seed)
    gates = [i for i, line in enumerate(lines) if re.search(r"=\s*(N?AND|N?OR|XN?OR)\(", line)]
    words = [[rng.getrandbits(64) for _ in parse_bench(text).inputs] for _ in range(32)]
    row = dict.fromkeys(("forged", "rejected", "by S12d", "not checked", "harmless", "FALSE ACCEPT"), 0)
    for _ in range(edits):
        i = rng.choice(gates)
        op = re.search(r"=\s*(\w+)\(", lines[i]).group(1)  # type: ignore[union-attr]
        edited = "\n".join(lines[:i] + [lines[i].replace(op + "(", rng.choice([o for o in NETLIST_OPS if o != op]) + "(", 1)]
                           + lines[i + 1:])
        doc = json.loads(json.dumps(honest))
        doc["netlist"].update(text=edited, sha256=hashlib.sha256(edited.encode()).hexdigest())
        a, b = parse_bench(text), parse_bench(edited)
        tally(row, doc, lambda doc=doc, a=a, b=b: all(simulate_words(a, w, 64) == simulate_words(b, w, 64) for w in words)
              or verdict(doc, jobs=1).outcome == "accepted")
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edits", type=int, default=60)
    parser.add_argument("--seed", type=int, default=23)
    parser.add_argument("--constructions", default=",".join(CONSTRUCTIONS))
    parser.add_argument("--without-s12d", action="store_true", help="the kernel as it was before S12d (a baseline)")
    parser.add_argument("--netlists", default="c432,c880", help="shared ISCAS netlists for gate-type swaps ('' for none)")
    args = parser.parse_args()
    if args.without_s12d:
        from verified_aat.kernel import countermodel, discharge
        discharge.refute = lambda lemmas, open_: []  # type: ignore[assignment]
        countermodel.find_countermodel = lambda text, left: None  # type: ignore[assignment]
    columns = ("forged", "rejected", "by S12d", "not checked", "harmless", "FALSE ACCEPT")
    print(f"| construction | circuit | {' | '.join(columns)} | CPU s |")
    print("|---|---|" + "---|" * (len(columns) + 1))
    for construction in args.constructions.split(","):
        for circuit_name in CIRCUITS:
            if construction.startswith("unique-hard") and circuit_name == "probe":
                continue  # outside FNC0[sign] (fan-in 4)
            started = time.process_time()
            row = measure(construction, circuit_name, args.edits, args.seed)
            cells = " | ".join(str(row[c]) for c in columns)
            print(f"| {construction} | {circuit_name} | {cells} | {time.process_time() - started:.1f} |", flush=True)
    shared = Path(__file__).resolve().parents[2] / "shared" / "circuits" / "iscas85"
    for name in args.netlists.split(",") if args.netlists else []:
        started = time.process_time()
        row = measure_netlist(shared / f"{name}.bench", args.edits, args.seed)
        cells = " | ".join(str(row[c]) for c in columns)
        print(f"| netlist link, threshold | {name} gate swaps | {cells} | {time.process_time() - started:.1f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
