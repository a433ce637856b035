"""The kernel decides identity lemmas itself (issue 19, S12): no solver on the path to ACCEPTED.

``kernel/identity.py`` proves a lemma when both sides have the same normal form (polynomials over Q,
a sign of a non-constant an opaque atom).  It may only ever say *valid* or *not decided*: the
property test evaluates every lemma it calls valid at random rational points, and a fake solver
that answers ``unsat`` to everything cannot make a wrong transformer's certificate ACCEPTED once
solvers are not trusted."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mutants
from forge import Forgery, forge, verdict
from verified_aat.cli.main import main
from verified_aat.kernel import solvers
from verified_aat.kernel.identity import decide
from verified_aat.kernel.smt import SGN

PROOFS = Path(__file__).resolve().parents[1] / "proofs"
VARS = ("a", "b", "c")


def _lemma(lhs: str, rhs: str, hyps: tuple[str, ...] = ()) -> str:
    lines = ["(set-logic QF_NRA)", SGN]
    lines += [f"(declare-const {v} Real)" for v in VARS]
    lines += [f"(assert {h})" for h in hyps] + [f"(assert (not (= {lhs} {rhs})))", "(check-sat)"]
    return "\n".join(lines)


def _value(t, env):  # type: ignore[no-untyped-def]
    """The exact value of a term (the test's own evaluator)."""
    if isinstance(t, str):
        return env[t] if t in env else Fraction(t)
    op, *args = t
    xs = [_value(a, env) for a in args]
    if op == "+":
        return sum(xs, Fraction(0))
    if op == "-":
        return -xs[0] if len(xs) == 1 else xs[0] - sum(xs[1:], Fraction(0))
    if op == "*":
        out = Fraction(1)
        for x in xs:
            out *= x
        return out
    return Fraction((xs[0] > 0) - (xs[0] < 0))  # sgn


def _show(t) -> str:  # type: ignore[no-untyped-def]
    return t if isinstance(t, str) else "(" + " ".join(_show(x) for x in t) + ")"


numerals = st.sampled_from(["0.0", "1.0", "2.0", "3.0"]).map(str)
terms = st.recursive(st.sampled_from(VARS) | numerals,
                     lambda sub: st.tuples(st.sampled_from(["+", "-", "*"]), sub, sub).map(list)
                     | st.tuples(st.just("sgn"), sub).map(list), max_leaves=8)
points = st.fixed_dictionaries({v: st.fractions(min_value=-5, max_value=5, max_denominator=7) for v in VARS})


@settings(max_examples=300, deadline=None)
@given(terms, terms, st.lists(points, min_size=4, max_size=4))
def test_whatever_the_normal_form_calls_valid_holds_at_every_point(lhs, rhs, at):
    if decide(_lemma(_show(lhs), _show(rhs))) is True:
        for env in at:
            assert _value(lhs, env) == _value(rhs, env)


@settings(max_examples=100, deadline=None)
@given(terms, terms)
def test_a_term_minus_a_rearrangement_of_itself_is_an_identity(x, y):
    assert decide(_lemma(_show(["*", ["+", x, y], ["-", x, y]]),
                         _show(["-", ["*", x, x], ["*", y, y]]))) is True
    assert decide(_lemma(_show(["sgn", ["+", x, y]]), _show(["sgn", ["+", y, x]]))) is True


@pytest.mark.parametrize("lhs, rhs", [("(* a a)", "(sgn (* a a))"), ("(sgn a)", "(* (sgn a) (sgn a) (sgn a))"),
                                      ("(+ a 1.0)", "a"), ("(sgn (+ (* a a) 1.0))", "1.0")])
def test_what_holds_only_by_reasoning_about_signs_or_is_false_is_not_decided(lhs, rhs):
    assert decide(_lemma(lhs, rhs)) is None  # never True; the solvers decide it, named in the verdict


def test_a_hypothesis_v_equals_a_constant_is_used_and_no_other():
    assert decide(_lemma("(* a b)", "(* 2.0 b)", ("(= a 2.0)",))) is True
    assert decide(_lemma("(* a b)", "(* 2.0 b)", ("(>= a 2.0)",))) is None
    assert decide(_lemma("a", "3.0", ("(= a (* b b))",))) is None


def test_every_per_circuit_lemma_in_proofs_is_decided_by_the_kernel():
    undecided = []
    for path in sorted(PROOFS.glob("*/*.cert.json"))[::7]:
        for lemma in json.loads(path.read_text())["lemmas"]:
            if decide(lemma["smt2"]) is not True:
                undecided.append((path.name, lemma["kind"]))
    assert undecided == []


@pytest.mark.parametrize("mutant", [mutants.MissingRescaling, mutants.SquareOfMean, mutants.SwappedCodes,
                                    mutants.WrongPolarization, mutants.SignOfZeroIsOne])
def test_a_lying_solver_cannot_accept_a_wrong_transformer_without_solver_trust(mutant, unsat_to_everything):
    C = mutants.probe_circuit()
    doc = forge(Forgery(C, mutant().compile(C).transformer))
    report = verdict(doc, defence_budget=0, solver_trust=False)
    assert report.outcome != "accepted"
    assert any("no solver is trusted" in u for u in report.unchecked) or report.rejections


def test_an_honest_certificate_needs_no_solver(unsat_to_everything, monkeypatch):
    monkeypatch.setitem(solvers.SOLVERS, "z3", lambda text, timeout_ms: pytest.fail("a solver was asked"))
    doc = json.loads((PROOFS / "gate-edge" / "mixed_depth6.cert.json").read_text())
    report = verdict(doc, solver_trust=False)
    assert report.outcome == "accepted" and report.solver_runs == 0 and report.solver_only == []
    assert report.kernel_decided == report.lemmas and "no solver on the path" in report.trust


def test_a_second_opinion_that_disagrees_is_not_checked_never_accepted(monkeypatch):
    monkeypatch.setitem(solvers.SOLVERS, "z3", lambda text, timeout_ms: solvers.SAT)
    doc = json.loads((PROOFS / "gate-edge" / "compare_two.cert.json").read_text())
    report = verdict(doc, second_opinion=True)
    assert report.outcome == "not-checked" and not report.rejections
    assert any("a kernel or solver bug" in u for u in report.unchecked)


def test_the_verdict_names_the_lemmas_that_rest_on_a_solver(capsys, tmp_path):
    doc = json.loads((PROOFS / "constructions" / "gate-edge.every-K.schematic.json").read_text())
    for entry in doc["lemmas"]:
        entry.pop("proof", None)  # without its proof objects, the ordering lemmas rest on Z3
    every_k = tmp_path / "no-objects.json"
    every_k.write_text(json.dumps(doc))
    every_k = str(every_k)
    assert main(["check", every_k]) == 0
    out = capsys.readouterr().out
    assert "rest on a solver's unsat alone" in out and "(z3)" in out
    assert main(["check", every_k, "--no-solver-trust"]) == 3
    assert "no solver is trusted" in capsys.readouterr().out
    assert main(["check", str(PROOFS / "gate-edge" / "compare_two.cert.json"), "--no-solver-trust"]) == 0
    assert "no solver on the path to ACCEPTED" in capsys.readouterr().out
    assert main(["check", str(PROOFS / "constructions" / "gate-edge.every-K.schematic.json"), "--no-solver-trust"]) == 0
    assert "no solver on the path to ACCEPTED" in capsys.readouterr().out


def test_let_is_parallel_as_in_smt_lib():
    """(let ((a 1) (b a)) …): b is the outer a, not 1."""
    assert decide(_lemma("(let ((a 1.0) (b a)) (* a b))", "a")) is True
    assert decide(_lemma("(let ((a 1.0) (b a)) (* a b))", "1.0")) is None


def _wide_lemma(selector: str, use: str) -> str:
    """A lemma in the shape of a fan-in-3,000 add gate's local step: the mul branch squares a 3,000-term mean
    (9·10⁶ term products, past the kernel's limit) and is multiplied by its selector."""
    names = [f"y{i}" for i in range(3000)]
    mean = f"(* (/ 1.0 3000.0) (+ {' '.join(names)}))"
    body = f"(let ((m {mean})) (let ((big (* m m)) (s {selector})) {use}))"
    lines = ["(set-logic QF_NRA)", SGN, *(f"(declare-const {v} Real)" for v in names + ["a"])]
    return "\n".join(lines + [f"(assert (not (= {body} (+ {' '.join(names)}))))", "(check-sat)"])


def test_a_branch_too_large_to_expand_but_multiplied_by_zero_is_decided():
    """0·p = 0 for every p: a zero selector spares the product of the other factor (found on the 10⁵-gate
    inner-product, whose output gate's lemma the kernel left to Z3)."""
    assert decide(_wide_lemma("(- 1.0 1.0)", "(+ (* s big) (* 3000.0 (let ((x 1.0)) m)))")) is True
    assert decide(_wide_lemma("(- 1.0 1.0)", "(+ (* big s) (* 3000.0 m))")) is True  # the zero factor second
    # used where no zero factor spares it, or with a selector that is not zero: too large, so not decided
    assert decide(_wide_lemma("(- 1.0 1.0)", "(+ big (* s big) (* 3000.0 m))")) is None
    assert decide(_wide_lemma("(- 2.0 1.0)", "(+ (* s big) (* 3000.0 m))")) is None
    assert decide(_wide_lemma("a", "(+ (* s big) (* 3000.0 m))")) is None


def test_yices_decides_the_every_k_lemmas_where_cvc5_gives_up():
    """edge-k's symbolic add-k step lemmas: cvc5 answers unknown (tests/test_kernel.py); without the proof
    objects, Yices' MCSAT proves every lemma the normal form leaves, and the theorem names it for those."""
    from verified_aat import api
    doc = json.loads((PROOFS / "constructions" / "edge-k.every-K.schematic.json").read_text())
    for entry in doc["lemmas"]:
        entry.pop("proof", None)
    report = api.check(doc, solver="yices")
    assert report.outcome == "accepted", report.unchecked[:2]
    assert report.solver_only and all(entry.endswith("(yices)") for entry in report.solver_only)
    assert report.kernel_decided + len(report.solver_only) == report.lemmas


# -- proof objects (S12c) ----------------------------------------------------------------------------

EVERY_K = sorted((PROOFS / "constructions").glob("*.every-K.schematic.json"))


@pytest.mark.parametrize("path", EVERY_K, ids=[p.name.split(".")[0] for p in EVERY_K])
def test_every_k_certificates_are_accepted_with_no_solver_at_all(path, unsat_to_everything, monkeypatch):
    for name in list(solvers.SOLVERS):
        monkeypatch.setitem(solvers.SOLVERS, name, lambda text, timeout_ms: pytest.fail("a solver was asked"))
    report = verdict(json.loads(path.read_text()), solver_trust=False)
    assert report.outcome == "accepted", (report.unchecked + [str(r) for r in report.rejections])[:2]
    assert report.solver_runs == 0 and report.kernel_decided == report.lemmas


def _tampered(path: Path, edit) -> dict:  # type: ignore[no-untyped-def]
    doc = json.loads(path.read_text())
    entry = next(e for e in doc["lemmas"] if "proof" in e and _leaf(e["proof"]) is not None)
    edit(entry)
    return doc


def _leaf(proof):  # type: ignore[no-untyped-def]
    """The first positive leaf of a proof object (depth first)."""
    if "positive" in proof:
        return proof["positive"]
    for child in proof.get("cases", []) + ([proof["then"]] if "then" in proof else []):
        found = _leaf(child)
        if found is not None:
            return found
    return None


@pytest.mark.parametrize("edit, why", [
    (lambda e: _leaf(e["proof"]).__setitem__("constant", "0"), "constant must be > 0"),
    (lambda e: _leaf(e["proof"]).__setitem__("constant", "1000"), "not the stated sum"),
    (lambda e: _leaf(e["proof"])["squares"].append(["-1", "i_u"]), "coefficient must be ≥ 0"),
    (lambda e: _leaf(e["proof"])["products"].append(["1", [999]]), "index"),
    (lambda e: e.__setitem__("proof", {"identity": True}), "not ="),
    (lambda e: e.__setitem__("proof", {"split": 0, "cases": []}), "split 0"),
    (lambda e: e.__setitem__("proof", {"contradiction": 0}), "does not fail"),
])
def test_a_forged_proof_object_is_rejected_even_by_a_lying_solver(edit, why, unsat_to_everything):
    doc = _tampered(PROOFS / "constructions" / "unique-hard.every-K.schematic.json", edit)
    report = verdict(doc)
    assert report.outcome == "rejected" and "proof object does not check" in str(report.rejections[0])
    assert why in str(report.rejections[0])


def test_a_wrong_transformer_gets_no_proof_objects_past_the_kernel(unsat_to_everything):
    """A forger derives the wrong T's lemmas with the kernel's own code and gives each false one the proof
    object of a true lemma (or a bare positive leaf): the kernel checks every object against its lemma."""
    import transformer_edits as edits
    from verified_aat.constructions.registry import get_construction
    from verified_aat.kernel.identity import decide as normal_form
    from verified_aat.schematic.prove import schematic_document

    honest = json.loads((PROOFS / "constructions" / "gate-edge.every-K.schematic.json").read_text())
    borrowed = next(e["proof"] for e in honest["lemmas"] if "proof" in e)
    T = edits.with_read_head(get_construction("gate-edge").transformer(2))
    doc, _, _ = schematic_document("gate-edge", None, T, 1)
    for n, entry in enumerate(doc["lemmas"]):
        if normal_form(entry["smt2"]) is not True:
            entry["proof"] = borrowed if n % 2 else {"positive": {"products": [], "squares": [], "constant": "1"}}
    report = verdict(doc)
    assert report.outcome == "rejected" and "proof object does not check" in str(report.rejections[0])


def test_an_audit_certificate_needs_no_solver():
    """GT and ARGMAX come with trichotomy case trees (cases-on s − t), the select lemmas with splits over
    their marks; RECIP is stated in its three integer cases, each an identity over the reals."""
    from verified_aat.constructions.registry import get_construction
    from verified_aat.audit.prove import prove_audit

    T = get_construction("gate-edge").transformer(1)
    result = prove_audit(T, [2, 3])
    assert result.status == "proved"
    objects = [e for e in result.certificate["lemmas"] if "proof" in e]
    assert {"gt", "argmax"} <= {e["kind"] for e in objects} and "cases-on" in json.dumps(objects[0]["proof"])
    assert sum(e["kind"] == "recip" for e in result.certificate["lemmas"]) == 3
    report = verdict(result.certificate, solver_trust=False)
    assert report.outcome == "accepted" and report.unchecked == [] and report.solver_runs == 0
    forged = json.loads(json.dumps(result.certificate))
    entry = next(e for e in forged["lemmas"] if e["kind"] == "argmax" and "proof" in e)
    entry["proof"]["cases"][1] = {"contradiction": 0}  # assertion 0 is no ≠: the zero case is not closed
    report = verdict(forged)
    assert report.outcome == "rejected" and "proof object does not check" in str(report.rejections[0])


def test_a_netlist_lemma_only_a_solver_decides_is_named_and_not_trusted_without_solver_trust(tmp_path,
                                                                                              monkeypatch) -> None:
    """Threshold-mode netlist links can need a solver for a NAND candidate: the verdict names each such lemma
    in its trust line, and --no-solver-trust makes it not checked (it used to be accepted silently).  The kernel
    now decides c432's NAND lemmas by branch and bound over the operands; with no branch allowed it cannot."""
    from pathlib import Path

    import verified_aat as va
    from verified_aat.cli.main import main
    from verified_aat.circuits import arithmetize
    from verified_aat.kernel import netlist_threshold
    monkeypatch.setattr(netlist_threshold, "BRANCHES", 0)
    monkeypatch.setattr(arithmetize, "STEP_LINK", False)  # the link by candidates (by steps, no lemma needs one)
    c432 = Path(__file__).resolve().parents[2] / "shared" / "circuits" / "iscas85" / "c432.bench"
    if not c432.exists():
        import pytest
        pytest.skip("needs ../shared/circuits")
    cert = tmp_path / "c432.json"
    assert main(["certify", str(c432), "--mode", "threshold", "-c", "gate-edge", "-o", str(cert)]) == 0
    trusting = va.check(str(cert), candidate_link=True)
    assert trusting.accepted and "netlist-link lemma (z3)" in trusting.trust
    strict = va.check(str(cert), solver_trust=False, candidate_link=True)
    assert strict.outcome == "not-checked"
    assert any("no solver is trusted" in u and "netlist link" in u for u in strict.unchecked)
