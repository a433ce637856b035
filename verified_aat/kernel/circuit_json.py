"""The kernel's reader of a JSON circuit file (docs/circuit-format.md), entered only for that format."""

from __future__ import annotations

import json

from . import _no_constant, _unique_keys  # as the certificate is read: a key twice or NaN is unreadable (not checked)
from .circuit_file import OPS, Gates, Ref, define
from .data import need
from .document_transformer import read_literal  # the text format's literals, as a document's circuits read them


def read(data: bytes) -> tuple[Gates, list[Ref], str]:
    """The gates in file order, the outputs and the domain of a JSON circuit document."""
    doc = json.loads(data, parse_constant=_no_constant, object_pairs_hook=_unique_keys)
    need(type(doc) is dict and doc.get("format") == "verified-aat/circuit" and repr(doc.get("version")) == "1", "$",
         "not a circuit document of format 'verified-aat/circuit', version 1 (an integer: not 1.0, not true)")
    inputs, listed, outputs = doc.get("inputs"), doc.get("gates"), doc.get("outputs")
    need(type(inputs) is list and all(type(n) is str for n in inputs) and len(set(inputs)) == len(inputs), "$.inputs",
         "not a list of distinct names")
    need(type(listed) is list and type(outputs) is list and all(type(o) is str for o in outputs), "$",
         "'gates' or 'outputs' is not a list of the format's entries")
    gates: Gates = {}
    by_input = {name: i for i, name in enumerate(inputs)}
    for k, gate in enumerate(listed):
        name, op, args, raw = gate.get("name"), gate.get("op"), gate.get("args", []), gate.get("value")
        value = (read_literal(str(raw)) if type(raw) in (str, int) else None) if op == "const" else by_input.get(name)
        need(type(name) is str and name != "" and op in ("input", *OPS) and type(args) is list
             and all(type(a) is str for a in args) and (op not in ("input", "const") or (not args and value is not None)),
             f"$.gates[{k}]", "a gate the kernel does not read (an input listed in 'inputs', a rational constant)")
        define(gates, f"$.gates[{k}]", name, op, list(args), value)
    need(len([g for g in gates.values() if g[0] == "input"]) == len(inputs), "$.inputs", "'inputs' and the input gates differ")
    need(doc.get("domain") in (None, "rationals", "boolean"), "$.domain", "a domain the kernel does not read")
    return gates, list(outputs), doc.get("domain") or "rationals"
