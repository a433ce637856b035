"""A document's coordinate names never alias the kernel's own lemma variables (red team, 2026-12-03).

The schematic lemmas name a coordinate's value at a symbolic position ``{p}_{coordinate}`` and a parameter
``{p}_u`` (source id), ``{p}_k`` (fan-in), … .  An edge-k document whose ``op`` coordinate was renamed ``u``
made the two one variable: the row hypothesis then tied the source id to a negative op code, every
attention lemma became vacuous, and a wrong transformer (``EdgeKSlotIgnored``) was ACCEPTED with a false
theorem.  Now a name asked for two meanings is *not checked*; a forger who shares them anyway (the old
derivation, patched back in) gets lemma texts the kernel does not derive."""

from __future__ import annotations

import copy
import json
import re
from dataclasses import replace
from typing import Any

import pytest

from mutants import EdgeKSlotIgnored
from verified_aat.constructions.registry import get_construction
from verified_aat.kernel import Options, check_certificate
from verified_aat.kernel import schematic_lemmas
from verified_aat.kernel.layouts import shipped_construction
from verified_aat.schematic.prove import schematic_document


def _renamed(construction: str, old: str, new: str) -> dict[str, Any]:
    doc = copy.deepcopy(shipped_construction(construction).data)
    doc["name"] = f"{construction}-{new}"
    doc["coordinates"] = [new if c == old else c for c in doc["coordinates"]]
    doc["structural"] = [new if c == old else c for c in doc["structural"]]
    for group in doc["positions"]:
        for entries in group["row"].values():
            if old in entries:
                entries[new] = entries.pop(old)
    doc["transformer"] = json.loads(re.sub(rf"\.{old}\b", f".{new}", json.dumps(doc["transformer"])))
    return doc


def _certificate(construction: str, T: Any, old: str, new: str) -> tuple[dict[str, Any] | None, Any]:
    document = _renamed(construction, old, new)
    T = replace(T, coordinates=tuple(new if c == old else c for c in T.coordinates))
    cert, _, report = schematic_document(document["name"], 1, T, 1, embedded=document)
    return cert, report


_VAR = schematic_lemmas.Lemma.var


def _old_var(self: Any, name: str, is_id: bool = False, of: Any = None) -> str:
    """The derivation before the fix: a name asked for twice is silently one variable (its meaning forgotten)."""
    self.meaning.pop(name, None)
    return _VAR(self, name, is_id)


def _forged(monkeypatch: pytest.MonkeyPatch, T: Any, new: str) -> dict[str, Any]:
    with monkeypatch.context() as patched:  # the attacker's derivation: the one before the fix
        patched.setattr(schematic_lemmas.Lemma, "var", _old_var)
        forged, _ = _certificate("edge-k", T, "op", new)
    return forged


@pytest.mark.parametrize("new", ["u", "v"])  # the source and target ids of an edge of unknown shape
def test_a_coordinate_named_like_a_parameter_is_not_checked(new: str, monkeypatch: pytest.MonkeyPatch) -> None:
    doc = _forged(monkeypatch, get_construction("edge-k").transformer(1), new)
    report = check_certificate(doc, Options())
    assert report.outcome == "not-checked" and any("stand for two things" in u for u in report.unchecked), \
        report.reasons


def test_a_forger_who_shares_the_names_gets_no_acceptance(monkeypatch: pytest.MonkeyPatch) -> None:
    """The red team's certificate: EdgeKSlotIgnored's wrong attention behind a coordinate named u."""
    report = check_certificate(_forged(monkeypatch, EdgeKSlotIgnored().transformer(1), "u"), Options())
    assert not report.accepted and report.outcome == "not-checked", report.reasons


@pytest.mark.parametrize("new", ["opx", "k", "c"])  # k, c: parameter names, but not of a position this coordinate is read at
def test_a_harmless_rename_is_still_proved_and_a_wrong_transformer_still_refuted(new: str) -> None:
    cert, _ = _certificate("edge-k", get_construction("edge-k").transformer(1), "op", new)
    report = check_certificate(copy.deepcopy(cert), Options())
    assert report.accepted, report.reasons
    wrong, _ = _certificate("edge-k", EdgeKSlotIgnored().transformer(1), "op", new)
    assert check_certificate(wrong, Options()).outcome == "rejected"
