"""Unroll an average-attention transformer into an FSAC⁰[sign] circuit (MATH.md §5).

For a fixed length N the transformer T (d coordinates, L layers) becomes a
circuit with N·d inputs ``x[p].<coord>`` and N·d outputs ``y[p].<coord>``
(position-major), built literally as in MATH.md §5 with the strict basis:

per layer, per head, for every pair (i, j) of positions

* ``s_ij`` — a copy of the score circuit on (x_i, x_j) (a bilinear score is
  Σ q·(x_i[r]·x_j[c]) over the non-zero entries: binary products, then one
  product with q unless q = 1, then one addition);
* ``n_ij = −1·s_ij``;
* for j′ ≠ j: ``gt(s_ij′, s_ij) = (σ² + σ)·½`` with σ = sign(s_ij′ + n_ij)
  (gt(s_ij, s_ij) = 0 is left out of the sum);
* ``M_ij = 1 + (−1)·sign(Σ_{j′≠j} gt(s_ij′, s_ij))`` — 1 exactly on the argmax set;

then, per position i, the pooling

* average: ``c_i = Σ_j M_ij``, ``S_i[c] = Σ_j M_ij·x_j[c]``,
  ``r_i = Σ_{m=1..N} (1/m)·(1 + (−1)·sign(c_i + (−m))²)``, ``a_i[c] = S_i[c]·r_i``;
* leftmost (rightmost): ``P_ij = Σ_{j′<j} M_ij′`` (j′ > j),
  ``L_ij = M_ij·(1 + (−1)·sign(P_ij)²)``, ``a_i[c] = Σ_j L_ij·x_j[c]``;
* softmax is refused (:class:`~verified_aat.errors.InputError`): it is not exact;

and finally a copy of the activation circuit on (x_i, a_i⁽¹⁾, …, a_i⁽ᴴ⁾)
gives the next x_i.  Copies keep additions as they are (any fan-in) and
split a multiplication of fan-in k into k − 1 binary ones, so every
multiplication of the result has fan-in exactly 2.  Constants are shared
(one gate per value).  :func:`.size.size_formula` states the exact gate count.

:func:`unroll` builds into flat arrays (:class:`~.flat.FlatBuilder`), the
Θ(L·H·N³) argmax gadget as one numpy block per head (:func:`_argmax_block`);
:func:`unroll_reference` makes the same calls on a ``CircuitBuilder`` with the
gadget written as its definition (:func:`argmax_gates`).  Both give the same
gates in the same order (``tests/test_audit_flat.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import Any, Callable, Sequence

import numpy as np

from ..circuits.builder import CircuitBuilder, Wire
from ..circuits.evaluate import fold_circuit
from ..circuits.ir import Circuit, Kind
from ..errors import InputError
from ..transformer.model import BilinearScore, CircuitScore, Pooling, Transformer
from .flat import ADD, MUL, SIGN, FlatBuilder, FlatCircuit

Builder = Any  # CircuitBuilder or FlatBuilder: the same calls give the same gates

SOFTMAX_REFUSAL = ("softmax pooling cannot be unrolled into an exact arithmetic circuit over Q "
                   "(exp is not a rational function); only average, leftmost and rightmost heads can")


@dataclass(frozen=True)
class UnrolledCircuit:
    """The circuit of T at length N and where its intermediate values live.

    ``flat`` holds the gates as arrays (:class:`~.flat.FlatCircuit`);
    ``circuit`` is the same circuit as a :class:`Circuit` (built from ``flat``
    on first use).  ``vectors[l][p][c]`` is the gate holding coordinate ``c``
    of position ``p`` after layer ``l`` (``l = 0``: the inputs).
    ``argmax[l - 1][h][i][j]`` is the gate of M_ij of head ``h`` in layer ``l``
    (1 iff j is in i's argmax set).  ``layer_ranges[l - 1]`` is the half-open
    range of gate indices created for layer ``l`` (a shared constant belongs
    to the layer that created it).
    """

    flat: FlatCircuit
    n_positions: int
    coordinates: tuple[str, ...]
    vectors: tuple[tuple[tuple[int, ...], ...], ...]
    argmax: tuple[tuple[tuple[tuple[int, ...], ...], ...], ...]
    layer_ranges: tuple[tuple[int, int], ...]
    built: Circuit | None = field(default=None, compare=False, repr=False)

    @cached_property
    def circuit(self) -> Circuit:
        return self.built if self.built is not None else self.flat.to_circuit()

    @property
    def n_layers(self) -> int:
        return len(self.layer_ranges)

    @property
    def layer_gates(self) -> tuple[int, ...]:
        """Gates created per layer, constants included."""
        return tuple(end - start for start, end in self.layer_ranges)

    def layer_operations(self) -> tuple[int, ...]:
        """Non-constant gates per layer (what :func:`.size.size_formula` counts exactly)."""
        return tuple(self.flat.operations(start, end) for start, end in self.layer_ranges)

    def gate_of(self, layer: int, position: int, coordinate: int | str) -> int:
        """The gate of coordinate ``coordinate`` of ``position`` after ``layer`` (0: input)."""
        c = self.coordinates.index(coordinate) if isinstance(coordinate, str) else coordinate
        return self.vectors[layer][position][c]

    @property
    def trace_map(self) -> dict[tuple[int, int, str], int]:
        """(layer, position, coordinate name) → gate index, for every layer 0..L."""
        return {(layer, p, name): gates[p][c]
                for layer, gates in enumerate(self.vectors)
                for p in range(self.n_positions) for c, name in enumerate(self.coordinates)}


def input_names(coordinates: Sequence[str], n_positions: int) -> list[str]:
    """``x[p].<coord>`` in position-major order (the unrolled circuit's inputs)."""
    return [f"x[{p}].{c}" for p in range(n_positions) for c in coordinates]


def flatten(sequence: Sequence[Sequence[object]]) -> list[object]:
    """A sequence of vectors as the unrolled circuit's input (or output) list."""
    return [v for vector in sequence for v in vector]


# -- copies of small circuits ---------------------------------------------------------

def op_size(circuit: Circuit) -> int:
    """Gates a copy of ``circuit`` adds besides shared constants:
    #add + #sign + Σ_mul (fan-in − 1)."""
    total = 0
    for gate in circuit.gates:
        if gate.kind in (Kind.ADD, Kind.SIGN):
            total += 1
        elif gate.kind is Kind.MUL:
            total += gate.fan_in - 1
    return total


def copy_circuit(b: Builder, circuit: Circuit, inputs: Sequence[Wire]) -> list[Wire]:
    """Append a copy of ``circuit`` with input ``k`` wired to ``inputs[k]``; its output wires.

    Adds are kept, muls of fan-in k become k − 1 binary muls (a balanced tree,
    depth ⌈log₂ k⌉, a constant of the transformer), constants are shared.
    """
    return fold_circuit(circuit, inputs, b.const, lambda args: b.add(*args),
                        lambda args: b.tree(Kind.MUL, args), b.sign)


def bilinear_size(score: BilinearScore) -> int:
    """Gates of one bilinear score s_ij: one product per non-zero entry, one more when q ≠ 1, one sum."""
    entries = score.entries()
    return len(entries) + sum(1 for _, _, q in entries if q != 1) + 1


def _bilinear(b: Builder, score: BilinearScore, xi: Sequence[Wire], xj: Sequence[Wire]) -> Wire:
    terms = []
    for r, c, q in score.entries():
        term = b.mul(xi[r], xj[c])
        terms.append(term if q == 1 else b.mul(b.const(q), term))
    return b.add(*terms)


def score_size(score: CircuitScore | BilinearScore) -> int:
    """σ: gates of one copy of a score (constants not counted)."""
    return bilinear_size(score) if isinstance(score, BilinearScore) else op_size(score.circuit)


# -- the unrolling -------------------------------------------------------------------

def _check_unrollable(transformer: Transformer, n_positions: int) -> None:
    if isinstance(n_positions, bool) or not isinstance(n_positions, int) or n_positions < 1:
        raise InputError(f"the sequence length N must be an integer >= 1, got {n_positions!r}")
    for number, layer in enumerate(transformer.layers, start=1):
        for head in layer.heads:
            if head.pooling is Pooling.SOFTMAX:
                raise InputError(f"layer {number}, head {head.name}: {SOFTMAX_REFUSAL}")


GtTerms = Callable[[Any, list[Wire], list[Wire], int], list[Wire]]  # (b, s_i·, −s_i·, j) -> the gt terms of M_ij


def gt_terms(b: Builder, row: list[Wire], negated: list[Wire], j: int) -> list[Wire]:
    """gt(s_ij′, s_ij) = (σ² + σ)/2 with σ = sign(s_ij′ − s_ij), for every j′ ≠ j (constants are shared)."""
    half = b.const(Fraction(1, 2))
    terms = []
    for jp in range(len(row)):
        if jp != j:
            sg = b.sign(b.add(row[jp], negated[j]))
            terms.append(b.mul(half, b.add(b.mul(sg, sg), sg)))
    return terms


def argmax_gates(b: Builder, scores: list[list[Wire]], gts: GtTerms = gt_terms) -> list[list[Wire]]:
    """M_ij = 1 − sign(Σ_{j′≠j} gt(s_ij′, s_ij)) from the N×N score wires, gate by gate.

    This is the definition; :func:`_argmax_block` appends the same gates at once.  ``gts``:
    the gt terms of one M_ij (:func:`gt_terms`, or a deliberately changed one of :mod:`.mutants`).
    """
    n = len(scores)
    one, minus_one = b.const(1), b.const(-1)
    b.const(Fraction(1, 2))  # ½ too, in the order of _argmax_block's constants
    marks: list[list[Wire]] = []
    for i in range(n):
        negated = [b.mul(minus_one, scores[i][j]) for j in range(n)]
        marks.append([b.add(one, b.mul(minus_one, b.sign(b.add(*gts(b, scores[i], negated, j)))))
                      for j in range(n)])
    return marks


def _argmax_block(b: FlatBuilder, scores: list[list[Wire]]) -> list[list[Wire]]:
    """The gates of :func:`argmax_gates`, in the same order, as one numpy block.

    Per position i (5N² gates from ``base_i``): the N negations −s_ij, then per
    j a row of 5N − 1 gates starting at R_ij: for the k-th j′ ≠ j five gates
    T = R_ij + 5k .. T + 4 (add, sign, mul, add, mul), then the sum of the
    N − 1 values gt at E = R_ij + 5(N − 1), its sign, the product with −1 and
    M_ij = 1 + that at E + 3.
    """
    n = len(scores)
    one, minus_one, half = b.const(1), b.const(-1), b.const(Fraction(1, 2))
    s = np.array(scores, dtype=np.int64).reshape(n, n)
    ds = np.array([b.depths[w] for row in scores for w in row], dtype=np.int64).reshape(n, n)
    m = n - 1
    row_len = 5 * m + 4
    i = np.arange(n)[:, None, None]
    j = np.arange(n)[None, :, None]
    k = np.arange(m)[None, None, :]
    base = b.n_gates + i * 5 * n * n                 # (n, 1, 1)
    neg = base + j                                    # (n, n, 1)
    r = base + n + j * row_len                        # (n, n, 1)
    t = r + 5 * k                                     # (n, n, m)
    jp = k + (k >= j)                                 # (1, n, m)
    s_ijp = s[i, jp]                                  # (n, n, m)
    shape = (n, n, m)
    triple = np.stack(np.broadcast_arrays(s_ijp, neg, t, t + 1, t + 1, t + 2, t + 1,
                                          np.full(shape, half), t + 3), axis=3)
    e = r + 5 * m                                     # (n, n, 1)
    tail = np.concatenate([e, np.full((n, n, 1), minus_one), e + 1, np.full((n, n, 1), one), e + 2], axis=2)
    rows = np.concatenate([triple.reshape(n, n, 9 * m), t + 4, tail], axis=2)
    negs = np.stack([np.full((n, n), minus_one), s], axis=2)
    argv = np.concatenate([negs.reshape(n, 2 * n), rows.reshape(n, -1)], axis=1).ravel()

    row_kinds = np.array([ADD, SIGN, MUL, ADD, MUL] * m + [ADD, SIGN, MUL, ADD], dtype=np.int64)
    row_fanins = np.array([2, 1, 2, 2, 2] * m + [m, 1, 2, 2], dtype=np.int64)
    kinds = np.tile(np.concatenate([np.full(n, MUL), np.tile(row_kinds, n)]), n)
    fanins = np.tile(np.concatenate([np.full(n, 2), np.tile(row_fanins, n)]), n)

    dneg = ds + 1                                     # (n, n): 1 + max(depth(−1) = 0, depth(s_ij))
    d0 = 1 + np.maximum(ds[i, jp], dneg[:, :, None])  # (n, n, m)
    triple_depths = np.stack([d0, d0 + 1, d0 + 2, d0 + 3, d0 + 4], axis=3).reshape(n, n, 5 * m)
    dsum = (d0.max(axis=2) + 5) if m else np.ones((n, n), dtype=np.int64)
    tail_depths = np.stack([dsum, dsum + 1, dsum + 2, dsum + 3], axis=2)
    depths = np.concatenate([dneg, np.concatenate([triple_depths, tail_depths], axis=2).reshape(n, -1)], axis=1)
    first = b.extend(kinds, fanins, argv, depths.ravel())
    assert first == int(base[0, 0, 0]) and b.n_gates == first + 5 * n ** 3
    return (e[:, :, 0] + 3).tolist()


def is_zero(b: Builder, value: Wire) -> Wire:
    """[v = 0] = 1 + (−1)·sign(v)²  (4 gates)."""
    sg = b.sign(value)
    return b.add(b.const(1), b.mul(b.const(-1), b.mul(sg, sg)))


def average_gadget(b: Builder, marks: list[Wire], xs: list[list[Wire]]) -> list[Wire]:
    """a_i = (Σ_j M_ij·x_j) · Σ_{m=1..N} [c_i = m]/m with c_i = Σ_j M_ij."""
    n, d = len(xs), len(xs[0])
    count = b.add(*marks)
    sums = [b.add(*(b.mul(marks[j], xs[j][c]) for j in range(n))) for c in range(d)]
    weights = [b.mul(b.const(Fraction(1, m)), is_zero(b, b.add(count, b.const(-m)))) for m in range(1, n + 1)]
    reciprocal = b.add(*weights)
    return [b.mul(sums[c], reciprocal) for c in range(d)]


def unique_gadget(b: Builder, marks: list[Wire], xs: list[list[Wire]], leftmost: bool) -> list[Wire]:
    """a_i = Σ_j L_ij·x_j with L_ij = M_ij·[no marked j′ before (after) j]."""
    n, d = len(xs), len(xs[0])
    firsts = [b.mul(marks[j], is_zero(b, b.add(*(marks[:j] if leftmost else marks[j + 1:])))) for j in range(n)]
    return [b.add(*(b.mul(firsts[j], xs[j][c]) for j in range(n))) for c in range(d)]


@dataclass(frozen=True)
class Gadgets:
    """The argmax and pooling gadgets an unrolling is built from, passed in (MATH.md §5).

    :func:`unroll` builds with :data:`GADGETS` unless given others; the only others are the
    deliberately changed ones of :mod:`.mutants` (tests and ``audit --defect``), named by ``name``.
    """

    name: str
    argmax: Callable[[Any, list[list[Wire]]], list[list[Wire]]]
    average: Callable[[Any, list[Wire], list[list[Wire]]], list[Wire]]
    unique: Callable[[Any, list[Wire], list[list[Wire]], bool], list[Wire]]


GADGETS = Gadgets("", argmax_gates, average_gadget, unique_gadget)  # (unroll uses the numpy block for argmax)


def _unroll_into(b: Builder, transformer: Transformer, n: int, gadgets: Gadgets) -> tuple[Any, ...]:
    """Append the unrolled circuit to ``b``: (vectors, argmax, layer_ranges)."""
    coords = transformer.coordinates
    xs: list[list[Wire]] = [[b.input(f"x[{p}].{c}") for c in coords] for p in range(n)]
    vectors = [tuple(tuple(row) for row in xs)]
    argmax = []
    layer_ranges = []
    for layer in transformer.layers:
        before = b.n_gates
        pooled: list[list[list[Wire]]] = []  # [head][position][coordinate]
        layer_marks = []
        for head in layer.heads:
            score = head.score
            scores = [[(_bilinear(b, score, xs[i], xs[j]) if isinstance(score, BilinearScore)
                        else copy_circuit(b, score.circuit, xs[i] + xs[j])[0]) for j in range(n)]
                      for i in range(n)]
            marks = gadgets.argmax(b, scores)
            layer_marks.append(tuple(tuple(row) for row in marks))
            if head.pooling is Pooling.AVERAGE:
                pooled.append([gadgets.average(b, marks[i], xs) for i in range(n)])
            else:
                pooled.append([gadgets.unique(b, marks[i], xs, head.pooling is Pooling.LEFTMOST) for i in range(n)])
        xs = [copy_circuit(b, layer.activation, xs[i] + [w for a in pooled for w in a[i]]) for i in range(n)]
        vectors.append(tuple(tuple(row) for row in xs))
        argmax.append(tuple(layer_marks))
        layer_ranges.append((before, b.n_gates))
    for p in range(n):
        for c, name in enumerate(coords):
            b.output(xs[p][c], f"y[{p}].{name}")
    return tuple(vectors), tuple(argmax), tuple(layer_ranges)


Unroller = Callable[[Transformer, int], UnrolledCircuit]  # (T, N) -> U_N: unroll, or a changed one (tests)


def unroll(transformer: Transformer, n_positions: int, gadgets: Gadgets | None = None) -> UnrolledCircuit:
    """The FSAC⁰[sign] circuit computing ``transformer`` on sequences of length ``n_positions``.

    Built into flat arrays (the argmax gadget as one numpy block per head);
    the gates are exactly those of :func:`unroll_reference`.  ``gadgets``: other
    gadgets than :data:`GADGETS` (the deliberately changed ones of :mod:`.mutants`,
    to show that the audit catches them), built gate by gate.
    """
    _check_unrollable(transformer, n_positions)
    suffix = f"_{gadgets.name}" if gadgets is not None and gadgets.name else ""
    b = FlatBuilder(f"{transformer.name}_unrolled_N{n_positions}" + suffix)
    chosen = Gadgets("", _argmax_block, average_gadget, unique_gadget) if gadgets is None else gadgets
    vectors, argmax, ranges = _unroll_into(b, transformer, n_positions, chosen)
    return UnrolledCircuit(b.build(), n_positions, transformer.coordinates, vectors, argmax, ranges)


def unroll_reference(transformer: Transformer, n_positions: int) -> UnrolledCircuit:
    """The same circuit built the straightforward way: one ``CircuitBuilder`` call per gate."""
    _check_unrollable(transformer, n_positions)
    b = CircuitBuilder(f"{transformer.name}_unrolled_N{n_positions}")
    vectors, argmax, ranges = _unroll_into(b, transformer, n_positions, GADGETS)
    circuit = b.build()
    return UnrolledCircuit(FlatCircuit.from_circuit(circuit), n_positions, transformer.coordinates, vectors,
                           argmax, ranges, circuit)
