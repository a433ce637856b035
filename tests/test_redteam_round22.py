"""Red team, round 22: certificate version 3's digest, the sharded check, the obligation tally, proof objects.

Found: (1) an attention hint whose ``head`` is not a string (a list or an object: unhashable) made the attention
check fail with a Python ``TypeError`` ("the kernel could not complete this check"): a malformed field must be named
at its path, as every other field of the hints is.  Fixed in ``kernel/checks.py`` (``_attention``: the head must
be a name before it is looked up), same line count.

The rest are attacks the kernel rejects by the rule they break, on paths no earlier test drove: forged certificates
on stripes of one position over forked workers (``kernel/sharded.py``) with the seeded interpreter switched off,
so that the lemma check itself must reject; an obligation moved between kinds with the total unchanged (the tally
of ``Deriver._run_range``) and a lemma's kind relabelled, in one process and on shards; a v2 text digest in a v3
certificate for a brute-force head; a forged proof object whose leaf is an ``identity`` of an empty conjunction.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

import mutants
from forge import Forgery, forge, verdict
from verified_aat.kernel import obligations as kernel_obligations, sharded
from verified_aat.kernel.agreement import summary
from verified_aat.kernel.positivity import BadProof, check_proof
from verified_aat.shards import ForkedShards

ROOT = Path(__file__).resolve().parent.parent


def _on_shards(monkeypatch: pytest.MonkeyPatch) -> ForkedShards:
    """Every certificate sharded, one position a stripe, over two forked workers."""
    monkeypatch.setattr(kernel_obligations, "PARALLEL_MIN_POSITIONS", 2)
    monkeypatch.setattr(sharded, "STRIPE", 1)
    return ForkedShards(2)


def _summary(report) -> tuple:  # type: ignore[no-untyped-def]
    return report.outcome, [str(r) for r in report.rejections], report.unchecked, report.lemmas, report.obligations


@pytest.mark.parametrize("bad", [["fetch"], {"a": 1}, 7, None])
def test_an_attention_hint_whose_head_is_not_a_name_is_malformed_at_its_path(bad) -> None:  # type: ignore[no-untyped-def]
    """Class: a certificate value used as a dictionary key before its type is known (an unhashable list or object)
    raised TypeError inside the check, reported as 'the kernel could not complete this check'. Fix: the head is a
    string (a name) or the hint is malformed, named at $.hints.attention[k]."""
    doc = forge(Forgery(mutants.probe_circuit()))
    doc["hints"]["attention"][0]["head"] = bad
    report = verdict(doc)
    assert report.outcome == "rejected", report.reasons
    first = report.rejections[0]
    assert first.check == "attention" and "could not complete" not in str(first), str(first)
    assert "$.hints.attention[0]" in str(first) and "head's name" in str(first)


@pytest.mark.parametrize("mutant", [mutants.SquareOfMean, mutants.SignOfZeroIsOne, mutants.NoGatherPenalty,
                                    mutants.EdgeKDoubleProduct], ids=lambda m: m.__name__)
def test_a_wrong_transformer_is_rejected_by_its_lemmas_on_shards_as_in_one_process(mutant, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The merge of the workers' stripes (one position each) gives the verdict of one process, with the seeded
    interpreter given no budget: the false lemma itself rejects the certificate, named alike, and the counts agree."""
    circuit = mutants.probe_circuit()
    construction = "edge-k" if mutant.__name__.startswith("EdgeK") else "gate-edge"
    doc = forge(Forgery(circuit, mutant().compile(circuit).transformer, construction=construction))
    alone = verdict(doc, defence_budget=0)
    assert alone.outcome == "rejected" and alone.rejections[0].check == "solvers", alone.reasons
    assert _summary(verdict(doc, defence_budget=0, shards=_on_shards(monkeypatch))) == _summary(alone)


def _moved(doc: dict, source: str, target: str) -> dict:
    forged = copy.deepcopy(doc)
    counts = forged["derived"]["obligations"]
    counts[source] -= 1
    counts[target] = counts.get(target, 0) + 1
    if not counts[source]:
        del counts[source]
    return forged


