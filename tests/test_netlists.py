"""Netlist IR, .bench/.blif parsers, simulation and measures."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verified_aat.circuits.netlists import (
    BoolGate, Netlist, decode_netlist_bytes, measure_netlist, parse_bench, parse_blif,
    read_netlist, simulate, simulate_words,
)
from verified_aat.errors import InputError

from netlist_helpers import SHARED, TABLE, needs_shared, netlists

BENCH_TYPES = {  # the table's gate types, most frequent first
    "iscas85/c17.bench": ("NAND",),
    "iscas85/c432.bench": ("NAND", "NOT", "NOR", "XOR", "AND"),
    "iscas85/c499.bench": ("XOR", "AND", "NOT", "OR"),
    "iscas85/c880.bench": ("AND", "NAND", "NOT", "NOR", "OR", "BUFF"),
}
BLIF_CONSTANTS = {"epfl/ctrl.blif": 1, "epfl/dec.blif": 0, "epfl/int2float.blif": 0, "epfl/router.blif": 27}


@needs_shared
def test_every_shared_netlist_is_in_the_table() -> None:
    found = {p.relative_to(SHARED).as_posix() for p in SHARED.rglob("*") if p.suffix in (".bench", ".blif")}
    assert found == set(TABLE)


@needs_shared
@pytest.mark.parametrize("rel", sorted(TABLE))
def test_measures_match_readme_table(rel: str) -> None:
    netlist, fmt = read_netlist(str(SHARED / rel))
    m = measure_netlist(netlist)
    assert (m.n_inputs, m.n_outputs, m.gates, m.max_fan_in, m.depth) == TABLE[rel]
    assert fmt == Path(rel).suffix[1:]
    if fmt == "bench":
        assert m.gate_types == BENCH_TYPES[rel]
    else:  # AIG nodes: 2-input covers, inverters folded into cubes, and constants
        assert all(len(g.args) == 2 or g.op in ("CONST0", "CONST1") for g in netlist.gates)
        assert sum(g.op.startswith("CONST") for g in netlist.gates) == BLIF_CONSTANTS[rel]


@needs_shared
def test_c17_structure_and_truth_table() -> None:
    netlist, _ = read_netlist(str(SHARED / "iscas85/c17.bench"))
    assert netlist.name == "c17"
    assert netlist.inputs == ("1", "2", "3", "6", "7") and netlist.outputs == ("22", "23")
    nand = lambda a, b: 1 - (a & b)  # noqa: E731
    for x1, x2, x3, x6, x7 in itertools.product((0, 1), repeat=5):
        g10, g11 = nand(x1, x3), nand(x3, x6)
        g16, g19 = nand(x2, g11), nand(g11, x7)
        assert simulate(netlist, (x1, x2, x3, x6, x7)) == (nand(g10, g16), nand(g16, g19))


@needs_shared
@pytest.mark.parametrize("rel", ["iscas85/c499.bench", "epfl/int2float.blif"])
def test_bit_parallel_simulation_matches_scalar(rel: str) -> None:
    netlist, _ = read_netlist(str(SHARED / rel))
    rng = random.Random(7)
    vecs = [[rng.randint(0, 1) for _ in netlist.inputs] for _ in range(64)]
    words = [sum(v[i] << k for k, v in enumerate(vecs)) for i in range(len(netlist.inputs))]
    outs = simulate_words(netlist, words, len(vecs))
    for k, v in enumerate(vecs):
        assert tuple((w >> k) & 1 for w in outs) == simulate(netlist, v)


def test_bench_syntax_details() -> None:
    text = "# header\n\ninput(a)\nINPUT( b )  # trailing comment\nOUTPUT(y)\nOUTPUT(a)\n" \
           "y = nand(t, b)\nt = BUF(a)\nz = CONST1()\nOUTPUT(z)\n"
    n = parse_bench(text, "dir/x.bench")
    assert n.name == "x" and n.inputs == ("a", "b") and n.outputs == ("y", "a", "z")
    assert [g.name for g in n.gates] == ["t", "y", "z"]  # sorted topologically
    assert n.gates[0].op == "BUFF" and n.gates[1].op == "NAND"
    assert simulate(n, (1, 1)) == (0, 1, 1) and simulate(n, (0, 1)) == (1, 0, 1)


def test_xor_xnor_are_parity() -> None:
    n = parse_bench("INPUT(a)\nINPUT(b)\nINPUT(c)\nOUTPUT(x)\nOUTPUT(y)\nx = XOR(a, b, c)\ny = XNOR(a, b, c)\n")
    for bits in itertools.product((0, 1), repeat=3):
        assert simulate(n, bits) == (sum(bits) % 2, 1 - sum(bits) % 2)


BLIF = """\
.model demo   # a comment
.inputs a b \\
  c
.outputs y n z k0 k1 k2 a b2 d
.names a b t
11 1
.names t c y
10 1
.names a b n
11 0
.names b c z
-1 1
.names k0
.names k1
1
.names k2
 0
