"""The netlist link by candidates (``certify --cap N``'s, and certificates written before stop 51) is read only when
asked, with ``check --candidate-link`` / ``candidate_link=True``: its kernel modules are past issue 19's 3,000
trusted lines, so by default such a certificate is *not checked* (exit 3), never accepted and never rejected for its
link, while everything else in it is still checked (a forged transformer is still rejected).
"""

from __future__ import annotations

import copy
import hashlib
import json
import subprocess
import sys
from functools import lru_cache
from html import unescape
from pathlib import Path
from typing import Any

import pytest

from netlist_helpers import SHARED
from verified_aat.kernel import Options, check_certificate
from verified_aat.kernel.problems import CANDIDATES

ROOT = Path(__file__).resolve().parent.parent
C17 = SHARED / "iscas85" / "c17.bench"
HALF_ADDER = "INPUT(a)\nINPUT(b)\nOUTPUT(s)\nOUTPUT(c)\nn = NAND(a, b)\nx = NAND(a, n)\ny = NAND(b, n)\ns = NAND(x, y)\nc = AND(a, b)\n"


@lru_cache(maxsize=None)
def _capped_text(mode: str) -> str:
    """A cap-mode certificate of a half adder, as text (so each test gets its own copy)."""
    import tempfile

    from verified_aat.api import certificate, certify
    from verified_aat.circuits.io import load_circuit
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "half.bench"
        path.write_text(HALF_ADDER)
        return json.dumps(dict(certificate(certify(load_circuit(str(path), mode, cap=2)))))


def capped(mode: str) -> dict[str, Any]:
    doc = json.loads(_capped_text(mode))
    assert "steps" not in doc["netlist"], "cap mode writes a link by candidates"
    return doc


def _verdict(doc: dict[str, Any], **options: Any):  # type: ignore[no-untyped-def]
    return check_certificate(json.loads(json.dumps(doc)), Options(**options))


@pytest.mark.parametrize("mode", ["exact", "threshold"])
def test_a_link_by_candidates_is_not_checked_by_default_and_accepted_when_asked(mode: str) -> None:
    doc = capped(mode)
    default = _verdict(doc)
    assert default.outcome == "not-checked" and default.unchecked == [CANDIDATES] and not default.rejections
    assert "--candidate-link" in default.unchecked[0]
    asked = _verdict(doc, candidate_link=True)
    assert asked.accepted and "netlist 'half.bench'" in asked.theorem, asked.reasons


@pytest.mark.parametrize("mode", ["exact", "threshold"])
def test_a_forged_link_by_candidates_is_never_accepted_and_rejected_when_asked(mode: str) -> None:
    """The netlist text one gate type away (its hash recomputed, the engine's hints for the true netlist kept)."""
    forged = capped(mode)
    forged["netlist"]["text"] = text = forged["netlist"]["text"].replace("c = AND(a, b)", "c = OR(a, b)")
    forged["netlist"]["sha256"] = hashlib.sha256(text.encode()).hexdigest()
    assert text != capped(mode)["netlist"]["text"]
    assert _verdict(forged).outcome == "not-checked"
    asked = _verdict(forged, candidate_link=True)
    assert asked.outcome == "rejected" and asked.rejections[0].check == "netlist", asked.reasons


def test_the_rest_of_a_cap_certificate_is_still_checked_without_the_option() -> None:
    """The gate skips the link only: C's outputs swapped, or a lemma dropped, is still rejected, so a forged cap
    certificate is not laundered into *not checked* by its link."""
    doc = capped("exact")
    swapped = copy.deepcopy(doc)
    swapped["circuit"]["outputs"] = list(reversed(swapped["circuit"]["outputs"]))
    dropped = copy.deepcopy(doc)
    dropped["lemmas"] = dropped["lemmas"][1:]
    for forged in (swapped, dropped):
        report = _verdict(forged)
        assert report.outcome == "rejected" and report.rejections[0].check != "netlist", report.reasons


