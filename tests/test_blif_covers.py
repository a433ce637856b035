"""Multi-cube BLIF covers (on-set and off-set) and --drop-dead: parsing, simulation, exact
arithmetization (the cover's multilinear polynomial on all of Q), the kernel's own reading
of the netlist link, and bad input."""

from __future__ import annotations

import itertools
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_netlist_link import run

from verified_aat.circuits.aiger import netlist_to_aig, parse_aiger, write_aig
from verified_aat.circuits.arithmetize import import_netlist
from verified_aat.circuits.evaluate import evaluate
from verified_aat.circuits.linear import gate_bound
from verified_aat.circuits.link_section import netlist_section
from verified_aat.circuits.netlists import disjoint_cubes, parse_blif, simulate
from verified_aat.cli.main import main
from verified_aat.errors import InputError

DATA = Path(__file__).resolve().parent / "data"


@st.composite
def covers(draw: st.DrawFn) -> tuple[int, list[str], int]:
    k = draw(st.integers(1, 4))
    rows = draw(st.lists(st.text("01-", min_size=k, max_size=k), min_size=2, max_size=6))
    return k, rows, draw(st.integers(0, 1))


def _truth(k: int, rows: list[str], polarity: int) -> dict[tuple[int, ...], int]:
    def hit(bits: tuple[int, ...]) -> bool:
        return any(all(c == "-" or int(c) == b for c, b in zip(row, bits)) for row in rows)
    return {bits: int(hit(bits)) if polarity else 1 - int(hit(bits)) for bits in itertools.product((0, 1), repeat=k)}


def _mle(table: dict[tuple[int, ...], int], x: list[Fraction]) -> Fraction:
    """The multilinear extension of ``table`` at x: Σ_v f(v) Π (x_i or 1 − x_i)."""
    total = Fraction(0)
    for bits, value in table.items():
        if value:
            term = Fraction(1)
            for b, xi in zip(bits, x):
                term *= xi if b else 1 - xi
            total += term
    return total


def _blif(k: int, rows: list[str], polarity: int) -> str:
    names = " ".join(f"x{i}" for i in range(k))
    body = "".join(f"{row} {polarity}\n" for row in rows)
    return f".model cov\n.inputs {names}\n.outputs y\n.names {names} y\n{body}.end\n"


def _import(tmp_path: Path, text: str, mode: str = "exact", cap: int | None = None):  # type: ignore[no-untyped-def]
    path = tmp_path / "cov.blif"
    path.write_text(text)
    return import_netlist(str(path), mode, cap)


@settings(max_examples=120, deadline=None)
@given(cover=covers(), data=st.data())
def test_cover_matches_truth_table_and_multilinear_extension(tmp_path_factory: pytest.TempPathFactory,
                                                             cover: tuple[int, list[str], int],
                                                             data: st.DataObject) -> None:
    k, rows, polarity = cover
    table = _truth(k, rows, polarity)
    pieces = disjoint_cubes(tuple(rows))
    for a, b in itertools.combinations(pieces, 2):  # pairwise disjoint
        assert any(x != "-" and y != "-" and x != y for x, y in zip(a, b))
    net = parse_blif(_blif(k, rows, polarity), "cov.blif")
    as_aig = parse_aiger(write_aig(netlist_to_aig(net)), "cov.aig")
    for bits, value in table.items():
        assert simulate(net, bits) == (value,) == simulate(as_aig, bits)
    tmp = tmp_path_factory.mktemp("cov")
    exact = _import(tmp, _blif(k, rows, polarity))
    assert exact.size <= gate_bound(net)
    points = data.draw(st.lists(st.lists(st.fractions(-3, 3, max_denominator=4), min_size=k, max_size=k),
                                min_size=1, max_size=3))
    for x in points:  # exact mode: the multilinear extension on all of Q^k
        assert evaluate(exact, x) == (_mle(table, x),)
    threshold = _import(tmp, _blif(k, rows, polarity), "threshold")
    capped = _import(tmp, _blif(k, rows, polarity), "exact", 4)
    for bits, value in table.items():
        assert evaluate(threshold, list(bits)) == (value,)
        assert evaluate(capped, list(bits)) == (value,)
    for circuit in (exact, threshold, capped):  # the kernel reads the cover itself
        problems, theorem, _ = run(circuit, netlist_section(circuit))
        assert not problems and theorem


