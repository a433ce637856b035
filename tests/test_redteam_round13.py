"""Red team round 13: S12d (exact evaluation) against forged *schematic* certificates.

Found by ``tests/forge_schematic.py``: one random edit of a shipped construction document's T_K (renamed, so it may
be embedded), the certificate derived exactly as ``prove-construction`` derives it (the kernel's lemma list, no
proof objects, every lemma claimed proved), checked under a solver that answers unsat to everything. With seed 7 and
100 edits per construction, 115+ such certificates were ACCEPTED (gate-edge 6, edge-only 44, edge-k 63, unique-hard
1, unique-hard-left 2 or more before the run was cut short). Every one rests on a false schematic lemma whose
hypotheses hold only on a thin set: ids at least 1 apart (``i_v − i_u ≥ 1``), every pair of ids equal or 1 apart
(trichotomy), an op code among a few values, and often two ids equal (``i_u = j_u``). S12d's 128 seeded points
(random rationals, most of them not integers, drawn independently) almost never satisfy all of these at once.
The fix (reject-only, ``kernel/countermodel.py``): after the seeded points, *walks* from small integers in which
each false hypothesis, then the goal, is made true by changing one constant (solved where the assertion is linear
in it, else another constant's value or a small number); only a point at which every assertion then holds
exactly is reported. The same run now gives 0 false ACCEPTs.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from forge_schematic import check, forge_schematic, shipped
from verified_aat.kernel.countermodel import WALKS, _Search, find_countermodel
from verified_aat.kernel.identity import read_lemma


def _edited(name: str, function: str, before: str, after: str) -> dict[str, Any]:
    doc = shipped(name)
    doc["name"] = name + "-x"
    lines = doc["transformer"]["functions"][function]
    lines[lines.index(before)] = after
    return doc


# (construction, function, honest line, edit, the false lemma's kind): each ACCEPTED under the lying solver before
EDITS = [
    # the fetch score's edge test reads 1/2 − 4 instead of op + 4: every edge scores alike, so the key lemma
    # "the source scores above every other edge" fails exactly where i_u = j_u (and ids are 1 apart)
    ("gate-edge", "score-a", "g10 = const 4", "g10 = const 1/2", "attention"),
    # a constant score: its attention lemma's goal holds everywhere; only the hypotheses (ids apart, op codes)
    # must hold, which no seeded point managed
    ("edge-only", "score-pred", "score = add g15 g16", "score = const 2", "attention"),
    # the step's square made a double: a step lemma whose model needs a slot-0 edge's ids in order
    ("edge-only", "activation-step", "g34 = mul pred.val pred.val", "g34 = add pred.val pred.val", "step"),
    # edge-k's step: an op code product where a sum was meant
    ("edge-k", "activation-step", "g28 = add code g16", "g28 = mul code g16", "step"),
]


@pytest.mark.parametrize("name, function, before, after, kind", EDITS, ids=[f"{e[0]}-{e[1]}" for e in EDITS])
def test_a_lying_solver_does_not_get_a_forged_schematic_certificate_past_exact_evaluation(name, function, before, after,
                                                                                         kind):
    cert = forge_schematic(_edited(name, function, before, after))
    assert cert is not None
    report = check(cert, lying=True)
    assert report.outcome == "rejected", (report.unchecked, [str(r) for r in report.rejections])
    first = str(report.rejections[0])
    assert report.rejections[0].check == "schematic-solvers" and "exact evaluation, S12d" in first, first
    assert f"schematic:{kind}" in first or kind in first


def _z3_model_at(text: str, point: dict[str, Fraction]) -> str:
    """z3's answer on the lemma with every constant fixed to the point's value (sat: the point is a model)."""
    import z3
    fixed = "\n".join(f"(assert (= {v} (/ {q.numerator} {q.denominator}.0)))" for v, q in point.items())
    solver = z3.Solver()
    solver.set("timeout", 10_000)
    solver.from_string(text + "\n" + fixed)
    return str(solver.check())


@pytest.mark.parametrize("name, function, before, after, kind", EDITS, ids=[f"{e[0]}-{e[1]}" for e in EDITS])
def test_a_walk_reports_only_real_models(name, function, before, after, kind):
    """The point S12d reports for the forged certificate's lemma, and the point its walks alone find (the seeded
    points of stop 47's first S12d missed it), are models by z3 too (the lemma with every constant fixed is sat): a
    walk only proposes points, the exact evaluation of every assertion decides them."""
    cert = forge_schematic(_edited(name, function, before, after))
    assert cert is not None
    rejection = str(check(cert, lying=True).rejections[0])
    lemma = next(x for x in cert["lemmas"] if x["id"] in rejection)
    point = find_countermodel(lemma["smt2"], [10**6], [10**6])
    assert point is not None and set(point) == set(read_lemma(lemma["smt2"])[0].variables)
    assert _z3_model_at(lemma["smt2"], point) == "sat", point
    walker, walked = _Search(lemma["smt2"]).walker(), None  # the walks alone, without the seeded points
    for _ in range(WALKS):
        if (walked := walker.walk([10**6])) is not None:  # type: ignore[union-attr]
            break
    assert walked is not None and _z3_model_at(lemma["smt2"], walked) == "sat", walked
