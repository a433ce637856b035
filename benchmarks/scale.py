"""The scale table of issue 8: certify, check and eval of large circuits, each in a fresh process.

Every measurement runs in its own Python process (``python benchmarks/scale.py --worker JSON``)
so that its peak memory (``ru_maxrss``) is its own.  A row: the circuit, gates, positions,
``eval`` CPU seconds (exact evaluation of C on one input, the same run), certify wall/CPU
seconds and peak RSS, certify/eval ratio, certificate bytes per gate, check wall/CPU seconds
and peak RSS.  CPU seconds are the process's own (user + system), reported beside wall time.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SHARED = HERE.parents[1] / "shared" / "circuits"


def _cpu() -> float:
    """CPU seconds of this process and of the helpers it waited for (forked derivation, solver pool)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _load(spec: dict[str, Any]):  # type: ignore[no-untyped-def]
    if "family" in spec:
        from verified_aat.circuits.families import FAMILIES
        return FAMILIES[spec["family"]].builder(spec["n"])  # past the command line's limit too: 10^7 gates is n = 2·10^6
    from verified_aat.circuits.io import load_circuit
    path = spec["file"]
    if "generate" in spec:
        sys.path.insert(0, str(HERE))
        from netlist_generators import array_multiplier
        path = str(Path(tempfile.gettempdir()) / f"{spec['generate']}.bench")
        Path(path).write_text(array_multiplier(spec["bits"], spec["style"]))
    try:
        return load_circuit(path, spec.get("mode", "exact"), **({"fmt": spec["format"]} if "format" in spec else {}))
    except TypeError:  # an importer without the format option
        return load_circuit(path, spec.get("mode", "exact"))


def worker(spec: dict[str, Any]) -> dict[str, Any]:
    """One measurement in this process: ``certify`` (writes spec["cert"]) or ``check`` (reads it)."""
    from verified_aat.api import certificate
    from verified_aat.certificates.document import dumps_certificate
    from verified_aat.circuits.evaluate import evaluate
    from verified_aat.constructions.registry import get_construction
    from verified_aat.kernel import Options, check_certificate, load_certificate
    from verified_aat.symbolic.certify import certify

    if spec["job"] == "check":
        w0, c0 = time.perf_counter(), _cpu()
        report = check_certificate(load_certificate(spec["cert"]), Options(solvers=("z3",), jobs=spec.get("jobs", 2)))
        return {"check_s": time.perf_counter() - w0, "check_cpu_s": _cpu() - c0, "check_rss_mb": _rss_mb(),
                "accepted": report.accepted, "reasons": report.reasons[:2], "defence": report.defence}
    t0 = time.perf_counter()
    circuit = _load(spec)
    import_s = time.perf_counter() - t0
    c0 = _cpu()
    evaluate(circuit, [1] * circuit.n_inputs)
    eval_cpu = _cpu() - c0
    w0, c0 = time.perf_counter(), _cpu()
    # jobs=2 as the command line's default: lemmas discharged and (at ≥ 2e5 positions) obligations
    # derived in two processes; the forked helper's peak memory is reported beside the main one
    result = certify(circuit, get_construction(spec.get("construction", "gate-edge")), refute=False,
                     jobs=spec.get("jobs", 2))
    row: dict[str, Any] = {"gates": circuit.size, "positions": result.encoding.length, "import_s": import_s,
                           "eval_cpu_s": eval_cpu, "status": result.status}
    if result.status == "proved":
        text = dumps_certificate(certificate(result, timings=False, circuit=circuit))
        Path(spec["cert"]).write_text(text)
        row["cert_bytes_per_gate"] = len(text.encode()) / circuit.size
    row.update(certify_s=time.perf_counter() - w0, certify_cpu_s=_cpu() - c0, certify_rss_mb=_rss_mb(),
               certify_child_rss_mb=resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)
    row["certify_eval_ratio"] = row["certify_cpu_s"] / max(eval_cpu, 1e-9)
    return row


def measure(spec: dict[str, Any], timeout: float = 1800) -> dict[str, Any]:
    """certify then check ``spec`` in two fresh processes; failures become a row with ``error``."""
    with tempfile.TemporaryDirectory() as tmp:
        cert = str(Path(tmp) / "cert.json")
        row: dict[str, Any] = {}
        for job in ("certify", "check"):
            try:
                done = subprocess.run([sys.executable, __file__, "--worker", json.dumps({**spec, "job": job, "cert": cert})],
                                      capture_output=True, text=True, timeout=timeout)
            except subprocess.TimeoutExpired:
                return {**row, "error": f"{job} timed out after {timeout:.0f} s"}
            if done.returncode != 0:
                return {**row, "error": f"{job} failed: {done.stderr.strip().splitlines()[-1:]}"}
            row.update(json.loads(done.stdout.strip().splitlines()[-1]))
            if job == "certify" and row.get("status") != "proved":
                return {**row, "error": f"certify: {row.get('status')}"}
        return row


def scale_specs(quick: bool) -> list[tuple[str, dict[str, Any]]]:
    """(label, spec) for the issue-8 table: families at 10^4 … 10^6 gates, c880, multipliers, Bristol."""
    sizes = {"inner-product": (3333, 33333, 99999, 333333), "relu": (2000, 20000, 60000, 200000),
             "random-fsac": (2499, 24999, 74999, 249999)}
    specs: list[tuple[str, dict[str, Any]]] = []
    for family, ns in sizes.items():
        for n in ns[:2] if quick else ns:
            specs.append((f"{family} n={n}", {"family": family, "n": n}))
    specs.append(("c880 (exact)", {"file": str(SHARED / "iscas85" / "c880.bench")}))
    specs.append(("16x16 multiplier, c6288-like (NOR)", {"file": "", "generate": "mul16nor", "bits": 16,
                                                          "style": "nor"}))
    if not quick:
        specs.append(("64x64 multiplier (XOR)", {"file": "", "generate": "mul64xor", "bits": 64, "style": "xor"}))
        for name in ("adder64", "FP-add"):
            path = SHARED / "bristol" / f"{name}.txt"
            if path.exists():
                specs.append((f"{name} (Bristol)", {"file": str(path), "format": "bristol"}))
    return specs


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--worker":
        print(json.dumps(worker(json.loads(sys.argv[2]))))
    else:
        for label, spec in scale_specs("--quick" in sys.argv):
            print(label, measure(spec), flush=True)
