"""Red team, round 19: how numbers are read and written, door by door.

Found: (1) a construction document's numbers that the engine reads but the trusted kernel does not (a bilinear
entry written as a JSON integer, ``"+2"``, ``"2."`` or ``".5"``; a constant written ``"+1"``, ``"-1."``, ``".5"`` or
as a JSON integer of 301 digits or more; a circuit literal spelled in more than 2,000 characters, ``4.000…0``)
were taken by ``certify -c DOC`` (and by ``construction check`` for the bilinear entries and literals): an honest
certificate that the kernel REJECTED (its own-transformer or construction reading), or a refutation of a document
that ``construction check`` calls malformed.  Now every one is the document's error at its line, at every door.
(2) A counterexample's text report printed values with ``str``, so a value past Python's 4,300 digits turned a
refutation (exit 1) into "unknown: limit reached" (exit 3) in ``certify``, ``refute`` and ``prove-construction``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verified_aat.circuits.rationals import NumeralError, format_rational, read_numeral
from verified_aat.constructions.document import parse_document
from verified_aat.errors import InputError
from verified_aat.kernel.data import Malformed
from verified_aat.kernel.document_transformer import _bilinear, read_literal
from verified_aat.kernel.layouts import read_construction

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "verified_aat" / "data" / "constructions"
MIXED = ROOT / "specs" / "circuits" / "mixed_depth6.circ"


def _doc(name: str) -> dict[str, Any]:
    data = json.loads((SHIPPED / f"{name}.json").read_text(encoding="utf-8"))
    data["name"] = "mydoc"
    return data


def _with_bilinear(value: Any) -> dict[str, Any]:
    data = _doc("gate-edge-dot")
    for layer in data["transformer"]["block"]:
        for head in layer["heads"]:
            entries = head["score"].get("bilinear") if isinstance(head["score"], dict) else None
            if entries and "i.a j.a" in entries:
                entries["i.a j.a"] = value
                return data
    raise AssertionError("gate-edge-dot has no entry i.a j.a")


def _with_constant(value: Any) -> dict[str, Any]:
    data = _doc("gate-edge")
    data["constants"]["MUL"] = value
    return data


def _with_literal(token: str) -> dict[str, Any]:
    data = _doc("gate-edge")
    lines = data["transformer"]["functions"]["score-a"]
    assert lines[0] == "g10 = const 4"
    lines[0] = f"g10 = const {token}"
    return data


def _engine_reads(data: dict[str, Any]) -> bool:
    try:
        parse_document(data, "doc.json")
    except InputError:
        return False
    return True


SPELLINGS = ["2", "+2", "2.", "2.0", ".5", "-.5", "02", "4/2", "-2", "1.5/2", "2e0", " 2", "٢"]


@pytest.mark.parametrize("value", [*SPELLINGS, 2, -2, 10**301])
def test_a_bilinear_entry_the_engine_reads_is_one_the_kernel_reads_alike(value: Any) -> None:
    data = _with_bilinear(value)
    if not _engine_reads(data):
        return
    coordinates = tuple(data["coordinates"])
    score = next(h["score"] for layer in data["transformer"]["block"] for h in layer["heads"]
                 if isinstance(h["score"], dict) and "i.a j.a" in h["score"].get("bilinear", {}))
    entries = _bilinear(score, coordinates)
    assert entries is not None, f"the engine reads bilinear entry {value!r}, the kernel's own-transformer check does not"
    r, c = coordinates.index("a"), coordinates.index("a")
    assert dict(((a, b), q) for a, b, q in entries)[(r, c)] == read_numeral(str(value))


@pytest.mark.parametrize("value", [*SPELLINGS, "-1.", "+1", -1, 10**301, -10**301])
def test_a_constant_the_engine_reads_is_one_the_kernels_document_reader_reads_alike(value: Any) -> None:
    data = _with_constant(value)
    if not _engine_reads(data):
        return
    try:
        construction = read_construction(data, "$")
    except Malformed as exc:
        pytest.fail(f"the engine reads constant {value!r}, the kernel's reader refuses it: {exc}")
    del construction


@settings(max_examples=200, deadline=None)
@given(st.from_regex(r"[+-]?(?:[0-9]{1,6}(?:/[0-9]{1,4})?|[0-9]{0,4}\.[0-9]{0,4})", fullmatch=True))
def test_constant_spellings_agree_between_the_engine_and_the_kernel(token: str) -> None:
    try:
        engine = read_numeral(token)
    except NumeralError:
        return
    data = _with_constant(token)
    if _engine_reads(data):
        try:
            read_construction(data, "$")
        except Malformed as exc:
            pytest.fail(f"constant {token!r}: the engine reads {engine}, the kernel refuses it: {exc}")


@pytest.mark.parametrize("token", ["4." + "0" * 2500, "0" * 2100 + "4", "+4", "4.", ".4" + "0" * 1999])
def test_a_circuit_literal_of_a_document_is_read_alike_or_refused(token: str) -> None:
    data = _with_literal(token)
    if _engine_reads(data):
        assert read_literal(token) == read_numeral(token), f"literal {token[:20]!r}…: the kernel reads it otherwise"


def _certify(tmp_path: Path, data: dict[str, Any], circuit: Path = MIXED) -> subprocess.CompletedProcess[str]:
    doc = tmp_path / "doc.json"
    doc.write_text(json.dumps(data, indent=1), encoding="utf-8")
    return subprocess.run([sys.executable, "-m", "verified_aat.cli.entry", "certify", str(circuit), "-c", str(doc),
                           "-o", str(tmp_path / "c.cert.json")], capture_output=True, text=True, timeout=120,
                          cwd=ROOT)


@pytest.mark.parametrize("data", [_with_bilinear("+2"), _with_bilinear(2), _with_constant("-1."),
                                  _with_literal("4." + "0" * 2500)], ids=["bilinear +2", "bilinear 2", "constant -1.",
                                                                           "long literal"])
def test_certify_never_ends_with_the_kernel_rejecting_an_honest_document(tmp_path: Path, data: dict[str, Any]) -> None:
    done = _certify(tmp_path, data)
    assert "REJECTED" not in done.stdout, done.stdout[-600:]
    assert done.returncode in (0, 2), (done.returncode, done.stdout[-600:], done.stderr)
    if done.returncode == 2:
        assert done.stderr.startswith("verified-aat: ") and "doc.json:" in done.stderr and "Traceback" not in done.stderr
        assert not (tmp_path / "c.cert.json").exists()


def test_construction_check_and_certify_refuse_the_same_constants(tmp_path: Path) -> None:
    data = _with_constant("+1")
    (tmp_path / "doc.json").write_text(json.dumps(data, indent=1), encoding="utf-8")
    check = subprocess.run([sys.executable, "-m", "verified_aat.cli.entry", "construction", "check",
                            str(tmp_path / "doc.json")], capture_output=True, text=True, timeout=60, cwd=ROOT)
    done = _certify(tmp_path, data)
    assert (check.returncode, done.returncode) == (2, 2), (check.stderr, done.stdout[-400:], done.stderr)


def test_a_refutation_with_a_value_past_4300_digits_is_reported_not_unknown(tmp_path: Path) -> None:
    circuit = tmp_path / "big.circ"
    circuit.write_text(f"input x\nc = const {'3' * 1500}\na = mul c c\nb = mul a a\ny = mul x x\noutput b y\n")
    done = _certify(tmp_path, _with_constant("-5"), circuit)
    assert done.returncode == 1, (done.stdout[-300:], done.stderr)
    assert "counterexample" in done.stdout and "limit reached" not in done.stderr
    value = Fraction(int("3" * 1500)) ** 4  # 6,000 digits: past str()'s 4,300
    assert f"b: circuit {format_rational(value)}, transformer " in done.stdout


def test_a_round_trip_refuted_with_a_value_past_4300_digits_is_refuted_not_unknown(tmp_path: Path) -> None:
    """Link 3's z3 query and its replay's reason wrote the values with str(): 'unknown: limit reached', exit 3."""
    circuit = tmp_path / "big.circ"
    circuit.write_text(f"input x\nc = const {'3' * 1500}\na = mul c c\nb = mul a a\ny = mul x x\noutput b y\n")
    doc = tmp_path / "doc.json"
    doc.write_text(json.dumps(_with_constant("-5"), indent=1), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "verified_aat.cli.entry", "audit", "-c", str(doc), str(circuit),
                           "--round-trip", "--json"], capture_output=True, text=True, timeout=300, cwd=ROOT)
    result = json.loads(done.stdout)
    assert (done.returncode, result["status"]) == (1, "refuted"), (done.stderr, result["reasons"])
    assert "limit reached" not in done.stderr
