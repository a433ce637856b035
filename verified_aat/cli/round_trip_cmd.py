"""``verified-aat audit -c NAME CIRCUIT --round-trip [-o DIR]``: C → T_K → U_N, three links proved.

Links: (1) T_K simulates C (per-circuit certificate), (2) U_N = T_K on every
sequence of length N (the all-N audit certificate; per-N with ``--defect``),
(3) U_N(enc(C, x)) = C(x) for all x (partial evaluation of U_N when it has at
most ``audit.round_trip.BUILD_GATES`` gates, else by composition of 1 and 2).
Exit 0 when all three are proved, 1 when one is refuted (only with an exactly
replayed x or sequence), 3 otherwise (unknown or skipped), 2 on bad input.
``-o DIR`` writes DIR/lower-bound.cert.json and DIR/audit.cert.json (each when
proved); ``verified-aat check`` re-checks either.
"""

from __future__ import annotations

import argparse
from typing import Any

from ..errors import EXIT_OK, EXIT_REFUTED, EXIT_UNKNOWN, InputError
from .common import ARGUMENTS, circuit_from_args
from ..wording import plural
from .option_rules import decimal


def add_round_trip_options(parser: Any) -> None:
    """``--round-trip``, ``--no-lower-bound``, ``--round-trip-timeout``, ``--no-audit-proof``."""
    parser.add_argument("--round-trip", action="store_true",
                        help="with --construction NAME and a circuit: certify T_K (lower bound), unroll it at "
                             "N = |enc(C, x)| and prove U_N(enc(C, x)) = C(x) for every x (x symbolic, the "
                             "structure concrete)")
    parser.add_argument("--no-lower-bound", action="store_true",
                        help="with --round-trip: skip certifying T_K (the identity alone)")
    parser.add_argument("--round-trip-timeout", type=decimal, default=60.0, metavar="S",
                        help="with --round-trip: seconds for a solver query (default %(default)s)")
    parser.add_argument("--no-audit-proof", action="store_true",
                        help="with --round-trip: skip link 2, the audit certificate U_N = T_K (then not proved)")


def check_defect_option(name: str) -> None:
    """``--defect NAME`` must name a defect of :mod:`verified_aat.audit.mutants` (else bad input, exit 2)."""
    from ..audit.mutants import check_defect  # the demo module: only --defect reads it
    try:
        check_defect(name)
    except InputError as exc:
        raise exc.located("--defect") from None


def unroller_option(args: argparse.Namespace) -> Any:
    """How U_N is built: :func:`~verified_aat.audit.unroll.unroll`, or with ``--defect NAME`` a
    deliberately broken unrolling of :mod:`verified_aat.audit.mutants` (imported only then)."""
    from ..audit.unroll import unroll
    if args.defect is None:
        return unroll
    from ..audit.mutants import defective_unroller
    return defective_unroller(args.defect)


def family_option(args: argparse.Namespace) -> Any:
    """The uniform family ``audit --prove`` (all N) certifies: None (the kernel's), or with ``--defect NAME``
    a deliberately changed one of :mod:`verified_aat.audit.mutants` (imported only then)."""
    if args.defect is None:
        return None
    from ..audit.mutants import defective_family
    return defective_family(args.defect)


def family_edges_lower_bound(args: argparse.Namespace) -> int | None:
    """A lower bound on C's edges for ``--family NAME --n N`` (n ≥ 2), from the family's input count alone:
    every input of such a member is read by a gate (at n = 1 a tree's one input may be its output; the bound
    is then 0).  tests/test_limits_first.py checks this for every family.  None when the family or n is not
    valid (the builder says why)."""
    from ..circuits.families import FAMILIES
    family = FAMILIES.get(args.family) if args.family is not None else None
    if family is None or args.n is None or not family.min_n <= args.n <= family.max_n:
        return None
    return family.n_inputs(args.n) if args.n >= 2 else 0


