"""Red team, round 11: classes of bugs found in this round, each with the test that failed before its fix."""

from __future__ import annotations

import copy
from fractions import Fraction
from typing import Any

import pytest

from verified_aat.circuits.text_format import parse_circuit_text

# -- a wide sum or product in a circuit compiled to Python: no chain of infix operators past the compiler's stack -----

WIDE = 5000  # operands; some 3,000 infix operators were past CPython's compiler stack (RecursionError)


def _wide_text() -> str:
    return (f"input x y\ns = add {' '.join(['x'] * WIDE)} y\np = mul {' '.join(['y'] * 100)}\n"
            f"t = add s p\noutput t s\n")


def test_a_wide_gate_compiles_in_the_kernel_and_the_engine() -> None:
    """The kernel's ``circuits.compiled`` (its joins, brute force and interpreter), the defence's residual activations
    and the engine's ``straight_line`` (its scores and activations) wrote an n-ary gate as ``v1 + v2 + …``: a score
    with a sum of 5,000 operands made ``run`` and ``audit`` end in an internal error and the kernel's check *not
    checked*. Past 64 operands it is one left fold over a tuple, the same operations in the same order."""
    from verified_aat.circuits.evaluate import compile_circuit
    from verified_aat.certificates.kernel_form import circuit_structure
    from verified_aat.kernel.circuits import compiled
    from verified_aat.kernel.data import load_circuit
    circuit = parse_circuit_text(_wide_text())
    x, y = Fraction(1, 3), Fraction(-2)
    expected = (WIDE * x + y + y ** 100, WIDE * x + y)
    assert tuple(compile_circuit(circuit)(x, y)) == expected
    assert tuple(compiled(load_circuit(circuit_structure(circuit), "c"))(x, y)) == expected


def _wide_score(T: dict[str, Any], head: str) -> dict[str, Any]:
    """T with ``head``'s score plus 0·(a sum of WIDE copies of one input): the same function."""
    T = copy.deepcopy(T)
    spec = next(h for layer in T["layers"] for h in layer["heads"] if h["name"] == head)
    score = copy.deepcopy(T["functions"][spec["score"]])
    gates, out = score["gates"], score["outputs"][0]
    gates += [["add", [0] * WIDE], ["const", "0"]]
    gates += [["mul", [len(gates) - 1, len(gates) - 2]], ["add", [out, len(gates)]]]
    score["outputs"] = [len(gates) - 1]
    T["functions"].append(score)
    for layer in T["layers"]:
        for h in layer["heads"]:
            if h["name"] == head:
                h["score"] = len(T["functions"]) - 1
    return T


@pytest.mark.parametrize("method", ["key-join", "brute-force"])
def test_a_true_certificate_whose_score_has_a_wide_sum_is_accepted(method: str) -> None:
    """gate-edge's T_K with 0·(a 5,000-operand sum) added to its fetch score computes the same: the kernel derives the
    same lemmas and its normal form proves the key lemma, but its defence (key join) or its brute force compiled the
    score to a chain of 5,000 ``+`` and the check was *not checked* ("too deeply nested for the interpreter's stack")."""
    from forge import Forgery, forge, verdict
    from verified_aat.certificates.kernel_form import transformer_form
    from verified_aat.constructions.registry import get_construction
    circuit = parse_circuit_text("input x y\na = add x y\nb = mul a y\nc = sign b\noutput c a\n")
    T = _wide_score(transformer_form(get_construction("gate-edge").compile(circuit).transformer), "fetch")
    attention = None
    if method == "brute-force":
        attention = [{"function": 0, "head": "fetch", "method": "brute-force"}]
    report = verdict(forge(Forgery(circuit, T, attention=attention)), jobs=1)
    assert report.outcome == "accepted", report.reasons
