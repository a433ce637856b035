"""The kernel under random tampering: it never accepts a changed certificate and never crashes."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mutants
from checking import check as check_certificate
from strategies import circuits
from verified_aat.certificates.document import build_certificate, dumps_certificate
from verified_aat.constructions.binarize import binarize
from verified_aat.constructions.registry import get_construction
from verified_aat.symbolic.certify import certify

TEXT = dumps_certificate(build_certificate(certify(mutants.probe_circuit(), get_construction("gate-edge")),
                                          include_timings=False))
INFORMATIONAL = ("claim", "info")  # for people; the kernel reads none of it (but info.transformer, absent here)


def _paths(node, prefix=()):
    """Every (path, leaf) in a JSON document."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, prefix + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _paths(value, prefix + (index,))
    else:
        yield prefix, node


LEAVES = [(p, v) for p, v in _paths(json.loads(TEXT)) if p[0] not in INFORMATIONAL]


def _mutate(value, choice):
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + choice
    if isinstance(value, str):
        if value.lstrip("-").isdigit():
            return str(int(value) + choice)
        cut = abs(choice) % max(len(value), 1)
        return value[:cut] + ("X" if value[cut:cut + 1] != "X" else "Y") + value[cut + 1:]
    return choice


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(index=st.integers(0, len(LEAVES) - 1), choice=st.integers(-3, 3).filter(bool))
def test_changing_any_single_value_is_rejected_or_harmless(index, choice):
    path, value = LEAVES[index]
    doc = json.loads(TEXT)
    node = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = _mutate(value, choice)
    report = check_certificate(doc)  # must not raise
    if report.accepted:
        # Only the engine's own records may change unnoticed: which prover closed a lemma,
        # and what the engine noted about its run (the kernel re-runs its own solvers).
        assert path[-1] == "engine" or path[:2] == ("result", "engine"), path
    elif path == ("construction",) and report.outcome == "not-checked":
        # another name, neither shipped nor embedded: the kernel cannot read the construction (S2)
        assert "embeds no construction document" in report.unchecked[0], report.reasons
    else:
        assert report.rejections, report.reasons


@pytest.mark.parametrize("name", ["gate-edge", "gate-edge-dot", "unique-hard", "edge-only", "edge-k"])
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(circuit=circuits(max_gates=8, max_inputs=3))
def test_random_circuits_are_certified_and_checked_under_every_construction(name, circuit):
    circuit = binarize(circuit, sums=get_construction(name).bounded_fan_in).circuit
    result = certify(circuit, get_construction(name), refute=False)
    assert result.status == "proved", result.problems
    report = check_certificate(json.loads(dumps_certificate(build_certificate(result))))
    assert report.accepted, report.reasons
