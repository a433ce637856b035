"""``run --inputs FILE`` and ``eval --inputs FILE``: many vectors in one start, checked before any run."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verified_aat.circuits.evaluate import evaluate
from verified_aat.circuits.families import build_family
from verified_aat.cli.common import MAX_INPUTS
from verified_aat.cli.main import main

RATIONALS = st.fractions(min_value=-9, max_value=9, max_denominator=5)


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    out = tmp_path_factory.mktemp("compiled") / "ip"
    assert main(["compile", "--family", "inner-product", "--n", "2", "-c", "gate-edge", "-o", str(out)]) == 0
    return {"model": str(out / "transformer.json"), "enc": str(out / "encoding.json")}


def _main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _text(vectors: list[list[Fraction]]) -> str:
    return "".join(",".join(str(v) for v in xs) + "\n" for xs in vectors)


INNER = build_family("inner-product", 2)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(vectors=st.lists(st.lists(RATIONALS, min_size=4, max_size=4), min_size=1, max_size=6))
def test_run_and_eval_print_one_line_per_vector(compiled, tmp_path: Path, capsys, vectors) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "xs.txt"
    path.write_text("# inputs x0 x1 y0 y1\n\n" + _text(vectors).replace("\n", "  # a comment\n", 1))
    want = [str(evaluate(INNER, xs)[0]) for xs in vectors]
    code, out, err = _main(capsys, "run", compiled["model"], "--encoding", compiled["enc"], "--inputs", str(path))
    assert code == 0 and out.splitlines() == want
    assert err.startswith(f"vectors: {len(vectors)}  ") and "key join: fetch, gather  all pairs: -" in err
    code, out, _ = _main(capsys, "eval", "--family", "inner-product", "--n", "2", "--inputs", str(path))
    assert code == 0 and out.splitlines() == [f"dot = {value}" for value in want]  # named as with --input
    # the same as one --input at a time
    code, out, _ = _main(capsys, "run", compiled["model"], "--encoding", compiled["enc"],
                         f"--input={','.join(map(str, vectors[-1]))}")
    assert code == 0 and out.splitlines()[0] == f"outputs: {want[-1]}"


def test_json_names_lines(compiled, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "xs.txt"
    path.write_text("1,2,3,4\n# skip\n\n1/2, -1, 0, 7   # spaces are fine around commas\n")
    code, out, _ = _main(capsys, "run", compiled["model"], "--encoding", compiled["enc"], "--inputs", str(path),
                         "--json")
    doc = json.loads(out)
    assert code == 0 and doc["vectors"] == 2
    assert [(r["line"], r["outputs"]) for r in doc["results"]] == [(1, ["11"]), (4, ["-7"])]
    assert doc["results"][1]["inputs"] == ["1/2", "-1", "0", "7"]
    assert ["fetch", "join"] in doc["stats"]["head_methods"] and doc["stats"]["score_evaluations"] == 0
    code, out, _ = _main(capsys, "eval", "--family", "inner-product", "--n", "2", "--inputs", str(path), "--json")
    doc = json.loads(out)
    assert code == 0 and [(r["line"], [o["value"] for o in r["outputs"]]) for r in doc["results"]] == \
        [(1, ["11"]), (4, ["-7"])]


def test_no_join_and_construction_options(compiled, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "xs.txt"
    path.write_text("1,2,3,4\n0,0,0,1\n")
    code, out, err = _main(capsys, "run", compiled["model"], "--encoding", compiled["enc"], "--inputs", str(path),
                           "--no-join")
    assert code == 0 and out.splitlines() == ["11", "0"] and "key join: -  all pairs: fetch, gather" in err
    code, out, err = _main(capsys, "run", compiled["model"], "--encoding", compiled["enc"], "--inputs", str(path),
                           "-c", "gate-edge", "--engine", "float64")
    assert code == 0 and out.splitlines() == ["11.0", "0.0"]


BAD = [
    ("1,2,3,4\n1,2,3\n", 2, "expected 4 inputs, got 3"),
    ("1,2,3,4\n\n# ok\n1,2,x,4\n", 4, "rational number"),
    ("1,2,3,4\n1,2,3,4/0\n", 2, "4/0"),
    ("# nothing here\n\n", None, "no input vectors"),
    ("1,2,3,4\n\x00\n", 2, "binary data"),
]


@pytest.mark.parametrize("text, line, fragment", BAD)
@pytest.mark.parametrize("command", ["run", "eval"])
def test_a_bad_line_is_one_error_and_nothing_runs(compiled, tmp_path: Path, capsys, text, line, fragment,  # type: ignore[no-untyped-def]
                                                  command) -> None:
    path = tmp_path / "xs.txt"
    path.write_text(text)
    argv = ([command, compiled["model"], "--encoding", compiled["enc"]] if command == "run"
            else [command, "--family", "inner-product", "--n", "2"])
    code, out, err = _main(capsys, *argv, "--inputs", str(path))
    assert code == 2 and out == ""  # the good first line was not run: every line is checked first
    assert err.count("\n") == 1 and fragment in err
    where = f"{path}:{line}: " if line is not None else f"{path}: "
    assert err.startswith(f"verified-aat: {where}")


@pytest.mark.parametrize("command", ["run", "eval"])
def test_the_limit_and_the_option_that_raises_it(compiled, tmp_path: Path, capsys, command) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "xs.txt"
    path.write_text("1,1,1,1\n" * 3)
    argv = ([command, compiled["model"], "--encoding", compiled["enc"]] if command == "run"
            else [command, "--family", "inner-product", "--n", "2"])
    code, out, err = _main(capsys, *argv, "--inputs", str(path), "--max-inputs", "2")
    assert code == 2 and out == "" and f"{path}:3: more than 2 input vectors (--max-inputs N raises" in err
    code, out, _ = _main(capsys, *argv, "--inputs", str(path), "--max-inputs", "3")
    assert code == 0 and out.splitlines() == [("2" if command == "run" else "dot = 2")] * 3
    code, _, err = _main(capsys, *argv, "--inputs", str(path), "--max-inputs", "0")
    assert code == 2 and "--max-inputs must be at least 1" in err
    assert MAX_INPUTS == 10_000


def test_inputs_combinations_that_make_no_sense(compiled, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "xs.txt"
    path.write_text("1,2,3,4\n")
    seq = tmp_path / "seq.json"
    from verified_aat.transformer.sequence import save_sequence
    save_sequence(seq, ["op", "a", "b", "val", "sq"], [[0, 0, 0, 0, 0]])
    run = ["run", compiled["model"]]
    for argv, fragment in [
        (run + ["--sequence", str(seq), "--inputs", str(path)], "--inputs goes with --encoding"),
        (run + ["--encoding", compiled["enc"], "--inputs", str(path), "--input", "1,2,3,4"], "takes no --input"),
        (run + ["--encoding", compiled["enc"], "--inputs", str(path), "--trace"], "--trace"),
        (run + ["--encoding", compiled["enc"], "--inputs", str(tmp_path / "missing.txt")], "missing.txt"),
        (["eval", "--family", "inner-product", "--n", "2", "--inputs", str(path), "--input", "1,2,3,4"],
         "either --input or --inputs"),
    ]:
        code, out, err = _main(capsys, *argv)
        assert code == 2 and out == "" and err.count("\n") == 1 and fragment in err, (argv, err)
    # '@FILE' inside an --inputs file is not followed
    path.write_text("@other.txt\n")
    code, out, err = _main(capsys, "eval", "--family", "inner-product", "--n", "2", "--inputs", str(path))
    assert code == 2 and f"{path}:1: " in err and "'@FILE' is not allowed" in err
