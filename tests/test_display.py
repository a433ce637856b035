"""Notebook friendliness: one-line reprs and HTML tables, typed statuses, keyword-only API options."""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import json
import pickle
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings

import verified_aat as va
import verified_aat.api as api
from strategies import circuits
from verified_aat.certificates.document import build_certificate, dumps_certificate
from verified_aat.circuits.json_format import canonical_circuit_bytes
from verified_aat.kernel import Report
from verified_aat.refutation.refute import Refutation
from verified_aat.transformer.spec import save_transformer

SMALL = "input x y\np = mul x y\ns = sign p\nq = add p s x\noutput p q\n"


# -- repr and _repr_html_ -------------------------------------------------------------------

def test_a_large_circuit_prints_as_one_line_of_its_measures():
    circuit = va.family("inner-product", 400)
    text = repr(circuit)
    assert str(circuit) == text and "\n" not in text and len(text) < 200
    m = va.measure(circuit)
    assert f"{m.size} gates" in text and f"depth {m.depth}" in text and f"{m.n_inputs} inputs" in text
    assert m.class_name in text and repr(circuit.name) in text
    assert hashlib.sha256(canonical_circuit_bytes(circuit)).hexdigest()[:12] in text
    page = circuit._repr_html_()
    assert page.startswith("<table") and f"<td style='text-align:left'>{m.size}</td>" in page


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(circuits(max_gates=15, max_inputs=3))
def test_repr_is_short_and_leaves_equality_hashing_and_pickling_alone(circuit):
    twin = dataclasses.replace(circuit)
    text = repr(circuit)  # caches the digest and measures on circuit, not on twin
    assert "\n" not in text and len(text) < 250 + len(repr(circuit.name))
    assert f"{circuit.size} gates" in text or (circuit.size == 1 and "1 gates" in text)
    assert circuit == twin and hash(circuit) == hash(twin)
    assert pickle.loads(pickle.dumps(circuit)) == circuit
    renamed = dataclasses.replace(circuit, name=circuit.name + "'")
    assert renamed != circuit and repr(renamed) != text


def test_html_escapes_names():
    circuit = va.parse_circuit("input x\noutput x\n", name="<b>&x")
    page = circuit._repr_html_()
    assert "<b>&x" not in page and "&lt;b&gt;&amp;x" in page


def test_transformer_encoding_and_compiled_print_counts_not_circuits():
    compiled = va.compile(va.family("inner-product", 50), "gate-edge")
    t = compiled.transformer
    text = repr(compiled)
    assert len(text) < 400 and f"{t.n_layers} layers" in text and f"d={t.dimension}" in text
    assert f"{compiled.encoding.length} positions" in text
    assert "pooling average" in repr(t) and "<b>Transformer</b>" in t._repr_html_()
    assert " ".join(t.coordinates) in t._repr_html_()


# -- statuses and verdicts ----------------------------------------------------------------------

def test_results_carry_enums_that_equal_the_old_strings():
    circuit = va.parse_circuit(SMALL)
    result = va.certify(circuit, "gate-edge")
    assert result.status is va.Status.PROVED and result.status == "proved" and f"{result.status}" == "proved"
    assert json.dumps({"s": result.status}) == '{"s": "proved"}'
    assert repr(result).startswith("<CertifyResult proved for 'circuit'") and len(repr(result)) < 200
    assert "color:#1a7f37" in result._repr_html_()
    doc = va.certificate(result, timings=False)
    assert isinstance(doc, dict) and isinstance(doc, va.Certificate)
    assert dumps_certificate(doc) == dumps_certificate(build_certificate(result, include_timings=False))
    assert repr(doc).startswith("<Certificate 'circuit': version 3, construction gate-edge")
    report = va.check(doc)
    assert isinstance(report, Report) and isinstance(report, va.CheckReport)
    assert report.outcome is va.Verdict.ACCEPTED and report.outcome == "accepted" and report.accepted
    assert repr(report).startswith("<CheckReport accepted:") and report.theorem in report._repr_html_()


def test_a_rejected_certificate_reports_the_rejected_verdict():
    doc = va.certificate(va.certify(va.parse_circuit(SMALL)), timings=False)
    doc["hashes"] = dict(doc["hashes"], circuit="0" * 64)
    report = va.check(doc)
    assert report.outcome is va.Verdict.REJECTED and not report.accepted
    assert "color:#cf222e" in report._repr_html_() and report.reasons[0][:40] in report._repr_html_()