def test_a_netlist_section_that_is_no_object_is_rejected_at_its_path_not_sent_to_the_candidates() -> None:
    doc = capped("exact")
    for bad in ([], "steps", 7):
        doc["netlist"] = bad
        report = _verdict(doc)
        assert report.outcome == "rejected" and "$.netlist" in str(report.rejections[0]), (bad, report.reasons)


def test_a_section_with_neither_steps_nor_signals_is_malformed_not_a_link_by_candidates() -> None:
    """Red team 27: ``"netlist": {}`` (or one with only the common keys) was taken for a link by candidates, *not
    checked*; it is no link at all, so the step link's reader rejects it at its path. A section with ``signals`` and
    no ``steps`` is still the link by candidates (not checked without the option)."""
    doc = capped("exact")
    common = {k: v for k, v in doc["netlist"].items() if k in ("file", "format", "mode", "sha256", "text")}
    for bad in ({}, common):
        doc["netlist"] = bad
        report = _verdict(doc)
        assert report.outcome == "rejected" and "$.netlist" in str(report.rejections[0]), (bad, report.reasons)
    doc["netlist"] = {**common, "signals": {}}
    assert _verdict(doc).outcome == "not-checked"


def test_the_cli_says_so_at_certify_and_asks_for_the_option_at_check(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    from verified_aat.cli.main import main
    cert = tmp_path / "c17.json"
    assert main(["certify", str(C17), "--cap", "2", "-o", str(cert)]) == 0
    out = capsys.readouterr().out
    assert "kernel           ACCEPTED" in out and "--candidate-link" in out
    assert main(["check", str(cert)]) == 3
    out = capsys.readouterr().out
    assert "result       NOT CHECKED" in out and "--candidate-link" in out
    assert main(["check", str(cert), "--candidate-link"]) == 0
    out = capsys.readouterr().out
    assert "result       ACCEPTED" in out and "the netlist link by candidates (--candidate-link)" in out
    assert main(["check", str(cert), "--candidate-link", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["candidate_link"] is True
    step = tmp_path / "c17.steps.json"
    assert main(["certify", str(C17), "-o", str(step), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["kernel"]["candidate_link"] is False
    assert main(["check", str(step), "--candidate-link", "--json"]) == 0  # a step link: the option changes nothing
    assert json.loads(capsys.readouterr().out)["candidate_link"] is False


def test_a_default_check_of_a_cap_certificate_never_imports_the_candidate_link(tmp_path: Path) -> None:
    """Why the default kinds leave the link by candidates out: in a fresh process, `check` of a cap certificate
    without the option reaches its verdict (not checked) with none of that link's modules loaded."""
    cert = tmp_path / "cap.json"
    cert.write_text(_capped_text("threshold"))
    code = ("import sys\nimport verified_aat as va\nreport = va.check(sys.argv[1])\n"
            "print(report.outcome, sorted(m.rsplit('.', 1)[1] for m in sys.modules if m.startswith('verified_aat.kernel.netlist')))")
    run = subprocess.run([sys.executable, "-c", code, str(cert)], capture_output=True, text=True, cwd=ROOT, check=True)
    outcome, modules = run.stdout.split(" ", 1)
    assert outcome == "not-checked", run.stdout + run.stderr
    assert not {"netlist_link", "netlist_cands", "netlist_decide", "netlist_threshold", "netlist_shannon",
                "netlist_parse"} & set(eval(modules)), modules


def test_report_reads_the_link_by_candidates_only_with_the_option(tmp_path: Path) -> None:
    from verified_aat.cli.main import main
    cert = tmp_path / "cap.json"
    cert.write_text(_capped_text("exact"))
    for extra, unchecked in (([], True), (["--candidate-link"], False)):
        page = tmp_path / f"r{len(extra)}.html"
        assert main(["report", str(cert), "-o", str(page), *extra]) == 0
        html = unescape(page.read_text())
        assert ("not checked: the netlist section is a link by candidates" in html) is unchecked
        assert ("C equals the gate-wise multilinear extension of netlist 'half.bench'" in html) is not unchecked
