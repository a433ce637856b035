"""Red team, round 8: certificates forged with the kernel's own derivation against the paths earlier rounds did not
cover — the check on shards, netlist links, binarization records, schematic instances and documents.

Each test fails without its fix. The class of each fix is in its docstring.
"""

from __future__ import annotations

import copy
import pickle
from pathlib import Path
from typing import Any

import pytest

from verified_aat import api
from verified_aat.circuits.text_format import parse_circuit_text
from verified_aat.kernel import Options, check_certificate, checks, obligations, sharded
from verified_aat.shards import ForkedShards

# -- the check on shards: one work bound for the whole check, whatever the number of workers -----------------------

WIDE = ("input " + " ".join(f"x{i}" for i in range(40)) + "\n"
        "s = add " + " ".join(f"x{i}" for i in range(20)) + "\n"
        "t = add " + " ".join(f"x{i}" for i in range(20, 40)) + "\noutput s t\n")


@pytest.fixture(scope="module")
def wide_doc() -> dict[str, Any]:
    """Two sums of 20: the kernel's derivation reads 20 argmax-set members at each sum, 40 in all."""
    return dict(api.certificate(api.certify(parse_circuit_text(WIDE), "gate-edge", kernel=False), timings=False))


class _Copying:
    """Shards as Dask's workers are: each part runs on its own unpickled copy of the shared inputs."""

    def __init__(self, workers: int, fail_after_first: bool = False):
        self.workers, self.fail_after_first, self.merged = workers, fail_after_first, 0

    def map(self, fn, shared, parts):  # type: ignore[no-untyped-def]
        if self.fail_after_first:  # as ForkedShards: part 0 in this process, then a child fails
            fn(shared, parts[0])
            raise RuntimeError("a forked worker ended with status 9")
        results = [fn(pickle.loads(pickle.dumps(shared)), part) for part in parts]
        self.merged += 1  # the stripes were derived here (not in the fallback after a failure)
        return results


class _Budget(obligations.Reads):
    """A small budget for the means (module level, so that the copies of the shared inputs can pickle it)."""

    members = 0

    def __init__(self, positions: int):
        self.left = type(self).members


def _members_budget(monkeypatch: pytest.MonkeyPatch, members: int) -> None:
    """Shard from the first position, one position a block, and a budget of ``members`` members for the means."""
    monkeypatch.setattr(obligations, "PARALLEL_MIN_POSITIONS", 0)
    monkeypatch.setattr(sharded, "STRIPE", 1)
    monkeypatch.setattr(_Budget, "members", members)
    monkeypatch.setattr(checks, "Reads", _Budget)


@pytest.mark.parametrize("shards", [lambda: ForkedShards(2), lambda: _Copying(2), lambda: _Copying(5)],
                         ids=["forked", "copies", "five-copies"])
def test_the_means_bound_counts_every_stripe(wide_doc: dict[str, Any], monkeypatch: pytest.MonkeyPatch,
                                             shards: Any) -> None:
    """Each worker had its own copy of the budget, so k stripes could read k budgets: a 2.2 MB certificate (a
    gate-edge T whose gather reads gather.val - gather.val at its 201,250 edges) was *not checked* with --jobs 1 and
    ACCEPTED with the default --jobs 2, in 103 s. Now the stripes report what they read and the merge charges it."""
    _members_budget(monkeypatch, 30)
    sequential = check_certificate(copy.deepcopy(wide_doc), Options())
    given = shards()
    on_shards = check_certificate(copy.deepcopy(wide_doc), Options(shards=given))
    assert sequential.outcome == on_shards.outcome == "not-checked"
    assert "means read more argmax-set members" in on_shards.unchecked[0]
    assert getattr(given, "merged", 1) == 1  # the stripes were derived, not the fallback's sequential run


def test_a_failed_worker_leaves_the_whole_budget_to_the_derivation_in_process(wide_doc: dict[str, Any],
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """ForkedShards runs part 0 in the kernel's own process: when a child then failed, the sequential derivation that
    takes over started from the budget part 0 had spent, and an honest certificate within it was *not checked*."""
    _members_budget(monkeypatch, 45)
    assert check_certificate(copy.deepcopy(wide_doc), Options()).outcome == "accepted"
    report = check_certificate(copy.deepcopy(wide_doc), Options(shards=_Copying(2, fail_after_first=True)))
    assert report.outcome == "accepted", report.unchecked


# -- S12a: one budget of normal-form work for all lemmas of a certificate -----------------------------------------------

DATA = Path(__file__).resolve().parent / "data" / "redteam_round8"


def _mean_at_every_edge(fan_in: int) -> dict[str, Any]:
    """A forged gate-edge certificate whose gather activation adds gather.val − gather.val at every edge: each of the
    sum's ``fan_in`` edges gets its own true lemma with a mean of ``fan_in`` terms (its own source first)."""
    from forge import Forgery, forge

    from verified_aat.transformer.spec import load_transformer
    circuit = parse_circuit_text("input " + " ".join(f"x{i}" for i in range(fan_in)) + "\ns = add "
                                 + " ".join(f"x{i}" for i in range(fan_in)) + "\noutput s\n")
    return forge(Forgery(circuit, transformer=load_transformer(str(DATA / "gather_reads_at_edges.json"))))


def test_the_normal_forms_of_all_lemmas_share_one_budget(monkeypatch: pytest.MonkeyPatch,
                                                         no_solver_at_all: None) -> None:
    """Each lemma's normal form had a budget (5·10^6 units), the certificate none: 307 such lemmas (fan-in 300), a
    48 KB gzipped certificate, took each 0.9 s, about 270 s of CPU in all. Now past NORMAL_WORK units
    for all lemmas together the rest are neither decided nor sent to a solver: *not checked* (37 s)."""
    from verified_aat.kernel import discharge
    doc = _mean_at_every_edge(12)
    assert check_certificate(copy.deepcopy(doc), Options()).outcome == "accepted"  # true lemmas, all by normal form
    monkeypatch.setattr(discharge, "NORMAL_WORK", 20_000)
    report = check_certificate(copy.deepcopy(doc), Options())
    assert report.outcome == "not-checked" and report.solver_runs == 0
    assert any("normal form passed 20000 units" in line for line in report.unchecked)


def test_a_lemma_gets_no_more_normal_form_work_than_the_certificate_has_left(monkeypatch: pytest.MonkeyPatch,
                                                                            no_solver_at_all: None) -> None:
    """The certificate's budget was checked before each lemma, which then had its own whole budget (10^7 units since
    issue 22): the total could pass NORMAL_WORK by a lemma's budget. Now a lemma has at most what is left."""
    from verified_aat.kernel import discharge
    spent = []

    def spy(text: str, tally: list[int], left: int) -> bool | None:
        spent.append(left)
        try:
            return decide(text, tally, left)
        finally:
            spent.append(tally[0])

    decide = discharge.decide
    monkeypatch.setattr(discharge, "decide", spy)
    monkeypatch.setattr(discharge, "NORMAL_WORK", 25_000)
    report = check_certificate(copy.deepcopy(_mean_at_every_edge(12)), Options())
    assert report.outcome == "not-checked"
    lefts, tallies = spent[0::2], spent[1::2]
    assert lefts[0] == 25_000 and all(t1 + left == 25_000 for t1, left in zip(tallies, lefts[1:]))
    assert max(tallies) <= 25_000 + 500  # past it by one node's terms (113 here), not by a lemma's (about 1,700 here)
    assert max(tallies) > 25_000 - 2_000  # the lemma that met the bound used what was left
