"""The kernel reads construction documents: forged certificates that are consistent in every hash and
count but carry an illegitimate document are rejected, each by the rule it breaks (docs/soundness.md S2,
P2, P3); a layout that departs from what the proof needs at any fan-in or slot is caught, with no sampling."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from forge import Forgery, forge, verdict
from verified_aat.circuits.builder import CircuitBuilder
from verified_aat.kernel import Options, check_certificate
from verified_aat.kernel.data import Malformed, NotChecked, load_circuit
from verified_aat.kernel.agreement import encoding_digest
from verified_aat.kernel.encoding import build as build_encoding
from verified_aat.kernel.layouts import read_construction, shipped_construction
from verified_aat.schematic.prove import schematic_document

ROOT = Path(__file__).resolve().parent.parent
HONEST = json.loads((ROOT / "tests/data/constructions/gate-edge-5.json").read_text())
EXAMPLE = json.loads((ROOT / "docs/examples/constructions/interleaved.json").read_text())


def square_sum():
    """(x0 + x1)² and x0 + x1: one add, one mul, two inputs."""
    b = CircuitBuilder("square_sum")
    x, y = b.input("x"), b.input("y")
    s = b.add(x, y)
    b.output(b.mul(s, s))
    b.output(s)
    return b.build()


def edited(change) -> dict:  # type: ignore[no-untyped-def]
    doc = copy.deepcopy(HONEST)
    change(doc)
    return doc


def rejected(doc: dict, check: str) -> str:
    report = verdict(doc)
    assert report.outcome == "rejected", (report.outcome, report.reasons)
    first = report.rejections[0]
    assert first.check == check, report.reasons
    assert f"docs/soundness.md {first.step}" in str(first)
    return first.detail


def forged(document: dict) -> dict:
    """A consistent certificate for ``document`` (engine side from the honest document)."""
    return forge(Forgery(square_sum(), construction=document["name"], document=document, honest=HONEST))


def test_an_honest_document_certificate_is_accepted_and_names_the_documents_hash():
    report = verdict(forged(HONEST))
    assert report.outcome == "accepted", report.reasons
    digest = read_construction(HONEST, "$").digest
    assert f"enc_gate-edge-5 as its embedded construction document (sha256 {digest}) states it" in report.theorem


def _input_list(d: dict) -> None:
    d["positions"][0]["input"] = ["val", "sq"]


def _x_squared(d: dict) -> None:
    d["positions"][0]["row"]["*"]["sq"] = "x*x"


def _reads_a_value(d: dict) -> None:
    d["positions"][0]["row"]["input"] = {"a": "id + val"}


def _out_of_order(d: dict) -> None:
    d["positions"][1]["order"] = "by source id, then slot"


def _unknown_slot(d: dict) -> None:
    d["positions"][0]["input"] = "value"


@pytest.mark.parametrize("change, words", [
    (_input_list, "one coordinate"),          # x_i in two places
    (_x_squared, "unknown name 'x'"),         # x_i² in a row
    (_reads_a_value, "unknown name 'val'"),   # a row that depends on x (through a value)
    (_out_of_order, "always ordered"),        # positions out of the declared order
    (_unknown_slot, "one coordinate"),        # a slot that points to no coordinate
], ids=["x-in-two-places", "x-squared", "row-reads-a-value", "out-of-order", "slot-to-nowhere"])
def test_an_illegitimate_document_is_rejected_by_the_construction_check(change, words):
    doc = forged(HONEST)
    doc["construction_document"] = edited(change)
    assert words in rejected(doc, "construction")


def test_a_slot_that_points_to_the_wrong_coordinate_breaks_the_base_case():
    """x_i put into sq, where the schedule claims nothing: val of an input gate then holds 0, not x_i."""
    wrong = edited(lambda d: d["positions"][0].__setitem__("input", "sq"))
    detail = rejected(forged(wrong), "base")
    assert "input" in detail or "x" in detail


def test_a_nonzero_row_beside_an_input_is_not_a_legitimate_encoding():
    wrong = edited(lambda d: d["positions"][0]["row"].setdefault("input", {}).__setitem__("val", "1"))
    doc = forged(HONEST)
    doc["construction_document"] = wrong
    assert "x_i must be alone there" in rejected(doc, "encoding")


def test_an_embedded_document_may_not_borrow_a_built_ins_name():
    doc = forge(Forgery(square_sum()))  # gate-edge, honest
    other = copy.deepcopy(shipped_construction("gate-edge").data)
    other["summary"] = "mine"
    doc["construction_document"] = other
    assert "differs from the shipped one" in rejected(doc, "construction")
    doc["construction_document"] = copy.deepcopy(shipped_construction("gate-edge").data)  # the very same document: fine
    assert verdict(doc).outcome == "accepted"


def test_a_document_whose_name_is_not_the_certificates_is_rejected():
    doc = forged(HONEST)
    doc["construction_document"] = edited(lambda d: d.__setitem__("name", "other"))
    assert "the document's name must be the certificate's construction" in rejected(doc, "construction")


def test_positions_in_another_order_are_another_encoding():
    """A forger who reverses the edges (every hash recomputed) proves something about the wrong enc(C, x)."""
    from dataclasses import replace
    from verified_aat.circuits.json_format import canonical_circuit_bytes

    kC = load_circuit(json.loads(canonical_circuit_bytes(square_sum())), "$", extra_keys={"format", "version", "domain"})
    honest = build_encoding(read_construction(HONEST, "$"), kC)
    n_gates = len(kC.gates)
    flipped = replace(honest, rows=honest.rows[:n_gates] + honest.rows[n_gates:][::-1],
                      roles=honest.roles[:n_gates] + honest.roles[n_gates:][::-1])
    assert encoding_digest(flipped) != encoding_digest(honest)
    doc = forge(Forgery(square_sum(), construction="gate-edge-5", document=HONEST, encoding=flipped))
    assert "enc(C) as the kernel builds it for gate-edge-5" in rejected(doc, "encoding")


# -- schematic certificates: the induction is read off the document --------------------------------

def _schematic(document: dict):  # type: ignore[no-untyped-def]
    """The kernel's own schematic certificate for ``document`` (every K), every lemma claimed proved."""
    from verified_aat.constructions.document import parse_document
    from verified_aat.constructions.interpreted import DocumentConstruction

    construction = DocumentConstruction(parse_document(EXAMPLE, "interleaved.json"))
    doc, _, report = schematic_document(document["name"], None, construction.transformer(1), 1, embedded=document)
    return doc, report


