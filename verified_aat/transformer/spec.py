"""The versioned JSON transformer spec (``verified-aat/transformer``, version 1).

A spec names the coordinates, a table of named circuits (``functions``) in
the circuit text format, and the layers.  A head's ``score`` is a function
name, an inline list of lines, or a sparse bilinear form
``{"bilinear": {"i.a j.b": "2", ...}}`` (missing entries are 0); a layer's
``activation`` is a function name or inline lines.  A function is parsed with
implicit inputs (``i.<c>``/``j.<c>`` for scores, ``x.<c>`` and
``<head>.<c>`` for activations), so one function can serve many layers:
editing it changes all of them.  Saving finds identical circuits and writes
each once, with keys sorted, so the same transformer always gives the same
bytes.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from fractions import Fraction
from typing import Any

from ..circuits.ir import Circuit, Kind
from ..circuits.text_format import parse_circuit_text, print_circuit
from ..errors import InputError, LimitReached
from ..limits import MAX_LAYERS
from ..wording import plural, unprintable
from .jsonfile import Locator, format_rational, parse_rational, read_json_file, write_text_atomic
from .model import (BilinearScore, CircuitScore, Head, Layer, Pooling, Transformer, activation_input_names,
                    score_input_names, smt_name_clash)

FORMAT = "verified-aat/transformer"
VERSION = 1
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_FUNCTION_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*\Z")
_TOP_KEYS = {"format", "version", "name", "coordinates", "functions", "layers", "notes"}
_LAYER_KEYS = {"name", "heads", "activation"}
_HEAD_KEYS = {"name", "pooling", "score"}


# -- serialising ---------------------------------------------------------------

def _with_input_names(circuit: Circuit, names: list[str]) -> Circuit:
    """The same circuit with input ``k`` named ``names[k]`` (other gates never clash)."""
    taken = set(names)
    gates = []
    for gate in circuit.gates:
        if gate.kind is Kind.INPUT:
            gate = dataclasses.replace(gate, name=names[gate.index])  # type: ignore[index]
        elif gate.name is not None and gate.name in taken:
            gate = dataclasses.replace(gate, name=None)
        gates.append(gate)
    return Circuit(tuple(gates), circuit.outputs, circuit.name, circuit.domain, circuit.output_names,
                   circuit.provenance)


class _FunctionTable:
    """Collects circuits as text, one entry per distinct text, with stable names."""

    def __init__(self) -> None:
        self.functions: dict[str, list[str]] = {}
        self._by_text: dict[str, str] = {}

    def add(self, circuit: Circuit, input_names: list[str], role: str) -> str:
        text = print_circuit(_with_input_names(circuit, input_names), implicit_inputs=True)
        if text in self._by_text:
            return self._by_text[text]
        base = circuit.name if _FUNCTION_NAME.match(circuit.name or "") and circuit.name != "circuit" else role
        name, suffix = base, 2
        while name in self.functions:
            name, suffix = f"{base}_{suffix}", suffix + 1
        lines = text.rstrip("\n").split("\n")
        if lines and lines[0].startswith("circuit "):
            lines = lines[1:]  # the function's key names it
        self.functions[name] = lines
        self._by_text[text] = name
        return name


def transformer_to_json(t: Transformer, notes: str | None = None) -> dict[str, Any]:
    """The spec document of ``t``; identical circuits become one shared function."""
    table = _FunctionTable()
    layers = []
    for layer in t.layers:
        heads = []
        for head in layer.heads:
            score: Any
            if isinstance(head.score, BilinearScore):
                score = {"bilinear": {f"i.{t.coordinates[r]} j.{t.coordinates[c]}": format_rational(q)
                                      for r, c, q in head.score.entries()}}
            else:
                score = table.add(head.score.circuit, score_input_names(t.coordinates), "score")
            heads.append({"name": head.name, "pooling": head.pooling.value, "score": score})
        names = activation_input_names(t.coordinates, [h.name for h in layer.heads])
        activation = table.add(layer.activation, names, "activation")
        layers.append({"name": layer.name, "heads": heads, "activation": activation})
    document: dict[str, Any] = {"format": FORMAT, "version": VERSION, "name": t.name,
                                "coordinates": list(t.coordinates), "functions": table.functions,
                                "layers": layers}
    if notes:
        document["notes"] = notes
    return document


def dumps_transformer(t: Transformer, notes: str | None = None) -> str:
    """The spec as text: sorted keys, one circuit line per JSON line, one layer per JSON line."""
    doc = transformer_to_json(t, notes)
    parts = []
    for key in sorted(doc):
        value = doc[key]
        if key == "functions" and value:
            inner = ",\n".join(f"  {_dump(name)}: [\n" + ",\n".join(f"   {_dump(line)}" for line in lines) + "\n  ]"
                               for name, lines in sorted(value.items()))
            text = "{\n" + inner + "\n }"
        elif key == "layers" and value:
            text = "[\n" + ",\n".join(f"  {_dump(layer)}" for layer in value) + "\n ]"
        else:
            text = _dump(value)
        parts.append(f" {_dump(key)}: {text}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def _dump(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def save_transformer(t: Transformer, path: str | os.PathLike[str], notes: str | None = None) -> None:
    """Write the spec of ``t`` to ``path`` atomically."""
    write_text_atomic(path, dumps_transformer(t, notes))


# -- loading -------------------------------------------------------------------

class _Reader:
    """Validation state for one document: the file, its line locator, parsed functions."""

    def __init__(self, data: dict[str, Any], file: str | None, locator: Locator):
        self.data = data
        self.file = file
        self.loc = locator
        self.parsed: dict[tuple[Any, ...], Circuit] = {}

    def error(self, message: str, path: tuple[str | int, ...] = ()) -> InputError:
        return InputError(message, self.file, self.loc.line(path))

    def circuit(self, ref: Any, path: tuple[str | int, ...], inputs: list[str], what: str,
                inline_name: str) -> Circuit:
        """Parse a function reference or inline lines as a circuit with ``inputs`` implicit."""
        body_path: tuple[str | int, ...]
        if isinstance(ref, str):
            functions = self.data.get("functions") or {}
            if ref not in functions:
                raise self.error(f"{what}: unknown function {ref!r}", path)
            body, body_path, label = functions[ref], ("functions", ref), f"function {ref!r}"
            name = ref
        elif isinstance(ref, list):
            body, body_path, label, name = ref, path, f"{what} (inline)", inline_name
        else:
            raise self.error(f"{what}: expected a function name or a list of lines, got {type(ref).__name__}", path)
        key = (label, tuple(inputs)) if isinstance(ref, str) else (id(ref), tuple(inputs))
        if key not in self.parsed:
            self.parsed[key] = self._parse(body, body_path, label, name, inputs, what)
        return self.parsed[key]

    def _parse(self, body: Any, path: tuple[str | int, ...], label: str, name: str, inputs: list[str],
               what: str) -> Circuit:
        if isinstance(body, str):
            text = body
        elif isinstance(body, list) and all(isinstance(line, str) for line in body):
            text = "\n".join(body)
        else:
            raise self.error(f"{label}: expected a list of lines or a string", path)
        try:
            return parse_circuit_text(text, file=None, implicit_inputs=inputs, name=name)
        except ValueError as exc:
            inner = exc.line if isinstance(exc, InputError) else None
            message = exc.message if isinstance(exc, InputError) else str(exc)
            line = self.loc.line(path + (inner - 1,)) if isinstance(body, list) and inner else self.loc.line(path)
            where = f" (line {inner} of its text)" if isinstance(body, str) and inner and "\n" in body else ""
            raise InputError(f"{label}{where}, used as {what}: {message}", self.file, line) from None


def transformer_from_json(data: Any, file: str | None = None, *, locator: Locator | None = None) -> Transformer:
    """Validate a spec document and build the :class:`Transformer` it describes.

    ``locator`` (from :func:`~verified_aat.transformer.jsonfile.read_json_file`)
    lets errors name the line of the JSON file; without it only the file is named.
    """
    reader = _Reader(data if isinstance(data, dict) else {}, file, locator or Locator(None))
    if not isinstance(data, dict):
        raise reader.error(f"a transformer spec must be a JSON object, got {type(data).__name__}")
    if data.get("format") != FORMAT:
        raise reader.error(f"not a transformer spec (\"format\" should be {FORMAT!r})", ("format",))
    version = data.get("version")
    if isinstance(version, bool) or version != VERSION:
        raise reader.error(f"unsupported spec version {version!r} (this tool reads version {VERSION})", ("version",))
    unknown = sorted(set(data) - _TOP_KEYS)
    if unknown:
        raise reader.error(f"unknown key {unknown[0]!r}", (unknown[0],))
    name = data.get("name", "transformer")
    if not isinstance(name, str):
        raise reader.error("\"name\" must be a string", ("name",))
    if problem := unprintable(name):
        raise reader.error(f"\"name\": {problem}", ("name",))
    if "notes" in data and not isinstance(data["notes"], str):
        raise reader.error("\"notes\" must be a string", ("notes",))
    coordinates = _coordinates(reader)
    functions = data.get("functions", {})
    if not isinstance(functions, dict):
        raise reader.error("\"functions\" must be an object of named circuits", ("functions",))
    for fname in functions:
        if not _FUNCTION_NAME.match(fname):
            raise reader.error(f"bad function name {fname!r}", ("functions", fname))
    layers_data = data.get("layers")
    if not isinstance(layers_data, list):
        raise reader.error("\"layers\" must be a list", ("layers",))
    if len(layers_data) > MAX_LAYERS:
        raise LimitReached(f"{reader.file or 'the transformer'}: {len(layers_data):,} layers, more than the layers limit "
                           f"({MAX_LAYERS:,}: what the kernel checks)")
    layers = tuple(_layer(reader, coordinates, entry, number) for number, entry in enumerate(layers_data))
    seen: set[int] = set()
    for number, layer in enumerate(layers):
        for what, circuit in [("activation", layer.activation)] + [
                (f"head {h.name}'s score", h.score.circuit) for h in layer.heads if isinstance(h.score, CircuitScore)]:
            if id(circuit) not in seen and _degree_past(circuit, MAX_SPEC_DEGREE):
                where = f"{file}: " if file else ""
                raise LimitReached(f"{where}layer {number + 1}: {what} has degree above {MAX_SPEC_DEGREE:,} (its exact "
                                   f"values would grow past any bound; the kernel checks degree ≤ 64)")
            seen.add(id(circuit))
    try:
        return Transformer(coordinates, layers, name)
    except ValueError as exc:
        raise reader.error(str(exc), ("layers",)) from None


MAX_SPEC_DEGREE = 4096  # of a score or activation circuit (sign counts 0): 40 squarings made run and certify hang


def _degree_past(circuit: Circuit, limit: int) -> bool:
    """Whether the circuit's degree (inputs 1, constants and signs 0; sums the largest, products the sum) passes."""
    degree: list[int] = []
    for gate in circuit.gates:
        if gate.kind is Kind.INPUT:
            degree.append(1)
        elif gate.kind in (Kind.CONST, Kind.SIGN):
            degree.append(0)
        else:
            parts = [degree[a] for a in gate.args]
            degree.append(sum(parts) if gate.kind is Kind.MUL else max(parts, default=0))
            if degree[-1] > limit:
                return True
    return False


