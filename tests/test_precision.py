"""The float-precision bound (transformer/precision.py): when it fits the mantissa, the float engine's
argmax sets are the exact ones; when it does not, false ties really occur (the bound is not vacuous)."""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import pytest

from verified_aat.circuits.families import build_family
from verified_aat.constructions.registry import get_construction
from verified_aat.transformer.exact_engine import run_exact
from verified_aat.transformer.float_engine import run_float, score_matrix
from verified_aat.transformer.precision import precision


def _exact_mask(score, rows):
    """argmax masks by exact evaluation of the score on every pair (the definition)."""
    from verified_aat.circuits.evaluate import evaluate
    from verified_aat.transformer.model import BilinearScore
    mask = []
    for xi in rows:
        if isinstance(score, BilinearScore):
            s = [sum(q * Fraction(xi[r]) * Fraction(xj[c]) for r, c, q in score.entries()) for xj in rows]
        else:
            s = [evaluate(score.circuit, list(xi) + list(xj))[0] for xj in rows]
        top = max(s)
        mask.append([v == top for v in s])
    return np.array(mask)


def _float_mask(score, rows, dtype):
    s = score_matrix(score, np.array([[float(v) for v in row] for row in rows], dtype=dtype))
    return s == s.max(axis=1, keepdims=True)


def test_key_distance_scores_stay_exact_in_float32_far_beyond_2_to_the_12_ids():
    """gate-edge squares key differences up to 2^44 (rounded in float32), yet every argmax set is exact."""
    construction = get_construction("gate-edge")
    transformer = construction.transformer(1)
    rng = random.Random(7)
    ids = sorted(rng.sample(range(2**22), 60))
    rows = [(rng.choice([-3, -2, -1, 0, 1, 2]), g, g, 0, 0) for g in ids]
    rows += [(-4, rng.choice(ids), v, 0, 0) for v in ids for _ in range(2)]
    needs = precision(transformer, rows, construction.structural)
    assert needs.scores_fit("float32") and needs.warning("float32") is None
    for head in (layer.heads[0] for layer in transformer.layers):
        assert (_float_mask(head.score, rows, np.float32) == _exact_mask(head.score, rows)).all()


def test_dot_product_scores_past_the_bound_really_tie_falsely_in_float32():
    construction = get_construction("gate-edge-dot")
    compiled = construction.compile(build_family("inner-product", 1500))
    rows = compiled.encoding.rows[-300:]  # edges with the largest ids
    needs = precision(compiled.transformer, compiled.encoding.rows, construction.structural)
    assert not needs.scores_fit("float32") and needs.scores_fit("float64")
    warning = needs.warning("float32")
    assert warning is not None and "needs 26" in warning and "float64" in warning
    fetch = compiled.transformer.layers[0].heads[0].score
    exact = _exact_mask(fetch, rows)
    assert (_float_mask(fetch, rows, np.float64) == exact).all()
    assert (_float_mask(fetch, rows, np.float32) != exact).any()


def test_within_the_bound_a_float32_run_of_gate_edge_dot_equals_the_exact_run():
    construction = get_construction("gate-edge-dot")
    circuit = build_family("inner-product", 700)
    compiled = construction.compile(circuit)
    needs = precision(compiled.transformer, compiled.encoding.rows, construction.structural, circuit)
    assert needs.scores_fit("float32") and needs.score_bits == 24
    assert needs.value_magnitude_bits == 12  # 0/1 products < 2^2, a sum of 700 adds bit_length(699) = 10 bits
    xs = [random.Random(3).choice([0, 1]) for _ in range(circuit.n_inputs)]
    sequence = compiled.encoding.instantiate(xs)
    exact = compiled.encoding.read(run_exact(compiled.transformer, sequence).outputs)
    floats = compiled.encoding.read(run_float(compiled.transformer, sequence, "float32").outputs.tolist())
    assert [Fraction(v) for v in floats] == list(exact)


def test_value_bits_follow_the_circuit_and_name_what_rounds_anyway():
    from verified_aat.circuits.builder import CircuitBuilder
    b = CircuitBuilder("odd")
    x, y = b.input("x"), b.input("y")
    p = b.mul(b.mul(x, y), b.mul(x, y))
    b.output(b.add(p, x, b.const(Fraction(1, 3))))
    circuit = b.build()
    compiled = get_construction("gate-edge").compile(circuit)
    needs = precision(compiled.transformer, compiled.encoding.rows, ("op", "a", "b"), circuit, input_bound=1000)
    # |x| ≤ 1000 < 2^10: products of four reach 2^40, the sum of three adds 2 bits: squares need 2·42 + 1 bits
    assert needs.value_magnitude_bits == 42 and needs.value_bits == 85
    assert any("fan-in 3" in item for item in needs.non_dyadic) and any("1/3" in item for item in needs.non_dyadic)


@pytest.mark.parametrize("name", ["gate-edge", "unique-hard", "edge-only", "edge-k"])
def test_compile_prints_the_precision_each_construction_needs(name, capsys, tmp_path):
    from pathlib import Path
    from verified_aat.cli.main import main
    spec = Path(__file__).resolve().parent.parent / "specs" / "circuits" / "compare_two.circ"
    assert main(["compile", str(spec), "-c", name, "--binarize", "-o", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "precision        scores need" in out and "float32 (24): exact argmax" in out and "values need" in out