def test_the_worked_example_is_accepted_for_every_k():
    doc, report = _schematic(EXAMPLE)
    assert not report.rejections
    result = check_certificate(doc, Options())
    assert result.outcome == "accepted", result.reasons
    assert result.theorem.startswith("for every K ≥ 1, every FSAC⁰[sign] circuit")


def test_a_schedule_that_settles_a_gate_before_its_operands_is_rejected():
    early = copy.deepcopy(EXAMPLE)
    early["schedule"]["gate"]["scale"] = 1
    doc, report = _schematic(early)
    assert report.rejections and report.rejections[0].check == "schematic-scheme"
    assert "before" in report.rejections[0].detail


def test_inputs_outside_val_fail_the_base_case_of_the_induction():
    moved = copy.deepcopy(EXAMPLE)
    gate = next(g for g in moved["positions"] if g["role"] == "gate")
    gate["input"] = "keep"
    doc, report = _schematic(moved)
    assert report.rejections and report.rejections[0].check == "schematic-encoding"
    assert "inputs are not placed in val" in report.rejections[0].detail


@pytest.mark.parametrize("cap", [64, 65, 1000])
def test_an_add_code_capped_at_any_fan_in_is_caught_without_sampling(cap):
    """The kernel's templates are the document's formulas on a symbolic k: a layout that codes an add of
    fan-in above ``cap`` wrongly makes a lemma false, whatever the cap (no check up to 64)."""
    from verified_aat.kernel.solvers import z3_answer

    capped = copy.deepcopy(shipped_construction("gate-edge").data)
    capped["name"] = f"gate-edge-cap{cap}"
    capped["positions"][0]["row"]["add"]["op"] = f"min(k, {cap})"
    construction_doc, report = _schematic_for_builtin_transformer(capped, "gate-edge")
    assert not report.rejections
    answers = [z3_answer(lemma["smt2"], 20_000) for lemma in construction_doc["lemmas"]]
    assert "sat" in answers  # a false lemma: the forged 'proved' certificate is rejected by the solvers
    assert check_certificate(construction_doc, Options()).outcome == "rejected"


def test_an_edge_row_that_departs_at_a_large_slot_is_caught():
    """edge-k with a slot bit that flips for slots ≥ 65: the symbolic slot s ≥ 1 sees it."""
    odd = copy.deepcopy(shipped_construction("edge-k").data)
    odd["name"] = "edge-k-odd"
    for group in odd["positions"]:
        for kind, row in group["row"].items():
            if "op" in row:
                row["op"] = row["op"].replace("(2*min(slot, 1) - 1)", "(2*min(slot, 1) - 1 - 2*min(max(slot - 64, 0), 1))")
    doc, report = _schematic_for_builtin_transformer(odd, "edge-k")
    assert not report.rejections
    assert check_certificate(doc, Options()).outcome == "rejected"


