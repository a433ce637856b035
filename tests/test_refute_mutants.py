"""refute on edited transformers that the random-mutant study (benchmarks/refute_mutants.py) found it missing."""

from dataclasses import replace
from fractions import Fraction

import pytest

from verified_aat.circuits.evaluate import evaluate
from verified_aat.circuits.measures import depth
from verified_aat.constructions.registry import get_construction
from verified_aat.refutation.candidates import candidate_circuits, lifted
from verified_aat.refutation.refute import refute
from verified_aat.transformer.exact_engine import run_exact
from verified_aat.transformer.model import Transformer


def _last_layer_edited(name: str, K: int, gate: int, was: tuple[int, ...], now: tuple[int, ...]) -> Transformer:
    T = get_construction(name).transformer(K)
    last = T.layers[-1].activation
    gates = list(last.gates)
    assert gates[gate].args == was
    gates[gate] = replace(gates[gate], args=now)
    activation = replace(last, gates=tuple(gates))
    return replace(T, layers=T.layers[:-1] + (replace(T.layers[-1], activation=activation),))


@pytest.mark.slow  # about 10 CPU s: the search tries 41 circuits of T_3
def test_an_edit_of_the_last_layer_only_is_refuted_at_depth_k():
    """unique-hard-left T_3 with one operand of its last layer's gather activation moved (study seed 3, "layer 5
    only: arg g62 operand 0: 60 -> 33"): right on every circuit of depth ≤ 2, wrong on a sum at depth 3.  Of the
    candidates only 42 are fan-in-2 circuits of depth ≤ 3, none with a sum at depth 3 reading two inputs, so the
    search ran out of circuits (at any budget); the single-gate shapes are now also tried lifted to every depth up
    to K."""
    construction = get_construction("unique-hard-left")
    edited = _last_layer_edited("unique-hard-left", 3, 62, (60, 56), (33, 56))
    result = refute(edited, construction, budget_seconds=60)
    assert result.counterexample is not None, f"tried {result.circuits_tried} circuits"
    assert depth(result.circuit) == 3
    encoding = construction.encode(result.circuit)
    xs = list(result.counterexample.inputs)
    assert tuple(encoding.read(run_exact(edited, encoding.instantiate(xs)).outputs)) != \
        tuple(evaluate(result.circuit, xs))
    shallow = next(c for c in candidate_circuits() if c.name == "add-of-two")
    encoding = construction.encode(shallow)
    assert encoding.read(run_exact(edited, encoding.instantiate(xs)).outputs) == evaluate(shallow, xs)


def test_lifted_circuits_compute_the_same_function_deeper():
    for circuit in candidate_circuits(0):
        for by in (1, 2):
            deeper = lifted(circuit, by)
            assert deeper.n_inputs == circuit.n_inputs and deeper.input_names == circuit.input_names
            xs = [Fraction(4 * k - 3, k + 2) for k in range(circuit.n_inputs)]
            assert evaluate(deeper, xs) == evaluate(circuit, xs)
            reads_a_leaf = any(g.kind.value not in ("input", "const") and
                               any(circuit.gates[a].kind.value in ("input", "const") for a in g.args)
                               for g in circuit.gates)
            assert depth(deeper) == depth(circuit) + (by if reads_a_leaf else 0)
