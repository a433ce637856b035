"""Red team, round 7 (bad input, the process): signals over the process's whole life, closed or unwritable
standard streams, a malformed encoding file, run options that do nothing, and small parsing inconsistencies."""

from __future__ import annotations

import copy
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_fuzz_cli import json_paths  # every path into a JSON value

from verified_aat.cli.main import main

ROOT = Path(__file__).resolve().parent.parent
CIRC = ROOT / "specs" / "circuits" / "mixed_depth6.circ"
T2 = ROOT / "tests" / "data" / "redteam_cli" / "gate_edge_T.json"
E2 = ROOT / "tests" / "data" / "redteam_cli" / "gate_edge_E.json"
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
SIGNALS = [(signal.SIGINT, 130, "interrupted (SIGINT)"), (signal.SIGTERM, 143, "terminated (SIGTERM)")]


def _one_line(capsys: pytest.CaptureFixture[str], argv: list[object], code: int, *words: str) -> str:
    assert main([str(a) for a in argv]) == code
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in lines[0], lines
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


def _python(script: str, *args: str, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", script, *args], env=ENV, capture_output=True, text=True,
                          timeout=120, **kwargs)


def _ended_by(done: subprocess.CompletedProcess[str], code: int, line: str) -> None:
    lines = done.stderr.strip().splitlines()
    assert done.returncode == code and lines == [f"verified-aat: {line}"], (done.returncode, done.stderr[-2000:])


# -- 07: SIGINT and SIGTERM from start-up to exit ----------------------------------------------------------------

_DURING_STARTUP = """
import os, signal, sys
sig = int(sys.argv[1])
class Trigger:  # the signal comes while the parser loads the command modules (numpy among them)
    def find_spec(self, name, path=None, target=None):
        if name == "verified_aat.cli.run_cmd":
            sys.meta_path.remove(self)
            os.kill(os.getpid(), sig)
        return None
sys.meta_path.insert(0, Trigger())
sys.argv = ["verified-aat", "info", sys.argv[2]]
from verified_aat.cli.main import main  # the old console script's entry point: main() covers start-up too
sys.exit(main())
"""

_AFTER_MAIN = """
import os, signal, sys, time
sig, sys.argv = int(sys.argv[1]), ["verified-aat", "info", sys.argv[2]]
from verified_aat.cli.main import main
code = main()
os.kill(os.getpid(), sig)  # the command is done: its output flushed, the process about to end
time.sleep(5)
sys.exit(code)
"""

_IN_A_FINALIZER = """
import os, signal, sys
import verified_aat.cli.info_cmd as info_cmd
command, sig = info_cmd.run, int(sys.argv[1])
class Dropped:
    def __del__(self):  # Python can only print an exception raised here ("Exception ignored in ...")
        os.kill(os.getpid(), sig)
def run(args):
    Dropped()
    return command(args)
info_cmd.run = run
sys.argv = ["verified-aat", "info", sys.argv[2]]
from verified_aat.cli.main import main
sys.exit(main())
"""


@pytest.mark.parametrize("sig, code, line", SIGNALS)
@pytest.mark.parametrize("script", [_DURING_STARTUP, _AFTER_MAIN, _IN_A_FINALIZER],
                         ids=["during-startup", "after-main", "in-a-finalizer"])
def test_a_signal_at_any_point_of_the_process_is_one_line_and_its_exit_code(script: str, sig: int, code: int,
                                                                             line: str) -> None:
    _ended_by(_python(script, str(int(sig)), str(CIRC)), code, line)


