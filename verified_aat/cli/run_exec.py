"""What ``verified-aat run`` does (``run_cmd.py`` builds its parser): the engines load only when it runs."""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from fractions import Fraction
from itertools import chain
from typing import Any, Sequence

from ..circuits.io import parse_input_vector
from ..circuits.rationals import format_rational
from ..constructions.encoding import Encoding
from ..constructions.registry import CONSTRUCTIONS, resolve_construction
from ..errors import EXIT_OK, InputError
from ..transformer.exact_engine import SOFTMAX_MESSAGE, ExactRunner, RunResult
from ..transformer.key_join import KeyDecompositions
from ..transformer.float_engine import FloatRunner, FloatRunResult, encoded_array
from ..transformer.jsonfile import read_json_file
from ..transformer.model import Transformer
from ..transformer.sequence import load_sequence
from ..transformer.spec import load_transformer
from .option_rules import check_model_applicable
from .common import read_input_vectors
from .eval_cmd import vector_line_parser
from .resources import require_memory
from ..gc_pause import gc_paused
from ..limits import MAX_VALUE_BITS


def _keys(args: argparse.Namespace, encoding: Encoding | None) -> KeyDecompositions | None:
    """The key decompositions the engines may use once proved (None with --no-join)."""
    if args.no_join:
        return None
    from ..symbolic.attention import engine_keys

    construction = _construction(args, encoding)
    return engine_keys(construction.score_hints() if construction else None, args.key_timeout)


def _runner(args: argparse.Namespace, model: Transformer, encoding: Encoding | None,
            keys: KeyDecompositions | None) -> ExactRunner:
    """The exact engine: a settled run when the encoding carries settle layers (unless --full, or the
    float comparison, which needs every value)."""
    if args.full and encoding is not None and encoding.settle is None:
        from .option_rules import option_name
        raise InputError(f"{option_name('full')} goes with an encoding that has settle layers (compile writes them); "
                         f"this one has none, so every value is computed anyway: here it would do nothing",
                         args.encoding)
    settled = encoding is not None and encoding.settle is not None and not args.full and args.engine == "exact"
    return ExactRunner(model, keys, forget=encoding.settle if settled else None,  # type: ignore[union-attr]
                       max_bits=MAX_VALUE_BITS)


def _construction(args: argparse.Namespace, encoding: Encoding | None) -> Any:
    """``-c NAME|FILE.json`` (a document is validated: file:line errors), else the built-in the encoding names."""
    if args.construction:
        return resolve_construction(args.construction)
    return CONSTRUCTIONS.get(encoding.construction) if encoding is not None else None


def _load_encoding(path: str, model: Transformer) -> Encoding:
    from ..files import shown
    data, locator = read_json_file(path, "encoding")
    path = shown(path)
    encoding = Encoding.from_json(data, path)
    if tuple(encoding.coordinates) != tuple(model.coordinates):
        raise InputError(f"the encoding's coordinates [{', '.join(encoding.coordinates)}] differ from the "
                         f"model's [{', '.join(model.coordinates)}]", path, locator.line(("coordinates",)))
    return encoding


def _show(value: Any, engine: str) -> str:
    if engine == "exact":
        return _exact_text(value)
    return repr(float(value))


def _exact_text(value: Any) -> str:
    """An exact value as text, of any length (``str`` stops at Python's 4,300 digits); ⊥ as itself."""
    if isinstance(value, (int, Fraction)) and not isinstance(value, bool):
        return format_rational(value)
    return str(value)


def run(args: argparse.Namespace) -> int:
    model = load_transformer(args.model)
    check_model_applicable(args, model)
    if args.inputs is not None:  # many runs: the collector stays on (garbage of one run must not pile up)
        return _run_many(args, model)
    return _run_one(args, model)


