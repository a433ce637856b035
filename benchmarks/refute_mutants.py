"""How complete is ``refute`` on random wrong transformers?  A study, not a test.

Usage: ``python benchmarks/refute_mutants.py [--mutants N] [--budget S] [--K K] [--only NAME,…] [--seed S]``.

For each shipped construction, T_K is put in its kernel form and given seeded random single edits
(a constant, a gate's argument, a gate's op, a head's pooling: ``mutate`` below, as
``tests/test_kernel_soundness.mutate`` without the layer edits, which change K).  Each mutant is classified
by a brute-force oracle that shares nothing with ``refute``'s choices: a fixed list of circuits of depth ≤ K
in the construction's class (the refutation candidates, and the probe circuits of ``tests/mutants.py`` where
shallow enough) × seeded rational, small-integer and 0/1 inputs, T run with ``run_exact`` on the
construction's encoding and compared with ``evaluate(C, x)``:

* **wrong**: some circuit and input differ;
* **harmless**: none differ on the oracle's circuits (it may still be wrong elsewhere).

``verified_aat.api.refute`` is then run on every mutant (budget ``--budget`` s) and each reported
counterexample is replayed here with ``run_exact`` (a reported counterexample that does not replay is a bug).
The table: per construction, mutants, wrong, found by refute, missed, refuted-although-the-oracle-saw-nothing,
errors, and refute's CPU seconds per wrong mutant (median / max); the missed mutants are listed after it.
"""

from __future__ import annotations

import argparse
import copy
import random
import statistics
import sys
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import mutants as hand_written  # noqa: E402
from test_kernel_soundness import engine_transformer  # noqa: E402 - the kernel form back as the engine's model

from verified_aat import api  # noqa: E402
from verified_aat.certificates.kernel_form import transformer_form  # noqa: E402
from verified_aat.circuits.evaluate import evaluate  # noqa: E402
from verified_aat.circuits.ir import Circuit, Gate, Kind  # noqa: E402
from verified_aat.circuits.measures import depth  # noqa: E402
from verified_aat.constructions.registry import get_construction  # noqa: E402
from verified_aat.errors import InputError  # noqa: E402
from verified_aat.refutation.candidates import candidate_circuits  # noqa: E402
from verified_aat.transformer.exact_engine import run_exact  # noqa: E402
from verified_aat.transformer.model import Transformer  # noqa: E402

CONSTRUCTIONS = ("gate-edge", "gate-edge-dot", "edge-only", "edge-k", "unique-hard", "unique-hard-left",
                 "unique-hard-right")
ORACLE_RANDOM = 40  # random candidate circuits (of each of the two kinds) in the oracle's list


def mutate(doc: dict[str, Any], rng: random.Random, scope: str = "shared") -> tuple[dict[str, Any], str]:
    """One seeded edit and its description (the doc unchanged when the drawn edit does not apply).  ``scope``
    "shared": a function is edited wherever the kernel form shares it (every layer); "layer": in one layer only
    (a copy of that layer's activation or score circuit is edited, as a hand edit of one layer of a compiled
    transformer.json would); "both": either, drawn; "layers": a layer deleted or doubled (T may then be meant for
    another K: refute judges it at the K its layer count gives, the oracle at the K given)."""
    doc = copy.deepcopy(doc)
    if scope == "layers":  # tests/test_kernel_soundness.mutate's layer edit: one layer deleted or doubled
        layers = doc["layers"]
        k = rng.randrange(len(layers))
        if rng.random() < 0.5 and len(layers) > 1:
            del layers[k]
            return doc, f"layer {k} deleted"
        layers.insert(k, copy.deepcopy(layers[k]))
        return doc, f"layer {k} doubled"
    kind = rng.choice(["const", "arg", "op", "pooling", "const", "arg"])
    if scope == "both":
        scope = rng.choice(["shared", "layer"])
    if kind == "pooling":
        heads = [(i, h) for i, layer in enumerate(doc["layers"]) for h in layer["heads"]]
        if not heads:
            return doc, "pooling: no head"
        i, head = rng.choice(heads)
        new = rng.choice(["average", "leftmost", "rightmost"])
        was, head["pooling"] = head["pooling"], new
        return doc, f"pooling layer {i} head {head['name']}: {was} -> {new}"
    if scope == "layer":
        i = rng.randrange(len(doc["layers"]))
        layer = doc["layers"][i]
        slots = [(layer, "activation")] + [(h, "score") for h in layer["heads"] if isinstance(h["score"], int)]
        holder, field = rng.choice(slots)
        doc["functions"].append(copy.deepcopy(doc["functions"][holder[field]]))
        holder[field] = f = len(doc["functions"]) - 1
        doc["edited_layer"] = i
    else:
        f = rng.randrange(len(doc["functions"]))
    gates = doc["functions"][f]["gates"]
    candidates = [g for g, (op, _) in enumerate(gates) if (op == "const") == (kind == "const") and op != "input"]
    if not candidates:
        return doc, f"{kind}: none in function {f}"
    g = rng.choice(candidates)
    op, arg = gates[g]
    if kind == "const":
        new = Fraction(arg) + rng.choice([-1, 1, Fraction(1, 2)])
        gates[g] = ["const", str(new)]
        return doc, f"const f{f} g{g}: {arg} -> {new}"
    if kind == "arg" and g > 0 and arg:
        arg = list(arg)
        k = rng.randrange(len(arg))
        was, arg[k] = arg[k], rng.randrange(g)
        gates[g] = [op, arg]
        return doc, f"arg f{f} g{g} ({op}) operand {k}: {was} -> {arg[k]}"
    if kind == "op" and len(arg) >= 2:
        gates[g] = ["mul" if op == "add" else "add", arg]
        return doc, f"op f{f} g{g}: {op} -> {gates[g][0]}"
    return doc, f"{kind} f{f} g{g}: not applicable"


