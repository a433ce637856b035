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
    result = refute(construction.transformer(3), construction, budget_seconds=20)
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