@pytest.mark.parametrize("sig, code, line", SIGNALS)
def test_the_console_entry_at_several_delays(sig: int, code: int, line: str) -> None:
    """``python -m verified_aat.cli.entry`` (the console script): whenever the signal comes, the line and
    130/143, or (the run was over) exit 0 and nothing on stderr; never a traceback or death by the signal."""
    for delay in (0.0, 0.1, 0.25):
        process = subprocess.Popen([sys.executable, "-m", "verified_aat.cli.entry", "info", str(CIRC)], env=ENV,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and process.poll() is None:  # until the entry's handlers are in place
            status = Path(f"/proc/{process.pid}/status").read_text() if Path(f"/proc/{process.pid}").exists() else ""
            caught = next((int(s.split()[1], 16) for s in status.splitlines() if s.startswith("SigCgt:")), 0)
            if caught & (1 << (signal.SIGTERM - 1)):
                break
            time.sleep(0.005)
        time.sleep(delay)
        process.send_signal(sig)
        _, err = process.communicate(timeout=60)
        assert (process.returncode, err.strip().splitlines()) in ((code, [f"verified-aat: {line}"]), (0, [])), \
            (delay, process.returncode, err[-2000:])


def test_the_console_script_is_the_entry_module() -> None:
    text = (ROOT / "pyproject.toml").read_text()
    assert 'verified-aat = "verified_aat.cli.entry:main"' in text
    entry = (ROOT / "verified_aat" / "cli" / "entry.py").read_text()
    assert "from .signals import as_process" in entry


def test_the_entry_installs_its_handlers_before_any_heavy_import() -> None:
    script = ("import sys, signal\nimport verified_aat.cli.entry\n"
              "heavy = [m for m in ('numpy', 'verified_aat.api', 'verified_aat.cli.main', 'verified_aat.circuits.ir')"
              " if m in sys.modules]\nprint(heavy)")
    done = _python(script)
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stdout + done.stderr


# -- 08: closed and unwritable standard streams -----------------------------------------------------------------

def _cli(*argv: str, closed: tuple[int, ...] = (), stdout: Any = subprocess.PIPE) -> subprocess.CompletedProcess[str]:
    def close() -> None:
        for fd in closed:
            os.close(fd)
    return subprocess.run([sys.executable, "-m", "verified_aat.cli.entry", *argv], env=ENV, stdout=stdout,
                          stderr=subprocess.PIPE, text=True, timeout=120, preexec_fn=close)


@pytest.mark.parametrize("argv, what", [(["info", "-"], "circuit"), (["eval", "-", "--input", "1,2,3"], "circuit"),
                                        (["check", "-"], "certificate"), (["show", "-"], "certificate")])
def test_a_closed_standard_input_is_bad_input_naming_it(capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch, argv: list[str],
                                                        what: str) -> None:
    monkeypatch.setattr(sys, "stdin", None)  # what Python makes of `<&-`
    _one_line(capsys, argv, 2, "<stdin>: standard input is closed", what)


def test_a_closed_standard_input_from_the_shell() -> None:
    done = _cli("report", "-", "-o", os.devnull + ".html", closed=(0,))
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "<stdin>: standard input is closed" in done.stderr


def test_a_closed_standard_output_is_bad_input_before_any_work(tmp_path: Path) -> None:
    done = _cli("compile", str(CIRC), "-o", str(tmp_path / "out"), closed=(1,))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "<stdout>: standard output is closed" in done.stderr and not (tmp_path / "out").exists()


@pytest.mark.parametrize("argv", [["info", str(CIRC)], ["info", str(CIRC), "--json"],
                                  ["construction", "show", "gate-edge"]])
def test_a_full_standard_output_is_named_not_the_command_line(argv: list[str]) -> None:
    with open("/dev/full", "w") as full:
        done = _cli(*argv, stdout=full)
    assert done.returncode == 2 and done.stderr.splitlines() == [
        "verified-aat: <stdout>: cannot write to standard output: No space left on device"], done.stderr


# -- 03: a malformed encoding file: JSON paths, never Python's exception text -----------------------------------

_PYTHON_WORDS = ("NoneType", "object is not", "not enough values", "unpack", "Invalid literal", "subscriptable",
                 "iterable", "index out of range", "internal error", "invalid literal", "string indices")


def _run_encoding(capsys: pytest.CaptureFixture[str], path: Path) -> tuple[int, list[str]]:
    code = main(["run", str(T2), "--encoding", str(path), "--input=-2"])
    return code, capsys.readouterr().err.strip().splitlines()


@pytest.mark.parametrize("change, where", [
    (lambda e: e.__setitem__("settle", None), "$.settle: expected an object"),
    (lambda e: e.__setitem__("settle", "x"), "$.settle:"),
    (lambda e: e.__setitem__("roles", None), "$.roles: expected a list"),
    (lambda e: e["input_slots"].__setitem__(0, [0, 3]), "$.input_slots[0]:"),
    (lambda e: e["rows"][0].__setitem__(0, "x"), "$.rows[0][0]: 'x' is not a rational number"),
    (lambda e: e.__setitem__("n_inputs", -1), "$.n_inputs: expected an integer >= 0, got -1"),
    (lambda e: e["rows"][1].__setitem__(2, "1/0"), "$.rows[1][2]: '1/0' divides by zero"),
    (lambda e: e["rows"][1].__setitem__(2, 2.5), "$.rows[1][2]:"),
    (lambda e: e["readout"].__setitem__(0, [True, 0]), "$.readout[0][0]: expected an integer"),
    (lambda e: e.pop("coordinates"), "$: no 'coordinates' field"),
])
def test_a_malformed_encoding_names_its_json_path(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                  change: Any, where: str) -> None:
    doc = json.loads(E2.read_text())
    change(doc)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    code, lines = _run_encoding(capsys, bad)
    assert code == 2 and len(lines) == 1 and lines[0].startswith(f"verified-aat: {bad}: {where}"), lines


_JSON = st.recursive(st.none() | st.booleans() | st.integers(-5, 40) | st.floats(allow_nan=False, width=16)
                     | st.sampled_from(["", "x", "1/2", "-3", "1/0", " 4", "١", "1e3", "gate"]),
                     lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner,
                                                                                  max_size=3), max_leaves=6)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_random_mutations_of_an_encoding_are_exit_0_or_one_line_exit_2(capsys: pytest.CaptureFixture[str],
                                                                       tmp_path: Path, data: st.DataObject) -> None:
    doc = json.loads(E2.read_text())
    mutated = copy.deepcopy(doc)
    path = data.draw(st.sampled_from(json_paths(doc)[1:]))
    parent = mutated
    for step in path[:-1]:
        parent = parent[step]
    if data.draw(st.booleans()) and isinstance(parent, dict):
        del parent[path[-1]]
    elif isinstance(parent, list) and data.draw(st.booleans()):
        parent.pop(path[-1])
    else:
        parent[path[-1]] = data.draw(_JSON)
    bad = tmp_path / "mutated.json"
    bad.write_text(json.dumps(mutated))
    code, lines = _run_encoding(capsys, bad)
    assert code in (0, 2), (path, code, lines)
    if code == 2:
        assert len(lines) == 1 and not any(w in lines[0] for w in _PYTHON_WORDS), (path, lines)


