"""The JSON transformer spec: round trips, shared functions, byte-stable saving, located errors."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import synthetic_gate_edge as synthetic
from transformer_strategies import sequences, transformers
from verified_aat.errors import InputError
from verified_aat.transformer.exact_engine import run_exact
from verified_aat.transformer.model import BilinearScore, Pooling
from verified_aat.transformer.spec import (dumps_transformer, load_transformer, save_transformer,
                                           transformer_from_json, transformer_to_json)

SPEC = """{
 "format": "verified-aat/transformer",
 "version": 1,
 "name": "demo",
 "coordinates": ["a", "v"],
 "functions": {
  "near": [
   "d = add i.a j.a",
   "n = mul -1 d d",
   "output n"
  ],
  "keep": ["output x.a h.v"]
 },
 "layers": [
  {"name": "L1", "heads": [{"name": "h", "pooling": "average", "score": "near"}], "activation": "keep"},
  {"name": "L2", "heads": [{"name": "h", "pooling": "leftmost", "score": {"bilinear": {"i.a j.a": "-1/2"}}}],
   "activation": ["s = add x.v h.v", "output x.a s"]}
 ],
 "notes": "free text"
}
"""


def _write(tmp_path: Path, text: str | bytes, name: str = "model.json") -> Path:
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


def test_load_the_example(tmp_path: Path) -> None:
    t = load_transformer(_write(tmp_path, SPEC))
    assert t.name == "demo" and t.coordinates == ("a", "v") and t.n_layers == 2
    assert t.layers[0].heads[0].pooling is Pooling.AVERAGE and t.layers[0].name == "L1"
    score = t.layers[1].heads[0].score
    assert isinstance(score, BilinearScore) and score.matrix[0][0] == -0.5 and score.matrix[1][1] == 0
    # L1: −(a_i + a_j)² is maximal at a_j = −a_i; v ← mean of v there
    assert run_exact(t, [[1, 2], [-1, 4], [-1, 6]]).outputs[0] == (1, 5 + 2)


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_round_trip(data: st.DataObject, tmp_path_factory: pytest.TempPathFactory) -> None:
    t0 = data.draw(transformers())
    doc = transformer_to_json(t0)
    assert json.loads(json.dumps(doc)) == doc
    t1 = transformer_from_json(doc)
    assert transformer_to_json(t1) == doc  # the text is a fixpoint
    assert transformer_from_json(transformer_to_json(t1)) == t1  # and parsing gives an equal transformer
    seq = data.draw(sequences(t0.dimension))
    assert run_exact(t1, seq).outputs == run_exact(t0, seq).outputs
    directory = tmp_path_factory.mktemp("spec")
    save_transformer(t0, directory / "a.json")
    save_transformer(t1, directory / "b.json")
    save_transformer(t0, directory / "a.json")
    assert (directory / "a.json").read_bytes() == (directory / "b.json").read_bytes()
    assert load_transformer(directory / "a.json") == t1


def test_repeated_layers_share_functions() -> None:
    for levels in (1, 5):
        t = synthetic.transformer(levels)
        doc = transformer_to_json(t)
        assert sorted(doc["functions"]) == ["fetch", "gather", "score_a", "score_b"]
        assert len(doc["layers"]) == 2 * levels
    text = dumps_transformer(synthetic.transformer(5))
    assert text == dumps_transformer(synthetic.transformer(5)) and text.endswith("\n")
    assert len(text.splitlines()) < 600


def test_editing_a_function_changes_every_layer_using_it() -> None:
    doc = json.loads(SPEC)
    doc["layers"].append(copy.deepcopy(doc["layers"][0]))
    doc["functions"]["keep"] = ["w = add h.v 1", "output x.a w"]
    t = transformer_from_json(doc)
    assert t.layers[0].activation is t.layers[2].activation
    assert run_exact(t, [[0, 1]]).outputs == ((0, 5),)  # v: 1 → 1+1 → 2+2 → 4+1


def test_distinct_circuits_with_one_name_get_distinct_keys() -> None:
    doc = json.loads(SPEC)
    doc["layers"].append({"name": "L3", "heads": [], "activation": ["output x.a x.a"]})
    doc["layers"].append({"name": "L4", "heads": [], "activation": ["output x.v x.v"]})
    out = transformer_to_json(transformer_from_json(doc))
    assert out["layers"][2]["activation"] != out["layers"][3]["activation"]
    assert out["layers"][2]["activation"] in out["functions"]
    assert "notes" not in out and transformer_to_json(transformer_from_json(doc), notes="n")["notes"] == "n"


def _line_of(text: str, needle: str) -> int:
    return text[:text.index(needle)].count("\n") + 1


def _edit(old: str, new: str) -> str:
    assert old in SPEC
    return SPEC.replace(old, new, 1)


ERRORS = [
    # (spec text, expected message fragment, the line's needle, or None for no line)
    (_edit('"n = mul -1 d d"', '"n = mul -1 d zz"'), "function 'near'", '"n = mul -1 d zz"'),
    (_edit('"n = mul -1 d d"', '"n = frob d"'), "unknown operation 'frob'", '"n = frob d"'),
    (_edit('"output x.a h.v"', '"output x.a h.q"'), "function 'keep'", '"output x.a h.q"'),
    (_edit('"s = add x.v h.v"', '"s = add x.v h.zz"'), "the activation of layer 2 (inline)", '"s = add x.v h.zz"'),
    (_edit('"score": "near"', '"score": "far"'), "unknown function 'far'", '"score": "far"'),
    (_edit('"pooling": "average"', '"pooling": "mean"'), "unknown pooling 'mean'", '"pooling": "mean"'),
    (_edit('"output x.a h.v"', '"output x.a"'), "must take 4 inputs and give 2 outputs", '"activation": "keep"'),
    (_edit('"output n"', '"output n n"'), "must take 4 inputs and give 1 output", '"score": "near"'),
    (_edit('"version": 1', '"version": 2'), "unsupported spec version 2", '"version": 2'),
    (_edit('"version": 1', '"version": true'), "unsupported spec version True", '"version": true'),
    (_edit('"format": "verified-aat/transformer"', '"format": "x"'), "not a transformer spec", '"format": "x"'),
    (_edit('"i.a j.a"', '"i.a j.b"'), "bad bilinear entry 'i.a j.b'", '"i.a j.b"'),
    (_edit('"-1/2"', '"1/0"'), "divides by zero", '"1/0"'),
    (_edit('"coordinates": ["a", "v"]', '"coordinates": ["a", "a"]'), "listed twice", '"coordinates"'),
    (_edit('"name": "h", "pooling": "leftmost"', '"name": "x", "pooling": "leftmost"'), "bad head name 'x'",
     '"name": "x"'),
    (_edit('"activation": "keep"', '"activation": 3'), "expected a function name or a list", '"activation": 3'),
    (_edit('"notes"', '"nots"'), "unknown key 'nots'", '"nots"'),
    (_edit('"format"', '"version": 1, "format"'), "duplicate key 'version'", '"version": 1,\n "name"'),
    (_edit('"layers": [', '"layers": [,'), "malformed JSON", '"layers": [,'),
]


@pytest.mark.parametrize("text, fragment, needle", ERRORS)
def test_errors_are_located(tmp_path: Path, text: str, fragment: str, needle: str) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(InputError) as info:
        load_transformer(path)
    err = info.value
    assert fragment in err.message
    assert err.file == str(path)
    assert err.line == _line_of(text, needle), str(err)
    assert "\n" not in str(err)


def test_error_inside_a_one_string_function(tmp_path: Path) -> None:
    doc = json.loads(SPEC)
    doc["functions"]["near"] = "d = add i.a j.a\nn = mul d\noutput n"
    text = json.dumps(doc, indent=1)
    with pytest.raises(InputError) as info:
        load_transformer(_write(tmp_path, text))
    assert "line 2 of its text" in info.value.message and "mul 'n' takes at least 2" in info.value.message
    assert info.value.line == _line_of(text, '"near"')


@pytest.mark.parametrize("content, fragment", [
    (b"", "empty file"),
    (b"  \n\n", "empty file"),
    (b"\x00\x01\x02binary", "binary"),
    (b"\xff\xfe\x00junk", "not a UTF-8 text file"),
    (b"[1, 2]", "must be a JSON object"),
    (b'{"format": "verified-aat/transformer", "version": 1, "coordinates": ["a"], "layers": [NaN]}', "NaN"),
])
def test_junk_files(tmp_path: Path, content: bytes, fragment: str) -> None:
    with pytest.raises(InputError, match=fragment):
        load_transformer(_write(tmp_path, content))


def test_missing_file_is_an_input_error_naming_it(tmp_path: Path) -> None:
    from verified_aat.errors import InputError
    with pytest.raises(InputError, match="No such file") as info:
        load_transformer(tmp_path / "nope.json")
    assert info.value.file == str(tmp_path / "nope.json")
