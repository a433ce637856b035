"""Construction documents written from the docs by a red team (round 6, stop 40), not mutated from ours.

Of 37 documents none was proved wrongly or refuted wrongly. Kept here: a correct document of its own layout
(gate g keyed 3g, an edge into v keyed 3v + 1, bilinear scores), which is proved for every K and accepted; a
wrong one (sign(0) = 1), whose every-K refutation now names the K that went wrong so the witness can be
replayed with ``certify``; and one with a softmax head, which ``construction check`` passed and
``prove-construction`` refused naming no file.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from verified_aat.cli.main import main

DATA = Path(__file__).resolve().parent / "data" / "redteam_round6"


def _run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_correct_document_of_its_own_layout_is_proved_and_accepted(capsys: pytest.CaptureFixture[str],
                                                                     tmp_path: Path) -> None:
    cert = tmp_path / "tri-dot.cert.json"
    code, out, err = _run(capsys, "prove-construction", DATA / "tri-dot.json", "-o", cert)
    assert code == 0 and "result       PROVED" in out, err
    code, out, err = _run(capsys, "check", cert)
    assert code == 0 and "ACCEPTED" in out, err


def test_an_every_k_refutation_names_its_k_and_certify_replays_it(capsys: pytest.CaptureFixture[str],
                                                                  tmp_path: Path) -> None:
    code, out, err = _run(capsys, "prove-construction", DATA / "tri-sign0.json", "--budget", "30")
    assert code == 1 and "REFUTED" in out, err
    k = int(re.search(r"refuted at   K = (\d+) \(T_\d+ has (\d+) layers", out)[1])  # type: ignore[index]
    assert "replayed on: the transformer of" in out
    witness = tmp_path / "witness.circ"
    witness.write_text(out.split("witness circuit:\n", 1)[1].split("counterexample", 1)[0])
    code, out, err = _run(capsys, "certify", witness, "-c", DATA / "tri-sign0.json", "-K", k, "--json")
    assert code == 1 and '"status": "refuted"' in out, err


def test_a_document_with_a_softmax_head_is_bad_input_at_its_line(capsys: pytest.CaptureFixture[str]) -> None:
    for command in (["construction", "check"], ["prove-construction"]):
        code, out, err = _run(capsys, *command, DATA / "tri-softmax.json")
        assert code == 2 and "tri-softmax.json:171:" in err and "softmax" in err and len(err.splitlines()) == 1


def test_an_undeclared_unchanging_coordinate_is_taken_as_structural(capsys: pytest.CaptureFixture[str],
                                                                    tmp_path: Path) -> None:
    """tri-undecl leaves its op-code coordinate ``t`` out of ``structural``; every layer passes it through and
    no input is placed there. prove-construction proved it, per-circuit certify said unknown (its lemmas read
    ``t`` as an unknown value). certify now adds such coordinates to the hint, which the kernel checks."""
    circuit = Path(__file__).resolve().parent.parent / "specs" / "circuits" / "mixed_depth6.circ"
    cert = tmp_path / "c.json"
    code, out, err = _run(capsys, "certify", circuit, "-c", DATA / "tri-undecl.json", "-o", cert)
    assert code == 0 and "ACCEPTED" in out, (out, err)
    import json
    assert "t" in json.loads(cert.read_text())["hints"]["structural"]
    code, out, err = _run(capsys, "check", cert)
    assert code == 0 and "ACCEPTED" in out
