"""Red team round 7, numbers: one engine reader of rational numerals, JSON integers up to the documented
10,000 digits, and a bound on the size of the exact values ``eval`` and ``run`` compute.

- Bilinear entries, sequence files, encodings and construction constants went to Python's ``Fraction()``:
  ``"1e999999999"`` built 10^999999999 (``export``, ``run``, ``construction check`` ran without end), and
  ``"١٢"`` and ``"1_000"`` were read as 12 and 1000 (refused by every other reader).
- A JSON integer of 4,301..10,000 digits was refused as "more than 10,000 digits" (Python's own limit).
- ``report`` of a ``refute --json`` result holding a 5,000-digit value ended as exit 3 with Python's text;
  a certificate constant ``"1e999999999"`` made ``report`` run without end.
- ``eval`` of 40 squarings of 2 grew without end; out of memory it named ``--max-memory``, which eval lacks.
"""

from __future__ import annotations

import json
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verified_aat.circuits.rationals import NumeralError, format_rational, read_numeral
from verified_aat.cli.main import main
from verified_aat.constructions.document import builtin_document_path
from verified_aat.json_envelope import rational

sys.path.insert(0, str(Path(__file__).resolve().parent))

ROOT = Path(__file__).resolve().parent.parent
BILINEAR = ROOT / "specs" / "transformers" / "bilinear_scores.json"
BAD_NUMERALS = ["1e999999999", "1E5", "١٢", "1_000", " 3", "3 ", "+ 3", "nan", "inf", "0x10", "1/0", "1/-2", "--1",
                "", "1.5e3", "½", "1/2/3"]


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _one_line_bad_input(code: int, err: str, file: Path, *words: str) -> None:
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith(f"verified-aat: {file}:"), err
    assert "Traceback" not in err and "set_int_max_str_digits" not in err and len(err) < 400, err
    for word in words:
        assert word in err, err


# -- the reader ----------------------------------------------------------------------------------------

def _reference(text: str) -> Fraction | None:
    """What a numeral of ASCII digits means, computed independently of the reader (None: not a numeral)."""
    if not text.isascii():
        return None
    sign, body = (-1, text[1:]) if text[:1] == "-" else (1, text[1:]) if text[:1] == "+" else (1, text)
    if body.count("/") == 1:
        p, q = body.split("/")
        return sign * Fraction(int(p), int(q)) if p.isdigit() and q.isdigit() and int(q) else None
    if body.count(".") == 1:
        whole, frac = body.split(".")
        if not (whole or frac) or whole and not whole.isdigit() or frac and not frac.isdigit():
            return None
        return sign * Fraction(int(whole or "0") * 10 ** len(frac) + int(frac or "0"), 10 ** len(frac))
    return sign * Fraction(int(body)) if body.isdigit() else None


_NUMERAL_TEXT = st.text(alphabet=st.sampled_from(list("0123456789+-/._eE ") + ["١", "٢", "\u00a0", "𝟗", "²"]),
                        max_size=12)


@settings(max_examples=800, deadline=None)
@given(_NUMERAL_TEXT)
def test_a_string_is_refused_or_read_as_the_exact_value_of_its_digits(text: str) -> None:
    try:
        value = read_numeral(text)
    except NumeralError:
        assert _reference(text) is None, text
        return
    assert text.isascii() and not set(text) & set("eE_ "), text
    assert value == _reference(text), text


@settings(max_examples=500, deadline=None)
@given(_NUMERAL_TEXT)
def test_the_json_readers_read_numerals_as_the_one_reader_does(text: str) -> None:
    """Bilinear entries, sequences, construction constants (transformer/jsonfile.py) and encoding rows."""
    from verified_aat.constructions.encoding_json import _Reader
    from verified_aat.errors import InputError
    from verified_aat.transformer.jsonfile import parse_rational

    expected = _reference(text)
    for read in (lambda: parse_rational(text, "entry"), lambda: _Reader("enc.json").rational(text, "$.rows[0][0]")):
        if expected is None:
            with pytest.raises(InputError):
                read()
        else:
            assert read() == expected


@settings(max_examples=300, deadline=None)
@given(st.integers(), st.integers(min_value=1), st.booleans())
def test_every_well_formed_numeral_is_read_exactly(p: int, q: int, as_fraction: bool) -> None:
    text = f"{p}/{q}" if as_fraction else str(p)
    assert read_numeral(text) == Fraction(p, q if as_fraction else 1)
    assert read_numeral(format_rational(Fraction(p, q))) == Fraction(p, q)


@pytest.mark.parametrize("text", BAD_NUMERALS)
def test_exponents_underscores_spaces_and_other_digits_are_refused(text: str) -> None:
    with pytest.raises(NumeralError):
        read_numeral(text)


