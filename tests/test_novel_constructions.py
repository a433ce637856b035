"""Construction documents written the way a researcher would vary the built-ins (tests/data/constructions_novel/).

Correct variations — coordinates renamed and permuted (value coordinates too), an unused scratch coordinate, affine
ids as keys, another key/penalty decomposition of a score, a slack layer after the last block, the block cut at
another layer, edge-k with shifted codes and a larger slot penalty, unique-hard-left with a tie that leftmost or
rightmost pooling breaks — are proved on a small circuit and the kernel accepts the certificate with no solver.
Wrong ones — a sign flipped, a penalty that ties, a missing reset, the wrong pooling, an off-by-one code or slot
bit, one layer too few — are refuted with a counterexample the exact engine replays, never proved.

The every-K induction used to find the value coordinates by their names (``val``, ``sq``): a document that renamed
them was *unknown* to ``prove-construction``.  It now reads them off the schedule's claims (power 1 and 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

import verified_aat as va
from verified_aat.constructions.interpreted import DocumentConstruction

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "constructions_novel"
FSAC = ROOT / "specs" / "circuits" / "mixed_depth6.circ"
FNC = ROOT / "specs" / "circuits" / "square_multi_edge.circ"
THRESHOLD = ROOT / "specs" / "circuits" / "threshold_weighted.circ"

CORRECT = ["ge-renamed", "ge-affine-keys", "ge-dot-decomp", "ge-slack", "ge-rotated", "ge-scratch-live", "ged-renamed",
           "ek-offset20", "ek-sinks-first", "ek-first-slot1", "eo-renamed",
           "uhl-tiebreak", "uhl-right-second"]
# wrong documents whose transformer is wrong: refuted on the circuit named here
WRONG = {"bad-ge-polar-sign": FSAC, "bad-ge-gather-tie": FSAC, "bad-ge-no-reset": FSAC,
         "bad-ge-gather-leftmost": FSAC, "bad-ge-add-k1": FSAC, "bad-ek-slot-unclamped": FSAC,
         "bad-uhl-second-tie": FNC, "bad-eo-no-suffix": FSAC, "bad-ge-renamed-polar": FSAC, "bad-ge-fetch-tie": FSAC,
         "bad-ek-offset-mismatch": THRESHOLD,  # its settled run met a running sum holding ⊥ (internal error)
         "bad-ge-affine-off1": FSAC, "bad-uhl-keep8": FNC, "bad-ge-key-collide": FSAC}


def _construction(name: str) -> DocumentConstruction:
    return DocumentConstruction.load(DATA / f"{name}.json")


def _circuit(name: str) -> va.Circuit:
    return va.load_circuit(str(FNC if name.startswith("uhl") else FSAC))


@pytest.mark.parametrize("name", CORRECT)
def test_a_correct_variation_is_proved_and_accepted_without_a_solver(name: str) -> None:
    result = va.certify(_circuit(name), _construction(name))
    assert result.status == va.Status.PROVED, result
    report = va.check(va.certificate(result), solver_trust=False)
    assert report.outcome == va.Verdict.ACCEPTED, report.reasons


@pytest.mark.parametrize("name", sorted(WRONG))
def test_a_wrong_variation_is_refuted_with_a_replayed_counterexample(name: str) -> None:
    construction = _construction(name)
    circuit = va.load_circuit(str(WRONG[name]))
    result = va.certify(circuit, construction)
    assert result.status == va.Status.REFUTED, result
    refutation = va.refute(construction.transformer(3), construction, circuit, budget=30)
    assert refutation.counterexample is not None and refutation.counterexample.rational


@pytest.mark.parametrize("name", ["ge-renamed", "eo-renamed"])
def test_renamed_value_coordinates_are_proved_for_every_k(name: str) -> None:
    """The value coordinates are the ones the schedule claims V and V² of, whatever their names."""
    result = va.prove_construction(_construction(name))
    assert result.status == va.Status.PROVED, result.problems
    assert va.check(result.certificate, solver_trust=False).outcome == va.Verdict.ACCEPTED
    instance = va.check(result.certificate, circuit=str(FSAC), solver_trust=False)
    assert instance.outcome == va.Verdict.ACCEPTED, instance.reasons


def test_renamed_value_coordinates_do_not_hide_a_wrong_mul() -> None:
    result = va.prove_construction(_construction("bad-ge-renamed-polar"), witness_budget=30)
    assert result.status == va.Status.REFUTED and result.refutation is not None


def test_a_coordinate_named_val_beside_renamed_values_is_not_checked() -> None:
    """Another coordinate may not take the name the lemmas give the value: not checked, never proved."""
    import json
    document = json.loads((DATA / "ge-renamed.json").read_text())
    document["name"] = "ge-renamed-val-scratch"
    document["coordinates"] = ["val" if c == "scratch" else c for c in document["coordinates"]]
    for group in document["positions"]:
        group["row"]["*"]["val"] = group["row"]["*"].pop("scratch")
    functions = document["transformer"]["functions"]
    for key, lines in functions.items():
        functions[key] = [line.replace("scratch=x.scratch", "val=x.val") for line in lines]
    from verified_aat.kernel.layouts import read_construction
    from verified_aat.kernel.data import NotChecked
    from verified_aat.kernel.schematic_scheme import scheme_of
    with pytest.raises(NotChecked, match="another coordinate has one of these names"):
        scheme_of(read_construction(document, "$.construction_document"))


@pytest.mark.parametrize("name", ["bad-ge-edge-code", "bad-eo-input-sq"])
def test_a_false_invariant_under_a_right_transformer_is_unknown_never_proved(name: str) -> None:
    """The schedule claims more than holds (an edge overwritten after its fetch; x² at layer 0) while the read-out is
    right: no counterexample can exist, so the answer is unknown, with the failed obligation named."""
    result = va.certify(va.load_circuit(str(FSAC)), _construction(name))
    assert result.status == va.Status.UNKNOWN and result.problems, result


def test_one_layer_per_level_with_gate_positions_is_not_refused_as_early() -> None:
    """gek: edge-k with a position per gate instead of sinks, every position settled at depth. The every-K
    induction's schedule (2·depth for gates) is not the only possible one: `construction check` used to refuse the
    document (exit 2, "before the 2·depth + 0 at which their operands' values can have reached them") that certify
    proves and the kernel accepts."""
    from verified_aat.cli.main import main
    path = DATA / "gek.json"
    assert main(["construction", "check", str(path)]) == 0
    result = va.certify(va.load_circuit(str(FSAC)), _construction("gek"))
    assert result.status == va.Status.PROVED
    assert va.check(va.certificate(result), solver_trust=False).outcome == va.Verdict.ACCEPTED


def test_a_slack_layer_is_unknown_for_every_k_with_what_proves_it() -> None:
    """A fetch layer after the last block: every K is beyond the induction (unknown, saying what proves it), one
    K is proved, trailing layer included."""
    construction = _construction("ge-slack")
    every = va.prove_construction(construction, witness_budget=2)
    assert every.status == va.Status.UNKNOWN
    assert any("prove-construction -K K" in p for p in every.problems), every.problems
    one = va.prove_construction(construction, depth_bound=2)
    assert one.status == va.Status.PROVED
    assert va.check(one.certificate, solver_trust=False).outcome == va.Verdict.ACCEPTED
