"""The floating-point engine: the same transformer in float64 or float32 (numpy).

This engine exists to study precision, never to prove anything.  Hard
attention takes the argmax by *float equality*: A_i = {j : s_ij == max_j s_ij}
in the chosen dtype.  Exact ties that rounding breaks (or near-ties that it
creates) change the argmax set, which is exactly where precision matters.
A row whose scores contain NaN has an empty argmax set and a NaN pooled value.
Softmax pooling weighs x_j by softmax(s_ij / temperature) over j.

Circuits are evaluated on whole arrays: score circuits on an N×N grid
(i-inputs as a column, j-inputs as a row), activations on columns of length N.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from ..circuits.ir import Circuit, Kind
from ..errors import InputError
from .model import BilinearScore, Pooling, Score, Transformer

DTYPES = {"float64": np.float64, "float32": np.float32}


@dataclass(frozen=True)
class FloatRunResult:
    """Outputs as an N×d array; ``layers`` holds the array after every layer when traced."""

    outputs: np.ndarray
    dtype: str
    layers: tuple[np.ndarray, ...] | None
    seconds: float


def evaluate_array(circuit: Circuit, inputs: Sequence[Any], dtype: type = np.float64) -> list[np.ndarray]:
    """Evaluate ``circuit`` elementwise on broadcastable arrays, freeing values after their last use."""
    if len(inputs) != circuit.n_inputs:
        raise ValueError(f"circuit {circuit.name} takes {circuit.n_inputs} inputs, got {len(inputs)}")
    last_use = list(range(len(circuit.gates)))
    for index, gate in enumerate(circuit.gates):
        for a in gate.args:
            last_use[a] = index
    keep = set(circuit.outputs)
    values: list[Any] = [None] * len(circuit.gates)
    zero = dtype(0)
    with np.errstate(all="ignore"):
        for index, gate in enumerate(circuit.gates):
            kind = gate.kind
            if kind is Kind.INPUT:
                value = inputs[gate.index]  # type: ignore[index]
            elif kind is Kind.CONST:
                q = Fraction(gate.value)  # type: ignore[arg-type]
                value = dtype(q.numerator) / dtype(q.denominator)
            elif kind is Kind.ADD:
                value = zero
                for a in gate.args:
                    value = value + values[a]
            elif kind is Kind.MUL:
                value = values[gate.args[0]]
                for a in gate.args[1:]:
                    value = value * values[a]
            else:
                value = np.sign(values[gate.args[0]])
            values[index] = value
            for a in set(gate.args):
                if last_use[a] == index and a not in keep:
                    values[a] = None
    return [np.asarray(values[o], dtype=dtype) for o in circuit.outputs]


def score_matrix(score: Score, x: np.ndarray) -> np.ndarray:
    """s(x_i, x_j) for all pairs, as an N×N array in x's dtype."""
    n, d = x.shape
    dtype = x.dtype.type
    if isinstance(score, BilinearScore):
        q = np.array([[dtype(v.numerator) / dtype(v.denominator) for v in row] for row in score.matrix], dtype=dtype)
        return (x @ q) @ x.T
    cols_i = [x[:, c].reshape(n, 1) for c in range(d)]
    cols_j = [x[:, c].reshape(1, n) for c in range(d)]
    (s,) = evaluate_array(score.circuit, cols_i + cols_j, dtype)
    return np.broadcast_to(s, (n, n))


def pool(pooling: Pooling, s: np.ndarray, x: np.ndarray, temperature: float) -> np.ndarray:
    """The pooled vector of every position (N×d) for one head."""
    n = x.shape[0]
    with np.errstate(all="ignore"):
        top = s.max(axis=1, keepdims=True)
        if pooling is Pooling.SOFTMAX:
            weights = np.exp((s - top) / x.dtype.type(temperature))
            weights /= weights.sum(axis=1, keepdims=True)
            return _weighted_sum(weights, x)
        mask = s == top
        if pooling is Pooling.AVERAGE:
            counts = mask.sum(axis=1, keepdims=True).astype(x.dtype)
            return _weighted_sum(mask.astype(x.dtype), x) / counts
        if pooling is Pooling.LEFTMOST:
            chosen = mask.argmax(axis=1)
        else:
            chosen = n - 1 - mask[:, ::-1].argmax(axis=1)
        pooled = x[chosen].copy()
        pooled[~mask.any(axis=1)] = np.nan
        return pooled


