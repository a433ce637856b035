"""Red team, round 26: user construction documents, the "own T_K" claim and schematic (every-K) certificates.

Found: (1) a construction document's schedule rule whose ``kind_offsets`` is not a list (a number, null, true) or a
list whose items do not compare (``[1, "a"]``) made the schematic check fail with a Python ``TypeError`` inside
``sorted`` ("the kernel could not complete this check"): the document is data and any JSON value must get a verdict.
Fixed in ``kernel/schematic_scheme.py`` (``_schedule_is``: a list is sorted by its items' text, anything else compared
as it is; either way a schedule that is not the induction's is *not checked*), same line count.
(2) a position group whose ``role`` is a list or an object (unhashable) made the kernel's document reader fail with
``TypeError`` (``role in PARAMETERS``), in the per-circuit and the schematic check alike. Fixed in
``kernel/layouts.py`` (``_group``: the role is a string or the document is malformed at its path), same line count.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from forge_schematic import forge_schematic, shipped
from verified_aat.kernel import Options, check_certificate


def _renamed(name: str) -> dict[str, Any]:
    doc = shipped(name)
    doc["name"] = f"{name}-rt26"
    return doc


@pytest.fixture(scope="module")
def gate_edge_certificate() -> dict[str, Any]:
    cert = forge_schematic(_renamed("gate-edge"))
    assert cert is not None
    assert check_certificate(copy.deepcopy(cert), Options()).outcome == "accepted"
    return cert


def _edited(cert: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    doc = json.loads(json.dumps(cert))
    node = doc["construction_document"]
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return doc


def _no_internal_error(report: Any) -> None:
    assert report.outcome != "accepted", report.reasons
    assert not any("could not complete" in reason for reason in report.reasons), report.reasons


@pytest.mark.parametrize("role", ["gate", "edge"])
@pytest.mark.parametrize("bad", [5, None, True, 1.5, [1, "a"], [["const", "val", -1], ["x"]], [[1], ["a"]]])
def test_a_schedule_whose_kind_offsets_are_not_comparable_gets_a_verdict(gate_edge_certificate, role: str,
                                                                          bad: Any) -> None:
    """Class: a document's value sorted before its type is known (TypeError inside the check). Now any JSON value of
    kind_offsets is compared as data: not the induction's schedule, so *not checked* (never accepted)."""
    report = check_certificate(_edited(gate_edge_certificate, ("schedule", role, "kind_offsets"), bad), Options())
    _no_internal_error(report)
    assert report.outcome == "not-checked", report.reasons


def test_the_induction_s_own_kind_offsets_in_any_order_are_still_accepted() -> None:
    """The fix keeps the comparison a multiset one: edge-only's kind_offsets reversed are still its schedule."""
    doc = _renamed("edge-only")
    for rule in doc["schedule"].values():
        rule["kind_offsets"] = list(reversed(rule["kind_offsets"]))
    cert = forge_schematic(doc)
    assert cert is not None
    assert check_certificate(cert, Options()).outcome == "accepted"


@pytest.mark.parametrize("bad", [[], {}, ["gate"], {"gate": 1}])
def test_a_position_group_whose_role_is_unhashable_is_malformed_at_its_path(gate_edge_certificate, bad: Any) -> None:
    """Class: a document value used as a dictionary key before its type is known. Now the role must be a string."""
    schematic = check_certificate(_edited(gate_edge_certificate, ("positions", 0, "role"), bad), Options())
    _no_internal_error(schematic)
    assert "positions[0].role" in " ".join(schematic.reasons), schematic.reasons
