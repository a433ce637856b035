"""Red team, round 12: classes of bugs found in this round, each with the test that failed before its fix."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

SHIPPED = Path(__file__).resolve().parent.parent / "verified_aat" / "data" / "constructions"


# -- compile writes only an encoding that run reads back, and says what it wrote whatever the numbers ----------------

def test_compile_refuses_an_encoding_that_run_could_not_read(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """A 6,000-digit constant is a legal circuit; edge-only's row holds its square in sq (12,000 digits). ``compile``
    wrote that encoding.json and exited 0, and ``run`` then refused its own output (the encoding reader's 10,000
    digits per number). Now compile refuses it, one line at the circuit, exit 2, and leaves no directory."""
    from verified_aat.cli.main import main
    circuit = tmp_path / "big.circ"
    circuit.write_text(f"input x\nc = const {'7' * 6000}\ny = add x c\noutput y\n")
    out = tmp_path / "out"
    assert main(["compile", str(circuit), "-c", "edge-only", "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.startswith(f"verified-aat: {circuit}: ") and "10,000" in err, err
    assert not out.exists()
    assert main(["compile", str(circuit), "-c", "gate-edge", "-o", str(out)]) == 0  # c itself fits: written, and read
    assert main(["run", str(out / "transformer.json"), "--encoding", str(out / "encoding.json"), "--input=1"]) == 0


def test_compile_states_the_precision_of_a_structural_row_past_python_s_digits(tmp_path: Any,
                                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """A document whose ids are shifted by a 6,000-digit constant (within every limit): compile wrote both files, then
    formatted that number with ``{:,}`` for its precision line (Python writes at most 4,300 digits) and ended in
    "unknown: limit reached", exit 3, after writing. Now the line says "about 2^…" and compile exits 0."""
    from verified_aat.cli.main import main
    doc = json.loads((SHIPPED / "gate-edge.json").read_text())
    doc.pop("description")
    doc["name"], doc["constants"]["BIG"] = "shifted", "9" * 2000
    doc["positions"][0]["row"]["*"]["a"] = "id + BIG*BIG*BIG"
    doc["positions"][1]["row"]["*"]["a"] = "src + BIG*BIG*BIG"
    (tmp_path / "shifted.json").write_text(json.dumps(doc))
    (tmp_path / "c.circ").write_text("input x y\na = add x y\nb = mul a y\noutput b\n")
    out = tmp_path / "out"
    assert main(["compile", str(tmp_path / "c.circ"), "-c", str(tmp_path / "shifted.json"), "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "largest structural coordinate about 2^" in printed and "wrote" in printed, printed
    assert main(["run", str(out / "transformer.json"), "--encoding", str(out / "encoding.json"), "--input=2,3"]) == 0
    assert "outputs: 15" in capsys.readouterr().out


# -- the HTML report typesets a lemma only when its lets inlined stay small: no 2^k terms, no deep recursion ---------

def _chained_lets(levels: int) -> str:
    """out_val: k nested lets, each the previous one plus its sign, so each is used twice: 2^k terms inlined."""
    body = "".join(f"(let ((g{k} (+ {'x_val' if k == 1 else f'g{k - 1}'} (sgn {'x_val' if k == 1 else f'g{k - 1}'})))) "
                   for k in range(1, levels + 1)) + f"g{levels}" + ")" * levels
    return ("; verified-aat obligation v1\n(set-logic QF_NRA)\n(define-fun sgn ((v Real)) Real (ite (> v 0.0) 1.0 "
            f"(ite (< v 0.0) (- 1.0) 0.0)))\n(define-fun out_val ((x_val Real)) Real {body})\n(declare-const y0 Real)\n"
            "(assert (not (= (out_val y0) y0)))\n(check-sat)\n")


def _deep(levels: int) -> str:
    claim = "(+ " * levels + "y0" + " 1.0)" * levels
    return f"(set-logic QF_NRA)\n(declare-const y0 Real)\n(assert (>= y0 0.0))\n(assert (not (= {claim} y0)))\n(check-sat)\n"


@pytest.mark.parametrize("text", [_chained_lets(14), _deep(900)], ids=["14-lets", "deep"])
def test_a_lemma_whose_lets_inline_to_a_huge_formula_is_shown_as_text(text: str) -> None:
    """``report`` typesets the most used lemmas of a certificate, rejected or not (and with ``--no-check``): sympy
    printed a let-bound name at each of its uses, so 60 lets each using the previous one twice (2 KB, under the 8,000
    characters typeset) kept it busy for hours (14: 4 s, then an uncaught TooLarge), and a claim nested 900 deep
    ended the command in a RecursionError. Both are now shown as their SMT-LIB text."""
    from verified_aat.report.formulas import hypothesis_formulas, lemma_formulas
    assert len(text) < 8000
    assert lemma_formulas(text) == [] and hypothesis_formulas(text) == []
    assert lemma_formulas(_chained_lets(3)) and hypothesis_formulas(_chained_lets(3))  # small ones are typeset
