#!/usr/bin/env python
"""``verified-aat run --engine float64`` at scale (issue 22, "the float engine at scale").

A case compiles a circuit with gate-edge (not timed) and writes one input vector; a fresh
worker process runs ``verified-aat run MODEL --encoding ENC --input=@FILE --engine float64
--json`` (loading the model, proving the key lemmas, the float run) and reports its wall and
CPU seconds (user + system of the worker) and peak RSS, which path found the argmax sets,
and the read-out's largest relative error against the exact value C(x) (the exact run's
read-out, which certify proves equal to C(x)).  With ``exact`` the case also runs ``--engine
exact`` in its own fresh process and compares the two read-outs.

The error is held to the tolerance only where the precision bound (``transformer/precision.py``,
values for |x| ≤ 9) fits float64's 53 bits.  Past it (random-fsac: sums of rounded means of
fan-in 3 reach sign gates, so a rounded 0 can read as ±1) the error is reported, not judged:
the all-pairs float run gives the same read-outs there.

    python benchmarks/float_scale.py [--quick]

Goal: 10^6 gates in ≤ 30 s CPU, every read-out within 1e-9 relative error of C(x).
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import tempfile
from fractions import Fraction
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
GOAL_CPU_S = 30.0          # at 10^6 gates
RELATIVE_TOLERANCE = 1e-9  # float64 read-outs against C(x)


def float_specs(quick: bool) -> list[tuple[str, dict[str, Any]]]:
    """(label, spec): a family member (as in scale.py), the engine, and whether the exact run is compared too."""
    specs = [("inner-product n=3333 (10^4 gates)", {"family": "inner-product", "n": 3333, "exact": True})]
    if not quick:
        specs += [
            ("inner-product n=33333 (10^5 gates)", {"family": "inner-product", "n": 33333, "exact": True}),
            ("relu n=20000 (10^5 gates)", {"family": "relu", "n": 20000, "exact": True}),
            ("random-fsac n=24999 (10^5 gates)", {"family": "random-fsac", "n": 24999, "exact": True}),
            ("inner-product n=333333 (10^6 gates)", {"family": "inner-product", "n": 333333, "goal": True}),
            ("relu n=200000 (10^6 gates)", {"family": "relu", "n": 200000, "goal": True}),
            ("random-fsac n=249999 (10^6 gates)", {"family": "random-fsac", "n": 249999, "goal": True}),
        ]
    return specs


def worker(job: dict[str, Any]) -> dict[str, Any]:
    """One ``verified-aat run`` in this process, timed from before the command starts."""
    from run_scale import timed_cli

    row, doc = timed_cli(["run", job["model"], "--encoding", job["encoding"], f"--input=@{job['input']}",
                          "--engine", job["engine"], "--json"])
    return {**row, "outputs": doc.get("outputs")}


def _fresh(job: dict[str, Any], timeout: float) -> dict[str, Any]:
    done = subprocess.run([sys.executable, __file__, "--worker", json.dumps(job)], capture_output=True, text=True,
                          timeout=timeout)
    if done.returncode != 0:
        return {"error": f"worker failed: {done.stderr.strip().splitlines()[-1:]}"}
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    if result["code"] != 0:
        return {"error": f"run exited {result['code']}: {done.stderr.strip()[-200:]}"}
    return result


def _worst_relative(got: list[Any], want: list[Fraction]) -> float:
    return max((float(abs(Fraction(float(g)) - w) / max(abs(w), 1)) for g, w in zip(got, want)), default=0.0)


def measure(spec: dict[str, Any]) -> dict[str, Any]:
    """Compile (not timed), write the input, run float64 (and exact) in fresh processes, compare with C(x)."""
    sys.path.insert(0, str(HERE))
    from scale import _load

    from verified_aat.circuits.evaluate import evaluate
    from verified_aat.constructions.registry import get_construction
    from verified_aat.transformer.precision import MANTISSA_BITS, precision
    from verified_aat.transformer.spec import transformer_to_json

    circuit = _load(spec)
    compiled = get_construction("gate-edge").compile(circuit)
    rng = random.Random(22)
    x = [Fraction(rng.randint(-9, 9), rng.randint(1, 3)) for _ in range(circuit.n_inputs)]
    want = [Fraction(v) for v in evaluate(circuit, x)]
    rows = compiled.encoding.rows
    largest = [max(abs(r[c]) for r in rows) for c in range(len(compiled.transformer.coordinates))]
    needs = precision(compiled.transformer, [largest], get_construction("gate-edge").structural, circuit, 9)
    row: dict[str, Any] = {"gates": circuit.size, "positions": compiled.encoding.length,
                           "layers": compiled.transformer.n_layers, "value_bits": needs.value_bits,
                           "bounded": (needs.value_bits or 0) <= MANTISSA_BITS["float64"]}
    timeout = spec.get("timeout", 600)
    with tempfile.TemporaryDirectory() as tmp:
        paths = {"model": str(Path(tmp) / "transformer.json"), "encoding": str(Path(tmp) / "encoding.json"),
                 "input": str(Path(tmp) / "x.txt")}
        Path(paths["model"]).write_text(json.dumps(transformer_to_json(compiled.transformer)))
        Path(paths["encoding"]).write_text(compiled.encoding.dumps())
        Path(paths["input"]).write_text(",".join(map(str, x)) + "\n")
        del compiled
        try:
            floats = _fresh({**paths, "engine": "float64"}, timeout)
            exact = _fresh({**paths, "engine": "exact"}, timeout) if spec.get("exact") else None
        except subprocess.TimeoutExpired:
            return {**row, "error": f"timed out after {timeout} s"}
    if "error" in floats:
        return {**row, **floats}
    methods = sorted({m for _, m in floats["stats"].get("head_methods", [])})
    row.update(wall_s=floats["wall_s"], cpu_s=floats["cpu_s"], rss_mb=floats["rss_mb"], engine_s=floats["engine_s"],
               argmax="+".join(methods) or "-", max_rel_err=_worst_relative(floats["outputs"], want))
    row["within"] = row["max_rel_err"] <= RELATIVE_TOLERANCE
    if exact is not None:
        if "error" in exact:
            return {**row, "error": "exact run: " + exact["error"]}
        row.update(exact_cpu_s=exact["cpu_s"], exact_wall_s=exact["wall_s"],
                   exact_equals_c=[Fraction(v) for v in exact["outputs"]] == want)
    return row


def goal_text(spec: dict[str, Any], row: dict[str, Any]) -> str:
    """'met', 'missed: …' or '–' for the 10^6-gate CPU goal of issue 22."""
    if "error" in row:
        return "missed: " + row["error"]
    if not spec.get("goal"):
        return "–"
    missed = [] if row["cpu_s"] <= GOAL_CPU_S else [f"{row['cpu_s']:.1f} s CPU > {GOAL_CPU_S:g} s"]
    if row["bounded"] and not row["within"]:
        missed.append(f"relative error {row['max_rel_err']:.2g} > {RELATIVE_TOLERANCE:g}")
    return "met" if not missed else "missed by " + "; ".join(missed)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--worker":
        sys.path.insert(0, str(HERE))
        print(json.dumps(worker(json.loads(sys.argv[2]))))
    else:
        only = [a for a in sys.argv[1:] if not a.startswith("--")]
        for label, spec in float_specs("--quick" in sys.argv):
            if only and not any(o in label for o in only):
                continue
            row = measure(spec)
            print(label, row, goal_text(spec, row), flush=True)
