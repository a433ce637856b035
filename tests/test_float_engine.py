"""The floating-point engine: agreement with the exact engine where floats are exact,
softmax at low temperature, float32, the error table, and the key join (on and off)."""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import synthetic_gate_edge as synthetic
from strategies import circuits
from transformer_strategies import INTEGERS, sequences, transformers
from verified_aat.circuits.builder import CircuitBuilder
from verified_aat.circuits.evaluate import evaluate, evaluate_gates
from verified_aat.circuits.families import build_family
from verified_aat.constructions.binarize import binarize
from verified_aat.constructions.registry import get_construction
from verified_aat.errors import InputError
from verified_aat.symbolic.attention import engine_keys
from verified_aat.transformer import float_engine
from verified_aat.transformer.exact_engine import LayerTrace, run_exact
from verified_aat.transformer.float_engine import FloatRunner, compare_to_exact, evaluate_array, run_float
from verified_aat.transformer.model import (CircuitScore, Head, Layer, Pooling, Transformer,
                                            activation_input_names, score_input_names)

F = Fraction


def _fits(outputs: tuple[tuple[int | Fraction, ...], ...], bound: int = 2**40) -> bool:
    return all(abs(v) < bound for row in outputs for v in row)


def _all_gates_small(t: Transformer, seq: list[list[Fraction]], trace: tuple[LayerTrace, ...],
                     bound: int = 2**50) -> bool:
    """Whether every gate of every score and activation evaluation stays below ``bound``."""
    rows = [list(r) for r in seq]
    for layer, lt in zip(t.layers, trace):
        args = [list(r) for r in rows]
        for head, ht in zip(layer.heads, lt.heads):
            for i, xi in enumerate(rows):
                for xj in rows:
                    if isinstance(head.score, CircuitScore):
                        values = evaluate_gates(head.score.circuit, xi + xj)
                    else:
                        values = [q * a * b for row, a in zip(head.score.matrix, xi) for q, b in zip(row, xj)]
                    if any(abs(v) >= bound for v in values):
                        return False
                chosen = ht.argmax[i]
                args[i] += rows[chosen[0] if head.pooling is Pooling.LEFTMOST else chosen[-1]]
        if any(abs(v) >= bound for a in args for v in evaluate_gates(layer.activation, a)):
            return False
        rows = [list(r) for r in lt.vectors]
    return True


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_float64_equals_exact_on_integer_runs(data: st.DataObject) -> None:
    """Integer constants, integer inputs and unique hard attention keep every value an integer,
    so float64 is exact (as long as values stay small) and ties are decided identically."""
    t = data.draw(transformers(poolings=[Pooling.LEFTMOST, Pooling.RIGHTMOST], constants=INTEGERS))
    seq = data.draw(sequences(t.dimension, INTEGERS))
    exact = run_exact(t, seq, trace=True)
    assume(_all_gates_small(t, seq, exact.trace))  # then every float operation is exact
    result = run_float(t, seq, "float64")
    assert result.outputs.dtype == np.float64
    assert result.outputs.tolist() == [[float(v) for v in row] for row in exact.outputs]


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_float64_close_to_exact_with_average_pooling(data: st.DataObject) -> None:
    """One layer on integer inputs: scores are exact integers, so argmax sets agree; the
    averages are rounded once, and a sign-free activation stays within 1e-9."""
    t = data.draw(transformers(constants=INTEGERS, allow_sign=False, max_layers=1))
    seq = data.draw(sequences(t.dimension, INTEGERS))
    exact = run_exact(t, seq)
    assume(_fits(exact.outputs, 2**20))
    report = compare_to_exact(exact.outputs, run_float(t, seq).outputs, t.coordinates)
    assert report.worst_abs <= 1e-9 * max(1, max(abs(v) for row in exact.outputs for v in row))