def _schematic_for_builtin_transformer(document: dict, builtin: str):  # type: ignore[no-untyped-def]
    from verified_aat.constructions.registry import get_construction

    doc, _, report = schematic_document(document["name"], None, get_construction(builtin).transformer(1), 1,
                                        embedded=document)
    return doc, report


# -- one reader for every construction --------------------------------------------------------------

@settings(max_examples=25, deadline=None)
@given(name=st.sampled_from(sorted(p.stem for p in (ROOT / "verified_aat/data/constructions").glob("*.json"))),
       data=st.data())
def test_the_kernels_reading_of_every_built_in_is_the_engines_encoding(name, data):
    from strategies import circuits
    from verified_aat.certificates.kernel_form import encoding_digest as engine_digest
    from verified_aat.circuits.json_format import canonical_circuit_bytes
    from verified_aat.constructions.registry import get_construction
    from verified_aat.errors import InputError

    circuit = data.draw(circuits(max_gates=10, max_inputs=3))
    construction = get_construction(name)
    try:
        construction.check_class(circuit)
    except InputError:
        return
    kC = load_circuit(json.loads(canonical_circuit_bytes(circuit)), "$", extra_keys={"format", "version", "domain"})
    assert encoding_digest(build_encoding(shipped_construction(name), kC)) == engine_digest(construction.encode(circuit))


def test_the_kernels_formula_reader_refuses_what_is_not_a_formula():
    from verified_aat.kernel.formula import parse

    for text in ["", "1/0", "k k", "min(k)", "k / 2", "2 ** k", "x", "(k", "k)"]:
        with pytest.raises(Malformed):
            parse(text, frozenset({"k", "id"}), "$.f")
    for text in ["id" * 1500, "-" * 80 + "k"]:  # past the kernel's size limits: not checked, not malformed
        with pytest.raises(NotChecked, match="past the kernel's limit"):
            parse(text, frozenset({"k", "id"}), "$.f")


# -- the transformer a certificate says is the construction's own -----------------------------------

@pytest.mark.parametrize("name", sorted(p.stem for p in (ROOT / "verified_aat/data/constructions").glob("*.json")))
def test_the_kernel_recognises_every_documents_own_transformer(name):
    """Each shipped document, renamed into a user's document: T_K compiled by the engine is, by the kernel's
    own reading of the document's layers, the document's own T_K for the right K."""
    mine = copy.deepcopy(shipped_construction(name).data)
    mine["name"] = f"my-{name}"
    doc = forge(Forgery(square_sum(), construction=mine["name"], document=mine))
    doc["info"]["transformer"] = "own"
    report = verdict(doc, defence_budget=0)
    assert report.outcome == "accepted", report.reasons
    layers = len(doc["transformer"]["layers"])
    block = len(mine["transformer"]["block"])
    fixed = len(mine["transformer"].get("prefix", [])) + len(mine["transformer"].get("suffix", []))
    assert f"T being my-{name}'s own T_K for K = {(layers - fixed) // block}" in report.theorem


@pytest.mark.parametrize("zero", ["0", "-0", "0/7", "0.0"])
def test_a_bilinear_entry_zero_is_absent_in_the_own_transformer_claim(zero):
    """The engine reads a document's bilinear entry "0" as no entry (transformer/spec.py), so T_K has none there; the
    kernel's reading of the claim did count it, and refused an honest "own" claim. A non-zero entry still differs."""
    mine = copy.deepcopy(shipped_construction("gate-edge-dot").data)
    mine["name"] = "my-dot"
    for layer in mine["transformer"]["block"]:
        for head in layer["heads"]:
            head["score"]["bilinear"]["i.op j.val"] = zero
    doc = forge(Forgery(square_sum(), construction=mine["name"], document=mine))
    doc["info"]["transformer"] = "own"
    report = verdict(doc, defence_budget=0)
    assert report.outcome == "accepted", report.reasons
    assert "T being my-dot's own T_K" in report.theorem
    for layer in mine["transformer"]["block"]:
        layer["heads"][0]["score"]["bilinear"]["i.op j.val"] = "1"
    doc["construction_document"] = mine  # T stays the zero-entry T_K: it is no longer the document's
    report = verdict(doc, defence_budget=0)
    assert report.outcome == "rejected" and report.rejections[0].check == "own-transformer", report.reasons


