"""The engine's side of the kernel's data formats (docs/certificates.md, "Kernel forms").

Circuits become their canonical structure (gate ops, argument indices,
constants, input indices, outputs; no names); a transformer becomes its
coordinates, a table of distinct circuits and layers that refer to it; the
encoding is hashed line by line.  The kernel (``verified_aat/kernel``) has its
own readers of the same formats and shares no code with this module.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ..circuits.ir import Circuit
from ..circuits.json_format import circuit_structure
from ..circuits.rationals import format_rational
from ..constructions.encoding import Encoding
from ..transformer.model import BilinearScore, Layer, Transformer


def structure_key(circuit: Circuit) -> str:
    """Equal keys ⇔ equal structure (names ignored)."""
    return json.dumps(circuit_structure(circuit), separators=(",", ":"))


def layer_key(layer: Layer) -> tuple[Any, ...]:
    """What makes two layers the same layer function for the kernel: heads and activation, not names."""
    heads = tuple((h.name, h.pooling.value,
                   h.score.matrix if isinstance(h.score, BilinearScore) else structure_key(h.score.circuit))
                  for h in layer.heads)
    return heads, structure_key(layer.activation)


def transformer_form(transformer: Transformer) -> dict[str, Any]:
    """Coordinates, distinct circuits (``functions``) and layers that refer to them by index."""
    functions: list[dict[str, Any]] = []
    index: dict[str, int] = {}

    def function(circuit: Circuit) -> int:
        key = structure_key(circuit)
        if key not in index:
            index[key] = len(functions)
            functions.append(circuit_structure(circuit))
        return index[key]

    layers = []
    for layer in transformer.layers:
        heads = []
        for head in layer.heads:
            if isinstance(head.score, BilinearScore):
                score: Any = {"bilinear": [[r, c, format_rational(q)] for r, c, q in head.score.entries()]}
            else:
                score = function(head.score.circuit)
            heads.append({"name": head.name, "pooling": head.pooling.value, "score": score})
        layers.append({"heads": heads, "activation": function(layer.activation)})
    return {"coordinates": list(transformer.coordinates), "functions": functions, "layers": layers}


def encoding_digest(encoding: Encoding) -> str:
    """sha256 of the encoding's canonical lines (the kernel computes the same from its own build)."""
    h = hashlib.sha256()
    h.update(("coordinates " + " ".join(encoding.coordinates) + "\n").encode())
    roles, rows, width = encoding.roles, encoding.rows, len(encoding.coordinates)
    if set(map(len, rows)) <= {width}:  # one format string per block of lines (as below, 2× faster)
        line = "role|%s %s %s %s|" + " ".join(["%s"] * width) + "\n"
        for start in range(0, len(rows), 4096):
            fields: list = []
            for role, row in zip(roles[start:start + 4096], rows[start:start + 4096]):
                fields += (role.kind, role.gate, "-" if role.source is None else role.source,
                           "-" if role.slot is None else role.slot, *row)
            h.update((line * (len(fields) // (4 + width)) % tuple(fields)).encode())
        lines = []
    else:
        lines = [f"role|{role.kind} {role.gate} {'-' if role.source is None else role.source} "
                 f"{'-' if role.slot is None else role.slot}|{' '.join(map(str, row))}\n" for role, row in zip(roles, rows)]
    lines += [f"slot|{p} {c} {i}\n" for p, c, i in encoding.input_slots]
    lines += [f"read|{p} {c}\n" for p, c in encoding.readout]
    h.update("".join(lines).encode())
    return h.hexdigest()


def sha256_json(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()
