"""``verified-aat compile``: circuit → (transformer spec, encoding)."""

from __future__ import annotations

import argparse
from contextlib import suppress
from pathlib import Path

from ..constructions.binarize import binarize, describe_binarized
from ..constructions.registry import construction_choice, resolve_construction
from ..errors import InputError
from ..files import write_into_directory
from ..gc_pause import gc_paused
from ..circuits.measures import depth as circuit_depth
from .option_rules import integer
from ..wording import plural


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("compile", help="compile a circuit into a transformer and its encoded input",
                       description="Compile CIRCUIT with a construction; writes DIR/transformer.json and "
                                   "DIR/encoding.json and prints dimension, layers, heads, sequence length.")
    from .common import add_circuit_argument
    add_circuit_argument(p)
    p.add_argument("--construction", "-c", default="gate-edge", type=construction_choice, metavar="NAME|FILE.json")
    p.add_argument("--depth-bound", "-K", type=integer, default=None,
                   help="build T_K for this K (default: the circuit's depth)")
    p.add_argument("--binarize", action="store_true",
                   help="turn n-ary products (and for unique-hard n-ary sums) into balanced binary trees")
    p.add_argument("-o", "--output", default=None, help="output directory (default: compiled-<circuit name>)")
    p.set_defaults(func=run)


@gc_paused  # millions of rows and roles that live until the files are written (gc_pause.py)
def run(args: argparse.Namespace) -> int:
    from .common import check_class_at_source, circuit_from_args
    from ..transformer.spec import transformer_to_json
    import json
    from itertools import chain

    circuit = circuit_from_args(args)
    construction = resolve_construction(args.construction)
    if args.binarize:
        result = binarize(circuit, sums=construction.bounded_fan_in)
        circuit = result.circuit
        print(describe_binarized(result))
    check_class_at_source(construction, circuit, args)
    compiled = construction.compile(circuit, args.depth_bound)
    out_dir = Path(args.output or f"compiled-{circuit.name}")
    files = {
        "transformer.json": json.dumps(transformer_to_json(compiled.transformer), indent=1, sort_keys=True) + "\n",
        "encoding.json": chain(compiled.encoding.chunks(), ["\n"]),  # in pieces: 185 MB of text at 10⁶ gates
    }
    made = not out_dir.exists()
    try:
        write_into_directory(str(out_dir), list(files.items()))  # every target checked first; atomic, umask's mode
    except InputError as exc:  # a number past what encoding.json may hold (run would refuse it): nothing is left
        if made:  # made empty just before: nothing is renamed into it until every file is staged
            with suppress(OSError):
                out_dir.rmdir()
        raise exc.located(args.circuit or f"--family {args.family}") from None
    t = compiled.transformer
    print(f"construction     {construction.name}  ({construction.summary})")
    print(f"circuit          {circuit.name}: {plural(circuit.size, 'gate')}, {plural(circuit.n_edges, 'edge')}, "
          f"depth {circuit_depth(circuit)}")
    print(f"dimension        {t.dimension}  ({', '.join(t.coordinates)})")
    print(f"layers           {t.n_layers}  (K = {compiled.depth_bound})")
    print(f"heads            {t.n_heads} in all, {max(len(l.heads) for l in t.layers) if t.layers else 0} per layer")
    print(f"sequence length  {compiled.encoding.length}")
    from ..transformer.precision import precision
    needs = precision(t, compiled.encoding.rows, construction.structural, circuit)
    for number, line in enumerate(needs.lines()):
        print(f"{'precision' if number == 0 else '':16} {line}")
    print(f"paper            {construction.paper}")
    print(f"wrote            {out_dir / 'transformer.json'}, {out_dir / 'encoding.json'}")
    return 0
