"""unique-hard-left / unique-hard-right: the paper's one tie-breaking rule per transformer, dimension 4.

Certified and checked on real circuits; with both heads reading slot 0 the transformer is wrong and
certify refutes it with a replayed witness, while a slot penalty of 1 instead of ½ is harmless (only
fan-in-2 gates read the second head, and there its maximum is unique either way) and is proved; the
kernel states the slot-coded encoding itself.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from checking import check as check_certificate
from verified_aat.certificates.document import build_certificate
from verified_aat.circuits.builder import CircuitBuilder
from verified_aat.circuits.evaluate import evaluate
from verified_aat.circuits.io import load_circuit
from verified_aat.constructions.binarize import binarize
from verified_aat.constructions.gadgets import equals_indicator, key_distance_score
from verified_aat.constructions.registry import get_construction
from verified_aat.constructions.unique_hard_rule import UniqueHardOneRule, _is_edge
from verified_aat.circuits.builder import CircuitBuilder as _Builder
from verified_aat.symbolic.certify import certify
from verified_aat.transformer.exact_engine import run_exact
from verified_aat.transformer.model import CircuitScore, Pooling, score_input_names

SPECS = Path(__file__).resolve().parent.parent / "specs" / "circuits"
RULES = {"unique-hard-left": Pooling.LEFTMOST, "unique-hard-right": Pooling.RIGHTMOST}


def _probe():
    """Products of distinct operands (x·y, y·x), a fan-in-1 add and a sign: a slot mix-up changes outputs."""
    b = CircuitBuilder("probe")
    x, y = b.input("x"), b.input("y")
    xy = b.mul(x, y)
    yx2 = b.mul(y, b.add(x, x))
    single = b.add(xy)
    for out in (xy, yx2, single, b.sign(b.add(yx2, b.neg(x)))):
        b.output(out)
    return b.build()


@pytest.mark.parametrize("name", sorted(RULES))
def test_one_rule_for_every_head_dimension_four_and_two_k_layers(name):
    compiled = get_construction(name).compile(_probe(), 5)
    t = compiled.transformer
    assert {h.pooling for layer in t.layers for h in layer.heads} == {RULES[name]}
    assert t.dimension == 4 and t.n_layers == 10
    # the slot is in the edge code: 6 for argument slot 0, 7 for slot 1, as the kernel states it
    codes = {role.slot: row[0] for role, row in zip(compiled.encoding.roles, compiled.encoding.rows)
             if role.kind == "edge"}
    assert codes == {0: 6, 1: 7}


@pytest.mark.parametrize("name", sorted(RULES))
@pytest.mark.parametrize("source", ["mixed_depth6.circ", "majority_5.circ", "square_multi_edge.circ"])
def test_certified_and_accepted_by_the_kernel(name, source):
    construction = get_construction(name)
    circuit = binarize(load_circuit(str(SPECS / source)), sums=construction.bounded_fan_in).circuit
    result = certify(circuit, construction)
    assert result.status == "proved", result.problems
    doc = build_certificate(result)
    assert check_certificate(doc).accepted
    doc["construction"] = "unique-hard"  # the mixed-rule encoding has one edge code: the hash no longer matches
    assert not check_certificate(doc).accepted


class _PenaltyOne(UniqueHardOneRule):
    """The slot penalty 1 instead of ½: a fan-in-1 gate's single edge then ties, in the second head, with the
    gate itself and with edges into its neighbours — harmless, because a fan-in-1 gate reads the first head only."""

    def _gather_score(self, avoid_slot: int) -> CircuitScore:
        b = _Builder("score-b")
        w = {n: b.input(n) for n in score_input_names(self.coordinates)}
        is_gate = b.add(b.const(1), b.neg(_is_edge(b, w["j.op"])))
        penalty = b.add(is_gate, equals_indicator(b, w["j.op"], 6 + avoid_slot))
        b.output(key_distance_score(b, w["i.b"], w["j.b"], penalty), "score")
        return CircuitScore(b.build())


class _BothSlotZero(UniqueHardOneRule):
    """Both gather heads read argument slot 0: a product of distinct operands becomes a square."""

    def _gather_score(self, avoid_slot: int) -> CircuitScore:
        return super()._gather_score(1)


@pytest.mark.parametrize("rule", [Pooling.LEFTMOST, Pooling.RIGHTMOST], ids=lambda r: r.value)
def test_a_harmless_penalty_change_is_proved(rule):
    result = certify(_probe(), _PenaltyOne(rule))
    assert result.status == "proved", result.problems
    assert check_certificate(build_certificate(result)).accepted


@pytest.mark.parametrize("rule", [Pooling.LEFTMOST, Pooling.RIGHTMOST], ids=lambda r: r.value)
def test_both_heads_on_slot_zero_is_refuted_with_a_replayed_witness(rule):
    construction = _BothSlotZero(rule)
    circuit = _probe()
    result = certify(circuit, construction)
    assert result.status == "refuted", result.problems
    witness = result.counterexample
    compiled = construction.compile(circuit)
    outputs = run_exact(compiled.transformer, compiled.encoding.instantiate(list(witness.inputs))).outputs
    assert tuple(compiled.encoding.read(outputs)) == witness.actual
    assert tuple(evaluate(circuit, list(witness.inputs))) == witness.expected != witness.actual


def test_exact_runs_agree_with_the_circuit_on_c17_like_inputs():
    circuit = _probe()
    for name in RULES:
        compiled = get_construction(name).compile(circuit)
        for xs in ([Fraction(2), Fraction(-3)], [Fraction(1, 2), Fraction(5)], [Fraction(0), Fraction(7, 3)]):
            got = compiled.encoding.read(run_exact(compiled.transformer, compiled.encoding.instantiate(xs)).outputs)
            assert tuple(got) == tuple(evaluate(circuit, xs))
