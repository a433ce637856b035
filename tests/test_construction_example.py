"""The from-scratch construction of docs/construction-format.md ("A construction from scratch:
interleaved"): the document is valid, proved on c17, spec circuits and random circuits of its class,
and its two deliberately wrong variants are refuted by counterexamples that this file replays itself."""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from strategies import circuits, input_vectors

from verified_aat.circuits.evaluate import evaluate
from verified_aat.circuits.io import load_circuit
from verified_aat.circuits.ir import Circuit, Kind
from verified_aat.cli.main import main
from verified_aat.constructions.interpreted import DocumentConstruction
from verified_aat.symbolic.attention import engine_keys
from verified_aat.symbolic.certify import certify
from verified_aat.transformer.exact_engine import run_exact
from verified_aat.transformer.exact_reference import run_exact_reference

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "docs" / "examples" / "constructions"
EXAMPLE = EXAMPLES / "interleaved.json"
WRONG = {"interleaved-mean": "add", "interleaved-relu": "mul"}  # document → the kind of gate it gets wrong
SPECS = ROOT / "specs" / "circuits"
SHARED_C17 = Path("/work/shared/circuits/iscas85/c17.bench")
C17 = SHARED_C17 if SHARED_C17.is_file() else ROOT / "tests" / "data" / "c17.aag"  # the same 20-gate circuit
SOME_SPECS = ["mixed_depth6", "square_multi_edge", "add_fanin_0", "sign_at_zero", "majority_5", "no_inputs"]


def _load(name: str) -> DocumentConstruction:
    return DocumentConstruction.load(EXAMPLES / f"{name}.json")


def _certify(circuit: Circuit, name: str = "interleaved"):  # type: ignore[no-untyped-def]
    return certify(circuit, _load(name), timeout_ms=10_000, jobs=1)


# -- the document ---------------------------------------------------------------------------------------

