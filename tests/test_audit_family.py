"""All-N audit certificates (``verified-aat/audit-family-certificate``): U_N = T for every N ≥ 1.

The kernel (``kernel/audit_family.py``) accepts only its own uniform family, re-derives U_N's measures
(a cubic from U_1 … U_4, checked at U_5) and the N-free lemmas, and decides every lemma itself.  Here:
honest certificates are accepted with no solver at all; the size / depth in an accepted certificate
predict the kernel's unrolling past the points it was derived from; the engine's interpretation of
the family is the kernel's unrolling gate for gate; forgeries (other families, measures, lemmas,
proof objects, transformers, headers) are rejected by the check that owns the field, a lying solver
included; changed families are refuted with a witness replayed here, at N = 33 for the late defects;
and the command line.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
import re
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable

import pytest
from hypothesis import HealthCheck, given, settings
from test_audit_prove import TINY, multi_head
from transformer_strategies import transformers

from verified_aat.audit.family import differs_at, gadgets_of, kernel_family
from verified_aat.audit.mutants import DEFECTS, HARMLESS, LATE_DEFECTS, defective_family, defective_gadgets
from verified_aat.audit.prove import PROVED, REFUTED, UNKNOWN, structure_hash
from verified_aat.audit.prove_all_n import build_family_certificate, prove_all_n
from verified_aat.audit.reference import reference_run
from verified_aat.audit.unroll import flatten, unroll
from verified_aat.certificates.kernel_form import sha256_json
from verified_aat.circuits.evaluate import evaluate
from verified_aat.circuits.io import load_circuit
from verified_aat.cli.main import main
from verified_aat.constructions.registry import CONSTRUCTIONS
from verified_aat.kernel import check_certificate
from verified_aat.kernel.audit_family import FAMILY, FAMILY_FORMAT, check_audit_family, constants_at
from verified_aat.kernel.data import load_transformer as kernel_transformer
from verified_aat.kernel.report import Options
from verified_aat.kernel.unroll import depth as kernel_depth
from verified_aat.kernel.unroll import structure as kernel_structure
from verified_aat.kernel.unroll import unroll as kernel_unroll
from verified_aat.transformer.model import Transformer
from verified_aat.transformer.spec import save_transformer

NO_SOLVER = Options(solver_trust=False, jobs=1)
SERIAL = Options(jobs=1)
EVERY_N = "for every N ≥ 1"


def _cubic(measures: dict[str, Any], n: int) -> Fraction:
    return sum((Fraction(c) * n ** e for e, c in enumerate(measures["gates_cubic"])), Fraction(0))


def _size_from_theorem(theorem: str) -> tuple[Callable[[int], Fraction], int]:
    """The polynomial in "… and size 15N³ + 39N² + 24N + 1 for N ≥ 2; …" as a function, and its N ≥ bound."""
    found = re.search(r" size (.+?)(?: for N ≥ (\d+))?; ", theorem)
    assert found, theorem
    text, start = found.group(1), int(found.group(2) or 1)
    terms = []
    for sign, term in re.findall(r"(^|\+ |− )([^ ]+)", text):
        power = {"N³": 3, "N²": 2, "N": 1}
        e = next((p for suffix, p in power.items() if term.endswith(suffix)), 0)
        coefficient = term[: -len(next(s for s, p in power.items() if p == e))] if e else term
        c = Fraction(coefficient if coefficient not in ("", "-") else coefficient + "1")
        terms.append((-c if sign == "− " else c, e))
    return (lambda n: sum((c * n ** e for c, e in terms), Fraction(0))), start


# -- 1. honest certificates: proved, and accepted with no solver -------------------------------------

def _constructions() -> list[tuple[str, Callable[[], Transformer]]]:
    cases: list[tuple[str, Callable[[], Transformer]]] = [("multi-head", multi_head)]
    for name in sorted(CONSTRUCTIONS):
        cases.append((name, lambda name=name: CONSTRUCTIONS[name].compile(load_circuit(str(TINY))).transformer))
    return cases


@pytest.mark.parametrize("name, make", _constructions(), ids=[name for name, _ in _constructions()])
def test_proved_for_every_n_and_accepted_without_any_solver(name: str, make: Callable[[], Transformer],
                                                            request: pytest.FixtureRequest) -> None:
    t = make()
    result = prove_all_n(t, jobs=1)
    assert result.status == PROVED, result.reasons
    doc = result.certificate
    assert doc is not None and doc["format"] == FAMILY_FORMAT and doc["family"] == FAMILY
    assert EVERY_N in result.theorem
    request.getfixturevalue("no_solver_at_all")
    report = check_certificate(json.loads(json.dumps(doc)), NO_SOLVER)
    assert report.accepted, report.reasons
    assert EVERY_N in report.theorem and "U_N(x) = T(x)" in report.theorem
    assert doc["hashes"]["transformer"][:12] in report.theorem
    assert report.solver_runs == 0 and report.solver_only == [] and report.kernel_decided == report.lemmas
    assert report.lemmas == len(doc["lemmas"])


def test_without_proof_objects_no_solver_trust_is_not_checked(no_solver_at_all: None) -> None:
    """The lemmas past the normal form need their proof objects: stripped, the verdict is not checked."""
    doc = build_family_certificate(multi_head())
    for entry in doc["lemmas"]:
        entry.pop("proof", None)
    report = check_certificate(doc, NO_SOLVER)
    assert report.outcome == "not-checked" and not report.rejections
    assert any("gt lemma" in u for u in report.unchecked) and any("recip lemma" in u for u in report.unchecked)


# -- 2. measures predict the kernel's unrolling; the engine's family is the kernel's -------------------

@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(transformers(max_layers=2))
def test_random_transformers_measures_predict_the_unrolling(t: Transformer) -> None:
    doc = build_family_certificate(t)
    report = check_certificate(json.loads(json.dumps(doc)), NO_SOLVER)
    assert report.accepted, report.reasons
    assert EVERY_N in report.theorem
    measures = doc["measures"]
    kernel_T = kernel_transformer(json.loads(json.dumps(doc["transformer"])))
    size, start = _size_from_theorem(report.theorem)
    for n in (6, 7):  # past U_1 … U_5, the unrollings the measures come from
        b = kernel_unroll(kernel_T, n)
        consts = sum(1 for g in b.gates if g.op == "const")
        assert consts == constants_at(measures, n), n
        assert len(b.gates) == _cubic(measures, n) + constants_at(measures, n), n
        assert len(b.gates) - consts == _cubic(measures, n)
        assert n >= start and size(n) == len(b.gates), (n, report.theorem)
        assert {"mul/2" if g.op == "mul" and len(g.args) == 2 else g.op for g in b.gates} <= set(measures["gate_kinds"])
    for n in range(2, 7):
        assert kernel_depth(kernel_unroll(kernel_T, n)) == measures["depth"], n
    assert kernel_depth(kernel_unroll(kernel_T, 1)) <= measures["depth"]
    gadgets = gadgets_of(kernel_family())
    for n in range(1, 5):
        engine = structure_hash(unroll(t, n))
        assert structure_hash(unroll(t, n, gadgets)) == engine, n
        assert sha256_json(kernel_structure(kernel_unroll(kernel_T, n))) == engine, n


# -- 3. forgeries, each rejected by the check that owns the field ---------------------------------

@functools.lru_cache(maxsize=1)
def _honest_text() -> str:
    return json.dumps(build_family_certificate(multi_head()))


def honest() -> dict[str, Any]:
    return json.loads(_honest_text())


def _rehash_transformer(doc: dict[str, Any]) -> None:
    doc["hashes"]["transformer"] = sha256_json(doc["transformer"])


def _rehash(entry: dict[str, Any]) -> None:
    entry["id"] = hashlib.sha256(entry["smt2"].encode()).hexdigest()


def _lemma(doc: dict[str, Any], kind: str, k: int = 0) -> dict[str, Any]:
    return [entry for entry in doc["lemmas"] if entry["kind"] == kind][k]


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(doc: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = doc
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]
        if value is _DELETE:
            del node[last]
        elif isinstance(node, list):
            node[int(last)] = value(node[int(last)]) if callable(value) else value
        else:
            node[last] = value(node[last]) if callable(value) else value
    return edit


_DELETE = object()


def _family(name: str) -> Callable[[dict[str, Any]], None]:
    return lambda doc: doc.__setitem__("family", defective_family(name))


def _consistent_smaller_cubic(doc: dict[str, Any]) -> None:
    """The cubic one N³ smaller, its own prediction at 5 and the U_5 count made to agree with it."""
    m = doc["measures"]
    m["gates_cubic"][3] = str(Fraction(m["gates_cubic"][3]) - 1)
    m["gates_at_5"] -= 125
    m["gates_predicted_at_5"] = str(Fraction(m["gates_predicted_at_5"]) - 125)


def _edit_text(kind: str, old: str, new: str, rehash: bool = True) -> Callable[[dict[str, Any]], None]:
    def edit(doc: dict[str, Any]) -> None:
        entry = _lemma(doc, kind)
        assert old in entry["smt2"]
        entry["smt2"] = entry["smt2"].replace(old, new)
        if rehash:
            _rehash(entry)
    return edit


def _drop(kind: str) -> Callable[[dict[str, Any]], None]:
    def edit(doc: dict[str, Any]) -> None:
        drop = _lemma(doc, kind)
        doc["lemmas"] = [entry for entry in doc["lemmas"] if entry is not drop]
    return edit


def _added_lemma(doc: dict[str, Any]) -> None:
    extra = copy.deepcopy(_lemma(doc, "gt"))
    extra["smt2"] = extra["smt2"].replace("(audit: GT)", "(audit: GT, once more)")
    _rehash(extra)
    doc["lemmas"].append(extra)


def _added_true_lemma(doc: dict[str, Any]) -> None:
    """A valid lemma of another certificate kind (a per-N ARGMAX), well-formed and hashed."""
    from verified_aat.kernel.audit_proof import argmax_lemma
    lemma = argmax_lemma(2, 0, 1)
    doc["lemmas"].append({"id": lemma.id, "kind": "argmax", "smt2": lemma.text})


def _duplicate_id(doc: dict[str, Any]) -> None:
    doc["lemmas"].append(copy.deepcopy(doc["lemmas"][0]))


def _proof(kind: str, proof: Any) -> Callable[[dict[str, Any]], None]:
    return lambda doc: _lemma(doc, kind).__setitem__("proof", copy.deepcopy(proof))


def _borrowed_proof(doc: dict[str, Any]) -> None:
    """The GT lemma given the NONE lemma's (valid, for NONE) proof object."""
    _lemma(doc, "gt")["proof"] = copy.deepcopy(_lemma(doc, "none")["proof"])