# -- 06: run options that would do nothing ----------------------------------------------------------------------

@pytest.mark.parametrize("extra, option", [
    (["--no-join", "-c", "/nonexistent/doc.json"], "--construction"),
    (["--no-join", "-c", "gate-edge"], "--construction"),
    (["--no-join", "--key-timeout", "1"], "--key-timeout"),
])
def test_run_no_join_with_key_join_options_is_bad_input(capsys: pytest.CaptureFixture[str], extra: list[str],
                                                        option: str) -> None:
    _one_line(capsys, ["run", T2, "--encoding", E2, "--input=-2", *extra], 2, option, "here it would do nothing")


def test_run_full_needs_an_encoding_with_settle_layers(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    sequence = tmp_path / "seq.json"
    encoding = json.loads(E2.read_text())
    sequence.write_text(json.dumps({"format": "verified-aat/sequence", "version": 1,
                                    "coordinates": encoding["coordinates"], "vectors": encoding["rows"]}))
    _one_line(capsys, ["run", T2, "--sequence", sequence, "--full"], 2, "--full", "--encoding",
              "here it would do nothing")
    encoding.pop("settle")
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps(encoding))
    _one_line(capsys, ["run", T2, "--encoding", plain, "--input=-2", "--full"], 2, "settle layers",
              "here it would do nothing")
    assert main(["run", str(T2), "--encoding", str(E2), "--input=-2", "--full"]) == 0  # where it acts