def _change_block(d: dict) -> None:
    fn = d["transformer"]["block"][1]["activation"]
    lines = d["transformer"]["functions"][fn]
    d["transformer"]["functions"][fn] = [line.replace("const 1", "const 2", 1) if "const 1" in line else line
                                         for line in lines]
    assert d["transformer"]["functions"][fn] != lines


def test_a_repeated_block_that_differs_from_the_certificates_transformer_is_rejected():
    """The document says the gather layer is one circuit, the certificate's T has another (its true T_K)."""
    doc = forged(HONEST)
    doc["construction_document"] = edited(_change_block)
    doc["info"]["transformer"] = "own"
    assert "is not the document's prefix + K × block + suffix" in rejected(doc, "own-transformer")
    doc["construction_document"] = HONEST  # the same certificate with the honest document: accepted, and says so
    assert "own T_K" in verdict(doc).theorem


def test_a_schematic_certificate_whose_document_block_differs_is_rejected():
    doc, report = _schematic(EXAMPLE)
    doc["info"]["transformer"] = "own"
    assert check_certificate(doc, Options()).outcome == "accepted"
    other = copy.deepcopy(EXAMPLE)
    fetch = other["transformer"]["block"][0]
    fetch["heads"][0]["pooling"] = "rightmost" if fetch["heads"][0]["pooling"] != "rightmost" else "leftmost"
    doc["construction_document"] = other
    result = check_certificate(doc, Options())
    assert result.outcome == "rejected" and result.rejections[0].check == "schematic-scheme"
    assert "own T_K" in result.rejections[0].detail


def test_the_api_takes_a_document_file_and_its_certificate_is_accepted(tmp_path):
    import verified_aat as va

    path = ROOT / "docs/examples/constructions/interleaved.json"
    mine = va.construction(str(path))
    assert mine.name == "interleaved" and va.construction(mine) is mine and va.construction(path).name == mine.name
    result = va.certify(square_sum(), path)
    assert result.status == "proved"
    report = va.check(va.certificate(result))
    assert report.accepted and "interleaved's own T_K" in report.theorem
    proof = va.prove_construction(str(path))
    assert proof.status == "proved" and check_certificate(proof.certificate, Options()).outcome == "accepted"


def test_construction_check_reports_the_kernels_reading(tmp_path, capsys):
    from verified_aat.cli.main import main

    assert main(["construction", "check", str(ROOT / "docs/examples/constructions/interleaved.json")]) == 0
    assert "every K: the gate-edge induction applies" in capsys.readouterr().out
    assert main(["construction", "check", str(ROOT / "verified_aat/data/constructions/edge-k.json")]) == 0
    assert "every K: the edge induction applies" in capsys.readouterr().out
    early = copy.deepcopy(EXAMPLE)
    early["name"] = "early"
    early["schedule"]["gate"]["scale"] = 1
    path = tmp_path / "early.json"
    path.write_text(json.dumps(early, indent=1))
    assert main(["construction", "check", str(path)]) == 0  # another layering may settle gates this early
    out = capsys.readouterr().out
    assert "every K: no induction of the kernel applies" in out and "settles gate positions at 1·depth" in out
    deep = copy.deepcopy(HONEST)
    deep["name"] = "deep"
    deep["positions"][0]["row"]["*"]["a"] = "id*id*id*id*id*id*id*id*id"
    path.write_text(json.dumps(deep, indent=1))  # past the kernel's degree: no certificate of it can be checked
    assert main(["construction", "check", str(path)]) == 2
    assert "degree above 8 in the parameters" in capsys.readouterr().err


@pytest.mark.parametrize("limits, shapes, named", [
    ({"min": 1}, ["addk"], "FSAC⁰[sign] (add fan-in 1…∞)"),
    ({"min": 2}, ["addk"], "FSAC⁰[sign] (add fan-in 2…∞)"),
    ({"max": 5}, ["add0", "addk"], "FSAC⁰[sign] (add fan-in 0…5)"),
    ({"min": 1, "max": 2}, ["add1", "add2"], "FNC⁰[sign] (add fan-in 1…2)"),
    ({}, ["add0", "addk"], "FSAC⁰[sign]"),
])
def test_every_gate_of_the_documents_class_has_a_shape_and_the_theorem_names_the_class(limits, shapes, named):
    """A class narrower than FSAC⁰[sign] is named so in the theorem; no gate it allows is left without a shape."""
    from verified_aat.kernel.schematic_scheme import scheme_of

    doc = copy.deepcopy(shipped_construction("gate-edge").data)
    doc["class"]["fan_in"]["add"] = limits
    scheme = scheme_of(read_construction(doc, "$"))
    assert [s.name for s in scheme.shapes if s.op == "add"] == shapes
    assert scheme.circuit_class == named
