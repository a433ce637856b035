"""Red team, round 25: the command line's bad-input rule, by attack class.

Found: (1) ``-o -`` is standard output only for ``certify``; every other writer took ``-`` for a file name and
wrote a file called ``-`` in the working directory (``prove-construction``, ``report``, ``export``, ``audit --prove``),
``compile -o -`` made a directory ``-``, and ``audit --output-circuit -`` did the whole audit before failing on the
name's suffix.  Now bad input before any work (``cli/main.py``, ``STDOUT_OUTPUTS``).  (2) An output that is an
existing read-only file was replaced: the temporary file renamed over it bypasses the file's write protection, which
``>`` or ``cp`` would respect.  Now refused with one line, for every writer (``files.check_output``).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from verified_aat.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
MIXED = ROOT / "specs" / "circuits" / "mixed_depth6.circ"


def _writers(work: dict[str, Path], target: str) -> dict[str, list]:
    t = str(work["transformer"])
    return {
        "certify --report": ["certify", MIXED, "-c", "gate-edge", "--report", target],
        "prove-construction -o": ["prove-construction", "gate-edge", "-K", "2", "-o", target],
        "audit --output-circuit": ["audit", t, "--lengths", "2", "--output-circuit", target],
        "audit --prove -o": ["audit", t, "--lengths", "2", "--prove", "-o", target],
        "audit --round-trip -o": ["audit", "-c", "gate-edge", MIXED, "--round-trip", "-o", target],
        "export -o": ["export", t, "--format", "numpy", "-o", target],
        "report -o": ["report", work["cert"], "-o", target],
        "compile -o": ["compile", MIXED, "-c", "gate-edge", "-o", target],
    }


WRITERS = ["certify --report", "prove-construction -o", "audit --output-circuit", "audit --prove -o",
           "audit --round-trip -o", "export -o", "report -o", "compile -o"]


def _refused(capsys, argv, *words: str) -> str:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert code == 2, (code, err)
    assert len(lines) == 1 and "Traceback" not in err, err
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


@pytest.mark.parametrize("writer", WRITERS)
def test_a_dash_output_outside_certify_is_bad_input_not_a_file_named_dash(capsys, tmp_path, monkeypatch, work,
                                                                            writer) -> None:
    monkeypatch.chdir(tmp_path)
    _refused(capsys, _writers(work, "-")[writer], "standard output only for certify -o")
    assert list(tmp_path.iterdir()) == []


def test_certify_dash_output_is_still_standard_output(capsys, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["certify", str(MIXED), "-c", "gate-edge", "--no-timings", "-o", "-"]) == 0
    out, _ = capsys.readouterr()
    assert out.lstrip().startswith("{") and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("writer", [w for w in WRITERS if w not in ("compile -o", "audit --round-trip -o")])
@pytest.mark.parametrize("mode", [0o444, 0o400])
def test_a_read_only_output_file_is_not_replaced(capsys, tmp_path, work, writer, mode) -> None:
    target = tmp_path / ("out.npz" if writer == "export -o" else "out.circ" if "circuit" in writer else "out")
    target.write_text("mine\n")
    os.chmod(target, mode)
    _refused(capsys, _writers(work, str(target))[writer], "read-only file", str(target))
    assert target.read_text() == "mine\n" and stat.S_IMODE(target.stat().st_mode) == mode
    assert sorted(p.name for p in tmp_path.iterdir()) == [target.name]


@pytest.mark.parametrize("argv, name", [
    (["compile", MIXED, "-c", "gate-edge", "-o"], "encoding.json"),
    (["audit", "-c", "gate-edge", MIXED, "--round-trip", "-o"], "audit.cert.json"),
    (["certify", MIXED, "-c", "gate-edge", "--export-smt"], None),
])
def test_a_read_only_file_in_an_output_directory_is_not_replaced(capsys, tmp_path, argv, name) -> None:
    out = tmp_path / "out"
    if name is None:  # a lemma file an earlier export wrote, made read-only
        assert main([str(a) for a in argv] + [str(out)]) == 0
        capsys.readouterr()
        name = sorted(p.name for p in out.iterdir())[0]
        for p in out.iterdir():
            p.unlink()
    out.mkdir(exist_ok=True)
    (out / name).write_text("mine\n")
    os.chmod(out / name, 0o444)
    _refused(capsys, argv + [out], "read-only file", name)
    assert sorted(p.name for p in out.iterdir()) == [name]
    assert (out / name).read_text() == "mine\n"


def test_a_writable_output_file_is_still_replaced_and_keeps_its_mode(capsys, tmp_path, work) -> None:
    target = tmp_path / "r.html"
    target.write_text("old\n")
    os.chmod(target, 0o640)
    assert main(["report", str(work["cert"]), "-o", str(target)]) == 0
    capsys.readouterr()
    assert target.read_text().lstrip().lower().startswith("<!doctype html")
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