def test_synthetic_gate_edge_in_float64() -> None:
    rng = random.Random(3)
    circuit = synthetic.random_circuit(rng, 5, 6, 6)
    x = [rng.randint(-5, 5) for _ in range(5)]
    rows, positions = synthetic.encode(circuit, x)
    t = synthetic.transformer(6)
    exact = run_exact(t, rows).outputs
    floats = run_float(t, rows, "float64").outputs
    report = compare_to_exact(exact, floats, t.coordinates)
    assert report.worst_rel < 1e-9, report.format()
    values = synthetic.expected(circuit, x)
    assert np.allclose([floats[p, 3] for p in positions], [float(v) for v in values], rtol=1e-9, atol=1e-9)


def _key_layer(pooling: Pooling, temperature_scale: int = 1) -> Transformer:
    """s = −(i.k − j.k)²·scale; activation: v ← pooled v, k stays."""
    coords = ("k", "v")
    b = CircuitBuilder("near")
    ins = dict(zip(score_input_names(coords), b.inputs(score_input_names(coords))))
    diff = b.sub(ins["i.k"], ins["j.k"])
    b.output(b.scale(-temperature_scale, b.square(diff)))
    score = CircuitScore(b.build())
    b = CircuitBuilder("take")
    names = activation_input_names(coords, ["h"])
    ins = dict(zip(names, b.inputs(names)))
    b.output(ins["x.k"])
    b.output(ins["h.v"])
    return Transformer(coords, (Layer((Head("h", score, pooling),), b.build()),))


def test_low_temperature_softmax_approaches_hard_average() -> None:
    seq = [[0, 1], [3, 2], [0, 4], [7, 8], [1, -3]]  # keys 0 tie (positions 0, 2); the others are unique
    hard = run_exact(_key_layer(Pooling.AVERAGE), seq).outputs
    assert [row[1] for row in hard] == [F(5, 2), 2, F(5, 2), 8, -3]
    soft = _key_layer(Pooling.SOFTMAX)
    far = run_float(soft, seq, softmax_temperature=1.0).outputs
    assert abs(far[0, 1] - 2.5) > 1e-3  # at temperature 1 the neighbour at key 1 still counts
    for temperature in (1e-2, 1e-3):
        near = run_float(soft, seq, softmax_temperature=temperature).outputs
        assert compare_to_exact(hard, near).worst_abs < 1e-12
    with pytest.raises(InputError, match="temperature must be positive"):
        run_float(soft, seq, softmax_temperature=0.0)


def test_softmax_weights_at_temperature_one() -> None:
    seq = [[0, 1], [1, 3]]
    out = run_float(_key_layer(Pooling.SOFTMAX), seq).outputs
    w = 1 / (1 + np.exp(-1.0))  # own key scores 0, the other −1
    assert out[0, 1] == pytest.approx(w * 1 + (1 - w) * 3, rel=1e-15)
    assert out[1, 1] == pytest.approx(w * 3 + (1 - w) * 1, rel=1e-15)


def test_float_ties_leftmost_rightmost_average() -> None:
    seq = [[0, 1], [5, 2], [0, 4]]
    for pooling, expected in [(Pooling.LEFTMOST, [1, 2, 1]), (Pooling.RIGHTMOST, [4, 2, 4]),
                              (Pooling.AVERAGE, [2.5, 2, 2.5])]:
        assert run_float(_key_layer(pooling), seq).outputs[:, 1].tolist() == expected


def test_float32_breaks_a_tie_that_float64_keeps() -> None:
    """Keys 1 and 1 + 2^-30 differ exactly and in float64, but round to the same float32:
    float32 sees a tie that is not there, and average pooling mixes the two values."""
    seq = [[1, 10], [F(2**30 + 1, 2**30), 20]]
    exact = run_exact(_key_layer(Pooling.AVERAGE), seq).outputs
    f64 = run_float(_key_layer(Pooling.AVERAGE), seq, "float64").outputs
    f32 = run_float(_key_layer(Pooling.AVERAGE), seq, "float32").outputs
    assert [row[1] for row in exact] == [10, 20] and f64[:, 1].tolist() == [10, 20]
    assert f32.dtype == np.float32 and f32[:, 1].tolist() == [15, 15]  # the keys collide: a false tie


