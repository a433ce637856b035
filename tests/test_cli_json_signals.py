"""Issue 12: interrupts leave nothing half-written (exit 130 / 143, one line), and ``--json``
for certify, check, refute, audit and info (one JSON object on stdout, schema in docs/cli.md)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import mutants
from verified_aat.circuits import io as circuit_io
from verified_aat.cli import main as cli_main
from verified_aat.cli import signals as cli_signals
from verified_aat.cli.json_output import EXIT_FOR_STATUS
from verified_aat.cli.main import main
from verified_aat.kernel import solvers as kernel_solvers
from verified_aat.transformer.spec import save_transformer

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "specs" / "circuits" / "mixed_depth6.circ"
ENVELOPE = ("schema", "command", "status", "exit_code", "reasons", "counts", "timings")


# -- interrupts -------------------------------------------------------------------------------

def _verified_aat() -> list[str]:
    script = Path(sys.executable).with_name("verified-aat")
    return [str(script)] if script.exists() else [sys.executable, "-m", "verified_aat.cli.main"]


def _wait_until_main_handles_sigterm(process: subprocess.Popen, limit: float = 120.0) -> None:
    """Wait until the CLI's main() has installed its SIGTERM handler (bit 15 of SigCgt in /proc/PID/status),
    not a fixed time: on a loaded machine importing the package can take longer than any fixed sleep."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline and process.poll() is None:
        try:
            status = Path(f"/proc/{process.pid}/status").read_text()
        except OSError:
            break
        caught = next((int(line.split()[1], 16) for line in status.splitlines() if line.startswith("SigCgt:")), 0)
        if caught & (1 << (signal.SIGTERM - 1)):
            return
        time.sleep(0.02)


@pytest.mark.parametrize("sig, code, word", [(signal.SIGINT, 130, "interrupted"),
                                             (signal.SIGTERM, 143, "terminated")])
def test_an_interrupted_certify_leaves_no_certificate_and_no_temporary_file(tmp_path, sig, code, word):
    process = subprocess.Popen(_verified_aat() + ["certify", "--family", "relu", "--n", "20000", "-o", "out.json"],
                               cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               restore_signals=True)
    _wait_until_main_handles_sigterm(process)
    time.sleep(0.3)
    assert process.poll() is None, "certify finished before the signal: use a larger family"
    process.send_signal(sig)
    out, err = process.communicate(timeout=120)
    assert process.returncode == code, err
    lines = err.decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith("verified-aat: ") and word in lines[0], lines
    assert "Traceback" not in err.decode() and out == b""
    assert os.listdir(tmp_path) == []  # no out.json, no .tmp-* file


@pytest.mark.parametrize("exc, code", [(KeyboardInterrupt, 130), (cli_main.Terminated, 143)])
def test_an_interrupt_while_writing_removes_the_temporary_file(tmp_path, monkeypatch, capsys, exc, code):
    def interrupted(src, dst):
        raise exc()
    monkeypatch.setattr(circuit_io.os, "replace", interrupted)
    target = tmp_path / "probe.cert.json"
    assert main(["certify", str(SPEC), "-o", str(target)]) == code
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert os.listdir(tmp_path) == []


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_worker_that_gets_sigterm_ends_as_sigterm_would_not_with_terminated():
    previous = cli_signals.install({signal.SIGTERM: cli_signals.raise_terminated})
    try:
        pid = os.fork()
        if pid == 0:  # the child: a worker process forked by a pool
            try:
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(5)
            finally:
                os._exit(7)
        _, status = os.waitpid(pid, 0)
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGTERM
    finally:
        cli_signals.restore(previous)


def test_the_sigterm_handler_is_restored_after_main(capsys):
    before = signal.getsignal(signal.SIGTERM)
    assert main(["info", str(SPEC)]) == 0
    assert signal.getsignal(signal.SIGTERM) is before


def test_the_exit_code_table_lists_130_and_143():
    text = (ROOT / "docs" / "cli.md").read_text()
    assert "| 130 |" in text and "| 143 |" in text


