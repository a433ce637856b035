"""The reports in a real browser: headless Chromium (Debian's ``chromium``) renders the report of c17's
certificate, of a refuted mutant (tests/mutants.py's MissingRescaling, written as an edited
transformer.json) and of gate-edge's every-K schematic certificate, takes screenshots and dumps the DOM.

Checks: no console message at all (Chromium logs page console output with
``--enable-logging=stderr``; a control page with an error proves the check can fail), the key
elements are in the rendered DOM (the first mismatch where ``certify --json`` puts it, the edited
lines inside the gather activation), and the screenshot is not blank.  The screenshots are kept
under ``out/test-report/`` (or ``$VERIFIED_AAT_TEST_OUTPUT``) and their paths printed.
Without Chromium the test is skipped with the reason (``.ci/run`` installs it when it can).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from verified_aat.cli.main import main

ROOT = Path(__file__).resolve().parent.parent
C17 = ROOT.parent / "shared" / "circuits" / "iscas85" / "c17.bench"
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
CONSOLE = re.compile(r":(?:INFO|WARNING|ERROR):CONSOLE[^\]]*\] \"(.*)\", source: (\S+)")


def _say(config: pytest.Config, text: str) -> None:
    """A line on the terminal even under output capture and -q (skip reasons, screenshot paths)."""
    capture = config.pluginmanager.get_plugin("capturemanager")
    if capture is None:  # pragma: no cover - pytest without capturing
        print(text, file=sys.stderr)
        return
    with capture.global_and_fixture_disabled():
        print(text, file=sys.stderr, flush=True)


def _browser(config: pytest.Config) -> str:
    found = next((shutil.which(name) for name in BROWSERS if shutil.which(name)), None)
    if found is None:
        reason = "Chromium not installed (apt-get install chromium): the browser test of the HTML report is skipped"
        _say(config, f"\nSKIPPED {__name__}: {reason}")
        pytest.skip(reason)
    return found


def _output_dir() -> Path:
    out = Path(os.environ.get("VERIFIED_AAT_TEST_OUTPUT", ROOT / "out" / "test-report"))
    out.mkdir(parents=True, exist_ok=True)
    return out


def _chromium(browser: str, page: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
               "--no-first-run", "--enable-logging=stderr", "--v=0", "--hide-scrollbars",
               f"--user-data-dir={page.parent / ('.chromium-' + page.stem)}", *args, page.resolve().as_uri()]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)


def console_errors(stderr: str) -> list[str]:
    """The page's console messages.  Chromium's log does not tell console.error from console.log, and the
    report runs no script, so every message (an uncaught exception, a refused load, a warning) counts."""
    return [f"{message} ({source})" for message, source in CONSOLE.findall(stderr)]


def _render(browser: str, page: Path, name: str, config: pytest.Config, height: int = 2200) -> tuple[str, Path]:
    """The rendered DOM (checked for console errors) and the screenshot's path (printed)."""
    dom = _chromium(browser, page, "--dump-dom", "--virtual-time-budget=5000")
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert console_errors(dom.stderr) == [], console_errors(dom.stderr)
    shot = _output_dir() / f"{name}.png"
    if shot.exists():
        shot.unlink()
    taken = _chromium(browser, page, f"--screenshot={shot}", f"--window-size=1280,{height}")
    assert taken.returncode == 0 and shot.exists(), taken.stderr[-2000:]
    assert console_errors(taken.stderr) == []
    _say(config, f"\nscreenshot of the {name} report: {shot}")
    _assert_not_blank(shot)
    return dom.stdout, shot


def _assert_not_blank(png: Path) -> None:
    import matplotlib.image

    pixels = matplotlib.image.imread(str(png))
    assert pixels.shape[0] >= 1000 and pixels.shape[1] == 1280
    colours = {tuple(p) for p in pixels[::7, ::7, :3].reshape(-1, 3).round(2).tolist()}
    assert len(colours) > 50, "the screenshot is (nearly) one colour"


@pytest.fixture(scope="module")
def browser(pytestconfig: pytest.Config) -> str:
    if not C17.exists():
        pytest.skip(f"{C17} is missing (../shared beside the checkout)")
    return _browser(pytestconfig)


def test_console_error_detection_can_fail(browser: str, tmp_path: Path) -> None:
    bad = tmp_path / "bad.html"
    bad.write_text('<!DOCTYPE html><html><body><p>x</p><script>console.error("broken report"); nope();</script>'
                   "</body></html>")
    errors = console_errors(_chromium(browser, bad, "--dump-dom").stderr)
    assert any("broken report" in e for e in errors) and any("nope" in e for e in errors)


def test_c17_certificate_report_in_chromium(browser: str, tmp_path: Path, pytestconfig: pytest.Config) -> None:
    cert, page = tmp_path / "c17.cert.json", tmp_path / "c17.html"
    assert main(["certify", str(C17), "-c", "gate-edge", "-o", str(cert)]) == 0
    assert main(["report", str(cert), "-o", str(page)]) == 0
    dom, _ = _render(browser, page, "c17", pytestconfig)
    assert re.search(r'<section id="verdict" data-status="accepted" data-gates="20"', dom)
    for section in ("circuit", "layout", "attention", "obligations", "trusted-base"):
        assert f'<section id="{section}"' in dom, section
    assert dom.count("<math") >= 4 and "<svg" in dom  # MathML and the inline circuit drawing survive parsing
    assert len(re.findall(r'<img alt="head [^"]+" src="data:image/png;base64,', dom)) == 2
    assert all(src.startswith("data:") for src in re.findall(r'<img [^>]*src="([^"]*)"', dom))