def _refuse_early(edges: int | None, args: argparse.Namespace) -> None:
    """Refuse (exit 3, before building the family member or compiling) when certifying link 1 cannot fit
    in memory (``certify``'s lower bound per circuit edge).  U_N is built only when it is small
    (:func:`~verified_aat.audit.round_trip.builds_unrolling`), so it needs no early refusal."""
    from .resources import require_memory
    if edges is not None and not args.no_lower_bound:
        require_memory("certify", edges, args)


def _require_memory(circuit, args: argparse.Namespace) -> None:
    """Refuse up front when U_N for N = |enc(C, x)| will be built and cannot fit (its size is known from
    T_K alone); not built (link 3 by composition), it needs no memory."""
    from ..audit.round_trip import builds_unrolling
    from ..audit.size import size_formula
    from ..constructions.registry import resolve_construction
    from .resources import require_memory
    try:
        compiled = resolve_construction(args.construction).compile(circuit)
    except InputError:
        return  # outside the construction's class: round_trip says so itself
    T, n = compiled.transformer, compiled.encoding.length
    if builds_unrolling(T, n, unroller_option(args), not args.no_audit_proof):
        require_memory("audit", size_formula(T, n).size_bound, args)


def run_round_trip(args: argparse.Namespace) -> int:
    """The --round-trip branch of ``audit``."""
    from ..audit.round_trip import PROVED, REFUTED, round_trip
    if args.construction is None:
        raise InputError("--round-trip needs --construction NAME and a circuit", ARGUMENTS)
    ignored = [o for o, v in (("--prove", args.prove), ("--output-circuit", args.output_circuit),
                              ("--lengths", args.lengths)) if v]  # they were ignored, with exit 0 (red team)
    if ignored:
        raise InputError(f"--round-trip does not take {ignored[0]}", ARGUMENTS)
    if args.model is not None and args.circuit is not None:
        raise InputError("with --construction give one CIRCUIT file, not a MODEL as well", ARGUMENTS)
    if not args.round_trip_timeout > 0:
        raise InputError(f"--round-trip-timeout must be > 0, got {args.round_trip_timeout}", ARGUMENTS)
    circuit_args = argparse.Namespace(**vars(args))
    circuit_args.circuit = args.circuit if args.circuit is not None else args.model
    _refuse_early(family_edges_lower_bound(circuit_args), args)
    circuit = circuit_from_args(circuit_args)
    _refuse_early(circuit.n_edges, args)
    if not args.timeout > 0:
        raise InputError(f"must be > 0 seconds, got {args.timeout}", "--timeout")
    if args.jobs < 1:
        raise InputError(f"must be >= 1, got {args.jobs}", "--jobs")
    _require_memory(circuit, args)
    import sys
    from .progress import progress_reporter
    with progress_reporter(getattr(args, "progress", False) or sys.stderr.isatty()) as progress, \
            progress.stage("round trip"):  # a spinner with the time; a line as each phase ends
        result = round_trip(circuit, args.construction, not args.no_lower_bound,
                            int(args.round_trip_timeout * 1000), unroller=unroller_option(args),
                            prove_unrolling=not args.no_audit_proof,
                            solvers=("z3", "cvc5") if args.solver == "both" else (args.solver,),
                            audit_timeout_s=args.timeout, jobs=args.jobs, keep_certificates=args.output is not None,
                            on_lap=progress.lap)
    written = _write_certificates(result.certificates, args.output) if args.output is not None else {}
    code = {PROVED: EXIT_OK, REFUTED: EXIT_REFUTED}.get(result.status, EXIT_UNKNOWN)
    if args.json:
        _emit_json(result, written)
        return code
    _print(result, written)
    return code


CERTIFICATE_FILES = {"lower_bound": "lower-bound.cert.json", "audit": "audit.cert.json"}


