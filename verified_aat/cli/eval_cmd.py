"""``verified-aat eval``: exact value of a circuit on one input vector, or on a file of them."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Callable

from ..circuits.evaluate import evaluate
from ..circuits.io import parse_input_vector
from ..circuits.ir import Circuit, Domain
from ..circuits.rationals import format_rational
from ..errors import EXIT_OK, InputError
from ..gc_pause import gc_paused
from ..limits import MAX_VALUE_BITS
from .common import ARGUMENTS, add_circuit_argument, add_inputs_arguments, circuit_from_args, read_input_vectors


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "eval", help="evaluate a circuit exactly on one input (or a file of inputs)",
        description="Evaluate a circuit over Q with exact rationals and print each output as "
                    "'name = value' (e.g. 'y = -3/4'). With --inputs FILE: one line per input vector, "
                    "its outputs as 'name = value' comma-separated in the circuit's output order.")
    add_circuit_argument(parser)
    parser.add_argument("--input", metavar="VALUES", default=None,
                        help="the inputs, e.g. 1,-3/4,0.25 or '1 2 3' or @FILE; write "
                             "--input=-1,2 when the first value is negative")
    add_inputs_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")
    parser.set_defaults(func=run)


def _check_threshold(circuit: Circuit, vectors: list[tuple[int | None, list[Any]]], file: str) -> None:
    """A threshold arithmetization means nothing outside {0,1}^n: such an input is bad input."""
    if circuit.provenance is None or circuit.provenance.arithmetization != "threshold":
        return
    for line, values in vectors:
        for k, v in enumerate(values, start=1):
            if v not in (0, 1):
                raise InputError(f"input {k} is {format_rational(v)}, not 0 or 1: a threshold arithmetization "
                                 f"matches the netlist on {{0,1}}^n only (use --mode exact)", file, line)


def _warn_boolean(circuit: Circuit, vectors: list[list[Any]]) -> None:
    if circuit.domain is Domain.BOOLEAN and any(v not in (0, 1) for values in vectors for v in values):
        print(f"verified-aat: warning: circuit {circuit.name} is meant for inputs in {{0,1}} only",
              file=sys.stderr)


def vector_line_parser(n: int) -> Callable[[str], list[Any]]:
    """The parser of one ``--inputs`` line of ``n`` values (``eval`` and ``run`` share it): an ``--input``
    vector, except that ``@FILE`` is refused inside the file."""
    def parse(text: str) -> list[Any]:
        if text.startswith("@"):
            raise InputError("'@FILE' is not allowed inside an --inputs file")
        return parse_input_vector(text, n)
    return parse


def run(args: argparse.Namespace) -> int:
    circuit = gc_paused(circuit_from_args)(args)  # one pass over millions of long-lived objects (gc_pause.py)
    names = circuit.output_names or tuple(circuit.gate_name(o) for o in circuit.outputs)
    if args.inputs is not None:
        if args.input is not None:
            raise InputError("give either --input or --inputs, not both", ARGUMENTS)
        return _run_many(args, circuit, names)
    values = parse_input_vector(args.input or "", circuit.n_inputs, file="--input")
    _check_threshold(circuit, [(None, values)], "--input")
    _warn_boolean(circuit, [values])
    outputs = evaluate(circuit, values, MAX_VALUE_BITS)
    if args.json:
        print(json.dumps({"circuit": circuit.name, **_result_json(values, names, outputs)}, indent=1,
                         ensure_ascii=False))
    else:
        for name, value in zip(names, outputs):
            print(f"{name} = {format_rational(value)}")
    return EXIT_OK


def _result_json(values: list[Any], names: tuple[str, ...], outputs: list[Any]) -> dict[str, Any]:
    """The inputs and the named outputs of one vector, the same for ``--input`` and each ``--inputs`` line."""
    return {"inputs": [format_rational(v) for v in values],
            "outputs": [{"name": n, "value": format_rational(v)} for n, v in zip(names, outputs)]}


def _run_many(args: argparse.Namespace, circuit: Circuit, names: tuple[str, ...]) -> int:
    """Every vector of ``--inputs`` (all checked first), one output line each."""
    vectors = read_input_vectors(args.inputs, args.max_inputs, vector_line_parser(circuit.n_inputs))
    _check_threshold(circuit, vectors, args.inputs)
    _warn_boolean(circuit, [values for _, values in vectors])
    results = []
    for line, values in vectors:
        outputs = evaluate(circuit, values, MAX_VALUE_BITS)
        if args.json:
            results.append({"line": line, **_result_json(values, names, outputs)})
        else:  # named as with --input, one line per vector
            print(", ".join(f"{name} = {format_rational(v)}" for name, v in zip(names, outputs)))
    if args.json:
        print(json.dumps({"circuit": circuit.name, "inputs_file": args.inputs, "outputs": list(names),
                          "results": results}, indent=1, ensure_ascii=False))
    return EXIT_OK
