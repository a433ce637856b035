"""S12d: a lemma the kernel's normal form and proof objects leave open is evaluated exactly at seeded rational points
before any solver is asked; a point where every assertion holds rejects it (``kernel/countermodel.py``, reject-only).

Found by random single-gate edits of each construction's T, forged with the kernel's own derivation, under a solver
that answers unsat to everything: 155 of about 2,000 edits were ACCEPTED, most through a false key-decomposition
lemma (the defence computes attention from the kernel's argmax sets, which that lemma justifies)."""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mutants
from netlist_helpers import SHARED
from forge import Forgery, forge, verdict
from test_no_solver_trust import VARS, _lemma, _show, _value, terms
from verified_aat.certificates.kernel_form import transformer_form
from verified_aat.constructions.registry import get_construction
from verified_aat.kernel.countermodel import find_countermodel
from verified_aat.kernel.identity import decide


def _edited(construction: str, circuit: Any, function: int, gate: int, before: list, after: list) -> dict[str, Any]:
    T = transformer_form(get_construction(construction).compile(circuit).transformer)
    edited = copy.deepcopy(T)
    assert edited["functions"][function]["gates"][gate] == before
    edited["functions"][function]["gates"][gate] = after
    return edited


# (construction, circuit, function, gate, honest gate, edit): each ACCEPTED under the lying solver before S12d
EDITS = [
    # the fetch score's op code -6 made -12: the key lemma fails only where an op is 6 or 12 (the lemma's numbers)
    ("unique-hard", mutants.sign_circuit, 0, 8, ["const", "-6"], ["const", "-12"]),
    # a gather head's product made a sign: its key lemma fails on an open set
    ("gate-edge", mutants.sign_circuit, 2, 19, ["mul", [14, 13]], ["sign", [14]]),
    # the gather score's (op - 6)^2 made (op - 6)(-6): the key lemma fails where exactly one op is above 6
    ("unique-hard", mutants.probe_fnc_circuit, 2, 10, ["mul", [9, 9]], ["mul", [9, 8]]),
    # unique-hard-left's second score: a product made a sum
    ("unique-hard-left", mutants.probe_fnc_circuit, 3, 26, ["mul", [15, 25]], ["add", [15, 25]]),
]


@pytest.mark.parametrize("construction, circuit, function, gate, before, after", EDITS,
                         ids=[e[0] for e in EDITS])
@pytest.mark.parametrize("trust", [True, False], ids=["solver-trust", "no-solver-trust"])
def test_a_lying_solver_does_not_get_a_false_lemma_past_exact_evaluation(construction, circuit, function, gate, before,
                                                                         after, trust, unsat_to_everything):
    C = circuit()
    doc = forge(Forgery(C, _edited(construction, C, function, gate, before, after), construction=construction))
    report = verdict(doc, jobs=1, solver_trust=trust)
    assert report.outcome == "rejected", (report.unchecked, report.reasons)
    assert report.rejections[0].check == "solvers" and "exact evaluation, S12d" in str(report.rejections[0])
    honest = verdict(forge(Forgery(C, construction=construction)), jobs=1, solver_trust=trust)
    assert honest.outcome == "accepted", honest.reasons


@settings(max_examples=300, deadline=None)
@given(terms, terms)
def test_a_countermodel_is_a_point_where_the_two_sides_differ(lhs, rhs):
    """Whatever point it reports, the test's own evaluator finds the sides different there (never a false rejection);
    and a lemma the normal form proves has none."""
    text = _lemma(_show(lhs), _show(rhs))
    point = find_countermodel(text, [10**6])
    if point is not None:
        assert _value(lhs, point) != _value(rhs, point)
        assert decide(text) is not True


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=6, max_size=6), st.sampled_from(VARS))
def test_a_nonzero_polynomial_of_low_degree_has_a_countermodel(coefficients, var):
    """p − q a non-zero polynomial of degree ≤ 2 in three variables: some seeded point shows it."""
    if not any(coefficients):
        return
    monomials = ["1.0", "a", "b", "c", f"(* {var} {var})", "(* a b)"]
    parts = [f"(* {c}.0 {m})" if c >= 0 else f"(* (- {-c}.0) {m})" for c, m in zip(coefficients, monomials)]
    point = find_countermodel(_lemma(f"(+ {' '.join(parts)})", "0.0"), [10**6])
    assert point is not None


@pytest.mark.parametrize("lhs, rhs, hyps", [
    ("(- 1.0 (* (sgn a) (sgn a)))", "(ite (= a 0.0) 1.0 0.0)", ()),  # true only with sgn(0) = 0
    ("(* (sgn a) a)", "(ite (>= a 0.0) a (- a))", ()),
    ("(/ b a)", "(/ b a)", ()),                                       # a = 0 decides nothing
    ("(* a b)", "6.0", ("(= a 2.0)", "(= b 3.0)")),
])
def test_a_true_lemma_has_no_countermodel(lhs, rhs, hyps):
    assert find_countermodel(_lemma(lhs, rhs, hyps), [10**6]) is None


