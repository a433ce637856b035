"""Typed outcomes (issue 21, item 3): a kernel check returns Problems — a fixed message and the offending values in
full in ``data`` — and a Rejection carries check, rule, step, message and data; only the one-line rendering
shortens values, so no ``[:N]`` cut of a string is left in ``verified_aat/kernel``."""

from __future__ import annotations

import ast
import copy
import json
from pathlib import Path

import pytest

from verified_aat.kernel import Options, check_certificate
from verified_aat.kernel.problems import SHOWN, Problem, Rejection, render
from verified_aat.kernel.report import Report

ROOT = Path(__file__).resolve().parent.parent
KERNEL = ROOT / "verified_aat" / "kernel"
MARK = "# bound, not a cut"
LONG = "Z" * 10_000


def _cuts(source: str) -> list[int]:
    """Lines with a slice ``[:<int>]`` (no lower bound, a literal upper bound, no step) not marked as a bound."""
    lines = source.splitlines()
    return sorted(node.lineno for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Slice) and node.lower is None and node.step is None
            and isinstance(node.upper, ast.Constant) and type(node.upper.value) is int
            and MARK not in lines[node.lineno - 1])


def test_the_scan_finds_a_cut_and_lets_a_marked_bound_pass() -> None:
    assert _cuts('x = f"{name[:40]!r}"\ny = problems[:5]\n') == [1, 2]
    assert _cuts(f"z = data.encode()[:4096]  {MARK}: one read\nw = s[1:3] + s[k:]\n") == []


def test_no_string_cut_is_left_in_the_kernel() -> None:
    found = {f"{p.name}:{n}" for p in sorted(KERNEL.glob("*.py")) for n in _cuts(p.read_text(encoding="utf-8"))}
    assert not found, f"cuts in the kernel (put the value in a Problem's data; render shortens): {sorted(found)}"


@pytest.fixture(scope="module")
def honest() -> dict:
    return json.loads((ROOT / "proofs" / "gate-edge" / "abs_via_sign.cert.json").read_text())


def _rejection(doc: dict) -> Rejection:
    report = check_certificate(doc, Options())
    assert report.outcome == "rejected" and report.rejections, report.reasons
    return report.rejections[0]


def test_a_long_value_is_kept_in_full_in_data_and_shortened_only_when_shown(honest) -> None:
    doc = copy.deepcopy(honest)
    doc["info"]["depth_bound"] = LONG
    found = _rejection(doc)
    assert found.data["bound"] == LONG and found.message.count("{bound}") == 1 and LONG not in found.message
    assert len(str(found)) < 400 and "ZZZZ…" in found.detail and "must be an integer" in found.detail


def test_a_malformed_field_keeps_its_path_and_value_in_data(honest) -> None:
    doc = copy.deepcopy(honest)
    doc["result"]["status"] = LONG
    found = _rejection(doc)
    assert found.data == {"status": LONG, "path": "$.result.status"}
    assert found.detail.startswith("$.result.status: the certificate claims 'ZZZ") and len(str(found)) < 400


def test_a_rejection_names_check_rule_step_and_message(honest) -> None:
    doc = copy.deepcopy(honest)
    doc["hashes"]["transformer"] = "0" * 64
    found = _rejection(doc)
    assert (found.check, found.step) == ("hashes", "S1")
    assert found.rule == "the hashes are those of the embedded objects"
    assert found.message == "the embedded {what} has hash {mine:16}, the certificate says {given:16}"
    assert found.data["given"] == "0" * 64 and found.data["mine"] == honest["hashes"]["transformer"]
    assert str(found) == (f"[hashes] {found.rule}: the embedded transformer has hash {found.data['mine'][:16]}…, "
                          f"the certificate says {'0' * 16}… (docs/soundness.md S1)")


def test_render_shortens_each_field_to_its_width_and_leaves_other_braces() -> None:
    assert render("{a!r} {b:3} {c} {x}", {"a": "q", "b": "abcdef", "c": list(range(40))}) == (
        "'q' abc… " + str(list(range(40)))[:60] + "… {x}")
    assert Problem("no {x}").detail == "no {x}"


def test_a_report_shows_the_first_rejections_and_counts_the_rest() -> None:
    many = [Rejection("problem {k}", {"k": k}, check="c", step="S1", rule="r") for k in range(SHOWN + 7)]
    reasons = Report(rejections=many, unchecked=["u"]).reasons
    assert reasons[:SHOWN] == [f"[c] r: problem {k} (docs/soundness.md S1)" for k in range(SHOWN)]
    assert reasons[SHOWN:] == ["… and 7 more rejections", "not checked: u"]