# -- --json -----------------------------------------------------------------------------------

def _json(capsys, *argv: str) -> tuple[int, dict]:
    code = main(list(argv))
    captured = capsys.readouterr()
    doc = json.loads(captured.out)  # the whole of stdout is one JSON object
    assert isinstance(doc, dict)
    for key in ENVELOPE:
        assert key in doc, key
    assert doc["exit_code"] == code == EXIT_FOR_STATUS[doc["status"]]
    assert isinstance(doc["reasons"], list) and isinstance(doc["counts"], dict)
    assert isinstance(doc["timings"], dict)
    return code, doc


@pytest.fixture(scope="module")
def certificate(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("json") / "mixed.cert.json"
    assert main(["certify", str(SPEC), "-o", str(path), "--no-timings"]) == 0
    return path


def test_certify_json_proved(tmp_path, capsys):
    cert = tmp_path / "c.json"
    code, doc = _json(capsys, "certify", str(SPEC), "-o", str(cert), "--json")
    assert code == 0 and doc["command"] == "certify" and doc["status"] == "proved"
    assert doc["certificate"] == str(cert) and cert.exists()
    assert doc["circuit"]["name"] == "mixed_depth6" and doc["circuit"]["gates"] == doc["counts"]["gates"] > 0
    assert doc["counts"]["positions"] == doc["transformer"]["positions"] > 0
    assert doc["counts"]["layers"] == doc["transformer"]["layers"] == 12
    assert doc["counts"]["lemmas"] == doc["lemmas"]["count"] > 0
    assert "total" in doc["timings"] and doc["counterexample"] is None and doc["reasons"] == []


def test_certify_json_refuted_by_an_edited_transformer(tmp_path, capsys):
    spec = tmp_path / "wrong.json"
    save_transformer(mutants.MissingRescaling().transformer(6), spec)
    cert = tmp_path / "never.json"
    code, doc = _json(capsys, "certify", str(SPEC), "--transformer", str(spec), "-o", str(cert), "--json")
    assert code == 1 and doc["status"] == "refuted" and doc["transformer"]["edited"] is True
    assert doc["certificate"] is None and not cert.exists()
    cex = doc["counterexample"]
    assert len(cex["inputs"]) == len(cex["input_vector"]) == doc["circuit"]["inputs"] == 3
    assert cex["first_mismatch"] is not None and cex["first_mismatch"]["agrees"] is False
    assert any(not o["agrees"] for o in cex["outputs"])


def test_certify_json_with_certificate_on_stdout_is_bad_input(capsys):
    assert main(["certify", str(SPEC), "-o", "-", "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.splitlines()) == 1 and "--json" in captured.err


def test_check_json_accepted(certificate, capsys):
    code, doc = _json(capsys, "check", str(certificate), "--json")
    assert code == 0 and doc["command"] == "check" and doc["status"] == "accepted"
    assert doc["theorem"].startswith("for every x") and "\n" not in doc["theorem"]
    assert doc["checks"] and all({"name", "result", "seconds"} <= set(c) for c in doc["checks"])
    assert doc["counts"]["checks"] == len(doc["checks"]) and doc["rejections"] == []


def test_check_json_rejected_names_check_step_rule_and_detail(certificate, tmp_path, capsys):
    other = tmp_path / "other.circ"
    other.write_text("input x\ny = mul x x\noutput y\n")
    code, doc = _json(capsys, "check", str(certificate), "--circuit", str(other), "--json")
    assert code == 1 and doc["status"] == "rejected" and doc["theorem"] is None
    rejection = doc["rejections"][0]
    assert set(rejection) == {"check", "step", "rule", "detail", "message", "data"} and rejection["check"] == "given-circuit"
    assert doc["reasons"] and doc["counts"]["rejections"] == len(doc["rejections"])


def test_check_json_not_checked(certificate, monkeypatch, capsys, tmp_path):
    monkeypatch.setitem(kernel_solvers.SOLVERS, "z3", lambda text, timeout: "unknown (timeout)")
    every_k = json.loads((Path(__file__).resolve().parents[1] / "proofs" / "constructions" /
                          "gate-edge.every-K.schematic.json").read_text())
    for entry in every_k["lemmas"]:
        entry.pop("proof", None)  # without its proof objects its ordering lemmas rest on the solver
    stripped = tmp_path / "no-objects.json"
    stripped.write_text(json.dumps(every_k))
    code, doc = _json(capsys, "check", str(stripped), "--json")
    assert code == 3 and doc["status"] == "not-checked" and doc["not_checked"]
    assert all(reason.startswith("not checked: ") for reason in doc["reasons"])


def test_check_json_bad_input_is_one_line_and_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main(["check", str(bad), "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.splitlines()) == 1


def test_refute_json_refuted_and_unknown(tmp_path, capsys):
    spec = tmp_path / "wrong.json"
    save_transformer(mutants.MissingRescaling().transformer(2), spec)
    code, doc = _json(capsys, "refute", str(spec), "--construction", "gate-edge", "--json")
    assert code == 1 and doc["command"] == "refute" and doc["status"] == "refuted"
    assert doc["counts"]["circuits_tried"] >= 1 and doc["circuit"]["gates"] >= 1
    cex = doc["counterexample"]
    assert len(cex["input_vector"]) == doc["circuit"]["inputs"] and cex["first_mismatch"]["agrees"] is False
    from verified_aat.constructions.registry import get_construction
    good = tmp_path / "good.json"
    save_transformer(get_construction("gate-edge").transformer(2), good)
    code, doc = _json(capsys, "refute", str(good), "--budget", "3", "--json")  # its lemmas hold: nothing to find
    assert code == 0 and doc["status"] == "proved" and doc["counterexample"] is None
    assert doc["reasons"][0].startswith("no counterexample exists: for every FSAC⁰[sign] circuit C of depth ≤ 2")
    one = tmp_path / "one.circ"
    one.write_text("circuit one\ninput x\ninput y\np = mul x y\ns = add p x x\noutput s\n")
    code, doc = _json(capsys, "refute", str(good), str(one), "--budget", "3", "--json")  # a search only
    assert code == 3 and doc["status"] == "unknown" and doc["counterexample"] is None
    assert "not a proof" in doc["reasons"][0]


def test_refute_json_on_a_spec_circuit(tmp_path, capsys):
    spec = tmp_path / "wrong.json"
    save_transformer(mutants.MissingRescaling().transformer(6), spec)
    code, doc = _json(capsys, "refute", str(spec), str(SPEC), "--json")
    assert code == 1 and doc["circuit"]["name"] == "mixed_depth6"


def test_audit_json_keeps_its_fields_and_adds_the_envelope(capsys):
    code, doc = _json(capsys, "audit", "-c", "gate-edge", str(SPEC), "--lengths", "2,3", "--samples", "2", "--json")
    assert code == 0 and doc["command"] == "audit" and doc["status"] == "passed" and doc["ok"] is True
    assert [row["n"] for row in doc["rows"]] == [2, 3] and doc["counts"]["lengths"] == 2
    assert {"depth", "size", "size_bound", "mismatches", "class_name"} <= set(doc["rows"][0])


def test_info_json_keeps_its_fields_and_adds_the_envelope(capsys):
    code, doc = _json(capsys, "info", str(SPEC), "--json")
    assert code == 0 and doc["command"] == "info" and doc["status"] == "ok"
    assert doc["name"] == "mixed_depth6" and doc["size"] == doc["counts"]["size"] and doc["class"]
    assert doc["counts"]["inputs"] == len(doc["inputs"])


@pytest.mark.parametrize("argv", [["info", "missing.circ", "--json"],
                                  ["certify", "--family", "nonsense", "--n", "3", "--json"],
                                  ["refute", "missing.json", "--json"],
                                  ["audit", "missing.json", "--json"]])
def test_json_bad_input_prints_no_json(argv, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.splitlines()) == 1


def test_every_status_is_documented():
    text = (ROOT / "docs" / "cli.md").read_text()
    for status in EXIT_FOR_STATUS:
        assert f"`{status}`" in text, status
