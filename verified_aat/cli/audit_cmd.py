"""``verified-aat audit``: unroll a transformer into an FSAC⁰[sign] circuit per length N and audit it.

MODEL is a transformer spec (JSON); ``--construction NAME`` with a circuit
(file or ``--family NAME --n N``) audits the compiled T_K instead, and
``--encoded K`` adds K encodings enc(C, x) with random x at their own length.
Exit 0 when every check passes, 1 on a mismatch, a class violation, a size
formula violation or a depth that depends on N, 2 on bad input.
"""

from __future__ import annotations

import argparse
import random
import re
from collections import Counter
from fractions import Fraction
from typing import Any

from ..audit.check import DEFAULT_LENGTHS, AuditReport, audit
from ..audit.unroll import unroll
from ..circuits.io import save_circuit
from ..constructions.registry import construction_choice
from ..files import shown
from ..errors import EXIT_OK, EXIT_REFUTED, InputError
from ..limits import MAX_AUDIT_LENGTH, MAX_AUDIT_LENGTHS, MAX_ENCODED, MAX_SAMPLES
from ..transformer.model import Transformer
from ..transformer.spec import load_transformer
from .common import ARGUMENTS, add_circuit_argument, circuit_from_args
from .resources import add_resource_options, require_memory
from .audit_prove_cmd import add_prove_options, check_kernel_caps, run_prove, run_prove_all_n
from .round_trip_cmd import add_round_trip_options, check_defect_option, run_round_trip, unroller_option
from .option_rules import integer
from ..wording import plural


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "audit", help="unroll a transformer into an FSAC0[sign] circuit per length N and audit it",
        description="For each length N: unroll the transformer into an arithmetic circuit with N·d inputs "
                    "(MATH.md §5), check its class (every mul binary: FSAC0[sign] or smaller), its size against "
                    "the exact count formula and its depth (the same for every N >= 2), and compare it with the "
                    "exact engine on seeded random sequences with ties.")
    parser.add_argument("model", nargs="?", metavar="MODEL", help="transformer spec (verified-aat/transformer JSON)")
    parser.add_argument("--construction", "-c", metavar="NAME|FILE.json", type=construction_choice,
                        help="audit the construction's compiled transformer for a circuit (CIRCUIT or --family): a "
                             "built-in's name or a construction document")
    add_circuit_argument(parser)
    parser.add_argument("--lengths", default=None, metavar="N,N,...",
                        help="sequence lengths to audit, a list with ranges such as 2..8,16 (default "
                             f"{','.join(map(str, DEFAULT_LENGTHS))}); with --prove: prove U_N = T for these N only "
                             "(a per-N certificate) instead of for every N")
    parser.add_argument("--samples", type=integer, default=20, metavar="K",
                        help="random sequences per length (default %(default)s)")
    parser.add_argument("--seed", type=integer, default=0, help="seed of the random sequences (default 0)")
    parser.add_argument("--progress", action="store_true",
                        help="--prove and --round-trip: show progress even when stderr is not a terminal")
    parser.add_argument("--encoded", type=integer, default=0, metavar="K",
                        help="with --construction: also check K sequences enc(C, x) for random x, at their length")
    parser.add_argument("--output-circuit", metavar="FILE",
                        help="write the unrolled circuit (.circ or .json) for length --output-length")
    parser.add_argument("--output-length", type=integer, metavar="N",
                        help="length for --output-circuit (default: the largest audited length; without "
                             "--family, --n N means the same)")
    parser.add_argument("--json", action="store_true",
                        help="print the report as one JSON object (schema: docs/cli.md); bad input is still one "
                             "line on stderr and exit 2")
    parser.add_argument("--defect", metavar="NAME",
                        help="audit a deliberately broken unrolling instead (to see it caught): "
                             "missing-reciprocal, gt-as-ge, leftmost-as-rightmost, count-off-by-one, "
                             "dropped-j-ne-j, swapped-compare; wrong only past N = 32: argmax-window-32, "
                             "count-saturates-at-32, pool-drops-last-past-32; or the harmless argmax-includes-j")
    add_round_trip_options(parser)
    add_prove_options(parser)
    add_resource_options(parser)
    parser.set_defaults(func=run)


_LENGTH_PART = re.compile(r"\s*([+-]?[0-9]+)\s*(?:(\.\.)\s*([+-]?[0-9]+)\s*)?\Z", re.ASCII)  # \s: ASCII only


