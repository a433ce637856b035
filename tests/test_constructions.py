"""Constructions: differential tests against circuit evaluation, classes, layout claims."""

from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from strategies import circuits
from verified_aat.circuits.builder import CircuitBuilder
from verified_aat.circuits.evaluate import evaluate
from verified_aat.circuits.ir import Kind
from verified_aat.circuits.measures import depth
from verified_aat.cli.main import main
from verified_aat.constructions.binarize import binarize
from verified_aat.constructions.registry import get_construction
from verified_aat.errors import InputError
from verified_aat.transformer.exact_engine import run_exact, run_exact_reference

SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "circuits"
VALUES = st.one_of(st.sampled_from([Fraction(0), Fraction(1), Fraction(-1), Fraction(1, 2)]),
                   st.fractions(min_value=-9, max_value=9, max_denominator=7))


def _fit(circuit, name):
    """Bring a random circuit into the construction's class by binarizing."""
    return binarize(circuit, sums=get_construction(name).bounded_fan_in).circuit


def _simulates(name, circuit, xs, reference=False):
    compiled = get_construction(name).compile(circuit)
    run = run_exact_reference if reference else run_exact
    result = run(compiled.transformer, compiled.encoding.instantiate(xs))
    return tuple(compiled.encoding.read(result.outputs)), tuple(evaluate(circuit, xs))


@pytest.mark.parametrize("name", ["gate-edge", "gate-edge-dot", "unique-hard", "edge-only", "edge-k"])
@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_transformer_output_equals_circuit_on_random_circuits(name, data):
    circuit = _fit(data.draw(circuits(max_gates=12, max_inputs=3)), name)
    xs = data.draw(st.lists(VALUES, min_size=circuit.n_inputs, max_size=circuit.n_inputs))
    got, want = _simulates(name, circuit, xs)
    assert got == want


@pytest.mark.parametrize("name", ["gate-edge", "gate-edge-dot", "unique-hard", "unique-hard-left", "unique-hard-right",
                                  "edge-only", "edge-k"])
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_fast_and_reference_engines_agree_on_compiled_constructions(name, data):
    circuit = _fit(data.draw(circuits(max_gates=6, max_inputs=2)), name)
    xs = data.draw(st.lists(VALUES, min_size=circuit.n_inputs, max_size=circuit.n_inputs))
    assert _simulates(name, circuit, xs, reference=True) == _simulates(name, circuit, xs)


def _edge_cases():
    b = CircuitBuilder("edge-cases")
    x, y = b.input("x"), b.input("y")
    xx = b.mul(x, x)                       # multi-edge
    s = b.add(x, x, y)                     # multi-edge in a sum, 1/k rescaling with k = 3
    empty = b.add()                        # fan-in 0
    single = b.add(y)                      # fan-in 1
    zero = b.sign(b.add(x, b.neg(x)))      # sign(0) = 0
    c = b.const(Fraction(-3, 4))
    prod = b.mul(s, c)
    for out in (xx, s, empty, single, zero, prod, x, c, xx):
        b.output(out)
    return b.build()


@pytest.mark.parametrize("name", ["gate-edge", "gate-edge-dot", "unique-hard", "unique-hard-left", "unique-hard-right",
                                  "edge-only", "edge-k"])
def test_edge_cases_by_hand(name):
    circuit = _fit(_edge_cases(), name)
    x, y = Fraction(-2, 3), Fraction(5)
    got, want = _simulates(name, circuit, [x, y])
    assert want == (x * x, 2 * x + y, 0, y, 0, (2 * x + y) * Fraction(-3, 4), x, Fraction(-3, 4), x * x)
    assert got == want


def test_dimensions_and_layers_match_the_documented_claims():
    circuit = _edge_cases()
    k = depth(circuit)
    dims = {name: get_construction(name).compile(_fit(circuit, name)) for name in
            ("gate-edge", "gate-edge-dot", "unique-hard", "edge-only")}
    assert dims["gate-edge"].transformer.dimension == 5      # paper: 7 (Thm 4.5), 9 (Thm 4.11)
    assert dims["gate-edge-dot"].transformer.dimension == 8
    assert dims["unique-hard"].transformer.dimension == 4
    assert dims["gate-edge"].transformer.n_layers == 2 * k
    assert dims["edge-only"].transformer.dimension == 5
    assert dims["edge-only"].transformer.n_layers == k + 1
    # edge-only has no gate positions: edges plus one sink per distinct output gate
    assert dims["edge-only"].encoding.length == circuit.n_edges + len(set(circuit.outputs))
    heads = {h.pooling.value for layer in dims["unique-hard"].transformer.layers for h in layer.heads}
    assert heads == {"leftmost", "rightmost"}


def test_one_transformer_serves_every_circuit_of_the_depth_bound():
    rng = random.Random(3)
    construction = get_construction("gate-edge")
    seen = set()
    for seed in range(5):
        b = CircuitBuilder(f"c{seed}")
        xs = [b.input() for _ in range(3)]
        g = b.add(*xs[: rng.randint(1, 3)])
        g = b.mul(g, xs[rng.randint(0, 2)])
        b.output(b.sign(g))
        seen.add(construction.compile(b.build(), depth_bound=4).transformer)
    assert len(seen) == 1


