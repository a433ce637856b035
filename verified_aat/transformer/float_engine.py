"""The floating-point engine: the same transformer in float64 or float32 (numpy).

This engine exists to study precision, never to prove anything.  Hard
attention takes the argmax by *float equality*: A_i = {j : s_ij == max_j s_ij}
in the chosen dtype.  Exact ties that rounding breaks (or near-ties that it
creates) change the argmax set, which is exactly where precision matters.
A row whose scores contain NaN has an empty argmax set and a NaN pooled value.
Softmax pooling weighs x_j by softmax(s_ij / temperature) over j.

Circuits are evaluated on whole arrays: activations on columns of length N, score
circuits on blocks of rows of the N×N grid (i-inputs as a column, j-inputs as a row;
at most ``BLOCK_CELLS`` scores at a time, so memory stays linear in N).

Argmax sets come from the **key join** (:mod:`.key_join`), as in the exact engine, when
all of these hold for a hard-attention head (:class:`FloatRunner` with ``keys``):

* a key decomposition of the head's own score is *proved* (:class:`~.key_join.KeyDecompositions`);
* every coordinate the decomposition or the score reads holds exact integers in the float
  array (|v| < 2^53 and integral, so the float *is* that integer), and the decomposition's
  facts hold on them exactly;
* every operation of the score is exact in the dtype on these integers
  (:func:`~.precision.exact_score_bits` fits the mantissa).

Then every float score is the exact score of these rows, the float argmax set (ties by float
equality) is the exact argmax set, and the proved lemma says the join finds it: the join
gives exactly the sets all pairs would.  Otherwise the head is scored on all pairs, in
blocks.  The join's sets are kept while the columns it read are unchanged (structural
columns never change), and pooling over them is vectorised: sums per key group, then per
row key.  Softmax heads always weigh all pairs.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Sequence

import numpy as np

from ..errors import InputError
from .exact_state import read_inputs
from .key_join import KeyDecompositions, KeyHint, hint_columns, join_labels
from .model import BilinearScore, CircuitScore, Head, Pooling, Score, Transformer
from .precision import MANTISSA_BITS, exact_score_bits
from .float_join import _content_key, _exact_integers, _Joined, evaluate_array, join_keys  # noqa: F401 - re-exported
from ..wording import plural

DTYPES = {"float64": np.float64, "float32": np.float32}
JOIN, ALL_PAIRS = "join", "all-pairs"
BLOCK_CELLS = 1 << 21        # scores per block of rows on the all-pairs path (16 MB in float64)
NOTICE_POSITIONS = 10_000    # from this length on, all pairs is worth a notice


@dataclass(frozen=True)
class FloatRunStats:
    """How a float run found its argmax sets (per head and layer)."""

    positions: int
    layers: int
    argmax_join: int = 0        # computed by the key join
    argmax_reused: int = 0      # the join's sets kept: the columns it read did not change
    argmax_all_pairs: int = 0   # scored on all pairs (softmax heads included)
    score_cells: int = 0        # scores computed on the all-pairs path
    head_methods: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class FloatRunResult:
    """Outputs as an N×d array; ``layers`` holds the array after every layer when traced."""

    outputs: np.ndarray
    dtype: str
    layers: tuple[np.ndarray, ...] | None
    seconds: float
    stats: FloatRunStats | None = None


def score_matrix(score: Score, x: np.ndarray) -> np.ndarray:
    """s(x_i, x_j) for all pairs, as an N×N array in x's dtype."""
    return score_rows(score, x, 0, x.shape[0])


