"""The JSON form of a circuit, and the canonical bytes that certificates hash.

Document (``format`` ``"verified-aat/circuit"``, ``version`` 1)::

    {"format": "verified-aat/circuit", "version": 1, "name": "ip", "domain": "rationals",
     "arithmetization": null,
     "inputs": ["x0", "x1"],                       # input names in index order
     "gates": [{"name": "x0", "op": "input", "args": []},
               {"name": "g2", "op": "const", "args": [], "value": "-3/4", "anonymous": true},
               {"name": "p", "op": "mul", "args": ["x0", "x0"]}, ...],
     "outputs": ["p"], "output_names": ["p"] | null,
     "provenance": null | {"source_format": ..., "source_path": ..., "netlist_gates": ...,
                           "netlist_depth": ..., "netlist_max_fan_in": ..., "netlist_gate_types": [...]}}

Names are any non-empty strings, unique; args and outputs refer to them.
``"anonymous": true`` marks a gate that had no name, so
``circuit_from_json(circuit_to_json(c)) == c`` (duplicate gate names are the
one exception: later copies get fresh names).  Gates may come in any order;
they are ordered like the text format's.

:func:`canonical_circuit_bytes` is the *structure* only — ops, arguments as
gate indices, const values, input indices, outputs (indices), domain — as
deterministic JSON (sorted keys, no spaces, ASCII).  Names, the circuit's
name and provenance (paths, arithmetization mode) are left out, so renaming
a gate or moving a file does not change a certificate's hash.
"""

from __future__ import annotations

import json
import re
from fractions import Fraction
from typing import Any

from ..errors import InputError
from ..json_lines import Locator
from ..limits import (LONE_SURROGATE, DuplicateKey, duplicate_key_line, json_depth_exceeds, json_depth_message,
                      json_line_of, lone_surrogate, no_duplicate_keys)
from .assemble import Definition, OutputRef, assemble, gate_labels
from .ir import Circuit, Domain, Gate, Kind, Provenance
from .ir import (CANONICAL_FORMAT, STRUCTURE_VERSION, canonical_circuit_bytes, circuit_sha256,  # noqa: F401
                 circuit_structure)
from .rationals import NumeralError, format_rational, json_loads, parse_rational
from ..wording import plural, unprintable

FORMAT = "verified-aat/circuit"
VERSION = STRUCTURE_VERSION
_PROV_INTS = ("netlist_gates", "netlist_depth", "netlist_max_fan_in")
_PATH = re.compile(r"([A-Za-z_]+)((?:\[[0-9]+\]|\.[A-Za-z_]+)*)(?=: )")  # a message's leading JSON path
_STEP = re.compile(r"([A-Za-z_]+)|\[([0-9]+)\]")


def circuit_to_json(circuit: Circuit) -> dict[str, Any]:
    """The JSON document (a dict) for ``circuit``."""
    labels = gate_labels(circuit, lambda name: bool(name))
    gates: list[dict[str, Any]] = []
    for index, gate in enumerate(circuit.gates):
        entry: dict[str, Any] = {"name": labels[index], "op": gate.kind.value,
                                 "args": [labels[a] for a in gate.args]}
        if gate.kind is Kind.CONST:
            entry["value"] = format_rational(gate.value)  # type: ignore[arg-type]
        if gate.name is None:
            entry["anonymous"] = True
        gates.append(entry)
    prov = circuit.provenance
    return {
        "format": FORMAT,
        "version": VERSION,
        "name": circuit.name,
        "domain": circuit.domain.value,
        "arithmetization": prov.arithmetization if prov else None,
        "inputs": [labels[g] for g in circuit.input_gates],
        "gates": gates,
        "outputs": [labels[o] for o in circuit.outputs],
        "output_names": list(circuit.output_names) if circuit.output_names is not None else None,
        "provenance": None if prov is None else {
            "source_format": prov.source_format,
            "source_path": prov.source_path,
            "netlist_gates": prov.netlist_gates,
            "netlist_depth": prov.netlist_depth,
            "netlist_max_fan_in": prov.netlist_max_fan_in,
            "netlist_gate_types": list(prov.netlist_gate_types),
        },
    }


