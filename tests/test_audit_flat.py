"""The audit's fast path (verified_aat/audit/flat.py): same gates, same measures, same values.

``unroll`` builds the argmax gadget as one numpy block per head and keeps the
circuit in flat arrays; ``unroll_reference`` is the straightforward
construction (one ``CircuitBuilder`` call per gate, the gadget by its loop
definition).  They must give the identical circuit; the array measures must
equal ``measures.measure``; the vectorised exact evaluator must equal
``evaluate_gates`` gate for gate, with the same types (int when integral).
"""

from __future__ import annotations

import hashlib
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from transformer_strategies import HARD, transformers
from verified_aat.audit import audit, flatten, sample_sequences, unroll
from verified_aat.audit.flat import FlatCircuit
from verified_aat.audit.unroll import unroll_reference
from verified_aat.circuits.evaluate import evaluate_gates
from verified_aat.circuits.io import load_circuit
from verified_aat.circuits.json_format import canonical_circuit_bytes
from verified_aat.circuits.measures import classify, gate_depths, measure
from verified_aat.circuits.ir import Kind
from verified_aat.constructions.registry import get_construction

ROOT = Path(__file__).resolve().parent.parent
SPECS = ROOT / "specs" / "circuits"


def _digest(circuit) -> str:  # type: ignore[no-untyped-def]
    return hashlib.sha256(canonical_circuit_bytes(circuit)).hexdigest()


def _same(fast, ref) -> None:  # type: ignore[no-untyped-def]
    """The fast and the straightforward unrolling are the same circuit, gate for gate."""
    assert _digest(fast.circuit) == _digest(ref.circuit)
    assert fast.circuit == ref.circuit  # names, outputs and output names too
    assert (fast.vectors, fast.argmax, fast.layer_ranges) == (ref.vectors, ref.argmax, ref.layer_ranges)
    assert fast.flat.depths.tolist() == gate_depths(ref.circuit)
    assert fast.layer_operations() == tuple(
        sum(1 for g in ref.circuit.gates[a:b] if g.kind is not Kind.CONST) for a, b in ref.layer_ranges)
    m, fm = measure(ref.circuit), fast.flat.measures()
    assert (fm.size, fm.edges, fm.depth, fm.class_name) == (m.size, m.edges, m.depth, m.class_name)
    assert fm.circuit_class == classify(ref.circuit)[0].value
    assert fm.operations == sum(1 for g in ref.circuit.gates if g.kind is not Kind.CONST)
    assert fm.mul_binary == all(g.fan_in == 2 for g in ref.circuit.gates if g.kind is Kind.MUL)


@pytest.mark.parametrize("construction", ["gate-edge", "unique-hard"])
@pytest.mark.parametrize("k", [1, 2])
def test_fast_unroll_is_the_straightforward_circuit(construction: str, k: int) -> None:
    t = get_construction(construction).transformer(k)
    for n in (1, 2, 3, 4, 7):
        _same(unroll(t, n), unroll_reference(t, n))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_fast_unroll_on_random_transformers(data: st.DataObject) -> None:
    """Bilinear and circuit scores, every hard pooling, constants shared across heads and layers."""
    t = data.draw(transformers(poolings=HARD, max_layers=2))
    n = data.draw(st.integers(1, 4))
    fast, ref = unroll(t, n), unroll_reference(t, n)
    _same(fast, ref)
    for sequence in sample_sequences(n, t.dimension, 3, seed=data.draw(st.integers(0, 9))):
        want = evaluate_gates(ref.circuit, flatten(sequence))
        got = fast.flat.evaluator.run(flatten(sequence)).all()
        assert got == want and [type(v) for v in got] == [type(v) for v in want]


@pytest.fixture(params=[(0, 0.5), (4, 2.0), (4, 0.5), (10**9, 0.5)],
                ids=["vectorised", "narrow groups on arrays", "default", "all on lists"])