.names b b2
1 1
.names c d
0 1
.end
"""


def test_blif_features() -> None:
    n = parse_blif(BLIF, "demo.blif")
    assert n.name == "demo" and n.inputs == ("a", "b", "c")
    ops = {g.name: (g.op, g.cube, g.polarity) for g in n.gates}
    assert ops["t"][0] == "AND" and ops["n"][0] == "NAND" and ops["y"] == ("CUBE", "10", 1)
    assert ops["z"] == ("CUBE", "-1", 1) and ops["b2"][0] == "BUFF" and ops["d"][0] == "NOT"
    assert [ops[k][0] for k in ("k0", "k1", "k2")] == ["CONST0", "CONST1", "CONST0"]
    for a, b, c in itertools.product((0, 1), repeat=3):
        assert simulate(n, (a, b, c)) == ((a & b) & (1 - c), 1 - (a & b), c, 0, 1, 0, a, b, 1 - c)


def test_blif_named_covers() -> None:
    text = ".model m\n.inputs a b\n.outputs o1 o2 o3 o4\n.names a b o1\n00 1\n.names a b o2\n00 0\n" \
           ".names a b o3\n1 0\n.names a o4\n1 0\n.end\n"
    with pytest.raises(InputError) as err:
        parse_blif(text, "m.blif")
    assert err.value.line == 9  # "1 0" is one character short for two inputs
    n = parse_blif(text.replace(".names a b o3\n1 0\n", ".names a b o3\n01 0\n"), "m.blif")
    assert [g.op for g in n.gates] == ["NOR", "OR", "CUBE", "NOT"]
    for a, b in itertools.product((0, 1), repeat=2):
        assert simulate(n, (a, b)) == (1 - (a | b), a | b, 1 - ((1 - a) & b), 1 - a)


BAD_BENCH = [
    ("INPUT(a)\nOUTPUT(y)\ny = AND(a, q)\n", 3, "undefined signal 'q'"),
    ("INPUT(a)\nOUTPUT(y)\ny = AND(a, z)\nz = OR(y, a)\n", 3, "cycle"),
    ("INPUT(a)\nOUTPUT(y)\ny = NOT(y)\n", 3, "cycle"),
    ("INPUT(a)\nOUTPUT(y)\ny = NOT(a)\ny = BUFF(a)\n", 4, "defined twice"),
    ("INPUT(a)\nINPUT(a)\nOUTPUT(a)\n", 2, "defined twice"),
    ("INPUT(a)\nOUTPUT(a)\na = NOT(a)\n", 3, "defined twice"),
    ("INPUT(a)\nOUTPUT(y)\n\ny = MUX(a, a)\n", 4, "unknown gate type"),
    ("INPUT(a)\nINPUT(b)\nOUTPUT(y)\ny = NOT(a, b)\n", 4, "NOT cannot take 2"),
    ("INPUT(a)\nOUTPUT(y)\ny = BUFF()\n", 3, "BUFF cannot take 0"),
    ("INPUT(a)\nOUTPUT(y)\ny = AND()\n", 3, "AND cannot take 0"),
    ("INPUT(a)\nOUTPUT(y)\ny = CONST1(a)\n", 3, "CONST1 cannot take 1"),
    ("INPUT(a)\nOUTPUT(y)\ny = DFF(a)\n", 3, "sequential"),
    ("INPUT(a)\nOUTPUT(y)\ny = AND(a,, a)\n", 3, "bad argument list"),
    ("INPUT(a)\nOUTPUT(y)\nthis is not a gate\n", 3, "cannot parse"),
    ("INPUT(a)\nOUTPUT(q)\n", 2, "output 'q' is not defined"),
    ("INPUT(a)\n# no outputs\n", None, "no outputs"),
    ("", None, "empty"),
    ("# only a comment\n\n", None, "empty"),
    ("INPUT(a)\nOUTPUT(a)\n\x00\x01junk\n", 3, "binary"),
]


@pytest.mark.parametrize(("text", "line", "needle"), BAD_BENCH)
def test_malformed_bench(text: str, line: int | None, needle: str) -> None:
    with pytest.raises(InputError) as err:
        parse_bench(text, "bad.bench")
    assert err.value.file == "bad.bench" and err.value.line == line
    assert needle in err.value.message
    assert "\n" not in str(err.value)


BAD_BLIF = [
    (".model m\n.inputs a b\n.outputs y\n.names a b y\n11 1\n00 0\n.end\n", 6, "mixes on-set"),
    (".model m\n.inputs a\n.outputs y\n.names a q y\n11 1\n.end\n", 4, "undefined signal 'q'"),
    (".model m\n.inputs a\n.outputs y\n.names a z y\n11 1\n.names y z\n0 1\n", 4, "cycle"),
    (".model m\n.inputs a\n.outputs y\n.latch a y 0\n.end\n", 4, "sequential"),
    (".model m\n.inputs a\n.outputs y\n.subckt f x=a y=y\n.end\n", 4, "unsupported BLIF command"),
    (".model m\n.inputs a\n.outputs a\n11 1\n", 4, "outside a .names"),
    (".model m\n.inputs a b\n.outputs y\n.names a b y\n1x 1\n", 5, "bad cover row"),
    (".model m\n.inputs a b\n.outputs y\n.names a b y\n11 2\n", 5, "bad cover row"),
    (".model m\n.inputs a b\n.outputs y\n.names y\n11 1\n", 5, "bad cover row"),
    (".model m\n.inputs a\n.outputs a\n.end\n.model n\n", 5, "after .end"),
    (".model m\n.model n\n", 2, "only one .model"),
    (".model m\n.inputs a \\\n b \\\n c\n.outputs y\n.names a y\n1 1\n.names b y\n1 1\n", 8, "defined twice"),
    (".model m\n.inputs a\n.outputs y\n.names\n", 4, "at least an output"),
    (".model m\n.inputs a\n.outputs q\n.end\n", 3, "output 'q' is not defined"),
    ("", None, "empty"),
    (".model m\n.inputs a\n.outputs a\n.names a y\n1 1\x00\n", 5, "binary"),
]


@pytest.mark.parametrize(("text", "line", "needle"), BAD_BLIF)
def test_malformed_blif(text: str, line: int | None, needle: str) -> None:
    with pytest.raises(InputError) as err:
        parse_blif(text, "bad.blif")
    assert err.value.file == "bad.blif" and err.value.line == line
    assert needle in err.value.message


def test_decoding_rejects_binary_with_line(tmp_path: Path) -> None:
    assert decode_netlist_bytes(b"INPUT(a)\n", "f") == "INPUT(a)\n"
    for data, line in [(b"INPUT(a)\nOUTPUT(a)\n\xff\xfe\n", 3), (b"INPUT(a)\n\x00", 2), (b"\xc3(", 1)]:
        path = tmp_path / "bad.bench"
        path.write_bytes(data)
        with pytest.raises(InputError) as err:
            read_netlist(str(path))
        assert err.value.line == line and "binary" in err.value.message
    with pytest.raises(InputError):
        read_netlist(str(tmp_path / "missing.bench"))


def test_format_sniffing(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text(".model q\n.inputs a\n.outputs a\n.end\n")
    (tmp_path / "b.txt").write_text("INPUT(a)\nOUTPUT(a)\n")
    assert read_netlist(str(tmp_path / "a.txt"))[1] == "blif"
    assert read_netlist(str(tmp_path / "b.txt"))[1] == "bench"


def test_ir_validates() -> None:
    with pytest.raises(ValueError):
        BoolGate("g", "NOT", ("a", "b"))
    with pytest.raises(ValueError):
        BoolGate("g", "CUBE", ("a",), "10")
    with pytest.raises(ValueError):
        Netlist("n", ("a",), ("g",), (BoolGate("g", "AND", ("a", "h")),))


def write_bench(n: Netlist, order: list[int] | None = None) -> str:
    """A tiny .bench writer (gate lines optionally permuted)."""
    lines = [f"INPUT({i})" for i in n.inputs] + [f"OUTPUT({o})" for o in n.outputs]
    gates = [n.gates[k] for k in order] if order is not None else list(n.gates)
    lines += [f"{g.name} = {g.op}({', '.join(g.args)})" for g in gates]
    return "\n".join(lines) + "\n"


def all_outputs(n: Netlist) -> list[tuple[int, ...]]:
    return [simulate(n, bits) for bits in itertools.product((0, 1), repeat=len(n.inputs))]


@settings(max_examples=150, deadline=None)
@given(netlists(cubes=False), st.randoms(use_true_random=False))
def test_bench_round_trip(n: Netlist, rnd: random.Random) -> None:
    back = parse_bench(write_bench(n), "rand.bench")
    assert back == Netlist("rand", n.inputs, n.outputs, n.gates)
    order = list(range(len(n.gates)))
    rnd.shuffle(order)
    shuffled = parse_bench(write_bench(n, order), "rand.bench")
    m1, m2 = measure_netlist(shuffled), measure_netlist(n)
    assert m1.depth == m2.depth and m1.gates == m2.gates and set(m1.gate_types) == set(m2.gate_types)
    assert all_outputs(shuffled) == all_outputs(n)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_fuzz_random_text(text: str) -> None:
    for parse in (parse_bench, parse_blif):
        try:
            parse(text, "fuzz")
        except InputError:
            pass


TOKENS = ["INPUT(", "OUTPUT(", ")", "(", ",", " = ", "AND", "NOT", "XOR", "a", "b", "y", "\n", " ",
          ".model", ".inputs", ".outputs", ".names", ".end", "1", "0", "-", "11 1", "\\", "#", "\t"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=40).map("".join))
def test_fuzz_token_soup(text: str) -> None:
    for parse in (parse_bench, parse_blif):
        try:
            n = parse(text, "fuzz")
        except InputError:
            continue
        simulate(n, [0] * len(n.inputs))
