"""A construction document's numbers that the trusted kernel cannot read are the document's error, at their line
(``constructions/document_numbers.py``). ``certify -c DOC`` with a 5,000-digit constant in T_K said *unknown* with
Python's "Exceeds the limit (4300 digits) for integer string conversion", and with a 5,000-digit entry of
``constants`` the kernel did not accept the engine's certificate (exit 3); ``construction check`` passed the first."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verified_aat.circuits.rationals import format_rational
from verified_aat.cli.main import main
from verified_aat.limits import MAX_CERTIFIED_DIGITS, past_certified_digits

SHIPPED = Path(__file__).resolve().parents[1] / "verified_aat" / "data" / "constructions" / "gate-edge.json"


def _document(tmp_path: Path, edit) -> tuple[Path, int]:  # type: ignore[no-untyped-def]
    """gate-edge's document renamed and edited, written one key per line; the line of the edited value."""
    data = json.loads(SHIPPED.read_text())
    data["name"] = "wide-numbers"
    marker = edit(data)
    path = tmp_path / "doc.json"
    text = json.dumps(data, indent=1)
    path.write_text(text)
    line = next(n for n, row in enumerate(text.splitlines(), start=1) if marker in row)
    return path, line


def _score_constant(digits: str):  # type: ignore[no-untyped-def]
    def edit(data):  # type: ignore[no-untyped-def]
        data["transformer"]["functions"]["score-a"].insert(0, f"dead = const {digits}")  # read, never used
        return f"dead = const {digits[:20]}"
    return edit


def _named_constant(digits: str):  # type: ignore[no-untyped-def]
    def edit(data):  # type: ignore[no-untyped-def]
        data["constants"]["MUL"] = digits
        return f'"MUL": "{digits[:20]}'
    return edit


@pytest.mark.parametrize("edit", [_score_constant("4" * 5000), _score_constant("4" * 2001),
                                  _score_constant("1/" + "3" * 1999), _named_constant("-" + "1" * 5000)],
                         ids=["T_K 5,000 digits", "T_K 2,001 digits", "T_K 1/3...3 (2,001 characters)",
                              "constants 5,000 digits"])
def test_a_number_the_kernel_cannot_read_is_the_documents_error_at_its_line(tmp_path, capsys, edit):
    document, line = _document(tmp_path, edit)
    circuit = tmp_path / "c.circ"
    circuit.write_text("input x\ng = sign x\noutput g\n")
    out = tmp_path / "cert.json"
    for argv in (["construction", "check", str(document)], ["certify", str(circuit), "-c", str(document), "-o", str(out)]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err.strip()
        assert err.startswith(f"verified-aat: {document}:{line}: a number of more than 2,000 characters"), err
        assert "\n" not in err and "4300" not in err
    assert not out.exists()


def test_a_number_at_the_kernels_limit_is_read_and_certified(tmp_path, capsys):
    document, _ = _document(tmp_path, _score_constant("4" * 2000))
    circuit = tmp_path / "c.circ"
    circuit.write_text("input x\ng = sign x\noutput g\n")
    assert main(["construction", "check", str(document)]) == 0
    assert main(["certify", str(circuit), "-c", str(document), "-o", str(tmp_path / "cert.json")]) == 0
    assert "ACCEPTED" in capsys.readouterr().out


@settings(max_examples=200, deadline=None)
@given(st.integers(1_990, 2_010), st.integers(1, 9), st.sampled_from([1, 3, 7, 10**5]), st.booleans())
def test_past_certified_digits_is_the_length_of_the_kernels_text(digits, lead, denominator, negative):
    value = Fraction(int(str(lead) + "0" * (digits - 1)) * (-1 if negative else 1), denominator)
    assert past_certified_digits(value) == (len(format_rational(value)) > MAX_CERTIFIED_DIGITS)
    assert past_certified_digits(10 ** 9000)  # past str()'s own limit: no ValueError
