"""Compressed certificates and ``verified-aat show``: the compact file, read back by people and the kernel."""

from __future__ import annotations

import gzip
import json
import os
import stat

import pytest

from verified_aat import kernel
from verified_aat.cli.main import main
from verified_aat.kernel import CertificateFileError, load_certificate

SPEC = os.path.join(os.path.dirname(__file__), "..", "specs", "circuits", "difference_of_squares.circ")


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("certs")
    plain, packed = folder / "c.json", folder / "c.json.gz"
    for path in (plain, packed):
        assert main(["certify", SPEC, "--no-timings", "-o", str(path)]) == 0
    return plain, packed


def test_a_gz_path_gives_a_deterministic_gzip_of_the_same_document(certs, tmp_path):
    plain, packed = certs
    raw = packed.read_bytes()
    assert raw[:2] == b"\x1f\x8b" and gzip.decompress(raw) == plain.read_bytes()
    assert len(raw) < plain.stat().st_size
    again = tmp_path / "again.json.gz"
    assert main(["certify", SPEC, "--no-timings", "-o", str(again)]) == 0
    assert again.read_bytes() == raw


def test_the_kernel_reads_and_accepts_the_compressed_certificate(certs, capsys):
    plain, packed = certs
    assert load_certificate(str(packed)) == load_certificate(str(plain))
    assert main(["check", str(packed)]) == 0
    assert "ACCEPTED" in capsys.readouterr().out


def test_written_certificates_get_the_usual_file_mode(certs):
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(certs[0].stat().st_mode) == 0o666 & ~umask


@pytest.mark.parametrize("damage", ["truncate", "trailing", "garbage"])
def test_damaged_gzip_is_bad_input_with_one_line(certs, tmp_path, damage, capsys):
    raw = certs[1].read_bytes()
    bad = {"truncate": raw[: len(raw) // 2], "trailing": raw + b"junk", "garbage": raw[:10] + b"\x00" * 40}[damage]
    path = tmp_path / "bad.json.gz"
    path.write_bytes(bad)
    with pytest.raises(CertificateFileError, match="bad.json.gz: not a certificate"):
        load_certificate(str(path))
    assert main(["check", str(path)]) == 2
    assert main(["show", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all("bad.json.gz" in line for line in err)


def test_a_decompression_bomb_stops_at_the_limit(tmp_path, monkeypatch):
    monkeypatch.setattr(kernel, "MAX_CERTIFICATE_BYTES", 1000)
    path = tmp_path / "bomb.json.gz"
    path.write_bytes(gzip.compress(b'{"a":"' + b"x" * 100_000 + b'"}'))
    with pytest.raises(kernel.CertificateTooLarge, match="decompression limit"):
        load_certificate(str(path))


def test_show_prints_the_same_document_indented(certs, capsys):
    assert main(["show", str(certs[1])]) == 0
    out = capsys.readouterr().out
    assert json.loads(out) == load_certificate(str(certs[0]))
    assert out.count("\n") > 50


def test_show_summary_names_every_section_with_its_size(certs, capsys):
    doc = load_certificate(str(certs[0]))
    assert main(["show", str(certs[0]), "--summary"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == sorted(doc)
    lemmas = next(line for line in lines if line.startswith("lemmas"))
    assert f"{len(doc['lemmas']):,} entries" in lemmas


def test_show_lemma_prints_its_smt_text_verbatim(certs, capsys):
    doc = load_certificate(str(certs[0]))
    lemma = doc["lemmas"][-1]
    assert main(["show", str(certs[0]), "--lemma", lemma["id"][:16]]) == 0
    out = capsys.readouterr().out
    assert out.endswith(lemma["smt2"]) and lemma["kind"] in out.splitlines()[0]


@pytest.mark.parametrize("argv", [["--lemma", "zz"], ["--lemma", ""], ["--section", "nope"]])
def test_show_names_what_is_missing(certs, argv, capsys):
    assert main(["show", str(certs[0]), *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(certs[0]) in err


def test_compiled_model_files_get_the_usual_file_mode(tmp_path):
    out = tmp_path / "model"
    assert main(["compile", SPEC, "-o", str(out)]) == 0
    umask = os.umask(0)
    os.umask(umask)
    for name in ("transformer.json", "encoding.json"):
        assert stat.S_IMODE((out / name).stat().st_mode) == 0o666 & ~umask
    assert not [p for p in out.iterdir() if p.name.startswith(".")]  # no temporary file left


@pytest.mark.parametrize("command", ["compile", "certify"])
def test_a_circuit_outside_the_class_is_named_by_its_file(tmp_path, command, capsys):
    circuit = tmp_path / "wide.circ"
    circuit.write_text("input a\ninput b\ninput c\nm = mul a b c\noutput m\n")
    argv = [command, str(circuit), "-c", "unique-hard"] + (["-o", str(tmp_path / "out")] if command == "compile" else [])
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"{circuit}: unique-hard needs" in err and "<input>" not in err
    assert main([command, "--family", "sum", "--n", "5", "-c", "unique-hard"]
                + (["-o", str(tmp_path / "out2")] if command == "compile" else [])) == 2
    assert "--family sum: unique-hard needs" in capsys.readouterr().err


def test_check_and_show_read_a_certificate_from_standard_input(certs, monkeypatch, capsys):
    import io
    import sys

    for path in certs:  # plain and gzip
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(path.read_bytes())))
        assert main(["check", "-"]) == 0
        assert "ACCEPTED" in capsys.readouterr().out
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"{not json")))
    assert main(["show", "-"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("verified-aat: <stdin>:1: not a certificate")
