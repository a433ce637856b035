"""The exact engine against the plain N² reference, hand-computed runs, and the speed-ups' soundness."""

from __future__ import annotations

import random
from contextlib import contextmanager
from fractions import Fraction
from typing import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import synthetic_gate_edge as synthetic
from transformer_strategies import INTEGERS, sequences, transformers
from verified_aat.circuits.builder import CircuitBuilder
from verified_aat.circuits.ir import Circuit, Kind
from verified_aat.errors import InputError
from verified_aat.symbolic.attention import engine_keys
from verified_aat.transformer import exact_kernels
from verified_aat.transformer.exact_engine import RunResult, read_inputs, run_exact, run_exact_reference
from verified_aat.transformer.exact_kernels import LIMIT, CircuitKernel
from verified_aat.transformer.model import (BilinearScore, CircuitScore, Head, Layer, Pooling, Transformer,
                                            activation_input_names, score_input_names)

F = Fraction


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_engine_matches_reference(data: st.DataObject) -> None:
    t = data.draw(transformers())
    seq = data.draw(sequences(t.dimension))
    fast = run_exact(t, seq, trace=True)
    slow = run_exact_reference(t, seq)
    assert fast.outputs == slow.outputs
    assert fast.trace == slow.trace  # vectors after every layer and every argmax set
    for row in fast.outputs:
        assert all(type(v) is int or (type(v) is Fraction and v.denominator != 1) for v in row)


# -- hand-built examples -----------------------------------------------------

def _score_neg_sq_diff(coords: tuple[str, ...], key: str) -> CircuitScore:
    """s = −(i.key − j.key)²."""
    b = CircuitBuilder("near")
    ins = dict(zip(score_input_names(coords), b.inputs(score_input_names(coords))))
    diff = b.sub(ins[f"i.{key}"], ins[f"j.{key}"])
    b.output(b.neg(b.square(diff)))
    return CircuitScore(b.build())


def _score_j(coords: tuple[str, ...], key: str) -> CircuitScore:
    """s = j.key: every position attends to the positions with the largest ``key``."""
    b = CircuitBuilder("largest")
    ins = dict(zip(score_input_names(coords), b.inputs(score_input_names(coords))))
    b.output(ins[f"j.{key}"])
    return CircuitScore(b.build())


def _take_pooled(coords: tuple[str, ...], heads: list[str], keep: set[str]) -> Layer:
    """Activation: coordinates in ``keep`` stay, the others become head 0's pooled value."""
    b = CircuitBuilder("take")
    names = activation_input_names(coords, heads)
    ins = dict(zip(names, b.inputs(names)))
    for c in coords:
        b.output(ins[f"x.{c}"] if c in keep else ins[f"{heads[0]}.{c}"])
    return b.build()


def test_leftmost_and_rightmost_differ_on_a_tie() -> None:
    coords = ("k", "v")
    seq = [[1, 10], [5, 20], [5, 30], [2, 40]]  # k = 5 is the max at positions 1 and 2
    results = {}
    for pooling in (Pooling.LEFTMOST, Pooling.RIGHTMOST, Pooling.AVERAGE):
        layer = Layer((Head("h", _score_j(coords, "k"), pooling),), _take_pooled(coords, ["h"], {"k"}))
        t = Transformer(coords, (layer,))
        results[pooling] = [row[1] for row in run_exact(t, seq).outputs]
        assert run_exact(t, seq, trace=True).trace[0].heads[0].argmax == ((1, 2),) * 4
    assert results[Pooling.LEFTMOST] == [20] * 4
    assert results[Pooling.RIGHTMOST] == [30] * 4
    assert results[Pooling.AVERAGE] == [25] * 4


