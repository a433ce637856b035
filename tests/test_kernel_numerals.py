"""Every numeral a certificate writes is read by one bounded kernel reader (kernel/data.py read_numeral).

Python's ``Fraction("1e99999999")`` computes 10^(10^8): a proof object's rational or a lemma's numeral
written with an exponent was a way to hang the kernel.  The reader takes ``p``, ``p.d``, ``p/q`` and
``p.d/q`` in ASCII digits, at most MAX_DIGITS long, and nothing else.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verified_aat.kernel.data import MAX_DIGITS, read_numeral
from verified_aat.kernel.document_transformer import Terms
from verified_aat.kernel.identity import decide
from verified_aat.kernel.positivity import BadProof, check_proof

HOSTILE = ["1e99999999", "1E99999999", "-1e-99999999", "1_000", "٣", " 3", "3 ", "+3", "inf", "nan", "1/0",
           "0x10", "1.", ".5", "", "-", "1" * (MAX_DIGITS + 1), "1/" + "7" * MAX_DIGITS]


@given(st.fractions(max_denominator=10**40).filter(lambda q: abs(q) < 10**60))
def test_a_fraction_written_p_or_p_over_q_reads_back(q: Fraction) -> None:
    assert read_numeral(str(q)) == q
    assert type(read_numeral(str(q))) is (int if q.denominator == 1 else Fraction)


@given(st.integers(-10**30, 10**30), st.integers(0, 30), st.integers(1, 10**6))
def test_a_decimal_over_an_integer_reads_as_its_value(whole: int, digits: int, denominator: int) -> None:
    sign = "-" if whole < 0 else ""
    text = f"{sign}{abs(whole) // 10**digits}" + (f".{abs(whole) % 10**digits:0{digits}d}" if digits else "")
    assert read_numeral(text) == Fraction(whole, 10**digits)
    assert read_numeral(f"{text}/{denominator}") == Fraction(whole, 10**digits * denominator)


@pytest.mark.parametrize("text", HOSTILE, ids=lambda t: repr(t[:12]))
def test_exponents_separators_other_digits_and_overlong_numerals_are_not_numerals(text: str) -> None:
    assert read_numeral(text) is None


def _positive_leaf_lemma() -> tuple[str, dict[str, Any]]:
    proofs = Path(__file__).resolve().parent.parent / "proofs" / "constructions"
    for path in sorted(proofs.glob("edge-only.every-K.schematic.json")):
        for entry in json.loads(path.read_text())["lemmas"]:
            if "positive" in json.dumps(entry.get("proof")):
                return entry["smt2"], entry["proof"]
    raise AssertionError("no edge-only lemma closes a case by a positive certificate")


def _leaves(node: Any) -> list[dict[str, Any]]:
    if type(node) is not dict:
        return []
    if "positive" in node:
        return [node]
    return [x for key in ("cases", "then") for child in (node.get(key) if key == "cases" else [node.get(key)]) or []
            for x in _leaves(child)]


@pytest.mark.parametrize("constant", ["1e99999999", "1E99999999", "1_0", "1/0", "9" * 300])
def test_a_proof_objects_rational_with_an_exponent_is_refused_not_computed(constant: str) -> None:
    text, proof = _positive_leaf_lemma()
    check_proof(text, proof)
    leaves = _leaves(proof)
    assert leaves
    leaves[0]["positive"]["constant"] = constant
    with pytest.raises(BadProof, match="a rational is a string"):
        check_proof(text, proof)


def test_a_lemma_numeral_with_an_exponent_is_undecided_not_computed() -> None:
    text = "(declare-const x Real)\n(assert (not (= (* x 1e99999999) (* 1e99999999 x))))\n(check-sat)\n"
    assert decide(text) is None
    assert decide(text.replace("1e99999999", "7.5")) is True


@pytest.mark.parametrize("literal", ["1/0", "1" * (MAX_DIGITS + 1), "٣"])
def test_a_construction_documents_constant_the_kernel_cannot_read_is_not_read(literal: str) -> None:
    """None: the document's circuit is not read, so T is not its T_K (own_depth), whatever else it says."""
    assert Terms().of_text([f"c = const {literal}", "output c"], []) is None
    assert Terms().of_text(["c = const 3/4", "output c"], []) == (0,)