def test_evaluate_array_sign_and_constants() -> None:
    b = CircuitBuilder()
    x, y = b.inputs(["x", "y"])
    b.output(b.sign(b.sub(x, y)))
    b.output(b.mul(b.const(F(1, 3)), x))
    b.output(b.add())
    sign, third, zero = evaluate_array(b.build(), [np.array([1.0, 2.0, 3.0]), np.array([[2.0], [2.0]])])
    assert sign.tolist() == [[-1, 0, 1], [-1, 0, 1]]
    assert third.tolist() == pytest.approx([1 / 3, 2 / 3, 1])
    assert zero.tolist() == 0.0


def test_compare_to_exact_table() -> None:
    report = compare_to_exact([[1, F(1, 3)], [0, -2]], np.array([[1.0, 0.3333], [1e-20, -2.0]]), ("a", "b"))
    assert report.max_abs[0] == pytest.approx(1e-20) and report.max_rel[0] > 1e200  # relative to 0
    assert report.max_abs[1] == pytest.approx(1 / 3 - 0.3333)
    assert report.max_rel[1] == pytest.approx((1 / 3 - 0.3333) * 3)
    text = report.format()
    assert "max abs err" in text and text.splitlines()[1].startswith("a")
    with pytest.raises(ValueError, match="shapes differ"):
        compare_to_exact([[1]], np.zeros((2, 1)))


def test_bad_dtype_and_empty_sequence() -> None:
    with pytest.raises(InputError, match="unknown dtype"):
        run_float(_key_layer(Pooling.AVERAGE), [[0, 1]], "float16")
    with pytest.raises(InputError, match="expected a vector of 2 values"):
        run_float(_key_layer(Pooling.AVERAGE), [[0, 1, 2]])
    assert run_float(_key_layer(Pooling.AVERAGE), []).outputs.shape == (0, 2)


# -- the key join in the float engine ------------------------------------------------------------

JOIN_NAMES = ["gate-edge", "gate-edge-dot", "unique-hard", "unique-hard-left", "edge-only", "edge-k"]


def _compiled(circuit, name):  # type: ignore[no-untyped-def]
    construction = get_construction(name)
    circuit = binarize(circuit, sums=construction.bounded_fan_in).circuit
    return construction, circuit, construction.compile(circuit)


