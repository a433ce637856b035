"""docs/checks.md lists every check of the kernel's rule tables, each linked to its soundness step."""

from __future__ import annotations

import re

from update_checks_page import PAGE, TABLES, page


def test_the_checks_page_is_current() -> None:
    assert PAGE.read_text() == page(), "run: cd tests && python update_checks_page.py"


def test_every_check_links_to_an_anchor_of_the_soundness_argument() -> None:
    anchors = set(re.findall(r'<a id="([A-Za-z0-9]+)"></a>', (PAGE.parent / "soundness.md").read_text()))
    for _, _, table in TABLES:
        for check in table:
            assert check.step in anchors, (check.name, check.step)
            assert f"`{check.name}`" in PAGE.read_text()
