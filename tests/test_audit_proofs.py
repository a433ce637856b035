"""proofs/audit/: the audit certificates of the spec transformers, all N and N = 1 … 4, each accepted by
the kernel with no solver at all (issue 19), and what a lying solver cannot get past it."""

from __future__ import annotations

import importlib.util
import json
from fractions import Fraction
from itertools import product
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verified_aat.certificates.document import dumps_certificate
from verified_aat.kernel.audit_proof import argmax_lemma, reciprocal_lemmas, select_lemma
from verified_aat.kernel.identity import decide
from verified_aat.kernel.positivity import BadProof, check_proof
from verified_aat.kernel.report import Options
from verified_aat.kernel import check_certificate
from verified_aat.schematic.proof_objects import find_proof

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("make_audit_proofs", ROOT / "proofs" / "make_audit_proofs.py")
make_audit_proofs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_audit_proofs)  # type: ignore[union-attr]
PLAN = make_audit_proofs.planned()


def _verdict(doc: dict[str, Any], **options: Any) -> Any:
    return check_certificate(json.loads(json.dumps(doc)), Options(**options))


def test_every_spec_transformer_has_both_audit_certificates_and_nothing_else_is_there() -> None:
    assert {path for _, _, path in PLAN} == set((ROOT / "proofs" / "audit").glob("*.json"))
    assert len(PLAN) >= 4


@pytest.mark.parametrize("model,kind,path", PLAN, ids=[p.name for _, _, p in PLAN])
def test_audit_certificate_is_accepted_with_no_solver_at_all(model: Path, kind: str, path: Path, no_solver_at_all: None) -> None:
    report = _verdict(json.loads(path.read_text()), solver_trust=False)
    assert report.outcome == "accepted", (report.unchecked + [str(r) for r in report.rejections])[:2]
    assert report.solver_runs == 0 and report.kernel_decided == report.lemmas
    assert ("every N ≥ 1" if kind == "every-N" else "{1..4}") in report.theorem


@pytest.mark.parametrize("index", [0, len(PLAN) - 1])
def test_regenerating_an_audit_certificate_gives_the_same_bytes(index: int) -> None:
    model, kind, path = PLAN[index]
    assert dumps_certificate(make_audit_proofs.build(model, kind)) == path.read_text()


def _listed() -> dict[str, Any]:
    return json.loads(next(p for _, k, p in PLAN if k == "N1-4" and "mixed" in p.name).read_text())


def _leaves(proof: dict[str, Any]) -> list[dict[str, Any]]:
    kids = proof.get("cases", []) + ([proof["then"]] if "then" in proof else [])
    return [proof] if not kids else [leaf for kid in kids for leaf in _leaves(kid)]


def _split(proof: dict[str, Any]) -> dict[str, Any]:
    """The first node of a case tree that has cases (depth first)."""
    if "cases" in proof:
        return proof
    return _split(proof["then"])


@pytest.mark.parametrize("kind", ["leftmost", "rightmost", "argmax", "gt"])
@pytest.mark.parametrize("edit", ["drop a case", "a leaf that does not close"])
def test_a_forged_audit_proof_object_is_rejected_even_by_a_lying_solver(kind: str, edit: str,
                                                                        unsat_to_everything: None) -> None:
    doc = _listed()
    entry = next(e for e in doc["lemmas"] if e["kind"] == kind and "proof" in e and len(_leaves(e["proof"])) > 1)
    if edit == "drop a case":
        _split(entry["proof"])["cases"].pop()
    else:
        leaf = _leaves(entry["proof"])[0]
        forged = {"negative": 0} if "negative" not in leaf else {"contradiction": 0}
        leaf.clear()
        leaf.update(forged)
        with pytest.raises(BadProof):
            check_proof(entry["smt2"], entry["proof"])
    report = _verdict(doc)
    assert report.outcome == "rejected" and "proof object does not check" in str(report.rejections[0])


def test_an_identity_leaf_is_written_true() -> None:
    entry = next(e for e in _listed()["lemmas"] if e["kind"] == "leftmost" and "proof" in e)
    leaf = next(x for x in _leaves(entry["proof"]) if "identity" in x)
    check_proof(entry["smt2"], entry["proof"])
    leaf["identity"] = 1
    with pytest.raises(BadProof, match="identity"):
        check_proof(entry["smt2"], entry["proof"])


