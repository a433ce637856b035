"""Fixtures shared by the tests of the kernel's solver trust: no solver at all, and a lying solver."""

from __future__ import annotations

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
