#!/usr/bin/env python
"""``verified-aat run`` at scale (issue 8, goal "Run"): each case in a fresh process.

A case compiles a circuit (not timed), then a fresh worker process runs the command line
``verified-aat run MODEL --encoding ENC --inputs FILE`` (loading the model, proving the key
lemmas, one exact run per vector) and reports wall and CPU seconds (user + system of the
worker) and peak RSS of that process, the engine's own seconds per vector, which path
computed the argmax sets, and whether every read-out equals ``evaluate(C, x)``.

    python benchmarks/run_scale.py [--quick]

Goals: a 10^5-gate circuit in ≤ 10 s per input vector; the c6288-like 16×16 multiplier in
≤ 5 s at ≤ 1 GB.  A case that overruns its time limit is killed and reported.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SHARED = HERE.parents[1] / "shared" / "circuits"
GOALS = {"gates_1e5_s": 10.0, "c6288_s": 5.0, "c6288_mb": 1024.0}


def run_specs(quick: bool) -> list[tuple[str, dict[str, Any]]]:
    """(label, spec): a spec names the circuit (as in scale.py), the inputs and the goal that applies."""
    mul = {"file": "", "generate": "mul16nor", "bits": 16, "style": "nor"}
    specs: list[tuple[str, dict[str, Any]]] = [
        ("relu n=2000 (10^4 gates), all pairs (--no-join)", {"family": "relu", "n": 2000, "no_join": True}),
        ("relu n=2000 (10^4 gates)", {"family": "relu", "n": 2000}),
        ("c880 (exact), 3 vectors", {"file": str(SHARED / "iscas85" / "c880.bench"), "vectors": 3, "binary": True}),
        ("16x16 multiplier, c6288-like (NOR), threshold mode", {**mul, "mode": "threshold", "binary": True,
                                                                "goal": "c6288"}),
    ]
    if not quick:
        specs += [
            ("relu n=20000 (10^5 gates)", {"family": "relu", "n": 20000, "goal": "1e5"}),
            ("relu n=20000 (10^5 gates), 3 vectors", {"family": "relu", "n": 20000, "vectors": 3, "goal": "1e5"}),
            ("inner-product n=33333 (10^5 gates)", {"family": "inner-product", "n": 33333, "goal": "1e5"}),
            ("random-fsac n=24999 (10^5 gates)", {"family": "random-fsac", "n": 24999, "goal": "1e5"}),
            ("16x16 multiplier, c6288-like (NOR), exact mode", {**mul, "mode": "exact", "binary": True,
                                                                "goal": "c6288", "timeout": 120}),
        ]
    return specs


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def peak_rss_mb() -> float:
    """This process's peak resident set: VmHWM (reset by exec, unlike ru_maxrss, which a child
    started by fork + exec inherits from its parent), else ru_maxrss."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def timed_cli(argv: list[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """One ``verified-aat ARGV --json`` in this process, timed from before the command starts: (exit code,
    wall and CPU seconds, peak RSS, the engine's own seconds and stats; the JSON document, {} on failure)."""
    from verified_aat.cli.main import main

    w0, c0 = time.perf_counter(), _cpu()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(argv)
    wall, cpu = time.perf_counter() - w0, _cpu() - c0
    doc = json.loads(out.getvalue()) if code == 0 else {}
    return {"code": code, "wall_s": wall, "cpu_s": cpu, "rss_mb": peak_rss_mb(), "engine_s": doc.get("seconds"),
            "stats": doc.get("stats", {})}, doc


def worker(spec: dict[str, Any]) -> dict[str, Any]:
    """One ``verified-aat run --inputs`` in this process, timed from before the command starts."""
    argv = ["run", spec["model"], "--encoding", spec["encoding"], "--inputs", spec["inputs"], "--json"]
    if spec.get("no_join"):
        argv.append("--no-join")
    row, doc = timed_cli(argv)
    return {**row, "outputs": [r["outputs"] for r in doc.get("results", [])]}


def measure(spec: dict[str, Any]) -> dict[str, Any]:
    """Compile (not timed), write the inputs, run the worker in a fresh process, check the read-outs."""
    sys.path.insert(0, str(HERE))
    from scale import _load

    from verified_aat.circuits.evaluate import evaluate
    from verified_aat.constructions.registry import get_construction
    from verified_aat.transformer.spec import transformer_to_json

    circuit = _load(spec)
    compiled = get_construction(spec.get("construction", "gate-edge")).compile(circuit)
    rng = random.Random(8)
    vectors = []
    for _ in range(spec.get("vectors", 1)):
        if spec.get("binary"):
            vectors.append([rng.randint(0, 1) for _ in range(circuit.n_inputs)])
        else:
            vectors.append([Fraction(rng.randint(-9, 9), rng.randint(1, 3)) for _ in range(circuit.n_inputs)])
    row: dict[str, Any] = {"gates": circuit.size, "positions": compiled.encoding.length,
                           "layers": compiled.transformer.n_layers, "vectors": len(vectors)}
    with tempfile.TemporaryDirectory() as tmp:
        paths = {"model": str(Path(tmp) / "transformer.json"), "encoding": str(Path(tmp) / "encoding.json"),
                 "inputs": str(Path(tmp) / "inputs.txt")}
        Path(paths["model"]).write_text(json.dumps(transformer_to_json(compiled.transformer)))
        Path(paths["encoding"]).write_text(compiled.encoding.dumps())
        Path(paths["inputs"]).write_text("".join(",".join(map(str, xs)) + "\n" for xs in vectors))
        timeout = spec.get("timeout", 600)
        job = {**paths, "no_join": spec.get("no_join", False)}
        try:
            done = subprocess.run([sys.executable, __file__, "--worker", json.dumps(job)], capture_output=True,
                                  text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {**row, "error": f"timed out after {timeout} s"}
    if done.returncode != 0:
        return {**row, "error": f"worker failed: {done.stderr.strip().splitlines()[-1:]}"}
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if result["code"] != 0:
        return {**row, "error": f"run exited {result['code']}: {done.stderr.strip()[-200:]}"}
    want = [[str(v) for v in evaluate(circuit, xs)] for xs in vectors]
    methods = sorted({m for _, m in result["stats"].get("head_methods", [])})
    row.update(wall_s=result["wall_s"], cpu_s=result["cpu_s"], rss_mb=result["rss_mb"],
               per_vector_s=result["wall_s"] / len(vectors), argmax="+".join(methods) or "-",
               matches=result["outputs"] == want)
    return row


def goal_text(spec: dict[str, Any], row: dict[str, Any]) -> str:
    """'met', 'missed: …' or '–' for the goal of issue 8 that applies to the row."""
    goal = spec.get("goal")
    if goal is None:
        return "–"
    if "error" in row:
        return "missed: " + row["error"]
    if goal == "1e5":
        limit = GOALS["gates_1e5_s"]
        return "met" if row["per_vector_s"] <= limit else f"missed: {row['per_vector_s']:.1f} s > {limit:g} s"
    missed = [f"{row['wall_s']:.1f} s > {GOALS['c6288_s']:g} s"] if row["wall_s"] > GOALS["c6288_s"] else []
    if row["rss_mb"] > GOALS["c6288_mb"]:
        missed.append(f"{row['rss_mb']:.0f} MB > {GOALS['c6288_mb']:g} MB")
    return "met" if not missed else "missed: " + "; ".join(missed)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--worker":
        print(json.dumps(worker(json.loads(sys.argv[2]))))
    else:
        for label, spec in run_specs("--quick" in sys.argv):
            row = measure(spec)
            print(label, row, goal_text(spec, row), flush=True)