def _flipped_recip_sign(doc: dict[str, Any]) -> None:
    entry = next(e for e in doc["lemmas"] if e["kind"] == "recip" and "signs" in e["proof"])
    entry["proof"]["signs"][0][1] = "+" if entry["proof"]["signs"][0][1] == "-" else "-"


def _gt_case_closed_wrongly(doc: dict[str, Any]) -> None:
    _lemma(doc, "gt")["proof"]["cases"][1] = {"contradiction": 0}


def _pooling(value: str, rehash: bool = True) -> Callable[[dict[str, Any]], None]:
    def edit(doc: dict[str, Any]) -> None:
        doc["transformer"]["layers"][0]["heads"][0]["pooling"] = value
        if rehash:
            _rehash_transformer(doc)
    return edit


def _bilinear_constant(doc: dict[str, Any]) -> None:
    """−1/2 → −1/3 in the bilinear score: the same gates, constants and depth, another COPY lemma."""
    entries = doc["transformer"]["layers"][0]["heads"][1]["score"]["bilinear"]
    assert entries[1][2] == "-1/2"
    entries[1][2] = "-1/3"
    _rehash_transformer(doc)


def _activation_wire(doc: dict[str, Any]) -> None:
    """act2's w + right.v²·right.k reads v instead of w (input 1, not 2), hash recomputed."""
    gates = doc["transformer"]["functions"][2]["gates"]
    assert gates[-1] == ["add", [2, 6]]
    gates[-1] = ["add", [1, 6]]
    _rehash_transformer(doc)


