"""refute: a small circuit and a replayed input for every wrong construction."""

import pytest

import mutants
from verified_aat.circuits.evaluate import evaluate
from verified_aat.cli.main import main
from verified_aat.constructions.registry import get_construction
from verified_aat.refutation.refute import refute
from verified_aat.transformer.exact_engine import run_exact
from verified_aat.transformer.spec import save_transformer


@pytest.mark.parametrize("mutant", [m for m in mutants.WRONG if m is not mutants.MergedMultiEdges],
                         ids=lambda m: m.__name__)
def test_every_wrong_transformer_is_refuted_on_a_small_circuit(mutant):
    wrong = mutant()
    construction = get_construction(wrong.name)
    result = refute(wrong.transformer(2), construction, budget_seconds=60)
    assert result.counterexample is not None, f"tried {result.circuits_tried} circuits"
    assert result.circuit.size <= 12
    enc = construction.encode(result.circuit)
    xs = list(result.counterexample.inputs)
    got = enc.read(run_exact(wrong.transformer(2), enc.instantiate(xs)).outputs)
    assert tuple(got) != tuple(evaluate(result.circuit, xs))


def test_correct_transformer_is_not_refuted():
    construction = get_construction("gate-edge")
    result = refute(construction.transformer(3), construction, budget_seconds=8)
    assert result.counterexample is None and result.circuits_tried >= 15


def test_refute_command(tmp_path, capsys):
    spec = tmp_path / "wrong.json"
    save_transformer(mutants.MissingRescaling().transformer(2), spec)
    assert main(["refute", str(spec), "--construction", "gate-edge"]) == 1
    out = capsys.readouterr().out
    assert "refuted after" in out and "counterexample" in out and "add" in out
    good = tmp_path / "good.json"
    save_transformer(get_construction("gate-edge").transformer(2), good)
    assert main(["refute", str(good), "--budget", "5"]) == 0  # its schematic lemmas hold: nothing to find
    out = capsys.readouterr().out
    assert "no counterexample exists" in out and "result       PROVED" in out and "depth ≤ 2" in out
    one = tmp_path / "one.circ"
    one.write_text("circuit one\ninput x\ninput y\np = mul x y\ns = add p x x\noutput s\n")
    assert main(["refute", str(good), str(one), "--budget", "5"]) == 3  # one circuit given: a search, never a proof
    assert "not a proof" in capsys.readouterr().out
    assert main(["refute", str(good), "--construction", "unique-hard"]) == 2


def test_the_candidates_cover_the_shapes_an_encoding_may_get_wrong():
    """Each shape a wrong encoding was seen to fail on only there (fuzzing, stop 37): a mul of fan-in 3, an
    operand repeated apart, an input after a gate in id order, ids past 32; all distinct, in the class IR."""
    from verified_aat.circuits.ir import Kind
    from verified_aat.refutation.candidates import candidate_circuits

    circuits = list(candidate_circuits())
    assert len({c.name for c in circuits}) == len(circuits)

    def has(test) -> bool:  # type: ignore[no-untyped-def]
        return any(test(c) for c in circuits)

    gates = lambda c: list(enumerate(c.gates))  # noqa: E731
    assert has(lambda c: any(g.kind is Kind.MUL and len(g.args) == 3 for _, g in gates(c)))
    for kind in (Kind.ADD, Kind.MUL):
        assert has(lambda c: any(g.kind is kind and len(set(g.args)) < len(g.args) and g.args[0] == g.args[-1]
                                 and g.args[0] != g.args[1] for _, g in gates(c)))
    assert has(lambda c: any(g.kind is Kind.INPUT and any(h.kind not in (Kind.INPUT,) for h in c.gates[:i])
                             for i, g in gates(c)))
    assert has(lambda c: any(g.kind is not Kind.INPUT and max(g.args, default=0) >= 32 for _, g in gates(c)))


def test_wrong_documents_the_fuzzer_left_unknown_are_refuted():
    """Two of 16 wrong documents that prove-construction left *unknown* in a fuzz run (2026-12-06): a row holding
    min(c, 1) (wrong only where a constant above 1 is read out), and T_3 of unique-hard with two layers swapped
    (wrong only at depth 3, where a sum reads a product before it is there).  The candidates now read out
    constants above 1 and cancel x + (−1)·x, and random circuits come within the fixed K's depth too."""
    from pathlib import Path

    from verified_aat.constructions.registry import resolve_construction
    from verified_aat.schematic import prove_construction
    from verified_aat.transformer.model import Transformer

    document = resolve_construction(str(Path(__file__).parent / "data/constructions/gate-edge-dot-min-c.json"))
    result = prove_construction(document, depth_bound=1, timeout_ms=5000)
    found = result.refutation
    assert result.status == "refuted" and (found.first_found or found.circuit).name == "constants"  # maybe shrunk
    construction = get_construction("unique-hard")
    layers = construction.transformer(3).layers  # fetch, gather three times; swapped: F G F F G G
    swapped = Transformer(construction.transformer(3).coordinates, layers[:3] + (layers[4], layers[3], layers[5]),
                          "swapped")
    result = prove_construction(construction, depth_bound=3, transformer=swapped, timeout_ms=5000)
    assert result.status == "refuted", result.problems
    circuit, xs = result.refutation.circuit, list(result.refutation.counterexample.inputs)
    enc = construction.encode(circuit)
    assert tuple(enc.read(run_exact(swapped, enc.instantiate(xs)).outputs)) != tuple(evaluate(circuit, xs))