def test_average_on_a_tie_is_the_exact_mean() -> None:
    coords = ("k", "v")
    # keys 0,1,0,0: position 1 is alone, positions 0, 2, 3 tie with each other (score 0)
    seq = [[0, 1], [1, F(1, 2)], [0, 2], [0, F(-4)]]
    layer = Layer((Head("h", _score_neg_sq_diff(coords, "k"), Pooling.AVERAGE),), _take_pooled(coords, ["h"], {"k"}))
    out = run_exact(Transformer(coords, (layer,)), seq).outputs
    mean = F(1 + 2 - 4, 3)  # = -1/3
    assert [row[1] for row in out] == [mean, F(1, 2), mean, mean]
    assert out[0][1] == F(-1, 3) and isinstance(out[1][1], Fraction)


def test_hand_computed_two_layer_transformer() -> None:
    """Layer 1: u ← u + mean of v over the positions with the same key; layer 2 (bilinear,
    rightmost): v ← sign(u − pooled u) where the score is 2·i.k·j.k."""
    coords = ("k", "u", "v")
    b = CircuitBuilder("act1")
    names = activation_input_names(coords, ["g"])
    ins = dict(zip(names, b.inputs(names)))
    b.output(ins["x.k"])
    b.output(b.add(ins["x.u"], ins["g.v"]))
    b.output(ins["x.v"])
    layer1 = Layer((Head("g", _score_neg_sq_diff(coords, "k"), Pooling.AVERAGE),), b.build(), "one")
    b = CircuitBuilder("act2")
    ins = dict(zip(names, b.inputs(names)))
    b.output(ins["x.k"])
    b.output(ins["x.u"])
    b.output(b.sign(b.sub(ins["x.u"], ins["g.u"])))
    # Q = [[2,0,0],[0,0,0],[0,0,0]] gives s = 2 k_i k_j, maximal at the largest k_j for k_i > 0
    # and at the smallest for k_i < 0
    q = ((F(2), F(0), F(0)), (F(0), F(0), F(0)), (F(0), F(0), F(0)))
    layer2 = Layer((Head("g", BilinearScore(q), Pooling.RIGHTMOST),), b.build(), "two")
    t = Transformer(coords, (layer1, layer2))
    seq = [[1, 0, 3], [2, 5, 1], [1, 1, F(1, 2)], [-1, 7, 4], [2, 0, -1]]
    # layer 1 by hand: groups k=1 {0,2}: mean v = 7/4; k=2 {1,4}: mean v = 0; k=-1 {3}: 4
    u1 = [0 + F(7, 4), 5 + 0, 1 + F(7, 4), 7 + 4, 0 + 0]  # 7/4, 5, 11/4, 11, 0
    # layer 2 by hand: k_i > 0 → argmax is the largest k_j = 2 at {1, 4}, rightmost 4 (u = 0);
    # k_i = -1 → the smallest k_j = -1 at {3} (u = 11)
    v2 = [1, 1, 1, 0, 0]  # sign(7/4 − 0), sign(5 − 0), sign(11/4 − 0), sign(11 − 11), sign(0 − 0)
    expected = tuple(tuple(row) for row in zip([1, 2, 1, -1, 2], u1, v2))
    assert run_exact(t, seq).outputs == expected
    assert run_exact_reference(t, seq).outputs == expected


def test_softmax_is_rejected() -> None:
    coords = ("k",)
    layer = Layer((Head("h", _score_j(coords, "k"), Pooling.SOFTMAX),), _take_pooled(coords, ["h"], {"k"}))
    with pytest.raises(InputError, match="softmax pooling is not exact; use the float engine"):
        run_exact(Transformer(coords, (layer,)), [[1]])


def test_bad_sequences_are_input_errors() -> None:
    coords = ("k",)
    t = Transformer(coords, (Layer((Head("h", _score_j(coords, "k"), Pooling.AVERAGE),),
                                   _take_pooled(coords, ["h"], {"k"})),))
    with pytest.raises(InputError, match="expected a vector of 1 value, got 2"):
        run_exact(t, [[1, 2]])
    with pytest.raises(InputError, match="not an exact rational"):
        run_exact(t, [[0.5]])
    assert run_exact(t, []).outputs == ()