def _coordinates(reader: _Reader) -> tuple[str, ...]:
    coords = reader.data.get("coordinates")
    if not isinstance(coords, list) or not coords:
        raise reader.error("\"coordinates\" must be a non-empty list of names", ("coordinates",))
    for k, c in enumerate(coords):
        if not isinstance(c, str) or not _IDENT.match(c):
            raise reader.error(f"bad coordinate name {c!r} (letters, digits, _)", ("coordinates", k))
        if c in coords[:k]:
            raise reader.error(f"coordinate {c!r} is listed twice", ("coordinates", k))
    return tuple(coords)


def _layer(reader: _Reader, coordinates: tuple[str, ...], entry: Any, index: int) -> Layer:
    path: tuple[str | int, ...] = ("layers", index)
    where = f"layer {index + 1}"
    if not isinstance(entry, dict):
        raise reader.error(f"{where}: expected an object", path)
    unknown = sorted(set(entry) - _LAYER_KEYS)
    if unknown:
        raise reader.error(f"{where}: unknown key {unknown[0]!r}", path + (unknown[0],))
    name = entry.get("name", "")
    if not isinstance(name, str):
        raise reader.error(f"{where}: \"name\" must be a string", path + ("name",))
    if problem := unprintable(name):
        raise reader.error(f"{where}: \"name\": {problem}", path + ("name",))
    heads_data = entry.get("heads", [])
    if not isinstance(heads_data, list):
        raise reader.error(f"{where}: \"heads\" must be a list", path + ("heads",))
    heads: list[Head] = []
    for k, head_data in enumerate(heads_data):
        head = _head(reader, coordinates, head_data, path + ("heads", k), where)
        if head.name in [h.name for h in heads]:
            raise reader.error(f"{where}: head name {head.name!r} is used twice", path + ("heads", k, "name"))
        heads.append(head)
    if "activation" not in entry:
        raise reader.error(f"{where}: missing \"activation\"", path)
    head_names = [h.name for h in heads]
    clash = smt_name_clash(coordinates, head_names)
    if clash is not None:
        raise reader.error(f"{where}: {clash}", path + ("heads",))
    act = reader.circuit(entry["activation"], path + ("activation",),
                         activation_input_names(coordinates, head_names), f"the activation of {where}",
                         f"layer{index + 1}_activation")
    d = len(coordinates)
    if act.n_inputs != (1 + len(heads)) * d or len(act.outputs) != d:
        ref = f" (function {entry['activation']!r})" if isinstance(entry["activation"], str) else ""
        raise reader.error(f"the activation of {where}{ref} must take {plural((1 + len(heads)) * d, 'input')} and "
                           f"give {plural(d, 'output')} (the new {', '.join(coordinates)}), it takes {act.n_inputs} and "
                           f"gives {len(act.outputs)}", path + ("activation",))
    misplaced = [(i, label) for i, label in enumerate(act.output_names or ()) if label in coordinates
                 and label != coordinates[i]]
    if misplaced:  # outputs go to coordinates by position: a label naming another coordinate is a slip
        i, label = misplaced[0]
        raise reader.error(f"the activation of {where}: output {i + 1} is labelled {label!r}, but output {i + 1} is "
                           f"coordinate {coordinates[i]!r} (outputs are the new {', '.join(coordinates)} in this "
                           "order, whatever their labels)", path + ("activation",))
    return Layer(tuple(heads), act, name)