def test_an_obligation_moved_between_kinds_is_rejected_at_the_tally_in_one_process_and_on_shards(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The tally counts obligations per (claim pattern, local kind, frame kind): a certificate whose total is right
    but one local-step obligation is filed as a frame one (or as another gate kind) is the kernel's count's, nowhere."""
    doc = forge(Forgery(mutants.probe_circuit()))
    counts = doc["derived"]["obligations"]
    assert verdict(doc).accepted and "local-step:mul" in counts and "frame:gate" in counts
    shards = _on_shards(monkeypatch)
    for source, target in (("local-step:mul", "frame:gate"), ("local-step:mul", "local-step:add"),
                           ("frame:gate", "frame:edge")):
        forged = _moved(doc, source, target)
        assert sum(forged["derived"]["obligations"].values()) == sum(counts.values())
        for options in ({}, {"shards": shards}):
            report = verdict(forged, **options)
            assert report.outcome == "rejected" and report.rejections[0].check == "obligations", report.reasons
            assert "obligations: the kernel derives" in str(report.rejections[0])


def test_a_lemma_relabelled_to_another_kind_is_rejected_on_shards(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A lemma's kind is its first use's, also when that use is in another worker's stripe."""
    doc = forge(Forgery(mutants.probe_circuit()))
    entry = next(e for e in doc["lemmas"] if e["kind"].startswith("local-step:"))
    entry["kind"] = "frame:gate"
    report = verdict(doc, shards=_on_shards(monkeypatch))
    assert report.outcome == "rejected" and report.rejections[0].check == "lemmas", report.reasons
    assert "its kind is" in str(report.rejections[0])


def test_version_2_digests_of_brute_force_heads_are_read_only_in_a_version_2_certificate() -> None:
    """Version confusion on brute-force heads (each position its own tuple, the summary's other route than the key
    joins'): every head's text digest in a version-3 certificate, or its 64-bit digest in a version-2 one, is
    rejected at the derived counts; each in its own version is accepted."""
    from verified_aat.kernel.attention import brute_force, budget_for
    from verified_aat.kernel.data import load_structure, load_transformer
    from verified_aat.kernel.derivation import layer_functions
    from verified_aat.kernel.encoding import build
    from verified_aat.kernel.layouts import shipped_construction
    doc = forge(Forgery(mutants.probe_circuit(), attention=[{"function": 0, "head": "fetch", "method": "brute-force"},
                                                            {"function": 1, "head": "gather", "method": "brute-force"}]))
    rows = build(shipped_construction("gate-edge"), load_structure(doc["circuit"], "$")).rows
    heads = {(fn.number, h.name): h for fn in layer_functions(load_transformer(doc["transformer"])) for h in fn.layer.heads}
    digests = {3: [e["sets"]["digest"] for e in doc["derived"]["attention"]],
               2: [summary(brute_force(rows, heads[(e["function"], e["head"])].score, budget_for(rows)), version=2)
                   ["digest"] for e in doc["derived"]["attention"]]}
    assert all(e["method"] == "brute-force" for e in doc["derived"]["attention"]) and digests[2] != digests[3]
    for version, written in ((3, 2), (2, 3), (2, 2), (3, 3)):
        forged = json.loads(json.dumps(doc))
        forged["version"] = version
        for entry, digest in zip(forged["derived"]["attention"], digests[written]):
            entry["sets"]["digest"] = digest
        report = verdict(forged)
        assert report.accepted == (version == written), (version, written, report.reasons)
        if version != written:
            assert report.rejections[0].check == "obligations" and "attention:" in str(report.rejections[0])


def test_an_identity_leaf_needs_a_goal_of_equations() -> None:
    """A forged proof object's identity leaf on a lemma whose goal is an inequality, and a positive leaf on an
    equation goal: neither closes its case, under any solver (the kernel never asks one for a proof object)."""
    lemma = ("(set-logic QF_NRA)\n(declare-const a Real)\n(declare-const b Real)\n(assert (>= a b))\n"
             "(assert (not (< b a)))\n(check-sat)\n")  # false: a = b satisfies both assertions
    for proof in ({"identity": True}, {"positive": {"products": [[1, [0]]], "squares": [], "constant": "1"}},
                  {"positive": {"products": [["1", [0]]], "squares": [], "constant": "1"}},
                  {"cases-on": "(- a b)", "cases": [{"identity": True}, {"identity": True}, {"identity": True}]}):
        with pytest.raises(BadProof):
            check_proof(lemma, proof)