# -- 10: parsing inconsistencies ------------------------------------------------------------------------------

@pytest.mark.parametrize("name, text", [
    ("cr.circ", CIRC.read_text().replace("\n", "\r")),
    ("cr.bench", "# c\nINPUT(a)\nINPUT(b)\nOUTPUT(c)\nc = AND(a, b)\n".replace("\n", "\r")),
    ("mixed.bench", "INPUT(a)\r\nINPUT(b)\rOUTPUT(c)\nc = AND(a, b)\n"),
])
def test_a_lone_carriage_return_is_refused_with_a_true_message(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                               name: str, text: str) -> None:
    (tmp_path / name).write_bytes(text.encode())
    line = _one_line(capsys, ["info", tmp_path / name], 2, "carriage return", "lone CR")
    assert "empty" not in line


def test_crlf_line_breaks_still_read(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "crlf.circ").write_bytes(CIRC.read_text().replace("\n", "\r\n").encode())
    assert main(["info", str(tmp_path / "crlf.circ")]) == 0


@pytest.mark.parametrize("argv, option", [
    (["compile", CIRC, "-c", "gate-edge", "-K", "١٠", "-o", "out"], "--depth-bound"),
    (["compile", CIRC, "-K", "1_0", "-o", "out"], "--depth-bound"),
    (["info", "--family", "inner-product", "--n", "١٢"], "--n"),
    (["certify", CIRC, "-c", "gate-edge", "--jobs", "١"], "--jobs"),
    (["certify", CIRC, "--jobs", " 2"], "--jobs"),
])
def test_integer_options_take_ascii_digits_only(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch, argv: list[object],
                                                option: str) -> None:
    monkeypatch.chdir(tmp_path)
    _one_line(capsys, argv, 2, option, "invalid int value", "ASCII digits")
    assert list(tmp_path.iterdir()) == []


def test_a_negative_n_names_the_family_s_least_n(capsys: pytest.CaptureFixture[str]) -> None:
    _one_line(capsys, ["info", "--family", "inner-product", "--n", "-1"], 2, "at least 1, got -1")
    _one_line(capsys, ["info", "--family", "sum", "--n", "-1"], 2, "at least 0, got -1")


@pytest.mark.parametrize("spec", ["tcp://localhost:99999", "tcp://localhost:0"])
def test_a_cluster_port_outside_tcp_is_bad_input(capsys: pytest.CaptureFixture[str], spec: str) -> None:
    _one_line(capsys, ["certify", CIRC, "-c", "gate-edge", "--cluster", spec], 2, "--cluster", "not a TCP port")


def test_the_docs_say_where_an_input_line_may_continue(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    docs = (ROOT / "docs" / "cli.md").read_text()
    assert "in an `--inputs` file a line\nmay end with a comma and the vector go on" not in docs
    assert "in an `--input @FILE` file a\nline may end with a comma and the vector go on" in docs
    (tmp_path / "cont.txt").write_text("1,2,\n3\n")
    assert main(["eval", str(CIRC), f"--input=@{tmp_path / 'cont.txt'}"]) == 0  # @FILE: the vector goes on
    capsys.readouterr()
    _one_line(capsys, ["eval", CIRC, "--inputs", tmp_path / "cont.txt"], 2, "cont.txt:1", "comma at the end")