def test_read_inputs_ignores_dead_inputs() -> None:
    b = CircuitBuilder()
    x, y, z = b.inputs(["x", "y", "z"])
    b.mul(y, z)  # dead
    b.output(b.add(x, b.sign(x)))
    assert read_inputs(b.build()) == {0}


def test_argmax_is_reused_only_when_read_columns_are_unchanged() -> None:
    coords = ("k", "v")
    score = _score_neg_sq_diff(coords, "k")
    keep = Layer((Head("h", score, Pooling.AVERAGE),), _take_pooled(coords, ["h"], {"k"}))
    b = CircuitBuilder("shift")  # k ← k + v: changes the column the score reads
    names = activation_input_names(coords, ["h"])
    ins = dict(zip(names, b.inputs(names)))
    b.output(b.add(ins["x.k"], ins["x.v"]))
    b.output(ins["x.v"])
    shift = Layer((Head("h", score, Pooling.AVERAGE),), b.build())
    t = Transformer(coords, (keep, keep, shift, keep, keep))
    seq = [[0, 1], [0, 2], [1, 3], [2, 0]]
    result = run_exact(t, seq, trace=True)
    assert result.stats.argmax_reused == 3 and result.stats.argmax_computed == 2
    assert result.outputs == run_exact_reference(t, seq).outputs
    assert result.trace == run_exact_reference(t, seq).trace


def test_synthetic_gate_edge_computes_the_circuit() -> None:
    rng = random.Random(7)
    circuit = synthetic.random_circuit(rng, 4, 5, 5)
    x = [F(rng.randint(-5, 5), rng.randint(1, 3)) for _ in range(4)]
    rows, positions = synthetic.encode(circuit, x)
    t = synthetic.transformer(5)
    out = run_exact(t, rows).outputs
    values = synthetic.expected(circuit, x)
    assert [out[p][3] for p in positions] == values
    assert run_exact_reference(t, rows).outputs == out


def _with_extra_term(score: Circuit, coords: tuple[str, ...]) -> Circuit:
    """``score`` + j.one·(i.one − 1), copied gate by gate."""
    b = CircuitBuilder("edited")
    ins = dict(zip(score_input_names(coords), b.inputs(score_input_names(coords))))
    wires = list(ins.values())
    copy: list[int] = []
    for gate in score.gates:
        if gate.kind is Kind.INPUT:
            copy.append(wires[gate.index])
        elif gate.kind is Kind.CONST:
            copy.append(b.const(gate.value))
        elif gate.kind is Kind.SIGN:
            copy.append(b.sign(copy[gate.args[0]]))
        else:
            args = [copy[a] for a in gate.args]
            copy.append(b.add(*args) if gate.kind is Kind.ADD else b.mul(*args))
    b.output(b.add(copy[score.outputs[0]], b.mul(ins["j.one"], b.add(ins["i.one"], b.const(-1)))))
    return b.build()


