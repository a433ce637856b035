"""``audit --prove``: kernel-checked certificates that the unrolled circuit U_N equals T (issue 10, A1)."""

from __future__ import annotations

import copy
import hashlib
import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from transformer_strategies import transformers

from verified_aat.audit.mutants import DEFECTS, HARMLESS, defective_unroller, unroll_defective
from verified_aat.audit.prove import (
    PROVED,
    REFUTED,
    UNKNOWN,
    build_certificate,
    prove_audit,
)
from verified_aat.audit.reference import reference_run
from verified_aat.audit.unroll import flatten, unroll
from verified_aat.circuits.builder import CircuitBuilder
from verified_aat.circuits.evaluate import evaluate
from verified_aat.circuits.io import load_circuit
from verified_aat.cli.main import main
from verified_aat.constructions.registry import CONSTRUCTIONS
from verified_aat.kernel import check_certificate
from verified_aat.kernel.audit_proof import (
    ALL_N,
    argmax_lemma,
    gt_lemma,
    reciprocal_lemmas,
    select_lemma,
)
from verified_aat.kernel.solvers import solve
from verified_aat.kernel.report import Options
from verified_aat.transformer.model import (
    BilinearScore,
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
SERIAL = Options(jobs=1)


def multi_head() -> Transformer:
    """Two layers, three heads (average with a circuit score, leftmost with a bilinear score, rightmost),
    an activation with a product of fan-in 3 (binarised in U_N) and a sign."""
    s = CircuitBuilder("s")
    x = s.inputs(score_input_names(COORDS))
    s.output(s.neg(s.square(s.sub(x[0], x[3]))))                  # −(i.k − j.k)²
    a1 = CircuitBuilder("act1")
    y = a1.inputs(activation_input_names(COORDS, ["avg", "left"]))
    a1.output(y[0])
    a1.output(y[4])                                                # avg.v
    a1.output(a1.add(y[7], a1.sign(y[5])))                         # left.v + sign(avg.w)
    a2 = CircuitBuilder("act2")
    z = a2.inputs(activation_input_names(COORDS, ["right"]))
    a2.output(z[0])
    a2.output(z[1])
    a2.output(a2.add(z[2], a2.mul(z[4], z[4], z[3])))             # w + right.v²·right.k
    bilinear = BilinearScore(((Fraction(0),) * 3, (Fraction(1), Fraction(0), Fraction(-1, 2)), (Fraction(0),) * 3))
    return Transformer(COORDS, (
        Layer((Head("avg", CircuitScore(s.build()), Pooling.AVERAGE), Head("left", bilinear, Pooling.LEFTMOST)),
              a1.build(), "L1"),
        Layer((Head("right", CircuitScore(s.build()), Pooling.RIGHTMOST),), a2.build(), "L2")), "multi-head")


def _kinds(doc: dict[str, Any]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for lemma in doc["lemmas"]:
        out.setdefault(lemma["kind"], set()).add(lemma["scope"])
    return out


# -- proofs -------------------------------------------------------------------------------

def test_multi_head_proved_and_checked() -> None:
    t = multi_head()
    result = prove_audit(t, [2, 3, 4], jobs=1)
    assert result.status == PROVED, result.reasons
    doc = result.certificate
    assert doc is not None and doc["lengths"] == [2, 3, 4]
    kinds = _kinds(doc)
    assert kinds["copy"] == kinds["gt"] == kinds["recip"] == {ALL_N}
    recip = next(lemma for lemma in doc["lemmas"] if lemma["kind"] == "recip")
    assert recip["uses"] == 4 + 9 + 16  # one induction step per term: N terms per position, one average head
    for kind in ("argmax", "leftmost", "rightmost"):
        assert kinds[kind] == {"N = 2", "N = 3", "N = 4"}, kind
    # ARGMAX: one lemma per (N, j), used once per (layer, head, i): 3 heads, N positions
    argmax = [lemma for lemma in doc["lemmas"] if lemma["kind"] == "argmax" and lemma["scope"] == "N = 4"]
    assert len(argmax) == 4 and all(lemma["uses"] == 3 * 4 for lemma in argmax)
    report = check_certificate(json.loads(json.dumps(doc)), SERIAL)
    assert report.accepted, report.reasons
    assert "for every N in {2..4}" in report.theorem and "U_N(x) = T(x)" in report.theorem
    assert "COPY/GT/RECIP lemmas hold for all N" in report.theorem
    assert "ARGMAX/LEFTMOST/RIGHTMOST lemmas were checked per N" in report.theorem


@pytest.mark.parametrize("name", sorted(CONSTRUCTIONS))
def test_compiled_constructions(name: str) -> None:
    t = CONSTRUCTIONS[name].compile(load_circuit(str(TINY))).transformer
    result = prove_audit(t, [2, 3, 4] if name in ("gate-edge", "gate-edge-dot", "unique-hard", "edge-only")
                         else [3], jobs=1)
    assert result.status == PROVED, result.reasons
    assert check_certificate(result.certificate, SERIAL).accepted  # type: ignore[arg-type]


def test_gate_edge_up_to_eight() -> None:
    t = CONSTRUCTIONS["gate-edge"].compile(load_circuit(str(TINY))).transformer
    result = prove_audit(t, range(2, 9), jobs=2)
    assert result.status == PROVED and "{2..8}" in result.theorem


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(transformers(max_layers=2), st.sampled_from([[1, 2], [3], [4]]))
def test_random_transformers_are_the_kernels_unrolling(t: Transformer, lengths: list[int]) -> None:
    """The kernel's own unroller gives the engine's U_N gate for gate (any scores, shared circuits, fan-ins)."""
    doc, _, differs = build_certificate(t, lengths)
    assert differs == {}
    report = check_certificate(doc, SERIAL)
    assert report.accepted, report.reasons


# -- lemmas -------------------------------------------------------------------------------

def test_lemmas_are_valid_and_their_wrong_versions_are_not() -> None:
    cases = [(argmax_lemma(5, 2, 1).text, "(>= s2 s0)", "(> s2 s0)"),
             (gt_lemma(1).text, "(> s t)", "(>= s t)"),
             (reciprocal_lemmas(1)[0].text, "(>= m c)", "(>= (+ m 1.0) c)"),
             (reciprocal_lemmas(1)[1].text, "(= negm (- (- m) 1.0))", "(= negm (- m))"),
             (reciprocal_lemmas(1)[2].text, "(>= c (+ m 2.0))", "(>= c (+ m 1.0))"),
             (select_lemma(4, 2, "leftmost", 1).text, "(= m1 0.0)", "(= m3 0.0)"),
             (select_lemma(4, 1, "rightmost", 1).text, "(= m2 0.0)", "(= m0 0.0)")]
    for text, right, wrong in cases:
        assert right in text
        assert solve(text, "z3", 20_000) == "unsat"
        assert solve(text.replace(right, wrong), "z3", 20_000) == "sat", wrong


# -- tampered certificates (forged with the builder's own code: every hash and count consistent) ---------

@pytest.fixture(scope="module")
def honest() -> dict[str, Any]:
    doc, _, _ = build_certificate(multi_head(), [2, 3])
    assert check_certificate(copy.deepcopy(doc), SERIAL).accepted
    return doc


def _rejected(doc: dict[str, Any], check: str) -> str:
    report = check_certificate(doc, SERIAL)
    assert not report.accepted and report.rejections, report.reasons
    assert report.rejections[0].check == check, report.reasons
    return str(report.rejections[0])


def _rehash(lemma: dict[str, Any]) -> None:
    lemma["id"] = hashlib.sha256(lemma["smt2"].encode()).hexdigest()


def test_wrong_length_set(honest: dict[str, Any]) -> None:
    t = multi_head()
    bigger, _, _ = build_certificate(t, [2, 3, 4])
    forged = copy.deepcopy(honest)
    forged["lengths"], forged["unrolled"] = bigger["lengths"], bigger["unrolled"]  # U_4 right, its lemmas missing
    forged["lemmas"] = [lemma for lemma in bigger["lemmas"] if lemma["scope"] != "N = 4"]
    assert "missing" in _rejected(forged, "audit-lemmas")
    forged = copy.deepcopy(honest)
    forged["lengths"] = [2, 4]
    _rejected(forged, "audit-unrolled")
    forged = copy.deepcopy(honest)
    forged["lengths"] = [3, 2]
    _rejected(forged, "audit-document")


def test_dropped_lemma(honest: dict[str, Any]) -> None:
    for kind in ("argmax", "recip", "copy", "gt", "leftmost"):
        forged = copy.deepcopy(honest)
        forged["lemmas"] = [lemma for lemma in forged["lemmas"] if lemma["kind"] != kind]
        assert "missing" in _rejected(forged, "audit-lemmas")


def test_edited_gadget_wire(honest: dict[str, Any]) -> None:
    """A U_N with one argument moved to another wire, hashed consistently, is not the kernel's unrolling."""
    t = multi_head()

    def edited(transformer: Transformer, n: int) -> Any:
        u = unroll(transformer, n)
        argv = u.flat.argv
        k = int(u.flat.offsets[u.argmax[0][0][0][0]])  # the first argument of the gate M_00
        argv[k] = argv[k] - 1
        return u

    forged, _, differs = build_certificate(t, [2, 3], edited)
    assert set(differs) == {2, 3}
    assert "the kernel's unrolling has" in _rejected(forged, "audit-unrolled")


def test_edited_lemma_text(honest: dict[str, Any]) -> None:
    forged = copy.deepcopy(honest)
    lemma = next(entry for entry in forged["lemmas"] if entry["kind"] == "argmax")
    lemma["smt2"] = lemma["smt2"].replace("(>= s0 s1)", "(> s0 s1)")
    _rehash(lemma)
    _rejected(forged, "audit-lemmas")


def test_all_n_claimed_for_a_per_n_lemma(honest: dict[str, Any]) -> None:
    for kind in ("argmax", "leftmost", "rightmost"):
        forged = copy.deepcopy(honest)
        next(entry for entry in forged["lemmas"] if entry["kind"] == kind)["scope"] = ALL_N
        assert "scope" in _rejected(forged, "audit-lemmas")
    forged = copy.deepcopy(honest)  # and the other way round: a per-N scope on the all-N RECIP step
    next(entry for entry in forged["lemmas"] if entry["kind"] == "recip")["scope"] = "N = 2"
    assert "scope" in _rejected(forged, "audit-lemmas")


def test_other_forgeries(honest: dict[str, Any]) -> None:
    forged = copy.deepcopy(honest)
    forged["lemmas"][0]["uses"] += 1
    _rejected(forged, "audit-lemmas")
    forged = copy.deepcopy(honest)
    forged["result"]["status"] = "unknown"
    _rejected(forged, "audit-document")
    forged = copy.deepcopy(honest)
    forged["transformer"]["layers"][0]["heads"][0]["pooling"] = "rightmost"
    _rejected(forged, "audit-hashes")
    forged = copy.deepcopy(honest)
    forged["transformer"]["layers"][0]["heads"][0]["pooling"] = "softmax"
    forged["hashes"]["transformer"] = hashlib.sha256(json.dumps(
        forged["transformer"], sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    _rejected(forged, "audit-pooling")
    forged = copy.deepcopy(honest)
    forged["lengths"] = [2, 3, 10_000]
    _rejected(forged, "audit-document")
    forged = copy.deepcopy(honest)  # every length allowed, but all of them together too large to build
    forged["transformer"]["layers"] = forged["transformer"]["layers"] * 2_000
    forged["lengths"] = list(range(1, 33))
    forged["hashes"]["transformer"] = hashlib.sha256(json.dumps(
        forged["transformer"], sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    report = check_certificate(json.loads(json.dumps(forged)), SERIAL)  # a size limit: not checked
    assert report.outcome == "not-checked" and not report.rejections and "gates together" in report.unchecked[0]


# -- wrong unrollings --------------------------------------------------------------------------

@pytest.mark.parametrize("defect", sorted(DEFECTS))
def test_wrong_unrolling_refuted_with_a_replayed_witness(defect: str) -> None:
    t = multi_head()
    result = prove_audit(t, [2, 3], unroller=defective_unroller(defect), jobs=1)
    assert result.status == REFUTED and result.certificate is None, (defect, result.reasons)
    w = result.witness
    assert w is not None and w.circuit != w.transformer
    # replay here once more: the defective U_N and the independent reference, exactly
    assert tuple(evaluate(unroll_defective(t, w.n, defect).circuit, flatten(w.sequence))) == w.circuit
    assert tuple(flatten(reference_run(t, w.sequence).outputs)) == w.transformer
    assert tuple(evaluate(unroll(t, w.n).circuit, flatten(w.sequence))) == w.transformer


def test_harmless_variant_is_unknown_not_refuted() -> None:
    t = multi_head()
    for defect in HARMLESS:
        result = prove_audit(t, [2, 3], unroller=defective_unroller(defect), jobs=1,
                              samples=10)
        assert result.status == UNKNOWN and result.witness is None
        assert any("no witness" in reason for reason in result.reasons)


# -- the command line ---------------------------------------------------------------------------

def test_cli_prove_check_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cert = tmp_path / "u.cert.json"
    assert main(["audit", "-c", "gate-edge", str(TINY), "--lengths", "2..3", "--prove", "-o", str(cert)]) == 0
    out = capsys.readouterr().out
    assert "result       PROVED" in out and "theorem      for every N in {2, 3}" in out
    assert main(["check", str(cert)]) == 0
    assert "ACCEPTED" in capsys.readouterr().out
    doc = json.loads(cert.read_text())
    doc["lemmas"] = doc["lemmas"][1:]
    cert.write_text(json.dumps(doc))
    assert main(["check", str(cert)]) == 1
    assert "[audit-lemmas]" in capsys.readouterr().out
    assert main(["audit", "-c", "gate-edge", str(TINY), "--lengths", "2", "--prove", "--json",
                 "--defect", "gt-as-ge"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["status"] == "refuted" and report["witness"]["n"] == 2
    assert main(["audit", "-c", "gate-edge", str(TINY), "--lengths", "2", "--prove", "--samples", "5",
                 "--defect", "argmax-includes-j"]) == 3
    out = capsys.readouterr().out
    assert "result       UNKNOWN" in out and "witness      N =" not in out and "no witness sequence" in out


@pytest.mark.parametrize("argv, message", [
    (["--lengths", "3..2", "--prove"], "--lengths"),
    (["--lengths", "2..x", "--prove"], "--lengths"),
    (["--lengths", "2", "-o", "c.json"], "goes with --prove"),
    (["--lengths", "2", "--prove", "--timeout", "0"], "--timeout"),
])
def test_cli_bad_input(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", "-c", "gate-edge", str(TINY), *argv]) == 2
    assert message in capsys.readouterr().err