@settings(max_examples=60, deadline=None)
@given(circuit=circuits(max_gates=7, max_inputs=3), name=st.sampled_from(JOIN_NAMES), data=st.data())
def test_float_join_and_all_pairs_agree_with_exact(circuit, name, data) -> None:  # type: ignore[no-untyped-def]
    """Float vs exact on compiled circuits, with the join on and off: both within 1e-9 of the exact
    run (small integer inputs, so every argmax set is exact in float64), and with the join every
    head took it (its scores are exact in float64 at these sizes)."""
    construction, circuit, compiled = _compiled(circuit, name)
    xs = data.draw(st.lists(st.integers(-3, 3), min_size=circuit.n_inputs, max_size=circuit.n_inputs))
    seq = compiled.encoding.instantiate(xs)
    t = compiled.transformer
    exact = run_exact(t, seq).outputs
    assume(_fits(exact, 2**20))  # and no tiny value: polarization's (a + b)² − a² − b² cancels 10⁻⁹⁰ to 0 in float64
    assume(all(v == 0 or abs(v) >= Fraction(1, 2**20) for row in exact for v in row))
    keys = engine_keys(construction.score_hints())
    joined = FloatRunner(t, keys).run(seq, "float64")
    pairs = FloatRunner(t, keys, join=False).run(seq, "float64")
    scale = max([1] + [abs(v) for row in exact for v in row])
    for result in (joined, pairs):
        assert compare_to_exact(exact, result.outputs, t.coordinates).worst_abs <= 1e-9 * scale
    assert joined.stats is not None and pairs.stats is not None
    assert {m for _, m in joined.stats.head_methods} == {"join"} and joined.stats.argmax_all_pairs == 0
    assert {m for _, m in pairs.stats.head_methods} == {"all-pairs"} and pairs.stats.argmax_join == 0
    assert np.allclose(joined.outputs, pairs.outputs, rtol=1e-12, atol=1e-12)
    read = compiled.encoding.read(joined.outputs.tolist())
    assert np.allclose(read, [float(v) for v in evaluate(circuit, xs)], rtol=1e-9, atol=1e-9)


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_float_join_on_random_transformers_equals_all_pairs(data: st.DataObject) -> None:
    """Random transformers (decompositions read off their scores, where any): the join path and
    the all-pairs path give the same outputs on integer runs, where floats are exact."""
    t = data.draw(transformers(poolings=[Pooling.LEFTMOST, Pooling.RIGHTMOST], constants=INTEGERS))
    seq = data.draw(sequences(t.dimension, INTEGERS))
    exact = run_exact(t, seq, trace=True)
    assume(_all_gates_small(t, seq, exact.trace))
    keys = engine_keys(None)
    joined = FloatRunner(t, keys).run(seq, "float64").outputs
    assert joined.tolist() == [[float(v) for v in row] for row in exact.outputs]
    assert joined.tolist() == FloatRunner(t, keys, join=False).run(seq, "float64").outputs.tolist()


def test_gate_edge_takes_the_join_and_reuses_it() -> None:
    """A gate-edge circuit of ~2,000 positions: every head joins once per score and keeps its sets
    (the structural columns never change), and no score is evaluated on pairs."""
    circuit = build_family("relu", 200)
    construction = get_construction("gate-edge")
    compiled = construction.compile(circuit)
    seq = compiled.encoding.instantiate([F(k % 7 - 3, 2) for k in range(circuit.n_inputs)])
    runner = FloatRunner(compiled.transformer, engine_keys(construction.score_hints()))
    for dtype in ("float64", "float32"):
        result = runner.run(seq, dtype)
        assert result.stats is not None
        assert dict(result.stats.head_methods) == {"fetch": "join", "gather": "join"}
        assert result.stats.argmax_all_pairs == 0 and result.stats.score_cells == 0
        assert result.stats.argmax_join + result.stats.argmax_reused == compiled.transformer.n_layers
        want = [float(v) for v in evaluate(circuit, [F(k % 7 - 3, 2) for k in range(circuit.n_inputs)])]
        rtol = 1e-12 if dtype == "float64" else 1e-5
        assert np.allclose(compiled.encoding.read(result.outputs.tolist()), want, rtol=rtol, atol=rtol)
    assert runner.run(seq).stats.argmax_join == 0  # type: ignore[union-attr]  # a second run keeps the join


def test_inexact_scores_fall_back_to_all_pairs(monkeypatch: pytest.MonkeyPatch) -> None:
    """float32 cannot hold every score of gate-edge-dot (about 2·id²) past a few thousand ids: there
    the join would not give float32's own argmax sets, so the engine scores all pairs, and says why."""
    circuit = build_family("sum", 3000)
    construction = get_construction("gate-edge-dot")
    compiled = construction.compile(circuit)
    seq = compiled.encoding.instantiate([1] * circuit.n_inputs)
    notices: list[str] = []
    monkeypatch.setattr(float_engine, "NOTICE_POSITIONS", 1000)
    runner = FloatRunner(compiled.transformer, engine_keys(construction.score_hints()), notice=notices.append)
    assert {m for _, m in runner.run(seq, "float64").stats.head_methods} == {"join"}  # type: ignore[union-attr]
    assert not notices
    assert {m for _, m in runner.run(seq, "float32").stats.head_methods} == {"all-pairs"}  # type: ignore[union-attr]
    assert len(notices) == 2 and all("reach 25 bits, more than float32's 24" in m for m in notices)


