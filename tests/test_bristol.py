"""Bristol Fashion import: the shared circuits compute their known functions, hand-written
circuits (MAND, EQ, EQW, INV) theirs, random circuits agree with an independent evaluator
and with the kernel's own parser, bad files are one InputError naming file and line, and
the format is chosen by extension, by content (.txt) or by --format."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from netlist_helpers import FULL_ADDER, GREATER, SHARED
from verified_aat.circuits.arithmetize import arithmetize
from verified_aat.circuits.bristol import looks_like_bristol, parse_bristol
from verified_aat.circuits.evaluate import compile_circuit
from verified_aat.circuits.io import file_format, load_circuit
from verified_aat.circuits.linear import gate_bound
from verified_aat.circuits.netlists import Netlist, measure_netlist, read_netlist, simulate
from verified_aat.cli.main import main
from verified_aat.errors import InputError
from verified_aat.kernel.netlist_parse import NetlistError, parse as kernel_parse

BRISTOL = SHARED / "bristol"
needs_bristol = pytest.mark.skipif(not BRISTOL.is_dir(), reason=f"Bristol circuits not found at {BRISTOL}")
HEADER_GATES = {"adder64": 376, "neg64": 190, "zero_equal": 127, "FP-add": 15637, "FP-mul": 44899}


def bits(x: int, n: int) -> list[int]:
    return [(x >> i) & 1 for i in range(n)]


def number(bs: list[int] | tuple[int, ...]) -> int:
    return sum(int(b) << i for i, b in enumerate(bs))


def outputs_of(c_fn, xs: list[int]) -> list[int]:  # noqa: ANN001
    out = c_fn(*xs)
    assert all(v in (0, 1) for v in out)
    return [int(v) for v in out]


# -- the shared files --------------------------------------------------------------------------

@needs_bristol
@pytest.mark.parametrize("mode", ["exact", "threshold"])
def test_adder64_adds_modulo_2_to_the_64(mode: str) -> None:
    c = load_circuit(str(BRISTOL / "adder64.txt"), mode)
    assert c.input_names[:2] == ("in0_b0", "in0_b1") and c.input_names[64] == "in1_b0"
    assert c.output_names[0] == "out0_b0" and len(c.output_names) == 64
    f = compile_circuit(c)
    rng = random.Random(64)
    cases = [(0, 0), (2 ** 64 - 1, 1), (2 ** 63, 2 ** 63), (2 ** 64 - 1, 2 ** 64 - 1)]
    for a, b in cases + [(rng.getrandbits(64), rng.getrandbits(64)) for _ in range(40)]:
        assert number(outputs_of(f, bits(a, 64) + bits(b, 64))) == (a + b) % 2 ** 64


@needs_bristol
def test_neg64_is_twos_complement_and_zero_equal_tests_zero() -> None:
    neg = compile_circuit(load_circuit(str(BRISTOL / "neg64.txt")))
    zero = compile_circuit(load_circuit(str(BRISTOL / "zero_equal.txt"), "threshold"))
    rng = random.Random(7)
    values = [0, 1, 2 ** 63, 2 ** 64 - 1] + [1 << k for k in range(0, 64, 9)] + [rng.getrandbits(64) for _ in range(30)]
    for a in values:
        assert number(outputs_of(neg, bits(a, 64))) == (-a) % 2 ** 64
        assert outputs_of(zero, bits(a, 64)) == [int(a == 0)]


@needs_bristol
@pytest.mark.parametrize("name", sorted(HEADER_GATES))
def test_shared_files_parse_with_their_header_counts(name: str) -> None:
    net, fmt = read_netlist(str(BRISTOL / f"{name}.txt"))
    assert fmt == "bristol" and net.name == name
    m = measure_netlist(net)
    assert m.gates == HEADER_GATES[name] and m.max_fan_in <= 2
    assert set(m.gate_types) <= {"XOR", "AND", "NOT", "BUFF"}
    assert (m.n_inputs, m.n_outputs) == ((64, 64) if name == "neg64" else (64, 1) if name == "zero_equal" else (128, 64))


# -- hand-written circuits -----------------------------------------------------------------

def test_hand_written_full_adder_uses_mand_pairs() -> None:
    net = parse_bristol(FULL_ADDER, "fa.txt")
    assert net.inputs == ("in0_b0", "in1_b0", "in2_b0") and net.outputs == ("out0_b0", "out1_b0")
    ands = {g.name: g.args for g in net.gates if g.op == "AND"}
    assert ands == {"w4": ("in0_b0", "in1_b0"), "w5": ("w3", "in2_b0")}
    for mode in ("exact", "threshold"):
        f = compile_circuit(arithmetize(net, mode))
        for a, b, c in itertools.product((0, 1), repeat=3):
            assert outputs_of(f, [a, b, c]) == [a ^ b ^ c, int(a + b + c >= 2)]


def test_hand_written_comparator_uses_inv_eq_eqw() -> None:
    net = parse_bristol(GREATER, "gt.txt")
    assert {g.op for g in net.gates} == {"NOT", "AND", "XOR", "CONST1", "BUFF"}
    f = compile_circuit(arithmetize(net, "exact"))
    for a, b in itertools.product(range(4), repeat=2):
        assert simulate(net, bits(a, 2) + bits(b, 2)) == (int(a > b),)
        assert outputs_of(f, bits(a, 2) + bits(b, 2)) == [int(a > b)]


def test_bitwise_and_with_one_mand_and_constants() -> None:
    text = "3 11\n2 3 3\n1 4\n6 3 0 1 2 3 4 5 7 8 9 MAND\n1 1 0 6 EQ\n1 1 6 10 EQW\n"
    net = parse_bristol(text, "and3.txt")
    for a, b in itertools.product(range(8), repeat=2):
        assert number(simulate(net, bits(a, 3) + bits(b, 3))) == a & b


# -- random circuits: an independent evaluator and the kernel's parser agree ---------------------

def evaluate_bristol(text: str, values: list[int]) -> list[int]:
    """Evaluate a Bristol Fashion text directly on its wire array (flat input bits in)."""
    rows = [line.split() for line in text.split("\n") if line.strip()]
    n_wires = int(rows[0][1])
    n_out = sum(int(w) for w in rows[2][1:])
    wire: list[int | None] = [None] * n_wires
    wire[:len(values)] = values
    for row in rows[3:]:
        k_in, k_out, kind = int(row[0]), int(row[1]), row[-1]
        nums = [int(t) for t in row[2:-1]]
        src, dst = nums[:k_in], nums[k_in:]
        if kind == "MAND":
            for i in range(k_out):
                wire[dst[i]] = wire[src[i]] & wire[src[k_out + i]]  # type: ignore[operator]
        else:
            a = wire[src[0]] if kind != "EQ" else src[0]
            wire[dst[0]] = {"XOR": lambda: a ^ wire[src[1]], "AND": lambda: a & wire[src[1]],  # type: ignore
                            "INV": lambda: 1 - a, "EQW": lambda: a, "EQ": lambda: a}[kind]()  # type: ignore
    return [int(v) for v in wire[n_wires - n_out:]]  # type: ignore[arg-type]


@st.composite
def bristol_texts(draw: st.DrawFn) -> str:
    in_widths = draw(st.lists(st.integers(1, 3), max_size=3))
    out_widths = draw(st.lists(st.integers(1, 3), min_size=1, max_size=2))
    n_in, n_out = sum(in_widths), sum(out_widths)
    total = n_in + draw(st.integers(0, 8)) + n_out  # wires; the gates assign n_in … total − 1 in order
    lines, w = [], n_in
    while w < total:
        kinds = ["EQ"] + (["XOR", "AND", "INV", "EQW", "MAND"] if w else [])
        kind = draw(st.sampled_from(kinds))
        pick = st.integers(0, w - 1) if w else st.just(0)
        if kind == "MAND":
            n = draw(st.integers(1, min(3, total - w)))
            srcs = [draw(pick) for _ in range(2 * n)]
            lines.append(" ".join(map(str, [2 * n, n, *srcs, *range(w, w + n)])) + " MAND")
            w += n
            continue
        k_in = 2 if kind in ("XOR", "AND") else 1
        srcs = [draw(st.integers(0, 1)) if kind == "EQ" else draw(pick) for _ in range(k_in)]
        lines.append(" ".join(map(str, [k_in, 1, *srcs, w])) + f" {kind}")
        w += 1
    head = [f"{len(lines)} {total}", " ".join(map(str, [len(in_widths), *in_widths])),
            " ".join(map(str, [len(out_widths), *out_widths])), ""]
    return "\n".join(head + lines) + "\n"


def kernel_view(net: Netlist) -> tuple[tuple[str, ...], tuple[str, ...], set[tuple[str, str, tuple[str, ...]]]]:
    return net.inputs, net.outputs, {(g.name, g.op, g.args) for g in net.gates}


@settings(max_examples=200, deadline=None)
@given(bristol_texts(), st.randoms(use_true_random=False))
def test_random_circuits_agree_with_a_direct_evaluator_and_the_kernel(text: str, rnd: random.Random) -> None:
    net = parse_bristol(text, "r.txt")
    assert kernel_view(kernel_parse(text, "bristol")) == kernel_view(net)
    assert looks_like_bristol(text)
    f = compile_circuit(arithmetize(net, "exact"))
    for _ in range(8):
        xs = [rnd.randint(0, 1) for _ in net.inputs]
        want = evaluate_bristol(text, xs)
        assert list(simulate(net, xs)) == want and outputs_of(f, xs) == want


TOKENS = ["0", "1", "2", "3", "7", "12", " ", "\n", "XOR", "AND", "INV", "EQ", "EQW", "MAND", "NOT", "x", "-1", "\t"]


@settings(max_examples=300, deadline=None)
@given(bristol_texts(), st.lists(st.tuples(st.integers(0, 400), st.sampled_from(TOKENS), st.booleans()), max_size=3))
def test_edited_files_are_an_input_error_or_read_alike_by_the_kernel(text: str, edits: list) -> None:
    for at, token, insert in edits:  # insert or overwrite a token somewhere
        at %= len(text) + 1
        text = text[:at] + token + text[at + (0 if insert else len(token)):]
    try:
        net = parse_bristol(text, "e.txt")
    except InputError as exc:
        assert exc.file == "e.txt" and (exc.line is None or exc.line >= 1)
        return
    assert kernel_view(kernel_parse(text, "bristol")) == kernel_view(net)  # what we import, the kernel reads


# -- errors -------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, line, needle", [
    ("", None, "three header lines"),
    ("1 3\n1 1\n", 2, "three header lines"),
    ("1 3 4\n1 1\n1 1\n1 1 0 2 INV\n", 1, "gates wires"),
    ("1 x\n1 1\n1 1\n1 1 0 2 INV\n", 1, "whole numbers"),
    ("1 3\n2 1\n1 1\n1 1 0 2 INV\n", 2, "2 input values but gives 1"),
    ("1 3\n1 0\n1 1\n1 1 0 2 INV\n", 2, "bit width 0"),
    ("1 3\n1 1\n0\n1 1 0 2 INV\n", 3, "no outputs"),
    ("1 2\n1 2\n1 1\n1 1 0 2 INV\n", 1, "do not fit"),
    ("1 3\n1 1\n1 1\n1 1 0 2 OR\n", 4, "unknown gate type 'OR'"),
    ("1 3\n1 1\n1 1\n2 1 0 0 2 INV\n", 4, "INV takes 1 input"),
    ("1 3\n1 1\n1 1\n2 1 0 2 INV\n", 4, "k_in + k_out wires"),
    ("1 3\n1 1\n1 1\n1 1 0 2 3 INV\n", 4, "a type"),
    ("1 3\n1 1\n1 1\n1 1 0 9 INV\n", 4, "out of range"),
    ("1 3\n1 1\n1 1\n1 1 2 0 INV\n", 4, "assigns input wire 0"),
    ("2 3\n1 1\n1 1\n1 1 0 2 INV\n1 1 0 2 INV\n", 5, "assigned twice (first on line 4)"),
    ("2 4\n1 1\n1 1\n1 1 2 3 INV\n1 1 0 2 INV\n", 4, "used before it is assigned"),
    ("1 3\n1 1\n1 1\n1 1 2 2 EQ\n", 4, "constant 0 or 1"),
    ("1 5\n1 1\n1 1\n3 2 0 0 0 3 4 MAND\n", 4, "MAND takes 2n"),
    ("2 3\n1 1\n1 1\n1 1 0 2 INV\n", 1, "says 2 gates, the file has 1"),
    ("1 4\n1 1\n1 2\n1 1 0 3 INV\n", 3, "output wire 2 (out0_b0) is never assigned"),
    ("1 3\n1 1\n1 1\n1 1 0 2 INV\x00\n", 4, "binary data"),
])
def test_malformed_bristol(text: str, line: int | None, needle: str) -> None:
    with pytest.raises(InputError) as err:
        parse_bristol(text, "bad.txt")
    assert err.value.file == "bad.txt" and err.value.line == line and needle in err.value.message, err.value


def test_the_cli_reports_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.bristol"
    bad.write_text("1 3\n1 1\n1 1\n1 1 0 2 NAND\n")
    for argv in (["info", str(bad)], ["certify", str(bad), "-c", "gate-edge"], ["eval", str(bad), "--input=1"]):
        assert main(argv) == 2
        out, err = capsys.readouterr()
        assert out == "" and err == f"verified-aat: {bad}:4: unknown gate type 'NAND' (expected XOR, AND, INV, EQ, EQW or MAND)\n"


# -- choosing the format --------------------------------------------------------------------------

def test_format_by_extension_content_and_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("fa.txt", "fa.bristol", "fa.dat"):
        (tmp_path / name).write_text(FULL_ADDER)
    circ = tmp_path / "c.txt"
    circ.write_text("input x\noutput x\n")
    assert file_format(str(tmp_path / "fa.txt")) == "bristol" and file_format(str(circ)) == "text"
    assert file_format(str(tmp_path / "fa.bristol")) == "bristol"
    assert file_format(str(tmp_path / "fa.dat"), "bristol") == "bristol"
    with pytest.raises(InputError, match="unknown circuit file type"):
        file_format(str(tmp_path / "fa.dat"))
    want = "out0_b0 = 0\nout1_b0 = 1\n"
    for argv in (["eval", str(tmp_path / "fa.txt")], ["eval", str(tmp_path / "fa.bristol")],
                 ["eval", str(tmp_path / "fa.dat"), "--format", "bristol"]):
        assert main(argv + ["--input=1,1,0"]) == 0
        assert capsys.readouterr().out == want
    assert main(["eval", str(tmp_path / "fa.txt"), "--format", "text", "--input=1,1,0"]) == 2
    assert "fa.txt:1:" in capsys.readouterr().err  # read as the circuit text format, as asked
    assert main(["info", str(tmp_path / "fa.txt"), "--json"]) == 0
    assert '"source_format": "bristol"' in capsys.readouterr().out.replace("\n ", "")


def test_certify_then_check_a_bristol_file_down_to_the_netlist(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, cert = tmp_path / "fa.txt", tmp_path / "fa.cert.json"
    path.write_text(FULL_ADDER)
    assert main(["certify", str(path), "-c", "gate-edge", "-o", str(cert)]) == 0
    capsys.readouterr()
    assert main(["check", str(cert), "--circuit", str(path)]) == 0
    assert "netlist 'fa.txt'" in capsys.readouterr().out
    other = tmp_path / "other.dat"
    other.write_text(FULL_ADDER.replace("2 1 4 5 8 XOR", "2 1 4 5 8 AND"))
    assert main(["check", str(cert), "--circuit", str(other), "--format", "bristol"]) == 1
    assert "is not the certificate's embedded netlist" in capsys.readouterr().out


def test_linear_size_on_every_hand_written_circuit() -> None:
    for text in (FULL_ADDER, GREATER):
        net = parse_bristol(text, "h.txt")
        for mode in ("exact", "threshold"):
            assert arithmetize(net, mode).size <= gate_bound(net)


def test_kernel_refuses_what_it_does_not_know() -> None:
    for text in ("1 3\n1 1\n1 1\n1 1 2 0 INV\n", "2 3\n1 1\n1 1\n1 1 0 2 INV\n", "1 3\n1 1\n1 1\n1 1 0 2 OR\n",
                 "1 3\n1 1\n1 1\n1 1 0 ² INV\n", "1 3\n1 99999\n1 1\n1 1 0 2 INV\n"):
        with pytest.raises(NetlistError):
            kernel_parse(text, "bristol")