def _write_certificates(certificates: dict[str, Any], directory: str) -> dict[str, str]:
    """Write each proved link's certificate into ``directory`` (created); link → path."""
    from ..certificates.document import certificate_bytes
    from ..files import write_into_directory
    links = list(certificates)
    paths = write_into_directory(directory, [(CERTIFICATE_FILES[link], certificate_bytes(certificates[link]))
                                             for link in links])
    return dict(zip(links, paths))


def _emit_json(result: Any, written: dict[str, str]) -> None:
    """The ``--json`` document: the envelope, ``round_trip`` with the three links."""
    from dataclasses import fields

    from ..json_envelope import rational  # str() stops at 4,300 digits
    from .json_output import emit, envelope
    data = {f.name: getattr(result, f.name) for f in fields(result) if f.name != "certificates"}
    data["witness"] = None if result.witness is None else [rational(v) for v in result.witness]
    w = result.audit_witness
    data["audit_witness"] = None if w is None else {
        "n": w.n, "sequence": [[rational(v) for v in vec] for vec in w.sequence],
        "circuit_outputs": [rational(v) for v in w.circuit], "transformer_outputs": [rational(v) for v in w.transformer]}
    data["seconds"] = {k: {"wall": wall, "cpu": cpu} for k, (wall, cpu) in result.seconds.items()}
    data["links"] = result.links
    data["certificates"] = written
    reasons = [r for r in (result.lower_reason, result.reason, result.audit_reason) if r]
    doc = envelope("audit", result.status, reasons=reasons,
                   counts={"positions": result.n_positions, "unrolled_gates": result.unrolled_gates,
                           "symbolic_gates": result.symbolic_gates, "audit_lemmas": result.audit_lemmas},
                   timings={k: wall for k, (wall, _) in result.seconds.items()})
    doc["round_trip"] = data
    emit(doc)


def _print(result: Any, written: dict[str, str]) -> None:
    from ..audit.round_trip import BUILD_GATES
    domain = " (x in {0,1}^n)" if result.mode == "boolean" else ""
    if result.unrolled_built:
        built = f"U_N has {plural(result.unrolled_gates, 'gate')}, {result.symbolic_gates:,} reached by x"
    else:
        built = f"U_N has {plural(result.unrolled_gates, 'gate')} (size formula; not built, past {BUILD_GATES:,})"
    print(f"round trip {result.circuit} via {result.construction}: T_K has {plural(result.layers, 'layer')}; "
          f"N = {result.n_positions}; {built}")
    print(f"link 1, T_K simulates C (per-circuit certificate): {result.lower_bound}")
    if result.lower_reason:
        print(f"  reason: {result.lower_reason}")
    lemmas = f", {plural(result.audit_lemmas, 'lemma')}" if result.audit_lemmas else ""
    if result.audit_method == "all-N":
        print(f"link 2, U_N = T_K on every sequence of length N, for every N >= 1, here N = {result.n_positions} "
              f"(all-N audit certificate{lemmas}): {result.audit}")
    else:
        print(f"link 2, U_N = T_K on every sequence of length {result.n_positions} (audit certificate{lemmas}): "
              f"{result.audit}")
    if result.audit_witness is not None:
        print(f"  witness {result.audit_witness.describe()} (replayed exactly)")
    if result.audit_reason:
        print(f"  reason: {result.audit_reason}")
    method = "composition of links 1 and 2, U_N not built" if result.method == "composition" else result.method
    print(f"link 3, U_N(enc(C, x)) = C(x) for all x{domain}: {result.identity} ({method})")
    if result.witness is not None:
        print(f"  witness x = ({', '.join(map(str, result.witness))}), replayed exactly: {result.reason}")
    elif result.reason:
        print(f"  reason: {result.reason}")
    for link, path in written.items():
        print(f"certificate ({link.replace('_', ' ')}): {path}  (verified-aat check {path})")
    print("time: " + ", ".join(f"{k} {wall:.2f}s wall / {cpu:.2f}s CPU" for k, (wall, cpu) in result.seconds.items()))
    print(f"result: {result.status}")
