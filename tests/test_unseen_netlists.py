"""Legal netlists of shapes the bundled ones do not have (red team rt14b): each read the same way from a file and
from standard input, and evaluated as an independent reading of the format says."""

from __future__ import annotations

import io
import sys

import pytest

from verified_aat.circuits.io import content_format
from verified_aat.cli.main import main

UPPER_BLIF = b".MODEL top\n.INPUTS a b\n.OUTPUTS y\n.NAMES a b y\n11 1\n.END\n"


def _stdin(monkeypatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


def test_stdin_reads_blif_directives_in_any_case(capsys, monkeypatch, tmp_path) -> None:
    """BLIF's directives are case-insensitive to both its readers, so an upper-case file read from a file worked and
    the same bytes on standard input were taken for the text format ('unknown statement .MODEL', exit 2)."""
    path = tmp_path / "upper.blif"
    path.write_bytes(UPPER_BLIF)
    assert main(["eval", str(path), "--input=1,1"]) == 0
    from_file = capsys.readouterr().out
    _stdin(monkeypatch, UPPER_BLIF)
    assert main(["eval", "-", "--input=1,1"]) == 0
    assert capsys.readouterr().out == from_file == "y = 1\n"


@pytest.mark.parametrize("text, fmt", [
    (".Model m\n.Inputs a\n.Outputs y\n.Names a y\n0 1\n", "blif"),
    ("# c\n.names y\n1\n", "blif"),
    ("// top\nmodule top(input a, output y);\n  assign y = ~a;\nendmodule\n", "verilog"),
    ("INPUT(a)\nOUTPUT(y)\ny = NOT(a)\n", "bench"),
    ("input x\nmodule = add x 1\noutput module\n", "text"),  # a gate named module is not a Verilog module
])
def test_the_content_says_the_format(text: str, fmt: str) -> None:
    assert content_format(text) == fmt


def test_stdin_reads_an_aiger_header_with_a_tab(capsys, monkeypatch) -> None:
    """Both AIGER readers split the header at any whitespace; standard input took only 'aag ' for AIGER."""
    _stdin(monkeypatch, b"aag\t1 1 0 1 0\n2\n3\n")
    assert main(["eval", "-", "--input=1"]) == 0
    assert capsys.readouterr().out == "o0 = 0\n"
