"""Bad input and output targets left by red team 25, each a class with a test that failed before its fix.

(1) A read-only *directory* was written into: the superuser's rename passes its protection, as it passed a read-only
file's before round 25; now every writer refuses a target in (or, for ``compile -o DIR``, that is) a directory with no
write permission, before any work.  (2) ``--circuit`` naming a device, a FIFO or a missing file without an extension
said "unknown circuit file type '(none)'"; now it says what the path is.  (3) ``audit --lengths 2,2`` audited a length
twice.  (4) ``prove-construction - -o D.json < D.json`` found the output to be its input only after the whole proof;
now the file on standard input is an input like any named one, refused before any work.  (5) below.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from verified_aat.cli.main import main
from test_redteam_round25 import WRITERS, _writers

ROOT = Path(__file__).resolve().parents[1]
MIXED = ROOT / "specs" / "circuits" / "mixed_depth6.circ"
GATE_EDGE = ROOT / "verified_aat" / "data" / "constructions" / "gate-edge.json"


@pytest.fixture
def read_only_dir(tmp_path: Path):  # type: ignore[no-untyped-def]
    target = tmp_path / "locked"
    target.mkdir()
    target.chmod(stat.S_IRUSR | stat.S_IXUSR)
    yield target
    target.chmod(stat.S_IRWXU)


@pytest.mark.parametrize("writer", WRITERS)
def test_no_writer_writes_into_a_read_only_directory(writer: str, work: dict[str, Path], read_only_dir: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    target = read_only_dir / ("out" if writer == "compile -o" else "out.json")
    argv = [str(a) for a in _writers(work, str(target))[writer]]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "read-only directory" in err and err.count("\n") == 1 and "Traceback" not in err
    assert os.listdir(read_only_dir) == []


def test_compile_refuses_a_read_only_output_directory_itself(read_only_dir: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compile", str(MIXED), "-c", "gate-edge", "-o", str(read_only_dir)]) == 2
    assert "is a read-only directory" in capsys.readouterr().err
    assert os.listdir(read_only_dir) == []


def test_a_writable_directory_is_still_written(tmp_path: Path) -> None:
    out = tmp_path / "cert.json"
    assert main(["certify", str(MIXED), "-c", "gate-edge", "--no-timings", "-o", str(out)]) == 0
    assert out.stat().st_size > 0


@pytest.mark.parametrize("path, said", [("/dev/zero", "a character device, not a regular file"),
                                        ("DIR", "a directory, not a regular file"),
                                        ("FIFO", "a FIFO (named pipe), not a regular file"),
                                        ("MISSING", "No such file or directory")])
def test_circuit_paths_that_are_no_file_say_what_they_are(path: str, said: str, work: dict[str, Path], tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    if path == "FIFO":
        os.mkfifo(tmp_path / "fifo")
    where = {"DIR": str(tmp_path), "FIFO": str(tmp_path / "fifo"), "MISSING": str(tmp_path / "absent")}.get(path, path)
    for argv in (["check", str(work["cert"]), "--circuit", where], ["eval", where, "--inputs", "1,2,3"],
                 ["certify", where]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert said in err and "unknown circuit file type" not in err and err.count("\n") == 1, (argv, err)


@pytest.mark.parametrize("lengths, twice", [("2,2", 2), ("1..3,3", 3), ("2,5..7,6", 6)])
def test_a_length_given_twice_is_bad_input(lengths: str, twice: int, work: dict[str, Path],
                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", str(work["transformer"]), "--lengths", lengths]) == 2
    assert f"length {twice} is given more than once" in capsys.readouterr().err


def test_distinct_lengths_are_still_read() -> None:
    from verified_aat.cli.audit_cmd import parse_lengths
    assert parse_lengths("2..4,7") == [2, 3, 4, 7]


@pytest.mark.parametrize("argv", [["prove-construction", "-"], ["certify", str(MIXED), "-c", "-"]])
def test_the_file_on_standard_input_is_an_input(argv: list[str], tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    document = tmp_path / "D.json"
    document.write_bytes(GATE_EDGE.read_bytes())
    before = document.read_bytes()
    saved = os.dup(0)
    try:
        with open(document, "rb") as stdin:
            os.dup2(stdin.fileno(), 0)
            code = main([*argv, "-o", str(document)])
    finally:
        os.dup2(saved, 0)
        os.close(saved)
    assert code == 2
    err = capsys.readouterr().err
    assert "is the file on standard input: refusing to overwrite an input" in err
    assert "theorem" not in err and document.read_bytes() == before


@pytest.mark.parametrize("value", [[], ["format"], "verified-aat/certificate", 7, None, 1.5, True])
def test_the_kernel_rejects_a_value_that_is_no_json_object(value: object) -> None:
    """(5) ``verified_aat.kernel.check_certificate`` called on a list or a string raised AttributeError; a file whose top
    level is no object was already refused by the reader. Now a rejection by S1, with the value's type named."""
    from verified_aat.kernel import check_certificate
    report = check_certificate(value)  # type: ignore[arg-type]
    assert report.outcome == "rejected" and not report.theorem
    assert report.rejections[0].check == "document" and type(value).__name__ in report.rejections[0].detail



def test_the_html_report_shows_control_characters_never_raw(work: dict[str, Path]) -> None:
    """(6) A report of a certificate (a forged one too) whose construction name, title or verdict lines hold ESC or
    other C0/C1 controls put them raw into the page: HTML forbids them, and a terminal showing the file acts on
    them. Now each is shown as ``\\xNN``, wherever it stands in the page."""
    import dataclasses
    import json
    from verified_aat.report.data import from_certificate
    from verified_aat.report.html import render_page
    data = from_certificate(json.loads(work["cert"].read_text()))
    evil = dataclasses.replace(data, title="gate\x1b[31m-edge\x07", verdict=[*data.verdict, "odd\x85line\x00"])
    page = render_page(evil, layout="python")
    assert not any(ord(ch) < 32 and ch not in "\n\r\t" or 0x7f <= ord(ch) <= 0x9f for ch in page)
    assert "gate\\x1b[31m-edge\\x07" in page and "odd\\x85line\\x00" in page