class _Doc:
    """Typed access to a decoded JSON document, failing with :class:`InputError` at the line of the value that
    the message's leading path names (``gates[3].value: …``: the line where ``gates[3].value`` starts)."""

    def __init__(self, file: str | None, locator: Locator | None = None):
        self.file, self.locator = file, locator

    def fail(self, message: str) -> InputError:
        where = _PATH.match(message)
        line = None if self.locator is None or where is None else self.locator.line(
            () if where.group(1) == "circuit" else tuple(int(i) if i else k for k, i in _STEP.findall(where.group(0))))
        return InputError(message, self.file, line)

    def get(self, obj: dict[str, Any], key: str, types: type | tuple[type, ...], where: str,
            required: bool = True, nullable: bool = False) -> Any:
        if key not in obj:
            if required:
                raise self.fail(f"{where}: missing key '{key}'")
            return None
        value = obj[key]
        if value is None and nullable:
            return None
        if not isinstance(value, types) or isinstance(value, bool) and bool not in _tuple(types):
            raise self.fail(f"{where}.{key}: expected {_type_name(types)}, got {type(value).__name__}")
        if isinstance(value, str) and (problem := unprintable(value)):
            raise self.fail(f"{where}.{key}: {problem}")
        return value

    def strings(self, value: list[Any], where: str) -> list[str]:
        for i, item in enumerate(value):
            if not isinstance(item, str) or not item:
                raise self.fail(f"{where}[{i}]: expected a non-empty string")
            if problem := unprintable(item):
                raise self.fail(f"{where}[{i}]: {problem}")
        return value


def _tuple(types: type | tuple[type, ...]) -> tuple[type, ...]:
    return types if isinstance(types, tuple) else (types,)


def _type_name(types: type | tuple[type, ...]) -> str:
    names = {dict: "an object", list: "a list", str: "a string", int: "an integer", bool: "true/false"}
    return " or ".join(names.get(t, t.__name__) for t in _tuple(types))


# long because it is one field check after another, each with its own message.
def circuit_from_json(data: Any, file: str | None = None, locator: Locator | None = None) -> Circuit:
    """The circuit described by a decoded JSON document; :class:`InputError` if malformed (at the line of the
    offending value when ``locator`` has the document's text)."""
    doc = _Doc(file, locator)
    if not isinstance(data, dict):
        raise doc.fail(f"expected a JSON object with \"format\": \"{FORMAT}\"")
    if data.get("format") != FORMAT:
        raise doc.fail(f"not a circuit document: format is {data.get('format')!r}, expected '{FORMAT}'")
    if type(data.get("version")) is not int or data["version"] != VERSION:  # not true, not 1.0
        raise doc.fail(f"unsupported version {data.get('version')!r} (this tool reads version {VERSION})")
    name = doc.get(data, "name", str, "circuit", required=False) or "circuit"
    domain_text = doc.get(data, "domain", str, "circuit", required=False)
    domain_text = "rationals" if domain_text is None else domain_text  # "" names no domain: refused below
    try:
        domain = Domain(domain_text)
    except ValueError:
        raise doc.fail(f"circuit.domain: must be 'rationals' or 'boolean', got {domain_text!r}") from None
    arith = doc.get(data, "arithmetization", str, "circuit", required=False, nullable=True)
    if arith not in (None, "exact", "threshold"):
        raise doc.fail(f"circuit.arithmetization: must be 'exact', 'threshold' or null, got {arith!r}")
    inputs = doc.strings(doc.get(data, "inputs", list, "circuit"), "inputs")
    input_index: dict[str, int] = {}
    for i, input_name in enumerate(inputs):
        if input_name in input_index:
            raise doc.fail(f"inputs[{i}]: input '{input_name}' is listed twice")
        input_index[input_name] = i
    definitions: list[Definition] = []
    anonymous: set[str] = set()
    seen: set[str] = set()
    for i, entry in enumerate(doc.get(data, "gates", list, "circuit")):
        where = f"gates[{i}]"
        if not isinstance(entry, dict):
            raise doc.fail(f"{where}: expected an object")
        gate_name = doc.get(entry, "name", str, where)
        if not gate_name:
            raise doc.fail(f"{where}.name: must not be empty")
        if gate_name in seen:
            raise doc.fail(f"{where}: gate '{gate_name}' is defined twice")
        seen.add(gate_name)
        op = doc.get(entry, "op", str, where)
        try:
            kind = Kind(op)
        except ValueError:
            raise doc.fail(f"{where}: unknown op {op!r} (expected input, const, add, mul or sign)") from None
        args = doc.strings(doc.get(entry, "args", list, where, required=False) or [], f"{where}.args")
        if doc.get(entry, "anonymous", bool, where, required=False):
            anonymous.add(gate_name)
        definitions.append(_definition(doc, where, gate_name, kind, args, entry, input_index))
    input_gates = {d.name for d in definitions if d.kind is Kind.INPUT}
    missing = [n for n in inputs if n not in input_gates]
    if missing:
        raise doc.fail(f"inputs: '{missing[0]}' has no gate with op 'input'")
    outputs = doc.strings(doc.get(data, "outputs", list, "circuit"), "outputs")
    labels = doc.get(data, "output_names", list, "circuit", required=False, nullable=True)
    if labels is not None:
        labels = doc.strings(labels, "output_names")
        if len(labels) != len(outputs):
            raise doc.fail(f"output_names: {plural(len(labels), 'name')} for {plural(len(outputs), 'output')}")
    refs = [OutputRef(o, labels[i] if labels else o) for i, o in enumerate(outputs)]
    circuit = assemble(definitions, refs, name=name, domain=domain,
                       provenance=_provenance(doc, data, arith), file=file,
                       describe=lambda d: f"gate '{d.name}'")
    if anonymous:
        gates = tuple(Gate(g.kind, g.args, g.value, g.index, None) if g.name in anonymous else g
                      for g in circuit.gates)
        circuit = Circuit(gates, circuit.outputs, circuit.name, circuit.domain,
                          circuit.output_names, circuit.provenance)
    if labels is None:
        circuit = Circuit(circuit.gates, circuit.outputs, circuit.name, circuit.domain, None,
                          circuit.provenance)
    return circuit