def _weighted_sum(weights: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Σ_j w_ij x_j; a zero weight never lets an infinite or NaN x_j leak in (0·inf)."""
    if np.isfinite(x).all():
        return (weights @ x).astype(x.dtype)
    terms = np.where(weights[:, :, None] != 0, weights[:, :, None] * x[None, :, :], 0)
    return terms.sum(axis=1).astype(x.dtype)


def to_array(sequence: Sequence[Sequence[Any]], d: int, dtype: type) -> np.ndarray:
    """A sequence of rational (or float) vectors as an N×d array, rounded once to ``dtype``."""
    rows = []
    for position, vector in enumerate(sequence):
        if len(vector) != d:
            raise InputError(f"position {position}: expected a vector of {d} values, got {len(vector)}")
        rows.append([float(Fraction(v)) if isinstance(v, (int, Fraction)) else float(v) for v in vector])
    return np.array(rows, dtype=dtype).reshape(len(rows), d)


def run_float(transformer: Transformer, sequence: Sequence[Sequence[Any]], dtype: str = "float64",
              softmax_temperature: float = 1.0, trace: bool = False) -> FloatRunResult:
    """Run ``transformer`` in floating point; see the module docstring for the tie rule."""
    if dtype not in DTYPES:
        raise InputError(f"unknown dtype {dtype!r} (expected float64 or float32)")
    if not softmax_temperature > 0:
        raise InputError(f"softmax temperature must be positive, got {softmax_temperature}")
    start = time.perf_counter()
    kind = DTYPES[dtype]
    x = to_array(sequence, transformer.dimension, kind)
    n, d = x.shape
    layers: list[np.ndarray] = []
    for layer in transformer.layers if n else ():
        inputs = [x[:, c] for c in range(d)]
        for head in layer.heads:
            pooled = pool(head.pooling, score_matrix(head.score, x), x, softmax_temperature)
            inputs.extend(pooled[:, c] for c in range(d))
        outs = evaluate_array(layer.activation, inputs, kind)
        x = np.stack([np.broadcast_to(o, (n,)) for o in outs], axis=1).astype(kind)
        if trace:
            layers.append(x.copy())
    return FloatRunResult(x, dtype, tuple(layers) if trace else None, time.perf_counter() - start)


@dataclass(frozen=True)
class ErrorReport:
    """Max absolute and relative error per coordinate of float against exact outputs."""

    coordinates: tuple[str, ...]
    max_abs: tuple[float, ...]
    max_rel: tuple[float, ...]

    @property
    def worst_abs(self) -> float:
        return max(self.max_abs, default=0.0)

    @property
    def worst_rel(self) -> float:
        return max(self.max_rel, default=0.0)

    def format(self) -> str:
        """A small text table, one row per coordinate."""
        width = max([len(c) for c in self.coordinates] + [10])
        lines = [f"{'coordinate':<{width}}  {'max abs err':>12}  {'max rel err':>12}"]
        for name, a, r in zip(self.coordinates, self.max_abs, self.max_rel):
            lines.append(f"{name:<{width}}  {a:>12.3e}  {r:>12.3e}")
        lines.append(f"{'all':<{width}}  {self.worst_abs:>12.3e}  {self.worst_rel:>12.3e}")
        return "\n".join(lines)


def compare_to_exact(exact_outputs: Sequence[Sequence[Any]], float_outputs: Any,
                     coordinates: Sequence[str] | None = None) -> ErrorReport:
    """Per-coordinate max |float − exact| and max |float − exact| / max(|exact|, tiny)."""
    floats = np.asarray(float_outputs, dtype=np.float64)
    exact = [[Fraction(v) for v in row] for row in exact_outputs]
    n = len(exact)
    d = floats.shape[1] if floats.ndim == 2 else (len(exact[0]) if exact else 0)
    if floats.shape != (n, d) or any(len(row) != d for row in exact):
        raise ValueError(f"shapes differ: exact {n}×{d}, float {floats.shape}")
    names = tuple(coordinates) if coordinates is not None else tuple(f"x{c}" for c in range(d))
    max_abs, max_rel = [], []
    for c in range(d):
        worst_abs = worst_rel = 0.0
        for p in range(n):
            f = floats[p, c]
            if not np.isfinite(f):
                worst_abs = worst_rel = float("inf")
                continue
            err = abs(Fraction(float(f)) - exact[p][c])
            worst_abs = max(worst_abs, float(err))
            scale = max(abs(exact[p][c]), Fraction(1, 10**300))
            worst_rel = max(worst_rel, float(err / scale))
        max_abs.append(worst_abs)
        max_rel.append(worst_rel)
    return ErrorReport(names, tuple(max_abs), tuple(max_rel))
