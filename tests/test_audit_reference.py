"""The audit's independent reference, the depth formula and the deliberately broken unrollings (issue 10)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from transformer_strategies import HARD, sequences, transformers

from verified_aat.audit import audit, compare, flatten, unroll, unroll_reference
from verified_aat.audit.depth import depth_formula, tree_depth
from verified_aat.audit.mutants import (DEFECTS, HARMLESS, Witness, defective_unroller, find_witness, replay,
                                        unroll_defective)
from verified_aat.audit.reference import interpret, reference_run
from verified_aat.circuits.builder import CircuitBuilder
from verified_aat.circuits.io import load_circuit
from verified_aat.constructions.registry import CONSTRUCTIONS
from verified_aat.errors import InputError
from verified_aat.transformer.exact_engine import run_exact
from verified_aat.transformer.model import (
    CircuitScore,
    Head,
    Layer,
    Pooling,
    Transformer,
    activation_input_names,
    score_input_names,
)

ROOT = Path(__file__).resolve().parent.parent
TINY = ROOT / "specs" / "circuits" / "square_multi_edge.circ"
COORDS = ("k", "v", "w")


def _score(kind: str) -> CircuitScore:
    b = CircuitBuilder(f"s_{kind}")
    x = b.inputs(score_input_names(COORDS))
    if kind == "max":
        b.output(x[3])                                   # j.k: attend to the largest k
    else:
        b.output(b.neg(b.square(b.sub(x[0], x[3]))))     # −(i.k − j.k)²: attend to equal k
    return CircuitScore(b.build())


def multi_head() -> Transformer:
    """Two layers: an average and a leftmost head, then a rightmost head; outputs expose every pooled value."""
    a1 = CircuitBuilder("act1")
    x = a1.inputs(activation_input_names(COORDS, ["avg", "left"]))
    a1.output(x[0])
    a1.output(x[4])   # avg.v
    a1.output(x[7])   # left.v
    a2 = CircuitBuilder("act2")
    y = a2.inputs(activation_input_names(COORDS, ["right"]))
    a2.output(y[0])
    a2.output(y[1])
    a2.output(a2.add(y[2], a2.mul(y[4], y[4], y[4])))  # w + right.v³ (a product of fan-in 3)
    return Transformer(COORDS, (
        Layer((Head("avg", _score("max"), Pooling.AVERAGE), Head("left", _score("max"), Pooling.LEFTMOST)),
              a1.build(), "L1"),
        Layer((Head("right", _score("near"), Pooling.RIGHTMOST),), a2.build(), "L2")), "multi-head")


# -- the reference --------------------------------------------------------------------

@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_reference_agrees_with_exact_engine(data: st.DataObject) -> None:
    t = data.draw(transformers(poolings=HARD, max_layers=3))
    seq = data.draw(sequences(t.dimension, max_len=5))
    run = reference_run(t, seq)
    engine = run_exact(t, seq, trace=True)
    assert run.outputs == tuple(tuple(Fraction(v) for v in row) for row in engine.outputs)
    assert engine.trace is not None
    for mine, theirs in zip(run.layers, engine.trace):
        assert mine.argmax == tuple(head.argmax for head in theirs.heads)


def test_reference_by_hand() -> None:
    t = multi_head()
    seq = [[1, 2, 0], [3, 4, 0], [3, 6, 0], [1, -1, 5]]
    run = reference_run(t, seq)
    # layer 1: every position attends to k = 3 (positions 1, 2): avg.v = 5, left.v = 4
    assert run.layers[0].argmax == (((1, 2),) * 4, ((1, 2),) * 4)
    assert run.layers[0].vectors == tuple((Fraction(k), Fraction(5), Fraction(4)) for k, _, _ in seq)
    # layer 2: positions with equal k; rightmost: 3 for positions 0 and 3, 2 for 1 and 2; w = 4 + 5³
    assert run.layers[1].argmax == (((0, 3), (1, 2), (1, 2), (0, 3)),)
    assert run.outputs[0] == (1, 5, 129)
    b = CircuitBuilder("c")
    a, c = b.inputs(["a", "c"])
    b.output(b.sign(b.sub(a, c)))
    b.output(b.add())
    assert interpret(b.build(), [Fraction(1), Fraction(3)]) == [-1, 0]
    with pytest.raises(InputError):
        reference_run(t, [])


def test_compare_uses_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    """A wrong reference is reported even when the exact engine agrees with the circuit."""
    from verified_aat.audit import check
    t = multi_head()
    u = unroll(t, 3)
    seq = [[1, 2, 0], [3, 4, 0], [3, 6, 0]]
    assert compare(t, u, seq) is None
    real = check.reference_run

    def shifted(transformer: Transformer, sequence: list[list[Fraction]]):  # type: ignore[no-untyped-def]
        run = real(transformer, sequence)
        last = run.layers[-1]
        wrong = type(last)(tuple(tuple(v + 1 for v in row) for row in last.vectors), last.argmax)
        return type(run)(run.inputs, run.layers[:-1] + (wrong,))

    monkeypatch.setattr(check, "reference_run", shifted)
    problem = compare(t, u, seq)
    assert problem is not None and "reference" in problem and "after layer 2" in problem


# -- depth as a formula -----------------------------------------------------------------

def test_tree_depth() -> None:
    assert tree_depth([0]) == 0 and tree_depth([0, 0]) == 1 and tree_depth([0, 0, 0]) == 2
    assert tree_depth([5, 0, 0, 0]) == 7 and tree_depth([0, 0, 0, 0]) == 2


@pytest.mark.parametrize("name", sorted(CONSTRUCTIONS))
def test_depth_formula_for_every_construction(name: str) -> None:
    t = CONSTRUCTIONS[name].compile(load_circuit(str(TINY))).transformer
    formula = depth_formula(t)
    assert [unroll(t, n).flat.measures().depth for n in (2, 3, 4)] == [formula.depth] * 3
    assert unroll(t, 1).flat.measures().depth < formula.depth   # N = 1: the sums over j′ ≠ j are empty
    assert len(formula.per_layer) == t.n_layers and formula.depth == max(formula.per_layer)


def test_depth_formula_multi_head() -> None:
    t = multi_head()
    formula = depth_formula(t)
    # layer 1: s = 0 (j.k), M = 10; average a.v = 1 + max(2 + 10, 18) = 19; leftmost a.v = 2 + 16 = 18
    assert formula.argmax[0] == (10, 10) and formula.coordinates[1] == (0, 19, 18)
    # layer 2: s = 4 (i.k + (−1)·j.k, its square, times −1), M = 14; rightmost right.v = 2 + max(20, 19) = 22;
    # w = w + right.v³ (binary tree: 23, then 24), one add: 25
    assert formula.argmax[1] == (14,) and formula.coordinates[2] == (0, 19, 25) and formula.depth == 25
    assert [unroll(t, n).flat.measures().depth for n in (2, 3, 5)] == [formula.depth] * 3
    assert unroll(t, 1).flat.measures().depth == 18 != formula.depth
    report = audit(t, (1, 2, 3), samples=4)
    assert report.ok and [row.formula_depth for row in report.rows] == [None, formula.depth, formula.depth]
    assert all(row.depth_ok for row in report.rows)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(transformers(poolings=HARD, max_layers=3))
def test_depth_formula_on_random_transformers(t: Transformer) -> None:
    formula = depth_formula(t)
    assert unroll(t, 2).flat.measures().depth == formula.depth == unroll(t, 3).flat.measures().depth


# -- broken unrollings ----------------------------------------------------------------------

@pytest.mark.parametrize("defect", sorted(DEFECTS))
def test_each_defect_is_caught_with_a_replayed_witness(defect: str) -> None:
    t = multi_head()
    witness = find_witness(t, defect)
    assert isinstance(witness, Witness) and witness.defect == defect
    assert witness.circuit_outputs != witness.reference_outputs
    assert replay(t, witness)
    # the default unrolling agrees with the reference on the very same sequence
    honest = unroll(t, witness.n)
    assert compare(t, honest, witness.sequence) is None
    assert tuple(honest.flat.evaluator.run(flatten(witness.sequence)).take(honest.flat.outputs)) == \
        witness.reference_outputs
    # and the audit as it runs today fails on the defective unrolling, with mismatches
    report = audit(t, (2, 3), samples=20, unroller=defective_unroller(defect))
    assert not report.ok and any(row.mismatches for row in report.rows)
    assert audit(t, (2, 3), samples=20).ok


@pytest.mark.parametrize("name", ["gate-edge", "unique-hard"])
def test_defects_on_compiled_constructions(name: str) -> None:
    """On a compiled T_K the defects that touch its pooling rule are caught too."""
    t = CONSTRUCTIONS[name].compile(load_circuit(str(TINY))).transformer
    relevant = (["gt-as-ge", "swapped-compare", "missing-reciprocal", "count-off-by-one"] if name == "gate-edge"
                else ["gt-as-ge", "swapped-compare", "dropped-j-ne-j"])
    for defect in relevant:
        witness = find_witness(t, defect, lengths=(3,), samples=8)
        assert witness is not None and replay(t, witness), defect


def test_harmless_variant_is_not_a_defect() -> None:
    """Σ over all j′ including j: gt(s, s) = 0, so the circuit is still right (only its size changes)."""
    t = multi_head()
    for name in HARMLESS:
        assert find_witness(t, name) is None
        report = audit(t, (2, 3), samples=20, unroller=defective_unroller(name))
        assert all(row.mismatches == 0 for row in report.rows)


def test_default_unrolling_is_unchanged_and_unknown_defects_refused() -> None:
    t = multi_head()
    a, b = unroll(t, 3), unroll_reference(t, 3)
    assert a.flat.kinds.tolist() == b.flat.kinds.tolist() and a.flat.argv.tolist() == b.flat.argv.tolist()
    with pytest.raises(InputError, match="unknown defect"):
        unroll_defective(t, 2, "no-such")


def test_cli_defect_option(capsys: pytest.CaptureFixture[str]) -> None:
    from verified_aat.cli.main import main
    base = ["audit", "-c", "gate-edge", str(TINY), "--lengths", "2,3", "--samples", "6"]
    assert main(base) == 0
    assert "= measured" in capsys.readouterr().out
    assert main(base + ["--defect", "gt-as-ge"]) == 1
    assert "mismatch" in capsys.readouterr().out
    assert main(base + ["--defect", "no-such"]) == 2
    assert "--defect: unknown defect" in capsys.readouterr().err


@pytest.mark.parametrize("matrix", [((0, 0), (0, 0)), ((2, 0), (0, 1))])
def test_depth_formula_bilinear_and_wide_products(matrix: tuple[tuple[int, int], ...]) -> None:
    """An all-zero Q is an empty sum (depth 1); a product of fan-in 3 over mixed depths is a binary tree."""
    from verified_aat.transformer.model import BilinearScore
    coords = ("a", "b")
    act = CircuitBuilder("act")
    x = act.inputs(activation_input_names(coords, ["h", "g"]))
    act.output(act.mul(x[2], x[5], x[0]))
    act.output(act.sign(x[3]))
    q = BilinearScore(tuple(tuple(Fraction(v) for v in row) for row in matrix))
    layer = Layer((Head("h", q, Pooling.AVERAGE), Head("g", q, Pooling.RIGHTMOST)), act.build())
    t = Transformer(coords, (layer, layer))
    assert [unroll(t, n).flat.measures().depth for n in (2, 3)] == [depth_formula(t).depth] * 2
