"""The notebook API: doctests plus a round trip through every stage."""

import doctest
from fractions import Fraction

import verified_aat as va
import verified_aat.api


def test_api_doctests():
    failures, tried = doctest.testmod(verified_aat.api)
    assert tried >= 4 and failures == 0


def test_api_stages_compose():
    circuit = va.parse_circuit("input x y\np = mul x y\ns = sign p\noutput p s\n")
    assert va.simulate(circuit, [Fraction(-2), Fraction(1, 3)]) == (Fraction(-2, 3), -1)
    result = va.certify(circuit, "gate-edge-dot")
    assert result.status == "proved"
    report = va.check(va.certificate(result, timings=False), circuit, solver="both")
    assert report.accepted and report.solver_runs == 2 * report.lemmas and "reads out C(x)" in report.theorem
