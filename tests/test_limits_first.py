"""Every limit is checked before the work starts (issue 16, items 3, 4b, 5, 6).

Each case asserts the exit code, that stderr is exactly one line naming the option or the file, that
there is no traceback, and, for the caps, that the expensive step never ran (it is monkeypatched to
raise) instead of timing anything.
"""

from __future__ import annotations

import copy
import importlib
import hashlib
import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verified_aat import limits
from verified_aat.circuits import verilog
from verified_aat.circuits.aiger import parse_aiger_bytes
from verified_aat.circuits.families import FAMILIES, build_family
from verified_aat.circuits.io import save_circuit
from verified_aat.cli.audit_cmd import parse_lengths
from verified_aat.cli.main import main
from verified_aat.constructions.registry import CONSTRUCTIONS
from verified_aat.errors import InputError
from verified_aat.kernel import Options, check_certificate
from verified_aat.kernel import data as kernel_data
from verified_aat.kernel.aiger_parse import AigerError, PastLimit
from verified_aat.kernel.aiger_parse import read as kernel_read_aiger
from verified_aat.kernel.netlist_given import MalformedNetlist, read_given

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
TINY = ROOT / "specs" / "circuits" / "square_multi_edge.circ"
MODEL = {
    "format": "verified-aat/transformer", "version": 1, "name": "limits-demo", "coordinates": ["k", "v"],
    "functions": {"same_key": ["m = mul -1 j.k", "d = add i.k m", "s = mul -1 d d", "output s"]},
    "layers": [{"name": "gather", "heads": [{"name": "h", "pooling": "average", "score": "same_key"}],
                "activation": ["w = add x.v h.v", "output x.k w"]}],
}


def one_line(capsys: pytest.CaptureFixture[str], argv: list[str], code: int, *words: str) -> str:
    """Run the CLI; assert the exit code, one stderr line without a traceback, containing every word."""
    assert main(argv) == code
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


def never(*_: Any, **__: Any) -> Any:
    raise AssertionError("work was done before the limit check")


@pytest.fixture()
def model(tmp_path: Path) -> str:
    path = tmp_path / "model.json"
    path.write_text(json.dumps(MODEL))
    return str(path)


