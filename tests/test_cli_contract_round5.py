"""The bad-input contract against a red team's fifth round (stop 39): every case here broke it before.

A rejected certificate kept exit 1 only while stdout was open; an input read from standard input could be
overwritten by an output; ``compile -o DIR`` could leave a new transformer beside an old encoding; options past
what the solvers' and the alarm's timers hold, a solver that cannot run, a transformer of degree 2^40, an encoding
without its construction and an unexpected exception ended in tracebacks (exit 1, the code of a verdict) or hangs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from verified_aat import files
from verified_aat.cli.main import main
from verified_aat.kernel import Options, check_certificate

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "specs" / "circuits" / "mixed_depth6.circ"
CERT = ROOT / "proofs" / "gate-edge" / "mixed_depth6.cert.json"


def _one_line(capsys: pytest.CaptureFixture[str], argv: list[str], code: int, *words: str) -> str:
    assert main([str(a) for a in argv]) == code
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert "Traceback" not in err and len(lines) == 1, err
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


class _ClosedPipe:
    """Standard output whose reader has gone (``| head -1``)."""

    encoding = "utf-8"

    def write(self, text: str) -> int:
        raise BrokenPipeError

    def flush(self) -> None:
        raise BrokenPipeError

    def isatty(self) -> bool:
        return False


@pytest.mark.parametrize("json_output", [False, True])
def test_a_closed_stdout_keeps_the_verdicts_exit_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      json_output: bool) -> None:
    forged = json.loads(CERT.read_text())
    forged["lemmas"] = forged["lemmas"][1:]
    rejected = tmp_path / "rejected.cert.json"
    rejected.write_text(json.dumps(forged))
    extra = ["--json"] if json_output else []
    monkeypatch.setattr(sys, "stdout", _ClosedPipe())
    assert main(["check", str(rejected), *extra]) == 1  # was 0: BrokenPipeError ended every command with 0
    assert main(["check", str(CERT), *extra]) == 0


def test_a_closed_pipe_through_a_real_process_keeps_exit_1(tmp_path: Path) -> None:
    forged = json.loads(CERT.read_text())
    forged["lemmas"] = forged["lemmas"][1:]
    rejected = tmp_path / "rejected.cert.json"
    rejected.write_text(json.dumps(forged))
    script = "import sys; from verified_aat.cli.main import main; sys.exit(main())"
    done = subprocess.run(f"set -o pipefail; {sys.executable} -c '{script}' check {rejected} | head -1",
                          shell=True, executable="/bin/bash", capture_output=True, text=True)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr


@pytest.mark.parametrize("argv", [["certify", "-", "-c", "gate-edge", "-o", "in.circ"],
                                  ["certify", "-", "-c", "gate-edge", "--report", "in.circ"],
                                  ["audit", "-c", "gate-edge", "-", "--lengths", "2", "--output-circuit", "in.circ"]])
def test_a_file_redirected_into_stdin_is_an_input_never_an_output(tmp_path: Path, argv: list[str]) -> None:
    source = tmp_path / "in.circ"
    source.write_bytes(SPEC.read_bytes())
    script = "import sys; from verified_aat.cli.main import main; sys.exit(main())"
    with open(source, "rb") as stdin:
        done = subprocess.run([sys.executable, "-c", script, *argv], stdin=stdin, cwd=tmp_path,
                              capture_output=True, text=True)
    assert done.returncode == 2 and "refusing to overwrite an input" in done.stderr, done.stderr
    assert source.read_bytes() == SPEC.read_bytes()


def test_several_files_are_replaced_together_or_not_at_all(tmp_path: Path) -> None:
    """A failure while writing the second file (a full disk, a signal) leaves the first file's old contents."""
    first, second = tmp_path / "transformer.json", tmp_path / "encoding.json"
    first.write_text("old T")
    second.write_text("old E")
    os.chmod(first, 0o600)

    def failing():  # the second file's text, in pieces; the disk fills up half-way
        yield "new E, part 1"
        raise OSError(28, "No space left on device")

    with pytest.raises(Exception) as caught:
        files.write_all_atomically([(str(first), "new T"), (str(second), failing())])
    assert "encoding.json" in str(caught.value) and "No space left" in str(caught.value)  # the file is named
    assert (first.read_text(), second.read_text()) == ("old T", "old E")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["encoding.json", "transformer.json"]  # no temporary left
    files.write_all_atomically([(str(first), "new T"), (str(second), "new E")])
    assert (first.read_text(), second.read_text()) == ("new T", "new E")
    assert oct(first.stat().st_mode & 0o777) == oct(0o600)  # a replaced file keeps its permissions