def _head(reader: _Reader, coordinates: tuple[str, ...], data: Any, path: tuple[str | int, ...],
          where: str) -> Head:
    if not isinstance(data, dict):
        raise reader.error(f"{where}: a head must be an object", path)
    unknown = sorted(set(data) - _HEAD_KEYS)
    if unknown:
        raise reader.error(f"{where}: unknown key {unknown[0]!r} in a head", path + (unknown[0],))
    name = data.get("name")
    if not isinstance(name, str) or not _IDENT.match(name) or name == "x":
        raise reader.error(f"{where}: bad head name {name!r} (letters, digits, _; not 'x')", path + ("name",))
    where = f"{where}, head {name}"
    pooling = data.get("pooling")
    try:
        pool = Pooling(pooling)
    except ValueError:
        choices = "|".join(p.value for p in Pooling)
        raise reader.error(f"{where}: unknown pooling {pooling!r} (expected {choices})", path + ("pooling",)) from None
    if "score" not in data:
        raise reader.error(f"{where}: missing \"score\"", path)
    score_data = data["score"]
    if isinstance(score_data, dict):
        return Head(name, _bilinear(reader, coordinates, score_data, path + ("score",), where), pool)
    circuit = reader.circuit(score_data, path + ("score",), score_input_names(coordinates), f"the score of {where}",
                             f"layer{path[1] + 1}_{name}_score")  # type: ignore[operator]
    if circuit.n_inputs != 2 * len(coordinates) or len(circuit.outputs) != 1:
        ref = f" (function {score_data!r})" if isinstance(score_data, str) else ""
        raise reader.error(f"the score of {where}{ref} must take {plural(2 * len(coordinates), 'input')} and give 1 output, it "
                           f"takes {circuit.n_inputs} and gives {len(circuit.outputs)}", path + ("score",))
    return Head(name, CircuitScore(circuit), pool)


