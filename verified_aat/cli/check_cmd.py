"""``verified-aat check``: the trusted kernel's verdict on a certificate.

Exit codes: 0 accepted, 1 rejected, 2 bad input (the file is not JSON, a
bad option), 3 not checked (a solver answered *unknown* or timed out).
"""

from __future__ import annotations

import argparse
import json
import sys

from ..errors import EXIT_OK, EXIT_REFUTED, EXIT_UNKNOWN, InputError, one_line
from .common import by_candidates
from .resources import add_resource_options, require_memory
from .option_rules import decimal, integer
from ..wording import plural


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("check", help="re-check a certificate with the trusted kernel",
                       description="Re-derive every obligation of CERT with the trusted kernel "
                                   "(verified_aat/kernel), verify every hint, decide every lemma by the kernel's own normal forms "
                                   "and proof objects (a solver only where they do not, named in the verdict's trust "
                                   "line, or as a second opinion with --solver), and run the kernel's own interpreter on seeded inputs. Exit 0 accepted, "
                                   "1 rejected, 2 bad input, 3 not checked (a solver gave up or a limit was reached).")
    p.add_argument("certificate", metavar="CERT")
    p.add_argument("--circuit", metavar="FILE",
                   help="the circuit the certificate must be about: a circuit file (same structure) or a netlist "
                        "(.bench/.blif/.bristol, a Bristol Fashion .txt, AIGER .aag/.aig, or Verilog .v/.sv through "
                        "yosys: the kernel proves the certified circuit equals the netlist's function)")
    p.add_argument("--format", choices=["text", "json", "bench", "blif", "bristol"], default=None,
                   dest="circuit_format", help="read --circuit FILE in this format whatever its extension")
    p.add_argument("--mode", choices=["exact", "threshold"], default=None,
                   help="refused (exit 2): a netlist certificate states its own mode, which check reads from it")
    p.add_argument("--solver", choices=["z3", "cvc5", "yices", "both", "all"], default=None,
                   help="a second opinion on every lemma (default: none; Z3 decides only the lemmas the kernel's "
                        "own normal form does not)")
    p.add_argument("--no-solver-trust", action="store_true",
                   help="a lemma that only a solver decides is NOT CHECKED (exit 3), never ACCEPTED")
    p.add_argument("--candidate-link", action="store_true",
                   help="read a netlist link by candidates (certify --cap N, or a certificate written before stop 51), "
                        "trusting that link's own kernel modules, past the default's 3,000 lines (README); without it "
                        "such a certificate is NOT CHECKED (exit 3)")
    p.add_argument("--jobs", "-j", type=integer, default=2,
                   help="workers of a local Dask cluster deriving the obligations of large certificates (≥ 1; "
                        "default 2; the verdict does not depend on it)")
    from .common import add_cluster_argument
    add_cluster_argument(p)
    p.add_argument("--timeout", type=decimal, default=20.0,
                   help="seconds per lemma and solver (> 0; default 20)")
    p.add_argument("--defence-budget", type=integer, default=None, metavar="N",
                   help="activation evaluations the kernel's interpreter may spend (0: skip it; default: "
                        "max(30000, min(5 per position, 10^6)), about one full run up to ~2e5 positions)")
    p.add_argument("--verbose", action="store_true", help="print every check with its time")
    p.add_argument("--progress", action="store_true", help="show progress even when stderr is not a terminal")
    from .json_output import add_json_argument
    add_json_argument(p)
    add_resource_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from .common import read_certificate_argument
    from ..api import check, solver_options

    _require_options(args)
    doc = read_certificate_argument(args.certificate)  # a CertificateFileError is main()'s: one line, exit 2
    from .common import CERTIFICATE_FORMATS
    from .option_rules import given
    if given(args, "defence_budget") and doc.get("format") != CERTIFICATE_FORMATS[0]:  # schematic and audit: no interpreter
        raise InputError(f"the kernel's interpreter runs T on a per-circuit certificate's circuit; this certificate "
                         f"({str(doc.get('format'))[:60]}) has none: here it would do nothing", "--defence-budget")
    require_memory("check", _edges_in(doc), args)
    solvers = solver_options(args.solver, not args.no_solver_trust)["solvers"]
    from .progress import progress_reporter
    with progress_reporter(args.progress or sys.stderr.isatty()) as progress:
        def show(name: str, number: int, total: int) -> None:
            progress("check", 1, total)
        report = check(doc, args.circuit or None, solver=args.solver, solver_trust=not args.no_solver_trust,
                       circuit_format=args.circuit_format, netlist_mode=args.mode, timeout=args.timeout,
                       jobs=args.jobs, defence_budget=args.defence_budget, cluster=args.cluster,
                       candidate_link=args.candidate_link, progress=show)
    if getattr(args, "json", False):
        return _report_json(report, doc, args, solvers)
    return _print_report(report, doc, args, solvers)


