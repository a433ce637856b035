"""``verified-aat run``: sequences, encodings, engines, trace/JSON output and one-line errors."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from verified_aat.cli.main import main
from verified_aat.constructions.encoding import Encoding, Role
from verified_aat.transformer.sequence import dumps_sequence, load_sequence, save_sequence

# Layer 1 (average): v ← v + mean of v over the positions with the same k.
# Layer 2 (softmax-free, rightmost): s = j.k, so everyone reads the rightmost position of largest k.
MODEL = """{
 "format": "verified-aat/transformer",
 "version": 1,
 "name": "cli-demo",
 "coordinates": ["k", "v"],
 "functions": {
  "same_key": [
   "m = mul -1 j.k",
   "d = add i.k m",
   "ignored = mul j.v j.v",
   "s = mul -1 d d",
   "output s"
  ]
 },
 "layers": [
  {"name": "gather", "heads": [{"name": "h", "pooling": "average", "score": "same_key"}],
   "activation": ["w = add x.v h.v", "output x.k w"]},
  {"name": "top", "heads": [{"name": "t", "pooling": "rightmost", "score": ["output j.k"]}],
   "activation": ["w = add x.v t.v", "output x.k w"]}
 ]
}
"""
VECTORS = [[0, 1], [1, Fraction(1, 2)], [0, 3], [1, -2]]
# by hand: layer 1 — k=0 {0,2}: mean 2 → v = 3, 5; k=1 {1,3}: mean -3/4 → v = -1/4, -11/4
#          layer 2 — rightmost of max k = position 3 (v = -11/4) → v += -11/4
EXPECTED = [[0, "1/4"], [1, "-3"], [0, "9/4"], [1, "-11/2"]]


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    model = tmp_path / "model.json"
    model.write_text(MODEL)
    seq = tmp_path / "seq.json"
    save_sequence(seq, ["k", "v"], VECTORS)
    # an "encoding" of a circuit with two inputs placed at v of positions 0 and 1, read out at positions 2, 3
    rows = tuple(tuple(Fraction(v) for v in row) for row in [[0, 0], [1, 0], [0, 3], [1, -2]])
    enc = Encoding("demo", ("k", "v"), rows, ((0, 1, 0), (1, 1, 1)), ((2, 1), (3, 1)),
                   tuple(Role("gate", g) for g in range(4)), 2)
    encoding = tmp_path / "enc.json"
    encoding.write_text(enc.dumps())
    return {"model": model, "seq": seq, "enc": encoding, "dir": tmp_path}


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["run", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_sequence_exact(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, str(files["model"]), "--sequence", str(files["seq"]))
    assert code == 0 and err == ""
    for p, (k, v) in enumerate(EXPECTED):
        assert f"  {p}: [{k}, {v}]" in out
    assert "positions: 4  layers: 2  engine: exact" in out


def test_sequence_json_and_trace(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, str(files["model"]), "--sequence", str(files["seq"]), "--json", "--trace")
    doc = json.loads(out)
    assert code == 0 and doc["vectors"] == [[str(k), v] for k, v in EXPECTED]
    assert doc["trace"][0]["argmax"]["h"] == [[0, 2], [1, 3], [0, 2], [1, 3]]
    assert doc["trace"][1]["argmax"]["t"] == [[1, 3]] * 4
    assert doc["trace"][0]["vectors"][1] == ["1", "-1/4"]
    code, out, _ = _run(capsys, str(files["model"]), "--sequence", str(files["seq"]), "--trace")
    assert "after gather:" in out and "  1: [1, -1/4]  h->{1,3}" in out


def test_float_engines(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    for engine in ("float64", "float32"):
        code, out, _ = _run(capsys, str(files["model"]), "--sequence", str(files["seq"]), "--engine", engine,
                            "--json", "--trace")
        doc = json.loads(out)
        assert code == 0 and doc["engine"] == engine
        assert doc["vectors"] == [[float(Fraction(k)), float(Fraction(v))] for k, v in EXPECTED]
        assert len(doc["trace"]) == 2
    code, out, _ = _run(capsys, str(files["model"]), "--sequence", str(files["seq"]), "--engine", "float64")
    assert "  3: [1.0, -5.5]" in out


def test_encoding_with_input(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, str(files["model"]), "--encoding", str(files["enc"]), "--input=1,1/2")
    assert code == 0 and err == ""
    # the sequence is VECTORS again, so the read-out is v at positions 2 and 3
    assert "outputs: 9/4, -11/2" in out and "positions: 4  layers: 2" in out
    code, out, _ = _run(capsys, str(files["model"]), "--encoding", str(files["enc"]), "--input", "1, 1/2",
                        "--json")
    assert json.loads(out)["outputs"] == ["9/4", "-11/2"]


def _one_line_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code, out, err = _run(capsys, *argv)
    assert code == 2, (out, err)
    assert out == "" and err.count("\n") == 1 and err.startswith("verified-aat: ")
    return err.strip()


def test_input_count_mismatch(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    err = _one_line_error(capsys, str(files["model"]), "--encoding", str(files["enc"]), "--input", "1,2,3")
    assert err.endswith("expected 2 inputs, got 3") and "--input" in err  # parsed as eval parses it
    err = _one_line_error(capsys, str(files["model"]), "--encoding", str(files["enc"]))
    assert err.endswith("expected 2 inputs, got 0")
    err = _one_line_error(capsys, str(files["model"]), "--encoding", str(files["enc"]), "--input", "1,x")
    assert "'x' is not a rational number" in err and "--input" in err
    err = _one_line_error(capsys, str(files["model"]), "--sequence", str(files["seq"]), "--input", "1")
    assert "--input goes with --encoding" in err


@pytest.mark.parametrize("old, new, fragment, needle", [
    ('"d = add i.k m"', '"d = add i.k j.q"', "function 'same_key'", '"d = add i.k j.q"'),
    ('"pooling": "average"', '"pooling": "avg"', "unknown pooling 'avg'", '"pooling": "avg"'),
    ('"score": ["output j.k"]', '"score": ["output j.k j.v"]', "must take 4 inputs and give 1 output",
     '"score": ["output j.k j.v"]'),
    ('"version": 1', '"version": 7', "unsupported spec version 7", '"version": 7'),
    ('"score": "same_key"', '"score": "nope"', "unknown function 'nope'", '"score": "nope"'),
    ('"activation": ["w = add x.v t.v", "output x.k w"]', '"activation": ["output x.k"]',
     "must take 4 inputs and give 2 outputs", '"activation": ["output x.k"]'),
])
def test_malformed_model_one_line_with_file_and_line(files: dict[str, Path], capsys: pytest.CaptureFixture[str],
                                                     old: str, new: str, fragment: str, needle: str) -> None:
    text = MODEL.replace(old, new, 1)
    assert text != MODEL
    files["model"].write_text(text)
    err = _one_line_error(capsys, str(files["model"]), "--sequence", str(files["seq"]))
    line = text[:text.index(needle)].count("\n") + 1
    assert err.startswith(f"verified-aat: {files['model']}:{line}: ") and fragment in err


@pytest.mark.parametrize("content, fragment", [(b"", "empty file"), (b"\x89PNG\r\n\x1a\n\x00\x00", "UTF-8"),
                                               (b"{\n  oops\n}", ":2: malformed JSON")])
def test_junk_model(files: dict[str, Path], capsys: pytest.CaptureFixture[str], content: bytes, fragment: str) -> None:
    files["model"].write_bytes(content)
    err = _one_line_error(capsys, str(files["model"]), "--sequence", str(files["seq"]))
    assert fragment in err and str(files["model"]) in err


def test_bad_sequences(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    seq = files["seq"]
    save_sequence(seq, ["k", "w"], VECTORS)
    assert "differ from the model's [k, v]" in _one_line_error(capsys, str(files["model"]), "--sequence", str(seq))
    text = dumps_sequence(["k", "v"], VECTORS).replace('"-2"', '"-2/0"')
    seq.write_text(text)
    err = _one_line_error(capsys, str(files["model"]), "--sequence", str(seq))
    assert f"{seq}:7: position 3, coordinate v: '-2/0' divides by zero" in err
    seq.write_text(dumps_sequence(["k", "v"], VECTORS).replace('["1", "-2"]', '["1"]'))
    assert "position 3: expected a list of 2 values, got 1" in _one_line_error(
        capsys, str(files["model"]), "--sequence", str(seq))
    assert "No such file" in _one_line_error(capsys, str(files["model"]), "--sequence", str(files["dir"] / "x"))


def test_softmax_needs_a_float_engine(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    files["model"].write_text(MODEL.replace('"pooling": "average"', '"pooling": "softmax"'))
    err = _one_line_error(capsys, str(files["model"]), "--sequence", str(files["seq"]))
    assert "softmax pooling is not exact; use the float engine" in err and str(files["model"]) in err
    code, out, _ = _run(capsys, str(files["model"]), "--sequence", str(files["seq"]), "--engine", "float64",
                        "--softmax-temperature", "0.001")
    assert code == 0 and "  3: [1.0, -5.5]" in out  # the softmax is as sharp as hard attention here


def test_sequence_file_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    save_sequence(path, ["a", "b"], [[1, Fraction(-3, 4)], [0, 2]])
    first = path.read_bytes()
    seq = load_sequence(path, coordinates=["a", "b"])
    assert seq.vectors == ((1, Fraction(-3, 4)), (0, 2)) and len(seq) == 2
    save_sequence(path, seq.coordinates, seq.vectors)
    assert path.read_bytes() == first
    save_sequence(path, ["a"], [])
    assert load_sequence(path).vectors == ()


def test_float_run_compares_with_exact(tmp_path, capsys):
    from verified_aat.cli.main import main as cli

    src = tmp_path / "c.circ"
    src.write_text("input x y\np = mul x y\nq = add p 1/3\noutput q\n")
    out = tmp_path / "out"
    assert cli(["compile", str(src), "-o", str(out)]) == 0
    capsys.readouterr()
    assert cli(["run", str(out / "transformer.json"), "--encoding", str(out / "encoding.json"),
                "--input=1/3,3/7", "--engine", "float32", "--compare-exact"]) == 0
    text = capsys.readouterr().out
    val_line = next(line for line in text.splitlines() if line.startswith("val"))
    abs_err = float(val_line.split()[1])
    assert 0 < abs_err < 1e-6  # float32 cannot hold 1/7 or 1/3 exactly, but is close


def test_float64_run_of_ten_thousand_gates_takes_the_join(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``run --engine float64`` of a 10^4-gate inner-product (about 2·10^4 positions): both heads take
    the key join (no score on pairs, which would be 4·10^8 of them), and the read-out equals the
    exact run's within 1e-12."""
    out = tmp_path / "ip"
    assert main(["compile", "--family", "inner-product", "--n", "3333", "-c", "gate-edge", "-o", str(out)]) == 0
    capsys.readouterr()
    xs = [Fraction(k % 7 - 3, 1 + k % 3) for k in range(6666)]
    (tmp_path / "x.txt").write_text(",".join(map(str, xs)) + "\n")
    argv = [str(out / "transformer.json"), "--encoding", str(out / "encoding.json"), f"--input=@{tmp_path / 'x.txt'}",
            "--json"]
    code, text, _ = _run(capsys, *argv, "--engine", "float64")
    assert code == 0
    doc = json.loads(text)
    assert dict(map(tuple, doc["stats"]["head_methods"])) == {"fetch": "join", "gather": "join"}
    assert doc["stats"]["argmax_all_pairs"] == 0 and doc["stats"]["score_cells"] == 0
    code, text, _ = _run(capsys, *argv)
    assert code == 0
    (exact,) = json.loads(text)["outputs"]
    assert Fraction(exact) == sum(xs[k] * xs[k + 3333] for k in range(3333))
    assert doc["outputs"][0] == pytest.approx(float(Fraction(exact)), rel=1e-12)
    code, text, _ = _run(capsys, *argv[:-1], "--engine", "float64")
    assert code == 0 and "key join: fetch, gather  all pairs: -" in text
