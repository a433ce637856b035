"""``verified-aat certify``: prove that a construction simulates a circuit."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..constructions.binarize import binarize, describe_binarized
from ..constructions.registry import construction_choice, resolve_construction
from ..errors import EXIT_PROVED, EXIT_REFUTED, EXIT_UNKNOWN, InputError, LimitReached
from ..wording import plural
from .common import by_candidates
from .resources import add_resource_options, require_memory
from ..gc_pause import gc_paused
from .option_rules import decimal, integer


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("certify", help="prove T(enc(C, x)) = C(x) for every x and write a certificate",
                       description="Certify that the construction's transformer (or a given, modified one) "
                                   "simulates CIRCUIT on every input. Exit 0 proved, 1 refuted (with a replayed "
                                   "counterexample), 3 unknown, 2 bad input.")
    from .common import add_circuit_argument
    add_circuit_argument(p)
    p.add_argument("--construction", "-c", default="gate-edge", type=construction_choice, metavar="NAME|FILE.json")
    p.add_argument("--transformer", "-t", metavar="SPEC", help="certify this transformer spec instead of T_K "
                   "(a modified construction); encoding and schedule still come from --construction")
    p.add_argument("--depth-bound", "-K", type=integer, default=None)
    p.add_argument("--binarize", action="store_true", help="binarize n-ary products (and sums for unique-hard) first")
    p.add_argument("--every-k", action="store_true",
                   help="certify by the construction's every-K theorem instantiated at CIRCUIT (docs/soundness.md "
                        "P10): no per-circuit obligations, so a certificate costs what reading the circuit costs; "
                        "for T_K of a construction prove-construction proves (or --transformer, at its K)")
    p.add_argument("-o", "--output", metavar="CERT", help="write the certificate here (only when proved; "
                   "- for standard output, the summary then goes to standard error)")
    p.add_argument("--export-smt", metavar="DIR", help="also write every lemma as an .smt2 file")
    p.add_argument("--timeout", type=decimal, default=10.0, help="seconds per solver query (default 10)")
    p.add_argument("--jobs", "-j", type=integer, default=2,
                   help="processes for discharging lemmas, and workers of a local Dask cluster for deriving a "
                        "large encoding's obligations (default 2; the certificate does not depend on it)")
    from .common import add_cluster_argument
    add_cluster_argument(p)
    p.add_argument("--no-timings", action="store_true", help="leave timings out (byte-identical certificates)")
    p.add_argument("--no-refute", action="store_true", help="do not search for a counterexample on failure")
    p.add_argument("--no-kernel", action="store_true",
                   help="write the certificate without the trusted kernel's check (the output then says "
                        "'not checked by the kernel'; `verified-aat check CERT` checks it later)")
    p.add_argument("--progress", action="store_true", help="show a progress bar even when not on a terminal")
    from .json_output import add_json_argument
    add_json_argument(p)
    from .report_cmd import add_report_argument
    add_report_argument(p)
    add_resource_options(p)
    p.set_defaults(func=run)


@gc_paused  # one pass over millions of long-lived objects (gc_pause.py)
def run(args: argparse.Namespace) -> int:
    from .common import check_class_at_source, circuit_from_args
    from ..certificates.document import write_certificate
    from ..pipeline import certify
    from .progress import progress_reporter

    if getattr(args, "json", False) and args.output == "-":
        raise InputError("--json and -o - both write to standard output; give -o a file", "--json")
    from .report_cmd import check_output_path
    check_output_path(None if args.output == "-" else args.output, "-o")  # before any work, not after the proof
    check_output_path(getattr(args, "report", None))
    if args.every_k:
        from .certify_every_k import refuse_per_circuit_options
        refuse_per_circuit_options(args)
    with progress_reporter(args.progress or sys.stderr.isatty()) as progress:
        with progress.stage("import"):
            circuit = circuit_from_args(args)
        construction = resolve_construction(args.construction)
        original = None  # the user's circuit and the roots of its trees, when binarizing changed it
        if args.binarize:
            binarized = binarize(circuit, sums=construction.bounded_fan_in)
            if binarized.gates_rewritten:
                original = (circuit, binarized.roots)
            circuit = binarized.circuit
            print(describe_binarized(binarized), file=sys.stderr)
            args.binarized_gates = binarized.gates_rewritten  # for --json
        check_class_at_source(construction, circuit, args)
        _check_constants(circuit.gates, {None: "--family", "-": "<stdin>"}.get(args.circuit, args.circuit))
        require_memory("certify", circuit.n_edges, args)
        _refuse_past_the_kernels_k(circuit, args)
        transformer = None
        if args.transformer:
            from .transformer_arg import load_for_construction
            transformer = load_for_construction(args.transformer, construction)
            _check_transformer_constants(transformer, args.transformer)
        if args.every_k:
            from .certify_every_k import run_every_k
            return run_every_k(args, circuit, construction, transformer, progress)
        from ..certificates.document import original_section
        from ..circuits.link_section import carry_link, netlist_section

        def sections(result):  # type: ignore[no-untyped-def]
            # an imported netlist: the certificate also proves C equals the netlist (kernel check N);
            # binarized, the link is to the circuit before binarization, which the kernel links to B (B1-B5)
            return {"netlist": netlist_section(original[0] if original else carry_link(circuit, result.circuit)),
                    "original": original_section(*original) if original else None}
        result = certify(circuit, construction, args.depth_bound, transformer, timeout_ms=int(args.timeout * 1000),
                         jobs=max(1, args.jobs), refute=not args.no_refute, kernel=not args.no_kernel,
                         progress=progress, sections=sections, include_timings=not args.no_timings,
                         cluster=args.cluster)
        _check_smt_targets(doc := result.certificate, args.export_smt)  # before the certificate is written
        if doc is not None and args.output and args.output != "-":
            with progress.stage("write"):
                write_certificate(doc, args.output)
    code = _verdict(result, doc, args)
    if getattr(args, "report", None):  # HTML of any outcome, after the verdict (rendering takes longer than a
        from .report_cmd import write  # small proof); its line on stderr when stdout is JSON or the certificate
        write(result, args.report, quiet=args.output == "-" or getattr(args, "json", False), layout=args.layout,
              transformer_path=args.transformer)
    return code


def _check_smt_targets(doc: dict[str, Any] | None, directory: str | None) -> None:
    """The lemma files of --export-smt are written last: each is checked before anything is (an input named like one,
    in that directory, was refused only after the certificate had been written and "proved" said: red team 12)."""
    from ..certificates.document import smt_files
    from ..files import check_directory_targets
    if doc is not None and directory:
        check_directory_targets(directory, [name for name, _ in smt_files(doc)])


def _kernel_line(result) -> tuple[str, str | None]:  # type: ignore[no-untyped-def]
    """(the kernel's outcome, its theorem line or why not) after certify."""
    if result.kernel is None or result.kernel_report is None:
        return (result.kernel or "not run"), None
    report = result.kernel_report
    if report.accepted:
        return "ACCEPTED", report.theorem
    return report.outcome.upper(), "; ".join(report.reasons)[:600]


def _verdict(result, doc, args: argparse.Namespace) -> int:  # type: ignore[no-untyped-def]
    """Print the outcome (text, ``--json``, or the certificate on stdout for ``-o -``); the exit code."""
    if args.output == "-":  # the certificate goes to stdout, everything else to stderr
        import contextlib
        with contextlib.redirect_stdout(sys.stderr):
            code = _report(result, doc, args)
        if doc is not None:
            from ..certificates.document import certificate_bytes
            from .streams import write_bytes
            write_bytes(certificate_bytes(doc))
        return code
    if getattr(args, "json", False):
        return _report_json(result, doc, args)
    return _report(result, doc, args)


def _report_json(result, doc, args: argparse.Namespace) -> int:
    """``--json``: the schema of docs/cli.md, command ``certify``."""
    from ..certificates.document import export_smt
    from .json_output import counterexample_json, emit, envelope

    smt_files = None
    if doc is not None and args.export_smt:
        smt_files = len(export_smt(doc, args.export_smt))
    statuses: dict[str, int] = {}
    for v in result.verdicts.values():
        key = f"{v.status}/{v.solver}"
        statuses[key] = statuses.get(key, 0) + 1
    t = result.transformer
    circuit = result.circuit
    kinds = dict(sorted(result.derivation.kinds.items()))
    outcome, detail = _kernel_line(result)
    return emit(envelope(
        "certify", result.status, reasons=list(result.problems),
        kernel={"outcome": outcome, "theorem": detail if outcome == "ACCEPTED" else None,
                "candidate_link": by_candidates(doc)},
        counts={"gates": circuit.size, "edges": circuit.n_edges, "positions": result.encoding.length,
                "layers": t.n_layers, "lemmas": len(result.derivation.lemmas),
                "obligations": sum(kinds.values()), "solver_calls": result.solver_calls},
        timings=result.seconds,
        construction=result.construction, depth_bound=result.depth_bound,
        circuit={"name": circuit.name, "gates": circuit.size, "edges": circuit.n_edges,
                 "inputs": circuit.n_inputs, "outputs": len(circuit.outputs), **_arithmetization(circuit, args)},
        transformer={"dimension": t.dimension, "layers": t.n_layers, "positions": result.encoding.length,
                     "edited": bool(args.transformer)},
        obligations=kinds, lemmas={"count": len(result.derivation.lemmas), "verdicts": dict(sorted(statuses.items()))},
        certificate=args.output if doc is not None and args.output else None,
        smt_files=smt_files,
        counterexample=counterexample_json(result.counterexample) if result.status == "refuted" else None))


def _arithmetization(circuit: Any, args: argparse.Namespace) -> dict[str, Any]:
    """What the options did to the circuit, for --json: a netlist's mode, cap and dead-gate drop; binarization."""
    out: dict[str, Any] = {}
    mode = circuit.provenance.arithmetization if circuit.provenance is not None else None
    if mode is not None:
        out["arithmetization"] = {"mode": mode, "cap": args.cap, "drop_dead": bool(args.drop_dead)}
    if args.binarize:
        out["binarized_gates"] = getattr(args, "binarized_gates", 0)
    return out


EVERY_K_HINT = 100_000  # gates from which certify points at --every-k (for the construction's own T_K)


def _report(result, doc, args: argparse.Namespace) -> int:
    from ..certificates.document import export_smt

    print_summary(result)
    from ..circuits.link_section import netlist_section
    if result.circuit.size >= EVERY_K_HINT and not args.transformer and netlist_section(result.circuit) is None:
        print(f"hint             {result.circuit.size:,} gates: `certify --every-k` states the same theorem from the "
              "construction's every-K proof, with no per-circuit obligations (docs/cli.md)")
    if result.kernel is not None:
        outcome, detail = _kernel_line(result)
        print(f"kernel           {outcome}")
        if detail:
            print(f"{'theorem' if outcome == 'ACCEPTED' else 'kernel reason':<17}{detail}")
        if doc is None:
            print("certificate      not written: the trusted kernel did not accept the engine's certificate")
            return EXIT_UNKNOWN
    if doc is not None:
        if args.output:
            print(f"certificate      {'(standard output)' if args.output == '-' else args.output}")
        if by_candidates(doc):
            print("note             its netlist link is by candidates (--cap): `verified-aat check CERT "
                  "--candidate-link` re-checks it, trusting that link's own kernel modules (README); without "
                  "--candidate-link, check says NOT CHECKED")
        if args.export_smt:
            files = export_smt(doc, args.export_smt)
            print(f"smt-lib          {plural(len(files), 'file')} in {args.export_smt}")
        return EXIT_PROVED
    if result.status == "refuted":
        print(result.counterexample.report())
        return EXIT_REFUTED
    return EXIT_UNKNOWN


def _check_constants(gates, file: str, where: str = "") -> None:
    """Refuse constants longer than a certificate may hold, before any work."""
    from ..circuits.ir import Kind
    from ..limits import MAX_CERTIFIED_DIGITS, past_certified_digits

    for number, gate in enumerate(gates):
        if gate.kind is Kind.CONST and past_certified_digits(gate.value):
            raise InputError(f"{where}gate {number}: constant has more than {MAX_CERTIFIED_DIGITS:,} digits "
                             f"(the limit on a certified constant, the trusted kernel's)", file)


def _check_transformer_constants(transformer, file: str) -> None:
    from ..limits import MAX_CERTIFIED_DIGITS, past_certified_digits
    from ..transformer.model import CircuitScore

    for number, layer in enumerate(transformer.layers, start=1):
        _check_constants(layer.activation.gates, file, f"layer {number}: activation: ")
        for head in layer.heads:
            if isinstance(head.score, CircuitScore):
                _check_constants(head.score.circuit.gates, file, f"layer {number}: head {head.name}: score: ")
            elif any(past_certified_digits(q) for _, _, q in head.score.entries()):
                raise InputError(f"layer {number}: head {head.name}: an entry has more than "
                                 f"{MAX_CERTIFIED_DIGITS:,} digits (the limit on a certified constant)", file)


def print_summary(result) -> None:
    from rich.console import Console
    from rich.table import Table

    kinds = result.derivation.kinds
    table = Table(title=f"{result.construction} on {result.circuit.name}: {result.status.upper()}",
                  show_header=True, header_style="bold")
    table.add_column("obligation kind")
    table.add_column("count", justify="right")
    for kind in sorted(kinds):
        table.add_row(kind, str(kinds[kind]))
    console = Console(soft_wrap=True)
    console.print(table)
    t = result.transformer
    statuses: dict[str, int] = {}
    for v in result.verdicts.values():
        statuses[f"{v.status}/{v.solver}"] = statuses.get(f"{v.status}/{v.solver}", 0) + 1
    print(f"circuit          {plural(result.circuit.size, 'gate')}, {plural(result.circuit.n_edges, 'edge')}")
    print(f"transformer      dimension {t.dimension}, {plural(t.n_layers, 'layer')}, "
          f"{plural(result.encoding.length, 'position')}")
    print(f"distinct shapes  {plural(len(result.derivation.lemmas), 'lemma')} "
          f"({', '.join(f'{k}: {v}' for k, v in sorted(statuses.items()))})")
    print(f"solver calls     {result.solver_calls}")
    print("time             " + ", ".join(f"{k} {v:.2f}s" for k, v in result.seconds.items()))
    for problem in result.problems[:10]:
        print(f"problem          {problem}")
    if len(result.problems) > 10:
        print(f"problem          … and {len(result.problems) - 10} more")
    print(f"result           {result.status}")


def _refuse_past_the_kernels_k(circuit: Any, args: argparse.Namespace) -> None:
    """A circuit deeper than the kernel's K limit: unknown before any work (it ran 25 s for depth 20,001 first).
    The certificate's K is at least the circuit's depth; ``--every-k`` has the schematic kernel's own limit."""
    from ..circuits.measures import depth
    from ..limits import MAX_K
    if args.depth_bound is None and not args.every_k and (d := depth(circuit)) > MAX_K:
        raise LimitReached(f"the circuit has depth {d:,}, past the kernel's limit K ≤ {MAX_K:,} for a "
                           "per-circuit certificate (certify --every-k proves it for every K); nothing certified")