def test_unbounded_multiplication_is_refused_with_the_first_offending_gate():
    b = CircuitBuilder("fac")
    xs = [b.input(f"x{i}") for i in range(3)]
    b.output(b.add(*xs, name="fine"))
    b.output(b.mul(*xs, name="wide"))
    with pytest.raises(InputError, match=r"FSAC0\[sign\].*'wide'.*fan-in 3.*--binarize"):
        get_construction("gate-edge").compile(b.build())


def test_unique_hard_refuses_wide_sums_and_binarize_fixes_it():
    b = CircuitBuilder("wide-sum")
    xs = [b.input() for _ in range(5)]
    b.output(b.add(*xs, name="sum5"))
    circuit = b.build()
    with pytest.raises(InputError, match=r"FNC0\[sign\].*'sum5'"):
        get_construction("unique-hard").compile(circuit)
    fixed = binarize(circuit, sums=True)
    assert fixed.depth_increase == 2 and fixed.gates_rewritten == 1
    assert all(g.fan_in <= 2 for g in fixed.circuit.gates)
    xs_values = [Fraction(i, 3) for i in range(5)]
    assert _simulates("unique-hard", fixed.circuit, xs_values)[0] == (Fraction(10, 3),)


@pytest.mark.parametrize("path", sorted(SHARED.glob("*/*.b*")) if SHARED.exists() else [],
                         ids=lambda p: p.name)
@pytest.mark.parametrize("mode", ["exact", "threshold"])
def test_shared_netlists_compile_and_run_exactly(path, mode):
    from verified_aat.circuits.io import load_circuit

    circuit = load_circuit(str(path), mode)
    rng = random.Random(f"{path.name}-{mode}")
    # The transformer simulates the arithmetic circuit on all of Q, whatever domain it was meant for.
    xs = [Fraction(rng.randint(-7, 7), rng.randint(1, 5)) for _ in range(circuit.n_inputs)]
    got, want = _simulates("gate-edge", circuit, xs)
    assert got == want
    bits = [Fraction(rng.randint(0, 1)) for _ in range(circuit.n_inputs)]
    got, want = _simulates("gate-edge", circuit, bits)
    assert got == want and set(want) <= {0, 1}


def test_compile_command_writes_spec_and_encoding(tmp_path, capsys):
    src = tmp_path / "c.circ"
    src.write_text("input x y\np = mul x y\ns = add p x x\noutput s\n")
    out = tmp_path / "out"
    assert main(["compile", str(src), "--construction", "gate-edge", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "dimension        5" in text and "layers           4  (K = 2)" in text
    assert (out / "transformer.json").exists() and (out / "encoding.json").exists()
    assert main(["run", str(out / "transformer.json"), "--encoding", str(out / "encoding.json"),
                 "--input=2,-1/2"]) == 0
    assert "3" in capsys.readouterr().out  # 2·(-1/2) + 2 + 2 = 3


@pytest.mark.parametrize("name", ["gate-edge", "edge-k", "unique-hard"])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_encoding_file_reads_back_as_the_same_encoding(name, data):
    """``Encoding.dumps`` writes one line per row, slot, read-out and role with its own fast path for rows; the
    file is JSON that reads back as the very same encoding (rows as exact rationals, settle layers included)."""
    import json as _json

    from verified_aat.constructions.encoding import Encoding
    circuit = data.draw(circuits(max_gates=12))
    try:
        encoding = get_construction(name).compile(circuit).encoding
    except InputError:  # outside the construction's class (a wide sum for unique-hard, say)
        return
    text = encoding.dumps()
    assert Encoding.from_json(_json.loads(text)) == encoding
    assert text.count("\n") >= len(encoding.rows)  # a line per row at least


def test_compile_refusal_is_one_line_exit_2_and_writes_nothing(tmp_path, capsys):
    src = tmp_path / "fac.circ"
    src.write_text("input a b c\nm = mul a b c\noutput m\n")
    out = tmp_path / "never"
    assert main(["compile", str(src), "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "'m'" in err[0] and "FSAC0[sign]" in err[0]
    assert not out.exists()
    assert main(["compile", str(src), "--binarize", "-o", str(out)]) == 0
    assert "depth 1 → 2 (+1)" in capsys.readouterr().out


def test_kinds_used_by_the_edge_cases_cover_every_gate_kind():
    kinds = {g.kind for g in _edge_cases().gates}
    assert kinds == set(Kind)


def test_binarize_reports_the_widest_gate_and_that_t_k_then_depends_on_it(capsys, tmp_path):
    from verified_aat.cli.main import main
    from verified_aat.constructions.binarize import describe_binarized
    b = CircuitBuilder("wide")
    xs = [b.input(f"x{i}") for i in range(5)]
    b.output(b.mul(*xs))
    b.output(b.mul(xs[0], xs[1], xs[2]))
    result = binarize(b.build())
    assert (result.gates_rewritten, result.widest, result.depth_before, result.depth_after) == (2, 5, 1, 3)
    assert "n ≤ 5" in describe_binarized(result) and "widest gate" in describe_binarized(result)
    assert describe_binarized(binarize(_edge_cases())).endswith("(+0)")  # nothing rewritten: no claim
    spec = Path(__file__).resolve().parent.parent / "specs" / "circuits" / "fac0_unbounded_product.circ"
    assert main(["compile", str(spec), "--binarize", "-o", str(tmp_path / "out")]) == 0
    assert "widest gate" in capsys.readouterr().out
