"""Red team, round 7: what a small hostile certificate could make the kernel spend, and a look-alike name.

Each was found by a helper forging certificates with the kernel's own derivation (hashes and counts
consistent); none was a false ACCEPTED. The class of each fix: every bound counts the whole certificate, and
every kind of work under a budget is charged to it.
"""

from __future__ import annotations

import copy
import json
import time
from pathlib import Path

import pytest

from verified_aat.kernel import Options, check_certificate, load_certificate
from verified_aat.kernel.attention import WORK, brute_force, budget_for
from verified_aat.kernel.data import Circuit, Gate, NotChecked

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "redteam_round7"
AUDIT = ROOT / "proofs" / "audit" / "mixed_pooling.N1-4.audit.json"


def _sign_bomb(var: str) -> str:
    """A TERM under 2,000 characters: 60 sign atoms, s³ of their sum (37,820 monomials), then sgn of it again and
    again: each sgn sorts the whole polynomial, which no product counted."""
    atoms = " ".join(f"(a{i} (sgn (+ {var} {i + 1})))" for i in range(60))
    head = f"(let ({atoms}) (let ((s (+ {' '.join(f'a{i}' for i in range(60))}))) (let ((q (* s s s))) (+ "
    body = ""
    while len(head) + len(body) + 14 < 2000:
        body += "(sgn q) "
    return head + body + "))))"


def test_proof_objects_that_sort_one_large_value_again_and_again_stop_at_the_budget() -> None:
    """Was 8.5 s per lemma, 207 s for a 91 KB certificate of 22 such objects: now each node's normal form is charged
    by its size, and the objects after the first one past its budget are not checked."""
    doc = json.loads(AUDIT.read_text())
    replaced = 0
    for lemma in doc["lemmas"]:
        if "proof" in lemma and replaced < 22:
            var = lemma["smt2"].split("(declare-const ")[1].split(" ")[0]
            chain: dict = {"identity": True}
            for _ in range(12):
                chain = {"signs": [], "then": chain}
            lemma["proof"] = {"cases-on": _sign_bomb(var), "cases": [chain, {"identity": True}, {"identity": True}]}
            replaced += 1
    assert replaced == 22
    start = time.process_time()
    report = check_certificate(doc, Options(solver_trust=False))
    assert report.outcome == "not-checked", report.reasons
    assert time.process_time() - start < 30  # about 1.3 s; the limit leaves room for a busy machine
    assert any("the proof objects after" in u and "are not checked (past a limit)" in u for u in report.unchecked)
    assert sum("could not be checked to the end" in u for u in report.unchecked) == 1


def test_an_honest_audit_certificate_still_checks_every_proof_object() -> None:
    report = check_certificate(json.loads(AUDIT.read_text()), Options(solver_trust=False))
    assert report.accepted and not report.solver_only, report.reasons


def test_brute_force_is_bounded_for_all_heads_together() -> None:
    """Was per head: 40 heads of brute force on 1,480 positions, each just within 10^8 steps, took 93 s (58 KB)."""
    start = time.process_time()
    report = check_certificate(load_certificate(str(DATA / "forty_brute_force_heads.cert.json")))
    assert report.outcome == "not-checked", report.reasons
    assert any("the argmax sets of all heads cost more than" in u for u in report.unchecked), report.unchecked
    assert time.process_time() - start < 30  # about 1.6 s


def test_one_budget_spent_by_two_heads_runs_out_where_each_alone_would_not() -> None:
    rows = [(i, 0) for i in range(100)]
    score = Circuit(tuple([Gate("input", index=0), Gate("input", index=1), Gate("input", index=2),
                           Gate("input", index=3), Gate("mul", (0, 2))]), (4,), 4, (0, 1, 2, 3))
    cost = len(rows) ** 2 * len(score.gates)
    shared = [cost + cost // 2]
    assert brute_force(rows, score, shared)[5] == (99,)  # the greatest i·j for i > 0
    with pytest.raises(NotChecked, match="all heads"):
        brute_force(rows, score, shared)
    assert brute_force(rows, score, [cost]) and budget_for(rows) == [WORK + 100 * len(rows)]


def test_a_built_in_name_spelled_with_a_look_alike_letter_is_refused() -> None:
    """gatе-edge (a Cyrillic е) was not "named like a built-in", so an embedded document under it was ACCEPTED and
    the theorem printed enc_gatе-edge. Construction names are ASCII, in the kernel and in the engine's reader."""
    from verified_aat.constructions.document import parse_document
    from verified_aat.errors import InputError
    cert = json.loads((ROOT / "proofs" / "gate-edge" / "abs_via_sign.cert.json").read_text())
    spoof = "gat\u0435-edge"
    document = json.loads((ROOT / "verified_aat" / "data" / "constructions" / "gate-edge.json").read_text())
    document["name"] = spoof
    forged = copy.deepcopy(cert) | {"construction": spoof, "construction_document": document}
    report = check_certificate(forged, Options(solver_trust=False))
    assert report.outcome == "rejected" and "ASCII" in report.reasons[0], report.reasons
    with pytest.raises(InputError, match="ASCII"):
        parse_document(document, "spoof.json")


@pytest.mark.parametrize("via_link", [False, True])
def test_an_output_that_names_standard_output_never_replaces_the_file_behind_it(tmp_path: Path, via_link: bool) -> None:
    """``certify C -o /dev/stdout >> log`` followed the links to log and renamed its temporary file over it: the log's
    earlier lines were gone (red team, round 7). A link of the user's own to /proc/self/fd/1 is the same."""
    import subprocess
    import sys
    log = tmp_path / "log.txt"
    log.write_text("an earlier line\n")
    target = "/dev/stdout"
    if via_link:
        (tmp_path / "out.json").symlink_to("/proc/self/fd/1")
        target = str(tmp_path / "out.json")
    with log.open("ab") as out:
        done = subprocess.run([sys.executable, "-m", "verified_aat.cli.main", "certify", str(ROOT / "specs" / "circuits" /
                               "mixed_depth6.circ"), "-c", "gate-edge", "-o", target], stdout=out, stderr=subprocess.PIPE,
                              text=True, timeout=300)
    assert done.returncode == 2, done.stderr
    assert "names an open file of this process" in done.stderr and done.stderr.count("\n") == 1
    assert log.read_text() == "an earlier line\n"
