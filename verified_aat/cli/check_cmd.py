"""``verified-aat check``: re-check a certificate independently."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("check", help="re-check a certificate (independent of the symbolic engine)",
                       description="Re-derive every obligation of CERT from its circuit, transformer and encoding, "
                                   "compare with the certificate and re-run the solver(s) on every lemma. "
                                   "Exit 0 accepted, 1 rejected, 2 bad input.")
    p.add_argument("certificate", metavar="CERT")
    p.add_argument("--circuit", metavar="FILE", help="check against this circuit file (must be the certified one)")
    p.add_argument("--mode", choices=["exact", "threshold"], default="exact", help="arithmetization for netlists")
    p.add_argument("--solver", choices=["z3", "cvc5", "both"], default="z3")
    p.add_argument("--timeout", type=float, default=20.0, help="seconds per lemma and solver")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..checker.check import check_certificate, load_certificate

    doc = load_certificate(args.certificate)
    circuit = None
    if args.circuit:
        from ..circuits.io import load_circuit
        circuit = load_circuit(args.circuit, args.mode)
    solvers = ("z3", "cvc5") if args.solver == "both" else (args.solver,)
    report = check_certificate(doc, circuit, solvers, int(args.timeout * 1000))
    print(f"certificate  {args.certificate}")
    print(f"obligations  {report.obligations} re-derived, {report.lemmas_checked} lemmas, "
          f"{report.solver_runs} solver runs ({'+'.join(solvers)}), {report.seconds:.2f}s")
    if report.transformer_is_construction is not None:
        print("transformer  " + ("the construction's own T_K" if report.transformer_is_construction
                                 else "an edited transformer (not the construction's T_K)"))
    if report.accepted:
        print("result       ACCEPTED")
        return 0
    for reason in report.reasons:
        print(f"rejected     {reason}")
    print("result       REJECTED")
    return 1
