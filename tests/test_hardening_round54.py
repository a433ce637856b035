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
