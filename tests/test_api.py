"""The notebook API: doctests plus a round trip through every stage."""

import doctest
from fractions import Fraction

import pytest

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


# -- arguments at the API's boundary: a path wherever the command line takes one, a TypeError naming the
# function and the parameter for anything else (was an AttributeError from deep inside the pipeline)

SPEC = "specs/circuits/mixed_depth6.circ"


def test_a_circuit_path_is_taken_wherever_a_circuit_is():
    import pathlib
    circuit = va.load_circuit(SPEC)
    by_object = va.certificate(va.certify(circuit, kernel=False), timings=False)
    for given in (SPEC, pathlib.Path(SPEC)):
        assert va.certificate(va.certify(given, kernel=False), timings=False) == by_object
        assert va.compile(given).transformer == va.compile(circuit).transformer
    assert va.simulate(SPEC, [1, 2, 3]) == va.simulate(circuit, [1, 2, 3]) == va.evaluate(circuit, [1, 2, 3])
    assert va.load_circuit(pathlib.Path(SPEC)) == circuit


def test_a_certificate_path_may_be_a_pathlike(tmp_path):
    import json
    document = va.certificate(va.certify(va.load_circuit(SPEC), kernel=False), timings=False)
    path = tmp_path / "c.json"
    path.write_text(json.dumps(document))
    assert va.check(path).accepted and va.check(str(path)).accepted


def test_a_construction_by_bytes_or_pathlike_name():
    import pathlib
    doc = pathlib.Path("verified_aat/data/constructions/gate-edge.json")
    assert va.construction(b"gate-edge").name == "gate-edge"
    if doc.exists():
        assert va.construction(doc).name == va.construction(str(doc)).name


@pytest.mark.parametrize("call, function, parameter", [
    (lambda c: va.refute(c), "refute", "transformer"),
    (lambda c: va.audit_transformer(c), "audit_transformer", "transformer"),
    (lambda c: va.certify(c, transformer=3), "certify", "transformer"),
    (lambda c: va.prove_construction(c), "prove_construction", "construction"),
    (lambda c: va.certify(c, 7), "certify", "construction"),
    (lambda c: va.construction(5), "construction", "construction"),
    (lambda c: va.certify(42), "certify", "circuit"),
    (lambda c: va.compile(None), "compile", "circuit"),
    (lambda c: va.refute(va.compile(c).transformer, circuit=3.5), "refute", "circuit"),
    (lambda c: va.certificate(c), "certificate", "result"),
    (lambda c: va.check(123), "check", "certificate"),
    (lambda c: va.check({}, 123), "check", "circuit"),
    (lambda c: va.certify(c, depth_bound="3"), "certify", "depth_bound"),
    (lambda c: va.certify(c, depth_bound=2.0), "certify", "depth_bound"),
    (lambda c: va.compile(c, depth_bound=True), "compile", "depth_bound"),
    (lambda c: va.prove_construction("gate-edge", depth_bound="2"), "prove_construction", "depth_bound"),
    (lambda c: va.simulate(c, 5), "simulate", "x"),
    (lambda c: va.simulate(c, "12"), "simulate", "x"),
    (lambda c: va.evaluate(c, 5), "evaluate", "x"),
    (lambda c: va.evaluate([c], [1]), "evaluate", "circuit"),
    (lambda c: va.simulate(c, [0.5]), "simulate", "x[0]"),
    (lambda c: va.evaluate(c, ["1/2"]), "evaluate", "x[0]"),
    (lambda c: va.evaluate(c, [True]), "evaluate", "x[0]"),
    (lambda c: va.audit_transformer(va.compile(c).transformer, lengths=5), "audit_transformer", "lengths"),
    (lambda c: va.parse_circuit(5), "parse_circuit", "text"),
    (lambda c: va.load_circuit(c), "load_circuit", "path"),
])
def test_a_wrong_kind_of_argument_is_a_type_error_naming_it(call, function, parameter):
    circuit = va.parse_circuit("input x\noutput x\n")
    with pytest.raises(TypeError) as caught:
        call(circuit)
    assert str(caught.value).startswith(f"{function}: {parameter} must be "), str(caught.value)


def test_a_negative_defence_budget_is_refused():
    circuit = va.parse_circuit("input x\noutput x\n")
    with pytest.raises(va.InputError, match="defence_budget"):
        va.check(va.certificate(va.certify(circuit, kernel=False)), defence_budget=-5)


def test_print_of_a_refutation_is_the_refute_commands_report(tmp_path):
    """str(): the verdict line, the witness circuit, then inputs and each gate on both sides up to the first
    mismatch (it was the one-line repr, the report only through .counterexample.report())."""
    import json
    from verified_aat.transformer.spec import transformer_to_json
    circuit = va.parse_circuit("input x y\np = mul x y\ns = sign p\noutput p s\n")
    text = json.dumps(transformer_to_json(va.compile(circuit).transformer))
    edited = text.replace('"fetched_sq = mul fetch.val fetch.val"', '"fetched_sq = mul fetch.val x.val"')
    assert edited != text
    path = tmp_path / "edited.json"
    path.write_text(edited)
    refutation = va.refute(path, "gate-edge", budget=60)
    assert refutation.status == "refuted"
    shown = str(refutation)
    lines = shown.splitlines()
    assert lines[0] == repr(refutation) and lines[1] == "the circuit:"
    assert va.parse_circuit("\n".join(lines[2:lines.index(next(l for l in lines if l.startswith("counterexample")))]))
    assert refutation.counterexample.report() in shown and "MISMATCH" in shown


def test_inputs_of_evaluate_and_simulate_are_exact_integers_of_any_kind_or_fractions():
    """numpy's integers are exact, so they are read as ints (a notebook's natural arrays); a wrong count names the
    function, the same for both (evaluate's was a ValueError naming the circuit, simulate's an InputError)."""
    import numpy as np
    circuit = va.load_circuit(SPEC)
    want = va.evaluate(circuit, [1, 2, 3])
    assert va.evaluate(circuit, np.array([1, 2, 3])) == va.simulate(circuit, [np.int64(1), np.uint8(2), 3]) == want
    assert all(type(v) in (int, Fraction) for v in va.evaluate(circuit, np.array([1, 2, 3])))
    for function in (va.evaluate, va.simulate):
        with pytest.raises(va.InputError, match=f"{function.__name__}: the circuit takes 3 inputs, x has 2"):
            function(circuit, [1, 2])
        with pytest.raises(TypeError, match=r"x\[1\] must be an exact rational .* got float64"):
            function(circuit, [1, np.float64(2), 3])
