"""Input vectors and number options of the CLI take ASCII only (docs/cli.md, "Options that do not act": "Also
refused").

``--input=1,<U+00A0>2`` was read as the vector (1, 2): the separators were the regex ``[\\s,]+``, and ``\\s`` matches
every Unicode space (U+00A0, U+2003, U+3000, ...) and U+001C to U+001F; an ``--inputs`` file was split with
``str.splitlines``, which ends a line at U+2028 or U+001C too, so one line became two vectors; ``audit --lengths
2,<U+00A0>3`` read 2 and 3; ``--timeout ١٠`` (``float``) read 10.0 and ``--cluster local:²`` was an internal error.
Now the separators are commas and ASCII whitespace, and any other character outside printable ASCII is refused
at its column with one line and exit 2, never read.
"""

from __future__ import annotations

import argparse
import math
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verified_aat.circuits.io import parse_input_vector
from verified_aat.circuits.rationals import format_rational
from verified_aat.cli.main import main
from verified_aat.cli.option_rules import decimal
from verified_aat.errors import InputError

ROOT = Path(__file__).resolve().parent.parent
TWO = ROOT / "specs" / "circuits" / "compare_two.circ"  # two inputs
VALUES = st.lists(st.fractions(max_denominator=10**6), min_size=1, max_size=8)
SEPARATORS = st.sampled_from([",", ", ", " ,", " , ", " ", "\t", ",\t", "  ", "\t,\t", " \f", "\v,"])
ALLOWED = set("0123456789+-/.,") | set(" \t\r\f\v\n")


@st.composite
def written(draw: st.DrawFn) -> tuple[list[Fraction], str]:
    values = draw(VALUES)
    seps = [draw(SEPARATORS) for _ in values[1:]]
    text = format_rational(values[0]) + "".join(s + format_rational(v) for s, v in zip(seps, values[1:]))
    return values, draw(st.sampled_from(["", " ", "\t"])) + text + draw(st.sampled_from(["", " ", "\t"]))


@settings(max_examples=300, deadline=None)
@given(written())
def test_valid_vectors_round_trip(case: tuple[list[Fraction], str]) -> None:
    values, text = case
    assert parse_input_vector(text, len(values), file="--input") == values


@settings(max_examples=500, deadline=None)
@given(written(), st.characters().filter(lambda c: c not in ALLOWED), st.data())
def test_any_other_character_is_refused_never_read(case: tuple[list[Fraction], str], stray: str,
                                                   data: st.DataObject) -> None:
    values, text = case
    at = data.draw(st.integers(0, len(text)))
    with pytest.raises(InputError):
        parse_input_vector(text[:at] + stray + text[at:], len(values), file="--input")


@pytest.mark.parametrize("space", ["\u00a0", "\u2003", "\u3000", "\u202f", "\x1c", "\x85", "\u2028"])
def test_unicode_spaces_are_refused_at_their_column(space: str) -> None:
    with pytest.raises(InputError, match=rf"character U\+{ord(space):04X} \(.*\) at column 3"):
        parse_input_vector(f"1,{space}2", 2, file="--input")


def _one_line(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1, captured
    return captured.err


def test_cli_refuses_a_no_break_space(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = _one_line(capsys, "eval", str(TWO), "--input=1,\u00a02")
    assert err.startswith("verified-aat: --input: character U+00A0 (NO-BREAK SPACE) at column 3"), err
    vectors = tmp_path / "v.txt"
    vectors.write_text("1, 2\n3,\u20284\n", encoding="utf-8")  # U+2028 ended the line: two vectors of one
    err = _one_line(capsys, "eval", str(TWO), "--inputs", str(vectors))
    assert f"{vectors}:2: character U+2028 (LINE SEPARATOR)" in err, err
    at = tmp_path / "at.txt"
    at.write_text("1,\n\u00a02\n", encoding="utf-8")
    err = _one_line(capsys, "eval", str(TWO), f"--input=@{at}")
    assert f"{at}:2: character U+00A0" in err, err
    assert main(["eval", str(TWO), "--input=1 ,\t2"]) == 0
    capsys.readouterr()


def test_audit_lengths_timeouts_and_cluster(capsys: pytest.CaptureFixture[str]) -> None:
    err = _one_line(capsys, "audit", "-c", "gate-edge", str(TWO), "--lengths", "2,\u00a03")
    assert "--lengths" in err, err
    for value in ("\u0661\u0660", "1_0", "\u00a05", "5\u2003"):
        _one_line(capsys, "certify", str(TWO), "-c", "gate-edge", "--timeout", value)
    err = _one_line(capsys, "certify", str(TWO), "-c", "gate-edge", "--cluster", "local:\u00b2")
    assert "--cluster" in err and "internal error" not in err, err


@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=False))
def test_number_options_read_what_repr_writes(x: float) -> None:
    assert decimal(repr(x)) == x
    assert math.isnan(decimal("nan")) and decimal("1e3") == 1000.0 and decimal(".5") == 0.5 == decimal("+.5")


@given(st.text(min_size=1, max_size=6).filter(lambda t: not t.isascii()))
def test_number_options_refuse_non_ascii(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError):
        decimal(text)
