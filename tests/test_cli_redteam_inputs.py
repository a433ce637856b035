"""Bad inputs a red-team pass found (2026-12-03): each is one stderr line and a documented exit code, with no
traceback and nothing written.  The files are in tests/data/redteam_cli/; the rest are made here."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from verified_aat.cli.main import main

DATA = Path(__file__).resolve().parent / "data" / "redteam_cli"
SPECS = Path(__file__).resolve().parent.parent / "specs" / "circuits"


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str], str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, err.strip().splitlines(), out


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for f in DATA.iterdir():
        shutil.copy(f, tmp_path / f.name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("args", [["info", "surr_circ.json"], ["compile", "surr_circ.json", "-c", "gate-edge", "-o", "out"],
                                  ["certify", "surr_circ.json", "-c", "gate-edge", "-o", "cert.json"],
                                  ["audit", "surr_trans.json", "--lengths", "2"]])
def test_a_name_that_is_no_text_is_bad_input(args: list[str], here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A lone UTF-16 surrogate (JSON "\\ud800") in a name could be neither printed nor written back."""
    code, err, _ = _run(capsys, *args)
    assert code == 2 and len(err) == 1 and "lone UTF-16 surrogate" in err[0]
    assert not (here / "out").exists() and not (here / "cert.json").exists()


def test_show_refuses_a_certificate_that_is_not_text(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A lone surrogate in a certificate: once escaped by show, now refused by the kernel's reader (which check and
    show share), so no command reads such a certificate; one line, exit 2, nothing on stdout."""
    for extra in ([], ["--summary"]):
        code, err, out = _run(capsys, "show", "surr_cert.json", *extra)
        assert code == 2 and len(err) == 1 and "lone UTF-16 surrogate" in err[0] and out == ""
    code, err, _ = _run(capsys, "check", "surr_cert.json")
    assert code == 2 and len(err) == 1 and "lone UTF-16 surrogate" in err[0]


@pytest.mark.parametrize("content,what", [("[" * 5000 + "]" * 5000, "nested"),
                                          ('{"version": ' + "7" * 10_001 + "}", "digits")])
def test_report_reads_certificates_as_strictly_as_check(content: str, what: str, here: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    (here / "bad.json").write_text(content)
    code, err, _ = _run(capsys, "report", "bad.json", "-o", "r.html")
    assert code == 2 and len(err) == 1 and what in err[0] and not (here / "r.html").exists()


def test_report_of_a_certificate_with_a_division_by_zero(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err, _ = _run(capsys, "report", "div0_cert.json", "-o", "r.html")
    assert code == 2 and len(err) == 1 and "not a circuit structure" in err[0] and not (here / "r.html").exists()


def test_an_input_slot_reading_an_input_the_circuit_lacks(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err, _ = _run(capsys, "run", "gate_edge_T.json", "--encoding", "enc_slot_oob.json", "--input", "1")
    assert code == 2 and len(err) == 1 and "reads input 5" in err[0]


def test_a_value_past_float64_is_bad_input_for_the_float_engine(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err, _ = _run(capsys, "run", "gate_edge_T.json", "--encoding", "gate_edge_E.json", "--input",
                        "1" + "0" * 400, "--engine", "float64")
    assert code == 2 and len(err) == 1 and "float64" in err[0]


def test_an_all_n_audit_past_the_kernels_caps_is_unknown(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err, out = _run(capsys, "audit", "many_heads.json", "--prove", "-o", "cert.json")
    assert code == 3 and "past the kernel's cap" in out and "Traceback" not in out + "".join(err)
    assert not (here / "cert.json").exists()


def test_two_outputs_naming_one_file_are_refused_before_any_work(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err, _ = _run(capsys, "certify", str(SPECS / "abs_via_sign.circ"), "-c", "gate-edge", "-o", "x.out",
                        "--report", "x.out")
    assert code == 2 and len(err) == 1 and "name the same file" in err[0] and not (here / "x.out").exists()


def test_no_command_is_one_line_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    code, err, out = _run(capsys)
    assert code == 2 and len(err) == 1 and "no command" in err[0] and out == ""


def test_the_kernels_refusal_of_a_construction_is_worded_with_its_values(here: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    code, err, _ = _run(capsys, "construction", "check", "cons_fanin_neg.json")
    assert code == 2 and len(err) == 1 and "{" not in err[0] and "got -1" in err[0]


def test_a_json_circuit_with_a_repeated_key_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = '{"format": "verified-aat/circuit", "version": 1, "inputs": ["x"], "gates": [{"name": "x", "op": "input"}],' \
          ' "outputs": ["x"], "outputs": []}'
    (tmp_path / "c.json").write_text(doc)
    code, err, _ = _run(capsys, "info", str(tmp_path / "c.json"))
    assert code == 2 and len(err) == 1 and "duplicate key 'outputs'" in err[0]
    assert json.loads(doc)["outputs"] == []  # what a lax reader would have taken silently


@pytest.mark.parametrize("command", [["check"], ["show"], ["show", "--summary"], ["report", "-o", "r.html"]])
def test_a_deep_certificate_with_an_escape_is_one_line(command: list[str], tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """Nesting just under Python's parser limit, with a \\u escape in it: the text check walked the document
    recursively and overflowed where the parser had not; now it is bad input like any too-deep file."""
    depth = 987
    bad = tmp_path / "deep.json"
    bad.write_text('{"a": ' + "[" * depth + '"\\u00e9"' + "]" * depth + "}")
    code, err, out = _run(capsys, command[0], str(bad), *command[1:])
    assert code == 2 and len(err) == 1 and "nested" in err[0] and "Traceback" not in out
    assert not (tmp_path / "r.html").exists()
