"""The documentation site (mkdocs.yml over docs/) builds in strict mode with no warning, loads nothing
from the network, has every page of docs/ in its navigation, documents every public function of
verified_aat/api.py, and has an anchor for every step a kernel rejection names."""

from __future__ import annotations

import inspect
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from verified_aat import api
from verified_aat.kernel.audit_family import FAMILY_CHECKS
from verified_aat.kernel.audit_proof import AUDIT_CHECKS
from verified_aat.kernel.checks import CHECKS
from verified_aat.kernel.schematic import SCHEMATIC_CHECKS

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
STEPS = sorted({check.step for table in (CHECKS, SCHEMATIC_CHECKS, AUDIT_CHECKS, FAMILY_CHECKS) for check in table})
PUBLIC = [name for name, value in vars(api).items()
          if inspect.isfunction(value) and value.__module__ == api.__name__ and not name.startswith("_")]


def test_every_step_a_rejection_names_has_an_anchor_on_the_soundness_page() -> None:
    """A rejection ends in "(docs/soundness.md STEP)"; the page has <a id="STEP"> at that step."""
    page = (DOCS / "soundness.md").read_text()
    assert len(STEPS) >= 30 and {"S1", "S12", "B3", "D", "N", "P1", "U1", "V1"} <= set(STEPS)
    for step in STEPS:
        assert page.count(f'<a id="{step}"></a>') == 1, step
    for label in re.findall(r'^<a id="([^"]+)"></a>\*\*?([^ *]+) —', page, re.M):  # the anchor is the label
        assert label[0] == label[1], label
    assert "soundness.md#S12" in (DOCS / "index.md").read_text()


def test_the_navigation_lists_every_page_of_docs() -> None:
    config = (ROOT / "mkdocs.yml").read_text()
    listed = re.findall(r"^\s+- [^:]+: (\S+\.md)$", config, re.M)
    pages = sorted(str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md"))
    assert sorted(listed) == pages
    assert listed[0] == "index.md"


def test_the_site_builds_in_strict_mode_offline(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs", reason="mkdocs is not installed: pip install -e '.[docs]' (also in the test extra)")
    site = tmp_path / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONWARNINGS": "default"}
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
                           str(ROOT / "mkdocs.yml"), "--site-dir", str(site)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    assert not re.search(r"warning", output, re.I), output  # strict mode stops at mkdocs' warnings; any other too
    pages = {p.name: p.read_text() for p in site.glob("*.html")}
    assert {"index.html", "soundness.html", "api.html", "cli.html", "math.html"} <= set(pages)
    for name, html in pages.items():  # nothing fetched at view time: no web font, stylesheet or script elsewhere
        assert "fonts.googleapis" not in html and "fonts.gstatic" not in html, name
        for tag, url in re.findall(r"<(link|script)\b[^>]*?(?:href|src)=\"([^\"]+)\"", html):
            assert not re.match(r"(https?:)?//", url), (name, tag, url)
    for step in STEPS:
        assert f'id="{step}"' in pages["soundness.html"], step
    assert len(PUBLIC) >= 12
    for function in PUBLIC:  # the API reference is generated from verified_aat/api.py's docstrings
        assert f'id="verified_aat.api.{function}"' in pages["api.html"], function
    assert "The trusted kernel's verdict on a certificate" in pages["api.html"]
    assert "&gt;&gt;&gt; " in pages["api.html"] and "<blockquote>" not in pages["api.html"]  # doctests as code
    assert not (site / "_ext").exists()
