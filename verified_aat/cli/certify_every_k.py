"""``verified-aat certify --every-k``: the construction's every-K theorem instantiated at the circuit (P10).

No per-circuit obligations: ``prove-construction`` proves T_K for every circuit of the class, the circuit goes
into the certificate's ``instance`` section, and the trusted kernel checks both (``schematic/instance.py``).
Exit 0 proved, 3 unknown (the every-K theorem is not proved, or the circuit is deeper than a fixed K), 2 bad
input (options that need the per-circuit route).
"""

from __future__ import annotations

import argparse
from typing import Any

from ..errors import EXIT_PROVED, EXIT_UNKNOWN, InputError

PER_CIRCUIT_ONLY = (("binarize", "--binarize"), ("depth_bound", "--depth-bound"), ("export_smt", "--export-smt"),
                    ("cluster", "--cluster"), ("jobs", "--jobs"), ("no_refute", "--no-refute"))


def refuse_per_circuit_options(args: argparse.Namespace) -> None:
    """Before any work: the options that only the per-circuit route has (``--jobs`` and ``--no-refute`` too: the
    every-K proof runs in one process and searches its witness whatever they say)."""
    from .option_rules import given
    for name, option in PER_CIRCUIT_ONLY:
        if given(args, name):
            raise InputError(f"--every-k instantiates the every-K theorem at K = the circuit's depth and derives "
                             f"nothing per circuit; {option} needs the per-circuit route (leave out --every-k)",
                             option)


def run_every_k(args: argparse.Namespace, circuit: Any, construction: Any, transformer: Any, progress: Any) -> int:
    """Certify, write the certificate (when the kernel accepted it), print the outcome; the exit code."""
    from ..api import certify
    from ..certificates.document import certificate_bytes, write_certificate
    from ..circuits.link_section import netlist_section

    if netlist_section(circuit) is not None:
        raise InputError("--every-k takes an arithmetic circuit: the link from a netlist to its arithmetization "
                         "(N) is checked only on the per-circuit route (leave out --every-k)",
                         args.circuit or "--family")
    with progress.stage("prove-construction"):
        result = certify(circuit, construction, transformer=transformer, timeout=args.timeout, kernel=not args.no_kernel,
                         every_k=True)
        if args.no_timings and result.certificate is not None:
            result.certificate.pop("timings", None)
    doc = result.certificate
    if doc is not None and args.output and args.output != "-":
        with progress.stage("write"):
            write_certificate(doc, args.output)
    if getattr(args, "json", False):
        code = _json(result, args)
    else:
        code = _text(result, args)
    if doc is not None and args.output == "-":
        from .streams import write_bytes
        write_bytes(certificate_bytes(doc))
    if getattr(args, "report", None):
        _report(result, args)
    return code


def _text(result: Any, args: argparse.Namespace) -> int:
    import contextlib
    import sys

    from ..wording import plural

    out = sys.stderr if args.output == "-" else sys.stdout
    with contextlib.redirect_stdout(out):
        proof, C = result.schematic, result.circuit
        print(f"{result.construction} on {C.name}: the every-K theorem instantiated at the circuit")
        print(f"circuit          {plural(C.size, 'gate')}, {plural(C.n_edges, 'edge')}, depth {result.depth}")
        statement = "every K" if proof.depth_bound is None else f"K = {proof.depth_bound}"
        print(f"every-K proof    {proof.status} ({statement}, {plural(proof.lemmas, 'lemma')})")
        print("time             " + ", ".join(f"{k} {v:.2f}s" for k, v in result.seconds.items()))
        for problem in result.problems[:6]:
            print(f"problem          {problem}")
        if result.kernel is not None:
            print(f"kernel           {_outcome(result)}")
            if result.theorem:
                print(f"theorem          {result.theorem}")
        if result.certificate is not None and args.output:
            print(f"certificate      {'(standard output)' if args.output == '-' else args.output}")
        print(f"result           {result.status}")
    return EXIT_PROVED if result.status == "proved" else EXIT_UNKNOWN


def _outcome(result: Any) -> str:
    """The kernel's verdict as the per-circuit route prints it (ACCEPTED, ...), or why there is none."""
    return result.kernel.upper() if result.kernel_report is not None else result.kernel or "not run"


def _json(result: Any, args: argparse.Namespace) -> int:
    """``--json``: the envelope of docs/cli.md, command ``certify``, with ``route: every-k``."""
    from .json_output import emit, envelope

    C, proof = result.circuit, result.schematic
    theorem = result.theorem if result.kernel == "accepted" else None
    return emit(envelope(
        "certify", str(result.status), reasons=list(result.problems),
        kernel={"outcome": _outcome(result), "theorem": theorem},
        counts={"gates": C.size, "edges": C.n_edges, "depth": result.depth, "lemmas": proof.lemmas},
        timings=result.seconds, route="every-k", construction=result.construction,
        every_k={"status": proof.status, "depth_bound": proof.depth_bound},
        circuit={"name": C.name, "gates": C.size, "edges": C.n_edges, "inputs": C.n_inputs,
                 "outputs": len(C.outputs), "depth": result.depth},
        certificate=args.output if result.certificate is not None and args.output else None))


def _report(result: Any, args: argparse.Namespace) -> None:
    """``--report``: the page of the certificate, as ``report CERT`` writes it (there is one only when proved)."""
    import sys

    if result.certificate is None:
        print(f"report           not written: --every-k gave no certificate ({result.status})", file=sys.stderr)
        return
    from ..results import CheckReport
    from .report_cmd import _with_kernel, write
    source = result.certificate if result.kernel_report is None else _with_kernel(
        result.certificate, CheckReport.from_kernel(result.kernel_report), "(certify --every-k)")
    write(source, args.report, quiet=args.output == "-" or getattr(args, "json", False), layout=args.layout)