def test_a_refutation_is_refuted_with_its_counterexample_or_unknown_without(tmp_path):
    circuit = va.parse_circuit(SMALL)
    t = va.compile(circuit).transformer
    short = dataclasses.replace(t, layers=t.layers[:-1])
    found = va.refute(short, "gate-edge", circuit, budget=30)
    assert found.status is va.Status.REFUTED and found.status == "refuted"
    assert repr(found).startswith("<Refutation refuted: circuit 'circuit'") and "\n" not in repr(found)
    assert "← differs" in found._repr_html_() and "first mismatch" in found._repr_html_()
    assert Refutation(None, None, 3, 1.0).status is va.Status.UNKNOWN
    assert "not a proof" in Refutation(None, None, 3, 1.0)._repr_html_()
    spec = tmp_path / "short.json"
    save_transformer(short, spec)
    edited = va.certify(circuit, transformer=str(spec), timeout=5)
    assert edited.status is va.Status.REFUTED and edited.counterexample is not None
    assert "← differs" in edited._repr_html_()


# -- keyword-only options ------------------------------------------------------------------------

PUBLIC = [name for name, fn in inspect.getmembers(api, inspect.isfunction)
          if not name.startswith("_") and fn.__module__ == api.__name__]


def test_every_public_api_function_has_explicit_documented_parameters():
    assert {"certify", "check", "refute", "compile", "certificate", "simulate"} <= set(PUBLIC)
    for name in PUBLIC:
        fn = getattr(api, name)
        params = inspect.signature(fn).parameters.values()
        assert all(p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL) for p in params), name
        assert fn.__doc__, name
        for p in params:
            if p.kind is p.KEYWORD_ONLY:
                assert p.default is not p.empty, (name, p.name)
                assert f"``{p.name}" in fn.__doc__, (name, p.name)


def test_keywords_work_and_unknown_ones_are_type_errors():
    circuit = va.parse_circuit(SMALL)
    assert va.certify(circuit, timeout=5, jobs=1).status == "proved"
    assert va.simulate(circuit, [Fraction(1, 2), 3], depth_bound=4) == va.simulate(circuit, [Fraction(1, 2), 3])
    assert va.compile(circuit, depth_bound=4).depth_bound == 4
    with pytest.raises(TypeError):
        va.certify(circuit, timeuot=5)
    with pytest.raises(TypeError):
        va.certify(circuit, "gate-edge", None)  # depth_bound is keyword-only
    with pytest.raises(TypeError):
        va.check({}, None, "z3")  # so is solver
    for bad in (0, -1, float("inf"), float("nan"), True, "5"):
        with pytest.raises(va.InputError, match="timeout"):
            va.certify(circuit, timeout=bad)
    with pytest.raises(va.InputError, match="jobs"):
        va.certify(circuit, jobs=0)
    with pytest.raises(va.InputError, match="solver"):
        va.check(va.certificate(va.certify(circuit)), solver="mathsat")


def test_check_passes_its_options_to_the_kernel():
    doc = va.certificate(va.certify(va.parse_circuit(SMALL)), timings=False)
    both = va.check(doc, solver="both", timeout=None, jobs=2, defence_budget=0)
    assert both.accepted and both.solver_runs == 2 * both.lemmas
    assert va.check(doc, defence_budget=0).defence != va.check(doc).defence


def test_the_package_ships_py_typed():
    import tomllib
    from pathlib import Path
    package = Path(va.__file__).parent
    assert (package / "py.typed").is_file()
    project = tomllib.loads((package.parent / "pyproject.toml").read_text())
    assert "py.typed" in project["tool"]["setuptools"]["package-data"]["verified_aat"]


def test_no_public_name_is_shadowed_by_a_subpackage():
    import pkgutil
    for module in pkgutil.iter_modules(va.__path__):
        __import__(f"verified_aat.{module.name}")  # sets verified_aat.<name> to the module
    for name in va.__all__:
        assert not inspect.ismodule(getattr(va, name)), name


def test_audit_is_an_api_function_whose_report_prints_short():
    import verified_aat.audit  # noqa: F401  (the subpackage must not hide the function)
    model = va.compile(va.parse_circuit("input x y\np = mul x y\noutput p\n")).transformer
    report = va.audit_transformer(model, lengths=(2,), samples=2)
    assert report.ok and repr(report).startswith("<AuditReport passed for 'gate-edge K=1'")
    assert "lengths 2" in repr(report)
    page = report._repr_html_()
    assert "tested, not proved" in page and "N = 2" in page and "color:#1a7f37" in page
    broken = dataclasses.replace(report, rows=(dataclasses.replace(report.rows[0], mismatches=1),), problems=("N = 2",))
    assert not broken.ok and repr(broken).startswith("<AuditReport failed") and "FAILED" in broken._repr_html_()
    with pytest.raises(TypeError):
        va.audit_transformer(model, length=(2,))
