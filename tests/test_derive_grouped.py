"""The grouped derivation (symbolic/derive_grouped.py) gives exactly the position-by-position result:
the same lemma texts, uses, kinds and first uses, for random circuits, every construction and the
known-wrong constructions; a signature that is too coarse is caught and the range derived sequentially."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from verified_aat.circuits.families import build_family
from verified_aat.constructions.registry import get_construction
from verified_aat.symbolic import derive, derive_grouped
from verified_aat.symbolic.certify import derive as derive_stage, prepare
from verified_aat.symbolic.derive import stripes

import mutants
from strategies import circuits

NAMES = ["gate-edge", "gate-edge-dot", "edge-only", "edge-k", "unique-hard", "unique-hard-left", "unique-hard-right"]


def _both(circuit, construction, blocks_of=None):
    """(sequential, grouped) results of one range of ``circuit``'s derivation under ``construction``."""
    seen = {}

    def capture(deriver, c, encoding, functions, bl, tick):
        seen["args"] = (deriver, c, encoding, functions)
        return derive._derive_range(deriver, c, encoding, functions, bl, tick)

    prepared = prepare(circuit, construction)
    original = derive._derive_blocks
    derive._derive_blocks = capture
    try:
        derive_stage(prepared)
    finally:
        derive._derive_blocks = original
    if "args" not in seen:
        return None
    deriver, c, encoding, functions = seen["args"]
    blocks = blocks_of(encoding.length) if blocks_of else [range(encoding.length)]
    return (derive._derive_range(deriver, c, encoding, functions, blocks, None),
            derive_grouped.derive_range_grouped(deriver, c, encoding, functions, blocks, None))


def _assert_same(pair):
    sequential, grouped = pair
    assert grouped is not None, "the grouped derivation fell back"
    assert grouped[1] == sequential[1]  # kind counts
    assert grouped[0] == sequential[0]  # per lemma: text, first kind, uses, order key, first use


def _fits(circuit, name):
    return not name.startswith("unique-hard") or all(len(g.args) <= 2 for g in circuit.gates)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("family, n", [("relu", 30), ("random-fsac", 40), ("inner-product", 12)])
def test_every_construction_and_family_gives_the_sequential_lemmas(name, family, n):
    circuit = build_family(family, n)
    if not _fits(circuit, name):
        pytest.skip("unique-hard needs fan-in ≤ 2")
    _assert_same(_both(circuit, get_construction(name)))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(circuit=circuits(max_gates=14), name=st.sampled_from(NAMES), block=st.integers(1, 7),
       which=st.integers(0, 2))
def test_random_circuits_and_stripes_give_the_sequential_lemmas(circuit, name, block, which):
    if not _fits(circuit, name):
        return
    try:
        pair = _both(circuit, get_construction(name))
    except Exception as exc:  # noqa: BLE001 - a construction that refuses this circuit refuses it in both
        if type(exc).__name__ == "InputError":
            return
        raise
    if pair is None:
        return
    _assert_same(pair)
    # a worker's stripe: every third block
    _assert_same(_both(circuit, get_construction(name), lambda n: stripes(n, which, block=block, count=3)))


@pytest.mark.parametrize("mutant", [*mutants.WRONG, *mutants.HARMLESS, *mutants.EDGE_K_WRONG], ids=lambda m: m.__name__)
def test_known_wrong_constructions_give_the_sequential_lemmas(mutant):
    circuit = mutants.probe_fnc_circuit() if "UniqueHard" in mutant.__name__ else mutants.probe_circuit()
    _assert_same(_both(circuit, mutant()))


def test_means_and_gates_past_the_limits_are_named_one_by_one(monkeypatch):
    calls = []
    original = derive_grouped._Grouped._one_by_one

    def counting(self, fn, where, positions):
        calls.append(len(positions))
        return original(self, fn, where, positions)

    monkeypatch.setattr(derive_grouped._Grouped, "_one_by_one", counting)
    monkeypatch.setattr(derive_grouped, "MAX_MEMBERS", 2)
    monkeypatch.setattr(derive_grouped, "MAX_ARITY", 1)
    _assert_same(_both(build_family("inner-product", 9), get_construction("gate-edge")))
    assert sum(calls) > 0


def test_a_signature_too_coarse_is_caught_and_the_range_falls_back(monkeypatch):
    circuit = build_family("random-fsac", 30)
    monkeypatch.setattr(derive_grouped, "_first_equal", lambda codes: [])  # forget which names repeat
    monkeypatch.setattr(derive_grouped._Tables, "token_class", staticmethod(lambda code: code * 0))
    sequential, grouped = _both(circuit, get_construction("gate-edge"))
    assert grouped is None  # two positions of one signature had different shapes
    prepared = prepare(circuit, get_construction("gate-edge"))
    lemmas = derive_stage(prepared).derivation.lemmas  # the fallback's result: the sequential lemmas
    assert {key for key, lemma in lemmas.items() if not lemma.kind.startswith("attention")} == sequential[0].keys()
