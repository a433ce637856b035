"""The report page on real circuits: the drawing fits the page, one naming scheme, greyed heat-map rows
that provably cannot matter, and lemma formulas that are tidied and wrap (issue 16).
"""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import pytest

import verified_aat as va
from verified_aat.circuits.ir import Circuit, Gate, Kind
from verified_aat.report import render_html
from verified_aat.report.formulas import lemma_formulas, parse_sexprs
from verified_aat.report.mathml_terms import written_chunks
from verified_aat.report.relevance import fold

SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "circuits" / "iscas85"


def _load(name: str) -> Circuit:
    path = SHARED / f"{name}.bench"
    if not path.exists():
        pytest.skip(f"{path} is missing (../shared beside the checkout)")
    return va.load_circuit(str(path))


@pytest.fixture(scope="module")
def c880_certificate() -> dict:
    return va.certificate(va.certify(_load("c880"), "gate-edge"))


@pytest.fixture(scope="module")
def c17_page() -> str:
    return render_html(va.certify(_load("c17"), "gate-edge"), layout="python")


def _section(page: str, name: str) -> str:
    match = re.search(rf'<section id="{name}".*?</section>', page, re.S)
    assert match, f"no section {name}"
    return match.group(0)


def _svg_tag(page: str) -> str:
    return re.search(r"<svg\b[^>]*>", _section(page, "circuit")).group(0)


@pytest.mark.parametrize("layout", ["python", "graphviz"])
def test_the_c880_drawing_fits_the_page(c880_certificate: dict, layout: str) -> None:
    import shutil

    if layout == "graphviz" and shutil.which("dot") is None:
        pytest.skip("Graphviz dot not installed")
    page = render_html(c880_certificate, layout=layout)
    tag = _svg_tag(page)
    assert 'width="100%"' in tag and re.search(r'viewBox="[0-9. ]+"', tag), tag
    assert not re.search(r'\sheight="', tag)  # from the viewBox: scales with the width
    cap = re.search(r"max-width:([0-9.]+)(px|pt)", tag)
    assert cap is not None
    # no fixed width anywhere in the drawing's root; its natural width is only a cap (it never grows)
    assert not re.search(r'\swidth="[0-9.]+(px|pt)?"', tag)
    if layout == "python":  # the sample is ranked by its own depth: a dozen columns, not c880's 40
        assert float(cap.group(1)) <= 1400, tag


def test_a_wide_sum_is_drawn_as_its_cone_with_a_count() -> None:
    circuit = va.family("inner-product", 400)  # one add of 400 products
    page = render_html(va.certify(circuit, "gate-edge"), layout="python")
    drawing = _section(page, "circuit")
    assert drawing.count('<g class="node"') < 150  # not 149 of the 400 products side by side
    assert '<text class="more"' in drawing and ">+392<" in drawing  # 8 of 400 drawn


def test_one_naming_scheme_the_netlists(c880_certificate: dict) -> None:
    page = re.sub(r'base64,[^"]*', "", render_html(c880_certificate, layout="python"))
    labels = re.findall(r"<text [^>]*>([^<]*)</text>", _section(page, "circuit"))
    names = [t for t in labels if t not in ("add", "mul", "sign") and not t.startswith(("=", "+"))]
    assert "1" in names and "8" in names  # the netlist's first inputs
    assert not [n for n in names if re.fullmatch(r"g\d+", n)], names  # no g<index> beside the nets
    encoding = re.findall(r"<td>gate</td><td>([^<]*)</td>", _section(page, "layout"))
    assert encoding[:3] == ["1", "8", "13"]
    assert "netlist&#x27;s net names (c880.bench)" in page
    from verified_aat.report.data import from_certificate

    names = from_certificate(c880_certificate).names
    assert len(set(names)) == len(names) == 655  # one name per gate, none shared


def test_a_circuit_without_netlist_keeps_its_names() -> None:
    circuit = va.family("inner-product", 2)
    page = render_html(va.certify(circuit, "gate-edge"), layout="python")
    labels = re.findall(r"<text [^>]*>([^<]*)</text>", _section(page, "circuit"))
    assert {circuit.gate_name(g) for g in range(circuit.size)} <= set(labels)
    assert "net names" not in page


def test_heat_map_rows_that_cannot_matter_are_grey(c17_page: str) -> None:
    """gate-edge: fetch is read by edges only, gather by add/mul gates only; c17 has 20 gates (5 inputs,
    1 constant) and 30 edges: 20 rows of fetch and 36 of gather are grey (derived, not hard-coded)."""
    attention = _section(c17_page, "attention")
    greyed = dict(re.findall(r'data-head="(\w+)" data-greyed-rows="(\d+)"', attention))
    assert greyed == {"fetch": "20", "gather": "36"}
    assert "cannot affect the result" in attention


def test_folding_sees_a_head_read_only_through_a_zero_selector() -> None:
    """out = sel·h + x: with sel fixed to 0 the output ignores h; with sel = 1 it reads it; x - x is not
    folded away (sound, not complete: such a row stays coloured)."""
    gates = (Gate(Kind.INPUT, index=0), Gate(Kind.INPUT, index=1), Gate(Kind.INPUT, index=2),
             Gate(Kind.MUL, (0, 2)), Gate(Kind.ADD, (3, 1)), Gate(Kind.CONST, value=Fraction(-1)),
             Gate(Kind.MUL, (5, 2)), Gate(Kind.ADD, (2, 6)))
    circuit = Circuit(gates, (4, 7))
    ignores, reads = fold(circuit, {0: Fraction(0)}, {2}), fold(circuit, {0: Fraction(1)}, {2})
    assert ignores[0][2] is False and reads[0][2] is True
    assert ignores[1][2] is True  # h - h: still counted as reading h


def _smt(claim: str) -> str:
    return f"(declare-const x Real)\n(declare-const y Real)\n(assert (not {claim}))"


def test_written_formulas_are_tidied() -> None:
    [term] = parse_sexprs("(= (+ (* (- 1.0) x) (* 1.0 y) (* 2.0 (- x y))) (- (* (- 1.0) x)))")
    text = "".join(written_chunks(term))
    assert "<mn>1</mn>" not in text  # no (-1)(x), no 1·y
    assert text.startswith("<mo>−</mo><mi>x</mi>") and "<mo>+</mo><mi>y</mi>" in text
    assert "<mn>2</mn><mo>&#x2062;</mo><mrow><mo stretchy=\"false\">(</mo>" in text  # 2(x − y), parenthesised
    assert text.endswith("<mo>=</mo><mi>x</mi>")  # -(-x) is x


def test_long_formulas_wrap_between_summands(c17_page: str) -> None:
    claim = "(= (+ " + " ".join(f"(* x v{k})" for k in range(30)) + ") (+ x y))"
    declared = "".join(f"(declare-const v{k} Real)\n" for k in range(30))
    [formula] = lemma_formulas(declared + _smt(claim))
    assert formula.mathml.count("<math") >= 10  # one inline <math> per summand: the browser breaks between
    assert ".formula{max-width:100%" in c17_page
    obligations = _section(c17_page, "obligations")
    assert "(-1)" not in re.sub(r"<[^>]+>", "", obligations.split("<details>")[0])