def _huge(doc: dict[str, Any]) -> None:
    doc["transformer"]["layers"] = doc["transformer"]["layers"] * 2_000
    _rehash_transformer(doc)


FORGERIES: dict[str, tuple[Callable[[dict[str, Any]], None], str, str]] = {
    # the family (V2): every deliberately changed one, a harmless-looking one included
    **{f"family {name}": (_family(name), "family-generator", "not the kernel's unrolling")
       for name in sorted(DEFECTS) + sorted(LATE_DEFECTS) + sorted(HARMLESS)},
    "family extra key": (_set("family.note", "hello"), "family-generator", ""),
    "family generator name": (_set("family.generator", "verified-aat/unroll-v2"), "family-generator", ""),
    "family not an object": (_set("family", []), "family-generator", ""),
    "family argmax except k": (_set("family.ranges.argmax.except", "k"), "family-generator", "ranges.argmax"),
    # the measures (V3)
    "depth + 1": (_set("measures.depth", lambda d: d + 1), "family-measures", "depth"),
    "depth - 1": (_set("measures.depth", lambda d: d - 1), "family-measures", "depth"),
    "depth as a string": (_set("measures.depth", lambda d: str(d)), "family-measures", "depth"),
    "depth at 1": (_set("measures.depth_at_1", lambda d: d + 1), "family-measures", "depth_at_1"),
    "cubic N³": (_set("measures.gates_cubic.3", lambda c: str(Fraction(c) + 1)), "family-measures", "gates_cubic"),
    "cubic N⁰": (_set("measures.gates_cubic.0", lambda c: str(Fraction(c) + 1)), "family-measures", "gates_cubic"),
    "cubic a quartic": (_set("measures.gates_cubic", lambda c: c + ["1"]), "family-measures", "gates_cubic"),
    "cubic consistent": (_consistent_smaller_cubic, "family-measures", "gates_cubic"),
    "constants at 1": (_set("measures.constants_at_1", lambda c: c + 1), "family-measures", "constants_at_1"),
    "constants at 5": (_set("measures.constants_at_5", lambda c: c - 1), "family-measures", "constants_at_5"),
    "no reciprocal constants": (_set("measures.reciprocal_constants", False), "family-measures", ""),
    "shared constants": (_set("measures.reciprocal_constants_already_there", []), "family-measures", ""),
    "gate kinds": (_set("measures.gate_kinds", lambda k: sorted(k + ["mul/3"])), "family-measures", "gate_kinds"),
    "measures extra key": (_set("measures.gates_at_6", 1), "family-measures", ""),
    # the lemmas (V4)
    "drop copy": (_drop("copy"), "family-lemmas", "missing"),
    "drop gt": (_drop("gt"), "family-lemmas", "missing"),
    "drop flag-sum": (_drop("flag-sum"), "family-lemmas", "missing"),
    "drop none": (_drop("none"), "family-lemmas", "missing"),
    "drop indicator": (_drop("indicator"), "family-lemmas", "missing"),
    "drop select": (_drop("select"), "family-lemmas", "missing"),
    "drop recip": (_drop("recip"), "family-lemmas", "missing"),
    "add a lemma": (_added_lemma, "family-lemmas", "not a lemma the kernel derives"),
    "add a true lemma": (_added_true_lemma, "family-lemmas", "not a lemma the kernel derives"),
    "duplicate id": (_duplicate_id, "family-lemmas", "distinct"),
    "gt > as >=": (_edit_text("gt", "(> s t)", "(>= s t)"), "family-lemmas", "missing"),
    "none claim": (_edit_text("none", "(ite (= S 0.0) 1.0 0.0)", "(ite (= S 0.0) 0.0 1.0)"), "family-lemmas", "missing"),
    "recip hypothesis": (_edit_text("recip", "(>= m 0.0)", "(>= m 1.0)"), "family-lemmas", "missing"),
    "flag-sum hypothesis dropped": (_edit_text("flag-sum", "(assert (or (= g 0.0) (= g 1.0)))\n", ""),
                                    "family-lemmas", "missing"),
    "text edited, id kept": (_edit_text("gt", "(> s t)", "(>= s t)", rehash=False), "family-lemmas", "text"),
    "kind renamed": (lambda doc: _lemma(doc, "gt").__setitem__("kind", "copy"), "family-lemmas", "kind"),
    "lemma extra key": (lambda doc: _lemma(doc, "gt").__setitem__("uses", 1), "family-lemmas", ""),
    "lemmas not a list": (_set("lemmas", {}), "family-lemmas", ""),
    # proof objects (V5, S12c): checked before any solver is asked
    "gt proof identity": (_proof("gt", {"identity": True}), "family-solvers", "proof object does not check"),
    "gt proof case": (_gt_case_closed_wrongly, "family-solvers", "proof object does not check"),
    "gt proof borrowed": (_borrowed_proof, "family-solvers", "proof object does not check"),
    "none proof no cases": (_proof("none", {"cases-on": "(* 1.0 S)", "cases": []}), "family-solvers",
                            "proof object does not check"),
    "select proof contradiction": (_proof("select", {"contradiction": 0}), "family-solvers",
                                   "proof object does not check"),
    "recip proof sign": (_flipped_recip_sign, "family-solvers", "proof object does not check"),
    "indicator proof garbage": (_proof("indicator", 5), "family-solvers", ""),
    # the transformer (V1), hash recomputed or not
    "pooling, hash kept": (_pooling("rightmost", rehash=False), "family-hashes", "hash"),
    "pooling rightmost": (_pooling("rightmost"), "family-measures", ""),
    "pooling softmax": (_pooling("softmax"), "family-pooling", "softmax"),
    "bilinear constant": (_bilinear_constant, "family-lemmas", ""),
    "activation wire": (_activation_wire, "family-lemmas", ""),
    "hash wrong": (_set("hashes.transformer", "0" * 64), "family-hashes", ""),
    # the document (V1)
    "version 2": (_set("version", 2), "family-document", "version"),
    "version true": (_set("version", True), "family-document", "version"),
    "version string": (_set("version", "1"), "family-document", "version"),
    "status unknown": (_set("result.status", "unknown"), "family-document", "status"),
    "status refuted": (_set("result.status", "refuted"), "family-document", "status"),
    "result extra key": (_set("result.verdict", "proved"), "family-document", ""),
    "extra top key": (_set("lengths", [2, 3]), "family-document", ""),
    "missing measures": (_set("measures", _DELETE), "family-document", ""),
    "claim not a string": (_set("claim", 1), "family-document", ""),
}


