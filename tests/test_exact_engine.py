"""The exact engine against the plain N² reference, hand-computed runs, and the speed-ups' soundness."""

from __future__ import annotations

import random
import time
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import synthetic_gate_edge as synthetic
from transformer_strategies import sequences, transformers
from verified_aat.circuits.builder import CircuitBuilder
from verified_aat.errors import InputError
from verified_aat.transformer.exact_engine import read_inputs, run_exact, run_exact_reference
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
    with pytest.raises(InputError, match="expected a vector of 1 values, got 2"):
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


@pytest.mark.slow
def test_speed_1300_positions_48_layers() -> None:
    """~1,300 positions, 48 layers, 383-gate activations: well under 30 s (generous bound here)."""
    rng = random.Random(1)
    circuit = synthetic.random_circuit(rng, 8, 24, 20)
    x = [F(rng.randint(-9, 9), rng.randint(1, 4)) for _ in range(8)]
    rows, positions = synthetic.encode(circuit, x)
    t = synthetic.transformer(24, activation_size=383)
    assert 1200 <= len(rows) <= 1500 and t.layers[0].activation.size == 383 and t.n_layers == 48
    start = time.perf_counter()
    result = run_exact(t, rows)
    elapsed = time.perf_counter() - start
    values = synthetic.expected(circuit, x)
    assert [result.outputs[p][3] for p in positions] == values
    assert result.stats.argmax_reused == 46
    assert elapsed < 60, f"exact engine took {elapsed:.1f} s"
