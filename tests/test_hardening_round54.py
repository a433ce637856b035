"""Stop 54: one verdict for a netlist given with ``check --circuit`` that is not the certificate's.

A certificate whose netlist link is by candidates (``certify --cap N``) is *not checked* without
``--candidate-link``, as that link's modules are past issue 19's count; but a netlist given with ``--circuit`` that
is not the section's was then *not checked* too, where the link by binary steps and ``--candidate-link`` reject it.
Now all three reject it (``agreement.other_netlist``, reject-only), with the same reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from verified_aat.cli.main import main

SHARED = Path(__file__).resolve().parents[2] / "shared" / "circuits" / "iscas85"
REASON = "is not the certificate's embedded netlist c17.bench"


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("c17")
    made = {"steps": tmp / "steps.json", "candidates": tmp / "cap.json"}
    assert main(["certify", str(SHARED / "c17.bench"), "-c", "gate-edge", "-o", str(made["steps"])]) == 0
    assert main(["certify", str(SHARED / "c17.bench"), "-c", "gate-edge", "--cap", "3",
                 "-o", str(made["candidates"])]) == 0
    return made


@pytest.mark.parametrize("link, options", [("steps", []), ("candidates", []), ("candidates", ["--candidate-link"])])
def test_another_netlist_is_rejected_whichever_link_and_option(certificates, capsys, link, options) -> None:  # type: ignore[no-untyped-def]
    capsys.readouterr()
    assert main(["check", str(certificates[link]), "--circuit", str(SHARED / "c432.bench"), *options]) == 1
    out = capsys.readouterr().out
    assert REASON in out and "c432.bench" in out and "not checked  the netlist section" not in out


def test_the_certificates_own_netlist_is_still_not_checked_without_the_option(certificates, capsys) -> None:  # type: ignore[no-untyped-def]
    """The same netlist byte for byte: the candidate link is not read (exit 3), and read when asked (exit 0)."""
    capsys.readouterr()
    assert main(["check", str(certificates["candidates"]), "--circuit", str(SHARED / "c17.bench")]) == 3
    assert "--candidate-link" in capsys.readouterr().out
    assert main(["check", str(certificates["candidates"]), "--circuit", str(SHARED / "c17.bench"),
                 "--candidate-link"]) == 0


BILINEAR = Path(__file__).resolve().parents[1] / "specs" / "transformers" / "bilinear_scores.json"


@pytest.mark.parametrize("first, engine, warned", [("1", "float64", None), ("1/10", "float64", "1/10"),
                                                    ("12345678901234567890", "float64", "12345678901234567890"),
                                                    ("1/3", "float32", "1/3"), ("3/4", "float32", None)])
def test_a_float_run_of_a_sequence_warns_when_the_dtype_rounds_it(tmp_path, capsys, first, engine, warned) -> None:  # type: ignore[no-untyped-def]
    """``run --sequence`` with a float engine rounded the sequence's values silently (an encoding's run warned since
    red team 28): now one warning naming the first value the dtype cannot hold; none where every value is exact."""
    import json
    sequence = tmp_path / "seq.json"
    sequence.write_text(json.dumps({"format": "verified-aat/sequence", "version": 1, "coordinates": ["k", "v", "w"],
                                    "vectors": [[first, "2", "3"], ["4", "5", "6"]]}))
    capsys.readouterr()
    assert main(["run", str(BILINEAR), "--sequence", str(sequence), "--engine", engine]) == 0
    err = capsys.readouterr().err
    if warned is None:
        assert "warning" not in err
    else:
        assert f"warning: {warned} in the sequence is not a {engine}" in err and err.count("\n") == 1
