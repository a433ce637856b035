"""The JSON line locator (transformer/jsonfile.py) and the audit's one exact runner per transformer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings, strategies as st

from verified_aat.audit import check as audit_check
from verified_aat.transformer.jsonfile import Locator, parse_json_text
from verified_aat.transformer.spec import transformer_from_json

SPEC = json.loads((Path(__file__).resolve().parent.parent / "specs" / "transformers" / "bilinear_scores.json").read_text())

values = st.recursive(st.one_of(st.integers(-5, 5), st.text("ab\n", max_size=3), st.booleans(), st.none()),
                      lambda inner: st.one_of(st.lists(inner, max_size=4),
                                              st.dictionaries(st.text("xyz", min_size=1, max_size=2), inner, max_size=4)),
                      max_leaves=20)


def _paths(value: Any, path: tuple = ()) -> list[tuple]:
    out = [path]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, path + (i,))
    return out


def _naive_lines(text: str, value: Any, indent: int | None) -> dict[tuple, int]:
    """Each value's line by a slow, obvious method: re-serialise with a marker at the value's place."""
    out = {}
    for path in _paths(value):
        marked = json.loads(text)
        if not path:
            continue
        parent = marked
        for key in path[:-1]:
            parent = parent[key]
        parent[path[-1]] = "\u0000MARK"
        shown = json.dumps(marked, indent=indent)
        at = shown.index('"\\u0000MARK"')
        out[path] = shown.count("\n", 0, at) + 1
        if isinstance(path[-1], str):  # a key's value starts on its key's line (json.dumps puts both on one line)
            out[path] = min(out[path], shown.count("\n", 0, shown.rindex(json.dumps(path[-1]), 0, at)) + 1)
    return out



@settings(max_examples=150, deadline=None)
@given(value=values, indent=st.sampled_from([None, 0, 1, 2]))
def test_the_locator_names_the_line_every_value_starts_on(value: Any, indent: int | None) -> None:
    text = json.dumps(value, indent=indent)
    data, locator = parse_json_text(text) if text.strip() else (None, None)
    if locator is None:
        return
    assert data == value
    for path, line in _naive_lines(text, value, indent).items():
        assert locator.line(path) == line, (path, text)
    assert Locator(text).line(()) == 1


def test_the_audit_compiles_t_once_for_all_its_samples(monkeypatch: Any) -> None:
    made: list[Any] = []

    class Counting(audit_check.ExactRunner):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            made.append(self)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(audit_check, "ExactRunner", Counting)
    transformer = transformer_from_json(SPEC)
    row = audit_check.audit_length(transformer, 3, audit_check.sample_sequences(3, transformer.dimension, 6))
    assert row.samples == 6 and row.mismatches == 0
    assert len(made) == 1  # a runner per sample compiled T's activations again for each (a fifth of a large audit)
