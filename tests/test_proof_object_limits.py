"""A proof object is hostile input: what it asks the kernel to compute is bounded, and past a bound the lemma is
*not checked* (never accepted, never rejected for that reason alone).

A red-team helper added one valid term, ``[0, [0, 0, …, 0]]`` (0 times a product of 200,000 copies of fact 0), to a
positive leaf of the shipped gate-edge certificate: each factor was one ``multiply`` on a monomial one degree longer,
so the check ran for minutes before it ACCEPTED.  Now a product has at most MAX_FACTORS facts, a TERM at most
MAX_TERM characters (they bound the digits of its numbers), and every product of one lemma and its proof object is
charged to one budget of term pairs times degree (``identity._Normaliser.multiply``)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from verified_aat.kernel import Options, check_certificate
from verified_aat.kernel import identity
from verified_aat.kernel.positivity import MAX_FACTORS, MAX_TERM, Unfinished, check_proof

CERT = Path(__file__).resolve().parent.parent / "proofs" / "constructions" / "gate-edge.every-K.schematic.json"


def _first_positive() -> tuple[dict, dict]:
    """The certificate and the first lemma whose proof has a positive leaf, with that leaf."""
    doc = json.loads(CERT.read_text())
    for lemma in doc["lemmas"]:
        for leaf in _leaves(lemma.get("proof")):
            if "positive" in leaf:
                return doc, leaf
    raise AssertionError("no positive leaf in the shipped certificate")


def _leaves(node: Any) -> list[dict]:
    if not isinstance(node, dict):
        return []
    children = (node.get("cases") or []) + ([node["then"]] if "then" in node else [])
    return [node] if not children else [x for child in children for x in _leaves(child)]


def _verdict(doc: dict) -> str:
    return check_certificate(json.loads(json.dumps(doc)), Options(solver_trust=False)).outcome


def test_a_zero_times_a_long_product_is_not_checked_not_computed() -> None:
    doc, leaf = _first_positive()
    assert _verdict(doc) == "accepted"
    leaf["positive"]["products"].append(["0", [0] * 20_000])
    assert _verdict(doc) == "not-checked"


def test_a_product_at_the_bound_is_still_checked() -> None:
    doc, leaf = _first_positive()
    leaf["positive"]["products"].append(["0", [0] * MAX_FACTORS])
    assert _verdict(doc) == "accepted"
    leaf["positive"]["products"][-1][1].append(0)
    assert _verdict(doc) == "not-checked"


def test_a_term_past_the_bound_is_not_checked() -> None:
    doc, leaf = _first_positive()
    long = "(+ 0.0 " + " ".join(["0.0"] * (MAX_TERM // 4)) + ")"
    assert len(long) > MAX_TERM
    leaf["positive"]["squares"].append(["0", long])
    assert _verdict(doc) == "not-checked"
    leaf["positive"]["squares"][-1][1] = "(+ 0.0 0.0)"
    assert _verdict(doc) == "accepted"


def test_the_products_of_one_lemma_share_one_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    doc, _ = _first_positive()
    lemma = next(entry for entry in doc["lemmas"] if _leaves(entry.get("proof")))
    check_proof(lemma["smt2"], copy.deepcopy(lemma["proof"]))
    monkeypatch.setattr(identity, "MAX_PRODUCT_WORK", 0)
    with pytest.raises(Unfinished, match="units of (product )?work in one lemma"):  # products and each node's terms
        check_proof(lemma["smt2"], copy.deepcopy(lemma["proof"]))