def _length(token: str, part: str) -> int:
    """One length of ``--lengths``: an integer 1 ≤ N ≤ MAX_AUDIT_LENGTH (digits bounded before ``int``)."""
    digits = token.lstrip("+-").lstrip("0") or "0"
    if token.startswith("-") and digits != "0":
        raise InputError(f"lengths must be >= 1, got {token[:20]} in {part[:40]!r}", "--lengths")
    if len(digits) > len(str(MAX_AUDIT_LENGTH)) or int(digits) > MAX_AUDIT_LENGTH:
        raise InputError(f"N = {digits[:20]}{'…' if len(digits) > 20 else ''} is past the audit length limit "
                         f"{MAX_AUDIT_LENGTH:,} (limits.MAX_AUDIT_LENGTH; U_N has Θ(N³) gates)", "--lengths")
    if int(digits) < 1:
        raise InputError(f"lengths must be >= 1, got {digits} in {part[:40]!r}", "--lengths")
    return int(digits)


def parse_lengths(text: str) -> list[int]:
    """``--lengths``: comma-separated lengths N and ranges A..B (A <= B), every N in 1 … MAX_AUDIT_LENGTH,
    at most MAX_AUDIT_LENGTHS of them, each once; anything else (an empty item, ``2..``, ``3..2``, ``2,2``) is bad
    input."""
    lengths: list[int] = []
    for part in text.split(","):
        found = _LENGTH_PART.match(part)
        if found is None:
            shown = repr(part[:40]) if part.strip() else "an empty item"
            raise InputError(f"{shown} is not a length N or a range A..B (e.g. 2..8,16)", "--lengths")
        first = _length(found.group(1), part)
        last = _length(found.group(3), part) if found.group(2) else first
        if last < first:
            raise InputError(f"{part.strip()[:40]!r} is not a range A..B with A <= B", "--lengths")
        if len(lengths) + last - first + 1 > MAX_AUDIT_LENGTHS:
            raise InputError(f"more than {MAX_AUDIT_LENGTHS:,} lengths (limits.MAX_AUDIT_LENGTHS)", "--lengths")
        lengths.extend(range(first, last + 1))
    twice = next((n for n, times in Counter(lengths).items() if times > 1), None)  # a typo, not a request
    if twice is not None:
        raise InputError(f"length {twice} is given more than once", "--lengths")
    return lengths


def check_counts(args: argparse.Namespace) -> None:
    """``--samples``, ``--encoded`` and ``--output-length`` within their limits (limits.py), before any work."""
    for option, value, limit in (("--samples", args.samples, MAX_SAMPLES), ("--encoded", args.encoded, MAX_ENCODED),
                                 ("--output-length", args.output_length, MAX_AUDIT_LENGTH)):
        if value is None:
            continue
        low = 1 if option == "--output-length" else 0
        if value < low:
            raise InputError(f"must be >= {low}, got {value}", option)
        if value > limit:
            name = {"--samples": "MAX_SAMPLES", "--encoded": "MAX_ENCODED"}.get(option, "MAX_AUDIT_LENGTH")
            raise InputError(f"must be at most {limit:,} (limits.{name}), got {value}", option)


def _model(args: argparse.Namespace) -> tuple[Transformer, list[list[list[Any]]]]:
    """The transformer to audit and the extra (encoded) sequences."""
    if args.construction is None:
        if args.model is None:
            raise InputError("no model: give a transformer spec MODEL or --construction NAME with a circuit",
                             ARGUMENTS)
        if args.circuit is not None or args.family is not None:
            raise InputError("a circuit goes with --construction NAME", ARGUMENTS)
        if args.encoded:
            raise InputError("--encoded goes with --construction NAME", ARGUMENTS)
        return load_transformer(args.model), []
    from ..constructions.registry import resolve_construction
    if args.model is not None and args.circuit is not None:
        raise InputError("with --construction give one CIRCUIT file, not a MODEL as well", ARGUMENTS)
    circuit_args = argparse.Namespace(**vars(args))
    circuit_args.circuit = args.circuit if args.circuit is not None else args.model
    construction = resolve_construction(args.construction)
    compiled = construction.compile(circuit_from_args(circuit_args))
    rng = random.Random(args.seed)
    values = [Fraction(v) for v in (-3, -2, -1, 0, 1, 2, 3)] + [Fraction(1, 2), Fraction(-5, 3)]
    extra = [compiled.encoding.instantiate([rng.choice(values) for _ in range(compiled.encoding.n_inputs)])
             for _ in range(args.encoded)]
    return compiled.transformer, extra


