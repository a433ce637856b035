"""The upper-bound direction (MATH.md §5): unrolling transformers into FSAC⁰[sign] circuits, and its audit."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from transformer_strategies import HARD, SMALL, transformers
from verified_aat.audit import audit, compare, flatten, size_formula, unroll
from verified_aat.audit import check as audit_check
from verified_aat.circuits.builder import CircuitBuilder
from verified_aat.circuits.evaluate import evaluate, evaluate_gates
from verified_aat.circuits.io import load_circuit
from verified_aat.circuits.ir import Kind
from verified_aat.circuits.measures import CircuitClass, classify, depth
from verified_aat.cli.main import main
from verified_aat.constructions.registry import get_construction
from verified_aat.errors import InputError
from verified_aat.transformer.exact_engine import run_exact
from verified_aat.transformer.spec import load_transformer as load_model
from verified_aat.transformer.model import (CircuitScore, Head, Layer, Pooling, Transformer, activation_input_names,
                                            score_input_names)

ROOT = Path(__file__).resolve().parent.parent
TINY = ROOT / "specs" / "circuits" / "square_multi_edge.circ"
COORDS = ("k", "v")


def _max_key(pooling: Pooling) -> Transformer:
    """One layer, one head: s(x_i, x_j) = j.k (everyone attends to the largest k); output (x.k, h.v)."""
    score = CircuitBuilder("s")
    names = score.inputs(score_input_names(COORDS))
    score.output(names[2])  # j.k
    act = CircuitBuilder("act")
    inputs = act.inputs(activation_input_names(COORDS, ["h"]))
    act.output(inputs[0])   # x.k
    act.output(inputs[3])   # h.v
    return Transformer(COORDS, (Layer((Head("h", CircuitScore(score.build()), pooling),), act.build(), "L1"),),
                       f"max-key-{pooling.value}")


TIE = [[1, 2], [0, 5], [1, 4]]  # k = 1 at positions 0 and 2: a tie


@pytest.mark.parametrize("pooling, pooled_v", [(Pooling.AVERAGE, 3), (Pooling.LEFTMOST, 2), (Pooling.RIGHTMOST, 4)])
def test_hand_built_tie(pooling: Pooling, pooled_v: int) -> None:
    t = _max_key(pooling)
    u = unroll(t, 3)
    values = evaluate_gates(u.circuit, flatten(TIE))
    # by hand: s_ij = k_j = (1, 0, 1) for every i, so M_i = (1, 0, 1): the argmax set {0, 2}
    for i in range(3):
        assert [values[g] for g in u.argmax[0][0][i]] == [1, 0, 1]
    # average: c_i = 2, r_i = Σ_m [c_i = m]/m = 1/2, S_i[v] = 2 + 4 = 6, a_i[v] = 3;
    # leftmost: x_0 (v = 2); rightmost: x_2 (v = 4)
    assert evaluate(u.circuit, flatten(TIE)) == (1, pooled_v, 0, pooled_v, 1, pooled_v)
    assert [values[u.gate_of(1, p, "v")] for p in range(3)] == [pooled_v] * 3
    assert u.trace_map[(0, 1, "v")] == u.gate_of(0, 1, 1)
    assert u.circuit.input_names[:2] == ("x[0].k", "x[0].v")
    assert u.circuit.output_names[-1] == "y[2].v"
    # the exact count by hand (N = 3, d = 2, σ = 0, α = 0):
    # inputs 6 + N²(σ+5) = 45 + 5N²(N−1) = 90 + N²(d+6) = 72 + pooling N·(2d+2) = 18 (average) or N·d = 6
    operations = sum(1 for g in u.circuit.gates if g.kind is not Kind.CONST)
    assert operations == (231 if pooling is Pooling.AVERAGE else 219) == size_formula(t, 3).gates
    assert u.circuit.size <= size_formula(t, 3).size_bound


def test_full_tie_and_single_position() -> None:
    t = _max_key(Pooling.AVERAGE)
    seq = [[0, Fraction(1, 3)], [0, 1], [0, -2], [0, 5]]  # all scores 0: everyone attends to everyone
    assert evaluate(unroll(t, 4).circuit, flatten(seq)) == tuple(flatten(run_exact(t, seq).outputs))
    assert compare(t, unroll(t, 1), [[7, Fraction(-1, 2)]]) is None


def test_compare_detects_a_wrong_circuit() -> None:
    wrong = unroll(_max_key(Pooling.RIGHTMOST), 3)
    problem = compare(_max_key(Pooling.LEFTMOST), wrong, TIE)
    assert problem is not None and "after layer 1" in problem
    assert compare(_max_key(Pooling.LEFTMOST), wrong, [[0, 1], [2, 3], [1, 1]]) is None  # no tie: they agree


def test_softmax_is_refused() -> None:
    t = _max_key(Pooling.SOFTMAX)
    with pytest.raises(InputError, match="softmax"):
        unroll(t, 2)
    with pytest.raises(InputError, match="softmax"):
        audit(t, (2,), 1)


@st.composite
def tied_sequences(draw: st.DrawFn, d: int) -> list[list[Fraction]]:
    """Length 2–4, made of a few distinct vectors (so ties are common), sometimes with zeros."""
    n = draw(st.integers(2, 4))
    distinct = draw(st.lists(st.lists(st.sampled_from(SMALL), min_size=d, max_size=d), min_size=1, max_size=n))
    return [list(distinct[draw(st.integers(0, len(distinct) - 1))]) for _ in range(n)]


@settings(max_examples=70, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_unrolled_equals_exact_engine(data: st.DataObject) -> None:
    t = data.draw(transformers(poolings=HARD, max_layers=2))
    seq = data.draw(tied_sequences(t.dimension))
    u = unroll(t, len(seq))
    assert evaluate(u.circuit, flatten(seq)) == tuple(flatten(run_exact(t, seq).outputs))
    assert compare(t, u, seq) is None  # every layer and every argmax gate as well
    cls, _ = classify(u.circuit)
    assert cls in (CircuitClass.FNC0, CircuitClass.FSAC0)
    assert all(g.fan_in == 2 for g in u.circuit.gates if g.kind is Kind.MUL)
    formula = size_formula(t, len(seq))
    assert u.layer_operations() == formula.per_layer
    assert u.circuit.size <= formula.size_bound


def test_gate_edge_depth_is_independent_of_n() -> None:
    t = get_construction("gate-edge").compile(load_circuit(str(TINY))).transformer
    depths = {depth(unroll(t, n).circuit) for n in (2, 3, 5)}
    assert len(depths) == 1
    report = audit(t, (2, 3, 5), samples=4)
    assert report.ok and report.depth_independent is True
    assert all(row.class_name == "FSAC0[sign]" and row.mismatches == 0 and row.samples == 4 for row in report.rows)
    assert report.to_json()["depth_independent_of_N"] is True


def test_audit_checks_encodings_at_their_length() -> None:
    compiled = get_construction("unique-hard").compile(load_circuit(str(TINY)))
    extra = [compiled.encoding.instantiate([x]) for x in (-2, Fraction(1, 2))]
    report = audit(compiled.transformer, (2,), samples=2, extra=extra)
    assert [row.n for row in report.rows] == [2, compiled.encoding.length]
    assert report.rows[-1].samples == 4 and report.ok


# -- the command line -------------------------------------------------------------------

MODEL = {
    "format": "verified-aat/transformer", "version": 1, "name": "audit-demo", "coordinates": ["k", "v"],
    "functions": {"same_key": ["m = mul -1 j.k", "d = add i.k m", "s = mul -1 d d", "output s"]},
    "layers": [
        {"name": "gather", "heads": [{"name": "h", "pooling": "average", "score": "same_key"}],
         "activation": ["w = add x.v h.v", "output x.k w"]},
        {"name": "top", "heads": [{"name": "t", "pooling": "rightmost", "score": ["output j.k"]},
                                  {"name": "u", "pooling": "leftmost", "score": {"bilinear": {"i.v j.k": "2"}}}],
         "activation": ["w = add x.v t.v u.k", "output x.k w"]},
    ],
}


def _write(tmp_path: Path, name: str, data: object) -> str:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)


def test_cli_good_model_and_output_circuit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = _write(tmp_path, "model.json", MODEL)
    out = tmp_path / "unrolled.circ"
    assert main(["audit", model, "--lengths", "2,3", "--samples", "5", "--output-circuit", str(out), "--n", "3"]) == 0
    text = capsys.readouterr().out
    assert "depth independent of N: yes" in text and "FSAC0[sign]" in text and "all checks passed" in text
    circuit = load_circuit(str(out))
    assert circuit.n_inputs == 6 and len(circuit.outputs) == 6
    assert main(["info", str(out)]) == 0
    assert "FSAC0[sign]" in capsys.readouterr().out
    seq = [[1, 2], [1, Fraction(1, 2)], [0, -1]]
    assert evaluate(circuit, flatten(seq)) == tuple(flatten(run_exact(load_model(model), seq).outputs))


def test_cli_json_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = _write(tmp_path, "model.json", MODEL)
    assert main(["audit", model, "--lengths", "2,4", "--samples", "3", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["ok"] is True and [row["n"] for row in doc["rows"]] == [2, 4]
    assert all(row["mismatches"] == 0 and row["samples"] == 3 for row in doc["rows"])


def test_cli_construction(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", "--construction", "gate-edge", str(TINY), "--lengths", "2,3", "--samples", "2",
                 "--encoded", "1"]) == 0
    assert "all checks passed" in capsys.readouterr().out


def test_cli_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    malformed = _write(tmp_path, "bad.json", '{"format": "verified-aat/transformer", "version": 1,')
    assert main(["audit", malformed]) == 2
    softmax = dict(MODEL, layers=[dict(MODEL["layers"][0], heads=[dict(MODEL["layers"][0]["heads"][0],
                                                                       pooling="softmax")])])
    assert main(["audit", _write(tmp_path, "softmax.json", softmax)]) == 2
    assert "softmax" in capsys.readouterr().err
    model = _write(tmp_path, "model.json", MODEL)
    assert main(["audit", model, "--lengths", "0"]) == 2
    assert main(["audit", model, "--lengths", "two"]) == 2
    assert main(["audit"]) == 2
    assert main(["audit", "--construction", "no-such", str(TINY)]) == 2


def test_cli_mismatch_exits_1(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                              capsys: pytest.CaptureFixture[str]) -> None:
    """An engine that disagrees with the circuit (here: v + 1 everywhere) is reported, exit 1."""
    real = audit_check.ExactRunner.run

    def off_by_one(self, sequence, trace=False, needed=()):  # type: ignore[no-untyped-def]
        result = real(self, sequence, trace, needed)
        outputs = tuple(tuple(v + 1 for v in row) for row in result.outputs)
        return type(result)(outputs, None if result.trace is None else tuple(
            type(lt)(lt.layer, tuple(tuple(v + 1 for v in row) for row in lt.vectors), lt.heads)
            for lt in result.trace), result.stats)

    monkeypatch.setattr(audit_check.ExactRunner, "run", off_by_one)
    assert main(["audit", _write(tmp_path, "model.json", MODEL), "--lengths", "2", "--samples", "2"]) == 1
    out = capsys.readouterr().out
    assert "FAILED" in out and "mismatch" in out