def _require_options(args: argparse.Namespace) -> None:
    if not args.timeout > 0:
        raise InputError(f"must be > 0 seconds, got {args.timeout}", "--timeout")
    if args.jobs < 1:
        raise InputError(f"must be ≥ 1, got {args.jobs}", "--jobs")
    if args.defence_budget is not None and args.defence_budget < 0:
        raise InputError(f"must be >= 0, got {args.defence_budget}", "--defence-budget")
    if args.circuit == "-":  # the kernel opens --circuit FILE itself (its own reader): there is no stdin path into it
        raise InputError("standard input (-) is not read here: the trusted kernel reads the circuit file itself; "
                         "give a file", "--circuit")


def _print_report(report, doc: dict, args: argparse.Namespace, solvers: tuple[str, ...]) -> int:
    """The human verdict: every line comes from the kernel's report or the kernel's own readers."""
    print(f"certificate  {one_line(args.certificate)}")
    if args.verbose:
        for name, result, seconds in report.checks:
            print(f"  check {name:17} {result:4} {seconds:.3f}s")
    print(f"obligations  {report.obligations} re-derived, {plural(report.lemmas, 'lemma')}, {report.kernel_decided} "
          f"by the kernel itself, {report.solver_runs} solver runs ({'+'.join(solvers)}), {report.seconds:.2f}s")
    if report.defence:
        print(f"defence      {one_line(report.defence)}")
    from ..results import transformer_is_own
    own = transformer_is_own(doc)
    if own is not None:
        print("transformer  " + ("the construction's own T_K" if own else "an edited transformer (not the "
                                                                      "construction's T_K)"))
    for reason in report.reasons[:len(report.reasons) - len(report.unchecked)]:  # the first rejections, "… K more"
        print(f"rejected     {one_line(reason)}")  # values a forged certificate chose
    for item in report.unchecked:
        print(f"not checked  {one_line(item)}")
    if report.accepted:
        print(f"trust        {one_line(report.trust)}")
        if args.candidate_link and by_candidates(doc):
            print("trust        and the netlist link by candidates (--candidate-link): its own kernel modules, "
                  "past the default's 3,000 trusted lines (README)")
        print(f"theorem      {one_line(report.theorem)}")
        print("result       ACCEPTED")
        return EXIT_OK
    if report.rejections:
        print("result       REJECTED")
        return EXIT_REFUTED
    print("result       NOT CHECKED (neither a rejection nor a proof: see 'not checked' above)")
    return EXIT_UNKNOWN


def _edges_in(doc: dict) -> int:
    """The circuit edges a certificate names (for the memory estimate only: the kernel judges the content)."""
    circuit = doc.get("circuit")
    gates = circuit.get("gates") if isinstance(circuit, dict) else None
    if not isinstance(gates, list):
        return 0
    return sum(len(g[1]) for g in gates if isinstance(g, list) and len(g) > 1 and isinstance(g[1], list))


def _report_json(report, doc, args: argparse.Namespace, solvers: tuple[str, ...]) -> int:
    """``--json``: the schema of docs/cli.md, command ``check``."""
    from ..results import transformer_is_own
    from .json_output import emit, envelope

    if report.accepted:
        status = "accepted"
    elif report.rejections:
        status = "rejected"
    else:
        status = "not-checked"
    own = transformer_is_own(doc)
    return emit(envelope(
        "check", status, reasons=report.reasons,
        counts={"obligations": report.obligations, "lemmas": report.lemmas, "solver_runs": report.solver_runs,
                "kernel_decided": report.kernel_decided, "solver_only": len(report.solver_only),
                "checks": len(report.checks), "rejections": len(report.rejections),
                "not_checked": len(report.unchecked)},
        timings={"total": report.seconds},
        certificate=args.certificate, solvers=list(solvers), solver_only=list(report.solver_only),
        solver_trust=not args.no_solver_trust, candidate_link=bool(args.candidate_link and by_candidates(doc)),
        theorem=report.theorem if report.accepted else None,
        checks=[{"name": name, "result": result, "seconds": round(seconds, 6)}
                for name, result, seconds in report.checks],
        rejections=[{"check": r.check, "step": r.step, "rule": r.rule, "detail": r.detail, "message": r.message,
                     "data": json.loads(json.dumps(dict(r.data), default=str))}  # values in full, JSON-safe
                    for r in report.rejections],
        not_checked=list(report.unchecked), defence=report.defence or None,
        transformer=None if own is None else ("construction" if own else "edited")))
