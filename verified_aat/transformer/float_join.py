"""The float engine's key join: keys computed in float64 only where provably exact, and the pooled
vectors of a join's sets with numpy (:mod:`.float_engine` decides when a head may use it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from ..circuits.ir import Circuit, Kind
from .key_join import KEY_LIMIT, PENALTY_LIMIT, JoinLabels, KeyHint
from .model import CircuitScore, Pooling, Score
from .precision import MANTISSA_BITS, exact_score_bits
from ..wording import plural

EXACT_INTEGER = 2.0 ** 53    # a float64 of smaller magnitude that is integral is exactly that integer


def evaluate_array(circuit: Circuit, inputs: Sequence[Any], dtype: type = np.float64) -> list[np.ndarray]:
    """Evaluate ``circuit`` elementwise on broadcastable arrays, freeing values after their last use."""
    if len(inputs) != circuit.n_inputs:
        raise ValueError(f"circuit {circuit.name} takes {plural(circuit.n_inputs, 'input')}, got {len(inputs)}")
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


def join_keys(hint: KeyHint, columns: np.ndarray, largest: Sequence[int], d: int) -> tuple[Any, Any, Any] | None:
    """rk, ck, pen of every row as int64 arrays with the same argmin, from ``columns`` (N×d float64
    whose read coordinates hold exact integers of magnitude ≤ ``largest``); None where that is not exact.

    Each key circuit is evaluated in float64 only when :func:`~.precision.exact_score_bits` shows
    that none of its operations rounds, so its values are exact multiples of 2^-e.  Then
    2^k·rk, 2^k·ck and 4^k·pen are integers for k large enough, and their costs are 4^k times the
    exact ones: the same argmin.  They must stay within the join's int64 limits.
    """
    values: list[np.ndarray] = []
    for circuit in (hint.row_key, hint.col_key, hint.col_penalty):
        bits = exact_score_bits(CircuitScore(circuit), largest, d)
        if bits is None or bits > MANTISSA_BITS["float64"]:
            return None
        (v,) = evaluate_array(circuit, [columns[:, c] for c in range(d)], np.float64)
        values.append(np.broadcast_to(v, (columns.shape[0],)))
    k = 0
    while not all(np.all(v * 2.0 ** (k * m) == np.floor(v * 2.0 ** (k * m))) for v, m in zip(values, (1, 1, 2))):
        k += 1
        if k > 8:
            return None
    scaled = [v * 2.0 ** (k * m) for v, m in zip(values, (1, 1, 2))]
    if any(s.size and np.abs(s).max() >= limit for s, limit in zip(scaled, (KEY_LIMIT, KEY_LIMIT, PENALTY_LIMIT))):
        return None
    rk, ck, pen = (s.astype(np.int64) for s in scaled)
    return rk, ck, pen


def _exact_integers(block: np.ndarray) -> np.ndarray | None:
    """``block`` as int64 when every entry is an integral float below 2^53 (then exactly that integer)."""
    with np.errstate(invalid="ignore"):
        if block.size and not (np.all(np.abs(block) < EXACT_INTEGER) and np.all(block == np.floor(block))):
            return None
    return block.astype(np.int64)


@dataclass
class _Joined:
    """The join's sets for one score on one value of the columns it reads, ready for pooling.

    Key group k's least-penalty positions are ``members[starts[k]:starts[k] + count[k]]`` (increasing);
    ``first_of``/``second_of`` name each row key's groups (``second_of`` −1 for one group), and
    ``general`` lists the row keys whose set spans other groups, ``general_groups[general_starts[g]:…]``
    those of the g-th.
    """

    cols: tuple[int, ...]
    snapshot: np.ndarray
    labels: JoinLabels
    members: np.ndarray = field(init=False)
    starts: np.ndarray = field(init=False)
    first_of: np.ndarray = field(init=False)
    second_of: np.ndarray = field(init=False)
    general: np.ndarray = field(init=False)
    general_groups: np.ndarray = field(init=False)
    general_starts: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        j = self.labels
        n = len(j.order)
        group = np.repeat(np.arange(j.n_keys), np.diff(np.r_[j.first, n]))
        least = (np.arange(n) - j.first[group]) < j.count[group]
        self.members = j.order[least]
        self.starts = np.r_[0, np.cumsum(j.count)[:-1]].astype(np.int64)
        label = j.label
        pair = (label >= j.n_keys) & (label < 2 * j.n_keys)
        self.first_of = np.where(label < j.n_keys, label, label - j.n_keys)
        self.second_of = np.where(pair, label - j.n_keys + 1, -1)
        self.general = np.flatnonzero(label >= 2 * j.n_keys)
        self.first_of[self.general] = 0
        spans = [j.groups(int(label[u])) for u in self.general.tolist()]
        self.general_groups = np.array([k for ks in spans for k in ks], dtype=np.int64)
        self.general_starts = np.r_[0, np.cumsum([len(ks) for ks in spans])[:-1]].astype(np.int64)

    def pool(self, pooling: Pooling, x: np.ndarray) -> np.ndarray:
        """The pooled vector of every position: means over the set, or its first / last member."""
        count = self.labels.count
        a, b = self.first_of, self.second_of
        pair = b >= 0
        bb = np.where(pair, b, 0)
        spans = self.general.size > 0
        if pooling is Pooling.AVERAGE:
            sums = np.add.reduceat(x[self.members], self.starts, axis=0)
            total = np.where(pair[:, None], sums[a] + sums[bb], sums[a])
            size = np.where(pair, count[a] + count[bb], count[a])
            if spans:
                total[self.general] = np.add.reduceat(sums[self.general_groups], self.general_starts, axis=0)
                size[self.general] = np.add.reduceat(count[self.general_groups], self.general_starts)
            per_key: np.ndarray = (total / size.astype(x.dtype)[:, None]).astype(x.dtype)
            averages: np.ndarray = per_key[self.labels.row_of]
            return averages
        pick: Any = np.minimum if pooling is Pooling.LEFTMOST else np.maximum
        ends = self.members[self.starts] if pooling is Pooling.LEFTMOST else self.members[self.starts + count - 1]
        chosen = np.where(pair, pick(ends[a], ends[bb]), ends[a])
        if spans:
            chosen[self.general] = pick.reduceat(ends[self.general_groups], self.general_starts)
        pooled: np.ndarray = x[chosen[self.labels.row_of]]
        return pooled


def _content_key(score: Score, hint: KeyHint) -> Any:
    """Equal scores and hints (one function shared by several layers, loaded as separate objects) share a join."""
    try:
        return hash((score, hint)), score, hint
    except TypeError:
        return id(score), id(hint)
