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
    score to a chain of 5,000 ``+`` and the check was *not checked* ("too deeply nested for the interpreter's
    stack")."""
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


# -- a document formula's chain of + or * counts toward its nesting depth, in both readers --------------------------

def _document_with(formula: str) -> dict[str, Any]:
    import json
    from pathlib import Path
    doc = json.loads((Path(__file__).resolve().parent.parent / "verified_aat" / "data" / "constructions"
                      / "gate-edge.json").read_text())
    doc["name"], doc["description"] = "chained", {}
    next(g for g in doc["positions"] if g["role"] == "gate")["row"]["*"]["a"] = formula
    return doc


@pytest.mark.parametrize("formula, value", [("id" + "+0" * 998, 7), ("id" + "*1" * 998, 7),
                                            ("id" + "-1+2" * 499, 7 + 499), ("2*id" + "-id" * 30, 7 * (2 - 30)),
                                            ("id" + "-1" * 20, -13), ("3" + "*id" * 2 + "*2" * 15, 3 * 49 * 2 ** 15)])
def test_a_long_chain_in_a_row_formula_is_read_by_both_readers(formula: str, value: int, tmp_path: Any,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """``id+0+0+…`` (999 terms, within the 2,000 characters) parsed to a tree 999 deep: every walker of it (degree,
    folding, evaluation) recursed that far, so ``construction check``, ``certify -c`` and ``prove-construction``
    ended in an internal error (RecursionError) and the kernel's reading of an embedded document was *not
    checked*. Past 16 operands both readers now build a balanced tree over the signed operands: the same values."""
    import json
    from verified_aat.cli.main import main
    from verified_aat.constructions.document import parse_document
    from verified_aat.constructions.interpreted import DocumentConstruction
    from verified_aat.kernel.layouts import read_construction
    from verified_aat.kernel.schematic_lemmas import row_of  # the rows' evaluation (the schematic's)
    doc = _document_with(formula)
    path = tmp_path / "chained.json"
    path.write_text(json.dumps(doc))
    assert main(["construction", "check", str(path)]) == 0, capsys.readouterr().err
    kernel = read_construction(doc, "$.construction_document")
    a = kernel.coordinates.index("a")
    assert row_of(kernel, "gate", "add", {"id": 7, "k": 2, "c": 0, "index": 0})[a] == value
    circuit = parse_circuit_text("input x0 x1 x2 x3 x4 x5\ns = add x0 x1\nt = add x2 s\noutput t\n")
    encoding = DocumentConstruction(parse_document(doc, "chained.json")).compile(circuit, 2).encoding
    assert encoding.rows[7][a] == value  # gate 7 (t): the engine's encoder reads the formula alike


# -- no output of a command replaces another: a file in the --export-smt directory ----------------------------------

@pytest.mark.parametrize("via", ["direct", "symlink", "report"])
def test_an_output_that_an_exported_lemma_file_would_replace_is_refused(via: str, tmp_path: Any,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """``certify C -o DIR/KIND-ID.smt2 --export-smt DIR`` wrote the certificate, said so, and then wrote the lemma of
    that name over it (also through a symbolic link, or with ``--report``): the named certificate held an SMT-LIB
    lemma. Two options naming one file were refused; a file in the export directory was not."""
    from verified_aat.cli.main import main
    circuit = tmp_path / "c.circ"
    circuit.write_text("input x y\na = add x y\nb = mul a y\noutput b\n")
    smt = tmp_path / "smt"
    smt.mkdir()
    first = ["certify", str(circuit), "-c", "gate-edge", "--export-smt", str(smt), "-o", str(tmp_path / "c.json")]
    assert main(first) == 0
    name = sorted(p.name for p in smt.iterdir())[0]
    capsys.readouterr()
    target = smt / name
    argv = ["certify", str(circuit), "-c", "gate-edge", "--export-smt", str(smt)]
    if via == "symlink":
        (tmp_path / "link.json").symlink_to(target)
        argv += ["-o", str(tmp_path / "link.json")]
    else:
        argv += ["-o", str(target)] if via == "direct" else ["-o", str(tmp_path / "c.json"), "--report", str(target)]
    before = target.read_text()
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and ("a symbolic link" if via == "symlink" else "--export-smt directory") in err, err
    assert target.read_text() == before  # nothing written
