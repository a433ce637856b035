"""Fixtures shared by several test modules: no solver at all and a lying solver (the kernel's solver trust), and a
real ``refute --json`` result (report's reader of refutations)."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest

from verified_aat.kernel import solvers


@pytest.fixture
def no_solver_at_all(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any solver call fails the test: the verdict must come from the kernel alone."""
    for name in list(solvers.SOLVERS):
        monkeypatch.setitem(solvers.SOLVERS, name, lambda text, timeout_ms: pytest.fail("a solver was asked"))


@pytest.fixture
def unsat_to_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    """A lying solver: unsat (valid) for every lemma, true or false."""
    for name in list(solvers.SOLVERS):
        monkeypatch.setitem(solvers.SOLVERS, name, lambda text, timeout_ms: solvers.UNSAT)


@pytest.fixture(scope="module")
def refute_result(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    """A real ``refute --json`` result (tests/mutants.py's MissingRescaling refuted on a 3-gate circuit), and the
    folder of its model."""
    from mutants import MissingRescaling

    from verified_aat.cli.main import main
    from verified_aat.report.diff import compiled_text

    folder = tmp_path_factory.mktemp("refute")
    model = folder / "mutant.json"
    model.write_text(compiled_text(MissingRescaling().transformer(3)))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["refute", str(model), "--json"]) == 1
    return json.loads(out.getvalue()), folder


@pytest.fixture
def candidate_link(monkeypatch: pytest.MonkeyPatch) -> None:
    """The linear construction's netlist link by candidates (cap mode's, and the default before the link by binary
    steps): the tests of that link's kernel (``netlist_link.py``) use it through ``pytestmark``."""
    from verified_aat.circuits import arithmetize
    monkeypatch.setattr(arithmetize, "STEP_LINK", False)


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A compiled T_K of specs/circuits/mixed_depth6.circ (gate-edge), its encoding and a certificate, made once a
    module (the output-file tests of test_file_safety and red team 25 write beside them)."""
    from verified_aat.cli.main import main
    mixed = Path(__file__).resolve().parents[1] / "specs" / "circuits" / "mixed_depth6.circ"
    base = tmp_path_factory.mktemp("work")
    compiled = base / "compiled"
    assert main(["compile", str(mixed), "-c", "gate-edge", "-o", str(compiled)]) == 0
    cert = base / "mixed.cert.json"
    assert main(["certify", str(mixed), "-c", "gate-edge", "--no-timings", "-o", str(cert)]) == 0
    return {"transformer": compiled / "transformer.json", "encoding": compiled / "encoding.json", "cert": cert}