@gc_paused  # one pass over millions of long-lived objects (gc_pause.py)
def _run_one(args: argparse.Namespace, model: Transformer) -> int:
    encoding: Encoding | None = None
    if args.encoding is not None:
        encoding = _load_encoding(args.encoding, model)
        values = parse_input_vector(args.input or "", encoding.n_inputs, file="--input")  # as eval: @FILE too
        sequence: Any = (encoded_array(encoding.rows, encoding.input_slots, values)
                         if args.engine != "exact" and not args.compare_exact else encoding.instantiate(values))
    else:
        if args.input is not None:
            raise InputError("--input goes with --encoding, not with --sequence", "command line")
        sequence = load_sequence(args.sequence, coordinates=model.coordinates).vectors
    require_memory("run", len(sequence), args)
    _warn_precision(args, model, encoding)
    start = time.perf_counter()
    result: RunResult | FloatRunResult
    keys = _keys(args, encoding)
    runner = _runner(args, model, encoding, keys) if args.engine == "exact" or args.compare_exact else None
    try:
        if runner is not None and args.engine == "exact":
            result = runner.run(sequence, trace=args.trace, needed=encoding.readout if encoding else ())
            outputs: Any = result.outputs
        else:
            result = FloatRunner(model, keys, notice=_notice).run(sequence, args.engine, args.softmax_temperature, trace=args.trace)
            outputs = result.outputs  # rows of numpy floats: only the read-out, or the printed vectors, are read
    except InputError as exc:
        raise _located(exc, args) from None
    seconds = time.perf_counter() - start
    readout = encoding.read(outputs) if encoding is not None else None
    if readout is not None and args.engine != "exact":
        _warn_rounding(args.engine, _row_values(encoding), values, readout)  # type: ignore[arg-type]
    elif args.engine != "exact":  # a --sequence: its own values, and every output value (all are printed)
        _warn_rounding(args.engine, set(chain.from_iterable(sequence)), (), list(chain.from_iterable(outputs)),
                       "the sequence")
    comparison = None
    if args.compare_exact and args.engine != "exact":
        from ..transformer.float_engine import compare_to_exact
        assert runner is not None
        try:
            exact = runner.run(sequence).outputs
        except InputError as exc:
            raise _located(exc, args) from None
        comparison = compare_to_exact(exact, result.outputs, model.coordinates)  # type: ignore[union-attr]
    if args.json:  # one JSON object, the comparison inside it
        doc = _as_json(args, model, result, outputs, readout, seconds)
        if comparison is not None:
            doc["compare_exact"] = {"coordinates": list(comparison.coordinates), "max_abs": list(comparison.max_abs),
                                    "max_rel": list(comparison.max_rel)}
        print(json.dumps(doc, indent=1))
    else:
        _print_text(args, model, result, outputs, readout, seconds)
        if comparison is not None:
            print(comparison.format())
    return EXIT_OK


def _notice(message: str) -> None:
    print(f"verified-aat: note: {message}", file=sys.stderr, flush=True)


def _located(exc: InputError, args: argparse.Namespace) -> InputError:
    if exc.message == SOFTMAX_MESSAGE:
        from ..files import shown
        return InputError(f"{SOFTMAX_MESSAGE} (--engine float64)", shown(args.model))
    return exc.located(args.sequence or args.encoding)


def _warn_precision(args: argparse.Namespace, model: Transformer, encoding: Encoding | None) -> None:
    """Before a floating-point run on an encoding: warn when the mantissa is too short for exact argmax sets."""
    if args.engine == "exact" or encoding is None:
        return
    from ..transformer.precision import precision
    construction = _construction(args, encoding)
    if construction is None:
        return
    # the bound reads only the largest magnitude of each structural coordinate: one row of those
    columns = [c for c, name in enumerate(model.coordinates) if name in construction.structural]
    largest: list[Fraction | int] = [0] * model.dimension
    for c in columns:
        largest[c] = max((abs(row[c]) for row in encoding.rows), default=0)  # type: ignore[type-var, call-overload]
    warning = precision(model, [largest], construction.structural).warning(args.engine)
    if warning:
        print(f"verified-aat: warning: {warning}", file=sys.stderr)


def _row_values(encoding: Encoding) -> set[Any]:
    """The values of enc(C, ·)'s rows a dtype may round: the largest magnitude and every fraction (two passes in C)."""
    rows = encoding.rows
    given = {max(map(abs, chain.from_iterable(rows)), default=0)}
    if not {int}.issuperset(map(type, chain.from_iterable(rows))):  # a row holds a fraction (a constant): each one
        given |= {v for v in chain.from_iterable(rows) if type(v) is not int}
    return given


