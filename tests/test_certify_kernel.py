"""certify ends with the trusted kernel's verdict: a certificate is written only when the kernel accepts it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from verified_aat.certificates import document
from verified_aat.cli.main import main

ROOT = Path(__file__).resolve().parent.parent
C = ROOT / "specs" / "circuits" / "mixed_depth6.circ"


def test_certify_prints_the_kernels_theorem(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cert = tmp_path / "c.json"
    assert main(["certify", str(C), "-o", str(cert)]) == 0
    out = capsys.readouterr().out
    assert "kernel           ACCEPTED" in out and "theorem          for every x in R^3" in out
    assert json.loads(cert.read_text())["result"]["status"] == "proved"


def _with_engine_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    """A test-only engine bug: the certificate's first lemma says something else than the engine proved."""
    real = document.build_certificate

    def buggy(*args: Any, **kwargs: Any) -> dict[str, Any]:
        doc = real(*args, **kwargs)
        doc["lemmas"][0]["smt2"] = doc["lemmas"][0]["smt2"].replace("(check-sat)", "(assert true)\n(check-sat)")
        return doc
    monkeypatch.setattr(document, "build_certificate", buggy)


def test_a_certificate_the_kernel_rejects_is_never_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    _with_engine_bug(monkeypatch)
    cert = tmp_path / "c.json"
    assert main(["certify", str(C), "-o", str(cert)]) == 3
    out = capsys.readouterr().out
    assert "kernel           REJECTED" in out and "not written" in out
    assert not cert.exists()
    assert main(["certify", str(C), "-o", str(cert), "--json"]) == 3
    reply = json.loads(capsys.readouterr().out)
    assert reply["status"] == "unknown" and reply["kernel"]["outcome"] == "REJECTED" and not cert.exists()


def test_no_kernel_writes_and_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    _with_engine_bug(monkeypatch)
    cert = tmp_path / "c.json"
    assert main(["certify", str(C), "-o", str(cert), "--no-kernel"]) == 0
    assert "not checked by the kernel" in capsys.readouterr().out
    assert main(["check", str(cert)]) == 1  # and the kernel, asked later, rejects it