def _rejected(doc: dict[str, Any], check: str, detail: str, options: Options) -> None:
    report = check_audit_family(copy.deepcopy(doc), options)
    assert report.outcome == "rejected" and report.rejections, report.reasons
    assert report.rejections[0].check == check, report.reasons
    assert all(f"[{check}]" in reason for reason in report.reasons if not reason.startswith("not checked"))
    assert detail in " ".join(report.reasons), report.reasons
    via = check_certificate(copy.deepcopy(doc), options)  # the dispatcher: the same verdict
    assert via.outcome == "rejected" and via.rejections[0].check == check, via.reasons


def test_the_honest_certificate_is_accepted(no_solver_at_all: None) -> None:
    report = check_certificate(honest(), NO_SOLVER)
    assert report.accepted, report.reasons
    reordered = honest()  # the family's keys in another order: the same family
    reordered["family"] = dict(reversed(list(reordered["family"].items())))
    reordered["lemmas"].reverse()
    assert check_certificate(reordered, NO_SOLVER).accepted


@pytest.mark.parametrize("name", sorted(FORGERIES))
def test_forgery_rejected_by_its_check(name: str, no_solver_at_all: None) -> None:
    edit, check, detail = FORGERIES[name]
    doc = honest()
    edit(doc)
    assert json.dumps(doc, sort_keys=True) != json.dumps(honest(), sort_keys=True)  # json: True is not 1
    _rejected(doc, check, detail, NO_SOLVER)