def test_1300_positions_48_layers_join_and_fallback() -> None:
    """~1,300 positions, 48 layers, 383-gate activations: the heads whose decomposition is proved
    (found in their own scores) take the key join, an edited head all pairs; both compute C(x).
    (Speed is measured in benchmarks/, never asserted here.)"""
    rng = random.Random(1)
    circuit = synthetic.random_circuit(rng, 8, 24, 20)
    x = [F(rng.randint(-9, 9), rng.randint(1, 4)) for _ in range(8)]
    rows, positions = synthetic.encode(circuit, x)
    t = synthetic.transformer(24, activation_size=383)
    assert 1200 <= len(rows) <= 1500 and t.layers[0].activation.size == 383 and t.n_layers == 48
    values = synthetic.expected(circuit, x)
    result = run_exact(t, rows, keys=engine_keys(None))
    assert [result.outputs[p][3] for p in positions] == values
    assert result.stats.argmax_reused == 46 and result.stats.argmax_join == 2
    assert result.stats.head_methods == (("h", "join"),) and result.stats.score_evaluations == 0
    # layers are incremental: far fewer (position, layer) applications than positions × layers
    assert result.stats.activation_applications < len(rows) * t.n_layers // 4
    # the gather score with a harmless extra term that reads both vectors (j.one·(i.one − 1), 0 on
    # this layout) has no decomposition: all pairs for the gather layers, the same outputs
    edited = _with_extra_term(t.layers[1].heads[0].score.circuit, t.coordinates)
    layers = tuple(layer if k % 2 == 0 else Layer((Head("g", CircuitScore(edited), Pooling.AVERAGE),),
                                                 layer.activation, layer.name)
                   for k, layer in enumerate(t.layers))
    t2 = Transformer(t.coordinates, layers)
    result2 = run_exact(t2, rows, keys=engine_keys(None))
    assert result2.outputs == result.outputs
    assert result2.stats.head_methods == (("h", "join"), ("g", "all-pairs"))
    assert result2.stats.argmax_join == 1 and result2.stats.score_evaluations > 0


# -- the int64 kernels and the Python fallback -------------------------------------

@contextmanager
def kernels(use_int64: bool = True, block: int | None = None, limit: int | None = None,
            use_gmp: bool = True) -> Iterator[None]:
    """Force the int64 kernels and the GMP rationals on or off (and optionally tiny blocks, or a wrong bound)."""
    saved = exact_kernels.USE_INT64, exact_kernels.BLOCK, exact_kernels.LIMIT, exact_kernels.USE_GMP
    exact_kernels.USE_INT64 = use_int64
    exact_kernels.BLOCK = block or saved[1]
    exact_kernels.LIMIT = limit or saved[2]
    exact_kernels.USE_GMP = use_gmp and saved[3]
    try:
        yield
    finally:
        exact_kernels.USE_INT64, exact_kernels.BLOCK, exact_kernels.LIMIT, exact_kernels.USE_GMP = saved


def _check_against_reference(t: Transformer, seq: list[list[Fraction]], use_int64: bool,
                             block: int | None = None, use_gmp: bool = True) -> RunResult:
    with kernels(use_int64, block, use_gmp=use_gmp):
        fast = run_exact(t, seq, trace=True)
    slow = run_exact_reference(t, seq)
    assert fast.outputs == slow.outputs
    assert fast.trace == slow.trace
    if not use_int64:
        assert fast.stats.argmax_int64 == 0
    return fast


BIG = [Fraction(v) for v in (2 ** 40, -(2 ** 40) + 3, 2 ** 31, -(2 ** 31), 3037000499, 3037000500, 2 ** 20, -1, 0, 1)]


@settings(max_examples=200, deadline=None)
@given(data=st.data(), use_int64=st.booleans(), block=st.sampled_from([None, 1, 3]), use_gmp=st.booleans())
def test_both_paths_match_reference(data: st.DataObject, use_int64: bool, block: int | None, use_gmp: bool) -> None:
    """Rational constants and values: the int64 kernels (bilinear after rescaling) and the Python path,
    with GMP rationals or Fractions inside the engine."""
    t = data.draw(transformers())
    _check_against_reference(t, data.draw(sequences(t.dimension)), use_int64, block, use_gmp)


@settings(max_examples=200, deadline=None)
@given(data=st.data(), use_int64=st.booleans(), block=st.sampled_from([None, 1, 2, 5]))
def test_both_paths_match_reference_on_integers(data: st.DataObject, use_int64: bool, block: int | None) -> None:
    """Integer constants and values, so that the int64 kernels take most argmax computations."""
    t = data.draw(transformers(constants=INTEGERS))
    seq = data.draw(sequences(t.dimension, INTEGERS, max_len=10))
    result = _check_against_reference(t, seq, use_int64, block)
    if use_int64 and t.n_layers == 1:
        # first layer: every value read is an integer and small, so every argmax is the kernel's
        assert result.stats.argmax_int64 == result.stats.argmax_computed


