"""A false schematic lemma becomes a replayed witness, whatever fan-in, id or value it needs (issue 20).

The held-out wrong documents in ``tests/data/constructions/held-out/`` are each wrong only far from
small circuits with small values — an add of fan-in ≥ 65, a source id ≥ 100, an operand mean above
10³⁰, a sign argument in (−10⁻⁴¹, 0) — where the old search over small candidate circuits answered
unknown.  The lemma's model names the fan-in, the ids and the values; the circuit built from it is
replayed by the exact engine, and the test replays it once more on its own."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from verified_aat.circuits.evaluate import evaluate
from verified_aat.constructions.interpreted import DocumentConstruction
from verified_aat.schematic import prove_construction
from verified_aat.schematic.witness import candidates, lemma_model
from verified_aat.symbolic.attention import engine_keys
from verified_aat.transformer.exact_engine import run_exact

HELD_OUT = Path(__file__).resolve().parent / "data" / "constructions" / "held-out"


def _refuted(name: str):  # type: ignore[no-untyped-def]
    construction = DocumentConstruction.load(HELD_OUT / f"{name}.json")
    result = prove_construction(construction, witness_budget=30.0)
    assert result.status == "refuted", result.problems
    circuit, cx = result.refutation.circuit, result.refutation.counterexample
    assert cx.rational
    T = construction.transformer(max(1, _depth(circuit)))
    encoding = construction.encode(circuit)
    xs = [Fraction(x) for x in cx.inputs]
    assert encoding.read(run_exact(T, encoding.instantiate(xs)).outputs) != evaluate(circuit, xs)
    return circuit, xs


def _depth(circuit) -> int:  # type: ignore[no-untyped-def]
    from verified_aat.circuits.measures import measure
    return measure(circuit).depth


def test_an_add_code_capped_at_64_is_refuted_by_an_add_of_fan_in_65():
    circuit, _ = _refuted("gate-edge-cap64")
    fan_ins = [len(g.args) for g in circuit.gates if g.kind.value == "add"]
    assert fan_ins == [65] and circuit.n_inputs == 1  # the smallest: one input, 65 times


def test_a_clip_at_1e30_is_refuted_by_a_mean_above_1e30():
    _, xs = _refuted("gate-edge-clip-1e30")
    assert max(abs(x) for x in xs) > 10 ** 30


def test_a_sign_wrong_only_near_zero_is_refuted_by_a_tiny_negative_input():
    _, xs = _refuted("gate-edge-tiny-sign")
    assert len(xs) == 1 and -Fraction(1, 10 ** 41) <= xs[0] < 0  # sign(x + 10⁻⁴¹) is 0 there, sign(x) is −1


def test_an_encoding_wrong_only_for_large_ids_is_refuted_by_a_padded_circuit():
    circuit, _ = _refuted("gate-edge-src100")
    assert len(circuit.gates) > 100


def test_the_models_fan_in_and_ids_are_realised_by_the_candidates():
    model = {"i_k": Fraction(130, 2), "i_g": Fraction(7), "m_val": Fraction(-3, 4)}
    built = list(candidates(model))
    names = [c.name for c, _ in built]
    assert "add-fan-in-65-repeated" in names and "add-fan-in-65" in names and "mul-at-id-9" in names
    for circuit, inputs in built:
        assert all(len(xs) == circuit.n_inputs for xs in inputs[:1])
    repeated = next(c for c, _ in built if c.name == "add-fan-in-65-repeated")
    assert list(evaluate(repeated, [Fraction(-3, 4)])) == [Fraction(-195, 4)]


def test_a_true_lemma_has_no_model():
    assert lemma_model("(declare-const x Real)(assert (not (>= (* x x) 0.0)))(check-sat)") is None
    assert lemma_model("(declare-const x Real)(assert (> x 3.0))(check-sat)") == {"x": Fraction(4)}


@pytest.mark.parametrize("name", ["gate-edge", "edge-k"])
def test_a_correct_construction_is_still_proved(name):
    assert prove_construction(name).status == "proved"


@pytest.mark.parametrize("name, K", [("gate-edge-tiny-sign", 2), ("gate-edge-clip-1e30", 3)])
def test_refute_turns_a_false_lemma_of_an_edited_transformer_into_a_witness(name, K):
    """`refute MODEL -c gate-edge` with a transformer that is wrong only far from small values: the lemma's
    model supplies the value, the exact engine replays it (the old search over small values found nothing)."""
    import verified_aat as va
    from verified_aat.refutation.refute import refute as search_only

    T = DocumentConstruction.load(HELD_OUT / f"{name}.json").transformer(K)
    found = va.refute(T, "gate-edge", budget=20)
    assert found.counterexample is not None and found.counterexample.rational
    C, xs = found.circuit, [Fraction(x) for x in found.counterexample.inputs]
    encoding = va.construction("gate-edge").encode(C)
    assert encoding.read(run_exact(T, encoding.instantiate(xs)).outputs) != evaluate(C, xs)
    assert search_only(T, va.construction("gate-edge"), budget_seconds=5).counterexample is None


def test_refute_of_a_correct_transformer_finds_nothing():
    import verified_aat as va

    assert va.refute(va.construction("gate-edge").transformer(2), "gate-edge", budget=5).counterexample is None


def test_a_witness_from_a_large_model_fan_in_is_bisected_down():
    """A model may name fan-in 1000 where 65 already fails: the witness is made smaller by exact replays."""
    from verified_aat.schematic.witness import witness_from_models

    construction = DocumentConstruction.load(HELD_OUT / "gate-edge-cap64.json")
    found = witness_from_models(construction.transformer(1), construction, [{"i_k": Fraction(1000),
                                                                             "m_val": Fraction(1)}])
    assert found.circuit is not None and found.circuit.name == "add-fan-in-65-repeated"
    assert [len(g.args) for g in found.circuit.gates if g.kind.value == "add"] == [65]


def test_an_edit_wrong_only_at_mean_7_3_is_refuted_from_the_lemma():
    import verified_aat as va

    T = DocumentConstruction.load(HELD_OUT / "gate-edge-at-7-3.json").transformer(1)
    found = va.refute(T, "gate-edge", budget=20)
    assert found.counterexample is not None
    xs = [Fraction(x) for x in found.counterexample.inputs]
    assert sum(xs) / len(xs) == Fraction(7, 3)
    _, xs2 = _refuted("gate-edge-at-7-3")
    assert Fraction(7, 3) in xs2


@pytest.mark.parametrize("name", ["edge-k-cap64", "edge-only-cap64"])
def test_an_edge_layout_capped_at_64_is_refuted_by_one_add_of_fan_in_65(name):
    circuit, _ = _refuted(name)
    assert [len(g.args) for g in circuit.gates if g.kind.value == "add"] == [65] and circuit.n_inputs == 1


def test_an_edge_layout_wrong_only_for_a_mul_id_of_100_is_refuted_by_a_padded_circuit():
    circuit, _ = _refuted("edge-only-src100")
    muls = [g for g, gate in enumerate(circuit.gates) if gate.kind.value == "mul"]
    assert muls and max(muls) >= 100 and len(muls) == 1


def test_a_witness_too_large_to_replay_in_the_budget_is_not_built():
    """An edit wrong only for an edge out of gate 2²⁰ + 1: its witness needs ~10⁶ padding gates, whose replay
    takes about 25 s.  Within a small budget no such candidate is built, and the answer is never proved."""
    model = {"i_u": Fraction(2 ** 20 + 1), "y": Fraction(1)}
    assert not any("-at-id-" in c.name for c, _ in candidates(model, max_gates=10 ** 5))
    near = {"i_u": Fraction(5_000), "y": Fraction(1)}  # within the cut: built, with the id the model names
    assert next(c.size for c, _ in candidates(near, max_gates=10 ** 5) if "-at-id-" in c.name) == 5_003
    construction = DocumentConstruction.load(HELD_OUT / "gate-edge-src-2p20.json")
    result = prove_construction(construction, witness_budget=10.0)
    assert result.status == "unknown"


def test_an_edge_layout_wrong_only_past_id_2_to_the_20_is_refuted_by_a_padded_circuit():
    """The same edit with the default budget: the witness is 2²⁰ + 2 input gates and one add reading gate
    2²⁰ + 1, replayed by a settled run with the key join (only settled values are built); the full run
    (with the key join, no forgetting) confirms the mismatch on its own."""
    construction = DocumentConstruction.load(HELD_OUT / "gate-edge-src-2p20.json")
    result = prove_construction(construction, witness_budget=120.0)
    assert result.status == "refuted", result.problems
    circuit, cx = result.refutation.circuit, result.refutation.counterexample
    ops = [gate for gate in circuit.gates if gate.kind.value != "input"]
    assert len(ops) == 1 and 2 ** 20 + 1 in ops[0].args and circuit.size <= 2 ** 20 + 8
    assert "the other" in cx.report() and len(cx.report().splitlines()) < 20  # a short report of 10⁶ inputs
    T = construction.transformer(1)
    encoding = construction.encode(circuit)
    xs = [int(x) for x in cx.inputs]
    full = run_exact(T, encoding.instantiate(xs), keys=engine_keys(construction.score_hints()))
    assert not full.stats.settled and encoding.read(full.outputs) != evaluate(circuit, xs)


def test_prove_construction_refutes_the_2_to_the_20_edit_from_the_command_line(capsys):
    """Exit 1 with the default budget, and a report of a few lines although the witness has 10⁶ inputs."""
    from verified_aat.cli.main import main
    assert main(["prove-construction", str(HELD_OUT / "gate-edge-src-2p20.json")]) == 1
    out = capsys.readouterr().out
    assert "result       REFUTED" in out and "g1048579 = add x1048577 x1048578" in out
    assert "the other 1,048,577 inputs = 0" in out and len(out.splitlines()) < 40
