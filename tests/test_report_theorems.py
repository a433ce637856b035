"""``verified-aat report`` of schematic (``prove-construction``) and audit (``audit --prove``) certificates.

Checks what a wrong report would get wrong: the kernel's verdict and theorem, the lemma kinds with
their counts and uses (computed independently from the certificate here), which audit kinds hold
for all N and which per N, the layout's layer functions, a tampered certificate reported as
rejected with the failing check named, and no external URL or script.
"""

from __future__ import annotations

import copy
import json
import re
from collections import Counter
from pathlib import Path

import pytest

from verified_aat.cli.main import main
from verified_aat.report import render_html
from verified_aat.report.formulas import (
    CLAIM_LABEL,
    HYPOTHESES_CLAIM_LABEL,
    HYPOTHESIS_LABEL,
    hypothesis_formulas,
)

ROOT = Path(__file__).resolve().parent.parent
SCHEMATIC = ROOT / "proofs" / "constructions" / "gate-edge.every-K.schematic.json"
COMPARE = ROOT / "specs" / "circuits" / "compare_two.circ"
EXTERNAL = re.compile(r"""(?:src|href|xlink:href|url)\s*[=(]\s*["']?\s*(?:https?:)?//""", re.IGNORECASE)


def _section(page: str, name: str) -> str:
    match = re.search(rf'<section id="{name}".*?</section>', page, re.DOTALL)
    assert match, f"no section {name}"
    return match.group(0)


def _rows(table_html: str) -> list[list[str]]:
    rows = [re.findall(r"<td[^>]*>(.*?)</td>", row) for row in re.findall(r"<tr>(.*?)</tr>", table_html, re.DOTALL)]
    return [row for row in rows if row]  # the header row has <th> cells only


def _report(cert: Path, out: Path) -> tuple[str, str]:
    """``verified-aat report CERT -o OUT`` (exit 0 whatever the verdict): the page, checked self-contained, and
    its verdict section."""
    assert main(["report", str(cert), "-o", str(out)]) == 0
    page = out.read_text()
    _self_contained(page)
    return page, _section(page, "verdict")


def _self_contained(page: str) -> None:
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert "<script" not in page.lower() and not EXTERNAL.search(page)
    assert "http://" not in page.replace("http://www.w3.org/1998/Math/MathML", "")
    assert "https://" not in page


@pytest.fixture(scope="module")
def schematic() -> dict:
    return json.loads(SCHEMATIC.read_text())


@pytest.fixture(scope="module")
def audit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("audit") / "a.json"
    assert main(["audit", "-c", "gate-edge", str(COMPARE), "--lengths", "2..3", "--prove", "-o", str(path)]) == 0
    return path


def test_schematic_report_via_cli_shows_kernel_theorem_kinds_counts_and_layout(
        schematic: dict, tmp_path: Path) -> None:
    page, verdict = _report(SCHEMATIC, tmp_path / "s.html")
    assert 'data-status="accepted"' in verdict and 'data-kind="schematic"' in verdict
    assert "for every K ≥ 1, every FSAC⁰[sign] circuit C of depth ≤ K" in verdict  # the kernel's theorem
    assert "judged by the trusted kernel" in verdict
    assert "every K ≥ 1" in _section(page, "covers") and "gate-edge" in _section(page, "covers")
    kinds = Counter(l["kind"] for l in schematic["lemmas"])
    uses = Counter()
    for l in schematic["lemmas"]:
        uses[l["kind"]] += l["uses"]
    table = _section(page, "obligations").split("</table>")[0]
    assert {r[0]: (int(r[1].replace(",", "")), int(r[2].replace(",", ""))) for r in _rows(table)} == \
        {k: (kinds[k], uses[k]) for k in kinds}
    layout = _section(page, "layout")
    assert [[r[1], *r[2].split()[:2]] for r in _rows(layout.split("Layers (")[1])] == \
        [["fetch", "fetch", "(average,"], ["gather", "gather", "(average,"]]  # layer name, head, pooling
    assert [r[0] for r in _rows(layout.split("Layers (")[0])] == schematic["transformer"]["coordinates"]
    assert page.count("<math") >= 2 * len(kinds)  # two lemmas per kind typeset
    assert "Trusted base" in _section(page, "trusted-base")


def test_audit_report_shows_lengths_and_which_kinds_hold_for_all_n(audit: Path, tmp_path: Path) -> None:
    doc = json.loads(audit.read_text())
    page, verdict = _report(audit, tmp_path / "a.html")
    assert 'data-status="accepted"' in verdict and 'data-kind="audit"' in verdict
    assert "for every N in {2, 3}" in verdict and "U_N(x) = T(x)" in verdict
    covers = {r[0]: r[1] for r in _rows(_section(page, "covers").split("</table>")[0])}
    assert covers["audited lengths N"] == "2, 3"
    per_n = sorted({l["kind"] for l in doc["lemmas"] if l["scope"] != "all N"})
    all_n = sorted({l["kind"] for l in doc["lemmas"]} - set(per_n))
    assert per_n == ["argmax"] and covers["kinds checked per N"] == "argmax"
    assert covers["kinds holding for all N"] == ", ".join(all_n)
    unrolled = _rows(_section(page, "covers").split("</table>")[1])
    assert [(int(r[0]), int(r[1].replace(",", ""))) for r in unrolled] == \
        [(u["n"], u["gates"]) for u in doc["unrolled"]]
    rows = {r[0]: r for r in _rows(_section(page, "obligations").split("</table>")[0])}
    assert rows["argmax"][3] == "N = 2, N = 3" and rows["copy"][3] == "all N"
    assert int(rows["argmax"][1]) == sum(l["kind"] == "argmax" for l in doc["lemmas"])
    layers = _rows(_section(page, "layout").split("Layers (")[1])
    assert [r[:2] for r in layers] == [["1, 3, 5, 7, 9, 11", "fetch"], ["2, 4, 6, 8, 10, 12", "gather"]]