def narrow(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> int:
    """The evaluator's paths: groups of at most flat.NARROW gates go gate by gate (flat._narrow), wider ones through
    numpy, and a circuit with a share of at least flat.THIN of its gates in narrow groups goes gate by gate on lists
    throughout: (0, ·) is numpy everywhere, (4, 2.0) narrow groups on the arrays, (10**9, ·) lists everywhere."""
    import verified_aat.audit.flat as flat_module
    monkeypatch.setattr(flat_module, "NARROW", request.param[0])
    monkeypatch.setattr(flat_module, "THIN", request.param[1])
    return request.param[0]


def test_evaluator_equals_evaluate_gates_on_gate_edge(narrow: int) -> None:
    t = get_construction("gate-edge").transformer(2)
    u = unroll(t, 5)
    for sequence in sample_sequences(5, t.dimension, 8, seed=3):
        want = evaluate_gates(u.circuit, flatten(sequence))
        got = u.flat.evaluator.run(flatten(sequence)).all()
        assert got == want and [type(v) for v in got] == [type(v) for v in want]


@pytest.mark.parametrize("path", sorted(SPECS.glob("*.circ")), ids=lambda p: p.stem)
def test_flat_round_trip_and_evaluator_on_spec_circuits(path: Path, narrow: int) -> None:
    """Wide products (FAC0), empty sums, constants as outputs: the general paths of the evaluator."""
    circuit = load_circuit(str(path))
    flat = FlatCircuit.from_circuit(circuit)
    assert canonical_circuit_bytes(flat.to_circuit()) == canonical_circuit_bytes(circuit)
    assert flat.depths.tolist() == gate_depths(circuit)
    m, fm = measure(circuit), flat.measures()
    assert (fm.size, fm.edges, fm.depth, fm.class_name) == (m.size, m.edges, m.depth, m.class_name)
    values = [Fraction(v) for v in ("0", "1", "-1", "2", "1/2", "-3/4", "5/3", "-7", "9/4")]
    for shift in range(4):
        inputs = [values[(shift + 3 * k) % len(values)] for k in range(circuit.n_inputs)]
        want = evaluate_gates(circuit, inputs)
        got = flat.evaluator.run(inputs).all()
        assert got == want and [type(v) for v in got] == [type(v) for v in want]


def test_evaluator_is_exact_with_large_denominators(narrow: int) -> None:
    """No float anywhere: products and sums of tiny and huge rationals stay exact."""
    from verified_aat.circuits.builder import CircuitBuilder
    b = CircuitBuilder("exact")
    x, y = b.input("x"), b.input("y")
    p = b.mul(x, x, x, y)
    s = b.add(p, b.const(Fraction(1, 3)), x, y, p)
    out = b.sign(b.add(s, b.mul(b.const(-1), s)))
    b.output(s)
    b.output(out)
    b.output(b.mul(s, b.const(Fraction(3, 7))))
    circuit = b.build()
    inputs = [Fraction(10 ** 30 + 1, 3 ** 40), Fraction(-(2 ** 70), 10 ** 25 + 7)]
    flat = FlatCircuit.from_circuit(circuit)
    assert flat.evaluator.run(inputs).all() == evaluate_gates(circuit, inputs)
    with pytest.raises(TypeError):
        flat.evaluator.run([0.5, 1])
    with pytest.raises(ValueError):
        flat.evaluator.run([1])


def test_a_deep_thin_circuit_is_evaluated_alike_by_both_paths(narrow: int) -> None:
    """A 2,000-gate chain of add, mul by 1/2 and sign, over 20 layers: a group or two per depth (the case _narrow is
    for), with fractions on the way and a value past MAX_VALUE_BITS refused on either path."""
    from verified_aat.circuits.builder import CircuitBuilder
    from verified_aat.errors import LimitReached
    b = CircuitBuilder("chain")
    x, y, half = b.input("x"), b.input("y"), b.const(Fraction(1, 2))
    g = x
    for k in range(2_000):
        g = (b.add(g, y), b.mul(half, g), b.sign(g))[k % 3]
    b.output(g)
    b.output(b.add(g, x, y))
    circuit = b.build()
    flat = FlatCircuit.from_circuit(circuit)
    for inputs in ([Fraction(3), Fraction(-5, 7)], [Fraction(0), Fraction(1)], [Fraction(-9, 4), Fraction(2)]):
        got = flat.evaluator.run(inputs).all()
        want = evaluate_gates(circuit, inputs)
        assert got == want and [type(v) for v in got] == [type(v) for v in want]
    b = CircuitBuilder("squares")
    g = b.input("x")
    for _ in range(20):
        g = b.mul(g, g)
    b.output(g)
    with pytest.raises(LimitReached, match="bits-per-value limit"):
        FlatCircuit.from_circuit(b.build()).evaluator.run([Fraction(3, 2)])


def test_audit_rows_match_the_reference_measures() -> None:
    """What the audit reports (from the arrays) is what the Circuit object measures."""
    t = get_construction("unique-hard").transformer(1)
    report = audit(t, (2, 3, 6), samples=3)
    assert report.ok and report.depth_independent is True
    for row in report.rows:
        ref = unroll_reference(t, row.n).circuit
        m = measure(ref)
        assert (row.size, row.edges, row.depth, row.class_name) == (m.size, m.edges, m.depth, m.class_name)
        assert row.operations == row.formula_operations


def test_cli_short_construction_option(capsys: pytest.CaptureFixture[str]) -> None:
    """``audit -c NAME FILE`` (the README's form) is ``--construction NAME``."""
    from verified_aat.cli.main import main
    tiny = str(SPECS / "square_multi_edge.circ")
    assert main(["audit", "-c", "gate-edge", tiny, "--lengths", "2,3", "--samples", "2", "--json"]) == 0
    assert '"ok": true' in capsys.readouterr().out
