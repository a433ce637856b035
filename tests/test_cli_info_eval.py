"""`info` and `eval` on the command line, loading/saving, and exact evaluation."""

from __future__ import annotations

import json
import os
from fractions import Fraction as F

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import circuits, input_vectors, same_circuit

from verified_aat.circuits.evaluate import compile_circuit, evaluate
from verified_aat.circuits.io import load_circuit, parse_input_vector, save_circuit
from verified_aat.circuits.ir import Circuit, Gate, Kind
from verified_aat.cli.main import main
from verified_aat.errors import InputError

DEMO = """circuit demo
input x y
z = add x w          # forward reference
w = mul -1 y 0.5
s = sign z
e = add
output z s e 3/4 sq=x
"""

NETLIST = """circuit c17
domain boolean
arithmetization threshold
provenance source_format bench
provenance netlist_gates 6
provenance netlist_depth 3
provenance netlist_max_fan_in 2
provenance netlist_gate_types NAND
input a b
n = mul a b
y = add 1 n -2
output y
"""


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def demo(tmp_path):
    path = tmp_path / "demo.circ"
    path.write_text(DEMO)
    return str(path)


def test_info_text(capsys, demo) -> None:
    code, out, err = run(capsys, "info", demo)
    assert code == 0 and err == ""
    fields = {line[:16].strip(): line[16:] for line in out.splitlines()}
    assert fields["circuit"] == "demo"
    assert "all of Q^n" in fields["domain"]
    assert fields["inputs"] == "2: x y" and fields["outputs"] == "5: z s e 3/4 sq"
    assert fields["size"] == "9 gates" and fields["edges"] == "6" and fields["depth"] == "3"
    assert fields["max fan-in"] == "add 2, mul 3, sign 1"
    assert fields["class"] == "FAC0[sign]"
    assert "netlist" not in out


def test_info_json_and_netlist_section(capsys, tmp_path) -> None:
    path = tmp_path / "c17.circ"
    path.write_text(NETLIST)
    code, out, _ = run(capsys, "info", str(path), "--json")
    data = json.loads(out)
    assert code == 0 and data["arithmetization"] == "threshold" and data["domain"] == "boolean"
    assert "{0,1}^n only" in data["domain_note"]
    assert data["netlist"] == {"source_format": "bench", "source_path": None, "gates": 6, "depth": 3,
                               "max_fan_in": 2, "gate_types": ["NAND"]}
    assert data["class"] == "FSAC0" and data["max_fan_in"] == {"add": 3, "mul": 2}
    code, out, _ = run(capsys, "info", str(path))
    assert "netlist (bench)" in out and "gate types    NAND" in out


def test_info_from_json_file(capsys, tmp_path, demo) -> None:
    target = tmp_path / "demo.json"
    save_circuit(load_circuit(demo), str(target))
    code, out, _ = run(capsys, "info", str(target), "--json")
    assert code == 0 and json.loads(out)["size"] == 9


def test_eval(capsys, demo) -> None:
    code, out, err = run(capsys, "eval", demo, "--input", "1,7/3")
    assert code == 0 and err == ""
    assert out.splitlines() == ["z = -1/6", "s = -1", "e = 0", "3/4 = 3/4", "sq = 1"]
    code, out, _ = run(capsys, "eval", demo, "--input=-1 0.5", "--json")
    assert json.loads(out) == {"circuit": "demo", "inputs": ["-1", "1/2"], "outputs": [
        {"name": "z", "value": "-5/4"}, {"name": "s", "value": "-1"}, {"name": "e", "value": "0"},
        {"name": "3/4", "value": "3/4"}, {"name": "sq", "value": "-1"}]}


def test_eval_inputs_from_file(capsys, tmp_path, demo) -> None:
    values = tmp_path / "x.txt"
    values.write_text("# inputs\n2\n-3/4  # y\n")
    code, out, _ = run(capsys, "eval", demo, "--input", f"@{values}")
    assert code == 0 and out.splitlines()[0] == "z = 19/8"


def test_eval_threshold_outside_boolean_inputs_is_bad_input(capsys, tmp_path) -> None:
    path = tmp_path / "c17.circ"
    path.write_text(NETLIST)
    code, out, err = run(capsys, "eval", str(path), "--input", "1 1")
    assert code == 0 and out == "y = 0\n" and err == ""
    code, out, err = run(capsys, "eval", str(path), "--input", "2 1")
    assert code == 2 and out == "" and err.startswith("verified-aat: --input: input 1 is 2, not 0 or 1")


def test_eval_boolean_domain_warns(capsys, tmp_path) -> None:
    path = tmp_path / "b.circ"
    path.write_text("domain boolean\ninput a b\nn = mul a b\noutput n\n")
    code, out, err = run(capsys, "eval", str(path), "--input", "2 1")
    assert code == 0 and "warning" in err and "{0,1}" in err


