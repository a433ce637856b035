"""The circuit text format: parsing, printing, round trips and fuzzing."""

from __future__ import annotations

from fractions import Fraction as F

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from strategies import circuits, same_circuit

from verified_aat.circuits.evaluate import evaluate
from verified_aat.circuits.ir import Circuit, Domain, Gate, Kind, Provenance
from verified_aat.circuits.text_format import (decode_circuit_bytes, parse_circuit_text,
                                               print_circuit, read_circuit_file)
from verified_aat.errors import InputError

FAST = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def parse(text: str, **kw) -> Circuit:
    return parse_circuit_text(text, file="t.circ", **kw)


# -- round trips -----------------------------------------------------------------

@FAST
@given(circuits())
def test_round_trip(c: Circuit) -> None:
    text = print_circuit(c)
    back = parse(text)
    assert same_circuit(c, back), text
    assert print_circuit(back) == text  # printing is a fixed point once names exist


@FAST
@given(circuits(inputs_first=True))
def test_round_trip_implicit_inputs(c: Circuit) -> None:
    names = list(c.input_names)
    assume(len(set(names)) == len(names))
    assume(not {g.name for g in c.gates if g.kind is not Kind.INPUT} & set(names))
    text = print_circuit(c, implicit_inputs=True)
    assert "\ninput " not in text
    back = parse(text, implicit_inputs=names)
    assert back.input_names == tuple(names)
    assert same_circuit(c, back)


def test_round_trip_keeps_arithmetization_and_provenance() -> None:
    prov = Provenance("bench", "/data/c 17.bench", "threshold", 6, 3, 2, ("NAND", "NOT"))
    c = parse("input a\noutput a").__class__(
        (Gate(Kind.INPUT, index=0, name="a"),), (0,), "c17", Domain.BOOLEAN, None, prov)
    back = parse(print_circuit(c))
    assert back.provenance == prov and back.domain is Domain.BOOLEAN


def test_unnamed_and_unwritable_names_get_fresh_ones() -> None:
    gates = (Gate(Kind.INPUT, index=0, name="22"), Gate(Kind.CONST, value=F(-3, 4)),
             Gate(Kind.MUL, (0, 1), name="g1"), Gate(Kind.ADD, (2, 2), name="nan"))
    c = Circuit(gates, (3, 0), "weird name # with hash")
    text = print_circuit(c)
    back = parse(text)
    assert [g.name for g in back.gates] == ["n22", "g1_1", "g1", "n_nan"]
    assert back.name == "weird name _ with hash"
    assert evaluate(back, [2]) == evaluate(c, [2]) == (F(-3), 2)


# -- the grammar -------------------------------------------------------------------

def test_forward_references_keep_definition_order() -> None:
    c = parse("""
        # a comment line
        circuit demo   # trailing comment
        input x y
        z = add x w
        w = mul -1 y 0.5
        s = sign z
        output z s
    """)
    assert [g.name for g in c.gates] == ["x", "y", None, None, "w", "z", "s"]
    assert [g.value for g in c.gates[2:4]] == [F(-1), F(1, 2)]
    assert c.name == "demo" and c.output_names == ("z", "s")
    assert evaluate(c, [1, 4]) == (-1, -1)


def test_in_order_file_keeps_its_order_exactly() -> None:
    text = "input a b\nc = const 7/2\nd = add a c b\ne = mul d d\noutput e d a"
    c = parse(text)
    assert [g.name for g in c.gates] == ["a", "b", "c", "d", "e"]
    assert c.outputs == (4, 3, 0)


def test_literals_are_shared_and_exact() -> None:
    c = parse("input x\na = add x 0.5 1/2 -0.25\nb = mul x 0.5\noutput a b 0.5")
    consts = [g for g in c.gates if g.kind is Kind.CONST]
    assert sorted(g.value for g in consts) == [F(-1, 4), F(1, 2)]
    assert c.output_names == ("a", "b", "0.5")
    assert evaluate(c, [F(1, 3)]) == (F(13, 12), F(1, 6), F(1, 2))


def test_syntax_variants() -> None:
    text = "\ufeffinput x\r\ny=add x x\r\n\tz  =  sign   y\r\noutput y\noutput z sq=y\n"
    c = parse(text)
    assert c.output_names == ("y", "z", "sq")
    assert c.gates[c.outputs[2]].name == "y"
    assert parse("input a[0] b.c _d-e\nf = add a[0] b.c _d-e\noutput f").n_inputs == 3