@pytest.mark.parametrize("lhs, rhs, hyps", [
    ("(sgn (* (- a 6.0) (- a 6.0)))", "1.0", ()),       # false at a = 6 only: a number of the lemma
    ("(sgn (- (* 2.0 a) 11.0))", "(sgn (- a 5.0))", ()),  # false on (5, 11/2]: 11/2 is a quotient of its numbers
    ("(sgn (* (- a 6.0) (- a 6.0)))", "(sgn (- 6.0 a))", ()),  # false where a > 6 only, as an op code past 6
    ("(+ (sgn (- a 6.0)) (sgn (- b 6.0)))", "(* 2.0 (sgn (- a 6.0)))", ()),  # false where a and b lie either side
    ("a", "b", ("(= a (+ c 1.0))", "(= b c)")),          # hypotheses v = t are met by setting v to t's value
])
def test_a_false_lemma_false_only_at_special_values_is_refuted(lhs, rhs, hyps):
    point = find_countermodel(_lemma(lhs, rhs, hyps), [10**6])
    assert point is not None


def test_values_past_the_bit_bound_end_the_point_and_work_is_bounded():
    squares = "g40"  # a doubly exponential tower: g40 = a^(2^40), as nested lets
    for k in range(40, 0, -1):
        squares = f"(let ((g{k} (* g{k - 1} g{k - 1}))) {squares})"
    squares = squares.replace("g0", "a")
    assert find_countermodel(_lemma(squares, "(+ 1.0 (* a a))"), [10**6]) is not None  # at a = 0: 0 ≠ 1
    left = [50]
    assert find_countermodel(_lemma("(sgn (* (- a 6.0) (- a 6.0)))", "1.0"), left) is None and left[0] <= 0


def test_a_short_false_lemma_is_reached_after_long_true_ones(monkeypatch: pytest.MonkeyPatch):
    """One budget for all lemmas, spent on every lemma's first points, shortest first: three long true lemmas (a
    300-deep let chain each, more than the whole budget at 128 points) listed first do not starve a false one."""
    from verified_aat.kernel import countermodel
    monkeypatch.setattr(countermodel, "WORK", 200_000)
    chain = "".join(f"(let ((g{k} (* (sgn a) (sgn a) {'a' if k == 0 else f'g{k - 1}'})))" for k in range(300))
    long_true = _lemma(chain + "g299" + ")" * 300, "a")  # sgn(a)^600 · a = a
    left = [10**6]
    assert decide(long_true) is None and find_countermodel(long_true, left) is None and 10**6 - left[0] > 200_000
    lemmas = [(f"long {k}", long_true) for k in range(3)] + [("short", _lemma("(sgn (- a 7.0))", "(sgn a)"))]
    problems = countermodel.refute(lemmas, [False] * 4)
    assert [p.data["lemma"] for p in problems] == ["short"], problems
    assert countermodel.refute(lemmas, [False, False, False, True]) == []  # decided lemmas are not searched


# -- the netlist link (N): S12d before the solvers on a lemma the kernel's own procedures leave open -------------------

C432 = SHARED / "iscas85" / "c432.bench"


@pytest.fixture(scope="module")
def c432_threshold(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    from verified_aat.cli.main import main
    out = tmp_path_factory.mktemp("c432") / "c432.json"
    assert main(["certify", str(C432), "--mode", "threshold", "--no-kernel", "-o", str(out)]) == 0
    return json.loads(out.read_text())


@pytest.mark.skipif(not C432.is_file(), reason="the shared ISCAS netlists are not here")
@pytest.mark.parametrize("gate, swapped", [("399 = NAND(255, 342, 375, 56)", "399 = OR(255, 342, 375, 56)"),
                                           ("335 = XOR(309, 273)", "335 = XNOR(309, 273)")])
def test_a_netlist_gate_swapped_is_not_accepted_by_a_lying_solver(c432_threshold, gate, swapped, unsat_to_everything):
    """Threshold mode: a lemma that fails at its first cut (branch and bound) is tried at deeper cuts, where the
    kernel's own procedures leave it to the solvers; a solver answering unsat there made the link hold. 30 of 50
    random gate-type swaps of c432 were ACCEPTED so; exact evaluation at 0/1 and small-integer points now finds
    each deeper cut's countermodel, as a solver's sat, down to the last cut, which rejects."""
    doc = copy.deepcopy(c432_threshold)
    assert gate in doc["netlist"]["text"]
    doc["netlist"]["text"] = doc["netlist"]["text"].replace(gate, swapped)
    doc["netlist"]["sha256"] = hashlib.sha256(doc["netlist"]["text"].encode()).hexdigest()
    report = verdict(doc, jobs=1)
    assert report.outcome == "rejected" and report.rejections[0].check == "netlist", report.reasons
    assert verdict(copy.deepcopy(c432_threshold), jobs=1).outcome == "accepted"
