"""``verified-aat refute``: a small circuit and input where a modified transformer fails."""

from __future__ import annotations

import argparse
import sys

from ..constructions.registry import construction_choice, resolve_construction
from ..errors import EXIT_OK, EXIT_REFUTED, EXIT_UNKNOWN, InputError
from .option_rules import decimal, integer
from ..wording import plural


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("refute", help="find a circuit and an input where a (modified) transformer goes wrong",
                       description="Search, smallest circuits first, for a circuit and an input on which MODEL "
                                   "(a transformer spec, e.g. an edited compiled construction) differs from the "
                                   "circuit; every counterexample is replayed exactly. Exit 1 refuted, 3 nothing "
                                   "found (not a proof), 2 bad input.")
    p.add_argument("model", metavar="MODEL", help="transformer spec (JSON)")
    from .common import add_circuit_argument
    add_circuit_argument(p)
    p.add_argument("--construction", "-c", default="gate-edge", type=construction_choice, metavar="NAME|FILE.json",
                   help="whose encoding and schedule to use")
    p.add_argument("--depth-bound", "-K", type=integer, default=None,
                   help="the depth bound MODEL is meant for (default: from its number of layers)")
    p.add_argument("--budget", type=decimal, default=60.0, help="seconds for the whole search (default 60)")
    from .json_output import add_json_argument
    add_json_argument(p)
    from .report_cmd import add_report_argument
    add_report_argument(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from .report_cmd import check_output_path
    check_output_path(getattr(args, "report", None))
    construction = resolve_construction(args.construction)
    from .transformer_arg import load_for_construction  # another construction's T: named at MODEL:line
    transformer = load_for_construction(args.model, construction)  # a softmax head: MODEL:line (replays are exact)
    circuits = None
    if args.circuit or args.family:
        from .common import circuit_from_args
        circuits = [circuit_from_args(args)]
    _check_depth_bound(args, circuits)
    from ..api import refute  # a false lemma's witness first, then the search
    result = refute(transformer, construction, None if circuits is None else circuits[0], budget=args.budget,
                    depth_bound=args.depth_bound)
    if getattr(args, "report", None) and result.counterexample is not None:
        from .report_cmd import write
        write(result, args.report, quiet=getattr(args, "json", False), layout=args.layout, model_path=args.model,
              construction=args.construction)
    elif getattr(args, "report", None):  # nothing found: nothing to draw, and no file pretends otherwise
        print("report           not written: no counterexample found", file=sys.stderr)
    if getattr(args, "json", False):
        return _report_json(result, args)
    if result.proved:  # T's schematic lemmas all hold and the kernel accepted them: there is nothing to find
        print(f"no counterexample exists: the kernel accepts T's schematic certificate ({result.seconds:.1f}s)")
        print(f"theorem      {result.proved}")
        print("result       PROVED")
        return EXIT_OK
    if result.counterexample is None:
        print(f"no counterexample in {plural(result.circuits_tried, 'circuit')} ({result.seconds:.1f}s); this is not a "
              f"proof: use `verified-aat certify` to prove a construction correct")
        return EXIT_UNKNOWN
    from ..display import shrunk_note
    print(f"refuted after {plural(result.circuits_tried, 'circuit')}, {result.seconds:.1f}s; the circuit"
          f"{' (the one found' + shrunk_note(result) + ')' if result.first_found is not None else ''}:")
    print(result.circuit_text())
    print(result.counterexample.report())
    return EXIT_REFUTED


def _check_depth_bound(args: argparse.Namespace, circuits: list | None) -> None:  # type: ignore[type-arg]
    """-K with a CIRCUIT is at least its depth, as compile asks (it was taken and did nothing)."""
    from ..circuits.measures import depth
    if args.depth_bound is not None and circuits is not None and depth(circuits[0]) > args.depth_bound:
        raise InputError(f"depth bound {args.depth_bound} is below the circuit's depth {depth(circuits[0])}",
                         "--depth-bound (-K)")


def _report_json(result, args: argparse.Namespace) -> int:
    """``--json``: the schema of docs/cli.md, command ``refute``."""
    from .json_output import counterexample_json, emit, envelope

    found = result.counterexample is not None
    reasons = [] if found else [f"no counterexample exists: {result.proved}"] if result.proved else [
        f"no counterexample in {plural(result.circuits_tried, 'circuit')} within the budget; this is not a proof"]
    return emit(envelope(
        "refute", str(result.status), reasons=reasons,
        counts={"circuits_tried": result.circuits_tried}, timings={"total": result.seconds},
        model=args.model, construction=args.construction,
        circuit=result.circuit_json(),
        counterexample=counterexample_json(result.counterexample)))
