"""``verified-aat report`` of a malformed ``refute --json`` result: one ``file:line`` error, exit 2, nothing written.

Each defect below crashed (a traceback, exit 1) or rendered silently before the schema check of
``report/refute_schema.py``; a hypothesis test then mutates a valid result (dropped keys, retyped
values) and asserts that report never crashes: exit 0 with a page, or exit 2 with one line and no page.
"""

from __future__ import annotations

import copy
import json
import os
import sys
from pathlib import Path
from typing import Any, Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verified_aat.cli.main import main

sys.path.insert(0, str(Path(__file__).resolve().parent))


def _report(doc: Any, folder: Path, capsys: pytest.CaptureFixture[str], name: str = "bad") -> tuple[int, str, Path]:
    """Write ``doc`` as ``name``.json, run report on it; (exit code, stderr, the -o target)."""
    source, target = folder / f"{name}.json", folder / f"{name}.html"
    if target.exists():
        target.unlink()
    source.write_text(json.dumps(doc, indent=1) if not isinstance(doc, str) else doc)
    capsys.readouterr()
    code = main(["report", str(source), "-o", str(target), "--layout", "python"])
    return code, capsys.readouterr().err, target


def _assert_refused(code: int, err: str, target: Path, folder: Path, name: str = "bad") -> str:
    assert code == 2, err
    assert err.count("\n") == 1 and err.endswith("\n"), err
    assert err.startswith(f"verified-aat: {folder / name}.json:"), err  # names the file (and a line)
    assert "Traceback" not in err and "<input>" not in err
    assert not target.exists()
    return err


