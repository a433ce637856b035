"""``verified-aat audit MODEL --prove -o CERT``: a kernel-checked certificate that U_N = T for every N
(``--lengths 2..8``: for those N only, a per-N certificate).

Exit 0 proved (the kernel accepted; CERT written), 1 refuted (a witness
sequence replayed exactly: U_N and T differ on it), 3 unknown (a solver gave
up, or U_N is not the kernel's unrolling and no witness was found), 2 bad input.
"""

from __future__ import annotations

import argparse
from typing import Any

from ..files import shown
from ..errors import EXIT_OK, EXIT_REFUTED, EXIT_UNKNOWN, InputError
from .common import ARGUMENTS
from .option_rules import decimal, integer


def add_prove_options(parser: Any) -> None:
    """``--prove``, ``-o/--output CERT``, ``--solver``, ``--timeout``, ``--jobs``."""
    parser.add_argument("--prove", action="store_true",
                        help="prove U_N = T on every sequence of length N, for every N >= 1 (with --lengths: for "
                             "those N only), from lemmas checked by the trusted kernel (docs/soundness.md, V and U)")
    parser.add_argument("--all-N", dest="all_n", action="store_true",
                        help="with --prove: one certificate for every length N >= 1 (the default of --prove)")
    parser.add_argument("--output", "-o", metavar="CERT",
                        help="with --prove: write the audit certificate here (.gz: compressed); "
                             "`verified-aat check CERT` re-checks it. With --round-trip: a directory for "
                             "lower-bound.cert.json and audit.cert.json")
    parser.add_argument("--solver", choices=["z3", "cvc5", "both"], default="z3",
                        help="with --prove: the solver(s) for the lemmas (default z3)")
    parser.add_argument("--timeout", type=decimal, default=20.0, metavar="S",
                        help="with --prove: seconds per lemma and solver (default %(default)s)")
    parser.add_argument("--jobs", "-j", type=integer, default=2,
                        help="with --prove: solver processes (default %(default)s)")


def check_kernel_caps(lengths: list[int], transformer: Any = None) -> None:
    """Answer *unknown* at once (exit 3, nothing unrolled) when the kernel would refuse to check U_N for
    ``lengths``: N past its cap (without ``transformer``), or the unrolled gates past its cap (with it)."""
    from ..audit.prove import kernel_limit
    from ..kernel.audit_proof import MAX_LENGTH
    from .resources import LimitReached

    if transformer is None:
        past = [n for n in lengths if n > MAX_LENGTH]
        reason = (f"N = {past[0]} is past the kernel's cap of N <= {MAX_LENGTH} for audit certificates"
                  if past else None)
    else:
        reason = kernel_limit(transformer, sorted(set(lengths)))
    if reason is not None:
        raise LimitReached(f"--lengths: {reason}; nothing unrolled, U_N = T not proved")


def _check_prove_options(args: argparse.Namespace) -> tuple[str, ...]:
    if not args.timeout > 0:
        raise InputError(f"must be > 0 seconds, got {args.timeout}", "--timeout")
    if args.jobs < 1:
        raise InputError(f"must be >= 1, got {args.jobs}", "--jobs")
    return ("z3", "cvc5") if args.solver == "both" else (args.solver,)


def run_prove_all_n(args: argparse.Namespace, transformer: Any) -> int:
    """``audit --prove`` for every N: the uniform family's certificate, or a changed family refuted."""
    import sys

    from ..audit.prove import PROVED, REFUTED
    from ..audit.prove_all_n import prove_all_n
    from ..certificates.document import write_certificate
    from .progress import progress_reporter

    solvers = _check_prove_options(args)
    from .round_trip_cmd import family_option
    family = family_option(args)  # with --defect only, the demo module
    try:
        with progress_reporter(getattr(args, "progress", False) or sys.stderr.isatty()) as progress, \
                progress.stage("audit proof, every N"):
            result = prove_all_n(transformer, family, name=args.defect or "", solvers=solvers,
                                 timeout_s=args.timeout, jobs=args.jobs, samples=args.samples, seed=args.seed)
    except InputError as exc:  # e.g. a softmax head: name the model file
        raise exc.located(shown(args.model) if args.construction is None else None) from None
    if result.status == PROVED and args.output:
        write_certificate(result.certificate, args.output)  # type: ignore[arg-type]
    code = EXIT_OK if result.status == PROVED else (EXIT_REFUTED if result.status == REFUTED else EXIT_UNKNOWN)
    return _print_result(args, result, "every N >= 1", code)


def _print_result(args: argparse.Namespace, result: Any, lengths: Any, code: int) -> int:
    witness = result.witness
    if args.json:
        from .json_output import emit, envelope, rational
        return emit(envelope(
            "audit", result.status, reasons=list(result.reasons),
            counts={"lengths": len(lengths) if isinstance(lengths, list) else 0, "lemmas": result.lemmas},
            timings=result.timings, lengths=lengths, theorem=result.theorem or None,
            certificate=args.output if result.status == "proved" and args.output else None,
            witness=None if witness is None else {
                "n": witness.n, "sequence": [[rational(v) for v in vec] for vec in witness.sequence],
                "circuit_outputs": [rational(v) for v in witness.circuit],
                "transformer_outputs": [rational(v) for v in witness.transformer]}))
    print(f"lengths      {', '.join(map(str, lengths)) if isinstance(lengths, list) else lengths}")
    print(f"lemmas       {result.lemmas or 'not derived (the kernel stopped before)'}; wall "
          + ", ".join(f"{k} {v:.2f}s" for k, v in result.timings.items()))
    for reason in result.reasons:
        print(f"reason       {reason}")
    if witness is not None:
        print(f"witness      {witness.describe()} (replayed exactly)")
    if result.status == "proved":
        print(f"theorem      {result.theorem}")
        if args.output:
            print(f"certificate  {args.output}")
    print(f"result       {result.status.upper()}")
    return code


def run_prove(args: argparse.Namespace, lengths: list[int], transformer: Any) -> int:
    """The --prove branch of ``audit``."""
    from ..audit.prove import PROVED, REFUTED, prove_audit
    from ..certificates.document import write_certificate
    from .round_trip_cmd import unroller_option

    solvers = _check_prove_options(args)
    if args.encoded or args.output_circuit:
        raise InputError("--prove does not take --encoded or --output-circuit", ARGUMENTS)
    unroller = unroller_option(args)
    import sys
    from .progress import progress_reporter
    try:
        with progress_reporter(getattr(args, "progress", False) or sys.stderr.isatty()) as progress, \
                progress.stage("audit proof"):  # a spinner with the elapsed time (a line with --progress on a pipe)
            result = prove_audit(transformer, lengths, unroller=unroller, solvers=solvers, timeout_s=args.timeout,
                                 jobs=args.jobs, samples=max(args.samples, 20), seed=args.seed)
    except InputError as exc:  # e.g. a softmax head: name the model file
        raise exc.located(shown(args.model) if args.construction is None else None) from None
    if result.status == PROVED and args.output:
        write_certificate(result.certificate, args.output)  # type: ignore[arg-type]
    code = EXIT_OK if result.status == PROVED else (EXIT_REFUTED if result.status == REFUTED else EXIT_UNKNOWN)
    return _print_result(args, result, lengths, code)
