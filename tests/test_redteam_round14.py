"""Red team, round 14: classes of bugs found in this round, each with the test that failed before its fix."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from verified_aat.cli.main import main

SHIPPED = Path(__file__).resolve().parent.parent / "verified_aat" / "data" / "constructions"
BIG = "9" * 5000  # a JSON integer the readers take (≤ 10,000 digits) but Python's str() and repr() refuse (> 4,300)


def _one_line(capsys: pytest.CaptureFixture[str], path: Any, line: int | None) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    where = f"verified-aat: {path}:{line}: " if line is not None else f"verified-aat: {path}"
    assert err.startswith(where), err
    assert len(err) < 400, err[:400]
    return err


# -- a JSON integer past 4,300 digits where a reader echoes the value: bad input at its line, not "limit reached" -----

def test_a_huge_integer_in_a_construction_document_is_bad_input_at_its_line(tmp_path: Any,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads((SHIPPED / "edge-k.json").read_text(encoding="utf-8"))
    doc["name"] = "mine"
    doc["version"] = "@BIG@"
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(doc, indent=1).replace('"@BIG@"', BIG), encoding="utf-8")
    assert main(["construction", "check", str(path)]) == 2  # was 3: "unknown: limit reached", no file, no line
    assert "an integer of 5,000 digits" in _one_line(capsys, path, 3)


def test_a_huge_integer_in_a_transformer_or_an_encoding_is_bad_input(tmp_path: Any,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    circuit = tmp_path / "c.circ"
    circuit.write_text("input x\ny = mul x x\noutput y\n", encoding="utf-8")
    out = tmp_path / "out"
    assert main(["compile", str(circuit), "-c", "gate-edge", "-o", str(out)]) == 0
    capsys.readouterr()
    spec = json.loads((out / "transformer.json").read_text(encoding="utf-8"))
    spec["version"] = "@BIG@"
    bad_spec = tmp_path / "t.json"
    bad_spec.write_text(json.dumps(spec, indent=1).replace('"@BIG@"', BIG), encoding="utf-8")
    assert main(["run", str(bad_spec), "--encoding", str(out / "encoding.json"), "--input=2"]) == 2
    _one_line(capsys, bad_spec, None)
    enc = json.loads((out / "encoding.json").read_text(encoding="utf-8"))
    enc["roles"][0][1] = "@BIG@"
    bad_enc = tmp_path / "e.json"
    bad_enc.write_text(json.dumps(enc, indent=1).replace('"@BIG@"', BIG), encoding="utf-8")
    assert main(["run", str(out / "transformer.json"), "--encoding", str(bad_enc), "--input=2"]) == 2
    _one_line(capsys, bad_enc, None)
    enc = json.loads((out / "encoding.json").read_text(encoding="utf-8"))
    enc["rows"][0][0] = "@BIG@"  # a value of a row: a rational, read as one
    good_enc = tmp_path / "g.json"
    good_enc.write_text(json.dumps(enc, indent=1).replace('"@BIG@"', BIG), encoding="utf-8")
    assert main(["run", str(out / "transformer.json"), "--encoding", str(good_enc), "--input=2"]) == 0


# -- activation inputs whose SMT-LIB names meet: the engine proved a wrong T (the kernel refused it) -----------------

def _colliding_gate_edge(wrong: bool) -> dict[str, Any]:
    """gate-edge with head fetch renamed x_h and coordinate sq renamed h_val: x.h_val and x_h.val are both x_h_val in
    the lemmas' SMT-LIB text.  ``wrong``: the fetch copies the edge's own h_val (0) instead of the fetched val."""
    doc = json.loads((SHIPPED / "gate-edge.json").read_text(encoding="utf-8"))
    doc["name"] = "ge-clash"
    doc.pop("description")

    def renamed(line: str) -> str:
        return (line.replace("x.sq", "x.h_val").replace("fetch.", "x_h.").replace("gather.sq", "gather.h_val")
                .replace("sq=", "h_val="))
    functions = doc["transformer"]["functions"]
    for name, lines in functions.items():
        functions[name] = [renamed(line) for line in lines]
    if wrong:
        functions["activation-fetch"] = [line.replace("g19 = add x_h.val g18", "g19 = add x.h_val g18")
                                         for line in functions["activation-fetch"]]
    doc["transformer"]["block"][0]["heads"][0]["name"] = "x_h"
    doc["coordinates"] = ["h_val" if c == "sq" else c for c in doc["coordinates"]]
    for group in doc["positions"]:
        for row in group["row"].values():
            if "sq" in row:
                row["h_val"] = row.pop("sq")
    for rule in doc["schedule"].values():
        rule["claims"] = [["h_val" if c == "sq" else c, r, p] for c, r, p in rule["claims"]]
    doc["hints"]["x_h"] = doc["hints"].pop("fetch")
    return doc


@pytest.mark.parametrize("wrong", [False, True])
def test_a_head_and_a_coordinate_whose_smt_names_meet_are_refused_when_read(tmp_path: Any, wrong: bool,
                                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """Before: construction check passed, and certify --no-kernel said *proved* for the wrong T (the engine's lemma
    let x.h_val stand for x_h.val); with the kernel, unknown (the kernel's S11 check). Now it is bad input at the
    layer's heads: nothing made from the document could be checked."""
    path = tmp_path / "clash.json"
    path.write_text(json.dumps(_colliding_gate_edge(wrong), indent=1), encoding="utf-8")
    circuit = tmp_path / "c.circ"
    circuit.write_text("input a b\nm = mul a b\ns = add a m\noutput s\n", encoding="utf-8")
    assert main(["construction", "check", str(path)]) == 2
    heads_line = next(n for n, line in enumerate(path.read_text().splitlines(), 1) if '"heads"' in line)
    message = _one_line(capsys, path, heads_line)
    assert "x.h_val and x_h.val would both be x_h_val" in message
    assert main(["certify", str(circuit), "-c", str(path), "--no-kernel"]) == 2
    capsys.readouterr()


def test_the_python_api_refuses_such_a_transformer_too() -> None:
    from dataclasses import replace
    from verified_aat.constructions.registry import get_construction
    from verified_aat.transformer.model import Transformer
    T = get_construction("gate-edge").transformer(1)
    layers = [replace(layer, heads=tuple(replace(h, name="x_h") if h.name == "fetch" else h for h in layer.heads))
              for layer in T.layers]
    with pytest.raises(ValueError, match="x.h_val and x_h.val would both be x_h_val"):
        Transformer(("op", "a", "b", "val", "h_val"), layers, "clash")


# -- T_K's layers: a document's long block times K, and a spec file's layers, within the kernel's 100,000 ----------

def test_a_document_whose_t_k_has_more_layers_than_the_kernel_reads_is_a_limit(tmp_path: Any,
                                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """A block of 10,000 layers (gate-edge's two, 5,000 times: a right construction) at K = 30 made compile build and
    write 300,000 layers in 83 s and 690 MB, which the kernel refuses; at K = 10,000 it ran out of memory. Now the
    count is checked before anything is built: exit 3, limit reached, nothing written."""
    doc = json.loads((SHIPPED / "gate-edge.json").read_text(encoding="utf-8"))
    doc["name"] = "long-block"
    doc["transformer"]["block"] = doc["transformer"]["block"] * 5000
    path = tmp_path / "long.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    circuit = tmp_path / "c.circ"
    circuit.write_text("input a b\nm = mul a b\noutput m\n", encoding="utf-8")
    out = tmp_path / "out"
    assert main(["compile", str(circuit), "-c", str(path), "-K", "11", "-o", str(out)]) == 3
    err = capsys.readouterr().err
    assert "110,000 layers" in err and len(err.strip().splitlines()) == 1, err
    assert not out.exists()
    assert main(["compile", str(circuit), "-c", str(path), "-K", "1", "-o", str(out)]) == 0  # 10,000 layers: fine
    capsys.readouterr()
    spec = json.loads((out / "transformer.json").read_text(encoding="utf-8"))
    spec["layers"] = spec["layers"] * 10 + spec["layers"][:1]
    many = tmp_path / "many.json"
    many.write_text(json.dumps(spec), encoding="utf-8")
    assert main(["run", str(many), "--encoding", str(out / "encoding.json"), "--input=1,2"]) == 3
    assert "100,001 layers" in capsys.readouterr().err


# -- a duplicate key is reported at its own line, not at the second place its text occurs ---------------------------

def test_a_duplicate_key_is_reported_where_it_is_duplicated(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """The readers took the second occurrence of the key's text anywhere in the file: a duplicate "pooling" in
    edge-k's second head was reported at the first head's line (92 of 124)."""
    from verified_aat.limits import duplicate_key_line
    assert duplicate_key_line('{"a": {"b": 1},\n "c": {"b": 2,\n "d": "b", "\\u0062": 3}}') == 3
    assert duplicate_key_line('{"a": 1, "b": [{"a": 2}]}') is None
    circuit = tmp_path / "c.circ"
    circuit.write_text("input a b\nm = mul a b\noutput m\n", encoding="utf-8")
    out = tmp_path / "out"
    assert main(["compile", str(circuit), "-c", "edge-k", "-o", str(out)]) == 0
    capsys.readouterr()
    text = (out / "transformer.json").read_text(encoding="utf-8")
    at = text.rindex('"pooling": "average"')
    spec = tmp_path / "t.json"
    spec.write_text(text[:at] + '"pooling": "average", "pooling": "leftmost"' + text[at + 20:], encoding="utf-8")
    line = spec.read_text().count("\n", 0, at) + 1
    assert main(["run", str(spec), "--encoding", str(out / "encoding.json"), "--input=1,2"]) == 2
    assert "duplicate key 'pooling'" in _one_line(capsys, spec, line)
    doc = (SHIPPED / "edge-k.json").read_text(encoding="utf-8").replace('"name": "edge-k"', '"name": "mine"')
    at = doc.index('"input": "val"', doc.index('"role": "sink"'))
    bad_doc = tmp_path / "doc.json"
    bad_doc.write_text(doc[:at] + '"input": "val", "input": null' + doc[at + 14:], encoding="utf-8")
    assert main(["construction", "check", str(bad_doc)]) == 2
    _one_line(capsys, bad_doc, doc.count("\n", 0, at) + 1)
    gates = tmp_path / "c.json"
    gates.write_text('{"format": "verified-aat/circuit", "version": 1, "name": "c", "domain": "rationals",\n'
                     ' "inputs": ["x"], "gates": [{"name": "x", "op": "input", "args": []},\n'
                     '  {"name": "y", "op": "mul", "args": ["x", "x"], "name": "z"}],\n "outputs": ["y"]}\n',
                     encoding="utf-8")
    assert main(["info", str(gates)]) == 2
    _one_line(capsys, gates, 3)  # was no line at all


@pytest.mark.parametrize("value, message", [("NaN", "NaN is not allowed"), ("-Infinity", "-Infinity is not allowed"),
                                            ('"\\ud800x"', "lone UTF-16 surrogate"), ("7" * 10_001, "10,000 digits"),
                                            ('"a\\u0000b"', None), ('"\x00"', "NUL bytes")])
def test_json_errors_that_had_no_line_name_it(tmp_path: Any, capsys: pytest.CaptureFixture[str], value: str,
                                              message: str | None) -> None:
    """NaN, Infinity, a lone surrogate, a number past the digit limit and a NUL byte were reported with the file and
    no line (the readers' other errors have one)."""
    doc = (SHIPPED / "edge-k.json").read_text(encoding="utf-8").replace('"name": "edge-k"', '"name": "mine"')
    at = doc.index('"summary": ')
    path = tmp_path / "doc.json"
    path.write_text(doc[:at] + f'"paper2": {value},\n ' + doc[at:], encoding="utf-8")
    assert main(["construction", "check", str(path)]) == 2
    err = _one_line(capsys, path, doc.count("\n", 0, at) + 1)
    assert message is None or message in err, err


# -- an output that is a symbolic link to nothing --------------------------------------------------------------------

@pytest.mark.parametrize("command", ["certify", "compile"])
def test_a_dangling_symbolic_link_as_the_output_is_refused(tmp_path: Any, capsys: pytest.CaptureFixture[str],
                                                          command: str) -> None:
    """-o out.json, out.json -> elsewhere/x (no such file): the certificate was written to elsewhere/x, a file the
    command's user never named; compile -o LINK made the directory LINK points to."""
    circuit = tmp_path / "c.circ"
    circuit.write_text("input a b\nm = mul a b\noutput m\n", encoding="utf-8")
    (tmp_path / "elsewhere").mkdir()
    target = tmp_path / "elsewhere" / "x"
    link = tmp_path / "out.json"
    link.symlink_to(target)
    assert main([command, str(circuit), "-c", "edge-k", "-o", str(link)]) == 2
    assert "a symbolic link" in _one_line(capsys, link, None)
    assert not target.exists() and link.is_symlink()


# -- prove-construction: a document whose heads' attends are all wrong is still proved (the kernel proves the sets) -

def test_swapped_attends_of_two_heads_are_found(tmp_path: Any) -> None:
    """unique-hard-left with attends first: slot-1, second: slot-0 (T unchanged, so right): the retry changed one head
    at a time, and only when every failed lemma was an attention lemma (a wrong set fails its steps too): unknown.
    Now every choice of sets is tried, fewest changes first: proved."""
    from verified_aat.constructions.registry import resolve_construction
    from verified_aat.schematic.prove import prove_construction
    doc = json.loads((SHIPPED / "unique-hard-left.json").read_text(encoding="utf-8"))
    doc["name"] = "uhl-swapped"
    doc["attends"] = {"first": "slot-1", "second": "slot-0"}
    path = tmp_path / "uhl.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    result = prove_construction(resolve_construction(str(path)), witness_budget=5.0)
    assert result.status == "proved", result.problems


# -- an empty file name as an input ------------------------------------------------------------------------------------

@pytest.mark.parametrize("argv, where", [(["info", ""], "CIRCUIT"), (["check", ""], "CERT"),
                                         (["construction", "check", ""], "FILE"), (["report", "", "-o", "r.html"], "INPUT"),
                                         (["run", "", "--sequence", "s.json"], "MODEL")])
def test_an_empty_input_name_is_named_as_such(capsys: pytest.CaptureFixture[str], argv: list[str], where: str) -> None:
    """'verified-aat: <input>: cannot read JSON file: No such file or directory' (or ': No such file …' for check): the
    line named no argument. Now the argument, as for an empty output name."""
    assert main(argv) == 2
    assert capsys.readouterr().err.strip() == f"verified-aat: {where}: names no file: give a file name"
