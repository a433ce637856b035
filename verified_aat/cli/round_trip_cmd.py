"""``verified-aat audit -c NAME CIRCUIT --round-trip``: C → T_K → U_N and U_N(enc(C, x)) = C(x) for all x.

Exit 0 when the lower bound is certified and the identity proved, 1 when
either is refuted (the identity only with an exactly replayed x), 3 when
unknown, 2 on bad input.
"""

from __future__ import annotations

import argparse
from typing import Any

from ..errors import EXIT_OK, EXIT_REFUTED, EXIT_UNKNOWN, InputError
from .common import ARGUMENTS, circuit_from_args


def add_round_trip_options(parser: Any) -> None:
    """``--round-trip``, ``--no-lower-bound``, ``--round-trip-timeout``."""
    parser.add_argument("--round-trip", action="store_true",
                        help="with --construction NAME and a circuit: certify T_K (lower bound), unroll it at "
                             "N = |enc(C, x)| and prove U_N(enc(C, x)) = C(x) for every x (x symbolic, the "
                             "structure concrete)")
    parser.add_argument("--no-lower-bound", action="store_true",
                        help="with --round-trip: skip certifying T_K (the identity alone)")
    parser.add_argument("--round-trip-timeout", type=float, default=60.0, metavar="S",
                        help="with --round-trip: seconds for a solver query (default %(default)s)")


def check_defect_option(name: str) -> None:
    """``--defect NAME`` must name a defect of :mod:`verified_aat.audit.mutants` (else bad input, exit 2)."""
    from ..audit.mutants import check_defect
    try:
        check_defect(name)
    except InputError as exc:
        raise exc.located("--defect") from None


def _require_memory(circuit, args: argparse.Namespace) -> None:
    """Refuse up front when U_N for N = |enc(C, x)| cannot fit (the size is known from T_K alone)."""
    from ..audit.unroll import size_formula
    from ..constructions.registry import get_construction
    from .resources import require_memory
    try:
        compiled = get_construction(args.construction).compile(circuit)
    except InputError:
        return  # outside the construction's class: round_trip says so itself
    require_memory("audit", size_formula(compiled.transformer, compiled.encoding.length).size_bound, args)


def run_round_trip(args: argparse.Namespace) -> int:
    """The --round-trip branch of ``audit``."""
    from ..audit.round_trip import PROVED, REFUTED, round_trip
    if args.construction is None:
        raise InputError("--round-trip needs --construction NAME and a circuit", ARGUMENTS)
    if args.model is not None and args.circuit is not None:
        raise InputError("with --construction give one CIRCUIT file, not a MODEL as well", ARGUMENTS)
    if not args.round_trip_timeout > 0:
        raise InputError(f"--round-trip-timeout must be > 0, got {args.round_trip_timeout}", ARGUMENTS)
    circuit_args = argparse.Namespace(**vars(args))
    circuit_args.circuit = args.circuit if args.circuit is not None else args.model
    circuit = circuit_from_args(circuit_args)
    _require_memory(circuit, args)
    result = round_trip(circuit, args.construction, not args.no_lower_bound,
                        int(args.round_trip_timeout * 1000), defect=args.defect)
    code = {PROVED: EXIT_OK, REFUTED: EXIT_REFUTED}.get(result.status, EXIT_UNKNOWN)
    if args.json:
        from dataclasses import asdict

        from .json_output import emit, envelope
        data = asdict(result)
        data["witness"] = None if result.witness is None else [str(v) for v in result.witness]
        data["seconds"] = {k: {"wall": wall, "cpu": cpu} for k, (wall, cpu) in result.seconds.items()}
        doc = envelope("audit", result.status, reasons=[result.reason] if result.reason else [],
                       counts={"positions": result.n_positions, "unrolled_gates": result.unrolled_gates,
                               "symbolic_gates": result.symbolic_gates},
                       timings={k: wall for k, (wall, _) in result.seconds.items()})
        doc["round_trip"] = data
        emit(doc)
        return code
    domain = " (x in {0,1}^n)" if result.mode == "boolean" else ""
    print(f"round trip {result.circuit} via {result.construction}: T_K has {result.layers} layers; "
          f"N = {result.n_positions}; U_N has {result.unrolled_gates} gates, {result.symbolic_gates} reached by x")
    print(f"lower bound (T_K simulates C, certified): {result.lower_bound}")
    print(f"U_N(enc(C, x)) = C(x) for all x{domain}: {result.identity} ({result.method})")
    if result.witness is not None:
        print(f"witness x = ({', '.join(map(str, result.witness))}), replayed exactly: {result.reason}")
    elif result.reason:
        print(f"reason: {result.reason}")
    print("time: " + ", ".join(f"{k} {wall:.2f}s wall / {cpu:.2f}s CPU" for k, (wall, cpu) in result.seconds.items()))
    print(f"result: {result.status}")
    return code