def test_the_listed_recip_step_is_the_all_n_one_in_three_integer_cases() -> None:
    lemmas = reciprocal_lemmas(7)
    assert [lem.uses for lem in lemmas] == [7, 7, 7]
    listed = {e["smt2"]: e.get("proof") for e in _listed()["lemmas"] if e["kind"] == "recip"}
    assert set(listed) == {lem.text for lem in lemmas}
    for text, proof in listed.items():  # each decided by the normal form or by its proof object
        assert decide(text) is True or check_proof(text, proof) >= 0  # it raises unless the object proves it
    wrong = lemmas[1].text.replace("(= negm (- (- m) 1.0))", "(= negm (- m))")  # the constant −m, not −(m + 1)
    assert wrong != lemmas[1].text and decide(wrong) is not True and find_proof(wrong) is None


@pytest.mark.parametrize("n,j,pooling", [(4, 3, "leftmost"), (4, 0, "rightmost"), (6, 2, "leftmost"), (9, 4, "rightmost"),
                                         (32, 31, "leftmost"), (32, 0, "rightmost")])
def test_select_lemmas_get_a_case_tree_and_a_wrong_one_gets_none(n: int, j: int, pooling: str) -> None:
    text = select_lemma(n, j, pooling, 1).text
    proof = find_proof(text)
    assert proof is not None
    check_proof(text, proof)
    assert len(json.dumps(proof)) < 600 * n  # a chain, not a tree over every mark
    head, claim = text.split("(assert (not ")
    wrong_side = range(j + 1, n) if pooling == "leftmost" else range(j)
    edits = [(f"(= m{j} 1.0)", f"(and (= m{j} 1.0) (= m{k} 0.0))") for k in wrong_side][:1]  # a mark that does not count
    edits += [(f"(= m{k} 0.0)", f"(= m{k} 1.0)") for k in (range(j) if pooling == "leftmost" else range(j + 1, n))][:1]
    assert edits
    for old, new in edits:
        wrong = head + "(assert (not " + claim.replace(old, new, 1)
        assert wrong != text and find_proof(wrong) is None
        with pytest.raises(BadProof):
            check_proof(wrong, proof)


@pytest.mark.parametrize("n,j", [(5, 0), (8, 3), (32, 31)])
def test_argmax_lemmas_get_a_chain_of_at_most_splits_to_n_32_and_a_wrong_one_gets_none(n: int, j: int) -> None:
    """Past N = 4, ARGMAX rested on a solver (a cases-on tree has 3^(N-1) leaves); a chain has 3N - 2 nodes."""
    text = argmax_lemma(n, j, 1).text
    proof = find_proof(text)
    assert proof is not None and "at-most" in proof
    check_proof(text, proof)
    assert json.dumps(proof).count("at-most") == n - 1
    other = (j + 1) % n
    wrong = text.replace(f"(>= s{j} s{other})", f"(> s{j} s{other})", 1)  # a tie is a maximum too
    assert wrong != text and find_proof(wrong) is None
    with pytest.raises(BadProof):
        check_proof(wrong, proof)


def test_an_at_most_split_the_wrong_way_round_does_not_check() -> None:
    """The case t <= 0 decides s1 > s0 (false) for t = s1 - s0, not for t = s0 - s1: the tree over the negated
    term does not check."""
    text = argmax_lemma(2, 0, 1).text
    proof = find_proof(text)
    assert proof is not None and proof["at-most"] == "(+ (* (- 1.0) s0) (* 1.0 s1))"
    check_proof(text, proof)
    flipped = json.loads(json.dumps(proof).replace(proof["at-most"], "(+ (* 1.0 s0) (* (- 1.0) s1))"))
    with pytest.raises(BadProof):
        check_proof(text, flipped)
    text = argmax_lemma(3, 0, 1).text
    proof = find_proof(text)
    assert proof is not None and proof["cases"][0] != proof["cases"][1]
    with pytest.raises(BadProof):
        check_proof(text, dict(proof, cases=proof["cases"][::-1]))  # the cases swapped


_TERMS = ["a", "b", "(- a b)", "(+ a b)", "(- 1.0 a)"]
_trees: Any = st.recursive(st.just({"identity": True}), lambda sub: st.tuples(st.sampled_from(_TERMS), sub, sub).map(
    lambda t: {"at-most": t[0], "cases": [t[1], t[2]]}), max_leaves=4)


