"""Red team, round 16b: classes of bugs found in this round, each with the test that failed before its fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from verified_aat.cli.main import main

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "verified_aat" / "data" / "constructions"
MIXED = ROOT / "specs" / "circuits" / "mixed_depth6.circ"


def _one_line(capsys: pytest.CaptureFixture[str], where: str) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert err.startswith(f"verified-aat: {where}"), err
    return err


def _tree(directory: Path) -> dict[str, tuple[int, bytes | None]]:
    return {str(p): (p.lstat().st_mode, None if p.is_symlink() or p.is_dir() else p.read_bytes())
            for p in sorted(directory.rglob("*"))}


# -- an output path that is a symbolic link: refused by every command that writes, whatever it points to -----------

@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("compiled")
    assert main(["compile", str(MIXED), "-c", "gate-edge", "-o", str(out)]) == 0
    return out / "transformer.json"


WRITERS = {
    "certify -o": ["certify", MIXED, "-c", "gate-edge", "-o", "@F"],
    "certify --report": ["certify", MIXED, "-c", "gate-edge", "--report", "@F"],
    "certify --every-k -o": ["certify", MIXED, "-c", "gate-edge", "--every-k", "-o", "@F"],
    "certify --export-smt": ["certify", MIXED, "-c", "gate-edge", "--export-smt", "@D"],
    "compile -o": ["compile", MIXED, "-c", "gate-edge", "-o", "@D"],
    "export": ["export", "@T", "--format", "numpy", "-o", "@F"],
    "audit --output-circuit": ["audit", "@T", "--lengths", "2", "--output-circuit", "@F"],
    "audit --prove -o": ["audit", "@T", "--prove", "-o", "@F"],
    "audit --round-trip -o": ["audit", "-c", "gate-edge", MIXED, "--round-trip", "-o", "@D"],
    "refute --report": ["refute", "@T", "--report", "@F"],
    "prove-construction -o": ["prove-construction", "gate-edge", "-K", "2", "-o", "@F"],
    "report -o": ["report", "@CERT", "-o", "@F"],
}


@pytest.mark.parametrize("points_to", ["regular file", "directory"])
@pytest.mark.parametrize("command", sorted(WRITERS))
def test_every_output_that_is_a_symbolic_link_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          compiled: Path, command: str, points_to: str) -> None:
    """``-o LINK`` with LINK -> a regular file wrote the certificate through the link, replacing the file it points to
    (tests/test_file_safety.py documented it); now refused, exit 2, one line naming the link, nothing written."""
    real, folder, link = tmp_path / "real.json", tmp_path / "folder", tmp_path / "link"
    real.write_text("mine\n")
    folder.mkdir()
    (folder / "kept.txt").write_text("kept\n")
    cert = tmp_path / "c.cert.json"
    if command == "report -o":
        assert main(["certify", str(MIXED), "-c", "gate-edge", "-o", str(cert)]) == 0
    link.symlink_to(real if points_to == "regular file" else folder)
    capsys.readouterr()
    before = _tree(tmp_path)
    subst = {"@F": link, "@D": link, "@T": compiled, "@CERT": cert}
    assert main([str(subst.get(str(a), a)) for a in WRITERS[command]]) == 2
    assert "a symbolic link" in _one_line(capsys, f"{link}: ")
    assert _tree(tmp_path) == before
