"""A compiled transformer as a numpy ``.npz`` of arrays (no pickled objects), read by the
reference forward pass in ``docs/export.md``.

Keys: ``coordinates`` (d names), ``layers`` (the number of layers) and, for layer ``l`` (from 0)
and its head ``h``: ``L{l}_heads`` (head names), ``L{l}_H{h}_pooling`` (``average``,
``leftmost``, ``rightmost`` or ``softmax``), then either ``L{l}_H{h}_Q`` (the d × d matrix of
a bilinear score x_iᵀ Q x_j) or the score circuit under the prefix ``L{l}_H{h}_score``; the
activation circuit is under ``L{l}_act``.  A circuit under prefix P is five arrays, gates in
topological order: ``P_kind`` (0 input, 1 const, 2 add, 3 mul, 4 sign), ``P_ref`` (an input's
index, else −1), ``P_value`` (a constant's value as float64, else 0), ``P_argptr`` and
``P_args`` (gate g's arguments are ``P_args[P_argptr[g]:P_argptr[g+1]]``) and ``P_outputs``.
A score circuit's inputs are the querying position's d coordinates then the attended one's;
an activation's are the position's then each head's pooled vector, in head order.
"""

from __future__ import annotations

import io
from typing import Any

import numpy as np

from ..circuits.ir import Circuit, Kind
from ..transformer.model import BilinearScore, Transformer

KIND_CODES = {Kind.INPUT: 0, Kind.CONST: 1, Kind.ADD: 2, Kind.MUL: 3, Kind.SIGN: 4}


def _circuit_arrays(circuit: Circuit, prefix: str) -> dict[str, np.ndarray]:
    argptr = [0]
    args: list[int] = []
    for gate in circuit.gates:
        args.extend(gate.args)
        argptr.append(len(args))
    return {
        f"{prefix}_kind": np.array([KIND_CODES[g.kind] for g in circuit.gates], dtype=np.int8),
        f"{prefix}_ref": np.array([g.index if g.kind is Kind.INPUT else -1 for g in circuit.gates], dtype=np.int64),
        f"{prefix}_value": np.array([float(g.value) if g.kind is Kind.CONST else 0.0 for g in circuit.gates],
                                    dtype=np.float64),
        f"{prefix}_argptr": np.array(argptr, dtype=np.int64),
        f"{prefix}_args": np.array(args, dtype=np.int64),
        f"{prefix}_outputs": np.array(circuit.outputs, dtype=np.int64),
    }


def transformer_arrays(transformer: Transformer) -> dict[str, np.ndarray]:
    """The arrays of the ``.npz`` (module docstring)."""
    out: dict[str, np.ndarray] = {"coordinates": np.array(transformer.coordinates, dtype=str),
                                  "layers": np.array(transformer.n_layers, dtype=np.int64)}
    for l, layer in enumerate(transformer.layers):
        out[f"L{l}_heads"] = np.array([h.name for h in layer.heads], dtype=str)
        for h, head in enumerate(layer.heads):
            out[f"L{l}_H{h}_pooling"] = np.array(head.pooling.value)
            if isinstance(head.score, BilinearScore):
                out[f"L{l}_H{h}_Q"] = np.array([[float(q) for q in row] for row in head.score.matrix],
                                               dtype=np.float64).reshape(transformer.dimension, transformer.dimension)
            else:
                out.update(_circuit_arrays(head.score.circuit, f"L{l}_H{h}_score"))
        out.update(_circuit_arrays(layer.activation, f"L{l}_act"))
    return out


def save_npz(transformer: Transformer, path: str) -> int:
    """Write the ``.npz`` (compressed) atomically; returns the number of arrays."""
    from ..files import write_atomically
    arrays: dict[str, Any] = transformer_arrays(transformer)
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    write_atomically(path, buffer.getvalue())
    return len(arrays)