def test_forgeries_rejected_with_a_lying_solver(unsat_to_everything: None) -> None:
    """A solver that calls every lemma valid, trusted: every forgery is still rejected, by the same check."""
    trusted = Options(jobs=1, solvers=("z3", "cvc5"))
    for name, (edit, check, detail) in sorted(FORGERIES.items()):
        doc = honest()
        edit(doc)
        _rejected(doc, check, detail, trusted)


def test_wrong_format_is_not_an_all_n_certificate() -> None:
    doc = honest()
    doc["format"] = "verified-aat/audit-certificate"
    report = check_audit_family(copy.deepcopy(doc), NO_SOLVER)
    assert report.rejections and report.rejections[0].check == "family-document"
    assert "format" in report.reasons[0]
    assert check_certificate(doc, SERIAL).outcome == "rejected"  # read as a per-N certificate: malformed
    doc["format"] = "verified-aat/audit-family-certificate-v2"
    assert check_audit_family(copy.deepcopy(doc), NO_SOLVER).rejections[0].check == "family-document"
    assert check_certificate(doc, SERIAL).outcome == "rejected"


def test_a_forger_with_the_kernels_own_code_proves_only_the_embedded_transformer() -> None:
    """Edit T and re-derive everything with the engine (= the kernel's derivations): accepted, but the
    theorem names the edited T's hash, not the honest one's."""
    from verified_aat.kernel.audit_family import derive_family_lemmas, derive_measures

    doc = honest()
    _bilinear_constant(doc)
    kernel_T = kernel_transformer(json.loads(json.dumps(doc["transformer"])))
    doc["measures"] = derive_measures(kernel_T)
    proofs = {e["id"]: e["proof"] for e in doc["lemmas"] if "proof" in e}  # GT, NONE, …: texts that mention no T
    doc["lemmas"] = [{"id": x.id, "kind": x.kind, "smt2": x.text} for x in derive_family_lemmas(kernel_T)]
    for entry in doc["lemmas"]:
        if entry["id"] in proofs:
            entry["proof"] = proofs[entry["id"]]
    report = check_certificate(doc, NO_SOLVER)
    assert report.accepted, report.reasons
    assert doc["hashes"]["transformer"][:12] in report.theorem
    assert honest()["hashes"]["transformer"][:12] not in report.theorem


