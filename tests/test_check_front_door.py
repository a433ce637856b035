"""`check` prints no line that needs the engine (issue 21, item 4): the `transformer` line comes from the
kernel's own readers (results.transformer_is_own), not from compiling T_K with the engine."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verified_aat.cli.main import main
from verified_aat.results import transformer_is_own

ROOT = Path(__file__).resolve().parent.parent
CERT = ROOT / "proofs" / "gate-edge" / "majority_5.cert.json"


@pytest.fixture
def no_engine_compile(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine's T_K and its own-transformer test fail if `check` asks them."""
    import verified_aat.certificates.document as document
    import verified_aat.constructions.registry as registry

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("check asked the engine")
    monkeypatch.setattr(document, "is_constructions_own", refuse)
    monkeypatch.setattr(registry, "construction_of_record", refuse)
    monkeypatch.setattr(registry, "get_construction", refuse)


def test_check_names_the_constructions_own_transformer_without_the_engine(no_engine_compile, capsys):
    assert main(["check", str(CERT)]) == 0
    out = capsys.readouterr().out
    assert "transformer  the construction's own T_K" in out and "result       ACCEPTED" in out


def test_check_json_names_the_transformer_without_the_engine(no_engine_compile, capsys):
    assert main(["check", str(CERT), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["transformer"] == "construction"


def test_an_edited_transformer_is_named_by_the_kernels_reader(tmp_path, no_engine_compile, capsys):
    doc = json.loads(CERT.read_text())
    gates = doc["transformer"]["functions"][0]["gates"]
    k = next(i for i, g in enumerate(gates) if g[0] == "const")
    gates[k] = ["const", str(int(gates[k][1]) + 1)]
    assert transformer_is_own(doc) is False
    path = tmp_path / "edited.cert.json"
    path.write_text(json.dumps(doc))
    assert main(["check", str(path)]) == 1  # the stated hash no longer matches: rejected
    assert "transformer  an edited transformer (not the construction's T_K)" in capsys.readouterr().out


def test_an_unreadable_transformer_gives_no_transformer_line():
    doc = json.loads(CERT.read_text())
    assert transformer_is_own({**doc, "transformer": {"layers": "nope"}}) is None
    assert transformer_is_own({**doc, "construction": "no-such-construction"}) is None
