"""Issue 16, items 1-3: nothing a user owns is destroyed, and no small input takes the machine.

Every command that writes refuses, before any work and with one line naming the path (exit 2),
a target that is a device node, a FIFO, a socket or a directory, and a target that is the same
file as an input (given, hard-linked, through a symbolic link, or read indirectly).  Every reader
refuses what is not a regular file instead of blocking on a FIFO or reading /dev/zero forever,
and gzip data past the decompression limit stops the command as *unknown* (exit 3).  Device
nodes are private ones made with ``os.mknod`` in a temporary directory, never the machine's own.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import signal
import socket
import stat
from pathlib import Path

import pytest

from verified_aat.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
MIXED = ROOT / "specs" / "circuits" / "mixed_depth6.circ"
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


@pytest.fixture(autouse=True)
def no_hang():
    """A command that blocks (on a FIFO, say) fails the test instead of hanging the suite."""
    def expire(signum, frame):
        raise TimeoutError("the command blocked for 60 s")
    old = signal.signal(signal.SIGALRM, expire)
    signal.alarm(60)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


def run_cli(capsys, argv) -> tuple[int, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, err


def refused(capsys, argv, *words: str, code: int = 2) -> str:
    got, err = run_cli(capsys, argv)
    lines = err.strip().splitlines()
    assert got == code, (got, err)
    assert len(lines) == 1, err
    assert "Traceback" not in err and "<input>" not in err
    for word in words:
        assert str(word) in lines[0], (word, lines[0])
    return lines[0]


def _special(kind: str, path: Path) -> Path:
    """A private non-regular file of ``kind`` at ``path``."""
    if kind == "device":
        if not IS_ROOT:
            pytest.skip("making a device node needs root")
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 5))  # a private /dev/zero
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    elif kind == "socket":
        if len(str(path)) > 100:
            pytest.skip("socket path too long")
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(path))
        server.close()
    return path


def _snapshot(directory: Path) -> dict[str, tuple[int, int, bytes | None]]:
    """Every entry below ``directory``: mode, size and (for regular files) the bytes."""
    out = {}
    for entry in sorted(directory.rglob("*")):
        info = entry.lstat()
        out[str(entry)] = (info.st_mode, info.st_size, entry.read_bytes() if stat.S_ISREG(info.st_mode) else None)
    return out


# -- item 1: targets that are not regular files -----------------------------------------------------

def _writers(work: dict[str, Path], target: Path) -> dict[str, list]:
    t = work["transformer"]
    return {
        "certify -o": ["certify", MIXED, "-c", "gate-edge", "-o", target],
        "certify --report": ["certify", MIXED, "-c", "gate-edge", "--report", target],
        "refute --report": ["refute", t, "-c", "gate-edge", "--report", target],
        "prove-construction -o": ["prove-construction", "gate-edge", "-K", "2", "-o", target],
        "audit --output-circuit": ["audit", t, "--lengths", "2", "--output-circuit", target],
        "audit --prove -o": ["audit", t, "--lengths", "2", "--prove", "-o", target],
        "export -o": ["export", t, "--format", "numpy", "-o", target],
        "export --format onnx -o": ["export", t, "--format", "onnx", "-o", target],
        "report -o": ["report", work["cert"], "-o", target],
    }


WRITERS = ["certify -o", "certify --report", "refute --report", "prove-construction -o", "audit --output-circuit",
           "audit --prove -o", "export -o", "export --format onnx -o", "report -o"]


@pytest.mark.parametrize("kind", ["device", "fifo", "directory", "socket"])
@pytest.mark.parametrize("writer", WRITERS)
def test_a_target_that_is_not_a_regular_file_is_refused(capsys, tmp_path, work, writer, kind) -> None:
    target = _special(kind, tmp_path / "target")
    before = _snapshot(tmp_path)
    line = refused(capsys, _writers(work, target)[writer], f"{target}:", "not a regular file", "refusing")
    assert _snapshot(tmp_path) == before, line  # the node is still there, nothing else was written


@pytest.mark.parametrize("kind", ["device", "fifo", "socket"])
@pytest.mark.parametrize("argv", [["compile", MIXED, "-o"], ["certify", MIXED, "--export-smt"]],
                         ids=["compile -o DIR", "certify --export-smt DIR"])
def test_an_output_directory_that_is_not_a_directory_is_refused(capsys, tmp_path, kind, argv) -> None:
    target = _special(kind, tmp_path / "target")
    before = _snapshot(tmp_path)
    refused(capsys, [*argv, target], f"{target}:", "not a directory")
    assert _snapshot(tmp_path) == before


@pytest.mark.parametrize("kind", ["device", "fifo"])
def test_a_special_file_inside_an_output_directory_is_refused_before_anything_is_written(capsys, tmp_path, kind):
    out = tmp_path / "out"
    out.mkdir()
    _special(kind, out / "encoding.json")  # compile writes transformer.json first, then encoding.json
    before = _snapshot(tmp_path)
    refused(capsys, ["compile", MIXED, "-o", out], "encoding.json:", "not a regular file")
    assert _snapshot(tmp_path) == before  # transformer.json was not written either


def test_an_output_that_is_a_symbolic_link_is_refused_whatever_it_points_to(capsys, tmp_path):
    """The strict reading (red team 16b): a link to a device, to a regular file, to a directory or to nothing is
    refused with one line naming it, and nothing is written, neither the link nor its target (a link to a regular
    file was written through, so ``-o out.json`` with ``out.json -> ~/.bashrc`` replaced that file)."""
    device = _special("device", tmp_path / "node")
    real = tmp_path / "real.json"
    real.write_text("old")
    (tmp_path / "dir").mkdir()
    link = tmp_path / "link.json"
    for target in (device, real, tmp_path / "dir", tmp_path / "nothing"):
        link.symlink_to(target)
        before = _snapshot(tmp_path)
        refused(capsys, ["certify", MIXED, "-o", link], f"{link}:", "a symbolic link")
        assert _snapshot(tmp_path) == before and link.is_symlink()
        link.unlink()
    assert stat.S_ISCHR(device.lstat().st_mode) and real.read_text() == "old"
    assert not (tmp_path / "nothing").exists()


# -- item 1: targets that are inputs -------------------------------------------------------------------

def _copy(work: dict[str, Path], tmp_path: Path) -> dict[str, Path]:
    mine = {name: tmp_path / path.name for name, path in work.items()}
    for name, path in work.items():
        shutil.copy(path, mine[name])
    circuit = tmp_path / "m.circ"
    shutil.copy(MIXED, circuit)
    mine["circuit"] = circuit
    return mine


def _same_as_input(mine: dict[str, Path]) -> dict[str, tuple[list, Path]]:
    c, t, cert = mine["circuit"], mine["transformer"], mine["cert"]
    return {  # the cases, then ones it does not list
        "certify X -o X": (["certify", c, "-o", c], c),
        "certify X --report X": (["certify", c, "--report", c], c),
        "prove-construction --transformer X -o X": (["prove-construction", "gate-edge", "--transformer", t,
                                                     "-o", t], t),
        "audit X --prove -o X": (["audit", t, "--lengths", "2", "--prove", "-o", t], t),
        "audit X --output-circuit X": (["audit", t, "--lengths", "2", "--output-circuit", t], t),
        "export X -o X": (["export", t, "--format", "numpy", "-o", t], t),
        "export X --format onnx -o X": (["export", t, "--format", "onnx", "-o", t], t),
        "report X -o X": (["report", cert, "-o", cert], cert),
        "certify --transformer T -o T": (["certify", c, "--transformer", t, "-o", t], t),
        "refute T --report T": (["refute", t, "--report", t], t),
    }


CASES = ["certify X -o X", "certify X --report X", "prove-construction --transformer X -o X", "audit X --prove -o X",
         "audit X --output-circuit X", "export X -o X", "export X --format onnx -o X", "report X -o X", "certify --transformer T -o T",
         "refute T --report T"]


@pytest.mark.parametrize("case", CASES)
def test_an_output_that_is_an_input_is_refused(capsys, tmp_path, work, case) -> None:
    argv, victim = _same_as_input(_copy(work, tmp_path))[case]
    before = _snapshot(tmp_path)
    refused(capsys, argv, f"{victim}:", "refusing to overwrite an input")
    assert _snapshot(tmp_path) == before


@pytest.mark.parametrize("alias", ["hardlink", "symlink", "dotted"])
def test_an_output_that_is_an_input_under_another_name_is_refused(capsys, tmp_path, alias) -> None:
    circuit = tmp_path / "m.circ"
    shutil.copy(MIXED, circuit)
    other = tmp_path / "other.json"
    if alias == "hardlink":
        os.link(circuit, other)
    elif alias == "symlink":
        other.symlink_to(circuit)
    else:
        other = tmp_path / "." / "sub" / ".." / "m.circ"
        (tmp_path / "sub").mkdir()
    before = _snapshot(tmp_path)
    refused(capsys, ["certify", circuit, "-o", other], "a symbolic link" if alias == "symlink" else
            "refusing to overwrite an input")
    assert _snapshot(tmp_path) == before


def test_an_input_read_indirectly_is_not_overwritten(capsys, tmp_path, work) -> None:
    """A file read by the command (a refute JSON's model, say), not named on the command line, is
    remembered: no write of the same command replaces it."""
    mine = _copy(work, tmp_path)
    from verified_aat import files
    with files.command_scope():
        files.read_input(str(mine["transformer"]))
        with pytest.raises(Exception, match="refusing to overwrite an input"):
            files.write_atomically(str(mine["transformer"]), "x")
    assert mine["transformer"].read_bytes() == work["transformer"].read_bytes()
    files.write_atomically(str(tmp_path / "fresh.txt"), "x")  # outside a command nothing is tracked


# -- items 2 and 3: readers take regular files only, bounded ------------------------------------------

def _readers(work: dict[str, Path], bad: Path) -> dict[str, list]:
    t, e, cert = work["transformer"], work["encoding"], work["cert"]
    return {
        "info": ["info", bad], "eval": ["eval", bad, "--input=1"],
        "eval --inputs": ["eval", MIXED, "--inputs", bad], "eval --input=@": ["eval", MIXED, f"--input=@{bad}"],
        "run MODEL": ["run", bad, "--encoding", e, "--input=1,2,3"],
        "run --encoding": ["run", t, "--encoding", bad, "--input=1,2,3"],
        "run --sequence": ["run", t, "--sequence", bad],
        "certify --transformer": ["certify", MIXED, "--transformer", bad],
        "check": ["check", bad], "check --circuit": ["check", cert, "--circuit", bad],
        "show": ["show", bad], "report": ["report", bad, "-o", bad.parent / "r.html"],
        "export": ["export", bad, "--format", "numpy", "-o", bad.parent / "x.npz"],
        "audit": ["audit", bad, "--lengths", "2"], "refute": ["refute", bad],
        "prove-construction --transformer": ["prove-construction", "gate-edge", "--transformer", bad],
    }


READERS = ["info", "eval", "eval --inputs", "eval --input=@", "run MODEL", "run --encoding", "run --sequence",
           "certify --transformer", "check", "check --circuit", "show", "report", "export", "audit", "refute",
           "prove-construction --transformer"]


@pytest.mark.parametrize("kind", ["fifo", "device", "directory"])
@pytest.mark.parametrize("reader", READERS)
def test_an_input_that_is_not_a_regular_file_is_refused_at_once(capsys, tmp_path, work, reader, kind) -> None:
    suffix = {"info": ".circ", "eval": ".circ", "check --circuit": ".bench"}.get(reader, ".json")
    bad = _special(kind, tmp_path / f"input{suffix}")
    line = refused(capsys, _readers(work, bad)[reader], str(bad))
    assert "regular file" in line or "directory" in line.lower(), line
    assert not (tmp_path / "r.html").exists() and not (tmp_path / "x.npz").exists()


def _bomb(path: Path, inflated_mb: int) -> Path:
    chunk = b'{"format": "verified-aat/certificate", "pad": "' + b"x" * (inflated_mb << 20) + b'"}'
    path.write_bytes(gzip.compress(chunk, compresslevel=9))
    return path


@pytest.mark.parametrize("argv", [["check"], ["show"], ["report", "-o", "{dir}/r.html"]], ids=["check", "show", "report"])
def test_a_gzip_bomb_stops_at_the_decompression_limit(capsys, tmp_path, argv) -> None:
    bomb = _bomb(tmp_path / "bomb.json.gz", 3)
    assert bomb.stat().st_size < 100_000
    command = [argv[0], bomb, *[a.format(dir=tmp_path) for a in argv[1:]], "--max-inflated", "2"]
    line = refused(capsys, command, "unknown: limit reached", str(bomb), "--max-inflated", code=3)
    assert "decompression limit" in line
    assert not (tmp_path / "r.html").exists()


def test_the_decompression_limit_is_raised_by_its_option(capsys, tmp_path) -> None:
    bomb = _bomb(tmp_path / "bomb.json.gz", 3)
    code, err = run_cli(capsys, ["show", bomb, "--max-inflated", "4", "--summary"])
    assert code == 0, err  # read in full: a document of the certificate format, 3 MB of padding
    refused(capsys, ["show", bomb, "--max-inflated", "0"], "--max-inflated", "must be")


def test_the_default_decompression_limit_is_256_mib() -> None:
    from verified_aat import files, kernel
    assert files.DEFAULT_MAX_INFLATED_MB == 256 and kernel.MAX_CERTIFICATE_BYTES == 256 << 20


def test_standard_input_is_bounded_too(capsys, tmp_path, monkeypatch) -> None:
    import io
    import sys
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"input x\n" * (300 << 10))))
    refused(capsys, ["info", "-", "--max-inflated", "1"], "unknown: limit reached", "<stdin>", code=3)
    bomb = _bomb(tmp_path / "bomb.json.gz", 3)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(bomb.read_bytes())))
    refused(capsys, ["check", "-", "--max-inflated", "2"], "unknown: limit reached", "<stdin>", code=3)


def test_a_report_of_a_refutation_whose_model_is_a_device_does_not_read_it(capsys, tmp_path) -> None:
    device = _special("fifo", tmp_path / "model.json")
    refutation = tmp_path / "refute.json"
    refutation.write_text(json.dumps({"command": "refute", "status": "unknown", "model": str(device)}))
    refused(capsys, ["report", refutation, "-o", tmp_path / "r.html"], str(refutation))
    assert not (tmp_path / "r.html").exists()


def test_show_refuses_a_document_that_is_not_a_certificate(capsys, work) -> None:
    refused(capsys, ["show", work["transformer"]], str(work["transformer"]), "not a certificate")


@pytest.mark.parametrize("document", ["transformer", "encoding"])
def test_check_refuses_a_document_that_is_not_a_certificate_as_bad_input(capsys, work, document) -> None:
    refused(capsys, ["check", work[document]], str(work[document]), "not a certificate")


@pytest.mark.parametrize("command", ["check", "show"])
def test_a_certificate_with_two_readings_or_no_text_is_bad_input(capsys, work, tmp_path, command) -> None:
    """The kernel's reader refuses a key named twice (a reader that keeps the first value would see another
    certificate) and a lone UTF-16 surrogate anywhere (no text: it was accepted, and shown, before)."""
    text = work["cert"].read_text()
    assert '"format":' in text.replace(" ", "") and "\\u" not in text
    doc = json.loads(text)
    cases = {"twice.json": text.replace("{", '{"format": "other", ', 1),
             "surrogate-value.json": json.dumps({**doc, "info": {"note": "\ud800"}}),
             "surrogate-key.json": json.dumps({**doc, "info": {"\udfff": 1}})}
    for name, body in cases.items():
        path = tmp_path / name
        path.write_text(body)
        line = refused(capsys, [command, path], str(path), "not a certificate")
        assert ("'format' twice" if name == "twice.json" else "lone UTF-16 surrogate") in line, line
    pair = tmp_path / "pair.json"  # an escaped surrogate pair is one character: still a certificate
    pair.write_text(json.dumps({**doc, "info": {"note": "\ud83d\ude00"}}))
    assert run_cli(capsys, ["check", pair])[0] == 0


def test_a_missing_file_whose_name_holds_a_newline_is_one_line(capsys, tmp_path) -> None:
    name = tmp_path / "no\nfile.json"
    line = refused(capsys, ["check", name], "no\\nfile.json")
    assert "\n" not in line


def test_reading_a_small_file_costs_no_more_than_the_file(tmp_path) -> None:
    """read(n) allocates n bytes up front: the readers read in steps, so a 1 KB input under a
    300 MB address-space limit is read (it once asked for the 2 GiB file-size limit at once)."""
    import tracemalloc

    from verified_aat import files
    small = tmp_path / "small.circ"
    small.write_bytes(b"input x\noutput x\n" * 64)
    tracemalloc.start()
    assert files.read_input(str(small)) == small.read_bytes()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 1 << 20, peak


def test_a_construction_document_is_an_input_too(capsys, tmp_path) -> None:
    from verified_aat.cli.main import main as cli
    document = tmp_path / "mine.json"
    assert cli(["construction", "show", "gate-edge"]) == 0
    document.write_text(capsys.readouterr().out.replace('"gate-edge"', '"gate-edge-mine"', 1))
    before = document.read_bytes()
    refused(capsys, ["certify", MIXED, "-c", document, "-o", document], "refusing to overwrite an input")
    assert document.read_bytes() == before
