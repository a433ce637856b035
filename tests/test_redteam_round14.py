"""Red team, round 14: classes of bugs found in this round, each with the test that failed before its fix."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from verified_aat.cli.main import main

SHIPPED = Path(__file__).resolve().parent.parent / "verified_aat" / "data" / "constructions"
BIG = "9" * 5000  # a JSON integer the readers take (≤ 10,000 digits) but Python's str() and repr() refuse (> 4,300)


def _one_line(capsys: pytest.CaptureFixture[str], path: Any, line: int | None) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    where = f"verified-aat: {path}:{line}: " if line is not None else f"verified-aat: {path}"
    assert err.startswith(where), err
    assert len(err) < 400, err[:400]
    return err


# -- a JSON integer past 4,300 digits where a reader echoes the value: bad input at its line, not "limit reached" -----

def test_a_huge_integer_in_a_construction_document_is_bad_input_at_its_line(tmp_path: Any,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads((SHIPPED / "edge-k.json").read_text(encoding="utf-8"))
    doc["name"] = "mine"
    doc["version"] = "@BIG@"
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(doc, indent=1).replace('"@BIG@"', BIG), encoding="utf-8")
    assert main(["construction", "check", str(path)]) == 2  # was 3: "unknown: limit reached", no file, no line
    assert "an integer of 5,000 digits" in _one_line(capsys, path, 3)


def test_a_huge_integer_in_a_transformer_or_an_encoding_is_bad_input(tmp_path: Any,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    circuit = tmp_path / "c.circ"
    circuit.write_text("input x\ny = mul x x\noutput y\n", encoding="utf-8")
    out = tmp_path / "out"
    assert main(["compile", str(circuit), "-c", "gate-edge", "-o", str(out)]) == 0
    capsys.readouterr()
    spec = json.loads((out / "transformer.json").read_text(encoding="utf-8"))
    spec["version"] = "@BIG@"
    bad_spec = tmp_path / "t.json"
    bad_spec.write_text(json.dumps(spec, indent=1).replace('"@BIG@"', BIG), encoding="utf-8")
    assert main(["run", str(bad_spec), "--encoding", str(out / "encoding.json"), "--input=2"]) == 2
    _one_line(capsys, bad_spec, None)
    enc = json.loads((out / "encoding.json").read_text(encoding="utf-8"))
    enc["roles"][0][1] = "@BIG@"
    bad_enc = tmp_path / "e.json"
    bad_enc.write_text(json.dumps(enc, indent=1).replace('"@BIG@"', BIG), encoding="utf-8")
    assert main(["run", str(out / "transformer.json"), "--encoding", str(bad_enc), "--input=2"]) == 2
    _one_line(capsys, bad_enc, None)
    enc = json.loads((out / "encoding.json").read_text(encoding="utf-8"))
    enc["rows"][0][0] = "@BIG@"  # a value of a row: a rational, read as one
    good_enc = tmp_path / "g.json"
    good_enc.write_text(json.dumps(enc, indent=1).replace('"@BIG@"', BIG), encoding="utf-8")
    assert main(["run", str(out / "transformer.json"), "--encoding", str(good_enc), "--input=2"]) == 0
