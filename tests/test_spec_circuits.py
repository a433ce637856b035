"""The hand-written circuits in specs/circuits: they parse, say what they are,
compute hand-checked values, and match the README table."""

from __future__ import annotations

import re
from fractions import Fraction as F
from pathlib import Path

import pytest

text_format = pytest.importorskip("verified_aat.circuits.text_format")

from verified_aat.circuits.evaluate import evaluate  # noqa: E402
from verified_aat.circuits.ir import Circuit, Domain, Kind  # noqa: E402
from verified_aat.circuits.measures import measure  # noqa: E402

SPEC_DIR = Path(__file__).resolve().parent.parent / "specs" / "circuits"
FILES = sorted(SPEC_DIR.glob("*.circ"))

# Hand-computed facts: file -> [(inputs, outputs)].  Worked out on paper from
# each file's comment and gates (intermediate values in the comments), not
# copied from the evaluator.
EXPECTED: dict[str, list[tuple[tuple, tuple]]] = {
    "abs_via_sign.circ": [((F(-7, 2),), (F(7, 2),)), ((0,), (0,)), ((5,), (5,))],
    # outputs z = add() = 0, zx = 0*x, xz = x + 0
    "add_fanin_0.circ": [((5,), (0, 0, 5)), ((F(-2, 3),), (0, 0, F(-2, 3)))],
    "add_fanin_1.circ": [((F(-3, 4),), (F(-3, 4), F(-3, 4), -1)), ((0,), (0, 0, 0)), ((2,), (2, 2, 1))],
    # (a, b) -> AND, OR, XOR, NOT a: the full truth table
    "boolean_gates.circ": [((0, 0), (0, 0, 0, 1)), ((0, 1), (0, 1, 1, 1)),
                           ((1, 0), (0, 1, 1, 0)), ((1, 1), (1, 1, 0, 0))],
    # (x, y) -> [x > y], sign(x - y); -1/3 > -1/2
    "compare_two.circ": [((3, 2), (1, 1)), ((2, 3), (0, -1)), ((F(5, 2), F(5, 2)), (0, 0)),
                         ((F(-1, 3), F(-1, 2)), (1, 1))],
    "constant_output.circ": [((5,), (F(7, 2), 0)), ((F(-1, 7),), (F(7, 2), 0))],
    # (3+2)(3-2) = 5 = 9 - 4;  (1/2+3/2)(1/2-3/2) = -2 = 1/4 - 9/4
    "difference_of_squares.circ": [((3, 2), (5, 5)), ((F(1, 2), F(3, 2)), (-2, -2)), ((-4, 0), (16, 16))],
    "fac0_unbounded_product.circ": [((1, 2, 3, 4), (24,)), ((F(1, 2), -2, 3, 0), (0,)),
                                    ((-1, -1, -1, F(1, 5)), (F(-1, 5),))],
    # clamp to [0, 1]; x = 1: relu(1) - relu(0) = 1;  x = 5: 5 - 4 = 1
    "fnc0_clamp_unit.circ": [((F(1, 2),), (F(1, 2),)), ((-3,), (0,)), ((5,), (1,)), ((1,), (1,)), ((0,), (0,))],
    # 1*4 + 2*5 + 3*6 = 32;  1/2*2 - 1*3 + 0*7 = -2
    "inner_product_3.circ": [((1, 2, 3, 4, 5, 6), (32,)), ((F(1, 2), -1, 0, 2, 3, 7), (-2,)),
                             ((0, 0, 0, 0, 0, 0), (0,))],
    "majority_5.circ": [((1, 1, 1, 0, 0), (1,)), ((1, 1, 0, 0, 0), (0,)), ((0, 0, 0, 0, 0), (0,)),
                        ((1, 1, 1, 1, 1), (1,)), ((1, 0, 1, 0, 1), (1,)), ((0, 1, 0, 1, 0), (0,))],
    "max_via_sign.circ": [((3, 5), (5,)), ((-2, -7), (-2,)), ((4, 4), (4,)), ((0, -1), (0,)),
                          ((F(-1, 2), F(1, 3)), (F(1, 3),))],
    # (x,y,z)=(1,2,3): a=6 c=1 b=2 d=6 e=8 f=64 g=1 h=64 out=64
    # (-1,1/2,2): a=3/2 c=1 b=-1/2 d=-1 e=-1 f=1 g=-1 h=-1 out=-1
    # (-2,-3,1): a=-4 c=-1 b=6 d=6 e=3 f=9 g=1 h=9 out=-9
    "mixed_depth6.circ": [((1, 2, 3), (64, 8)), ((0, 0, 0), (0, 0)), ((-1, F(1, 2), 2), (-1, -1)),
                          ((-2, -3, 1), (-9, 3))],
    # (x, y) = (-5, 1): s1=-1, t=0 -> (-1, 0, 1);  (0, 3/2) -> (0, 1, 0);  (2/3, -2) -> (1, -1, -1)
    "nested_signs.circ": [((-5, 1), (-1, 0, 1)), ((0, F(3, 2)), (0, 1, 0)), ((F(2, 3), -2), (1, -1, -1))],
    "no_inputs.circ": [((), (F(13, 4),))],
    "output_is_input.circ": [((1, 2), (2, 3, 1)), ((F(-1, 2), 0), (0, F(-1, 2), F(-1, 2)))],
    # (-3/2 + 1/2)^2 = 1 = 9/4 - 3/2 + 1/4;  (2/3 + 1/3)^2 = 1 = 4/9 + 4/9 + 1/9
    "polynomial_identity.circ": [((1, 2), (9, 9)), ((F(-3, 2), F(1, 2)), (1, 1)), ((0, 0), (0, 0)),
                                 ((F(2, 3), F(1, 3)), (1, 1))],
    # x = 4: -3 + 7/2 + 1/4 = 3/4;  x = -2/3: 1/2 + 7/2 + 1/4 = 17/4
    "rational_constants.circ": [((4,), (F(3, 4), F(4, 3), F(7, 2))), ((0,), (F(15, 4), 0, F(7, 2))),
                                ((F(-2, 3),), (F(17, 4), F(-2, 9), F(7, 2)))],
    "relu_via_sign.circ": [((3,), (3,)), ((F(-5, 2),), (0,)), ((0,), (0,)), ((F(1, 7),), (F(1, 7),))],
    "repeated_outputs.circ": [((2, 3), (5, 6, 5, 5, 2)),
                              ((-1, F(1, 2)), (F(-1, 2), F(-1, 2), F(-1, 2), F(-1, 2), -1))],
    "sign_at_zero.circ": [((3, -3), (0, 0, 0, 1)), ((0, 0), (0, 0, 0, 0)), ((F(-1, 2), 1), (0, 1, 0, -1)),
                          ((-2, 1), (0, -1, 0, -1))],
    # 1/2 + 1/3 - 1/6 - 2/3 = 0
    "sign_of_sum.circ": [((1, -1, 2, -2), (0,)), ((F(1, 2), F(1, 3), F(-1, 6), F(-2, 3)), (0,)),
                         ((1, 2, 3, -7), (-1,)), ((0, 0, 0, F(1, 100)), (1,))],
    "square_multi_edge.circ": [((3,), (9, 6, 27)), ((F(-1, 2),), (F(1, 4), -1, F(-1, 8))), ((0,), (0, 0, 0))],
    # 3*x1 + 2*x2 + x3 - 4:  (1,0,1) -> 0 (tie, >= holds);  (0,1,1) -> -1;  (1,1,0) -> 1
    "threshold_weighted.circ": [((1, 0, 1), (1,)), ((0, 1, 1), (0,)), ((1, 1, 0), (1,)), ((0, 0, 0), (0,)),
                                ((1, 0, 0), (0,)), ((1, 1, 1), (1,))],
}

