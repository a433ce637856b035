"""Export of compiled transformers to formats other frameworks run: ONNX (:mod:`.onnx_graph`)
and a numpy ``.npz`` of weights (:mod:`.npz`) with the reference forward pass of ``docs/export.md``.

Both are floating-point artefacts (float64): they compute exactly what the exact engine computes
wherever every intermediate value is a float64 number (small integers and dyadic rationals),
and are never used to prove anything.

Both write every layer's circuits out in full, also where layers share one function of the spec (a 2,000-gate
activation named by 200 layers is 400,000 ONNX nodes, 6 s and 1.25 GB), so :func:`export_units` bounds the work
from the spec before anything is built (``docs/cli.md``, "Limits").
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..circuits.ir import Circuit
    from ..transformer.model import Transformer

EXPORT_FORMATS = ("onnx", "numpy")


def format_by_name(path: str) -> str | None:
    """The export format a file name's extension names (.onnx or .npz), else None."""
    return {".onnx": "onnx", ".npz": "numpy"}.get(os.path.splitext(path)[1].lower())


def export_units(transformer: Transformer, fmt: str) -> int:
    """The work of exporting ``transformer``, counted per layer without building anything (a circuit several layers
    share is measured once): an upper bound on the ONNX nodes (``onnx``), or the gates and arguments of every layer's
    circuits (``numpy``: each gate is four array entries, each argument one)."""
    from ..transformer.model import BilinearScore

    measured: dict[int, int] = {}

    def size(circuit: Circuit) -> int:
        if id(circuit) not in measured:
            measured[id(circuit)] = _onnx_nodes(circuit) if fmt == "onnx" else \
                len(circuit.gates) + sum(len(gate.args) for gate in circuit.gates)
        return measured[id(circuit)]

    d, onnx = transformer.dimension, fmt == "onnx"
    total = 5 if onnx else 0  # the graph's shape nodes and its output
    for layer in transformer.layers:
        scores = [head.score.circuit for head in layer.heads if not isinstance(head.score, BilinearScore)]
        total += sum(map(size, [layer.activation, *scores]))
        if onnx:  # columns, rows, each head's score and pooling, the layer's output
            total += 3 * d + 1 + len(layer.heads) * (d + 12)
    return total


def _onnx_nodes(circuit: Circuit) -> int:
    """At most the nodes ``onnx_graph`` writes for ``circuit``: a sign or a sum is one, a product of k is k - 1."""
    from ..circuits.ir import Kind

    return sum(1 if gate.kind is Kind.SIGN or (gate.kind is Kind.ADD and len(gate.args) > 1) else
               max(len(gate.args) - 1, 0) if gate.kind is Kind.MUL else 0 for gate in circuit.gates)
