"""``verified-aat eval``: exact value of a circuit on one input vector."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..circuits.evaluate import evaluate
from ..circuits.io import parse_input_vector
from ..circuits.ir import Domain
from ..circuits.rationals import format_rational
from ..errors import EXIT_OK
from .common import add_circuit_argument, circuit_from_args


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "eval", help="evaluate a circuit exactly on one input",
        description="Evaluate a circuit over Q with exact rationals and print each output as "
                    "'name = value' (e.g. 'y = -3/4').")
    add_circuit_argument(parser)
    parser.add_argument("--input", metavar="VALUES", default="",
                        help="the inputs, e.g. 1,-3/4,0.25 or '1 2 3' or @FILE; write "
                             "--input=-1,2 when the first value is negative")
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    circuit = circuit_from_args(args)
    values = parse_input_vector(args.input, circuit.n_inputs, file="--input")
    if circuit.domain is Domain.BOOLEAN and any(v not in (0, 1) for v in values):
        print(f"verified-aat: warning: circuit {circuit.name} is meant for inputs in {{0,1}} only",
              file=sys.stderr)
    outputs = evaluate(circuit, values)
    names = circuit.output_names or tuple(circuit.gate_name(o) for o in circuit.outputs)
    if args.json:
        print(json.dumps({
            "circuit": circuit.name,
            "inputs": [format_rational(v) for v in values],
            "outputs": [{"name": n, "value": format_rational(v)} for n, v in zip(names, outputs)],
        }, indent=1, ensure_ascii=False))
    else:
        for name, value in zip(names, outputs):
            print(f"{name} = {format_rational(value)}")
    return EXIT_OK
