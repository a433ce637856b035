"""``verified-aat run``: run a transformer spec on a sequence or on an encoded circuit input.

With ``--sequence FILE`` it prints the output vectors; with ``--encoding ENC
--input 1,2,-3/4`` it builds enc(C, x), runs the model and prints the
read-out values (the circuit outputs as the transformer computes them);
``--inputs FILE`` does that for every vector of a file (one a line) in one
start.  With an encoding from ``compile`` (which carries each position's settle layers) the
exact run is a settled run: values at positions that have not settled are not computed (⊥),
so netlists whose unsettled values grow doubly exponentially run too; the read-out is the same
as a full run's, and ``--full`` computes every value.  ``--engine float64|float32`` uses the floating-point engine instead of
exact rationals (softmax pooling needs it).

Both engines compute argmax sets by the key join wherever a key decomposition
is proved for the head's own score (the construction named by the encoding or
``--construction``, or one read off the score), and on all pairs elsewhere
(``--no-join``: everywhere).  The float engine joins only where its float scores
are provably the exact ones (``transformer/float_engine.py``), so the join gives
the sets its all-pairs scores would.
"""

from __future__ import annotations

import argparse
from typing import Any

from ..constructions.registry import construction_choice
from .common import add_inputs_arguments
from .resources import add_resource_options
from .option_rules import decimal, integer


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "run", help="run a transformer spec on a sequence (exact or floating point)",
        description="Run a transformer spec (JSON) on an input sequence, or on enc(C, x) for an encoding "
                    "file and input values, and print the outputs.")
    parser.add_argument("model", metavar="MODEL", help="transformer spec (verified-aat/transformer JSON)")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--sequence", metavar="FILE", help="input sequence (verified-aat/sequence JSON)")
    source.add_argument("--encoding", metavar="ENC", help="encoding enc(C, ·) (verified-aat/encoding JSON)")
    parser.add_argument("--input", metavar="VALUES", default=None,
                        help="the circuit input x for --encoding, as for eval: e.g. --input=1,2,-3/4, '1 2 3' "
                             "or @FILE (use '=' when the first value is negative)")
    add_inputs_arguments(parser)
    parser.add_argument("--engine", choices=["exact", "float64", "float32"], default="exact",
                        help="exact rationals (default) or the floating-point engine")
    parser.add_argument("--construction", "-c", type=construction_choice, metavar="NAME|FILE.json", default=None,
                        help="take key decompositions from this construction (default: the one the encoding "
                             "names); each is used only after its lemma is proved for the model's own score")
    parser.add_argument("--no-join", action="store_true",
                        help="score all pairs of positions even where a key decomposition is proved (either engine)")
    parser.add_argument("--key-timeout", type=integer, default=10_000, metavar="MS",
                        help="solver time limit per key-decomposition lemma (default 10000 ms; a timeout "
                             "means all pairs for that head)")
    parser.add_argument("--full", action="store_true",
                        help="exact engine: compute every value, also at positions that have not settled yet "
                             "(default with an encoding from compile: a settled run, which computes only what "
                             "can reach a settled value and shows the rest as ⊥; the read-out is the same)")
    parser.add_argument("--trace", action="store_true", help="print the vectors (and argmax sets) after every layer")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    parser.add_argument("--softmax-temperature", type=decimal, default=1.0, metavar="T",
                        help="temperature of softmax heads (float engines only; default 1)")
    parser.add_argument("--compare-exact", action="store_true",
                        help="with a float engine: also run exactly and print the error per coordinate")
    add_resource_options(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """The engines (numpy, the exact and float engines) load here, not when every command's parser is built."""
    from .run_exec import run as execute
    return execute(args)