def _set(path: tuple[Any, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(doc: dict[str, Any]) -> None:
        for key in path[:-1]:
            doc = doc[key]
        doc[path[-1]] = value
    return edit


DEFECTS: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "counterexample-is-a-string": (_set(("counterexample",), "oops"), "$.counterexample: must be an object"),
    "inputs-is-a-list": (_set(("counterexample", "inputs"), ["1", "2"]), "$.counterexample.inputs: must be an object"),
    "steps-is-a-number": (_set(("counterexample", "steps"), 5), "$.counterexample.steps: must be a list"),
    "step-is-a-string": (_set(("counterexample", "steps", 0), "x0"), "$.counterexample.steps[0]: must be an object"),
    "proved-without-counterexample": (lambda d: (d.__setitem__("status", "proved"), d.pop("counterexample")),
                                      "$.counterexample: missing (a required key)"),
    "proved-is-nothing-to-draw": (lambda d: (d.__setitem__("status", "proved"), d.__setitem__("exit_code", 0)),
                                  "$.status: proved: this refute --json result has no refuting circuit"),
    "status-is-a-verdict-of-check": (_set(("status",), "accepted"), "$.status: must be one of refuted, unknown, proved"),
    "unknown-schema-version": (_set(("schema",), "verified-aat/cli-result/2"), "$.schema: must be one of"),
    "input-divides-by-zero": (_set(("counterexample", "inputs", "x0"), "1/0"),
                              "$.counterexample.inputs.x0: zero denominator"),
    "input-is-nan": (_set(("counterexample", "inputs", "x1"), "nan"),
                     "$.counterexample.inputs.x1: not an exact rational"),
    "value-is-a-float": (_set(("counterexample", "steps", 2, "circuit_value"), 2.0),
                         "$.counterexample.steps[2].circuit_value: must be a rational as a string"),
    "negative-position": (_set(("counterexample", "first_mismatch", "position"), -1),
                          "$.counterexample.first_mismatch.position: must be a natural number"),
    "position-past-the-end": (_set(("counterexample", "steps", 1, "position"), 99),
                              "$.counterexample.steps[1].position: position 99 is past"),
    "unknown-construction": (_set(("construction",), "nope"), "$.construction: must be one of"),
    "wrong-exit-code": (_set(("exit_code",), 0), "$.exit_code: must be 1 for status refuted"),
    "bad-circuit": (_set(("circuit", "text"), "circuit c\ninput x0\ng2 = frob x0\noutput g2\n"),
                    "$.circuit.text: gate 'g2': unknown operation 'frob'"),
    "model-is-dev-zero": (_set(("model",), "/dev/zero"), "$.model: the model /dev/zero is not a regular file"),
    "model-is-missing": (_set(("model",), "/nonexistent/m.json"), "$.model: cannot read the model"),
    "status-unknown": (lambda d: d.update(status="unknown", exit_code=3), "$.status: unknown: this refute --json"),
}


@pytest.mark.parametrize("name", sorted(DEFECTS))
def test_a_malformed_refute_json_is_one_error(name: str, refute_result: tuple[dict[str, Any], Path], capsys) -> None:
    doc, folder = copy.deepcopy(refute_result[0]), refute_result[1]
    edit, message = DEFECTS[name]
    edit(doc)
    code, err, target = _report(doc, folder, capsys, name)
    _assert_refused(code, err, target, folder, name)
    assert message in err, err


def test_the_error_is_at_the_line_of_the_offending_key(refute_result: tuple[dict[str, Any], Path], capsys) -> None:
    doc, folder = copy.deepcopy(refute_result[0]), refute_result[1]
    doc["counterexample"]["inputs"]["x1"] = "nan"
    code, err, target = _report(doc, folder, capsys, "line")
    lines = (folder / "line.json").read_text().splitlines()
    number = int(err.split(":")[2])
    assert '"x1": "nan"' in lines[number - 1], (number, err)


def test_a_fifo_model_is_refused_without_opening_it(refute_result: tuple[dict[str, Any], Path], capsys) -> None:
    doc, folder = copy.deepcopy(refute_result[0]), refute_result[1]
    fifo = folder / "model.fifo"
    if not fifo.exists():
        os.mkfifo(fifo)  # opening it for reading would block: the test would hang, not fail
    doc["model"] = str(fifo)
    code, err, target = _report(doc, folder, capsys, "fifo")
    assert "is not a regular file" in _assert_refused(code, err, target, folder, "fifo")


def test_the_valid_result_is_drawn(refute_result: tuple[dict[str, Any], Path], capsys) -> None:
    doc, folder = refute_result
    code, err, target = _report(doc, folder, capsys, "good")
    assert code == 0 and target.exists() and 'data-status="refuted"' in target.read_text()


def test_the_api_names_no_file_as_input() -> None:
    """render_html of a dict: the error names the source, never ``<input>``."""
    from verified_aat.errors import InputError
    from verified_aat.report import render_html

    with pytest.raises(InputError) as info:
        render_html({"command": "refute", "status": "refuted"})
    assert "<input>" not in str(info.value) and "$.schema" in str(info.value)


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every key path of a JSON value (not the root)."""
    out = [path] if path else []
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in items:
        out += _paths(child, path + (key,))
    return out


JUNK = st.one_of(st.none(), st.booleans(), st.integers(-3, 10**6), st.floats(allow_nan=False),
                 st.sampled_from(["", "nan", "1/0", "-3/4", "x0", "refuted", "gate-edge", "/dev/zero", "add"]),
                 st.lists(st.integers(0, 3), max_size=2), st.dictionaries(st.sampled_from(["a", "x0"]),
                                                                          st.sampled_from(["1", 1]), max_size=2))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_mutated_refute_json_never_crashes(refute_result: tuple[dict[str, Any], Path], capsys, data: st.DataObject) -> None:
    doc, folder = copy.deepcopy(refute_result[0]), refute_result[1]
    for _ in range(data.draw(st.integers(1, 3))):
        paths = _paths(doc)
        if not paths:
            break
        path = data.draw(st.sampled_from(paths))
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        if isinstance(parent, dict) and data.draw(st.booleans()):
            del parent[path[-1]]
        else:
            parent[path[-1]] = data.draw(JUNK)
    code, err, target = _report(doc, folder, capsys, "mutant")
    assert "Traceback" not in err
    if code == 2:
        _assert_refused(code, err, target, folder, "mutant")
    else:
        assert code == 0 and target.exists(), err