def _definition(doc: _Doc, where: str, name: str, kind: Kind, args: list[str],
                entry: dict[str, Any], input_index: dict[str, int]) -> Definition:
    if kind in (Kind.INPUT, Kind.CONST) and args:
        raise doc.fail(f"{where}: {kind.value} '{name}' takes no arguments, got {len(args)}")
    if kind is Kind.SIGN and len(args) != 1:
        raise doc.fail(f"{where}: sign '{name}' takes exactly 1 argument, got {len(args)}")
    if kind is Kind.MUL and len(args) < 2:
        raise doc.fail(f"{where}: mul '{name}' takes at least 2 arguments, got {len(args)}")
    if kind is Kind.INPUT:
        if name not in input_index:
            raise doc.fail(f"{where}: input gate '{name}' is not listed in 'inputs'")
        return Definition(name, kind, input_index=input_index[name])
    if kind is Kind.CONST:
        text = doc.get(entry, "value", (str, int), where)
        try:  # an int: read by json_int, within the digit limit
            value = Fraction(text) if type(text) is int else parse_rational(str(text))
        except InputError as exc:
            raise doc.fail(f"{where}.value: {exc.message}") from None
        return Definition(name, kind, value=value)
    if "value" in entry and entry["value"] is not None:
        raise doc.fail(f"{where}: only const gates carry a value")
    return Definition(name, kind, list(args))


def _provenance(doc: _Doc, data: dict[str, Any], arith: str | None) -> Provenance | None:
    prov = doc.get(data, "provenance", dict, "circuit", required=False, nullable=True)
    if prov is None:
        return None if arith is None else Provenance(arithmetization=arith)
    ints = {}
    for key in _PROV_INTS:
        ints[key] = doc.get(prov, key, int, "provenance", required=False, nullable=True)
        if ints[key] is not None and ints[key] < 0:
            raise doc.fail(f"provenance.{key}: must be >= 0")
    types = doc.get(prov, "netlist_gate_types", list, "provenance", required=False, nullable=True) or []
    return Provenance(
        source_format=doc.get(prov, "source_format", str, "provenance", required=False, nullable=True),
        source_path=doc.get(prov, "source_path", str, "provenance", required=False, nullable=True),
        arithmetization=arith,
        netlist_gate_types=tuple(doc.strings(types, "provenance.netlist_gate_types")),
        **ints,
    )


def parse_circuit_json(text: str, file: str | None = None) -> Circuit:
    """Decode JSON text (errors at the decoder's line) and read the circuit."""
    if json_depth_exceeds(text):
        raise InputError(f"invalid JSON: {json_depth_message()}", file)
    try:
        data = json_loads(text, object_pairs_hook=no_duplicate_keys)
    except NumeralError as exc:  # a JSON integer past the digit limit
        raise InputError(f"invalid JSON: {exc}", file, json_line_of(text, "long-number")) from None
    except DuplicateKey as exc:
        raise InputError(f"invalid JSON: duplicate key {exc.args[0]!r}", file, duplicate_key_line(text)) from None
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON: {exc.msg} (column {exc.colno})", file, exc.lineno) from None
    except RecursionError:
        raise InputError(f"invalid JSON: {json_depth_message()}", file) from None
    except ValueError as exc:
        raise InputError(f"invalid JSON: {str(exc).splitlines()[0][:200]}", file) from None
    if lone_surrogate(text, data):
        raise InputError(LONE_SURROGATE, file, json_line_of(text, "surrogate"))
    return circuit_from_json(data, file, Locator(text))


def dumps_circuit(circuit: Circuit) -> str:
    """JSON text for a file: one top-level key per line, one gate per line."""
    parts = []
    for key, value in circuit_to_json(circuit).items():
        if key == "gates" and value:
            text = "[\n  " + ",\n  ".join(json.dumps(g, ensure_ascii=False) for g in value) + "\n ]"
        else:
            text = json.dumps(value, ensure_ascii=False)
        parts.append(f" {json.dumps(key)}: {text}")
    return "{\n" + ",\n".join(parts) + "\n}\n"
