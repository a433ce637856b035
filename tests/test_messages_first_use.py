"""Issue 16 (items 7, 8, 11): every bad-input message names its file or option (never ``<input>``),
first-use paths say what to do, and the words of messages read as English.

Each class has the case the issue names and a second one it does not name.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verified_aat.cli.main import main
from verified_aat.wording import article, plural

ONE_OUTPUT_MODEL = """{
 "format": "verified-aat/transformer", "version": 1, "name": "one-coordinate", "coordinates": ["v"],
 "functions": {},
 "layers": [{"name": "l", "heads": [{"name": "h", "pooling": "average", "score": ["output j.v"]}],
             "activation": ["output x.v h.v"]}]
}
"""
NAND_NAND = "INPUT(a)\nINPUT(b)\nOUTPUT(y)\nt = NAND(a, b)\ny = NAND(a, t)\n"
TWO_OUTPUTS = "INPUT(a)\nINPUT(b)\nOUTPUT(p)\nOUTPUT(q)\np = AND(a, b)\nq = XOR(a, b)\n"


def _main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _one_line(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """Exit 2, nothing on stdout, exactly one stderr line, no traceback, no ``<input>``."""
    code, out, err = _main(capsys, *argv)
    assert code == 2, (argv, out, err)
    assert out == "" and err.count("\n") == 1 and len(err.splitlines()) == 1, (argv, err)
    assert err.startswith("verified-aat: ") and "Traceback" not in err and "<input>" not in err, (argv, err)
    return err.strip()


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Compiled gate-edge and edge-only transformers, edited copies, a certificate and small netlists."""
    root = tmp_path_factory.mktemp("messages")
    for name in ("gate-edge", "edge-only"):
        assert main(["compile", "--family", "inner-product", "--n", "2", "-c", name, "-o", str(root / name)]) == 0
    spec = json.loads((root / "gate-edge" / "transformer.json").read_text())
    swapped = dict(spec, coordinates=[spec["coordinates"][1], spec["coordinates"][0], *spec["coordinates"][2:]])
    (root / "swapped.json").write_text(json.dumps(swapped, indent=1))
    spec["layers"][1]["heads"][0]["pooling"] = "softmax"
    (root / "softmax.json").write_text(json.dumps(spec, indent=1))
    cert = root / "ip.cert.json"
    assert main(["certify", "--family", "inner-product", "--n", "2", "-o", str(cert)]) == 0
    text = cert.read_text()
    at = text.index('"version":') + len('"version":')
    (root / "big.cert.json").write_text(text[:at] + "7" * 5000 + text[at:].lstrip(" 0123456789"))
    (root / "nand.bench").write_text(NAND_NAND)
    (root / "two.bench").write_text(TWO_OUTPUTS)
    (root / "one.json").write_text(ONE_OUTPUT_MODEL)
    return {"root": root, "ge": root / "gate-edge" / "transformer.json", "eo": root / "edge-only" / "transformer.json",
            "ge_enc": root / "gate-edge" / "encoding.json", "swapped": root / "swapped.json",
            "softmax": root / "softmax.json", "cert": cert, "big": root / "big.cert.json",
            "nand": root / "nand.bench", "two": root / "two.bench", "one": root / "one.json"}


# -- 1. messages name the file or option ------------------------------------------------------------------

