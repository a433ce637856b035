#!/usr/bin/env python
"""Benchmarks for verified-aat: certification scaling, real netlists, a monolithic
Z3 baseline, and the exact engine.  See benchmarks/README.md.

    python benchmarks/run_benchmarks.py --quick
    python benchmarks/run_benchmarks.py --only certify,shared --markdown --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from rich.console import Console  # noqa: E402

from tables import Column, Table, render_markdown, render_rich  # noqa: E402

SECTIONS = ("certify", "shared", "baseline", "run", "float", "scale", "audit", "schematic", "audit-prove", "audit-all-n")
SCALING_FAMILIES = ("inner-product", "sum-of-products", "random-fsac", "relu")
SHARED_DIR = Path(__file__).resolve().parents[2] / "shared" / "circuits"
C880_TARGETS = {"certify_s": 5.0, "check_s": 2.0}

err = Console(stderr=True, highlight=False)


class Report:
    """Collects tables and failures; prints each table as soon as it is complete."""

    def __init__(self, markdown: bool):
        self.markdown = markdown
        # rich squeezes tables to 80 columns when stdout is not a terminal: give it room
        self.out = Console(highlight=False, width=None if sys.stdout.isatty() else 250)
        self.tables: dict[str, list[Table]] = {}
        self.failures: list[str] = []

    def show(self, section: str, table: Table) -> None:
        self.tables.setdefault(section, []).append(table)
        if self.markdown:
            print(render_markdown(table), flush=True)
        else:
            render_rich(self.out, table)

    def fail(self, message: str) -> None:
        self.failures.append(message)
        err.print(f"[bold red]!!! FAILURE: {message}[/]")


# -- machine ---------------------------------------------------------------------

def machine_info() -> dict[str, Any]:
    import z3

    def git(*args: str) -> str:
        try:
            return subprocess.run(["git", *args], cwd=HERE.parent, capture_output=True, text=True,
                                  timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return "?"

    dirty = git("status", "--porcelain")
    return {"nproc": os.cpu_count(), "usable_cpus": len(os.sched_getaffinity(0)),
            "python": platform.python_version(), "implementation": platform.python_implementation(),
            "platform": platform.platform(), "processor": platform.processor() or platform.machine(),
            "z3": z3.get_version_string(), "commit": git("rev-parse", "--short", "HEAD") + ("+dirty" if dirty else ""),
            "date": time.strftime("%Y-%m-%d %H:%M:%S %Z")}


def machine_table(info: dict[str, Any]) -> Table:
    t = Table("Machine", [Column("key", "item", right=False), Column("value", "value", right=False)])
    for k, v in info.items():
        t.add({"key": k, "value": v})
    return t


# -- columns shared by the certify tables ---------------------------------------------

CERT_COLUMNS = [
    Column("gates", "gates"), Column("edges", "edges"), Column("positions", "positions"),
    Column("layers", "layers"), Column("lemmas", "lemmas"), Column("solver_calls", "solver calls"),
    Column("nf_proofs", "NF proofs"), Column("certify_s", "certify s", ".2f"), Column("cert_mb", "cert MB", ".2f"),
    Column("check_s", "check s", ".2f"), Column("check_cpu_s", "check CPU s", ".2f"),
    Column("certify_us_per_gate", "µs/gate cert", ".0f"),
    Column("check_us_per_gate", "µs/gate check", ".0f"), Column("status", "status", right=False),
]


def guarded(report: Report, what: str, fn: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """Run one measurement; an exception becomes a loud failure row instead of ending the run."""
    from measure import failure_text

    try:
        row = fn()
    except Exception as exc:  # noqa: BLE001 - every error is reported
        row = {"status": f"ERROR {type(exc).__name__}", "error": f"{type(exc).__name__}: {exc}", "ok": False}
    if not row.get("ok"):
        report.fail(failure_text(what, row))
    return row


# -- 1. scaling ------------------------------------------------------------------------

def section_certify(report: Report, args: argparse.Namespace) -> None:
    from verified_aat.circuits.families import build_family
    from measure import measure_certify, n_for_gates

    targets = [100, 1_000, 10_000] + ([] if args.quick else [100_000])
    table = Table("1. Scaling: gate-edge certify + check on families",
                  [Column("family", "family", right=False), Column("n", "n"), *CERT_COLUMNS])
    by_family: dict[str, list[dict[str, Any]]] = {}
    for family in SCALING_FAMILIES:
        for target in targets:
            n = n_for_gates(family, target)
            err.print(f"[dim]certify {family} n={n} (≈{target} gates) …[/]")
            circuit = build_family(family, n)
            row = {"family": family, "n": n, "target": target}
            row.update(guarded(report, f"certify {family} n={n}",
                               lambda: measure_certify(circuit, timeout_ms=args.timeout_ms, jobs=args.jobs)))
            table.add(row, bad=not row.get("ok"))
            by_family.setdefault(family, []).append(row)
    table.notes.append("certify s: the certify() call; check s / CPU s: the trusted kernel (z3, default defence budget) on "
                       "the certificate after "
                       "dumps_certificate → json.loads; NF proofs: lemmas closed by normal forms (no solver).")
    report.show("certify", table)

    growth = Table("1b. Growth between successive sizes (time ratio / gate ratio; 1.0 = linear)",
                   [Column("family", "family", right=False), Column("from", "from gates"), Column("to", "to gates"),
                    Column("gate_ratio", "gate ×", ".1f"), Column("cert_ratio", "certify time ×", ".1f"),
                    Column("cert_norm", "certify norm.", ".2f"), Column("check_ratio", "check time ×", ".1f"),
                    Column("check_norm", "check norm.", ".2f")])
    for family, rows in by_family.items():
        for a, b in zip(rows, rows[1:]):
            if not (a.get("ok") and b.get("ok")):
                continue
            g = b["gates"] / a["gates"]
            c, k = b["certify_s"] / a["certify_s"], b["check_s"] / a["check_s"]
            growth.add({"family": family, "from": a["gates"], "to": b["gates"], "gate_ratio": g, "cert_ratio": c,
                        "cert_norm": c / g, "check_ratio": k, "check_norm": k / g})
    growth.notes.append("norm. = (time ratio)/(gate ratio): ≈1 linear, <1 fixed costs amortised, >1 superlinear.")
    report.show("certify", growth)


# -- 2. shared netlists ------------------------------------------------------------------

def shared_files() -> list[Path]:
    """The ISCAS and EPFL netlists, then the Bristol Fashion circuits (``.txt``, read by content)."""
    netlists = sorted(p for p in SHARED_DIR.rglob("*") if p.suffix in (".bench", ".blif"))
    return netlists + sorted(p for p in SHARED_DIR.glob("bristol/*.txt") if not p.name.startswith("LICENSE"))


def section_shared(report: Report, args: argparse.Namespace) -> None:
    from verified_aat.circuits.io import load_circuit
    from measure import measure_certify

    table = Table(f"2. Shared netlists ({SHARED_DIR}): gate-edge certify + check",
                  [Column("file", "file", right=False), Column("mode", "mode", right=False),
                   Column("depth", "depth"), *CERT_COLUMNS, Column("target", "target", right=False)])
    files = shared_files()
    if not files:
        report.fail(f"shared: no .bench/.blif files under {SHARED_DIR}")
    for path in files:
        for mode in ("exact", "threshold"):
            name = f"{path.parent.name}/{path.name}"
            err.print(f"[dim]certify {name} ({mode}) …[/]")
            row: dict[str, Any] = {"file": name, "mode": mode}
            row.update(guarded(report, f"certify {name} {mode}",
                               lambda: measure_certify(load_circuit(str(path), mode), timeout_ms=args.timeout_ms,
                                                       jobs=args.jobs)))
            if path.stem == "c880" and mode == "exact" and row.get("ok"):
                marks = []
                for key, limit in C880_TARGETS.items():
                    hit = row[key] <= limit
                    marks.append(f"{key.split('_')[0]} ≤{limit:g}s {'ok' if hit else 'MISSED'}")
                    if not hit:
                        report.fail(f"c880 exact: {key} {row[key]:.2f}s exceeds the target {limit:g}s")
                row["target"] = ", ".join(marks)
            table.add(row, bad=not row.get("ok"))
    table.notes.append(f"Targets for c880 exact: certify ≤ {C880_TARGETS['certify_s']:g} s, "
                       f"check ≤ {C880_TARGETS['check_s']:g} s.")
    report.show("shared", table)


# -- 3. baseline ----------------------------------------------------------------------------

def baseline_cases(quick: bool) -> list[tuple[str, Any]]:
    from verified_aat.circuits.families import build_family
    from verified_aat.circuits.io import load_circuit

    random_ns = (2, 3, 7, 11, 25, 37, 50, 100)
    cases = [(f"random-fsac n={n}", lambda n=n: build_family("random-fsac", n)) for n in random_ns]
    if quick:
        return cases[:2]
    c17 = SHARED_DIR / "iscas85" / "c17.bench"
    cases.append(("c17 (exact)", lambda: load_circuit(str(c17), "exact")))
    for family, n in (("inner-product", 4), ("sum-of-products", 4), ("relu", 4), ("max", 4)):
        cases.append((f"{family} n={n}", lambda f=family, n=n: build_family(f, n)))
    return cases


def section_baseline(report: Report, args: argparse.Namespace) -> None:
    from verified_aat.circuits.measures import depth
    from verified_aat.constructions.registry import get_construction
    from verified_aat.symbolic.certify import certify
    from baseline import run_in_subprocess

    timeout = 10.0 if args.quick and args.baseline_timeout is None else (args.baseline_timeout or 60.0)
    table = Table(f"3. Baseline: one monolithic Z3 query ∀x. T(enc(C,x)) = C(x) (timeout {timeout:g} s) vs certify",
                  [Column("circuit", "circuit", right=False), Column("gates", "gates"), Column("depth", "depth"),
                   Column("positions", "positions"), Column("nodes", "query nodes"),
                   Column("build_s", "build s", ".2f"), Column("solve", "solve s", right=True),
                   Column("status", "baseline", right=False), Column("baseline_s", "baseline s", ".2f"),
                   Column("ours_s", "certify s", ".3f"), Column("ratio", "baseline/ours", ".1f")])
    construction = get_construction("gate-edge")
    for label, build in baseline_cases(args.quick):
        err.print(f"[dim]baseline {label} …[/]")
        try:
            circuit = build()
            t0 = time.perf_counter()
            ours = certify(circuit, construction, timeout_ms=args.timeout_ms)
            ours_s = time.perf_counter() - t0
            if ours.status != "proved":
                report.fail(f"baseline case {label}: certify says {ours.status}: {ours.problems[:3]}")
            res = run_in_subprocess(circuit, "gate-edge", timeout)
        except Exception as exc:  # noqa: BLE001
            report.fail(f"baseline {label}: {type(exc).__name__}: {exc}")
            table.add({"circuit": label, "status": f"ERROR {type(exc).__name__}"}, bad=True)
            continue
        row = {"circuit": label, "gates": circuit.size, "depth": depth(circuit), "positions": ours.encoding.length,
               "nodes": res.get("query_nodes"), "build_s": res.get("build_s"), "status": res["status"],
               "reason": res.get("reason"), "solve_s": res.get("solve_s"), "wall_s": res.get("wall_s"),
               "ours_s": ours_s, "ours_status": ours.status}
        solve_s = res.get("solve_s")
        row["solve"] = "TIMEOUT" if res["status"] == "TIMEOUT" else (f"{solve_s:.2f}" if solve_s is not None else "–")
        if res["status"] == "proved":
            row["baseline_s"] = res["build_s"] + res["solve_s"]
            row["ratio"] = row["baseline_s"] / ours_s
        if res["status"] in ("REFUTED", "error"):
            report.fail(f"baseline {label}: {res['status']}: {res.get('reason')}")
        if res["status"] == "unsupported":
            row["status"] = "unsupported"
        table.add(row, bad=res["status"] in ("REFUTED", "error"))
    table.notes.append("baseline s = build (symbolic run of T on Z3 terms, constant folding only) + solve; "
                       "ratio only where the baseline proves the claim. certify s = our certify() call.")
    report.show("baseline", table)


# -- 4. exact engine ------------------------------------------------------------------------

def measured_rows(section: str, specs: list[tuple[str, dict[str, Any]]], measure: Callable[[dict[str, Any]], Any],
                  goal_text: Callable[[dict[str, Any], dict[str, Any]], str]) -> Any:
    """Each spec measured (an exception becomes the row's ``error``), labelled, with its goal text."""
    for label, spec in specs:
        err.print(f"[dim]{section}: {label} …[/]")
        try:
            row = {"label": label, **measure(spec)}
        except Exception as exc:  # noqa: BLE001
            row = {"label": label, "error": f"{type(exc).__name__}: {exc}"}
        row["goal"] = goal_text(spec, row)
        yield row


def section_run(report: Report, args: argparse.Namespace) -> None:
    """``verified-aat run --inputs`` in fresh processes (run_scale.py): CPU, wall, peak RSS, goals of issue 8."""
    from run_scale import goal_text, measure, run_specs

    table = Table("4. Exact engine: verified-aat run in a fresh process (compile not timed; CPU = user + sys)",
                  [Column("label", "circuit", right=False), Column("gates", "gates"),
                   Column("positions", "positions"), Column("layers", "layers"), Column("vectors", "vectors"),
                   Column("wall_s", "wall s", ".2f"), Column("cpu_s", "CPU s", ".2f"),
                   Column("per_vector_s", "s/vector", ".2f"), Column("rss_mb", "peak MB", ".0f"),
                   Column("argmax", "argmax sets", right=False), Column("matches", "read-out = C(x)"),
                   Column("goal", "goal (issue 8)", right=False)])
    for row in measured_rows("run", run_specs(args.quick), measure, goal_text):
        if "error" in row:
            report.fail(f"run {row['label']}: {row['error']}")
        elif not row["matches"]:
            report.fail(f"run {row['label']}: a read-out differs from evaluate(C, x)")
        elif row["goal"].startswith("missed"):
            report.fail(f"run {row['label']}: goal {row['goal']}")
        table.add(row, bad="error" in row or not row.get("matches") or row["goal"].startswith("missed"))
    table.notes.append("wall/CPU/peak MB: the whole `verified-aat run MODEL --encoding ENC --inputs FILE` process "
                       "(loading the model and encoding, proving the key lemmas, the exact runs); s/vector = wall / "
                       "vectors. argmax sets: `join` = key join on proved decompositions, `all-pairs` = every pair "
                       "scored. Goals: 10^5 gates ≤ 10 s per vector; c6288-like ≤ 5 s at ≤ 1 GB.")
    report.show("run", table)


# -- 4b. float engine at scale (issue 22) ---------------------------------------------------------

def section_float(report: Report, args: argparse.Namespace) -> None:
    """``verified-aat run --engine float64`` in fresh processes (float_scale.py): CPU beside wall, peak RSS."""
    from float_scale import float_specs, goal_text, measure

    table = Table("4b. Float engine: verified-aat run --engine float64 in a fresh process (compile not timed; "
                  "CPU = user + sys)",
                  [Column("label", "circuit", right=False), Column("gates", "gates"),
                   Column("positions", "positions"), Column("layers", "layers"),
                   Column("cpu_s", "CPU s", ".2f"), Column("wall_s", "wall s", ".2f"),
                   Column("engine_s", "engine s", ".2f"), Column("rss_mb", "peak MB", ".0f"),
                   Column("argmax", "argmax sets", right=False), Column("max_rel_err", "max rel err vs C(x)", ".1e"),
                   Column("value_bits", "value bits needed"), Column("exact_cpu_s", "exact run CPU s", ".2f"), Column("exact_equals_c", "exact = C(x)"),
                   Column("goal", "goal (issue 22)", right=False)])
    for row in measured_rows("float", float_specs(args.quick), measure, goal_text):
        bad = "error" in row or (row.get("bounded") and not row.get("within")) or row["goal"].startswith("missed")
        if bad:
            report.fail(f"float {row['label']}: {row.get('error') or row['goal']}")
        table.add(row, bad=bad)
    table.notes.append("the whole `verified-aat run MODEL --encoding ENC --input=@FILE --engine float64` process "
                       "(loading, key lemmas, the run); engine s = the run itself. argmax sets: `join` = key join, "
                       "taken only where the float scores are provably exact. Goal: 10^6 gates ≤ 30 s CPU, read-outs "
                       "within 1e-9 relative error of C(x) (= the exact run's read-out) where the values' precision "
                       "bound (value bits needed, |x| ≤ 9) fits float64's 53 bits; past it the error is shown, "
                       "not judged.")
    report.show("float", table)


# -- 5. scale (issue 8 goals) ------------------------------------------------------------------

SCALE_GOALS = {"certify_s": 60.0, "check_s": 60.0, "certify_rss_mb": 2048.0, "cert_bytes_per_gate": 40.0,
               "certify_eval_ratio": 8.0}


def section_scale(report: Report, args: argparse.Namespace) -> None:
    """Each circuit certified and checked in fresh processes: CPU, wall, peak memory, ratio to eval."""
    from scale import measure, scale_specs

    table = Table("5. Scale: certify and check in fresh processes (CPU = user + sys of the process and its helpers)",
                  [Column("label", "circuit", right=False), Column("gates", "gates"), Column("positions", "positions"),
                   Column("eval_cpu_s", "eval CPU s", ".3f"), Column("certify_s", "certify s", ".1f"),
                   Column("certify_cpu_s", "certify CPU s", ".1f"), Column("certify_rss_mb", "certify MB", ".0f"),
                   Column("certify_child_rss_mb", "helper MB", ".0f"),
                   Column("certify_eval_ratio", "certify/eval", ".0f"),
                   Column("cert_bytes_per_gate", "cert B/gate", ".1f"), Column("check_s", "check s", ".1f"),
                   Column("check_cpu_s", "check CPU s", ".1f"), Column("check_rss_mb", "check MB", ".0f"),
                   Column("goals", "goals (issue 8)", right=False)])
    for label, spec in scale_specs(args.quick):
        err.print(f"[dim]scale: {label} …[/]")
        row = {"label": label, **measure(spec)}
        if "error" in row:
            report.fail(f"scale {label}: {row['error']}")
            row["goals"] = row["error"][:60]
        elif not row.get("accepted"):
            report.fail(f"scale {label}: certificate not accepted: {row.get('reasons')}")
            row["goals"] = "NOT ACCEPTED"
        else:
            goals = dict(SCALE_GOALS) if row["gates"] >= 900_000 else {}
            if row["gates"] < 100_000:
                goals.pop("certify_eval_ratio", None)
            elif "certify_eval_ratio" not in goals:
                goals["certify_eval_ratio"] = SCALE_GOALS["certify_eval_ratio"]
            missed = [f"{k} {row[k]:.1f} > {limit:g}" for k, limit in goals.items() if row.get(k, 0) > limit]
            row["goals"] = "–" if not goals else "met" if not missed else "missed: " + "; ".join(missed)
        table.add(row, bad="error" in row or not row.get("accepted"))
    table.notes.append("goals at 10^6 gates: certify ≤ 60 s at ≤ 2 GB, check ≤ 60 s, ≤ 40 bytes per gate; "
                       "certify ≤ 8× eval at 10^5 gates and above (eval = exact evaluation of C on one input).")
    report.show("scale", table)


# -- 6. audit --------------------------------------------------------------------------------

def section_audit(report: Report, args: argparse.Namespace) -> None:
    from audit_scale import audit_rows

    table = Table("6. audit: unroll and check U_N (gate-edge T on a small circuit), fresh process per N",
                  [Column("N", "N"), Column("gates", "gates of U_N"), Column("depth", "depth"),
                   Column("wall_s", "wall s", ".2f"), Column("cpu_s", "CPU s", ".2f"),
                   Column("peak_rss_mb", "MB", ".0f"), Column("ok", "checks pass"),
                   Column("target_s", "target s", ".0f"), Column("met", "met")])
    for row in audit_rows(args.quick):
        if not row.get("ok"):
            report.fail(f"audit N={row.get('N')}: {row}")
        table.add(row, bad=not row.get("ok") or row.get("met") is False)
    report.show("audit", table)


# -- 7. schematic proofs ---------------------------------------------------------------------

def section_schematic(report: Report, args: argparse.Namespace) -> None:
    from schematic_bench import schematic_rows

    table = Table("7. prove-construction: one proof for every circuit of depth ≤ K, prover then kernel (z3)",
                  [Column("construction", "construction", right=False), Column("K", "K"), Column("lemmas", "lemmas"),
                   Column("prove_s", "prove wall s", ".2f"), Column("prove_cpu_s", "prove CPU s", ".2f"),
                   Column("check_s", "check wall s", ".2f"), Column("check_cpu_s", "check CPU s", ".2f"),
                   Column("status", "status", right=False)])
    for row in schematic_rows(args.quick):
        if not row.get("ok"):
            report.fail(f"prove-construction {row['construction']} K={row['K']}: {row['status']}")
        table.add(row, bad=not row.get("ok"))
    table.notes.append("K = every: one certificate for every K (T_K repeats one layer pair, or one layer). CPU s "
                       "include the solver, which runs in this process.")
    report.show("schematic", table)


# -- 8. audit --prove ------------------------------------------------------------------------

def section_audit_prove(report: Report, args: argparse.Namespace) -> None:
    from audit_prove_bench import prove_rows

    table = Table("8. audit --prove: U_N = T certified (gate-edge T_6 of mixed_depth6.circ, 12 layers), "
                  "engine + kernel, then check",
                  [Column("lengths", "N", right=False), Column("lemmas", "lemmas"),
                   Column("prove_s", "prove wall s", ".2f"), Column("prove_cpu_s", "prove CPU s", ".2f"),
                   Column("check_s", "check wall s", ".2f"), Column("check_cpu_s", "check CPU s", ".2f"),
                   Column("status", "status", right=False), Column("target_s", "target s", ".0f"),
                   Column("met", "met")])
    for row in prove_rows(args.quick):
        if not row.get("ok"):
            report.fail(f"audit --prove N={row.get('lengths')}: {row}")
        table.add(row, bad=not row.get("ok") or row.get("met") is False)
    table.notes.append("CPU s include the solver worker processes (2 jobs); each case runs in a fresh process.")
    report.show("audit-prove", table)


# -- 9. audit --prove for every N -----------------------------------------------------------

def section_audit_all_n(report: Report, args: argparse.Namespace) -> None:
    from audit_all_n import all_n_rows

    table = Table("9. audit --prove, every N: the all-N certificate of each construction's T_K (K = 2..6), of the "
                  "hand-written specs, and the round trips of c880 and inner-product-4096 per link",
                  [Column("case", "case", right=False), Column("prove_cpu_s", "prove CPU s", ".2f"),
                   Column("prove_s", "prove wall s", ".2f"), Column("check_cpu_s", "check CPU s", ".2f"),
                   Column("check_s", "check wall s", ".2f"), Column("lemmas", "lemmas"),
                   Column("size", "size of U_N", right=False), Column("depth", "depth"),
                   Column("status", "status", right=False)])
    for row in all_n_rows(args.quick):
        if not row.get("ok"):
            report.fail(f"audit --prove every N, {row.get('case')}: {row.get('status')} {row.get('error', '')}")
        table.add(row, bad=not row.get("ok"))
    table.notes.append("check: verified_aat.kernel.check_certificate on a fresh JSON copy; CPU s include finished "
                       "child processes; each case runs in a fresh process. Link 3 of a round trip is by "
                       "composition of links 1 and 2 (U_N not built).")
    report.show("audit-all-n", table)


# -- main ------------------------------------------------------------------------------------

def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", default=",".join(SECTIONS),
                   help=f"comma-separated sections to run (default all: {','.join(SECTIONS)})")
    p.add_argument("--quick", action="store_true", help="small sizes only; the whole run stays around a minute")
    p.add_argument("--markdown", action="store_true", help="print GitHub-markdown tables instead of rich tables")
    p.add_argument("--json", metavar="FILE", help="also write every row (raw numbers) to FILE")
    p.add_argument("--baseline-timeout", type=float, default=None,
                   help="Z3 timeout in seconds for the monolithic baseline (default 60, 10 with --quick)")
    p.add_argument("--timeout", type=float, default=10.0, help="per-lemma solver timeout of certify/check (s)")
    p.add_argument("--jobs", type=int, default=1, help="processes certify uses to discharge lemmas (default 1)")
    args = p.parse_args(argv)
    args.sections = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = [s for s in args.sections if s not in SECTIONS]
    if unknown:
        p.error(f"unknown section(s) {', '.join(unknown)}; choose from {', '.join(SECTIONS)}")
    args.timeout_ms = int(args.timeout * 1000)
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    report = Report(args.markdown)
    info = machine_info()
    report.show("machine", machine_table(info))
    runners = {"certify": section_certify, "shared": section_shared, "baseline": section_baseline,
               "run": section_run, "float": section_float, "scale": section_scale, "audit": section_audit,
               "schematic": section_schematic, "audit-prove": section_audit_prove,
               "audit-all-n": section_audit_all_n}
    started = time.perf_counter()
    seconds: dict[str, float] = {}
    for name in SECTIONS:
        if name in args.sections:
            t0 = time.perf_counter()
            runners[name](report, args)
            seconds[name] = round(time.perf_counter() - t0, 2)
    total = time.perf_counter() - started
    err.print(f"sections took {seconds} (total {total:.1f}s)")
    if args.json:
        data = {"machine": info, "quick": args.quick, "sections_run": args.sections, "section_seconds": seconds,
                "tables": {s: [t.to_json() for t in ts] for s, ts in report.tables.items()},
                "failures": report.failures}
        Path(args.json).write_text(json.dumps(data, indent=1, default=str) + "\n", encoding="utf-8")
        err.print(f"wrote {args.json}")
    if report.failures:
        err.print(f"[bold red]{len(report.failures)} FAILURE(S):[/]")
        for f in report.failures:
            err.print(f"[bold red]  - {f}[/]")
        return 1
    err.print("[bold green]all benchmarks proved/accepted and matched[/]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
