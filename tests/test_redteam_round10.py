"""Red team, round 10: classes of bugs found in this round, each with the test that failed before its fix."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

# -- the solvers' total time is the runs' own times, added in job order, for any number of workers -------------------

_CLOCK = [0.0]  # a fake clock that only a solver run advances (each process has its own copy after a fork)


def _slow_unsat(text: str, timeout_ms: int | None) -> str:
    """A stand-in solver (module level, so forked workers run it): 19 ms of a 20 ms limit on the fake clock."""
    _CLOCK[0] += 0.019
    return "unsat"


@pytest.mark.parametrize("workers", [1, 2, 4])
def test_the_solvers_total_time_does_not_grow_with_the_number_of_workers(monkeypatch: pytest.MonkeyPatch,
                                                                        workers: int) -> None:
    """The total (TOTAL_FACTOR per-lemma limits) was a wall clock read between batches of ``workers`` runs, so an audit
    certificate's lemmas each just under the limit were *not checked* with ``--jobs 1`` and all asked, *accepted*, with
    ``--jobs 4`` (four times the solvers' time). Now each run's own time is added in job order, as one worker asks."""
    from verified_aat.kernel import solvers
    monkeypatch.setitem(solvers.SOLVERS, "z3", _slow_unsat)
    monkeypatch.setattr(solvers, "time", SimpleNamespace(monotonic=lambda: _CLOCK[0]))
    monkeypatch.setattr(solvers, "TOTAL_FACTOR", 2)
    answers = solvers.solve_all([("lemma", "z3")] * 8, 20, workers)
    assert answers[:3] == ["unsat"] * 3  # at 0, 19 and 38 ms of 40; at 57 ms the rest are not asked
    assert all("solvers ran past 2 times the limit" in a for a in answers[3:]), answers
