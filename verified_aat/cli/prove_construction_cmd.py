"""``verified-aat prove-construction``: one proof for every circuit of depth ≤ K (or every K)."""

from __future__ import annotations

import argparse
from collections import Counter

from ..constructions.registry import construction_choice, resolve_construction
from ..errors import EXIT_OK, EXIT_REFUTED, EXIT_UNKNOWN, InputError
from .option_rules import decimal, integer
from ..wording import plural


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("prove-construction", help="prove a construction's T_K for every circuit of depth ≤ K",
                       description="Schematic proof: lemmas over symbolic positions (ids, op codes, fan-in k, "
                                   "edge ends) derived from T's own circuits, then the induction over layer pairs. "
                                   "Exit 0 proved (writes a certificate that `check` re-proves), 1 refuted (a "
                                   "smallest circuit and input, replayed exactly), 3 unknown, 2 bad input.")
    p.add_argument("construction", metavar="NAME|FILE.json", type=construction_choice,
                   help="a built-in construction's name, or a construction document (docs/construction-format.md)")
    group = p.add_mutually_exclusive_group()
    group.add_argument("-K", "--depth-bound", type=integer, default=None, help="prove T_K for this K")
    group.add_argument("--all-K", action="store_true", help="prove every K at once (the default without -K)")
    p.add_argument("--transformer", metavar="T.json", help="prove or refute this (edited) transformer instead")
    p.add_argument("-o", "--output", metavar="CERT", help="write the schematic certificate here (when proved)")
    p.add_argument("--timeout", type=decimal, default=20.0, help="seconds per lemma (default 20)")
    p.add_argument("--budget", type=decimal, default=60.0, help="seconds for the witness search (default 60)")
    from .json_output import add_json_argument
    add_json_argument(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..api import prove_construction

    if not args.timeout > 0:
        raise InputError(f"must be > 0 seconds, got {args.timeout}", "--timeout")
    if args.output:
        import os
        if not os.path.isdir(os.path.dirname(os.path.abspath(args.output))):  # before any work
            raise InputError(f"cannot write: no directory {os.path.dirname(args.output) or '.'}", args.output)
    from ..limits import MAX_K
    if args.depth_bound is not None and not 1 <= args.depth_bound <= MAX_K:
        raise InputError(f"must be between 1 and {MAX_K:,}, got {args.depth_bound}", "-K")
    if args.budget <= 0:
        raise InputError(f"must be > 0 seconds, got {args.budget}", "--budget")
    construction = resolve_construction(args.construction)
    model = None
    if args.transformer:
        from .transformer_arg import load_for_construction
        model = load_for_construction(args.transformer, construction)
    result = prove_construction(construction, depth_bound=args.depth_bound, transformer=model, timeout=args.timeout,
                                witness_budget=args.budget)
    if result.status == "proved" and args.output:
        from ..certificates.document import write_certificate
        write_certificate(result.certificate, args.output)  # type: ignore[arg-type]
    if getattr(args, "json", False):
        return _report_json(result, args)
    statement = "every K" if result.depth_bound is None else f"K = {result.depth_bound}"
    print(f"construction {result.construction} ({statement})")
    if result.certificate is not None:
        kinds = Counter(lemma["kind"].split(":")[-1] for lemma in result.certificate["lemmas"])
        print(f"lemmas       {result.lemmas} ({', '.join(f'{k} {n}' for k, n in sorted(kinds.items()))}), all unsat")
    for problem in result.problems[:6]:
        print(f"problem      {problem}")
    print(f"time         {result.seconds:.2f} s wall, {result.cpu_seconds:.2f} s CPU")
    if result.status == "proved":
        if args.output:
            print(f"certificate  {args.output}")
        print(f"theorem      {result.theorem}")
        print("result       PROVED")
        return EXIT_OK
    if result.status == "refuted":
        _which_k(result, construction)
        first = result.refutation.shrunk_from()  # the candidate found first, when shrunk (red team, round 30)
        if first is not None:
            from ..display import shrunk_size
            print(f"shrunk from  {shrunk_size(first)} (the candidate that first went wrong, "
                  f"{result.refutation.first_found.name})")
        print("witness circuit:")
        print(result.refutation.circuit_text())  # type: ignore[union-attr]
        print(result.refutation.counterexample.report())  # type: ignore[union-attr]
        print("result       REFUTED")
        return EXIT_REFUTED
    print(f"next         `certify CIRCUIT -c {args.construction}` proves it circuit by circuit, a route with no fixed "
          "pattern of layers; a larger --budget searches longer for a witness")
    print("result       UNKNOWN (not proved)")
    return EXIT_UNKNOWN


def _which_k(result, construction) -> None:  # type: ignore[no-untyped-def]
    """For every K, the K whose T_K went wrong, so that ``certify WITNESS -c DOC -K K`` shows it again."""
    layers = result.refutation.counterexample.layers  # type: ignore[union-attr]
    if result.depth_bound is None and layers is not None:
        k = construction.least_k_with(layers)
        if construction.layers(k) == layers:
            print(f"refuted at   K = {k} (T_{k} has {plural(layers, 'layer')}; `certify WITNESS -c ... -K {k}` "
                  "replays it)")


def _report_json(result, args: argparse.Namespace) -> int:  # type: ignore[no-untyped-def]
    """``--json``: the envelope of docs/cli.md, command ``prove-construction``."""
    from .json_output import counterexample_json, emit, envelope

    found = result.refutation.counterexample if result.status == "refuted" else None
    kinds = Counter(lemma["kind"].split(":")[-1] for lemma in (result.certificate or {}).get("lemmas", []))
    return emit(envelope(
        "prove-construction", result.status, reasons=list(result.problems),
        counts={"lemmas": result.lemmas, **{f"lemmas_{k}": n for k, n in sorted(kinds.items())}},
        timings={**result.timings, "total": result.seconds, "cpu": result.cpu_seconds},
        construction=result.construction, depth_bound=result.depth_bound, every_K=result.depth_bound is None,
        theorem=result.theorem or None, certificate=args.output if result.status == "proved" else None,
        circuit=None if found is None else result.refutation.circuit_json(),
        counterexample=counterexample_json(found)))
