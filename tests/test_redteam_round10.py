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


# -- the defence tests the kernel's argmax sets against the actual scores past 200 positions ------------------------

def _sum_circuit(n: int):  # type: ignore[no-untyped-def]
    from verified_aat.circuits.text_format import parse_circuit_text
    inputs = " ".join(f"x{i}" for i in range(n))
    return parse_circuit_text(f"input {inputs}\ns = add {inputs}\noutput s\n")


@pytest.mark.parametrize("n, head, budget", [(50, "fetch", None), (150, "fetch", None), (150, "gather", 400)])
def test_a_false_key_lemma_that_a_lying_solver_lets_through_is_caught_at_any_length(monkeypatch: pytest.MonkeyPatch,
                                                                                     n: int, head: str,
                                                                                     budget: int | None) -> None:
    """gate-edge's T with its fetch score made the constant 0 (every position attends to all), forged with the honest
    key hints: every obligation holds over the kernel's sets, and only the key lemma is false. A solver that answers
    unsat to everything let it through; past 200 positions the defence pooled over the kernel's sets too, so the
    certificate was ACCEPTED (at 101 positions its all-pairs run rejected it). Now it tests the sets against the
    actual scores at evenly spread positions, and the heads of layers the full run did not reach (a budget of 400
    activation evaluations runs layer 1 of 301 positions: the gather head's sets were used only by the sampled steps)
    on the run's last state."""
    from forge import Forgery, forge, verdict
    from verified_aat.certificates.kernel_form import transformer_form
    from verified_aat.constructions.registry import get_construction
    from verified_aat.kernel import solvers
    circuit = _sum_circuit(n)
    T = transformer_form(get_construction("gate-edge").compile(circuit).transformer)
    T["functions"].append({"gates": [["input", i] for i in range(10)] + [["const", "0"]], "outputs": [10]})
    for layer in T["layers"]:
        for spec in layer["heads"]:
            if spec["name"] == head:
                spec["score"] = len(T["functions"]) - 1
    doc = forge(Forgery(circuit, T))
    monkeypatch.setitem(solvers.SOLVERS, "z3", lambda text, timeout_ms: "unsat")
    report = verdict(doc, jobs=1, defence_budget=budget)
    assert report.outcome == "rejected" and report.rejections[0].check == "defence", report.reasons
    honest = verdict(forge(Forgery(circuit)), jobs=1)
    assert honest.outcome == "accepted", honest.reasons