@settings(max_examples=200, deadline=None)
@given(data=st.data(), use_int64=st.booleans())
def test_both_paths_match_reference_on_huge_integers(data: st.DataObject, use_int64: bool) -> None:
    """Values near 2**31, 2**40: products pass 2**62 and the bound check must send them to Python."""
    t = data.draw(transformers(constants=INTEGERS))
    seq = data.draw(sequences(t.dimension, BIG, max_len=8))
    _check_against_reference(t, seq, use_int64)


def _one_head(coords: tuple[str, ...], score: CircuitScore | BilinearScore, keep: set[str]) -> Transformer:
    return Transformer(coords, (Layer((Head("h", score, Pooling.AVERAGE),), _take_pooled(coords, ["h"], keep)),))


def test_bound_check_rejects_squares_near_2_pow_80() -> None:
    """−(i.k − j.k)² with keys near 2**40: the squares reach 2**82, so the Python path runs."""
    coords = ("k", "v")
    t = _one_head(coords, _score_neg_sq_diff(coords, "k"), {"k"})
    seq = [[2 ** 40 + d, v] for d, v in [(0, 1), (1, 2), (-1, 3), (0, 4), (2 ** 39, 5), (-(2 ** 40), 6)]]
    result = _check_against_reference(t, seq, True)
    assert result.stats.argmax_computed == 1 and result.stats.argmax_int64 == 0
    small = [[k >> 20, v] for k, v in seq]  # keys below 2**21: squares below 2**44, int64 is exact
    result = _check_against_reference(t, small, True)
    assert result.stats.argmax_int64 == 1


def test_bound_check_is_what_keeps_int64_exact() -> None:
    """s = j.k² with k = 2**32 wraps to 0 in int64: with the bound disabled the argmax is wrong."""
    coords = ("k", "v")
    b = CircuitBuilder("square")
    ins = dict(zip(score_input_names(coords), b.inputs(score_input_names(coords))))
    b.output(b.square(ins["j.k"]))
    t = _one_head(coords, CircuitScore(b.build()), {"k"})
    seq = [[3, 1], [2 ** 32, 2], [-2, 3]]
    expected = run_exact_reference(t, seq)
    assert expected.trace[0].heads[0].argmax == ((1,),) * 3
    result = _check_against_reference(t, seq, True)
    assert result.stats.argmax_int64 == 0
    with kernels(limit=2 ** 80):  # a wrong bound: int64 wraps and the engine goes wrong
        wrong = run_exact(t, seq, trace=True)
    assert wrong.stats.argmax_int64 == 1 and wrong.trace[0].heads[0].argmax == ((0,),) * 3


def test_fractional_constants_or_values_use_the_python_path() -> None:
    coords = ("k", "v")
    b = CircuitBuilder("half")
    ins = dict(zip(score_input_names(coords), b.inputs(score_input_names(coords))))
    b.output(b.add(b.scale(F(1, 2), ins["j.k"]), b.neg(b.square(b.sub(ins["i.k"], ins["j.k"])))))
    t = _one_head(coords, CircuitScore(b.build()), {"k"})
    assert _check_against_reference(t, [[1, 1], [2, 2], [0, 3]], True).stats.argmax_int64 == 0
    t = _one_head(coords, _score_neg_sq_diff(coords, "k"), {"k"})
    assert _check_against_reference(t, [[F(1, 2), 1], [2, 2], [F(1, 2), 3]], True).stats.argmax_int64 == 0
    # unread fractional coordinates do not matter
    assert _check_against_reference(t, [[1, F(1, 2)], [2, 2], [1, F(1, 3)]], True).stats.argmax_int64 == 1


