"""--max-time and --max-memory: a run past a limit stops as unknown (exit 3), never as a verdict."""

from __future__ import annotations

import os
import resource
import signal

import pytest

from verified_aat import kernel
from verified_aat.cli.main import main
from verified_aat.kernel import checks as kernel_checks

SPEC = os.path.join(os.path.dirname(__file__), "..", "specs", "circuits", "difference_of_squares.circ")


def test_a_certify_past_max_time_is_unknown_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "cert.json"
    assert main(["certify", "--family", "relu", "--n", "20000", "--max-time", "0.3", "-o", str(out)]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["verified-aat: unknown: limit reached (--max-time 0.3 s)"]
    assert not out.exists() and not list(tmp_path.iterdir())


def test_limits_are_restored_after_the_command(tmp_path):
    before = resource.getrlimit(resource.RLIMIT_AS), signal.getsignal(signal.SIGALRM)
    assert main(["certify", SPEC, "--max-time", "60", "--max-memory", "20000", "-o", str(tmp_path / "c.json")]) == 0
    assert (resource.getrlimit(resource.RLIMIT_AS), signal.getsignal(signal.SIGALRM)) == before
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


@pytest.mark.parametrize("argv, option", [(["--max-time", "0"], "--max-time"), (["--max-time", "-1"], "--max-time"),
                                          (["--max-time", "nan"], "--max-time"),
                                          (["--max-memory", "10"], "--max-memory")])
@pytest.mark.parametrize("command", ["certify", "check"])
def test_bad_limits_are_bad_input(command, argv, option, capsys):
    assert main([command, SPEC, *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and option in err[0]


def test_out_of_memory_in_the_kernel_is_not_checked_never_a_verdict(tmp_path, monkeypatch, capsys):
    cert = tmp_path / "c.json"
    assert main(["certify", SPEC, "-o", str(cert)]) == 0
    capsys.readouterr()
    index = next(i for i, c in enumerate(kernel_checks.CHECKS) if c.name == "obligations")

    def no_memory(ctx):
        raise MemoryError

    patched = list(kernel_checks.CHECKS)
    patched[index] = kernel_checks.Check("obligations", "S9", "patched", no_memory)
    monkeypatch.setattr(kernel_checks, "CHECKS", tuple(patched))
    report = kernel.check_certificate(kernel.load_certificate(str(cert)))
    assert report.outcome == "not-checked" and not report.accepted and not report.rejections
    assert any("out of memory" in u for u in report.unchecked)
    assert main(["check", str(cert)]) == 3


def test_out_of_memory_in_a_command_is_unknown(monkeypatch, capsys):
    from verified_aat.cli import info_cmd

    def no_memory(args):
        raise MemoryError

    monkeypatch.setattr(info_cmd, "run", no_memory)
    assert main(["info", SPEC]) == 3
    assert "unknown: limit reached" in capsys.readouterr().err
