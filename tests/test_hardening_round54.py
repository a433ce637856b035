"""Stop 54: one verdict for a netlist given with ``check --circuit`` that is not the certificate's.

A certificate whose netlist link is by candidates (``certify --cap N``) is *not checked* without
``--candidate-link``, as that link's modules are past issue 19's count; but a netlist given with ``--circuit`` that
is not the section's was then *not checked* too, where the link by binary steps and ``--candidate-link`` reject it.
Now all three reject it (``agreement.other_netlist``, reject-only), with the same reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from verified_aat.cli.main import main

SHARED = Path(__file__).resolve().parents[2] / "shared" / "circuits" / "iscas85"
REASON = "is not the certificate's embedded netlist c17.bench"


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("c17")
    made = {"steps": tmp / "steps.json", "candidates": tmp / "cap.json"}
    assert main(["certify", str(SHARED / "c17.bench"), "-c", "gate-edge", "-o", str(made["steps"])]) == 0
    assert main(["certify", str(SHARED / "c17.bench"), "-c", "gate-edge", "--cap", "3",
                 "-o", str(made["candidates"])]) == 0
    return made


@pytest.mark.parametrize("link, options", [("steps", []), ("candidates", []), ("candidates", ["--candidate-link"])])
def test_another_netlist_is_rejected_whichever_link_and_option(certificates, capsys, link, options) -> None:  # type: ignore[no-untyped-def]
    capsys.readouterr()
    assert main(["check", str(certificates[link]), "--circuit", str(SHARED / "c432.bench"), *options]) == 1
    out = capsys.readouterr().out
    assert REASON in out and "c432.bench" in out and "not checked  the netlist section" not in out


def test_the_certificates_own_netlist_is_still_not_checked_without_the_option(certificates, capsys) -> None:  # type: ignore[no-untyped-def]
    """The same netlist byte for byte: the candidate link is not read (exit 3), and read when asked (exit 0)."""
    capsys.readouterr()
    assert main(["check", str(certificates["candidates"]), "--circuit", str(SHARED / "c17.bench")]) == 3
    assert "--candidate-link" in capsys.readouterr().out
    assert main(["check", str(certificates["candidates"]), "--circuit", str(SHARED / "c17.bench"),
                 "--candidate-link"]) == 0


BILINEAR = Path(__file__).resolve().parents[1] / "specs" / "transformers" / "bilinear_scores.json"


@pytest.mark.parametrize("first, engine, warned", [("1", "float64", None), ("1/10", "float64", "1/10"),
                                                    ("12345678901234567890", "float64", "12345678901234567890"),
                                                    ("1/3", "float32", "1/3"), ("3/4", "float32", None)])
def test_a_float_run_of_a_sequence_warns_when_the_dtype_rounds_it(tmp_path, capsys, first, engine, warned) -> None:  # type: ignore[no-untyped-def]
    """``run --sequence`` with a float engine rounded the sequence's values silently (an encoding's run warned since
    red team 28): now one warning naming the first value the dtype cannot hold; none where every value is exact."""
    import json
    sequence = tmp_path / "seq.json"
    sequence.write_text(json.dumps({"format": "verified-aat/sequence", "version": 1, "coordinates": ["k", "v", "w"],
                                    "vectors": [[first, "2", "3"], ["4", "5", "6"]]}))
    capsys.readouterr()
    assert main(["run", str(BILINEAR), "--sequence", str(sequence), "--engine", engine]) == 0
    err = capsys.readouterr().err
    if warned is None:
        assert "warning" not in err
    else:
        assert f"warning: {warned} in the sequence is not a {engine}" in err and err.count("\n") == 1


def test_refute_candidates_at_a_large_k_are_built_one_at_a_time_and_stay_small() -> None:
    """``refute -K 10000`` (K ≤ 10⁴ is allowed) built every lifted and stacked candidate before its first search: at
    K = 10⁴ the stacked ones alone were 20 circuits of 5·10⁷ gates.  Now each is built when asked for, and past
    STACKED_MAX_GATES a shape computed at every depth comes as one circuit per depth, each computing the shape."""
    from itertools import islice

    from verified_aat.circuits.evaluate import evaluate
    from verified_aat.circuits.measures import depth
    from verified_aat.refutation.candidates import STACKED_MAX_GATES, _basic, candidate_circuits

    for k in (1000, 10_000):
        first = list(islice(candidate_circuits(400, max_depth=k), 120))
        assert all(c.size <= STACKED_MAX_GATES and depth(c) <= k for c in first)
        carried = [c for c in first if "-to-" in c.name and "every" not in c.name and c.n_edges > 1]  # add() reads
        assert len(carried) >= 10 and {depth(c) for c in carried} == {k}  # nothing: at depth 1 at any lift
        for c in carried[:6]:
            shape = next(s for s in _basic() if c.name.startswith(s.name + "-at-depth+"))
            xs = [k % 7 - 3 + i for i in range(shape.n_inputs)]
            assert list(evaluate(c, xs)) == list(evaluate(shape, xs)), c.name


def test_a_counterexample_on_a_circuit_with_no_inputs_says_so() -> None:
    """A shrunk witness may have no inputs (red team 30: a needle edit wrong at the constant 7 shrank to ``const 7``);
    its report's ``inputs:`` was an empty list."""
    from fractions import Fraction

    from verified_aat.refutation.search import Counterexample

    found = Counterexample((), (), (Fraction(7),), (Fraction(8),), ("g0",), ())
    text = found.report()
    assert "  inputs:\n    none (the circuit has no inputs)\n" in text and "g0: circuit 7, transformer 8" in text