@pytest.mark.parametrize("argv, option", [
    (["check", str(CERT), "--timeout", "1e308"], "--timeout"),
    (["check", str(CERT), "--solver", "yices", "--timeout", "2000000"], "--timeout"),
    (["certify", str(SPEC), "-c", "gate-edge", "--max-time", "1e10"], "--max-time"),
    (["check", str(CERT), "--max-memory", "8796093022208"], "--max-memory"),
    (["certify", str(SPEC), "-c", "gate-edge", "--jobs", "100000"], "--jobs"),
    (["audit", "-c", "gate-edge", str(SPEC), "--round-trip", "--round-trip-timeout", "inf"], "--round-trip-timeout"),
])
def test_options_past_what_the_timers_and_limits_hold_are_bad_input(capsys: pytest.CaptureFixture[str],
                                                                     argv: list[str], option: str) -> None:
    _one_line(capsys, argv, 2, option)


def test_a_memory_limit_below_the_interpreters_own_is_refused_before_starting(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--max-memory 160-210 MB let runs start that could not load a solver or start a thread: hangs, segfaults."""
    spec = tmp_path / "t.json"
    assert main(["compile", str(SPEC), "-c", "gate-edge", "-o", str(tmp_path / "comp")]) == 0
    spec.write_bytes((tmp_path / "comp" / "transformer.json").read_bytes())
    capsys.readouterr()
    _one_line(capsys, ["audit", str(spec), "--prove", "-o", str(tmp_path / "a.json"), "--max-memory", "200"], 3,
              "refused before starting")
    _one_line(capsys, ["check", str(CERT), "--max-memory", "200"], 3, "refused before starting")


def test_a_solver_that_cannot_run_makes_a_check_not_checked_never_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    import verified_aat.kernel.solvers as solvers

    def broken(*args, **kwargs):  # e.g. a timeout its binding cannot hold, or a library that cannot load
        raise OverflowError("timeout is too large")
    monkeypatch.setattr(solvers, "solve", broken)
    report = check_certificate(json.loads(CERT.read_text()), Options(second_opinion=True))
    assert report.outcome == "not-checked" and not report.rejections
    assert any("could not run" in u and "OverflowError" in u for u in report.unchecked), report.unchecked


def _squarings(n: int) -> dict:
    """gate-edge's T_1 with one score raised to 2^n by n squarings."""
    from verified_aat.constructions.registry import get_construction
    from verified_aat.transformer.spec import transformer_to_json
    spec = transformer_to_json(get_construction("gate-edge").transformer(1))
    name = spec["layers"][0]["heads"][0]["score"]
    lines = [line for line in spec["functions"][name] if not line.startswith("output")]
    out = next(line for line in spec["functions"][name] if line.startswith("output")).split()[1].split("=")[-1]
    for k in range(n):
        lines.append(f"sq{k} = mul {out} {out}")
        out = f"sq{k}"
    spec["functions"][name] = lines + [f"output {out}"]
    return spec


def test_a_score_of_degree_two_to_the_forty_is_a_limit_not_a_hang(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "deep.json"
    path.write_text(json.dumps(_squarings(40)))
    assert main(["compile", str(SPEC), "-c", "gate-edge", "-o", str(tmp_path / "comp")]) == 0
    capsys.readouterr()
    encoding = tmp_path / "comp" / "encoding.json"
    _one_line(capsys, ["run", str(path), "--encoding", str(encoding), "--input", "1,2,3"], 3, "degree above 4,096")
    _one_line(capsys, ["certify", str(SPEC), "-c", "gate-edge", "-t", str(path), "-o", str(tmp_path / "c.json")], 3,
              "degree above 4,096")
    shallow = tmp_path / "shallow.json"
    shallow.write_text(json.dumps(_squarings(3)))  # degree 16: read, and refuted or not, but never refused
    assert main(["run", str(shallow), "--encoding", str(encoding), "--input", "1,2,3"]) == 0


def test_an_edited_transformer_past_the_kernels_limits_is_unknown_to_prove_construction(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Degree 128 (seven squarings) is past the kernel's 64: prove-construction and certify --every-k stopped
    on an AssertionError (exit 1, a verdict's code) where the kernel's checks had said *not checked*."""
    path = tmp_path / "deg128.json"
    path.write_text(json.dumps(_squarings(7)))
    assert main(["prove-construction", "gate-edge", "-K", "1", "--transformer", str(path)]) == 3
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "UNKNOWN" in out
    assert main(["certify", str(SPEC), "-c", "gate-edge", "--every-k", "-t", str(path),
                 "-o", str(tmp_path / "e.json")]) == 3
    assert not (tmp_path / "e.json").exists()


def test_an_encoding_without_its_construction_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compile", str(SPEC), "-c", "gate-edge", "-o", str(tmp_path / "comp")]) == 0
    capsys.readouterr()
    encoding = json.loads((tmp_path / "comp" / "encoding.json").read_text())
    del encoding["construction"]
    path = tmp_path / "encoding.json"
    path.write_text(json.dumps(encoding))
    _one_line(capsys, ["run", str(tmp_path / "comp" / "transformer.json"), "--encoding", str(path),
                       "--input", "1,2,3"], 2, "construction")


def test_an_unexpected_exception_is_one_line_and_no_verdict(monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    import verified_aat.cli.info_cmd as info_cmd

    def boom(args):  # a bug somewhere below a command
        raise RuntimeError("something no command expected")
    monkeypatch.setattr(info_cmd, "run", boom)
    from verified_aat.cli.main import build_parser
    argv = ["info", str(SPEC)]
    if build_parser().parse_args(argv).func is not boom:
        pytest.skip("the info command is not dispatched through info_cmd.run")
    _one_line(capsys, argv, 3, "internal error", "RuntimeError")


@pytest.mark.parametrize("argv, option", [(["--report", "-"], "--report"), (["-o", ""], "--output (-o)")])
def test_an_output_that_names_no_file_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch, argv: list[str], option: str) -> None:
    """``--report -`` wrote a file named '-' and ``-o ''`` wrote nothing and said 0."""
    monkeypatch.chdir(tmp_path)
    _one_line(capsys, ["certify", str(SPEC), "-c", "gate-edge", *argv], 2, option)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("extra", [["--prove"], ["--output-circuit", "oc.circ"], ["--lengths", "5"]])
def test_round_trip_refuses_the_options_it_would_ignore(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch, extra: list[str]) -> None:
    monkeypatch.chdir(tmp_path)
    _one_line(capsys, ["audit", "-c", "gate-edge", str(SPEC), "--round-trip", *extra], 2, "--round-trip does not take",
              extra[0])
    assert list(tmp_path.iterdir()) == []


def test_a_circuit_deeper_than_the_kernels_k_is_refused_before_any_work(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """Depth 20,001 with no -K: certify worked 25 s, then the kernel said not checked (K past 10,000)."""
    path = tmp_path / "chain.circ"
    path.write_text("\n".join(["input x", "g0 = sign x", *(f"g{i} = sign g{i - 1}" for i in range(1, 10_001)),
                               "output g10000"]) + "\n")
    _one_line(capsys, ["certify", str(path), "-c", "gate-edge", "-o", str(tmp_path / "c.json")], 3,
              "depth 10,001", "K ≤ 10,000")
    assert not (tmp_path / "c.json").exists()