def test_the_example_passes_construction_check(capsys):
    assert main(["construction", "check", str(EXAMPLE)]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and "construction interleaved: 8 coordinates" in out
    assert "positions: edge, gate" in out and "read-out gate.val" in out and "2K layers" in out


def test_the_docs_show_the_example_file_as_it_is():
    page = (ROOT / "docs" / "construction-format.md").read_text()
    blocks = [json.loads(b) for b in re.findall(r"```json\n(.*?)```", page, re.DOTALL)]
    assert [b["name"] for b in blocks] == ["edge-k", "interleaved"]
    assert blocks[1] == json.loads(EXAMPLE.read_text())
    section = page[page.index("## A construction from scratch: `interleaved`"):]
    for path in re.findall(r"`((?:docs|tests|specs)/[\w./-]+)`", section):
        assert (ROOT / path).exists(), path


def test_the_layout_puts_edges_first_and_in_edges_in_slot_order():
    circuit = load_circuit(SPECS / "mixed_depth6.circ")
    encoding = _load("interleaved").encode(circuit)
    kinds = [r.kind for r in encoding.roles]
    n_edges = sum(len(g.args) for g in circuit.gates)
    assert kinds == ["edge"] * n_edges + ["gate"] * len(circuit.gates)
    assert [(r.gate, r.slot) for r in encoding.roles[:n_edges]] == sorted((r.gate, r.slot)
                                                                           for r in encoding.roles[:n_edges])
    at = encoding.coordinates.index("at")
    assert {encoding.rows[p][at] % 2 for p in range(n_edges)} == {1}  # edges on odd keys, gates on even ones
    assert all(encoding.rows[n_edges + g][at] == 2 * g for g in range(len(circuit.gates)))


def _value_degree(lines: list[str], values: set[str]) -> int:
    """The degree of an activation circuit in its value inputs (a sign's output counts 0)."""
    from verified_aat.circuits.text_format import parse_circuit_text

    names = sorted({t for line in lines for t in re.findall(r"\b[\w]+\.[\w]+\b", line)})
    circuit = parse_circuit_text("\n".join(lines), None, implicit_inputs=names, name="f")
    degree: list[int] = []
    for gate in circuit.gates:
        if gate.kind is Kind.INPUT:
            degree.append(1 if names[gate.index] in values else 0)
        elif gate.kind is Kind.MUL:
            degree.append(sum(degree[a] for a in gate.args))
        elif gate.kind is Kind.ADD:
            degree.append(max((degree[a] for a in gate.args), default=0))
        else:
            degree.append(0)
    return max(degree[o] for o in circuit.outputs)


def test_only_the_relu_variant_is_piecewise_linear_in_the_values():
    """interleaved-relu multiplies a value only by layout numbers or by signs (ReLU: z·(1 + sign z)/2)."""
    values = {"x.val", "fetch.val", "all.val", "left.val", "right.val"}
    for name, wanted in (("interleaved", 2), ("interleaved-relu", 1), ("interleaved-mean", 2)):
        functions = json.loads((EXAMPLES / f"{name}.json").read_text())["transformer"]["functions"]
        degrees = {f: _value_degree(lines, values) for f, lines in functions.items() if f.startswith("activation")}
        assert degrees == {"activation-fetch": 1, "activation-gather": wanted}, (name, degrees)


# -- proved ---------------------------------------------------------------------------------------------

def test_certify_proves_c17(capsys):
    assert main(["certify", str(C17), "-c", str(EXAMPLE), "-j", "1"]) == 0
    out = capsys.readouterr().out
    assert "interleaved on c17: PROVED" in out and "circuit          20 gates, 30 edges" in out
    assert "result           proved" in out


@pytest.mark.parametrize("spec", SOME_SPECS)
def test_certify_proves_spec_circuits(spec):
    result = _certify(load_circuit(SPECS / f"{spec}.circ"))
    assert result.status == "proved", result.problems
    assert result.counterexample is None


def test_an_unbounded_product_is_outside_the_class(capsys):
    assert main(["certify", str(SPECS / "fac0_unbounded_product.circ"), "-c", str(EXAMPLE)]) == 2
    err = capsys.readouterr().err
    assert "interleaved needs FSAC0[sign] (mul fan-in 2): gate 'p' is a mul of fan-in 4" in err


def _in_class(circuit: Circuit) -> bool:
    return all(g.fan_in == 2 for g in circuit.gates if g.kind is Kind.MUL)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(circuits(max_gates=8).filter(_in_class), input_vectors(4))
def test_random_circuits_of_the_class_are_proved_and_run_right(circuit, x):
    x = x[:circuit.n_inputs]
    assume(len(x) == circuit.n_inputs)
    construction = _load("interleaved")
    compiled = construction.compile(circuit)
    keys = engine_keys(construction.score_hints())
    run = run_exact(compiled.transformer, compiled.encoding.instantiate(x), keys=keys)
    assert compiled.encoding.read(run.outputs) == evaluate(circuit, x)
    assert _certify(circuit).status == "proved"


# -- refuted --------------------------------------------------------------------------------------------

def _replay(circuit: Circuit, name: str, inputs: tuple[Fraction, ...],
            reference: bool = False) -> tuple[tuple, tuple]:
    """C(x) and what T_K of document ``name`` reads out on enc(C, x), scoring every pair (no key
    decomposition); ``reference``: by the slow, obviously correct interpreter instead."""
    compiled = _load(name).compile(circuit)
    sequence = compiled.encoding.instantiate(list(inputs))
    run = run_exact_reference(compiled.transformer, sequence) if reference else \
        run_exact(compiled.transformer, sequence)
    return tuple(evaluate(circuit, list(inputs))), tuple(compiled.encoding.read(run.outputs))


@pytest.mark.parametrize("wrong", sorted(WRONG))
@pytest.mark.parametrize("source", ["c17", "mixed_depth6", "polynomial_identity"])
def test_a_wrong_variant_is_refuted_by_a_counterexample_that_replays(wrong, source):
    circuit = load_circuit(C17 if source == "c17" else SPECS / f"{source}.circ")
    result = _certify(circuit, wrong)
    assert result.status == "refuted"
    ce = result.counterexample
    assert ce is not None and ce.rational
    expected, actual = _replay(circuit, wrong, ce.inputs, reference=source == "polynomial_identity")
    assert expected == tuple(ce.expected) and actual == tuple(ce.actual) and expected != actual
    assert _replay(circuit, "interleaved", ce.inputs) == (expected, expected)  # the example is right there
    first = next(step for step in ce.steps if not step.agrees)
    assert first.kind == WRONG[wrong]


@pytest.mark.parametrize("wrong", sorted(WRONG))
def test_the_cli_refutes_a_wrong_variant_with_exit_1(wrong, capsys):
    assert main(["certify", str(C17), "-c", str(EXAMPLES / f"{wrong}.json"), "-j", "1"]) == 1
    out = capsys.readouterr().out
    assert f"{wrong} on c17: REFUTED" in out and "replayed exactly" in out and "<-- differs" in out
    assert f"obligation local-step:{WRONG[wrong]} failed" in out


def test_the_relu_mul_is_right_on_bits_only():
    """relu(a + b − 1) = a·b on {0,1}²: on inner_product_3 (products of inputs only) the relu variant
    is right on bits and wrong off them (on c17 it fails on bits too: a mul by the constant −1)."""
    circuit = load_circuit(SPECS / "inner_product_3.circ")
    for x in ([1, 0, 1, 1, 1, 0], [0, 0, 1, 1, 0, 1]):
        expected, actual = _replay(circuit, "interleaved-relu", tuple(map(Fraction, x)))
        assert expected == actual
    expected, actual = _replay(circuit, "interleaved-relu", tuple(map(Fraction, [2, 0, 0, 3, 0, 0])))
    assert expected == (6,) and actual == (4,)


@pytest.mark.slow
def test_a_ten_thousand_gate_inner_product_is_proved():
    from verified_aat.circuits.families import build_family

    circuit = build_family("inner-product", 3333)
    assert len(circuit.gates) == 10_000
    result = _certify(circuit)
    assert result.status == "proved", result.problems



def test_reports_of_a_document_construction_are_drawn(tmp_path, capsys):
    """certify --report, report CERT and refute --report with -c FILE.json (once refused: no layout)."""
    cert, page, again = tmp_path / "c.cert", tmp_path / "c.html", tmp_path / "again.html"
    assert main(["certify", str(C17), "-c", str(EXAMPLE), "-o", str(cert), "--report", str(page), "-j", "1"]) == 0
    assert main(["report", str(cert), "-o", str(again)]) == 0
    for html in (page, again):
        text = html.read_text()
        assert "interleaved on c17" in text and "is_mul" in text  # the document's coordinates, drawn
    capsys.readouterr()