def deeper(circuit: Circuit, by: int) -> Circuit:
    """The oracle's own lifting: every input and constant read through ``by`` sums of fan-in 1."""
    gates: list[Gate] = []
    wire: dict[int, int] = {}
    chain: dict[int, int] = {}
    for g, gate in enumerate(circuit.gates):
        if gate.kind in (Kind.INPUT, Kind.CONST):
            gates.append(gate)
            wire[g] = chain[g] = len(gates) - 1
            for _ in range(by):
                gates.append(Gate(Kind.ADD, (chain[g],)))
                chain[g] = len(gates) - 1
        else:
            gates.append(Gate(gate.kind, tuple(chain.get(a, wire[a]) for a in gate.args)))
            wire[g] = len(gates) - 1
    return Circuit(tuple(gates), tuple(wire[o] for o in circuit.outputs), name=f"{circuit.name}+{by}")


def oracle_circuits(name: str, K: int) -> list[Circuit]:
    """The fixed list: refutation candidates (at the time of writing), the single-gate ones also lifted to every
    depth ≤ K, and the probe circuits; of depth ≤ K, in the class."""
    construction = get_construction(name)
    out = []
    basic = list(candidate_circuits(0))
    pool = [*basic, *(deeper(c, by) for by in range(1, K) for c in basic),
            *(c for c in candidate_circuits(ORACLE_RANDOM, max_depth=K) if "-at-depth+" not in c.name),
            hand_written.probe_circuit(),
            hand_written.probe_fnc_circuit(), hand_written.sign_circuit()]
    names: set[str] = set()
    for c in pool:
        if c.name in names:
            continue
        names.add(c.name)
        try:
            construction.check_class(c)
        except InputError:
            continue
        if depth(c) <= K:
            out.append(c)
    return out


def oracle_inputs(n: int, seed: int) -> list[list[Fraction]]:
    rng = random.Random(seed)
    rational = [[Fraction(rng.randint(-5, 5), rng.randint(1, 3)) for _ in range(n)] for _ in range(4)]
    integer = [[Fraction(rng.randint(-3, 3)) for _ in range(n)] for _ in range(2)]
    binary = [[Fraction(rng.randint(0, 1)) for _ in range(n)] for _ in range(3)]
    return [[Fraction(0)] * n, [Fraction(1)] * n, *rational, *integer, *binary]


def differs(T: Transformer, name: str, circuit: Circuit, xs: list[Fraction]) -> bool:
    construction = get_construction(name)
    encoding = construction.encode(circuit)
    got = encoding.read(run_exact(T, encoding.instantiate(xs)).outputs)
    return tuple(got) != tuple(evaluate(circuit, xs))


def oracle(T: Transformer, name: str, circuits: list[Circuit]) -> tuple[str, str]:
    """("wrong", where) / ("harmless", "") / ("engine-error", message)."""
    for n, c in enumerate(circuits):
        for xs in oracle_inputs(c.n_inputs, n):
            try:
                if differs(T, name, c, xs):
                    return "wrong", f"{c.name} at {[str(v) for v in xs]}"
            except Exception as exc:  # noqa: BLE001 - a mutant the engine cannot run is reported, not hidden
                return "engine-error", f"{c.name}: {type(exc).__name__}: {exc}"[:160]
    return "harmless", ""


