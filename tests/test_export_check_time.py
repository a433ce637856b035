"""``export --format onnx --max-time S``: onnx's ``check_model`` is C++ that the time limit's alarm cannot
interrupt (0.43 s CPU for 192,005 nodes, about 45 s at the 2·10⁷-node limit), so under a pending time limit it runs
in a forked child that the alarm's exception kills (``export/onnx_check.py``).  The stand-ins for the checker here
record the process they run in; no test measures time."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from verified_aat.cli.main import main

onnx = pytest.importorskip("onnx")
MODEL = Path(__file__).resolve().parent.parent / "specs" / "transformers" / "mixed_pooling.json"


def _export(tmp_path: Path, *extra: str) -> int:
    return main(["export", str(MODEL), "--format", "onnx", "-o", str(tmp_path / "m.onnx"), *extra])


def test_under_a_time_limit_the_checker_runs_in_a_child(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    where = tmp_path / "pid"
    real = onnx.checker.check_model

    def recording(model: object) -> None:
        where.write_text(str(os.getpid()))
        real(model)
    monkeypatch.setattr(onnx.checker, "check_model", recording)
    assert _export(tmp_path, "--max-time", "1000") == 0
    assert int(where.read_text()) != os.getpid() and (tmp_path / "m.onnx").stat().st_size > 0
    where.unlink()
    assert _export(tmp_path) == 0  # no time limit: checked here, as before
    assert int(where.read_text()) == os.getpid()
    capsys.readouterr()


def test_the_time_limit_stops_the_checker_and_reaps_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    where = tmp_path / "pid"

    def stuck(model: object) -> None:
        where.write_text(str(os.getpid()))
        time.sleep(3600)
    monkeypatch.setattr(onnx.checker, "check_model", stuck)
    assert _export(tmp_path, "--max-time", "0.5") == 3
    assert "limit reached (--max-time 0.5 s)" in capsys.readouterr().err
    child = int(where.read_text())
    assert child != os.getpid() and not (tmp_path / "m.onnx").exists()
    with pytest.raises(ProcessLookupError):  # killed and reaped, not left running or a zombie
        os.kill(child, 0)


def test_the_child_s_verdict_reaches_the_parent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    def refuses(model: object) -> None:
        raise onnx.checker.ValidationError("no such operator")
    monkeypatch.setattr(onnx.checker, "check_model", refuses)
    assert _export(tmp_path, "--max-time", "1000") == 3
    err = capsys.readouterr().err
    assert "no such operator" in err and not (tmp_path / "m.onnx").exists(), err