def test_audit_report_without_check_shows_the_certificates_own_status(audit: Path) -> None:
    page = render_html(json.loads(audit.read_text()))
    verdict = _section(page, "verdict")
    assert 'data-status="proved"' in verdict and "not re-checked here" in verdict


def test_tampered_schematic_report_says_rejected_and_names_the_check(schematic: dict, tmp_path: Path) -> None:
    bad = copy.deepcopy(schematic)
    bad["lemmas"][0]["smt2"] = bad["lemmas"][0]["smt2"].replace("(assert (>= i_u 0.0))\n", "", 1)
    assert bad != schematic
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    _, verdict = _report(path, tmp_path / "bad.html")
    assert 'data-status="rejected"' in verdict and "[schematic-lemmas]" in verdict
    assert "for every K ≥ 1" not in verdict  # no theorem for a rejected certificate
    assert render_html(bad, check=True).count('data-status="rejected"') == 1


def test_hypothesis_formulas_split_hypotheses_from_the_claim() -> None:
    text = ("(set-logic QF_NRA)\n(declare-const x Real)\n(declare-const y Real)\n(assert (>= x 1.0))\n"
            "(assert (not (= x y)))\n(assert (or (= x y) (> y 0.0)))\n(assert (not (> (* x x) 0.0)))\n(check-sat)\n")
    labels = [f.label for f in hypothesis_formulas(text)]
    assert labels == [HYPOTHESIS_LABEL] * 3 + [HYPOTHESES_CLAIM_LABEL]  # only the last (not φ) is the claim
    assert CLAIM_LABEL != HYPOTHESES_CLAIM_LABEL
    claim = hypothesis_formulas(text)[-1].mathml
    assert "<mo>></mo>" in claim and "<mi>x</mi>" in claim and "&#xAC;" not in claim  # φ itself, not its negation
    assert "&#xAC;" in hypothesis_formulas(text)[1].mathml  # a negated hypothesis stays negated
    assert hypothesis_formulas("(assert (+ 1") == []  # unbalanced: not typeset, no crash


def test_report_refuses_unknown_json_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "x.json"
    path.write_text(json.dumps({"format": "verified-aat/other"}))
    assert main(["report", str(path), "-o", str(tmp_path / "x.html")]) == 2
    assert "schematic-certificate" in capsys.readouterr().err


def test_layer_names_only_when_heads_match_the_constructions_own(schematic: dict) -> None:
    """Names are display only: a transformer whose heads differ from T_1's keeps blank names (no false label)."""
    def names(doc: dict) -> list[str]:
        layout = _section(render_html(doc), "layout")
        return [r[1] for r in _rows(layout.split("Layers (")[1])]

    assert names(schematic) == ["fetch", "gather"]
    other = copy.deepcopy(schematic)
    other["transformer"]["layers"][0]["heads"][0]["pooling"] = "leftmost"
    assert names(other) == ["", ""]


@pytest.mark.parametrize("name", ["mixed_pooling.N1-4.audit.json", "mixed_pooling.every-N.audit.json"])
def test_transformer_sizes_are_counted_never_shown_as_question_marks(name: str) -> None:
    """The covers row said "mixed-pooling: ? layers, ? heads, dimension ?" when ``info`` lacked the counts: they
    are counted in the certificate's own transformer; without one, what ``info`` states, and nothing it does not."""
    doc = json.loads((ROOT / "proofs" / "audit" / name).read_text())

    def covers(d: dict) -> dict[str, str]:
        page = render_html(d)
        return {r[0]: r[1] for r in _rows(_section(page, "covers").split("</table>")[0])}

    assert covers(doc)["transformer"] == "mixed-pooling: 2 layers, 4 heads, dimension 3"
    bare = {**doc, "info": {"transformer": "mixed-pooling"}}
    assert covers(bare)["transformer"] == "mixed-pooling: 2 layers, 4 heads, dimension 3"
    no_form = {k: v for k, v in bare.items() if k != "transformer"}
    row = covers(no_form)["transformer"]
    assert row == "mixed-pooling (the certificate holds no readable transformer and states no size)", row
    row = covers({**no_form, "info": {"transformer": "mixed-pooling", "layers": 1, "heads": "many"}})["transformer"]
    assert row.startswith("mixed-pooling: 1 layer (as the certificate&#x27;s info states"), row
    if "measures" in doc:
        measures = {k: v for k, v in doc["measures"].items() if k != "depth"}
        assert covers({**doc, "measures": measures})["depth of U_N"] == "not stated by the certificate"
    assert all("?" not in text for d in (bare, no_form) for text in covers(d).values())
