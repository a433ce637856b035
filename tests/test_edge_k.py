"""edge-k (MATH.md §4.2 layout (c)): exactly K layers, dimension 4, two heads; exact runs, T_K depends only
on K, certification, the kernel's own layout, forged certificates and known-wrong transformers."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mutants
from forge import Forgery, forge, honest_key, verdict
from strategies import circuits
from test_kernel_forgery import rejected_by
from verified_aat.certificates.document import build_certificate, dumps_certificate
from verified_aat.certificates.kernel_form import circuit_structure
from verified_aat.circuits.builder import CircuitBuilder
from verified_aat.circuits.evaluate import evaluate
from verified_aat.circuits.io import load_circuit
from verified_aat.circuits.ir import Circuit
from verified_aat.circuits.json_format import canonical_circuit_bytes
from verified_aat.circuits.measures import depth, gate_depths
from verified_aat.cli.main import main
from verified_aat.constructions.binarize import binarize
from verified_aat.constructions.gadgets import unary_circuit
from verified_aat.constructions.gate_edge import gate_code
from verified_aat.constructions.registry import get_construction
from verified_aat.errors import InputError
from verified_aat.kernel import check_certificate
from verified_aat.kernel.data import load_circuit as kernel_circuit
from dataclasses import replace

from verified_aat.kernel.encoding import build as build_encoding
from verified_aat.kernel.layouts import shipped_construction
from verified_aat.symbolic.certify import certify
from verified_aat.transformer.exact_engine import run_exact
from verified_aat.transformer.spec import save_transformer, transformer_to_json

ROOT = Path(__file__).resolve().parent.parent
SPECS = sorted((ROOT / "specs" / "circuits").glob("*.circ"))
EDGE_K = get_construction("edge-k")
VALUES = st.fractions(min_value=-9, max_value=9, max_denominator=7)


def _in_class(path: Path):
    circuit = load_circuit(str(path))
    try:
        EDGE_K.check_class(circuit)
    except InputError:
        return None
    return circuit


SPEC_CIRCUITS = [(p.stem, c) for p in SPECS if (c := _in_class(p)) is not None]


def _run(circuit, xs, construction=EDGE_K, depth_bound=None):
    compiled = construction.compile(circuit, depth_bound)
    return tuple(compiled.encoding.read(run_exact(compiled.transformer, compiled.encoding.instantiate(xs)).outputs))


def _depth_three(variant: int):
    """Three different circuits of depth 3 (a sum, a product tree, a sign chain)."""
    b = CircuitBuilder(f"d3-{variant}")
    x, y = b.input("x"), b.input("y")
    if variant == 0:
        b.output(b.add(b.mul(b.add(x, y), y), x))
    elif variant == 1:
        b.output(b.mul(b.mul(b.mul(x, x), y), b.const(Fraction(-3, 4))))
    else:
        b.output(b.sign(b.sign(b.add(x, y, y))))
    return b.build()


# -- shape of T_K --------------------------------------------------------------------------------

def test_t_k_depends_only_on_k_byte_identical_transformer_json(tmp_path):
    texts = []
    for variant in range(3):
        circuit = _depth_three(variant)
        assert depth(circuit) == 3
        path = tmp_path / f"c{variant}.circ"
        from verified_aat.circuits.text_format import print_circuit
        path.write_text(print_circuit(circuit))
        assert main(["compile", str(path), "-c", "edge-k", "-o", str(tmp_path / f"out{variant}")]) == 0
        texts.append((tmp_path / f"out{variant}" / "transformer.json").read_bytes())
    assert texts[0] == texts[1] == texts[2]
    assert json.loads(texts[0]) == json.loads(json.dumps(transformer_to_json(EDGE_K.transformer(3))))
    assert transformer_to_json(EDGE_K.transformer(3)) != transformer_to_json(EDGE_K.transformer(4))


@pytest.mark.parametrize("k", range(1, 9))
def test_exactly_k_layers_dimension_four_two_heads(k):
    T = EDGE_K.transformer(k)
    assert T.n_layers == k and EDGE_K.layers(k) == k
    assert T.dimension == 4 and T.coordinates == ("op", "src", "tgt", "val")
    assert all([h.name for h in layer.heads] == ["all", "first"] for layer in T.layers)
    assert len(set(T.layers)) == 1  # one layer function, repeated


def test_compile_reports_dimension_layers_and_heads(tmp_path, capsys):
    path = ROOT / "specs" / "circuits" / "mixed_depth6.circ"
    assert main(["compile", str(path), "-c", "edge-k", "-o", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "dimension        4  (op, src, tgt, val)" in out
    assert "layers           6  (K = 6)" in out
    assert "heads            12 in all, 2 per layer" in out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(circuits(max_gates=10, max_inputs=3))
def test_op_is_the_code_plus_ten_signed_by_the_slot_bit(circuit):
    circuit = binarize(circuit).circuit
    enc = EDGE_K.encode(circuit)
    assert len(enc.rows) == circuit.n_edges + len(set(circuit.outputs))
    for row, role in zip(enc.rows, enc.roles):
        op, src, tgt, _ = row
        gate = circuit.gates[role.source]
        assert abs(op) == gate_code(gate.kind, gate.fan_in) + 10
        assert (op > 0) == (role.kind == "edge" and role.slot >= 1)
        assert src == role.source and tgt == (role.gate if role.kind == "edge" else -1)


# -- exact runs -------------------------------------------------------------------------------------

@pytest.mark.parametrize("name,circuit", SPEC_CIRCUITS, ids=[n for n, _ in SPEC_CIRCUITS])
@settings(max_examples=8, deadline=None)
@given(data=st.data())
def test_exact_runs_agree_with_the_circuit_on_the_spec_circuits(name, circuit, data):
    xs = data.draw(st.lists(VALUES, min_size=circuit.n_inputs, max_size=circuit.n_inputs))
    assert _run(circuit, xs) == tuple(evaluate(circuit, xs))


def test_a_gate_of_depth_d_is_right_after_layer_d():
    """Run T_K for K = depth(g) only: every gate read as an output is right after exactly depth(g) layers."""
    circuit = load_circuit(str(ROOT / "specs" / "circuits" / "mixed_depth6.circ"))
    depths = gate_depths(circuit)
    xs = [Fraction(3, 2), Fraction(-2), Fraction(5, 7)][:circuit.n_inputs]
    checked = 0
    for g in range(circuit.size):
        if depths[g] == 0:
            continue
        sub = Circuit(circuit.gates[:g + 1], (g,))
        assert _run(sub, xs, depth_bound=depths[g]) == tuple(evaluate(sub, xs))
        checked += 1
    assert checked >= 6


# -- certification and the kernel --------------------------------------------------------------------

def test_every_spec_circuit_is_certified_and_accepted_by_the_kernel():
    for name, circuit in SPEC_CIRCUITS:
        result = certify(circuit, EDGE_K, refute=False)
        assert result.status == "proved", (name, result.problems)
        assert result.transformer.n_layers == max(depth(circuit), 1)
        report = check_certificate(json.loads(dumps_certificate(build_certificate(result))))
        assert report.accepted, (name, report.reasons)
        assert "enc_edge-k(C, x) reads out C(x)" in report.theorem


def test_certify_refutes_an_edited_transformer_with_a_replayed_counterexample(tmp_path, capsys):
    path = ROOT / "specs" / "circuits" / "mixed_depth6.circ"
    wrong = tmp_path / "wrong.json"
    save_transformer(mutants.EdgeKSlotIgnored().transformer(6), wrong)
    assert main(["certify", str(path), "-c", "edge-k", "--transformer", str(wrong)]) == 1
    assert "counterexample" in capsys.readouterr().out.lower()
    good = tmp_path / "good.json"
    save_transformer(EDGE_K.transformer(6), good)
    assert main(["certify", str(path), "-c", "edge-k", "--transformer", str(good)]) == 0


def test_one_layer_short_is_refuted_on_a_circuit_of_full_depth():
    """T with K − 1 layers is T_{K−1}: right below depth K, so the witness needs a gate of depth K."""
    circuit = mutants.probe_circuit()
    result = certify(circuit, mutants.EdgeKOneLayerShort())
    assert result.status == "refuted", result.problems
    w = result.counterexample
    assert _run(circuit, list(w.inputs), mutants.EdgeKOneLayerShort()) == w.actual != w.expected


# -- forged certificates: the kernel's own derivation, every lemma claimed proved -------------------------

def _probe():
    return mutants.probe_circuit()


def test_an_honest_edge_k_forgery_is_accepted():
    report = verdict(forge(Forgery(_probe(), construction="edge-k")))
    assert report.outcome == "accepted", report.reasons


def test_the_kernel_states_the_slot_bit_itself():
    """A proof about an encoding with the slot bit cleared (every op negative) is about the wrong enc(C, x)."""
    kC = kernel_circuit(json.loads(canonical_circuit_bytes(_probe())), "$", extra_keys={"format", "version", "domain"})
    honest = build_encoding(shipped_construction("edge-k"), kC)
    cleared = replace(honest, rows=tuple((-abs(row[0]),) + row[1:] for row in honest.rows))
    assert cleared.rows != honest.rows
    found = rejected_by(forge(Forgery(_probe(), construction="edge-k", encoding=cleared)), "encoding")
    assert "enc(C) as the kernel builds it for edge-k" in found.detail


def test_a_key_with_the_wrong_op_sign_has_a_false_key_lemma():
    names = [f"v.{c}" for c in EDGE_K.coordinates]
    key = honest_key("edge-k", "first", EDGE_K.coordinates)
    key["col_penalty"] = circuit_structure(unary_circuit(names, lambda b, w: b.sub(b.const(1), b.sign(w["v.op"]))))
    attention = [{"function": 0, "head": "all", "method": "key-join", "key": honest_key("edge-k", "all",
                                                                                        EDGE_K.coordinates)},
                 {"function": 0, "head": "first", "method": "key-join", "key": key}]
    found = rejected_by(forge(Forgery(_probe(), construction="edge-k", attention=attention)), "solvers",
                        defence_budget=0)
    assert "attention:key-decomposition" in found.detail


def test_a_transformer_that_ignores_the_slot_bit_fails_in_the_solver_and_in_the_interpreter():
    T = mutants.EdgeKSlotIgnored().transformer(depth(_probe()))
    zero = unary_circuit([f"v.{c}" for c in EDGE_K.coordinates], lambda b, w: b.const(0))
    key = honest_key("edge-k", "all", EDGE_K.coordinates)
    attention = [{"function": 0, "head": "all", "method": "key-join", "key": key},
                 {"function": 0, "head": "first", "method": "key-join",
                  "key": {**key, "col_penalty": circuit_structure(zero)}}]  # a true key for the edited score
    doc = forge(Forgery(_probe(), T, construction="edge-k", attention=attention))
    rejected_by(doc, "defence")
    found = rejected_by(doc, "solvers", defence_budget=0)
    assert "local-step" in found.detail


@pytest.mark.parametrize("mutant", [mutants.EdgeKUnsignedCode, mutants.EdgeKDoubleProduct])
def test_forged_certificates_for_wrong_activations_are_rejected(mutant):
    T = mutant().transformer(depth(_probe()))
    rejected_by(forge(Forgery(_probe(), T, construction="edge-k")), "solvers", defence_budget=0)


def test_claims_one_layer_early_are_rejected():
    from forge import honest_rules
    rules = honest_rules("edge-k")
    for rule in rules.values():
        rule["offset"] = -1
        rule["kind_offsets"] = [["input", "val", 1], ["const", "val", 1]]
    rejected_by(forge(Forgery(_probe(), construction="edge-k", schedule=rules)), "base")


def test_claims_about_the_target_instead_of_the_source_fail():
    from forge import honest_rules
    rules = honest_rules("edge-k")
    rules["edge"]["claims"] = [["val", "gate", 1]]  # edge u → v claims V(v) from layer depth(u) + 1
    rules["edge"]["offset"] = 1
    rejected_by(forge(Forgery(_probe(), construction="edge-k", schedule=rules)), "solvers", defence_budget=0)


def test_the_defence_pools_each_distinct_argmax_set_once():
    """Edges out of many inputs attend to the same wide set (all sinks): one tuple object, pooled once."""
    from verified_aat.kernel.defence import interned
    a, b = tuple(range(1, 4)), tuple(range(1, 4))  # equal, built apart: two objects
    c = (4,)
    assert a is not b
    out = interned([a, b, c, a, b])
    assert out == [a, b, c, a, b]
    assert out[0] is out[1] is out[3] is out[4] and out[2] is c


def test_the_kernels_join_builds_each_wide_set_once_and_agrees_with_the_engine():
    """Row keys (input ids) that all choose the sinks' key −1 share one tuple in the kernel's join."""
    from verified_aat.circuits.families import build_family
    from verified_aat.kernel.attention import budget_for, join
    from verified_aat.symbolic.attention import join_argmax

    circuit = build_family("random-fsac", 60)
    kC = kernel_circuit(json.loads(canonical_circuit_bytes(circuit)), "$", extra_keys={"format", "version", "domain"})
    rows = build_encoding(shipped_construction("edge-k"), kC).rows
    for head, hint in EDGE_K.score_hints().items():
        key = honest_key("edge-k", head, EDGE_K.coordinates)
        sets = join(rows, {n: kernel_circuit(key[n], n) for n in ("row_key", "col_key", "col_penalty")}, budget_for(rows))
        engine = join_argmax(rows, hint)
        assert [tuple(s) for s in sets] == [tuple(engine.sets[p]) for p in range(len(rows))]
        assert len({id(s) for s in sets}) == len(set(sets))  # one object per distinct set
        assert max(map(len, sets)) >= 10  # the wide set of the sinks is there