def score_rows(score: Score, x: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """s(x_i, x_j) for lo ≤ i < hi and every j, as a (hi − lo)×N array in x's dtype."""
    n, d = x.shape
    dtype = x.dtype.type
    if isinstance(score, BilinearScore):
        q = np.array([[dtype(v.numerator) / dtype(v.denominator) for v in row] for row in score.matrix], dtype=dtype)
        scores: np.ndarray = (x[lo:hi] @ q) @ x.T
        return scores
    cols_i = [x[lo:hi, c].reshape(hi - lo, 1) for c in range(d)]
    cols_j = [x[:, c].reshape(1, n) for c in range(d)]
    (s,) = evaluate_array(score.circuit, cols_i + cols_j, dtype)
    return np.broadcast_to(s, (hi - lo, n))


def pool(pooling: Pooling, s: np.ndarray, x: np.ndarray, temperature: float) -> np.ndarray:
    """The pooled vector of every position (one per row of ``s``, ×d) for one head."""
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


Rows = Sequence[Sequence[Any]] | np.ndarray


def to_array(sequence: Rows, d: int, dtype: type) -> np.ndarray:
    """A sequence of rational (or float) vectors as an N×d array, rounded once to ``dtype``
    (each value to the nearest float64 first, as ``float()`` does, then to ``dtype``)."""
    if isinstance(sequence, np.ndarray) and sequence.ndim == 2 and sequence.shape[1] == d:
        return sequence.astype(np.float64).astype(dtype)
    for position, vector in enumerate(sequence):
        if len(vector) != d:
            raise InputError(f"position {position}: expected a vector of {plural(d, 'value')}, got {len(vector)}")
    if not len(sequence):
        return np.zeros((0, d), dtype=dtype)
    try:
        return np.array(sequence, dtype=np.float64).reshape(len(sequence), d).astype(dtype)
    except OverflowError:
        raise InputError(BEYOND_FLOAT64) from None


BEYOND_FLOAT64 = ("a value is beyond the range of float64 (about ±1.8e308): run the exact engine (--engine exact) "
                  "instead")


def encoded_array(rows: Rows, input_slots: Sequence[tuple[int, int, int]],
                  values: Sequence[Any]) -> np.ndarray:
    """enc(C, x) as a float64 array (an encoding's ``rows`` with x_i at its input slots): the array
    :func:`to_array` makes of the instantiated sequence, without building that sequence."""
    try:
        out = np.array(rows, dtype=np.float64).reshape(len(rows), len(rows[0]) if len(rows) else 0)
        for position, coordinate, index in input_slots:
            out[position, coordinate] = float(values[index])
    except OverflowError:
        raise InputError(BEYOND_FLOAT64) from None
    return out


def run_float(transformer: Transformer, sequence: Sequence[Sequence[Any]], dtype: str = "float64",
              softmax_temperature: float = 1.0, trace: bool = False,
              keys: KeyDecompositions | None = None) -> FloatRunResult:
    """Run ``transformer`` in floating point; see the module docstring for the tie rule and the join."""
    return FloatRunner(transformer, keys).run(sequence, dtype, softmax_temperature, trace)


def pool_all_pairs(head: Head, x: np.ndarray, temperature: float) -> np.ndarray:
    """One head's pooled vectors from its scores on all pairs, ``BLOCK_CELLS`` scores at a time."""
    n = x.shape[0]
    step = max(1, BLOCK_CELLS // max(n, 1))
    out = np.empty_like(x)
    for lo in range(0, n, step):
        hi = min(lo + step, n)
        out[lo:hi] = pool(head.pooling, score_rows(head.score, x, lo, hi), x, temperature)
    return out


class FloatRunner:
    """Runs one transformer in floating point on any number of sequences.

    With ``keys``, hard-attention heads take the key join where the module docstring says it
    gives exactly the sets all pairs would; ``join=False`` scores all pairs everywhere.  Proofs
    and the join's sets are kept across runs (``run --inputs``).
    """

    def __init__(self, transformer: Transformer, keys: KeyDecompositions | None = None, join: bool = True,
                 notice: Callable[[str], None] | None = None):
        self.transformer = transformer
        self.keys = keys if join else None
        self.notice = notice          # told once per head why a long sequence is scored on all pairs
        self._noticed: set[str] = set()
        self._joined: dict[Any, _Joined] = {}
        self._reads: dict[int, tuple[Score, tuple[int, ...]]] = {}

    def _score_reads(self, score: Score) -> tuple[int, ...]:
        cached = self._reads.get(id(score))
        if cached is None or cached[0] is not score:
            d = self.transformer.dimension
            if isinstance(score, CircuitScore):
                cols = {k % d for k in read_inputs(score.circuit)}
            else:
                cols = {r for r, _, _ in score.entries()} | {c for _, c, _ in score.entries()}
            cached = self._reads[id(score)] = (score, tuple(sorted(cols)))
        return cached[1]

    def _join(self, head: Head, hint: KeyHint, x: np.ndarray, dtype: str, counts: dict[str, int]) -> _Joined | str:
        """The join's sets for ``head`` on ``x``, or why the join would not give the float sets."""
        coords = self.transformer.coordinates
        n, d = x.shape
        cols = tuple(sorted(hint_columns(hint, coords) | set(self._score_reads(head.score))))
        snapshot = x[:, cols]
        key = (dtype, _content_key(head.score, hint))  # whether the scores are exact depends on the dtype
        cached = self._joined.get(key)
        if cached is not None and cached.cols == cols and np.array_equal(cached.snapshot, snapshot):
            counts["argmax_reused"] += 1
            return cached
        ints = _exact_integers(snapshot)
        if ints is None:
            return "the columns its keys and score read are not exact integers"
        column = {c: ints[:, k] for k, c in enumerate(cols)}
        for name, value in hint.facts:
            if Fraction(value).denominator != 1 or not np.all(column[coords.index(name)] == int(value)):
                return f"the decomposition's fact {name} = {value} does not hold"
        largest = [0] * d
        for c in cols:
            largest[c] = int(np.abs(column[c]).max())
        bits = exact_score_bits(head.score, largest, d)
        if bits is None or bits > MANTISSA_BITS[dtype]:
            return (f"its scores reach {bits} bits, more than {dtype}'s {MANTISSA_BITS[dtype]}, so rounding may change "
                    "the argmax sets" if bits is not None else "its score has a constant that is not a binary fraction")
        floats = np.zeros((n, d))
        floats[:, cols] = ints
        arrays = join_keys(hint, floats, largest, d)
        if arrays is None:
            return "its keys are outside the join's exact range"
        joined = self._joined[key] = _Joined(cols, snapshot, join_labels(*arrays))
        counts["argmax_join"] += 1
        return joined

    def _pooled(self, head: Head, x: np.ndarray, dtype: str, temperature: float, counts: dict[str, int],
                methods: dict[tuple[str, str], None]) -> np.ndarray:
        why = "the join is off (--no-join)" if self.keys is None else "softmax weighs every pair"
        if head.pooling is not Pooling.SOFTMAX and self.keys is not None:
            hint = self.keys.proved(head, self.transformer.coordinates)
            joined = self._join(head, hint, x, dtype, counts) if hint is not None else "no decomposition is proved"
            if isinstance(joined, _Joined):
                methods[(head.name, JOIN)] = None
                return joined.pool(head.pooling, x)
            why = joined
        n = x.shape[0]
        if self.notice is not None and n >= NOTICE_POSITIONS and head.name not in self._noticed:
            self._noticed.add(head.name)
            self.notice(f"head {head.name!r} scores all {n:,}² pairs in {dtype} ({why}); this may take long")
        methods[(head.name, ALL_PAIRS)] = None
        counts["argmax_all_pairs"] += 1
        counts["score_cells"] += x.shape[0] ** 2
        return pool_all_pairs(head, x, temperature)

    def run(self, sequence: Rows, dtype: str = "float64", softmax_temperature: float = 1.0,
            trace: bool = False) -> FloatRunResult:
        """Run on ``sequence`` in ``dtype``; see the module docstring for the tie rule and the join."""
        if dtype not in DTYPES:
            raise InputError(f"unknown dtype {dtype!r} (expected float64 or float32)")
        if not softmax_temperature > 0:
            raise InputError(f"softmax temperature must be positive, got {softmax_temperature}")
        start = time.perf_counter()
        kind = DTYPES[dtype]
        x = np.asfortranarray(to_array(sequence, self.transformer.dimension, kind))
        n, d = x.shape
        counts = dict.fromkeys(("argmax_join", "argmax_reused", "argmax_all_pairs", "score_cells"), 0)
        methods: dict[tuple[str, str], None] = {}
        layers: list[np.ndarray] = []
        for layer in self.transformer.layers if n else ():
            inputs = [x[:, c] for c in range(d)]
            for head in layer.heads:
                pooled = self._pooled(head, x, dtype, softmax_temperature, counts, methods)
                inputs.extend(pooled[:, c] for c in range(d))
            outs = evaluate_array(layer.activation, inputs, kind)
            x = np.empty((n, d), dtype=kind, order="F")   # columns contiguous: the circuits read columns
            for c, o in enumerate(outs):
                x[:, c] = o
            if trace:
                layers.append(x.copy())
        stats = FloatRunStats(n, self.transformer.n_layers, head_methods=tuple(methods), **counts)
        return FloatRunResult(x, dtype, tuple(layers) if trace else None, time.perf_counter() - start, stats)


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