def test_kernel_rejects_a_cover_row_changed(tmp_path: Path) -> None:
    text = _blif(3, ["1-0", "-11", "00-"], 1)
    circuit = _import(tmp_path, text)
    section = netlist_section(circuit)
    assert section is not None
    import hashlib
    forged = text.replace("-11 1", "-10 1")
    section = dict(section, text=forged, sha256=hashlib.sha256(forged.encode()).hexdigest())
    problems, theorem, _ = run(circuit, section)
    assert problems and not theorem


def test_mixed_on_and_off_set_rows_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "mixed.blif"
    path.write_text(".model m\n.inputs a b\n.outputs y\n.names a b y\n11 1\n00 0\n.end\n")
    assert main(["info", str(path)]) == 2
    assert capsys.readouterr().err.strip() == f"verified-aat: {path}:6: 'y': a cover mixes on-set (output 1) " \
                                              "and off-set (output 0) rows"


def test_epfl_style_multi_cube_file_certified(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "mc.blif"
    path.write_text(".model mc\n.inputs a b c d\n.outputs y z w\n.names a b c y\n1-0 1\n-11 1\n00- 1\n"
                    ".names a b d z\n11- 0\n--1 0\n.names y z d w\n1-1 1\n01- 1\n.end\n")
    cert = tmp_path / "mc.cert.json"
    assert main(["certify", str(path), "-c", "gate-edge", "-o", str(cert)]) == 0
    assert main(["check", str(cert), "--circuit", str(path)]) == 0
    assert "ACCEPTED" in capsys.readouterr().out


def test_drop_dead(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An undefined net feeding only dead logic (as in ISCAS-89 s400): refused, or dropped on request."""
    path = DATA / "dead_logic.bench"
    assert main(["info", str(path)]) == 2
    assert "uses undefined signal 'ghost'" in capsys.readouterr().err
    import verified_aat as va
    circuit = va.load_circuit(str(path), drop_dead=True)
    assert circuit.provenance is not None and circuit.provenance.netlist_gates == 2
    for bits in itertools.product((0, 1), repeat=2):
        assert evaluate(circuit, list(bits)) == (1 - bits[0] * bits[1], 1 - bits[1])
    cert = tmp_path / "dead.cert.json"
    assert main(["certify", str(path), "--drop-dead", "-o", str(cert)]) == 0
    assert main(["check", str(cert), "--circuit", str(path)]) == 0
    section = netlist_section(circuit)
    assert section is not None and section["drop_dead"] is True
    assert not run(circuit, section)[0]
    without = {k: v for k, v in section.items() if k != "drop_dead"}  # the kernel does not drop on its own
    problems, theorem, _ = run(circuit, without)
    assert problems and not theorem and "not defined" in problems[0]
    assert "must be true" in run(circuit, dict(section, drop_dead=False))[0][0]
    # a live undefined signal is still an error
    bad = tmp_path / "live.bench"
    bad.write_text("INPUT(a)\nOUTPUT(y)\ny = AND(a, ghost)\n")
    with pytest.raises(InputError, match="undefined signal 'ghost'"):
        import_netlist(str(bad), drop_dead=True)


def test_large_cover_refused_not_expanded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """x1x2 ∨ x3x4 ∨ … over 18 pairs has ~2^18 disjoint cubes: refused at once, naming the block."""
    m = 18
    rows = ["-" * (2 * i) + "11" + "-" * (2 * (m - i - 1)) for i in range(m)]
    names = " ".join(f"x{i}" for i in range(2 * m))
    path = tmp_path / "big.blif"
    path.write_text(f".model big\n.inputs {names}\n.outputs y\n.names {names} y\n"
                    + "".join(f"{r} 1\n" for r in rows) + ".end\n")
    assert main(["info", str(path)]) == 2
    assert "too large to make disjoint" in capsys.readouterr().err
    small = ["-" * (2 * i) + "11" + "-" * (2 * (6 - i - 1)) for i in range(6)]
    assert len(disjoint_cubes(tuple(small))) == 2 ** 6 - 1  # cube k splits into 2^k pieces