def _warn_rounding(engine: str, rows: set[Any], values: Sequence[Any], readout: Sequence[Any],
                   given: str = "enc(C, x)") -> bool:
    """After a float run on an encoding: a warning (True) when the dtype rounded enc(C, x) (``rows``: _row_values) or a
    read-out, which is then not C(x) to within rounding alone (red team, round 28: sign(1/10 + 2/10 - 3/10) read 1.0,
    exactly 0; x^1024 read nan; both silently). What the argmax sets need is _warn_precision's. On a ``--sequence``
    (``given``): its values, and every output value, against the exact run's."""
    import numpy as np

    from ..transformer.precision import MANTISSA_BITS
    limit, cast = 2 ** MANTISSA_BITS[engine], np.dtype(engine).type
    exact = rows | set(map(Fraction, values))
    rounded = sorted((v for v in exact if abs(v) >= limit or Fraction(float(cast(float(v)))) != v), key=abs)[:1]
    wrong = sorted((float(v) for v in readout if not math.isfinite(float(v)) or abs(float(v)) >= limit),
                   key=math.isfinite)[:1]
    if not rounded and not wrong:
        return False
    read, differ = ("a read-out", "read-outs may differ from C(x)") if given == "enc(C, x)" else \
        ("an output value", "outputs may differ from the exact run's")
    why = f"{format_rational(rounded[0])} in {given} is not a {engine}" if rounded else \
        f"{read} is {wrong[0]!r} (not finite, or past {engine}'s {MANTISSA_BITS[engine]} mantissa bits)"
    print(f"verified-aat: warning: {why}: {differ} by more than rounding (a sign of a rounded 0 reads ±1); use the "
          "exact engine or --compare-exact", file=sys.stderr)
    return True


def _run_many(args: argparse.Namespace, model: Transformer) -> int:
    """``--inputs FILE``: every line checked first, then one run each in this start, one output line each."""
    if args.encoding is None:
        raise InputError("--inputs goes with --encoding ENC (one circuit input vector a line)", "command line")
    if args.input is not None or args.trace or args.compare_exact:
        raise InputError("--inputs takes no --input, --trace or --compare-exact (they are for one input)",
                         "command line")
    encoding = _load_encoding(args.encoding, model)
    vectors = read_input_vectors(args.inputs, args.max_inputs, vector_line_parser(encoding.n_inputs))
    require_memory("run", encoding.length, args)
    start = time.perf_counter()
    keys = _keys(args, encoding)
    runner = _runner(args, model, encoding, keys) if args.engine == "exact" else None
    floats = FloatRunner(model, keys, notice=_notice) if runner is None else None
    base = encoded_array(encoding.rows, (), ()) if floats is not None else None   # enc(C, ·) once, x set per line
    results: list[dict[str, Any]] = []
    totals: dict[str, int] = {}
    methods: dict[tuple[str, str], None] = {}
    show = _exact_text if args.engine == "exact" else (lambda v: repr(float(v)))
    warned, rows = False, (_row_values(encoding) if runner is None else set())
    for line, values in vectors:
        try:
            if runner is not None:
                result = runner.run(encoding.instantiate(values), needed=encoding.readout)
                outputs: Any = result.outputs
                for name in ("score_evaluations", "argmax_computed", "argmax_reused", "argmax_join"):
                    totals[name] = totals.get(name, 0) + getattr(result.stats, name)
                methods.update(dict.fromkeys(result.stats.head_methods))
            else:
                assert floats is not None
                assert base is not None
                float_result = floats.run(encoded_array(base, encoding.input_slots, values), args.engine,
                                          args.softmax_temperature)
                outputs = float_result.outputs
                assert float_result.stats is not None
                for name in ("argmax_join", "argmax_reused", "argmax_all_pairs", "score_cells"):
                    totals[name] = totals.get(name, 0) + getattr(float_result.stats, name)
                methods.update(dict.fromkeys(float_result.stats.head_methods))
        except InputError as exc:
            raise _located(exc, args) from None
        if runner is None and not warned:
            warned = _warn_rounding(args.engine, rows, values, encoding.read(outputs))
        readout = [show(v) for v in encoding.read(outputs)]
        if args.json:
            results.append({"line": line, "inputs": [_exact_text(v) for v in values], "outputs": readout})
        else:
            print(", ".join(readout), flush=False)
    seconds = time.perf_counter() - start
    if args.json:
        doc: dict[str, Any] = {"model": os.fspath(args.model), "engine": args.engine, "inputs_file": args.inputs,
                               "vectors": len(vectors), "positions": encoding.length, "layers": model.n_layers,
                               "seconds": round(seconds, 6), "results": results}
        doc["stats"] = {**totals, "head_methods": [list(m) for m in methods]}
        print(json.dumps(doc, indent=1))
    else:
        summary = (f"vectors: {len(vectors)}  positions: {encoding.length}  layers: {model.n_layers}  "
                   f"engine: {args.engine}  time: {seconds:.3f} s")
        summary += "  " + _methods_text(tuple(methods))
        print(summary, file=sys.stderr)
    return EXIT_OK