@settings(max_examples=300, deadline=None)
@given(st.deferred(lambda: conditions), st.sampled_from(["a", "b", "(+ a b)", "1.0"]), st.sampled_from(["a", "0.0", "(* a b)"]),
       _trees)
def test_whatever_an_at_most_tree_proves_holds_at_every_point(c: Any, x: str, y: str, tree: Any) -> None:
    """A case tree of at-most splits over identity leaves that checks for ``(ite c x y) = goal`` must make it hold
    at every sample point: the bound t <= 0 decides only the comparisons it implies."""
    for goal in (x, y):
        text = "\n".join(["(set-logic QF_NRA)", "(declare-const a Real)", "(declare-const b Real)",
                          f"(assert (not (= (ite {_show(c)} {x} {y}) {goal})))", "(check-sat)"])
        try:
            check_proof(text, tree)
        except BadProof:
            continue
        points = [Fraction(-1), Fraction(0), Fraction(1, 2), Fraction(1), Fraction(2)]
        for a, b in product(points, repeat=2):
            env = {"a": a, "b": b}
            taken = x if _condition_value(c, env) else y
            assert _value(taken, env) == _value(goal, env), (text, tree, a, b)


# -- ite conditions: true and false are read; and, or, not of known comparisons -------------------------------

def _condition_value(c: Any, env: dict[str, Fraction]) -> bool:
    """The test's own evaluator of a condition over a, b (both known)."""
    if c in ("true", "false"):
        return c == "true"
    if c[0] in ("and", "or"):
        values = [_condition_value(x, env) for x in c[1:]]
        return all(values) if c[0] == "and" else any(values)
    if c[0] == "not":
        return not _condition_value(c[1], env)
    x, y = (env[t] if t in env else Fraction(t) for t in c[1:])
    return {">": x > y, ">=": x >= y, "=": x == y, "<": x < y, "<=": x <= y}[c[0]]


def _show(t: Any) -> str:
    return t if isinstance(t, str) else "(" + " ".join(_show(x) for x in t) + ")"


comparisons = st.tuples(st.sampled_from([">", ">=", "=", "<", "<="]), st.sampled_from(["a", "b", "0.0", "1.0"]),
                        st.sampled_from(["a", "b", "0.0", "1.0"])).map(list)
conditions = st.recursive(comparisons | st.sampled_from(["true", "false"]),
                          lambda sub: st.tuples(st.sampled_from(["and", "or"]), sub, sub).map(list)
                          | st.tuples(st.just("not"), sub).map(list), max_leaves=6)


@settings(max_examples=300, deadline=None)
@given(conditions, st.sampled_from(["a", "b", "(+ a b)", "1.0"]), st.sampled_from(["a", "0.0", "(* a b)"]))
def test_whatever_an_ite_decides_holds_at_every_point_where_it_can_be_judged(c: Any, x: str, y: str) -> None:
    """``(ite c x y) = x`` called valid must hold at every 0/1/2 point of (a, b); and so must ``= y``."""
    for goal in (x, y):
        text = "\n".join(["(set-logic QF_NRA)", "(declare-const a Real)", "(declare-const b Real)",
                          f"(assert (not (= (ite {_show(c)} {x} {y}) {goal})))", "(check-sat)"])
        if decide(text) is True:
            for a, b in product([Fraction(0), Fraction(1), Fraction(2), Fraction(-1, 2)], repeat=2):
                env = {"a": a, "b": b}
                taken = x if _condition_value(c, env) else y
                assert _value(taken, env) == _value(goal, env), (text, a, b)


def _value(t: str, env: dict[str, Fraction]) -> Fraction:
    return {"a": lambda: env["a"], "b": lambda: env["b"], "(+ a b)": lambda: env["a"] + env["b"],
            "(* a b)": lambda: env["a"] * env["b"], "1.0": lambda: Fraction(1), "0.0": lambda: Fraction(0)}[t]()


def test_true_and_false_are_conditions_and_an_unknown_comparison_is_not_decided() -> None:
    text = "\n".join(["(set-logic QF_NRA)", "(declare-const a Real)",
                      "(assert (not (= (ite (and true (= 1.0 0.0)) a 0.0) 0.0)))", "(check-sat)"])
    assert decide(text) is True
    assert decide(text.replace("(and true", "(or false")) is True
    assert decide(text.replace("(= 1.0 0.0)", "true")) is None  # a = 0 is not an identity
    assert decide(text.replace("(= 1.0 0.0)", "(> a 0.0)")) is None  # a's sign is not known
