"""Issue 12: hostile input gives one line and exit code 2, never a traceback or exit 1."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from verified_aat.cli.main import main
from verified_aat.limits import MAX_CERTIFIED_DIGITS, MAX_DIGITS, MAX_JSON_DEPTH

ROOT = Path(__file__).resolve().parents[1]
MIXED = ROOT / "specs" / "circuits" / "mixed_depth6.circ"
HUGE = "7" * 100_000
DEEP = "[" * 100_000 + "]" * 100_000


def one_line_error(capsys, argv: list[str], *words: str) -> str:
    """Run the CLI; assert exit 2 and exactly one stderr line containing every word."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert code == 2, (code, err)
    assert len(lines) == 1, err
    assert "Traceback" not in err
    for word in words:
        assert str(word) in lines[0], (word, lines[0])
    return lines[0]


@pytest.fixture(scope="module")
def compiled(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("compiled")
    assert main(["compile", str(MIXED), "-c", "gate-edge", "-o", str(out)]) == 0
    return out


def _edited_transformer(compiled: Path, path: Path, constant: str) -> Path:
    doc = json.loads((compiled / "transformer.json").read_text())
    doc["functions"]["activation-fetch"][0] = f"g10 = const {constant}"
    path.write_text(json.dumps(doc, indent=1))
    return path


# -- item 1: huge numbers ---------------------------------------------------------------------

def test_limits_agree_with_the_kernel() -> None:
    from verified_aat.kernel import data
    assert MAX_CERTIFIED_DIGITS == data.MAX_DIGITS and MAX_CERTIFIED_DIGITS <= MAX_DIGITS


@pytest.mark.parametrize("command", [["info"], ["eval", "--input=1"], ["certify", "-c", "gate-edge"]])
def test_a_huge_constant_in_a_text_circuit(capsys, tmp_path, command) -> None:
    path = tmp_path / "big.circ"
    path.write_text(f"input x\nc = const {HUGE}\ny = add x c\noutput y\n")
    one_line_error(capsys, [command[0], path, *command[1:]], f"{path}:2:", f"{MAX_DIGITS:,} digits", "limit")


@pytest.mark.parametrize("literal", [HUGE, json.dumps(HUGE)])
@pytest.mark.parametrize("command", [["info"], ["certify", "-c", "gate-edge"]])
def test_a_huge_constant_in_a_json_circuit(capsys, tmp_path, command, literal) -> None:
    path = tmp_path / "big.json"
    path.write_text('{"format": "verified-aat/circuit", "version": 1, "inputs": ["x"], "gates": '
                    '[{"name": "c", "op": "const", "value": %s}], "outputs": ["c"]}' % literal)
    one_line_error(capsys, [command[0], path, *command[1:]], str(path), "digits")


def test_a_constant_longer_than_a_certificate_may_hold_is_refused_by_certify(capsys, tmp_path) -> None:
    path = tmp_path / "long.circ"
    path.write_text(f"input x\nc = const {'9' * (MAX_CERTIFIED_DIGITS + 500)}\ny = add x c\noutput y\n")
    one_line_error(capsys, ["certify", path, "-c", "gate-edge"], str(path), f"{MAX_CERTIFIED_DIGITS:,} digits")
    assert main(["eval", str(path), "--input=1"]) == 0  # below MAX_DIGITS: evaluation is fine


def test_a_huge_constant_in_a_transformer_function(capsys, tmp_path, compiled) -> None:
    spec = _edited_transformer(compiled, tmp_path / "t.json", HUGE)
    one_line_error(capsys, ["certify", MIXED, "-c", "gate-edge", "--transformer", spec], f"{spec}:", "digits")
    one_line_error(capsys, ["run", spec, "--encoding", compiled / "encoding.json", "--input=1,2,3"],
                   f"{spec}:", "digits")


def test_a_long_constant_in_a_transformer_function(capsys, tmp_path, compiled) -> None:
    spec = _edited_transformer(compiled, tmp_path / "t.json", "4" * 5000)
    one_line_error(capsys, ["certify", MIXED, "-c", "gate-edge", "--transformer", spec], str(spec),
                   f"{MAX_CERTIFIED_DIGITS:,} digits")
    assert main(["run", str(spec), "--encoding", str(compiled / "encoding.json"), "--input=1,2,3"]) == 0


# -- item 1: deep nesting ---------------------------------------------------------------------

def test_deep_json_as_a_transformer(capsys, tmp_path, compiled) -> None:
    path = tmp_path / "deep.json"
    path.write_text(DEEP)
    one_line_error(capsys, ["certify", MIXED, "-c", "gate-edge", "--transformer", path], str(path),
                   f"more than {MAX_JSON_DEPTH} levels")
    one_line_error(capsys, ["run", path, "--encoding", compiled / "encoding.json", "--input=1,2,3"], str(path),
                   f"more than {MAX_JSON_DEPTH} levels")
    one_line_error(capsys, ["run", compiled / "transformer.json", "--encoding", path, "--input=1,2,3"], str(path),
                   "nested")


def test_deep_json_as_a_circuit_or_certificate(capsys, tmp_path) -> None:
    path = tmp_path / "deep.json"
    path.write_text(DEEP)
    one_line_error(capsys, ["info", path], str(path), "nested")
    one_line_error(capsys, ["check", path], str(path), "nested too deeply")


def test_deep_strings_do_not_count_as_nesting() -> None:
    from verified_aat.limits import json_depth_exceeds
    assert not json_depth_exceeds(json.dumps({"a": "[" * 10_000, "b": ["\\\"[" * 500]}))
    assert json_depth_exceeds("[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1))
    assert not json_depth_exceeds("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH)
    for depth in (3, 9, MAX_JSON_DEPTH - 2, MAX_JSON_DEPTH - 1):
        text = '{"a": [' + "[1, [2]], " * 300 + "[" * depth + "]" * depth + "]}"
        assert json_depth_exceeds(text) == (depth + 2 > MAX_JSON_DEPTH), depth


# -- item 2: options ----------------------------------------------------------------------------

BAD_OPTIONS = [(["-K", "0"], "--depth-bound (-K): must be >= 1"), (["-K", "-3"], "--depth-bound (-K): must be >= 1"),
               (["-K", "100000000000"], "--depth-bound (-K): must be at most 10,000"),
               (["--timeout", "-1"], "--timeout: must be a finite number > 0"),
               (["--timeout", "inf"], "--timeout: must be a finite number > 0"),
               (["--jobs", "0"], "--jobs (-j): must be >= 1")]


def _subcommands_with(option: str, compiled: Path, cert: Path) -> list[list[str]]:
    transformer = str(compiled / "transformer.json")
    calls = {"-K": [["certify", str(MIXED)], ["compile", str(MIXED)], ["refute", transformer]],
             "--timeout": [["certify", str(MIXED)], ["check", str(cert)]],
             "--jobs": [["certify", str(MIXED)], ["check", str(cert)]]}
    return calls[option]


@pytest.fixture(scope="module")
def certificate(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("cert") / "mixed.json"
    assert main(["certify", str(MIXED), "-c", "gate-edge", "--no-timings", "-o", str(path)]) == 0
    return path


@pytest.mark.parametrize("option, message", BAD_OPTIONS, ids=[" ".join(o) for o, _ in BAD_OPTIONS])
def test_bad_options_on_every_subcommand(capsys, tmp_path, compiled, certificate, option, message) -> None:
    for call in _subcommands_with(option[0], compiled, certificate):
        line = one_line_error(capsys, call + option, message)
        assert line.startswith(f"verified-aat: {option[0] if option[0] != '-K' else '--depth-bound'}")
    assert list(tmp_path.iterdir()) == []


def test_bad_timeouts_of_run_and_refute(capsys, compiled) -> None:
    transformer, encoding = compiled / "transformer.json", compiled / "encoding.json"
    one_line_error(capsys, ["run", transformer, "--encoding", encoding, "--input=1,2,3", "--key-timeout", "0"],
                   "--key-timeout: must be")
    one_line_error(capsys, ["refute", transformer, "--budget", "-1"], "--budget: must be")


@pytest.mark.parametrize("version", [1.0, True, "2", None])
def test_a_certificate_version_must_be_the_integer_2_or_3(capsys, tmp_path, certificate, version) -> None:
    doc = json.loads(certificate.read_text())
    doc["version"] = version
    path = tmp_path / "c.json"
    path.write_text(json.dumps(doc))
    assert main(["check", str(path)]) == 1  # the kernel rejects it (never accepted)
    assert "$.version" in capsys.readouterr().out


@pytest.mark.parametrize("depth", [-5, 10**9, 0, "6", True])
def test_a_hostile_informational_depth_bound_costs_nothing(capsys, tmp_path, certificate, depth) -> None:
    """The engine's reading of ``info`` gives up at once, and the kernel stops at its depth-bound check: not an
    integer K >= 1 is rejected there, K past 10,000 is not checked (a limit), before any derivation."""
    from verified_aat.certificates.document import is_constructions_own
    doc = json.loads(certificate.read_text())
    assert is_constructions_own(doc) is True
    doc["info"]["depth_bound"] = depth
    assert is_constructions_own(doc) is False
    path = tmp_path / "c.json"
    path.write_text(json.dumps(doc))
    assert main(["check", str(path)]) == (3 if depth == 10**9 else 1)
    assert "depth-bound" in capsys.readouterr().out


# -- item 3: argparse errors --------------------------------------------------------------------

@pytest.mark.parametrize("argv, expected", [
    (["certify", "--foo"], "verified-aat: certify: unrecognized arguments: --foo (see verified-aat certify --help)"),
    (["certify", str(MIXED), "--foo", "bar"], "verified-aat: certify: unrecognized arguments: --foo bar"),
    (["certify", "-c", "nope"], "verified-aat: certify: argument --construction/-c: invalid choice: 'nope'"),
    (["certify", "-K", "x"], "verified-aat: certify: argument --depth-bound/-K: invalid int value: 'x'"),
    (["check"], "verified-aat: check: the following arguments are required: CERT (see verified-aat check --help)"),
    (["frobnicate"], "verified-aat: argument COMMAND: invalid choice: 'frobnicate'"),
    (["run", "--trace"], "verified-aat: run: the following arguments are required: MODEL"),
])
def test_argparse_errors_are_one_line(capsys, argv, expected) -> None:
    line = one_line_error(capsys, argv)
    assert line.startswith(expected) and "usage:" not in line
    assert line.endswith("--help)")


def test_refute_takes_options_after_positional_arguments(capsys, compiled) -> None:
    transformer = str(compiled / "transformer.json")
    assert main(["refute", transformer, "-c", "gate-edge", str(MIXED), "--budget", "5"]) == 3
    assert "no counterexample in 1 circuit " in capsys.readouterr().out
    one_line_error(capsys, ["refute", transformer, "-c", "gate-edge", str(MIXED), "extra"],
                   "verified-aat: refute: unrecognized arguments: extra")


# -- item 4: provenance without local paths ----------------------------------------------------

NETLIST = ROOT.parent / "shared" / "circuits" / "iscas85" / "c17.bench"


@pytest.mark.parametrize("source", [MIXED, NETLIST], ids=["text", "netlist"])
def test_certificates_are_byte_identical_across_directories(tmp_path, monkeypatch, capsys, source) -> None:
    if not source.exists():
        pytest.skip(f"{source} is not here")
    outputs = []
    for number, relative in ((1, False), (2, True), (3, True)):
        directory = tmp_path / f"dir{number}" / "deeper"
        directory.mkdir(parents=True)
        (directory / source.name).write_bytes(source.read_bytes())
        monkeypatch.chdir(directory if relative else tmp_path)
        argv = source.name if relative else str(directory / source.name)
        out = directory / "cert.json"
        assert main(["certify", argv, "--no-timings", "-o", str(out)]) == 0
        outputs.append(out.read_bytes())
    capsys.readouterr()
    assert outputs[0] == outputs[1] == outputs[2]
    assert str(tmp_path).encode() not in outputs[0] and b"dir1" not in outputs[0]
    if source.suffix == ".bench":
        section = json.loads(outputs[0])["netlist"]
        assert section["file"] == "c17.bench"
        import hashlib
        assert section["sha256"] == hashlib.sha256(source.read_bytes()).hexdigest()


# -- item 5: standard input and output ----------------------------------------------------------

def _cli(args: list[str], stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    import sys
    return subprocess.run([sys.executable, "-m", "verified_aat.cli.main", *map(str, args)], input=stdin,
                          capture_output=True, timeout=300, cwd=ROOT)


def _stdin(monkeypatch, data: bytes) -> None:
    import io
    import sys
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


@pytest.mark.parametrize("source", [MIXED, NETLIST], ids=["text", "netlist"])
def test_a_circuit_from_standard_input(capsys, monkeypatch, tmp_path, source) -> None:
    if not source.exists():
        pytest.skip(f"{source} is not here")
    assert main(["info", str(source)]) == 0
    from_file = capsys.readouterr().out
    _stdin(monkeypatch, source.read_bytes())
    assert main(["info", "-"]) == 0
    from_stdin = capsys.readouterr().out
    def numbers(text: str) -> list[str]:
        return [line for line in text.splitlines() if line.split()[:1] in (["depth"], ["size"], ["class"])]
    assert numbers(from_stdin) == numbers(from_file) and len(numbers(from_file)) >= 2
    n = 3 if source == MIXED else 5
    _stdin(monkeypatch, source.read_bytes())
    assert main(["eval", "-", "--input=" + ",".join(["1"] * n)]) == 0
    assert capsys.readouterr().out.strip()


def test_the_format_of_standard_input(capsys, monkeypatch) -> None:
    json_circuit = b'{"format": "verified-aat/circuit", "version": 1, "inputs": ["x"], ' \
                   b'"gates": [{"name": "x", "op": "input"}, {"name": "c", "op": "const", "value": "3"}], "outputs": ["c"]}'
    _stdin(monkeypatch, json_circuit)
    assert main(["eval", "-", "--input=1"]) == 0 and capsys.readouterr().out.strip() == "c = 3"
    _stdin(monkeypatch, json_circuit)  # --format overrides what the content suggests
    one_line_error(capsys, ["info", "-", "--format", "text"], "<stdin>:1:")
    _stdin(monkeypatch, b"input x\n")
    one_line_error(capsys, ["info", "-"], "<stdin>:1: no outputs")


def test_certify_reads_stdin_and_writes_the_certificate_to_stdout(tmp_path) -> None:
    by_file = tmp_path / "file.json"
    assert main(["certify", str(MIXED), "--no-timings", "-o", str(by_file)]) == 0
    done = _cli(["certify", "-", "--no-timings", "-o", "-"], MIXED.read_bytes())
    assert done.returncode == 0, done.stderr
    assert done.stdout == by_file.read_bytes()
    assert b"proved" in done.stderr and b"(standard output)" in done.stderr
    bad = _cli(["certify", "-", "-o", "-"], b"input x\n")
    assert bad.returncode == 2 and bad.stdout == b"" and bad.stderr.decode().strip().count("\n") == 0
    assert bad.stderr.decode().startswith("verified-aat: <stdin>:1:") and b"Traceback" not in bad.stderr


# -- item 6: threshold mode outside {0,1} ---------------------------------------------------------

def test_eval_threshold_mode_refuses_inputs_outside_0_1(capsys, tmp_path) -> None:
    if not NETLIST.exists():
        pytest.skip(f"{NETLIST} is not here")
    base = ["eval", NETLIST, "--mode", "threshold"]
    assert main([*map(str, base), "--input=1,0,1,1,0"]) == 0
    capsys.readouterr()
    one_line_error(capsys, [*base, "--input=1,0,2,1,0"], "verified-aat: --input: input 3 is 2, not 0 or 1",
                   "threshold")
    one_line_error(capsys, [*base, "--input=1,0,1,1,-1/2"], "input 5 is -1/2")
    vectors = tmp_path / "v.txt"
    vectors.write_text("1,0,1,1,0\n# fine so far\n0,0,0,0,3\n")
    one_line_error(capsys, [*base, "--inputs", vectors], f"verified-aat: {vectors}:3: input 5 is 3")
    assert main(["eval", str(NETLIST), "--mode", "exact", "--input=1,0,2,1,0"]) == 0  # exact: all of Q^n


# -- item 7: docs/cli.md --------------------------------------------------------------------------

def test_docs_cli_lists_the_limits_and_exit_codes() -> None:
    from verified_aat import limits
    from verified_aat.cli.common import MAX_INPUTS
    text = (ROOT / "docs" / "cli.md").read_text()
    for value in (limits.MAX_DIGITS, limits.MAX_CERTIFIED_DIGITS, limits.MAX_JSON_DEPTH, limits.MAX_K, MAX_INPUTS):
        assert f"{value:,}" in text, value
    for code in ("| 0 |", "| 1 |", "| 2 |", "| 3 |", "| 130 |"):
        assert code in text
    assert "docs/cli.md" in (ROOT / "README.md").read_text()


def test_an_output_in_a_missing_directory_names_the_users_path(capsys, tmp_path) -> None:
    target = tmp_path / "missing_dir" / "x.json"
    one_line_error(capsys, ["certify", MIXED, "-o", target], f"verified-aat: {target}: cannot write")
    from verified_aat.files import write_atomically
    from verified_aat.errors import InputError
    with pytest.raises(InputError, match="cannot write") as info:
        write_atomically(str(target), "x")
    assert info.value.file == str(target)


def test_run_names_the_input_option(capsys, compiled) -> None:
    one_line_error(capsys, ["run", compiled / "transformer.json", "--encoding", compiled / "encoding.json",
                            "--input=1,2,x"], "verified-aat: --input: 'x' is not a rational number")  # as eval