def _methods_text(head_methods: tuple[tuple[str, str], ...]) -> str:
    joined = [h for h, m in head_methods if m == "join"]
    pairs = [h for h, m in head_methods if m != "join"]
    return (f"key join: {', '.join(dict.fromkeys(joined)) or '-'}  "
            f"all pairs: {', '.join(dict.fromkeys(pairs)) or '-'}")


def _as_json(args: argparse.Namespace, model: Transformer, result: RunResult | FloatRunResult,
             outputs: Sequence[Sequence[Any]], readout: tuple[Any, ...] | None, seconds: float) -> dict[str, Any]:
    show = _exact_text if args.engine == "exact" else (lambda v: float(v))
    doc: dict[str, Any] = {"model": os.fspath(args.model), "engine": args.engine, "positions": len(outputs),
                           "layers": model.n_layers, "seconds": round(seconds, 6),
                           "coordinates": list(model.coordinates)}
    if readout is not None:
        doc["outputs"] = [show(v) for v in readout]
    else:
        doc["vectors"] = [[show(v) for v in row] for row in outputs]
    if isinstance(result, RunResult):
        doc["stats"] = {"score_evaluations": result.stats.score_evaluations,
                        "argmax_computed": result.stats.argmax_computed,
                        "argmax_reused": result.stats.argmax_reused,
                        "argmax_join": result.stats.argmax_join,
                        "head_methods": [list(m) for m in result.stats.head_methods],
                        "settled": result.stats.settled}
        if result.trace is not None:
            doc["trace"] = [{"layer": lt.layer, "vectors": [[_exact_text(v) for v in row] for row in lt.vectors],
                             "argmax": {h.head: [list(s) for s in h.argmax] for h in lt.heads}}
                            for lt in result.trace]
    elif result.stats is not None:
        doc["stats"] = {"argmax_join": result.stats.argmax_join, "argmax_reused": result.stats.argmax_reused,
                        "argmax_all_pairs": result.stats.argmax_all_pairs, "score_cells": result.stats.score_cells,
                        "head_methods": [list(m) for m in result.stats.head_methods]}
    if isinstance(result, FloatRunResult) and result.layers is not None:
        doc["trace"] = [{"layer": layer.name or f"layer {k + 1}", "vectors": [[float(v) for v in row]
                                                                             for row in arr.tolist()]}
                        for k, (layer, arr) in enumerate(zip(model.layers, result.layers))]
    return doc


def _vector(row: Sequence[Any], engine: str) -> str:
    return "[" + ", ".join(_show(v, engine) for v in row) + "]"


def _print_text(args: argparse.Namespace, model: Transformer, result: RunResult | FloatRunResult,
                outputs: Sequence[Sequence[Any]], readout: tuple[Any, ...] | None, seconds: float) -> None:
    engine = args.engine
    if args.trace:
        print(f"coordinates: {', '.join(model.coordinates)}")
        if isinstance(result, RunResult) and result.trace is not None:
            for lt in result.trace:
                print(f"after {lt.layer}:")
                for p, row in enumerate(lt.vectors):
                    sets = "  ".join(f"{h.head}->{{{','.join(map(str, h.argmax[p]))}}}" for h in lt.heads)
                    print(f"  {p}: {_vector(row, engine)}  {sets}".rstrip())
        elif isinstance(result, FloatRunResult) and result.layers is not None:
            for k, (layer, arr) in enumerate(zip(model.layers, result.layers)):
                print(f"after {layer.name or f'layer {k + 1}'}:")
                for p, row in enumerate(arr.tolist()):
                    print(f"  {p}: {_vector(row, engine)}")
    if readout is not None:
        print("outputs: " + ", ".join(_show(v, engine) for v in readout))
    else:
        print(f"output vectors ({', '.join(model.coordinates)}):")
        for p, vector in enumerate(outputs):
            print(f"  {p}: {_vector(vector, engine)}")
    summary = f"positions: {len(outputs)}  layers: {model.n_layers}  engine: {engine}  time: {seconds:.3f} s"
    if isinstance(result, RunResult):
        summary += (f"  score evaluations: {result.stats.score_evaluations}"
                    f"  argmax reused: {result.stats.argmax_reused}/"
                    f"{result.stats.argmax_reused + result.stats.argmax_computed}"
                    f"  {_methods_text(result.stats.head_methods)}"
                    f"{'  settled run (--full: every value)' if result.stats.settled else ''}")
    elif result.stats is not None:
        summary += f"  {_methods_text(result.stats.head_methods)}"
    print(summary)