# -- 4. changed families: refuted with a witness, replayed here ------------------------------------

@functools.lru_cache(maxsize=4)
def _honest_circuit(n: int) -> Any:
    return unroll(multi_head(), n).circuit


@pytest.mark.parametrize("defect", sorted(DEFECTS) + sorted(LATE_DEFECTS))
def test_defect_refuted_with_a_replayed_witness(defect: str) -> None:
    t = multi_head()
    family = defective_family(defect)
    result = prove_all_n(t, family, name=defect, jobs=1)
    assert result.status == REFUTED and result.certificate is None, (defect, result.reasons)
    assert any("[family-generator]" in r for r in result.reasons), result.reasons
    w = result.witness
    assert w is not None and w.circuit != w.transformer
    assert f"N = {w.n}" in result.reasons[-1]
    assert differs_at(family, kernel_family(), w.n)
    # the replay: the changed U_N rebuilt from its gadgets, the generic interpreter, the reference
    sequence = flatten(w.sequence)
    changed = tuple(evaluate(unroll(t, w.n, defective_gadgets(defect)).circuit, sequence))
    reference = tuple(flatten(reference_run(t, w.sequence).outputs))
    assert changed == w.circuit and reference == w.transformer
    assert changed != reference
    assert tuple(evaluate(_honest_circuit(w.n), sequence)) == reference
    if defect in LATE_DEFECTS:
        assert w.n == 33
        assert not any(differs_at(family, kernel_family(), n) for n in range(1, 9))
        assert not differs_at(family, kernel_family(), 32)
    else:
        assert w.n <= 8
        first = next(n for n in range(1, 9) if differs_at(family, kernel_family(), n))
        assert w.n >= first


