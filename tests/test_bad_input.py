"""Every kind of bad circuit file gives exit code 2 and one line `verified-aat: FILE:LINE: ...`."""

from __future__ import annotations

import os
import re

import pytest

from verified_aat.cli.main import main

LONG_LINE = "# " + "a" * 10_000_001

# (file content, line of the error, a word the message must contain)
BAD_CIRCUITS: list[tuple[str | bytes, int, str]] = [
    ("", 1, "empty"),
    ("# only a comment\n\n   # and another\n", 1, "empty"),
    ("input x\ny = add x\n\n", 2, "no outputs"),
    (b"input x\n\x00\x01output x\n", 2, "NUL"),
    (b"input x\noutput x\n\xff\xfe junk\n", 3, "UTF-8"),
    (b"\x89PNG\r\n\x1a\n\x00\x00", 1, "binary"),
    ("input x\nfoo x\noutput x\n", 2, "unknown statement"),
    ("input x\nadd x x\noutput x\n", 2, "gate name"),
    ("input x\ny = div x x\noutput y\n", 2, "unknown operation"),
    ("input x\ny =\noutput y\n", 2, "no operation"),
    ("input x\ny = add x q\noutput y\n", 2, "undefined name 'q'"),
    ("input x\ny = add x\n\ny = mul x x\noutput y\n", 4, "first at line 2"),
    ("input x y\ninput x\noutput x\n", 2, "defined twice"),
    ("input x\ny = sign x x\noutput y\n", 2, "sign"),
    ("input x\ny = sign\noutput y\n", 2, "sign"),
    ("input x\n\ny = mul x\noutput y\n", 3, "at least 2"),
    ("c = const\noutput c\n", 1, "exactly 1"),
    ("c = const x\noutput c\n", 1, "rational"),
    ("c = const 1.5e3\noutput c\n", 1, "rational"),
    ("input x\nc = add x nan\noutput c\n", 2, "rational"),
    ("c = const inf\noutput c\n", 1, "rational"),
    ("c = const pi\noutput c\n", 1, "rational"),
    ("\nc = const 1/0\noutput c\n", 2, "zero"),
    ("c = const 0x10\noutput c\n", 1, "rational"),
    ("input x\na = add x b\nb = mul a x\noutput a\n", 2, "cycle"),
    ("input x\na = add a\noutput a\n", 2, "cycle"),
    ("input x\ny = add " + "x " * 1_000_001 + "\noutput y\n", 2, "fan-in"),
    ("input x\n" + LONG_LINE + "\noutput x\n", 2, "longer than"),
    ("input x\noutput x q\n", 2, "'q' is not defined"),
    ("input x\noutput\n", 2, "at least one"),
    ("input\noutput x\n", 1, "at least one name"),
    ("input 3x\noutput 3x\n", 1, "number"),
    ("input a$b\noutput a$b\n", 1, "invalid name"),
    ("circuit a\ncircuit b\ninput x\noutput x\n", 2, "twice"),
    ("circuit\ninput x\noutput x\n", 1, "circuit needs"),
    ("domain reals\ninput x\noutput x\n", 1, "rationals or boolean"),
    ("arithmetization exact extra\ninput x\noutput x\n", 1, "exact or threshold"),
    ("provenance netlist_gates many\ninput x\noutput x\n", 1, "integer"),
    ("provenance color red\ninput x\noutput x\n", 1, "provenance key"),
    ("input x\noutput lbl=\n", 2, "bad output"),
    ("input x\noutput =x\n", 2, "keyword"),
    ("input x\ninput = add x\noutput x\n", 2, "keyword"),
]


def _run(capsys, tmp_path, content: str | bytes, command: str, name: str = "bad.circ") -> tuple[int, str, str]:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    argv = [command, str(path)] + (["--input", "1"] if command == "eval" else [])
    code = main(argv)
    out, err = capsys.readouterr()
    assert os.listdir(tmp_path) == [name]  # nothing written besides the input
    return code, out, err


@pytest.mark.parametrize("command", ["info", "eval"])
@pytest.mark.parametrize("content, line, word", BAD_CIRCUITS,
                         ids=[f"{i}-{w}" for i, (_, _, w) in enumerate(BAD_CIRCUITS)])
def test_bad_circuit_file(capsys, tmp_path, content, line, word, command) -> None:
    code, out, err = _run(capsys, tmp_path, content, command)
    path = str(tmp_path / "bad.circ")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert re.match(rf"verified-aat: {re.escape(path)}:{line}: ", err), err
    assert word in err, err
    assert len(err) < 400


BAD_JSON = [
    ('{"format": "verified-aat/circuit",\n "version": 1,\n "gates": [,]}', 3, "invalid JSON"),
    ("", 1, "invalid JSON"),
    ('{"format": "verified-aat/circuit", "version": 1, "inputs": [], "gates": [\n'
     '{"name": "y", "op": "add", "args": ["q"]}], "outputs": ["y"]}', None, "undefined name 'q'"),
    ('{"format": "verified-aat/circuit", "version": 7}', None, "version"),
    (b'{"format": "\xff"}', 1, "UTF-8"),
]


@pytest.mark.parametrize("content, line, word", BAD_JSON)
def test_bad_json_file(capsys, tmp_path, content, line, word) -> None:
    code, out, err = _run(capsys, tmp_path, content, "info", "bad.json")
    path = re.escape(str(tmp_path / "bad.json"))
    where = f"{path}:{line}" if line is not None else path
    assert code == 2 and out == "" and err.count("\n") == 1
    assert re.match(rf"verified-aat: {where}: ", err) and word in err, err


@pytest.mark.parametrize("name, word", [("missing.circ", "No such file"), ("c.xyz", "unknown circuit file type")])
def test_unreadable_files(capsys, tmp_path, name, word) -> None:
    if name.endswith(".xyz"):
        (tmp_path / name).write_text("input x\noutput x\n")
    code = main(["info", str(tmp_path / name)])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.count("\n") == 1 and word in err


def test_directory_is_not_a_circuit(capsys, tmp_path) -> None:
    (tmp_path / "d.circ").mkdir()
    code = main(["info", str(tmp_path / "d.circ")])
    _, err = capsys.readouterr()
    assert code == 2 and err.count("\n") == 1 and err.startswith("verified-aat: ")


@pytest.mark.parametrize("values, word", [("1,2", "expected 1 input, got 2"), ("1e3", "rational"),
                                          ("", "expected 1 input, got 0"), ("1/0", "zero")])
def test_bad_input_vector(capsys, tmp_path, values, word) -> None:
    (tmp_path / "c.circ").write_text("input x\noutput x\n")
    code = main(["eval", str(tmp_path / "c.circ"), f"--input={values}"])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.count("\n") == 1 and word in err, err
    assert err.startswith("verified-aat: --input: ")


def test_bad_input_vector_file_names_its_line(capsys, tmp_path) -> None:
    (tmp_path / "c.circ").write_text("input x y\noutput x\n")
    (tmp_path / "v.txt").write_text("1\n\n2/x\n")
    code = main(["eval", str(tmp_path / "c.circ"), "--input", f"@{tmp_path / 'v.txt'}"])
    _, err = capsys.readouterr()
    assert code == 2 and err.startswith(f"verified-aat: {tmp_path / 'v.txt'}:3: ")