def test_the_digit_limit_is_10000_digits_and_numbers_that_long_read_and_write_in_full() -> None:
    assert read_numeral("7" * 10_000) == (10 ** 10_000 - 1) // 9 * 7
    assert format_rational(read_numeral("7" * 10_000)) == "7" * 10_000
    assert format_rational(read_numeral("-" + "3" * 5_000 + "/" + "7" * 4_999)).startswith("-333")
    with pytest.raises(NumeralError, match="more than 10,000 digits"):
        read_numeral("7" * 10_001)
    with pytest.raises(NumeralError, match="more than 10,000 digits"):
        read_numeral("7" * 5_001 + "/" + "3" * 5_000)
    assert read_numeral("1." + "5" * 9_998) == 1 + Fraction((10 ** 9_998 - 1) // 9 * 5, 10 ** 9_998)
    assert rational(Fraction(-(10 ** 6_000) - 7, 3)) == "-1" + "0" * 5_999 + "7/3"  # --json past 4,300 digits


def test_decimals_only_where_the_format_allows_them() -> None:
    assert read_numeral("0.25") == Fraction(1, 4)
    with pytest.raises(NumeralError):
        read_numeral("0.25", decimals=False)


# -- the readers of user files ---------------------------------------------------------------------------

def _bilinear(tmp_path: Path, value: Any) -> Path:
    spec = json.loads(BILINEAR.read_text())
    spec["layers"][0]["heads"][0]["score"]["bilinear"]["i.k j.v"] = value
    path = tmp_path / "model.json"
    path.write_text(json.dumps(spec, indent=1).replace('"@INT@"', "7" * 5000))
    return path


def _sequence(tmp_path: Path, first: Any) -> Path:
    path = tmp_path / "seq.json"
    path.write_text(json.dumps({"format": "verified-aat/sequence", "version": 1, "coordinates": ["k", "v", "w"],
                                "vectors": [[first, "2", "3"], ["4", "5", "6"]]}))
    return path


@pytest.mark.parametrize("text", ["1e999999999", "١٢", "1_000", " 3"])
def test_bilinear_entries_sequences_and_construction_constants_use_the_one_reader(
        text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = _bilinear(tmp_path, text)
    for command in (["export", str(model), "--format", "numpy", "-o", str(tmp_path / "e.npz")],
                    ["run", str(model), "--sequence", str(_sequence(tmp_path, "1"))]):
        code, _, err = _cli(command, capsys)
        _one_line_bad_input(code, err, model, "bilinear entry 'i.k j.v'", "is not a rational number")
    sequence = _sequence(tmp_path, text)
    code, _, err = _cli(["run", str(BILINEAR), "--sequence", str(sequence)], capsys)
    _one_line_bad_input(code, err, sequence, "position 0, coordinate k", "is not a rational number")
    doc = json.loads(builtin_document_path("gate-edge").read_text())
    doc["name"] = "my-gate-edge"
    doc["constants"]["EDGE"] = text
    path = tmp_path / "construction.json"
    path.write_text(json.dumps(doc, indent=1))
    code, _, err = _cli(["construction", "check", str(path)], capsys)
    _one_line_bad_input(code, err, path, "constant 'EDGE'", "is not a rational number")


def test_encoding_rows_use_the_one_reader(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    circuit = tmp_path / "c.circ"
    circuit.write_text("input x y\ng = add x y\noutput g\n")
    assert _cli(["compile", str(circuit), "-o", str(tmp_path / "out")], capsys)[0] == 0
    encoding = json.loads((tmp_path / "out" / "encoding.json").read_text())
    for text in ("1e999999999", "١٢", "1_000", "3.7e1"):
        encoding["rows"][1][0] = text
        path = tmp_path / "enc.json"
        path.write_text(json.dumps(encoding))
        code, _, err = _cli(["run", str(tmp_path / "out" / "transformer.json"), "--encoding", str(path),
                             "--input", "1,2"], capsys)
        _one_line_bad_input(code, err, path, "$.rows[1][0]", "is not a rational number")
    encoding["rows"][1][0] = "9" * 5000  # a long numeral is read, computed with and printed
    path.write_text(json.dumps(encoding))
    code, out, err = _cli(["run", str(tmp_path / "out" / "transformer.json"), "--encoding", str(path),
                           "--input", "1,2", "--json", "--full"], capsys)
    assert code == 0 and out.startswith("{") and err == "", err


def test_json_integers_up_to_10000_digits_are_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gates = [{"name": "x", "op": "input", "args": []}, {"name": "c", "op": "const", "args": [], "value": "@"},
             {"name": "s", "op": "add", "args": ["x", "c"]}]
    doc = json.dumps({"format": "verified-aat/circuit", "version": 1, "name": "big", "domain": "rationals",
                      "arithmetization": None, "inputs": ["x"], "gates": gates, "outputs": ["s"],
                      "output_names": None, "provenance": None})
    path = tmp_path / "big.json"
    path.write_text(doc.replace('"@"', "7" * 10_000))
    code, out, err = _cli(["eval", str(path), "--input", "1"], capsys)
    assert code == 0 and out == "s = " + "7" * 9_999 + "8\n", err
    path.write_text(doc.replace('"@"', "7" * 10_001))
    code, _, err = _cli(["info", str(path)], capsys)
    _one_line_bad_input(code, err, path, "more than 10,000 digits")
    model = _bilinear(tmp_path, "@INT@")  # a JSON integer of 5,000 digits in a transformer
    code, out, err = _cli(["run", str(model), "--sequence", str(_sequence(tmp_path, "1"))], capsys)
    assert code == 0 and "Traceback" not in err, err


# -- report -----------------------------------------------------------------------------------------------

def test_report_renders_a_refute_result_with_a_5000_digit_value_and_refuses_10001(
        refute_result: tuple[dict[str, Any], Path], capsys: pytest.CaptureFixture[str]) -> None:
    doc, folder = refute_result
    counterexample = doc["counterexample"]
    for digits, expected in ((5_000, 0), (10_001, 2)):
        counterexample["input_vector"][0] = "9" * digits
        counterexample["inputs"][next(iter(counterexample["inputs"]))] = "9" * digits
        source, target = folder / f"r{digits}.json", folder / f"r{digits}.html"
        source.write_text(json.dumps(doc, indent=1))
        code, _, err = _cli(["report", str(source), "-o", str(target), "--layout", "python"], capsys)
        if expected == 0:
            assert code == 0 and target.exists(), err
        else:
            _one_line_bad_input(code, err, source, "more than 10,000 digits")
            assert not target.exists()


def test_report_of_a_certificate_reads_its_constants_with_the_one_reader(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    certificate = json.loads((ROOT / "proofs" / "unique-hard-right" / "relu_via_sign.cert.json").read_text())
    const = next(g for g in certificate["circuit"]["gates"] if g[0] == "const")
    for text, expected in (("1e999999999", 2), ("١٢", 2), ("9" * 3000, 0)):
        const[1] = text
        source = tmp_path / "cert.json"
        source.write_text(json.dumps(certificate))
        code, _, err = _cli(["report", str(source), "-o", str(tmp_path / "c.html"), "--layout", "python"], capsys)
        assert code == expected and "Traceback" not in err and "set_int_max_str_digits" not in err, err
        if expected == 2:
            assert "is not a rational number" in err and err.count("\n") == 1, err


# -- the bound on exact values --------------------------------------------------------------------------

SQUARINGS = "input x\ng0 = mul x x\n" + "".join(f"g{i} = mul g{i - 1} g{i - 1}\n" for i in range(1, 40)) + \
    "output g39\n"


def test_eval_and_run_stop_at_the_bits_per_value_limit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    circuit = tmp_path / "sq40.circ"
    circuit.write_text(SQUARINGS)
    code, out, err = _cli(["eval", str(circuit), "--input", "2"], capsys)
    assert code == 3 and out == "" and err.count("\n") == 1, err
    assert "limit reached" in err and "200,000 bits" in err and "gate 'g17'" in err and "--max" not in err, err
    assert _cli(["eval", str(circuit), "--input", "1"], capsys)[:2] == (0, "g39 = 1\n")
    assert _cli(["compile", str(circuit), "-o", str(tmp_path / "out")], capsys)[0] == 0
    for extra in ([], ["--full"]):
        code, _, err = _cli(["run", str(tmp_path / "out" / "transformer.json"), "--encoding",
                             str(tmp_path / "out" / "encoding.json"), "--input", "2", *extra], capsys)
        assert code == 3 and err.count("\n") == 1 and "200,000 bits" in err and "layer" in err, err


def test_a_wide_product_is_stopped_as_it_grows(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    circuit = tmp_path / "wide.circ"
    circuit.write_text("input x\ng = mul " + " ".join(["x"] * 100_000) + "\noutput g\n")  # 7^100000: 280,736 bits
    code, _, err = _cli(["eval", str(circuit), "--input", "7"], capsys)
    assert code == 3 and "200,000 bits" in err, err


def test_out_of_memory_names_max_memory_only_to_a_command_that_has_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from verified_aat.cli import eval_cmd

    def exhausted(*args: Any, **kwargs: Any) -> Any:
        raise MemoryError

    monkeypatch.setattr(eval_cmd, "evaluate", exhausted)
    circuit = tmp_path / "c.circ"
    circuit.write_text("input x\noutput x\n")
    code, _, err = _cli(["eval", str(circuit), "--input", "2"], capsys)
    assert code == 3 and err == "verified-aat: unknown: limit reached (out of memory)\n", err