# Properties the brief asks of particular files.
REQUIRED: dict[str, dict[str, object]] = {
    "mixed_depth6.circ": {"depth": 6, "kinds": {Kind.ADD, Kind.MUL, Kind.SIGN}},
    "fac0_unbounded_product.circ": {"class": "FAC0"},
    "fnc0_clamp_unit.circ": {"class": "FNC0[sign]"},
    "inner_product_3.circ": {"n_inputs": 6},
    "majority_5.circ": {"n_inputs": 5, "domain": Domain.BOOLEAN},
    "threshold_weighted.circ": {"domain": Domain.BOOLEAN},
    "no_inputs.circ": {"n_inputs": 0},
}


def load(path: Path) -> Circuit:
    return text_format.parse_circuit_text(path.read_text(encoding="utf-8"), file=str(path))


def test_there_are_enough_files_and_every_file_has_facts() -> None:
    names = {p.name for p in FILES}
    assert len(names) >= 18
    assert names == set(EXPECTED), "every spec circuit needs hand-checked facts (and vice versa)"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_file_opens_with_a_comment_block(path: Path) -> None:
    lines = [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    header = []
    for line in lines:
        if not line.startswith("#"):
            break
        header.append(line)
    assert len(header) >= 2, f"{path.name} must open with a comment block saying what it computes"
    assert any("input" in line.lower() for line in header), f"{path.name}: say what the inputs mean"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_file_computes_hand_checked_values(path: Path) -> None:
    circuit = load(path)
    for inputs, outputs in EXPECTED[path.name]:
        assert circuit.n_inputs == len(inputs)
        assert evaluate(circuit, inputs) == tuple(outputs), (path.name, inputs)


@pytest.mark.parametrize("name", sorted(REQUIRED))
def test_required_properties(name: str) -> None:
    circuit = load(SPEC_DIR / name)
    m = measure(circuit)
    want = REQUIRED[name]
    if "depth" in want:
        assert m.depth == want["depth"]
    if "class" in want:
        assert m.class_name == want["class"]
    if "kinds" in want:
        assert want["kinds"] <= {g.kind for g in circuit.gates}  # type: ignore[operator]
    if "n_inputs" in want:
        assert circuit.n_inputs == want["n_inputs"]
    if "domain" in want:
        assert circuit.domain is want["domain"]


def _readme_rows() -> dict[str, list[str]]:
    rows: dict[str, list[str]] = {}
    for line in (SPEC_DIR / "README.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        if cells and re.fullmatch(r"`[^`]+\.circ`", cells[0]):
            rows[cells[0].strip("`")] = cells
    return rows


def test_readme_lists_every_file_once() -> None:
    assert set(_readme_rows()) == {p.name for p in FILES}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_readme_row_matches_the_file(path: Path) -> None:
    _, _, cls, depth, size, edges, io = _readme_rows()[path.name]
    m = measure(load(path))
    assert (cls, int(depth), int(size), int(edges)) == (m.class_name, m.depth, m.size, m.edges), \
        f"specs/circuits/README.md row for {path.name} is stale"
    assert io == f"{m.n_inputs} → {m.n_outputs}"