@pytest.mark.parametrize("defect", sorted(HARMLESS))
def test_harmless_family_is_unknown_never_refuted(defect: str) -> None:
    result = prove_all_n(multi_head(), defective_family(defect), name=defect, jobs=1, samples=10)
    assert result.status == UNKNOWN and result.witness is None and result.certificate is None
    assert any("[family-generator]" in r for r in result.reasons)
    assert "no sequence tried shows a difference" in result.reasons[-1]


def test_the_kernels_own_family_given_explicitly_is_proved() -> None:
    result = prove_all_n(multi_head(), kernel_family(), jobs=1)
    assert result.status == PROVED and result.certificate is not None


# -- 5. the command line -----------------------------------------------------------------------------

@pytest.fixture
def model(tmp_path: Path) -> Path:
    path = tmp_path / "multi_head.json"
    save_transformer(multi_head(), path)
    return path


def test_cli_prove_every_n_and_check(model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cert = tmp_path / "all-n.cert.json"
    assert main(["audit", str(model), "--prove", "-o", str(cert)]) == 0
    out = capsys.readouterr().out
    assert "result       PROVED" in out and EVERY_N in out
    doc = json.loads(cert.read_text())
    assert doc["format"] == FAMILY_FORMAT and doc["family"] == FAMILY
    assert main(["check", str(cert), "--no-solver-trust"]) == 0
    out = capsys.readouterr().out
    assert "ACCEPTED" in out and "no solver on the path to ACCEPTED" in out
    explicit = tmp_path / "explicit.cert.json"
    assert main(["audit", str(model), "--prove", "--all-N", "-o", str(explicit)]) == 0
    capsys.readouterr()
    assert json.loads(explicit.read_text())["format"] == FAMILY_FORMAT
    forged = json.loads(cert.read_text())
    forged["measures"]["depth"] += 1
    cert.write_text(json.dumps(forged))
    assert main(["check", str(cert), "--no-solver-trust"]) == 1
    assert "[family-measures]" in capsys.readouterr().out


def test_cli_per_n_and_json(model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    per_n = tmp_path / "per-n.cert.json"
    assert main(["audit", str(model), "--lengths", "2,3", "--prove", "-o", str(per_n)]) == 0
    capsys.readouterr()
    doc = json.loads(per_n.read_text())
    assert doc["format"] == "verified-aat/audit-certificate" and doc["lengths"] == [2, 3]
    assert main(["audit", str(model), "--prove", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["status"] == "proved" and EVERY_N in report["theorem"]


@pytest.mark.parametrize("argv, message", [
    (["--all-N", "--lengths", "2", "--prove"], "--lengths"),
    (["--all-N", "--lengths", "2"], "--all-N"),
    (["--all-N"], "--prove"),
])
def test_cli_all_n_bad_input(model: Path, argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", str(model), *argv]) == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert message in err and "Traceback" not in captured.err + captured.out
    assert len(err.splitlines()) == 1, err


def test_cli_late_defect_refuted_at_33(model: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", str(model), "--prove", "--defect", "count-saturates-at-32"]) == 1
    out = capsys.readouterr().out
    assert "N = 33" in out and "result       REFUTED" in out and "replayed exactly" in out


def test_past_the_kernels_cap_nothing_is_built(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine asks the kernel's own cap first: unknown, and no U_N at all is unrolled."""
    import verified_aat.kernel.audit_family as kernel_family_module
    calls: list[int] = []
    real = kernel_family_module.unroll
    monkeypatch.setattr(kernel_family_module, "MAX_GATES_AT_5", 1000)
    monkeypatch.setattr(kernel_family_module, "unroll", lambda T, n: calls.append(n) or real(T, n))
    result = prove_all_n(multi_head(), jobs=1)
    assert result.status == UNKNOWN and "past the kernel's cap" in result.reasons[0] and calls == []


def test_every_all_n_check_points_to_its_step() -> None:
    from verified_aat.kernel.audit_family import FAMILY_CHECKS
    soundness = (Path(__file__).resolve().parent.parent / "docs" / "soundness.md").read_text()
    for check in FAMILY_CHECKS:
        assert f"**{check.step} —" in soundness and f"`{check.name}`" in soundness, check


def test_past_the_kernels_cap_a_certificate_is_not_checked_never_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    """A size limit is never a verdict (red team, round 5): the honest certificate of a T whose U_5 passes the
    kernel's cap was REJECTED at V1; it is *not checked*, as the engine says *unknown* for it."""
    import verified_aat.kernel.audit_family as kernel_family_module
    doc = build_family_certificate(multi_head())
    assert check_certificate(copy.deepcopy(doc), SERIAL).accepted
    huge = honest()
    _huge(huge)  # a transformer past the cap, as a certificate may embed one
    report = check_certificate(huge, SERIAL)
    assert report.outcome == "not-checked" and not report.rejections and "U_5 would have" in report.unchecked[0]
    monkeypatch.setattr(kernel_family_module, "MAX_GATES_AT_5", 1000)
    report = check_certificate(doc, SERIAL)
    assert report.outcome == "not-checked" and not report.rejections
    assert "family-transformer" in report.unchecked[0] and "past the kernel's" in report.unchecked[0]


def _product_of_sums(factors: int) -> Transformer:
    """One layer, no heads: c0 ← 2·Π_k (c_{2k} + c_{2k+1}), whose normal form has 2^factors monomials."""
    from verified_aat.transformer.spec import transformer_from_json
    d = 2 * factors
    lines = [f"s{k} = add x.c{2 * k} x.c{2 * k + 1}" for k in range(factors)]
    lines += ["p = mul 2 " + " ".join(f"s{k}" for k in range(factors)),
              "output " + " ".join(["c0=p"] + [f"c{k}=x.c{k}" for k in range(1, d)])]
    return transformer_from_json({
        "format": "verified-aat/transformer", "version": 1, "name": "product-of-sums",
        "coordinates": [f"c{k}" for k in range(d)], "functions": {"f": lines},
        "layers": [{"name": "one", "heads": [], "activation": "f"}]})


def test_a_copy_lemma_past_the_normal_form_is_decided_by_its_structure(monkeypatch: pytest.MonkeyPatch) -> None:
    """Red team, round 5: COPY of 2·Π_{k<64}(x_2k + x_2k+1) is an identity whose normal form has 2^64 monomials,
    so `check --no-solver-trust` said *not checked* of a certificate `audit --prove` wrote. The kernel now decides
    a COPY lemma by the copy's structure (the binarised products are f's, up to associativity); a copy that is
    not f's (one factor repeated, or two swapped) is not decided so."""
    import verified_aat.kernel.audit_proof as kernel_audit
    from verified_aat.kernel.unroll import copy as kernel_copy
    result = prove_all_n(_product_of_sums(64), jobs=1)
    assert result.status == PROVED and result.certificate is not None
    report = check_certificate(json.loads(json.dumps(result.certificate)), NO_SOLVER)
    assert report.accepted and report.kernel_decided == report.lemmas == 1, report.reasons
    f = kernel_transformer(result.certificate["transformer"]).layers[0].activation
    assert kernel_audit.faithful(f)

    def wrong(drop: bool) -> Callable[..., list[int]]:
        def copied(b: Any, circuit: Any, inputs: Any) -> list[int]:
            outs = kernel_copy(b, circuit, inputs)
            last = b.gates[outs[0]]
            b.gates[outs[0]] = type(last)("mul", (last.args[1], last.args[0]) if not drop else (last.args[0], last.args[0]))
            return outs
        return copied
    for drop in (False, True):  # commutativity is not used: a swap is not "faithful" either, only associativity is
        monkeypatch.setattr(kernel_audit, "copy", wrong(drop))
        assert not kernel_audit.faithful(f)
    small = kernel_transformer(build_family_certificate(_product_of_sums(3))["transformer"]).layers[0].activation
    assert not kernel_audit.faithful(small)  # with the dropped factor; the honest copy of the same f is faithful:
    monkeypatch.setattr(kernel_audit, "copy", kernel_copy)
    assert kernel_audit.faithful(small)