def _bilinear(reader: _Reader, coordinates: tuple[str, ...], data: dict[str, Any], path: tuple[str | int, ...],
              where: str) -> BilinearScore:
    if set(data) != {"bilinear"} or not isinstance(data["bilinear"], dict):
        raise reader.error(f"{where}: a score object must be {{\"bilinear\": {{\"i.a j.b\": \"q\", ...}}}}", path)
    d = len(coordinates)
    matrix = [[Fraction(0)] * d for _ in range(d)]
    seen: set[tuple[int, int]] = set()
    for key, value in data["bilinear"].items():
        entry_path = path + ("bilinear", key)
        parts = key.split()
        if (len(parts) != 2 or not parts[0].startswith("i.") or not parts[1].startswith("j.")
                or parts[0][2:] not in coordinates or parts[1][2:] not in coordinates):
            raise reader.error(f"{where}: bad bilinear entry {key!r} (expected \"i.<coord> j.<coord>\" with "
                               f"coordinates among {', '.join(coordinates)})", entry_path)
        r, c = coordinates.index(parts[0][2:]), coordinates.index(parts[1][2:])
        if (r, c) in seen:
            raise reader.error(f"{where}: bilinear entry {key!r} is given twice", entry_path)
        seen.add((r, c))
        matrix[r][c] = Fraction(parse_rational(value, f"{where}, bilinear entry {key!r}", reader.file,
                                               reader.loc.line(entry_path)))
    return BilinearScore(tuple(tuple(row) for row in matrix))


def load_transformer(path: str | os.PathLike[str]) -> Transformer:
    """Read a spec file (``-``: standard input); every problem is an :class:`InputError` at ``file:line``."""
    from ..files import shown
    data, locator = read_json_file(path, "transformer")
    return transformer_from_json(data, shown(os.fspath(path)), locator=locator)