def test_keys_that_are_not_exact_integers_mean_all_pairs() -> None:
    """A key column holding 1/2 is not an integer: the float engine does not join on it."""
    t = _key_layer(Pooling.AVERAGE)
    keys = engine_keys(None)
    seq = [[0, 1], [F(1, 2), 2], [0, 4]]
    result = FloatRunner(t, keys).run(seq)
    assert result.stats is not None and dict(result.stats.head_methods) == {"h": "all-pairs"}
    integral = FloatRunner(t, keys).run([[0, 1], [1, 2], [0, 4]])
    assert integral.stats is not None and dict(integral.stats.head_methods) == {"h": "join"}
    assert integral.outputs[:, 1].tolist() == [2.5, 2, 2.5]


def test_blocks_of_all_pairs_equal_one_block(monkeypatch: pytest.MonkeyPatch) -> None:
    seq = [[k % 3, k] for k in range(40)]
    whole = run_float(_key_layer(Pooling.AVERAGE), seq).outputs
    monkeypatch.setattr(float_engine, "BLOCK_CELLS", 7 * 40)
    assert run_float(_key_layer(Pooling.AVERAGE), seq).outputs.tolist() == whole.tolist()


def _penalised_layer(pooling: Pooling) -> Transformer:
    """s = −(i.k − j.k)² − j.p; activation: v ← pooled v (k, p stay).  Ties between column keys that
    are not neighbours (keys 0 and 2 with 1 penalised) give sets of several key groups."""
    coords = ("k", "p", "v")
    b = CircuitBuilder("penalised")
    ins = dict(zip(score_input_names(coords), b.inputs(score_input_names(coords))))
    diff = b.sub(ins["i.k"], ins["j.k"])
    b.output(b.sub(b.scale(-1, b.square(diff)), ins["j.p"]))
    score = CircuitScore(b.build())
    b = CircuitBuilder("take")
    names = activation_input_names(coords, ["h"])
    ins = dict(zip(names, b.inputs(names)))
    for name in ("x.k", "x.p", "h.v"):
        b.output(ins[name])
    return Transformer(coords, (Layer((Head("h", score, pooling),), b.build()),))


@settings(max_examples=150, deadline=None)
@given(rows=st.lists(st.tuples(st.integers(-4, 4), st.integers(0, 6), st.integers(-9, 9)), min_size=1, max_size=14),
       pooling=st.sampled_from([Pooling.AVERAGE, Pooling.LEFTMOST, Pooling.RIGHTMOST]))
def test_join_with_penalties_equals_all_pairs(rows, pooling) -> None:  # type: ignore[no-untyped-def]
    t = _penalised_layer(pooling)
    seq = [list(r) for r in rows]
    keys = engine_keys(None)
    joined = FloatRunner(t, keys).run(seq)
    assert joined.stats is not None and dict(joined.stats.head_methods) == {"h": "join"}
    pairs = FloatRunner(t, keys, join=False).run(seq).outputs
    assert np.allclose(joined.outputs, pairs, rtol=1e-15, atol=0)
    assert np.allclose(joined.outputs, np.array([[float(v) for v in r] for r in run_exact(t, seq).outputs]),
                       rtol=1e-15, atol=0)


def test_a_set_of_key_groups_that_are_not_neighbours() -> None:
    seq = [[0, 0, 1], [1, 2, 10], [2, 0, 100], [5, 0, 7]]   # row key 1: keys 0 and 2 cost 1, key 1 costs 2
    for pooling, expected in [(Pooling.AVERAGE, 50.5), (Pooling.LEFTMOST, 1), (Pooling.RIGHTMOST, 100)]:
        result = FloatRunner(_penalised_layer(pooling), engine_keys(None)).run(seq)
        assert result.outputs[1, 2] == expected and result.outputs[3, 2] == 7
        assert result.stats is not None and dict(result.stats.head_methods) == {"h": "join"}
