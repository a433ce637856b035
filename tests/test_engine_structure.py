"""The engine's structure check (symbolic/certify.py ``_check_structure``, on arrays): a gate with two
positions, and edge positions that are not exactly the circuit's edges each once, are problems; an
honest encoding has none.  Compared with the multiset definition on random edits of real encodings."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from hypothesis import given, settings, strategies as st

from verified_aat.circuits.families import build_family
from verified_aat.constructions.encoding import Role
from verified_aat.constructions.registry import get_construction
from verified_aat.symbolic.certify import _check_structure

CIRCUIT = build_family("random-fsac", 12)
ENCODING = get_construction("gate-edge").compile(CIRCUIT).encoding


def _by_definition(circuit, roles) -> list[str]:
    """The check as multisets: what the array version must agree with."""
    problems = []
    gates = Counter(r.gate for r in roles if r.kind == "gate")
    edges = Counter((r.source, r.gate, r.slot) for r in roles if r.kind == "edge")
    want = Counter((a, v, s) for v, g in enumerate(circuit.gates) for s, a in enumerate(g.args))
    if any(n > 1 or not 0 <= g < circuit.size for g, n in gates.items()):
        problems.append("structure: a gate has more than one position")
    if edges != want:
        problems.append("structure: the encoding's edge positions differ from the circuit's edges")
    return problems


def _problems(roles) -> list[str]:
    problems: list[str] = []
    _check_structure(CIRCUIT, replace(ENCODING, roles=tuple(roles)), problems)
    return problems


def test_the_honest_encoding_has_no_structure_problem():
    assert _problems(ENCODING.roles) == []


EDITS = st.sampled_from(["gate", "source", "target", "slot", "drop", "duplicate", "swap", "none-source",
                         "gate-out-of-range", "slot-negative"])


@settings(max_examples=150, deadline=None)
@given(edit=EDITS, at=st.integers(0, 10**6), other=st.integers(0, 10**6))
def test_edited_roles_are_judged_as_the_multiset_definition_judges_them(edit, at, other):
    roles = list(ENCODING.roles)
    i, j = at % len(roles), other % len(roles)
    r = roles[i]
    if edit == "gate":
        roles[i] = Role("gate", roles[j].gate)
    elif edit == "source":
        roles[i] = replace(r, source=roles[j].gate)
    elif edit == "target":
        roles[i] = replace(r, gate=roles[j].gate)
    elif edit == "slot":
        roles[i] = replace(r, slot=(r.slot or 0) + 1)
    elif edit == "drop":
        del roles[i]
    elif edit == "duplicate":
        roles.insert(j, r)
    elif edit == "swap":
        roles[i], roles[j] = roles[j], roles[i]  # positions move, the multiset stays
    elif edit == "none-source" and r.kind == "edge":
        roles[i] = replace(r, source=None)
    elif edit == "gate-out-of-range":
        roles[i] = replace(r, gate=CIRCUIT.size + at % 3)
    elif edit == "slot-negative" and r.kind == "edge":
        roles[i] = replace(r, slot=-1)
    assert _problems(roles) == _by_definition(CIRCUIT, roles)


def test_a_missing_edge_and_a_doubled_gate_are_each_named():
    edge = next(i for i, r in enumerate(ENCODING.roles) if r.kind == "edge")
    gate = next(i for i, r in enumerate(ENCODING.roles) if r.kind == "gate")
    assert _problems(ENCODING.roles[:edge] + ENCODING.roles[edge + 1:]) == [
        "structure: the encoding's edge positions differ from the circuit's edges"]
    assert _problems(ENCODING.roles + (ENCODING.roles[gate],)) == ["structure: a gate has more than one position"]