IP = ["--family", "inner-product", "--n", "2"]
CASES = {  # id: (argv with {placeholders}, what the line must name)
    "certify swapped coordinates": (["certify", *IP, "--transformer", "{swapped}"], ["{swapped}:", "coordinate"]),
    "certify softmax pooling": (["certify", *IP, "--transformer", "{softmax}"], ["{softmax}:", "softmax"]),
    "prove-construction another construction's T": (["prove-construction", "edge-only", "--transformer", "{ge}"],
                                                     ["{ge}:", "edge-only"]),
    "export --softmax-temperature 0": (["export", "{ge}", "-o", "{root}/t.onnx", "--softmax-temperature", "0"],
                                       ["--softmax-temperature"]),
    "audit -c nope": (["audit", "-c", "nope", *IP], ["--construction", "gate-edge", "edge-only"]),
    "show --lemma with a newline": (["show", "{cert}", "--lemma", "a\nb"], ["{cert}:", "--lemma", "a\\nb"]),
    "check a 5,000-digit number": (["check", "{big}"], ["{big}:", "4,300 digits"]),
    # second cases of each class, not named by the issue
    "refute another construction's T": (["refute", "{ge}", "-c", "edge-only"], ["{ge}:", "edge-only"]),
    "certify -K below the depth": (["certify", *IP, "-K", "1"], ["--depth-bound"]),
    "prove-construction softmax": (["prove-construction", "gate-edge", "--transformer", "{softmax}"],
                                   ["{softmax}:", "softmax"]),
    "export --softmax-temperature inf": (["export", "{ge}", "-o", "{root}/t.onnx", "--softmax-temperature", "inf"],
                                         ["--softmax-temperature"]),
    "export --no-softmax": (["export", "{softmax}", "-o", "{root}/t.onnx", "--no-softmax"], ["{softmax}:"]),
    "audit --round-trip -c nope": (["audit", "--round-trip", "-c", "nope", *IP], ["--construction", "gate-edge"]),
    "show --section with a carriage return": (["show", "{cert}", "--section", "a\rb"], ["{cert}:", "a\\rb"]),
    "show a 5,000-digit number": (["show", "{big}"], ["{big}:", "4,300 digits"]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_message_names_its_file_or_option(files: dict[str, Path], capsys: pytest.CaptureFixture[str],
                                                case: str) -> None:
    argv, needles = CASES[case]
    fill = {k: str(v) for k, v in files.items()}
    err = _one_line(capsys, *[a.format(**fill) if "{" in a else a for a in argv])
    for needle in needles:
        assert needle.format(**fill) in err, (case, err)
    assert "set_int_max_str_digits" not in err
    assert not (files["root"] / "t.onnx").exists()


@pytest.mark.parametrize("argv", [["export", "{ge}", "-o", "{root}/m.onnx"],
                                  ["export", "{ge}", "-o", "{root}/m.bin", "--format", "onnx"]])
def test_export_without_onnx_prints_the_pip_command(files: dict[str, Path], capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> None:
    monkeypatch.setitem(sys.modules, "onnx", None)  # as if not installed: `import onnx` raises ImportError
    fill = {k: str(v) for k, v in files.items()}
    err = _one_line(capsys, *[a.format(**fill) for a in argv])
    assert "--format onnx" in err and "pip install 'verified-aat[export]'" in err
    assert not (files["root"] / "m.onnx").exists() and not (files["root"] / "m.bin").exists()
    monkeypatch.undo()  # numpy needs no extra
    code, out, _ = _main(capsys, "export", str(files["ge"]), "-o", str(files["root"] / "m.npz"))
    assert code == 0 and out.startswith("wrote ")


def test_readme_install_names_the_export_extra() -> None:
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    install = readme[:readme.index("Install and run the tests")]
    assert "pip install 'verified-aat[export]'" in install and "export --format onnx" in install


# -- 2. first use ------------------------------------------------------------------------------------------

def test_certify_report_prints_the_verdict_first(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _main(capsys, "certify", *IP, "--report", str(files["root"] / "r.html"))
    lines = out.splitlines()
    assert code == 0 and "Traceback" not in err
    verdict = next(k for k, line in enumerate(lines) if line.startswith("result "))
    report = next(k for k, line in enumerate(lines) if line.startswith("report "))
    assert lines[verdict].split() == ["result", "proved"] and verdict < report == len(lines) - 1
    # --json: stdout is the JSON object alone, the report line goes to stderr
    code, out, err = _main(capsys, "certify", *IP, "--json", "--report", str(files["root"] / "r2.html"))
    assert code == 0 and json.loads(out)["status"] == "proved"
    assert err.startswith("report ") and len(err.splitlines()) == 1


def test_round_trip_progress_lines_on_a_pipe(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _main(capsys, "audit", "--round-trip", "-c", "gate-edge", *IP, "--progress")
    lines = err.splitlines()
    assert code == 0 and "result: proved" in out and "Traceback" not in err
    assert lines[0] == "verified-aat: progress: round trip …"
    for phase in ("lower bound", "unroll", "audit proof", "round trip"):
        assert any(line.startswith(f"verified-aat: progress: {phase} done in ") for line in lines), (phase, err)
    # not a terminal and no --progress: silent
    code, _, err = _main(capsys, "audit", "--round-trip", "-c", "gate-edge", *IP, "--no-audit-proof")
    assert "progress" not in err


def test_audit_prove_progress_line(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _main(capsys, "audit", str(files["ge"]), "--lengths", "2", "--prove", "--progress")
    assert code == 0 and "PROVED" in out
    assert err.splitlines()[0] == "verified-aat: progress: audit proof …"
    assert err.splitlines()[-1].startswith("verified-aat: progress: audit proof done in ")


@given(st.integers(min_value=0, max_value=10**6))
def test_plural_helper(count: int) -> None:
    text = plural(count, "output")
    assert text.endswith("output" if count == 1 else "outputs") and text.split()[0] == f"{count:,}"
    assert plural(count, "entry", "entries").endswith("entry" if count == 1 else "entries")


def test_articles() -> None:
    assert [article(w) for w in ("add", "mul", "sign", "input", "unique-hard", "edge")] == \
        ["an add", "a mul", "a sign", "an input", "a unique-hard", "an edge"]


def test_grammar_in_messages(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    err = _one_line(capsys, "certify", "--family", "inner-product", "--n", "3", "-c", "unique-hard")
    assert "is an add of fan-in 3" in err and "a add" not in err
    err = _one_line(capsys, "run", str(files["one"]), "--sequence", str(files["root"] / "none.json"))
    assert f"{files['one']}:" in err and "give 1 output (the new v)" in err and "1 outputs" not in err


def test_eval_names_outputs_for_input_and_inputs(files: dict[str, Path], capsys: pytest.CaptureFixture[str],
                                                 tmp_path: Path) -> None:
    for circuit, vector in ((files["two"], "1,1"), (files["nand"], "0,1")):  # two outputs, then one
        vectors = tmp_path / "xs.txt"
        vectors.write_text(f"{vector}\n{vector}\n")
        _, single, _ = _main(capsys, "eval", str(circuit), f"--input={vector}")
        code, many, _ = _main(capsys, "eval", str(circuit), "--inputs", str(vectors))
        assert code == 0 and many.splitlines() == [", ".join(single.splitlines())] * 2
        _, single_json, _ = _main(capsys, "eval", str(circuit), f"--input={vector}", "--json")
        _, many_json, _ = _main(capsys, "eval", str(circuit), "--inputs", str(vectors), "--json")
        one, each = json.loads(single_json), json.loads(many_json)["results"]
        assert [{k: r[k] for k in ("inputs", "outputs")} for r in each] == \
            [{k: one[k] for k in ("inputs", "outputs")}] * 2


def test_run_input_at_file_as_eval(files: dict[str, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    x = tmp_path / "x.txt"
    x.write_text("1 2  # x0 x1\n3 4\n")
    args = ["run", str(files["ge"]), "--encoding", str(files["ge_enc"])]
    code, by_file, err = _main(capsys, *args, f"--input=@{x}")
    assert code == 0 and by_file.splitlines()[0] == "outputs: 11", err
    code, by_value, _ = _main(capsys, *args, "--input=1,2,3,4")
    assert code == 0 and by_value.splitlines()[0] == by_file.splitlines()[0]
    # the second case: a missing @FILE and a bare '@' are one line each, naming the file or the option
    assert str(tmp_path / "missing.txt") in _one_line(capsys, *args, f"--input=@{tmp_path / 'missing.txt'}")
    assert "--input" in _one_line(capsys, *args, "--input=@")
    x.write_text("1 2 3\n")
    assert f"{x}" in _one_line(capsys, *args, f"--input=@{x}")


# -- 3. the exact mode is the gate-wise arithmetization ----------------------------------------------------

def test_exact_mode_is_gate_wise_not_multilinear(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    """NAND(a, NAND(a, b)) at (2, 1): gate-wise 1 − 2·(1 − 2·1) = 3; the multilinear extension of ¬a ∨ b,
    1 − a + ab, gives 1."""
    code, out, _ = _main(capsys, "eval", str(files["nand"]), "--input=2,1")
    assert code == 0 and out == "y = 3\n"
    a, b = 2, 1
    assert 1 - a + a * b == 1  # the multilinear extension differs there
    for a, b in ((0, 0), (0, 1), (1, 0), (1, 1)):  # on {0,1}^2 both are the netlist: not a or b
        code, out, _ = _main(capsys, "eval", str(files["nand"]), f"--input={a},{b}")
        assert code == 0 and out == f"y = {int((not a) or b)}\n"
    # the second case: threshold mode refuses (2, 1), naming --input
    err = _one_line(capsys, "eval", str(files["nand"]), "--mode", "threshold", "--input=2,1")
    assert "--input" in err and "{0,1}" in err


def test_mode_help_and_info_say_gate_wise(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["eval", "--help"]) == 0
    help_text = " ".join(capsys.readouterr().out.split())
    assert "gate-wise" in help_text and "not the multilinear extension" in help_text
    code, out, _ = _main(capsys, "info", str(files["nand"]))
    assert code == 0 and "gate-wise" in out and "not the multilinear extension" in out