def run(args: argparse.Namespace) -> int:
    if args.defect is not None:
        check_defect_option(args.defect)
    check_counts(args)
    if args.round_trip:
        return run_round_trip(args)
    output_length = args.output_length
    if args.family is None and args.n is not None:  # --n N as the length of --output-circuit
        if output_length is not None and output_length != args.n:
            raise InputError("--n and --output-length disagree", ARGUMENTS)
        output_length, args.n = args.n, None
        check_counts(argparse.Namespace(samples=None, encoded=None, output_length=output_length))
    if output_length is not None and args.output_circuit is None:
        raise InputError("--output-length (or --n) goes with --output-circuit FILE", ARGUMENTS)
    if args.prove and (args.all_n or args.lengths is None):
        if args.all_n and args.lengths is not None:
            raise InputError("--all-N proves every length: it does not take --lengths", ARGUMENTS)
        if args.encoded or args.output_circuit:
            raise InputError("--prove does not take --encoded or --output-circuit", ARGUMENTS)
        require_memory("audit --prove", 0, args)  # at least the interpreter's own address space (scipy, OpenBLAS)
        return run_prove_all_n(args, _model(args)[0])
    if args.all_n:
        raise InputError("--all-N goes with --prove", ARGUMENTS)
    lengths = parse_lengths(args.lengths if args.lengths is not None else ",".join(map(str, DEFAULT_LENGTHS)))
    if args.prove:
        check_kernel_caps(lengths)
    transformer, extra = _model(args)
    from ..audit.size import size_formula
    if args.prove:
        check_kernel_caps(lengths, transformer)
    require_memory("audit --prove" if args.prove else "audit",
                   max(size_formula(transformer, n).size_bound for n in set(lengths)), args)
    if args.prove:
        return run_prove(args, sorted(set(lengths)), transformer)
    if args.output is not None:
        raise InputError("-o/--output CERT goes with --prove", ARGUMENTS)
    try:
        report = audit(transformer, lengths, args.samples, args.seed, extra, unroller=unroller_option(args))
    except InputError as exc:  # e.g. a softmax head: name the model file
        raise exc.located(shown(args.model) if args.construction is None else None) from None
    if args.output_circuit:
        n = output_length if output_length is not None else max(row.n for row in report.rows)
        save_circuit(unroll(transformer, n).circuit, args.output_circuit)
    if args.json:
        from .json_output import emit, envelope
        doc = envelope("audit", "passed" if report.ok else "failed", reasons=list(report.problems),
                       counts={"lengths": len(report.rows), "samples": sum(row.samples for row in report.rows),
                               "mismatches": sum(row.mismatches for row in report.rows)},
                       timings={"total": sum(row.seconds for row in report.rows),
                                **{f"N={row.n}": row.seconds for row in report.rows}},
                       output_circuit=({"path": args.output_circuit, "length": n} if args.output_circuit
                                       else None))
        doc.update(report.to_json())  # the fields --json always had (rows: one per length N)
        return emit(doc)
    else:
        print_report(report)
        if args.output_circuit:
            print(f"unrolled circuit (N = {n}) written to {args.output_circuit}")
    return EXIT_OK if report.ok else EXIT_REFUTED


def _yes(flag: bool | None) -> str:
    return "n/a" if flag is None else ("yes" if flag else "NO")


def print_report(report: AuditReport) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=escape(f"unrolling {report.transformer} (d = {report.dimension}, "
                               f"{plural(report.layers, 'layer')}, {plural(report.heads, 'head')})"),
                  show_header=True, header_style="bold")
    for name in ("N", "inputs", "depth", "size", "edges", "size ≤ formula", "class", "mul fan-in 2", "samples",
                 "mismatches", "time"):
        table.add_column(name, justify="left" if name == "class" else "right", no_wrap=True)
    for row in report.rows:
        table.add_row(str(row.n), str(row.inputs), str(row.depth), str(row.size), str(row.edges),
                      f"{row.size_bound} {'ok' if row.size_ok else 'VIOLATED'}", escape(row.class_name),
                      "yes" if row.mul_binary else "NO", str(row.samples), str(row.mismatches),
                      f"{row.seconds:.2f}s")
    console = Console(soft_wrap=True)
    if not console.is_terminal:
        console = Console(soft_wrap=True, width=160)
    console.print(table)
    print(f"depth independent of N: {_yes(report.depth_independent)}")
    formula_depths = {row.formula_depth for row in report.rows if row.formula_depth is not None}
    if formula_depths:
        measured_ok = all(row.depth_ok for row in report.rows)
        print(f"depth formula (from T alone, N >= 2; N = 1 is special: the sums over j' != j are empty): "
              f"{', '.join(map(str, sorted(formula_depths)))} {'= measured' if measured_ok else 'DIFFERS from measured'}")
    print(f"size formula: {report.formula}")
    print(f"asymptotically: {report.asymptotic}")
    for problem in report.problems:
        print(f"problem: {problem}")
    compared = sum(row.samples for row in report.rows)
    print(f"result: {'all checks passed' if report.ok else 'FAILED'}"
          + ("" if compared or not report.ok else " (none compared U_N with T on a sequence: --samples 0, no --encoded)"))