@pytest.fixture()
def no_unrolling(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any unrolling (engine or kernel) or audit fails the test."""
    for module, name in (("verified_aat.audit.unroll", "unroll"), ("verified_aat.kernel.unroll", "unroll"),
                         ("verified_aat.audit.prove", "build_certificate"), ("verified_aat.cli.audit_cmd", "audit"),
                         ("verified_aat.cli.audit_cmd", "unroll")):
        monkeypatch.setattr(importlib.import_module(module), name, never)


# -- item 1: audit --prove past the kernel's caps is unknown at once ---------------------------------

@pytest.mark.parametrize("lengths", ["64", "33", "1000", "2,40", "30..40"])
def test_prove_past_the_length_cap_is_unknown_before_unrolling(
        model: str, lengths: str, no_unrolling: None, capsys: pytest.CaptureFixture[str]) -> None:
    line = one_line(capsys, ["audit", model, "--lengths", lengths, "--prove"], 3, "unknown: limit reached",
                    "--lengths", "N <= 32")
    assert "nothing unrolled" in line


def test_prove_past_the_gate_cap_is_unknown_before_unrolling(
        model: str, no_unrolling: None, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import verified_aat.kernel.audit_proof as audit_proof
    monkeypatch.setattr(audit_proof, "MAX_TOTAL_GATES", 100)  # the kernel's own cap, here small
    one_line(capsys, ["audit", model, "--lengths", "3", "--prove"], 3, "unknown: limit reached", "--lengths",
             "100 gates")


def test_prove_audit_api_is_unknown_past_the_caps_without_calling_the_unroller(no_unrolling: None) -> None:
    from verified_aat.audit.prove import UNKNOWN, prove_audit
    from verified_aat.transformer.spec import transformer_from_json
    result = prove_audit(transformer_from_json(MODEL), [33], unroller=never)
    assert result.status == UNKNOWN and "32" in result.reasons[0]


# -- item 1: --samples, --encoded, --output-length are bounded --------------------------------------

@pytest.mark.parametrize("argv, option", [
    (["--lengths", "2", "--samples", "100000000"], "--samples"),
    (["--lengths", "2", "--samples", str(limits.MAX_SAMPLES + 1)], "--samples"),
    (["--lengths", "2", "--samples", "-1"], "--samples"),
    (["--lengths", "2", "--output-circuit", "u.circ", "--output-length", "0"], "--output-length"),
    (["--lengths", "2", "--output-circuit", "u.circ", "--output-length", "10001"], "--output-length"),
    (["--lengths", "2", "--output-circuit", "u.circ", "--n", "99999999"], "--output-length"),
])
def test_counts_past_their_limits_are_bad_input(model: str, argv: list[str], option: str, no_unrolling: None,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    one_line(capsys, ["audit", model, *argv], 2, option)


def test_encoded_past_its_limit_is_bad_input_before_compiling(monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    import verified_aat.cli.audit_cmd as audit_cmd
    monkeypatch.setattr(audit_cmd, "_model", never)
    one_line(capsys, ["audit", "-c", "gate-edge", str(TINY), "--lengths", "2", "--encoded", "5000"], 2,
             "--encoded", "1,000")


def test_samples_at_the_limit_are_accepted() -> None:
    import argparse

    from verified_aat.cli.audit_cmd import check_counts
    check_counts(argparse.Namespace(samples=limits.MAX_SAMPLES, encoded=limits.MAX_ENCODED,
                                    output_length=limits.MAX_AUDIT_LENGTH))


# -- item 1: --lengths syntax ---------------------------------------------------------------------

BAD_LENGTHS = ["2,,3", "2..", "0", "-1", "3..2", "9" * 30, ",", "2,", "..3", "1..20000", "2 3", "1e3", "0x10",
               "+", "", "2...3", "1..5000,1..5001", "10001", "٣"]


@pytest.mark.parametrize("text", BAD_LENGTHS)
def test_malformed_lengths_are_bad_input(model: str, text: str, no_unrolling: None,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    one_line(capsys, ["audit", model, f"--lengths={text}"], 2, "--lengths")


def test_good_lengths() -> None:
    assert parse_lengths("2..4, 8 ,16") == [2, 3, 4, 8, 16]
    assert parse_lengths("010") == [10] and parse_lengths("1..1") == [1]
    assert parse_lengths(str(limits.MAX_AUDIT_LENGTH)) == [limits.MAX_AUDIT_LENGTH]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789.,- +x", max_size=30))
def test_lengths_parser_never_fails_otherwise(text: str) -> None:
    try:
        lengths = parse_lengths(text)
    except InputError as exc:
        assert exc.file == "--lengths" and "\n" not in str(exc)
        return
    assert lengths and len(lengths) <= limits.MAX_AUDIT_LENGTHS
    assert all(type(n) is int and 1 <= n <= limits.MAX_AUDIT_LENGTH for n in lengths)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 10_000), st.integers(0, 20)), min_size=1, max_size=5))
def test_lengths_parser_reads_what_is_written(items: list[tuple[int, int]]) -> None:
    items = [(a, min(a + w, 10_000)) for a, w in items]
    text = ",".join(f"{a}..{b}" if a != b else str(a) for a, b in items)
    written = [n for a, b in items for n in range(a, b + 1)]
    if len(set(written)) < len(written):  # a length written twice (two items overlap) is bad input, never audited twice
        with pytest.raises(InputError, match="is given more than once"):
            parse_lengths(text)
        return
    assert parse_lengths(text) == written


# -- item 1: the round trip refuses a huge circuit before compiling it ------------------------------
# U_N past audit.round_trip.BUILD_GATES is never built (link 2 is the all-N certificate, link 3 follows by
# composition), so what bounds a round trip's memory up front is certifying link 1: certify's per-edge bound.
# The address-space cap itself is not applied in this process (the refusal, not the cap, is under test).

def no_address_space_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importlib.import_module("verified_aat.cli.resources").resource, "setrlimit",
                        lambda *_: None)


def test_round_trip_of_a_huge_family_member_is_refused_before_building_it(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    no_address_space_cap(monkeypatch)
    monkeypatch.setattr(importlib.import_module("verified_aat.circuits.families"), "build_family", never)
    for con in CONSTRUCTIONS.values():
        monkeypatch.setattr(type(con), "compile", never)
    line = one_line(capsys, ["audit", "-c", "gate-edge", "--family", "relu", "--n", "1000000", "--round-trip",
                             "--max-memory", "600"], 3, "unknown: limit reached", "--max-memory",
                    "refused before starting")
    assert "1,000,000 circuit edges" in line


def test_round_trip_of_a_large_circuit_file_is_refused_before_compiling(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "sum.circ"
    save_circuit(build_family("sum", 200_000), str(path))
    no_address_space_cap(monkeypatch)
    monkeypatch.setattr(importlib.import_module("verified_aat.audit.round_trip"), "round_trip", never)
    for con in CONSTRUCTIONS.values():
        monkeypatch.setattr(type(con), "compile", never)
    one_line(capsys, ["audit", "-c", "edge-only", str(path), "--round-trip", "--max-memory", "150"], 3,
             "unknown: limit reached", "--max-memory", "circuit edges")


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_the_lower_bounds_on_n_hold(name: str) -> None:
    """What the early refusals rely on: every construction has a position per edge of C, and a family
    member's every input is read by a gate or is an output, so N >= inputs (and N >= edges for any circuit);
    for n >= 2 it is read by a gate, so edges >= inputs (the round trip's early bound on certify's memory)."""
    family = FAMILIES[name]
    for n in sorted({family.min_n, family.min_n + 1, family.min_n + 3} & set(range(family.max_n + 1))):
        circuit = build_family(name, n)
        read = {a for gate in circuit.gates for a in gate.args}
        assert all(g in read or g in circuit.outputs for g in circuit.input_gates)
        assert circuit.n_inputs == family.n_inputs(n)
        if n >= 2:
            assert all(g in read for g in circuit.input_gates) and circuit.n_edges >= circuit.n_inputs
        for con in CONSTRUCTIONS.values():
            try:
                compiled = con.compile(circuit)
            except InputError:
                continue
            assert compiled.encoding.length >= max(circuit.n_edges, circuit.n_inputs), (name, n, con.name)


# -- item 1: Verilog is bounded before Yosys runs ---------------------------------------------------

def multiplier(width: int, count: int = 1) -> str:
    body = "".join(f"  assign p{k} = a * b;\n" for k in range(count))
    outs = ", ".join(f"output [{2 * width - 1}:0] p{k}" for k in range(count))
    return f"module mul(input [{width - 1}:0] a, input [{width - 1}:0] b, {outs});\n{body}endmodule\n"


@pytest.mark.parametrize("text", [multiplier(1024), multiplier(300, 3)])
def test_a_huge_verilog_multiplier_is_refused_before_yosys(tmp_path: Path, text: str,
                                                           monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "mul.v"
    path.write_text(text)
    monkeypatch.setattr(verilog.subprocess, "run", never)
    monkeypatch.setattr(verilog, "yosys_available", lambda: True)
    one_line(capsys, ["info", str(path)], 2, str(path), "MAX_VERILOG_AND_GATES", "Yosys was not run")


@pytest.mark.parametrize("text, names", [
    ("module one(input a, output y);\n assign y = a;\nendmodule\nmodule two(input a, output y);\n"
     " assign y = ~a;\nendmodule\n", ["one", "two"]),
    ("module a1(input x, output y); assign y = x; endmodule\n/* module hidden(); */\n"
     "module a2(input x, output y); a1 u (.x(x), .y(y)); endmodule\n"
     "module a3(input x, output y); assign y = x; endmodule\n", ["a2", "a3"]),
    ("module one(input a, output y); assign y = a; endmodule\n"
     "module top(input one_x, output y); assign y = one_x; endmodule\n", ["one", "top"]),
])
def test_several_top_modules_are_bad_input(tmp_path: Path, text: str, names: list[str],
                                           monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "two.v"
    path.write_text(text)
    monkeypatch.setattr(verilog.subprocess, "run", never)
    monkeypatch.setattr(verilog, "yosys_available", lambda: True)
    line = one_line(capsys, ["info", str(path)], 2, str(path), "top-level modules", *names)
    assert "hidden" not in line and "a1" not in line.split("(")[1]


@pytest.mark.parametrize("text", [
    "module inv(input a, output y); assign y = ~a; endmodule\n"
    "module top(input a, output y); wire t; inv u0 (.a(a), .y(t)); inv #(.W(1)) u1 (.a(t), .y(y)); endmodule\n",
    multiplier(64), (DATA / "adder4.v").read_text(), (DATA / "c17.v").read_text(),
])
def test_the_precheck_passes_ordinary_verilog(text: str) -> None:
    verilog.precheck(text, "ok.v")


# -- item 2: AIGER numbers and headers ----------------------------------------------------------------

HUGE = "4" * 200_000
BAD_AIGER = [
    (f"aag 3 2 0 1 1\n2\n4\n6\n6 2 {HUGE}\n", 5),
    (f"aag {HUGE} 2 0 1 1\n2\n4\n6\n6 2 4\n", 1),
    (f"aag 3 2 0 1 1\n2\n4\n6\n6 2 4\ni{HUGE} x\n", 6),
    (f"aag 3 2 0 1 1\n2\n{HUGE}\n6\n6 2 4\n", 3),
]


@pytest.mark.parametrize("text, line", BAD_AIGER)
def test_huge_aiger_numbers_are_bad_input(tmp_path: Path, text: str, line: int,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "huge.aag"
    path.write_text(text)
    one_line(capsys, ["info", str(path)], 2, f"{path}:{line}:")
    with pytest.raises((AigerError, PastLimit), match=f"line {line}"):  # PastLimit: not checked, a header's limit
        kernel_read_aiger(text.encode())


@pytest.mark.parametrize("header, words", [
    (b"aig 100000000 100000000 0 1 0\n2\n", ["MAX_AIGER_VARIABLES"]),
    (b"aig 5000000 0 0 1 5000000\n2\n", ["unexpected end of file", "5,000,000 ANDs"]),
])
def test_a_binary_header_is_checked_against_the_file_before_allocating(
        tmp_path: Path, header: bytes, words: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "big.aig"
    path.write_bytes(header)
    assert len(header) <= 33
    one_line(capsys, ["info", str(path)], 2, str(path), *words)
    tracemalloc.start()
    try:
        with pytest.raises(InputError):
            parse_aiger_bytes(header, "big.aig")
        with pytest.raises((AigerError, PastLimit)):
            kernel_read_aiger(header)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2**20


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([b"aag ", b"aig "]),
       st.lists(st.text(alphabet="0123456789", min_size=1, max_size=25), min_size=5, max_size=6),
       st.binary(max_size=60))
def test_aiger_readers_fail_only_as_bad_input(kind: bytes, nums: list[str], body: bytes) -> None:
    data = kind + " ".join(nums).encode() + b"\n" + body
    try:
        parse_aiger_bytes(data, "x.aag")
    except InputError:
        pass
    try:
        kernel_read_aiger(data)
    except (AigerError, PastLimit):
        pass


# -- item 3: a broken netlist given to check --circuit is bad input -----------------------------------

@pytest.fixture(scope="module")
def c17_cert(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cert = tmp_path_factory.mktemp("c17") / "c17.cert.json"
    assert main(["certify", str(DATA / "c17.aag"), "-c", "gate-edge", "-o", str(cert)]) == 0
    return cert


BROKEN_NETLISTS: list[tuple[str, bytes, int | None, str]] = [
    ("cycle.aag", b"aag 3 1 0 1 2\n2\n6\n4 6 2\n6 4 2\n", None, "cycle"),
    ("trunc.aig", (DATA / "ctrl.aig").read_bytes()[:40], 1, "AIGER"),
    ("mixed.blif", b".model m\n.inputs a b\n.outputs y\n.names a b y\n11 1\n00 0\n.end\n", 4, "on-set"),
    ("unknown.bristol", b"1 3\n2 1 1\n1 1\n\n2 1 0 1 2 FOO\n", 5, "FOO"),
    ("syntax.bench", b"INPUT(a)\nOUTPUT(y)\ny = AND(a\n", 3, "AND(a"),
    ("latin.bench", b"INPUT(a)\nOUTPUT(y)\ny = NOT(\xe9)\n", 3, "UTF-8"),
    ("undefined.bench", b"INPUT(a)\nOUTPUT(y)\n\ny = AND(a, q)\n", 4, "'q'"),
    ("digits.aag", f"aag 3 2 0 1 1\n2\n4\n6\n6 2 {HUGE}\n".encode(), 5, "not a number"),
]


@pytest.mark.parametrize("name, data, line, word", BROKEN_NETLISTS)
def test_a_broken_netlist_given_to_check_is_bad_input(tmp_path: Path, c17_cert: Path, name: str, data: bytes,
                                                      line: int | None, word: str,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    where = f"{path}:{line}:" if line is not None else f"{path}:"
    one_line(capsys, ["check", str(c17_cert), "--circuit", str(path)], 2, where, word)
    fmt = {"aag": "aiger", "aig": "aiger"}.get(name.rsplit(".", 1)[1], name.rsplit(".", 1)[1])
    with pytest.raises(MalformedNetlist) as caught:
        read_given(data, fmt)
    assert caught.value.line == line


@pytest.mark.parametrize("command", ["info", "eval", "certify", "check"])
def test_a_binary_aiger_header_of_ten_million_inputs_is_bad_input_at_once(tmp_path: Path, c17_cert: Path,
                                                                         command: str,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """Red team, round 4: a binary AIGER states its inputs in the header alone, so these 28 bytes made ``info``
    build 10⁷ inputs (252 s, 15 GB) and ``check --circuit`` 4 GB of them before the kernel compared the bytes."""
    path = tmp_path / "huge.aig"
    path.write_bytes(b"aig 9999999 9999999 0 1 0\n2\n")
    argv = {"info": ["info", str(path)], "eval": ["eval", str(path), "--input=0"],
            "certify": ["certify", str(path), "-c", "gate-edge", "-o", str(tmp_path / "c.json")],
            "check": ["check", str(c17_cert), "--circuit", str(path)]}[command]
    one_line(capsys, argv, 2, f"{path}:1:", "past the binary AIGER limit of 100,000")


def test_a_well_formed_netlist_that_does_not_match_is_still_rejected(tmp_path: Path, c17_cert: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / "c17b.aag"
    other.write_bytes((DATA / "c17.aag").read_bytes().replace(b"22 19 17", b"22 19 16"))
    assert main(["check", str(c17_cert), "--circuit", str(other)]) == 1
    assert "REJECTED" in capsys.readouterr().out
    assert main(["check", str(c17_cert), "--circuit", str(DATA / "c17.aag")]) == 0


@pytest.mark.parametrize("m", ["100000000", "1" + "0" * 30])
def test_an_embedded_aiger_header_past_the_kernels_limits_is_not_checked(c17_cert: Path, m: str) -> None:
    """A size limit is never a verdict: an AIGER netlist section whose header's M is past the kernel's 10⁷
    variables (or has more than 18 digits), hashed consistently, is *not checked*; it was a rejection."""
    forged = json.loads(c17_cert.read_text())
    head, rest = forged["netlist"]["text"].split("\n", 1)
    forged["netlist"]["text"] = " ".join([head.split()[0], m, *head.split()[2:]]) + "\n" + rest
    forged["netlist"]["sha256"] = hashlib.sha256(forged["netlist"]["text"].encode("latin-1")).hexdigest()
    report = check_certificate(forged, Options())
    assert report.outcome == "not-checked" and not report.rejections, report.rejections
    assert "AIGER: line 1:" in report.unchecked[0]
    truthful = json.loads(c17_cert.read_text())
    truthful["netlist"]["text"] = truthful["netlist"]["text"].replace("\n2\n", "\n4\n", 1)  # another netlist
    truthful["netlist"]["sha256"] = hashlib.sha256(truthful["netlist"]["text"].encode("latin-1")).hexdigest()
    assert check_certificate(truthful, Options()).outcome == "rejected"


# -- item 4: the kernel bounds info.depth_bound ------------------------------------------------------

def test_kernel_keeps_the_depth_bound_limit() -> None:
    assert kernel_data.MAX_K == limits.MAX_K == 10_000


@pytest.mark.parametrize("bound", [10**9, -5, 0, 10_001, "3", True, 2.0])
def test_a_forged_depth_bound_is_rejected_at_its_check(c17_cert: Path, bound: Any, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """Not an integer K ≥ 1: rejected; past the kernel's 10,000: a size limit, *not checked* (exit 3)."""
    doc = json.loads(c17_cert.read_text())
    forged = copy.deepcopy(doc)
    forged["info"]["depth_bound"] = bound
    report = check_certificate(forged, Options())
    path = tmp_path / "forged.cert.json"
    path.write_text(json.dumps(forged))
    if type(bound) is int and bound > 10_000:
        assert report.outcome == "not-checked" and "10000" in report.unchecked[0] and not report.rejections
        assert main(["check", str(path)]) == 3
        return
    assert not report.accepted and [r.check for r in report.rejections] == ["depth-bound"]
    assert "K >= 1" in report.rejections[0].detail
    assert main(["check", str(path)]) == 1
    assert "[depth-bound]" in capsys.readouterr().out


def test_the_stated_depth_bounds_pass_their_check(c17_cert: Path) -> None:
    from verified_aat.kernel.agreement import stated_depth_bound
    from verified_aat.kernel.context import Context
    doc = json.loads(c17_cert.read_text())
    for bound in (1, doc["info"]["depth_bound"], 10_000, None):
        doc["info"]["depth_bound"] = bound
        assert stated_depth_bound(Context(doc, Options())) == []
