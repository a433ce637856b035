"""Red team, round 8: a differential fuzzer of construction documents, kept as a bounded seeded test.

The fuzz run (``tests/construction_differential.py``'s edits, and more: output maps, hints, structural lists,
read-outs, input coordinates, sink targets, group order, bilinear entries, prefix and suffix layers) took
mutants of the seven shipped documents and of docs/examples' interleaved one, and compared the tool's
verdicts (prove-construction for every K and the kernel's check of its certificate, certify on three circuits
with the kernel, refute and prove-construction --transformer for edited transformers, compile + run + eval
through the command line) with ground truth: the naive exact engine on random circuits of depth ≤ 3 and random
rational inputs, against eval.  No kernel-accepted verdict disagreed with an exact run, every refutation
replayed, the settled run always gave the reference's numbers, and no command ended in an internal error.

Kept: documents wrong only where the every-K lemmas must look (an add of fan-in ≥ 10, a sign at 0, an add
of fan-in ≥ 7 in the edge layout) are refuted with a witness that is a real mismatch; two right ones that are
not the shipped layout (an input's gather key is its input index, half-integer fetch keys) are proved,
accepted and agree with the exact runs; and a few seeded mutants go through the same comparison.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import verified_aat.api as va
from verified_aat.circuits.measures import depth
from verified_aat.constructions.interpreted import DocumentConstruction
from verified_aat.errors import InputError

from construction_differential import exact_mismatch, mutant, replays
from strategies import circuits, input_vectors

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "redteam_round8_constructions"
SHIPPED = ROOT / "verified_aat" / "data" / "constructions"
EXPECTED = {"add-k-min9": "refuted", "sign-shift": "refuted", "edgek-add-min6": "refuted",
            "input-b-index": "proved", "half-keys": "proved"}


def _verdict_agrees(construction: DocumentConstruction, data: st.DataObject, proved: bool) -> None:
    """Circuits of the document's class, depth ≤ 3, at K = depth and depth + 1: an accepted every-K theorem
    must agree with the reference engine on every one."""
    for _ in range(4):
        circuit = data.draw(circuits(max_gates=7, max_inputs=3).filter(lambda c: depth(c) <= 3))
        try:
            construction.check_class(circuit)
        except InputError:
            continue
        for k in (max(1, depth(circuit)), depth(circuit) + 1):
            xs = [data.draw(input_vectors(circuit.n_inputs)) for _ in range(2)]
            found = exact_mismatch(construction, circuit, k, xs)
            assert not (proved and found), (construction.name, circuit, k, found)


@pytest.fixture(scope="module")
def every_k() -> dict[str, tuple[DocumentConstruction, object]]:
    out = {}
    for name in EXPECTED:
        construction = DocumentConstruction.load(DATA / f"{name}.json")
        out[name] = construction, va.prove_construction(construction, timeout=10, witness_budget=60)  # wall clock; stops at a witness
    return out


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_documents_every_k_verdict_is_the_exact_engines(name: str, every_k: dict) -> None:
    construction, result = every_k[name]
    assert result.status == EXPECTED[name], (name, result.problems)
    if result.status == "refuted":
        assert replays(construction, result.refutation)
    else:
        assert va.check(result.certificate).accepted

    @settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(st.data())
    def agree(data: st.DataObject) -> None:
        _verdict_agrees(construction, data, result.status == "proved")
    agree()


@pytest.mark.parametrize("base, seed, status", [("gate-edge", 7, "refuted"), ("gate-edge", 2, "refuted"),
                                                ("edge-k", 5, "refuted"), ("unique-hard-left", 5, "proved"),
                                                ("edge-only", 6, "proved")])
def test_seeded_mutants_agree_with_the_exact_engine(base: str, seed: int, status: str, tmp_path: Path) -> None:
    """E.g. edge-k whose class allows a mul of fan-in 3 (seed 5): no every-K induction covers it, and the witness
    search refutes it with such a mul; unique-hard-left with the same edit is proved (its '*' limit of 2 wins)."""
    doc, notes = mutant(json.loads((SHIPPED / f"{base}.json").read_text()), seed)
    path = tmp_path / "mutant.json"
    path.write_text(json.dumps(doc))
    construction = DocumentConstruction.load(path)
    result = va.prove_construction(construction, timeout=10, witness_budget=60)  # wall clock; stops at a witness
    assert result.status == status, (notes, result.problems)
    if result.status == "proved":
        assert va.check(result.certificate).accepted, notes
    if result.status == "refuted":
        assert replays(construction, result.refutation), notes

    @settings(max_examples=2, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(st.data())
    def agree(data: st.DataObject) -> None:
        _verdict_agrees(construction, data, result.status == "proved")
    agree()