HAND_CHECKED = [
    ("input x\ns = sign x\noutput s", [0], ["s = 0"]),
    ("input x\ns = sign x\noutput s", [F(-1, 9)], ["s = -1"]),
    ("z = add\noutput z", [], ["z = 0"]),
    ("input x\nsq = mul x x\noutput sq", [F(-3, 4)], ["sq = 9/16"]),
    ("input x\ny = add x 0.1 -2/3\nc = const -7/2\noutput y c x", [F(1, 2)], ["y = -1/15", "c = -7/2", "x = 1/2"]),
    ("input a b\np = mul a b a\nt = add p p p\noutput t t", [2, F(1, 2)], ["t = 6", "t = 6"]),
]


@pytest.mark.parametrize("text, inputs, expected", HAND_CHECKED)
def test_eval_hand_checked(capsys, tmp_path, text, inputs, expected) -> None:
    path = tmp_path / "h.circ"
    path.write_text(text)
    args = ["eval", str(path)] + ([f"--input={','.join(str(v) for v in inputs)}"] if inputs else [])
    code, out, _ = run(capsys, *args)
    assert code == 0 and out.splitlines() == expected


def test_family(capsys) -> None:
    pytest.importorskip("verified_aat.circuits.families")
    code, out, _ = run(capsys, "info", "--family", "inner-product", "--n", "3", "--json")
    assert code == 0 and json.loads(out)["class"] in ("FNC0", "FSAC0")


@pytest.mark.parametrize("argv, word", [
    (["info"], "no circuit"),
    (["info", "x.circ", "--family", "sum", "--n", "2"], "not both"),
    (["info", "--family", "sum"], "--n"),
    (["info", "--n", "3"], "--family"),
])
def test_circuit_choice_errors(capsys, argv, word) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and word in err and err.count("\n") == 1


# -- io --------------------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(circuits(), st.sampled_from([".circ", ".json", ".txt"]))
def test_save_load_round_trip(tmp_path_factory, c: Circuit, ext: str) -> None:
    path = str(tmp_path_factory.mktemp("io") / f"c{ext}")
    save_circuit(c, path)
    assert same_circuit(c, load_circuit(path))
    assert os.listdir(os.path.dirname(path)) == [os.path.basename(path)]


def test_failed_save_leaves_nothing(tmp_path) -> None:
    no_outputs = Circuit((Gate(Kind.ADD),), ())
    with pytest.raises(ValueError):
        save_circuit(no_outputs, str(tmp_path / "c.circ"))
    with pytest.raises(InputError, match="cannot write"):
        save_circuit(no_outputs, str(tmp_path / "c.bench"))
    assert os.listdir(tmp_path) == []


def test_parse_input_vector() -> None:
    assert parse_input_vector("1,-3/4, 2", 3) == [1, F(-3, 4), 2]
    assert parse_input_vector(" 1\t0.25\n2 ", 3) == [1, F(1, 4), 2]
    assert parse_input_vector("", 0) == []
    with pytest.raises(InputError, match="expected 3 inputs, got 2"):
        parse_input_vector("1,2", 3, file="--input")
    with pytest.raises(InputError, match="not a rational"):
        parse_input_vector("1,1e3", 2)
    with pytest.raises(InputError, match="not a rational"):
        parse_input_vector("1,nan", 2)


# -- evaluation against independent evaluators -----------------------------------

def reference_evaluate(c: Circuit, xs: list[F]) -> tuple[F, ...]:
    """A deliberately naive recursive evaluator, written from MATH.md §2."""
    memo: dict[int, F] = {}

    def value(i: int) -> F:
        if i not in memo:
            g = c.gates[i]
            if g.kind is Kind.INPUT:
                memo[i] = F(xs[g.index])
            elif g.kind is Kind.CONST:
                memo[i] = F(g.value)
            elif g.kind is Kind.ADD:
                memo[i] = sum((value(a) for a in g.args), F(0))
            elif g.kind is Kind.MUL:
                product = F(1)
                for a in g.args:
                    product *= value(a)
                memo[i] = product
            else:
                v = value(g.args[0])
                memo[i] = F(1) if v > 0 else F(-1) if v < 0 else F(0)
        return memo[i]

    return tuple(value(o) for o in c.outputs)


@settings(max_examples=100, deadline=None)
@given(st.data(), circuits(max_gates=25))
def test_evaluate_agrees_with_compiled_and_reference(data, c: Circuit) -> None:
    xs = data.draw(input_vectors(c.n_inputs))
    expected = reference_evaluate(c, xs)
    assert evaluate(c, xs) == expected
    assert tuple(compile_circuit(c)(*xs)) == expected
    assert all(type(v) is int or v.denominator != 1 for v in evaluate(c, xs))
