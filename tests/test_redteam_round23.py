"""Red team, round 23: audit certificates (listed N and every N) and netlist sections, field by field and forged.

Found: (1) a proof object's lists were read by iterating whatever value stood there, so an empty object ``{}`` or an
empty string ``""`` in place of the empty list of a positive leaf's ``squares`` or ``products`` (or of a ``signs``
node's claims) was checked as that list and the lemma accepted: a malformed proof object must be rejected, as every
other malformed part of one is.  Fixed in ``kernel/positivity.py`` (``_rows``: a list of lists of the rule's width).

The rest are attacks the kernel rejects by the rule they break, on paths no earlier test drove (see each test).
"""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from verified_aat.kernel import Options, check_certificate

ROOT = Path(__file__).resolve().parent.parent
AUDIT = ROOT / "proofs" / "audit"


def _audit(name: str) -> dict[str, Any]:
    return json.loads((AUDIT / name).read_text(encoding="utf-8"))


def _verdict(doc: dict[str, Any], **options: Any):  # type: ignore[no-untyped-def]
    return check_certificate(json.loads(json.dumps(doc)), Options(solvers=("z3",), candidate_link=True, **options))  # cap mode's link


def _positive_leaf(doc: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """The first lemma whose proof object has a positive leaf with no squares, and that leaf."""
    for k, lemma in enumerate(doc["lemmas"]):
        proof = lemma.get("proof")
        if isinstance(proof, dict) and "signs" in proof and proof["signs"][0][2]["squares"] == []:
            return k, proof["signs"][0][2]
    raise AssertionError("no such lemma")


@pytest.mark.parametrize("bad", [{}, ""], ids=["object", "string"])
@pytest.mark.parametrize("field", ["squares", "products", "signs"])
def test_a_proof_objects_list_written_as_an_object_or_a_string_is_rejected(field: str, bad: Any) -> None:
    """Class: the proof-object checker iterated a positive leaf's ``squares`` and ``products`` and a ``signs`` node's
    claims as they stood, so ``{}`` or ``""`` for an empty list checked as one (the audit certificate was ACCEPTED
    with a malformed proof object).  Fix: each is a list of lists of its rule's width, else the object does not
    check (``positivity._rows``)."""
    doc = _audit("mixed_pooling.N1-4.audit.json")
    assert _verdict(doc).accepted
    k, leaf = _positive_leaf(doc)
    if field == "squares":
        leaf["squares"] = bad
    elif field == "products":
        leaf["products"] = bad
    else:
        doc["lemmas"][k]["proof"]["signs"] = bad
    report = _verdict(doc, solver_trust=False)
    assert report.outcome == "rejected", report.reasons
    assert "its proof object does not check" in str(report.rejections[0]), report.reasons
    assert "expected a list of" in str(report.rejections[0]), report.reasons  # not 'not the stated sum' and the like


BAD = [[[]], {}, None, 1.5, True, -1, 2**70, "\x1b[31m\u202e\x00"]
AUDIT_FIELDS = [("every-N", ("version",)), ("every-N", ("hashes", "transformer")),
                ("every-N", ("family", "ranges", "argmax", "to")), ("every-N", ("measures", "depth")),
                ("every-N", ("lemmas", 0, "smt2")), ("N1-4", ("lengths", 1)), ("N1-4", ("unrolled",)),
                ("N1-4", ("transformer", "layers", 0, "heads", 0, "pooling"))]


@pytest.mark.parametrize("kind, path", AUDIT_FIELDS, ids=lambda x: x if isinstance(x, str) else ".".join(map(str, x)))
def test_an_audit_certificates_field_of_the_wrong_type_is_rejected_by_its_rule(kind: str, path: tuple) -> None:
    """Every field of both audit kinds replaced in turn by a list, an object, null, a float, a boolean, -1, 2^70 and
    a string of control characters (this round's fuzz drove every one; here, one of each part of the document):
    rejected by the check that reads it, never an internal error and never accepted."""
    doc = _audit(f"mixed_pooling.{kind}.audit.json")
    for bad in BAD:
        forged = copy.deepcopy(doc)
        parent = forged
        for key in path[:-1]:
            parent = parent[key]
        parent[path[-1]] = bad
        report = _verdict(forged)
        assert report.outcome == "rejected", (bad, report.reasons)
        assert "could not complete" not in str(report.rejections[0]), str(report.rejections[0])


C17 = ROOT.parent / "shared" / "circuits" / "iscas85" / "c17.bench"


@pytest.fixture(scope="module")
def capped() -> dict[str, dict[str, Any]]:
    """Certificates of c17 under the depth-aware arithmetization (shadow gates and annotations)."""
    from verified_aat.api import certificate, certify
    from verified_aat.circuits.io import load_circuit
    return {mode: json.loads(json.dumps(dict(certificate(certify(load_circuit(str(C17), mode, cap=4))))))
            for mode in ("exact", "threshold")}


@pytest.mark.parametrize("mode", ["exact", "threshold"])
def test_a_netlist_sections_hints_of_the_wrong_type_are_rejected_at_their_path(capped, mode: str) -> None:  # type: ignore[no-untyped-def]
    """The shadow gates, annotations (gate, form, cut) and output choices of a section with all three, each replaced
    by bad values: rejected at its JSON path under $.netlist, never an internal error."""
    doc = capped[mode]
    section = doc["netlist"]
    assert section["shadow"] and section["annotations"] and _verdict(doc).accepted
    for field, index in [("shadow", (0, 1)), ("annotations", (0, 0)), ("annotations", (0, 1)), ("annotations", (0, 2)),
                         ("annotations", (0, 2, 0)), ("outputs", (0,)), ("drop_dead", ())]:
        for bad in ([[]], 2**70):  # True is an honest drop_dead (accepted); the round's fuzz drove every value
            forged = copy.deepcopy(doc)
            if not index:
                forged["netlist"][field] = bad
            else:
                parent = forged["netlist"][field]
                for key in index[:-1]:
                    parent = parent[key]
                parent[index[-1]] = bad
            report = _verdict(forged)
            assert report.outcome == "rejected", (field, index, bad, report.reasons)
            first = str(report.rejections[0])
            assert "could not complete" not in first and "$.netlist" in first, (field, index, bad, first)


def test_a_netlist_text_one_gate_or_wire_away_with_its_hash_is_rejected_by_a_local_lemma(capped) -> None:  # type: ignore[no-untyped-def]
    """Semantic forgeries of a section with shadow gates and annotations: the embedded text changed by one gate's type
    or one wire, its sha256 recomputed, the hints left as the engine derived them for the true netlist (and the
    section otherwise self-consistent): a local lemma (b) or (c) fails, in both modes."""
    for mode, doc in capped.items():
        for old, new in [("10 = NAND(1, 3)", "10 = AND(1, 3)"), ("22 = NAND(10, 16)", "22 = NOR(10, 16)"),
                         ("19 = NAND(11, 7)", "19 = NAND(11, 6)"), ("23 = NAND(16, 19)", "23 = NAND(16, 11)")]:
            forged = copy.deepcopy(doc)
            forged["netlist"]["text"] = text = forged["netlist"]["text"].replace(old, new)
            assert text != doc["netlist"]["text"]
            forged["netlist"]["sha256"] = hashlib.sha256(text.encode()).hexdigest()
            report = _verdict(forged)
            assert report.outcome == "rejected", (mode, new, report.reasons)
            assert report.rejections[0].check == "netlist" and "local lemma does not hold" in str(report.rejections[0])