def test_refuted_mutant_report_in_chromium(browser: str, tmp_path: Path, pytestconfig: pytest.Config, capsys) -> None:
    """tests/mutants.py's MissingRescaling (add reads the mean, not k · mean) as an edited transformer.json."""
    import json

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from mutants import MissingRescaling

    from verified_aat.report.diff import compiled_text

    edited, page = tmp_path / "missing-rescaling.json", tmp_path / "mutant.html"
    edited.write_text(compiled_text(MissingRescaling().transformer(6)))
    assert main(["certify", str(C17), "-c", "gate-edge", "--transformer", str(edited), "--json",
                 "--report", str(page)]) == 1
    mismatch = json.loads(capsys.readouterr().out)["counterexample"]["first_mismatch"]
    dom, _ = _render(browser, page, "c17-refuted-mutant", pytestconfig)
    assert 'data-status="refuted"' in dom
    # the page names gates by the netlist's nets (one scheme), the JSON by the circuit's: compare by position
    import verified_aat as va
    from verified_aat.circuits.link_section import netlist_section
    from verified_aat.constructions.registry import get_construction
    from verified_aat.report.names import net_names

    circuit = va.load_circuit(str(C17))
    gate = get_construction("gate-edge").encode(circuit).roles[mismatch["position"]].gate
    name = net_names(circuit, netlist_section(circuit))[0][gate]
    assert f'<p id="first-mismatch" data-position="{mismatch["position"]}" data-gate="{name}"' in dom
    assert len(re.findall(r'<tr class="mismatch">', dom)) == 1
    lines = edited.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == '"activation-gather": [') + 1
    end = next(i for i in range(start, len(lines)) if lines[i].strip().startswith("]")) + 1
    highlighted = [int(n) for n in re.findall(r'<tr class="edited" data-line="(\d+)">', dom)]
    assert highlighted and all(start < n <= end for n in highlighted)  # the edit is the gather activation


def test_schematic_certificate_report_in_chromium(browser: str, tmp_path: Path, pytestconfig: pytest.Config) -> None:
    """gate-edge's every-K schematic certificate: verdict, theorem, layout and typeset lemmas survive parsing."""
    page = tmp_path / "schematic.html"
    cert = ROOT / "proofs" / "constructions" / "gate-edge.every-K.schematic.json"
    assert main(["report", str(cert), "-o", str(page)]) == 0
    dom, _ = _render(browser, page, "gate-edge-schematic", pytestconfig)
    assert re.search(r'<section id="verdict" data-status="accepted" data-kind="schematic"', dom)
    assert "for every K ≥ 1" in dom
    for section in ("covers", "layout", "obligations", "trusted-base"):
        assert f'<section id="{section}"' in dom, section
    assert dom.count("<math") >= 6 and "<script" not in dom


C880 = ROOT.parent / "shared" / "circuits" / "iscas85" / "c880.bench"


@pytest.mark.parametrize("layout", ["python", "graphviz"])
def test_c880_report_fits_the_page_in_chromium(browser: str, tmp_path: Path, pytestconfig: pytest.Config,
                                               layout: str) -> None:
    """c880 (655 gates): the drawing is no wider than the page (the fallback was 4,940 px wide), names are the
    netlist's, formulas wrap; the screenshot (out/test-report/c880-<layout>.png) shows the whole width."""
    if not C880.exists():
        pytest.skip(f"{C880} is missing")
    if layout == "graphviz" and shutil.which("dot") is None:
        pytest.skip("Graphviz dot not installed")
    cert, page = tmp_path / "c880.cert.json", tmp_path / "c880.html"
    assert main(["certify", str(C880), "-c", "gate-edge", "-o", str(cert)]) == 0
    assert main(["report", str(cert), "-o", str(page), "--layout", layout, "--no-check"]) == 0
    dom, shot = _render(browser, page, f"c880-{layout}", pytestconfig, 6000)
    svg = re.search(r"<svg\b[^>]*>", dom[dom.index('<section id="circuit"'):]).group(0)
    assert 'width="100%"' in svg and "viewBox" in svg
    assert "Gate names are the netlist's net names (c880.bench)" in dom.replace("&#x27;", "'")
    assert re.search(r'data-greyed-rows="[1-9]', dom)
    _assert_fits(shot)


def _assert_fits(png: Path) -> None:
    """Nothing drawn in the right margin: the 1280-px screenshot's last 30 columns are the page background
    (a drawing wider than the page would run into them, or the page would scroll sideways)."""
    import matplotlib.image

    pixels = matplotlib.image.imread(str(png))[:, :, :3]
    margin = pixels[:, -30:, :]
    background = pixels[5, -5, :]
    assert (abs(margin - background).max(axis=2) < 0.05).mean() > 0.999, "something runs into the right margin"