def test_bilinear_kernel_rescales_rationals_and_respects_the_bound() -> None:
    """x_iᵀ Q x_j with rational Q and values runs on int64 after rescaling; huge values do not."""
    coords = ("k", "u", "v")
    q = ((F(1, 3), F(0), F(0)), (F(-2, 5), F(3, 7), F(0)), (F(0), F(0), F(0)))
    t = _one_head(coords, BilinearScore(q), {"k", "u"})
    seq = [[F(1, 2), 1, 7], [F(-3, 4), F(2, 3), 8], [2, F(-5, 6), 9], [F(1, 2), 1, 10], [0, 0, 11]]
    assert _check_against_reference(t, seq, True).stats.argmax_int64 == 1
    huge = [[k * 2 ** 40, u * 2 ** 40, v] for k, u, v in seq]
    assert _check_against_reference(t, huge, True).stats.argmax_int64 == 0
    zero = ((F(0),) * 3,) * 3  # every score 0: every position is in every argmax set
    result = _check_against_reference(_one_head(coords, BilinearScore(zero), {"k"}), seq, True)
    assert result.trace[0].heads[0].argmax == (tuple(range(5)),) * 5


def test_circuit_kernel_bounds() -> None:
    """|add| ≤ Σ, |mul| ≤ Π max(·, 1) (a zero factor does not hide a big partial product), |sign| ≤ 1."""
    coords = ("k",)
    names = score_input_names(coords)

    def kernel(build) -> CircuitKernel:
        b = CircuitBuilder()
        ins = dict(zip(names, b.inputs(names)))
        b.output(build(b, ins["i.k"], ins["j.k"]))
        return CircuitKernel(b.build(), (0,), (0,), 1)

    product = kernel(lambda b, i, j: b.mul(i, j, b.const(0)))
    assert product.bounded([2 ** 30], [2 ** 31]) and not product.bounded([2 ** 31], [2 ** 31])
    total = kernel(lambda b, i, j: b.add(i, j, i, j))
    assert total.bounded([2 ** 60 - 1], [1]) and not total.bounded([2 ** 60], [2 ** 60])
    signed = kernel(lambda b, i, j: b.mul(b.sign(b.mul(i, i)), j, b.const(2 ** 30)))
    assert not signed.bounded([2 ** 31], [1])  # i·i itself is too big
    assert signed.bounded([2 ** 30], [2 ** 31]) and not signed.bounded([2 ** 30], [2 ** 32])
    assert not kernel(lambda b, i, j: b.add(i, b.const(LIMIT))).bounded([0], [0])


def test_constant_and_one_sided_scores() -> None:
    """Scores that read nothing, only i, or only j broadcast over the grid."""
    coords = ("k", "v")
    names = score_input_names(coords)
    seq = [[1, 5], [2, 6], [2, 7], [-1, 8], [0, 9]]
    for build in (lambda b, w: b.const(3), lambda b, w: b.mul(w["i.k"], w["i.k"]),
                  lambda b, w: b.sign(w["j.k"]), lambda b, w: b.add()):
        b = CircuitBuilder()
        w = dict(zip(names, b.inputs(names)))
        b.output(build(b, w))
        t = _one_head(coords, CircuitScore(b.build()), {"k"})
        for use_int64 in (True, False):
            result = _check_against_reference(t, seq, use_int64, block=2)
            assert result.stats.argmax_int64 == int(use_int64)


def test_activation_reuses_values_only_for_equal_inputs() -> None:
    """Many layers of the same activation on positions that settle at different times."""
    rng = random.Random(3)
    circuit = synthetic.random_circuit(rng, 4, 6, 5)
    x = [F(rng.randint(-5, 5), rng.randint(1, 3)) for _ in range(4)]
    rows, positions = synthetic.encode(circuit, x)
    t = synthetic.transformer(6)
    for use_int64 in (True, False):
        with kernels(use_int64):
            result = run_exact(t, rows, trace=True)
        assert [result.outputs[p][3] for p in positions] == synthetic.expected(circuit, x)
        assert result.trace == run_exact_reference(t, rows).trace
        assert result.stats.activation_evaluations < len(rows) * t.n_layers