def test_header_defaults_and_name_fallback() -> None:
    c = parse_circuit_text("input x\noutput x", file="/some/dir/my_circ.circ")
    assert c.name == "my_circ" and c.domain is Domain.RATIONALS and c.provenance is None
    assert parse_circuit_text("input x\noutput x", name="given").name == "given"
    assert parse_circuit_text("circuit hdr\ninput x\noutput x", name="given").name == "hdr"
    c = parse("domain boolean\narithmetization exact\ninput x\noutput x")
    assert c.domain is Domain.BOOLEAN and c.provenance == Provenance(arithmetization="exact")


def test_implicit_inputs() -> None:
    c = parse("s = add i.a j.a\noutput s", implicit_inputs=["i.a", "j.a", "i.b"])
    assert c.input_names == ("i.a", "j.a", "i.b") and c.input_gates == (0, 1, 2)
    with pytest.raises(InputError, match="implicit") as info:
        parse("input q\noutput q", implicit_inputs=["x.val"])
    assert info.value.line == 1
    with pytest.raises(InputError, match="defined twice"):
        parse("x.val = add\noutput x.val", implicit_inputs=["x.val"])


def test_big_constants_beyond_python_digit_limit() -> None:
    big = "9" * 5000 + "/7"
    c = parse(f"c = const {big}\noutput c")
    assert c.gates[0].value == F(10**5000 - 1, 7)
    assert parse(print_circuit(c)).gates[0].value == c.gates[0].value


def test_deep_chain_in_reverse_order() -> None:
    n = 3000
    lines = [f"g{i} = add g{i - 1} x" for i in range(n, 0, -1)] + ["g0 = add x", "input x", f"output g{n}"]
    c = parse("\n".join(lines))
    assert evaluate(c, [1]) == (n + 1,)


def test_cycle_names_its_gates() -> None:
    with pytest.raises(InputError) as info:
        parse("input x\na = add x c\nb = mul a x\nc = sign b\noutput a")
    assert "'a' uses 'c', 'c' uses 'b', 'b' uses 'a'" in info.value.message and info.value.line == 2


def test_read_circuit_file_rejects_binary(tmp_path) -> None:
    path = tmp_path / "bin.circ"
    path.write_bytes(b"input x\noutput x\n\xff\xfe\n")
    with pytest.raises(InputError) as info:
        read_circuit_file(str(path))
    assert info.value.line == 3 and "UTF-8" in info.value.message
    with pytest.raises(InputError) as info:
        decode_circuit_bytes(b"a\nb\nc\x00", "f")
    assert info.value.line == 3 and "NUL" in info.value.message


def test_printer_rejects_circuit_without_outputs() -> None:
    with pytest.raises(ValueError):
        print_circuit(Circuit((Gate(Kind.ADD),), ()))


# -- fuzzing: a Circuit or an InputError, nothing else -------------------------------

TOKENS = st.sampled_from(["input", "output", "circuit", "domain", "arithmetization", "provenance",
                          "const", "add", "mul", "sign", "=", "x", "y", "z", "a[1]", "-3/4", "0.5",
                          "1/0", "1e5", "nan", "#", "\n", " ", "\t", "\r", "rationals", "boolean",
                          "exact", "threshold", "netlist_gates", "7", "=x", "lbl=y", "\x00", "é", "\ufeff"])


def _outcome(text: str) -> None:
    try:
        result = parse(text)
    except InputError as exc:
        assert "\n" not in str(exc)
        return
    assert isinstance(result, Circuit)


@settings(max_examples=300, deadline=None)
@given(st.lists(TOKENS, max_size=40).map("".join))
def test_fuzz_token_soup(text: str) -> None:
    _outcome(text)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["x", "y", "z", "w"]), st.sampled_from(["const", "add", "mul", "sign"]),
                          st.lists(st.sampled_from(["x", "y", "z", "w", "1", "-1/2", "q"]), max_size=3)),
                max_size=6),
       st.lists(st.sampled_from(["x", "y", "z", "w", "2"]), max_size=3))
def test_fuzz_structured(defs, outs) -> None:
    lines = ["input x"] + [f"{n} = {op} {' '.join(args)}" for n, op, args in defs]
    lines.append("output " + " ".join(outs))
    _outcome("\n".join(lines))


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_fuzz_bytes(data: bytes) -> None:
    try:
        text = decode_circuit_bytes(data, "b.circ")
    except InputError:
        return
    _outcome(text)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=120))
def test_fuzz_unicode(text: str) -> None:
    _outcome(text)
