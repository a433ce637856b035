"""Exact kernels for the exact engine: int64 score grids and memoised activations.

Nothing here rounds.  The int64 kernels run only after a bound check shows
that no value they compute — every gate, every partial sum or product — can
reach ``2**62`` in magnitude, so numpy's wrapping int64 arithmetic never
wraps and every score is the exact integer the score function gives.  When
the check fails, or a value or constant the score reads is not an integer,
the kernels return ``None`` and the engine evaluates the score with Python
ints/Fractions as before.

* :class:`CircuitKernel` evaluates a score circuit on the whole grid of
  (i-group, j-group) pairs with numpy broadcasting: gates that read only
  i-coordinates are computed once per i-group (shape ``(n_i, 1)``), gates that
  read only j-coordinates once per j-group (``(1, n_j)``), and the gates that
  read both on blocks of rows of the grid.  Bounds: ``|input| ≤`` the largest
  absolute value of its column, ``|const| = |c|``, ``|add| ≤ Σ|args|``,
  ``|mul| ≤ Π max(|args|, 1)`` (which also bounds every partial product),
  ``|sign| ≤ 1``.
* :class:`BilinearKernel` evaluates ``x_iᵀ Q x_j``.  Rational entries and
  values are allowed: with ``D_r``/``E_c`` the common denominators of the
  i-/j-columns and ``L > 0`` that of ``Q_rc / (D_r E_c)``, the integers
  ``L·s = Σ (L Q_rc / (D_r E_c)) (D_r x_ir)(E_c x_jc)`` are a positive multiple
  of the scores, so they have the same argmax; they are bounded like a circuit.
* the activations are :mod:`.activation_kernel`'s (on the numbers below).

Non-integral values inside the engine are GMP rationals (``gmpy2.mpq``, exact like
``Fraction`` and much faster): :func:`inner` converts on the way in, :func:`outer` on the
way out.  ``USE_INT64`` switches the int64 kernels off and ``USE_GMP`` the GMP rationals (the
tests use them to force the Python and Fraction paths).
"""

from __future__ import annotations

from fractions import Fraction
from math import lcm
from typing import Any, Sequence

import numpy as np

from ..circuits.ir import Circuit, Kind
from .unknown import UNKNOWN, Form, _reciprocal, collapse, is_symbolic

USE_INT64 = True
LIMIT = 2 ** 62          # every intermediate value of the int64 kernels stays strictly below this
BLOCK = 1 << 18          # grid cells per block of rows

Number = int | Fraction

_I, _J = 1, 2            # dependency bits: a gate reads i-coordinates / j-coordinates


def live_gates(circuit: Circuit, outputs: Sequence[int] | None = None) -> list[bool]:
    """Which gates have a path to one of ``outputs`` (default: the circuit's outputs)."""
    live = [False] * len(circuit.gates)
    for out in circuit.outputs if outputs is None else outputs:
        live[out] = True
    for index in range(len(circuit.gates) - 1, -1, -1):
        if live[index]:
            for arg in circuit.gates[index].args:
                live[arg] = True
    return live


def _integers(column: Sequence[Number]) -> bool:
    return _INT.issuperset(map(type, column))  # every value's type is int (not bool, not a rational)


_INT = frozenset((int,))


def _max_abs(column: Sequence[int]) -> int:
    return max(map(abs, column), default=0)


def int64_values(column: Sequence[Number]) -> tuple[np.ndarray, int] | None:
    """A column as int64 with its largest absolute value (what :meth:`CircuitKernel.int64_column` takes), or None
    when a value is not an int or is past int64."""
    if not _integers(column):
        return None
    largest = _max_abs(column)
    return None if largest >= 2 ** 63 else (np.array(column, dtype=np.int64), largest)