def run_refute(T: Transformer, name: str, budget: float) -> tuple[str, float, str]:
    """("found" | "none" | "error" | "bad-replay", CPU s, detail)."""
    cpu = time.process_time()
    try:
        result = api.refute(T, name, budget=budget)
    except Exception as exc:  # noqa: BLE001 - recorded as a crash
        return "error", time.process_time() - cpu, f"{type(exc).__name__}: {exc}"[:200]
    cpu = time.process_time() - cpu
    if result.counterexample is None:
        return ("proved" if result.proved else "none"), cpu, f"{result.circuits_tried} circuits"
    xs = list(result.counterexample.inputs)
    if not differs(T, name, result.circuit, xs):
        return "bad-replay", cpu, f"{result.circuit.name} at {xs}"
    return "found", cpu, f"{result.circuit.name} ({result.circuit.size} gates)"


def mutants(name: str, count: int, K: int, seed: int, scope: str = "shared") -> list[tuple[dict[str, Any], str]]:
    """The construction's first ``count`` distinct seeded mutants of T_K (kernel form) and their edits."""
    honest = transformer_form(get_construction(name).transformer(K))
    out: list[tuple[dict[str, Any], str]] = []
    seen: set[str] = set()
    rng = random.Random(f"{name}-{seed}")
    for _ in range(20 * count):
        if len(out) == count:
            break
        doc, what = mutate(honest, rng, scope)
        if "edited_layer" in doc:
            what = f"layer {doc.pop('edited_layer')} only: {what}"
        if doc != honest and repr(doc) not in seen and not what.endswith(("applicable", "no head")) \
                and ": none in" not in what:
            seen.add(repr(doc))
            out.append((doc, what))
    return out


def study(name: str, count: int, K: int, budget: float, seed: int, log: list[tuple[str, str, str]],
          scope: str = "shared") -> dict[str, Any]:
    circuits = oracle_circuits(name, K)
    row: dict[str, Any] = {"name": name, "mutants": 0, "wrong": 0, "found": 0, "missed": 0, "extra": 0,
                           "errors": 0, "cpu": []}
    for doc, what in mutants(name, count, K, seed, scope):
        row["mutants"] += 1
        T = engine_transformer(doc)
        verdict, where = oracle(T, name, circuits)
        outcome, cpu, detail = run_refute(T, name, budget)
        if outcome in ("error", "bad-replay") or verdict == "engine-error":
            row["errors"] += 1
        if verdict == "wrong":
            row["wrong"] += 1
            row["cpu"].append(cpu)
            row["found" if outcome == "found" else "missed"] += 1
        elif outcome == "found":
            row["extra"] += 1
        mark = {"found": "+", "none": "-", "proved": "P"}.get(outcome, "!")
        line = f"{name:<18} {verdict:<12} refute {outcome:<10} {cpu:6.1f}s  {what}  | oracle: {where}  | {detail}"
        log.append((verdict, outcome, line))
        print(mark, line, file=sys.stderr, flush=True)
    return row


def table(rows: list[dict[str, Any]]) -> str:
    header = ("construction", "mutants", "wrong", "found", "missed", "extra", "errors", "CPU s med", "CPU s max")
    body = []
    for r in rows:
        cpu = r["cpu"] or [0.0]
        body.append((r["name"], *(str(r[k]) for k in ("mutants", "wrong", "found", "missed", "extra", "errors")),
                     f"{statistics.median(cpu):.1f}", f"{max(cpu):.1f}"))
    total = [sum(r[k] for r in rows) for k in ("mutants", "wrong", "found", "missed", "extra", "errors")]
    allcpu = [c for r in rows for c in r["cpu"]] or [0.0]
    body.append(("total", *map(str, total), f"{statistics.median(allcpu):.1f}", f"{max(allcpu):.1f}"))
    widths = [max(len(x[k]) for x in [header, *body]) for k in range(len(header))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(x, widths)) for x in [header, *body])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mutants", type=int, default=12, help="distinct mutants per construction")
    parser.add_argument("--budget", type=float, default=20.0, help="refute's budget per mutant (s)")
    parser.add_argument("--K", type=int, default=2, help="the depth bound of T_K")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", default="", help="comma-separated constructions")
    parser.add_argument("--scope", choices=("shared", "layer", "both", "layers"), default="shared",
                        help="edit a shared function everywhere, or one layer's copy of it")
    args = parser.parse_args(argv)
    names = [n for n in CONSTRUCTIONS if not args.only or n in args.only.split(",")]
    log: list[tuple[str, str, str]] = []
    rows = [study(n, args.mutants, args.K, args.budget, args.seed, log, args.scope) for n in names]
    print(table(rows))
    print("\nwrong mutants refute missed, refutations of oracle-harmless mutants, errors:")
    for verdict, outcome, line in log:
        if (verdict == "wrong") != (outcome == "found") or verdict == "engine-error" or \
                outcome in ("error", "bad-replay"):
            print(" ", line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