def _row_argmax(scores: np.ndarray) -> list[tuple[int, ...]]:
    """For each row of an int64 score block, the columns holding its maximum."""
    top = scores.max(axis=1)
    mask = scores == top[:, None]
    counts = mask.sum(axis=1)
    cols = np.nonzero(mask)[1].tolist()          # row-major: grouped by row, increasing columns
    if len(cols) == len(counts):                  # one maximum per row, the usual case
        return [(c,) for c in cols]
    out: list[tuple[int, ...]] = []
    start = 0
    for count in counts.tolist():
        out.append(tuple(cols[start:start + count]))
        start += count
    return out


def _blocks(n_i: int, n_j: int) -> list[tuple[int, int]]:
    step = max(1, BLOCK // max(n_j, 1))
    return [(lo, min(lo + step, n_i)) for lo in range(0, n_i, step)]


class CircuitKernel:
    """A score circuit on int64 arrays over the (i-group, j-group) grid (see the module docstring)."""

    def __init__(self, circuit: Circuit, i_cols: Sequence[int], j_cols: Sequence[int], d: int):
        live = live_gates(circuit)
        i_pos = {c: k for k, c in enumerate(i_cols)}
        j_pos = {c: k for k, c in enumerate(j_cols)}
        self.integral = True
        # steps: (gate, kind, args, payload) for the live gates, in topological order
        self.steps: list[tuple[int, Kind, tuple[int, ...], Any]] = []
        self.dep: dict[int, int] = {}
        for index, gate in enumerate(circuit.gates):
            if not live[index]:
                continue
            kind = gate.kind
            payload: Any = None
            if kind is Kind.CONST:
                value = gate.value
                assert value is not None
                if value.denominator != 1:
                    self.integral = False
                payload = int(value.numerator)
                dep = 0
            elif kind is Kind.INPUT:
                assert gate.index is not None
                payload = (_I, i_pos[gate.index]) if gate.index < d else (_J, j_pos[gate.index - d])
                dep = payload[0]
            else:
                dep = 0
                for arg in gate.args:
                    dep |= self.dep[arg]
            self.dep[index] = dep
            self.steps.append((index, kind, gate.args, payload))
        self.output = circuit.outputs[0]
        # for the gates reading both sides: the last step that uses each, to free block arrays early
        self.last_use: dict[int, int] = {}
        for position, (index, _, args, _) in enumerate(self.steps):
            for arg in args:
                self.last_use[arg] = position
        self.last_use[self.output] = len(self.steps)

    def bounded(self, i_max: Sequence[int], j_max: Sequence[int]) -> bool:
        """Whether every gate (and partial sum/product) stays below LIMIT for inputs this large."""
        return self._bounded(i_max, j_max, LIMIT)

    def _bounded(self, i_max: Sequence[int], j_max: Sequence[int], limit: int) -> bool:
        bound: dict[int, int] = {}
        for index, kind, args, payload in self.steps:
            if kind is Kind.INPUT:
                b = (i_max if payload[0] == _I else j_max)[payload[1]]
            elif kind is Kind.CONST:
                b = abs(payload)
            elif kind is Kind.ADD:
                b = sum(bound[a] for a in args)
            elif kind is Kind.MUL:
                b = 1
                for a in args:
                    b *= max(bound[a], 1)
            else:
                b = 1
            if b >= limit:
                return False
            bound[index] = b
        return True

    def int64_column(self, i_arr: list[np.ndarray], bounds: list[int], n: int, limit: int | None = None
                     ) -> np.ndarray | None:
        """A circuit that reads only i-coordinates (a key), on ``n`` rows, given as int64 arrays each with its
        largest absolute value: an int64 array, or None when a constant is not an integer or some gate could
        reach ``limit`` (default LIMIT)."""
        if self.dep[self.output] & _J or not self.integral or not self._bounded(bounds, [], LIMIT if limit is None
                                                                                  else limit):
            return None
        values: dict[int, Any] = {}
        for index, kind, args, payload in self.steps:
            values[index] = _apply(kind, [values[a] for a in args], payload, i_arr, [])
        return np.broadcast_to(np.asarray(values[self.output], dtype=np.int64), (n,)).copy()

    def argmax(self, i_vals: list[list[Number]], j_vals: list[list[Number]], n_i: int, n_j: int
               ) -> list[tuple[int, ...]] | None:
        """Per i-group, the j-groups of maximal score; None if int64 would not be exact.

        ``i_vals[k]`` holds the k-th read i-coordinate of every i-group's
        representative (``n_i`` groups), ``j_vals`` likewise for j.
        """
        if n_i == 0:
            return []
        if not self.integral or not all(map(_integers, i_vals)) or not all(map(_integers, j_vals)):
            return None
        if not self.bounded([_max_abs(c) for c in i_vals], [_max_abs(c) for c in j_vals]):
            return None
        i_arr = [np.array(c, dtype=np.int64)[:, None] for c in i_vals]
        j_arr = [np.array(c, dtype=np.int64)[None, :] for c in j_vals]
        # gates that read at most one side: computed once
        side: dict[int, Any] = {}
        for index, kind, args, payload in self.steps:
            if self.dep[index] != _I | _J:
                side[index] = _apply(kind, [side[a] for a in args], payload, i_arr, j_arr)
        best: list[tuple[int, ...]] = []
        for lo, hi in _blocks(n_i, n_j):
            env: dict[int, Any] = {}

            def value(a: int) -> Any:
                if a in env:
                    return env[a]
                v = side[a]
                return v[lo:hi] if self.dep[a] == _I else v

            for position, (index, kind, args, payload) in enumerate(self.steps):
                if self.dep[index] == _I | _J:
                    env[index] = _apply(kind, [value(a) for a in args], payload, i_arr, j_arr)
                    for a in args:
                        if a in env and self.last_use[a] == position:
                            del env[a]
            scores = np.broadcast_to(np.asarray(value(self.output), dtype=np.int64), (hi - lo, n_j))
            best.extend(_row_argmax(scores))
        return best


def _apply(kind: Kind, args: list[Any], payload: Any, i_arr: list[np.ndarray], j_arr: list[np.ndarray]) -> Any:
    """One gate on Python ints (constant parts) or int64 arrays."""
    if kind is Kind.INPUT:
        return (i_arr if payload[0] == _I else j_arr)[payload[1]]
    if kind is Kind.CONST:
        return payload
    if kind is Kind.ADD:
        total: Any = 0
        for v in args:
            total = total + v
        return total
    if kind is Kind.MUL:
        product = args[0]
        for v in args[1:]:
            product = product * v
        return product
    v = args[0]
    if isinstance(v, np.ndarray):
        return np.sign(v)
    return (v > 0) - (v < 0)


class BilinearKernel:
    """``x_iᵀ Q x_j`` on int64 arrays, after an exact positive rescaling (see the module docstring)."""

    def __init__(self, entries: Sequence[tuple[int, int, Fraction]], i_cols: Sequence[int], j_cols: Sequence[int]):
        i_pos = {c: k for k, c in enumerate(i_cols)}
        j_pos = {c: k for k, c in enumerate(j_cols)}
        self.entries = [(i_pos[r], j_pos[c], Fraction(q)) for r, c, q in entries]
        self.n_i_cols, self.n_j_cols = len(i_cols), len(j_cols)

    def argmax(self, i_vals: list[list[Number]], j_vals: list[list[Number]], n_i: int, n_j: int
               ) -> list[tuple[int, ...]] | None:
        """As :meth:`CircuitKernel.argmax`."""
        if n_i == 0:
            return []
        if not self.entries:
            return [tuple(range(n_j))] * n_i
        d_i = [lcm(*(Fraction(v).denominator for v in col)) for col in i_vals]
        d_j = [lcm(*(Fraction(v).denominator for v in col)) for col in j_vals]
        scaled = [(r, c, q / (d_i[r] * d_j[c])) for r, c, q in self.entries]
        big_l = lcm(*(q.denominator for _, _, q in scaled))
        matrix = [[0] * self.n_j_cols for _ in range(self.n_i_cols)]
        for r, c, q in scaled:
            matrix[r][c] += int(q * big_l)
        xi = [[int(v * d_i[r]) for v in col] for r, col in enumerate(i_vals)]
        xj = [[int(v * d_j[c]) for v in col] for c, col in enumerate(j_vals)]
        i_max = [_max_abs(col) for col in xi]
        j_max = [_max_abs(col) for col in xj]
        # M = Xi·Q (per j-column c: Σ_r Q_rc x_ir), then s = Σ_c M_c x_jc
        m_bounds = [sum(abs(matrix[r][c]) * i_max[r] for r in range(self.n_i_cols)) for c in range(self.n_j_cols)]
        total = sum(m_bounds[c] * j_max[c] for c in range(self.n_j_cols))
        if max(i_max + j_max + [abs(q) for row in matrix for q in row] + m_bounds + [total]) >= LIMIT:
            return None
        i_arr = np.array(xi, dtype=np.int64).reshape(self.n_i_cols, n_i)
        q_arr = np.array(matrix, dtype=np.int64).reshape(self.n_i_cols, self.n_j_cols)
        j_arr = np.array(xj, dtype=np.int64).reshape(self.n_j_cols, n_j)
        m = i_arr.T @ q_arr                       # (n_i, |j_cols|), exact: partial sums ≤ m_bounds
        live = [c for c in range(self.n_j_cols) if q_arr[:, c].any()]
        best: list[tuple[int, ...]] = []
        for lo, hi in _blocks(n_i, n_j):
            scores = np.zeros((hi - lo, n_j), dtype=np.int64)
            for c in live:
                scores += m[lo:hi, c:c + 1] * j_arr[c][None, :]
            best.extend(_row_argmax(scores))
        return best


# -- exact numbers inside the engine ----------------------------------------------------

try:  # GMP rationals: the same exact numbers as fractions.Fraction, an order of magnitude faster
    from gmpy2 import mpq as _mpq
except ImportError:  # pragma: no cover - the engine still works, only slower
    _mpq = None

USE_GMP = _mpq is not None


def inner(v: Any) -> Any:
    """An exact rational as the engine keeps it: ints stay ints, others become GMP rationals
    (Fractions when ``USE_GMP`` is off or gmpy2 is missing)."""
    if type(v) is int or not USE_GMP:
        return v
    return _mpq(v.numerator, v.denominator)


def outer(v: Any) -> Any:
    """The engine's number as the rest of the code base has it: an int, else a Fraction (a settled run's
    forms and ⊥ are ⊥)."""
    if type(v) is int:
        return v
    if is_symbolic(v):
        return collapse(v)
    if v.denominator == 1:
        return int(v.numerator)
    return v if type(v) is Fraction else Fraction(int(v.numerator), int(v.denominator))


def outer_row(row: tuple[Any, ...]) -> tuple[Any, ...]:
    for v in row:
        if type(v) is not int:
            return tuple([outer(v) for v in row])
    return row


def ratio(total: Any, size: int) -> Any:
    """total / size exactly, in the engine's number type (an int when integral; a form or ⊥ stays one)."""
    if type(total) is Form:
        r = _RECIPROCALS.get(size)
        if r is None:
            r = _RECIPROCALS[size] = _reciprocal(size)  # as Form.__truediv__
        return total.scaled(r)
    if is_symbolic(total):
        return total / size
    if type(total) is int:
        q, r = divmod(total, size)
        if not r:
            return q
        return _mpq(total, size) if USE_GMP else Fraction(total, size)
    return normal(total / size)


_RECIPROCALS: dict[int, Any] = {}


def normal(v: Any) -> Any:
    """An int when the rational is integral (Fraction or GMP rational), else the value itself (forms, ⊥ too)."""
    if type(v) is int or is_symbolic(v):
        return v
    return int(v.numerator) if v.denominator == 1 else v


_normal = normal


def _sign(v: Any) -> Any:
    return UNKNOWN if is_symbolic(v) else (v > 0) - (v < 0)
