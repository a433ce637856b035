"""Red team, round 17: user-controlled names on their way to terminal lines, exports against the exact engine,
and audits of transformer specs written by hand.

Each test fails without its fix; the class of each fix is in its docstring.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verified_aat.circuits.json_format import parse_circuit_json
from verified_aat.circuits.text_format import parse_circuit_text
from verified_aat.errors import InputError
from verified_aat.transformer.spec import load_transformer

ESCAPES = ["\x1b[31mred", "two\nlines", "back\rover", "bidi\u202eevil", "sep\u2028line", "nul\x00", "del\x7f",
           "c1\x9b31m"]


def _circuit_doc(name: str = "c", gate: str = "g", label: str = "o", input_name: str = "x") -> dict:
    return {"format": "verified-aat/circuit", "version": 1, "name": name, "inputs": [input_name],
            "gates": [{"name": input_name, "op": "input", "args": []},
                      {"name": gate, "op": "add", "args": [input_name, input_name]}],
            "outputs": [gate], "output_names": [label]}


@pytest.mark.parametrize("bad", ESCAPES)
@pytest.mark.parametrize("field", ["name", "gate", "label", "input_name"])
def test_json_circuit_names_with_control_characters_are_refused(field: str, bad: str) -> None:
    """Class: every name a reader accepts is printed raw in terminal lines (`info`, `eval`, `audit`, `run --trace`):
    the JSON circuit reader took any string, so an ANSI escape sequence recoloured or cleared the terminal and a
    newline forged a line of output. Fix: the readers refuse control, format and separator characters in names
    (`wording.unprintable`), bad input with the field named."""
    doc = _circuit_doc(**{field: "n" + bad})
    with pytest.raises(InputError, match="names must be printable"):
        parse_circuit_json(json.dumps(doc), file="c.json")
    parse_circuit_json(json.dumps(_circuit_doc(**{field: "n\u00e9<b>\"'&"})), file="c.json")  # printable: accepted


@pytest.mark.parametrize("bad", [e for e in ESCAPES if not set(e) & {"\n", "\r", "\x00"}])
def test_text_circuit_name_with_control_characters_is_refused(bad: str) -> None:
    """The same class in the text format: `circuit NAME` took the rest of the line, control characters and all."""
    with pytest.raises(InputError, match="names must be printable"):
        parse_circuit_text(f"circuit a{bad}\ninput x\noutput x\n", file="c.circ")
    assert parse_circuit_text("circuit a <b>é\ninput x\noutput x\n").name == "a <b>é"


@pytest.mark.parametrize("where", ["top", "layer"])
def test_transformer_names_with_control_characters_are_refused(tmp_path: Path, where: str) -> None:
    """The same class in a transformer spec: its name (`audit`'s first line) and a layer's name (`run --trace`'s
    `after NAME:` lines) took any string; head and coordinate names were already restricted."""
    bad = "T\x1b[2J\nresult: all checks passed"
    doc = {"format": "verified-aat/transformer", "version": 1, "name": bad if where == "top" else "t",
           "coordinates": ["key", "val"], "functions": {},
           "layers": [{"name": bad if where == "layer" else "l",
                       "heads": [{"name": "h", "pooling": "rightmost", "score": {"bilinear": {}}}],
                       "activation": ["output key=x.key val=x.val"]}]}
    path = tmp_path / "t.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(InputError, match="names must be printable"):
        load_transformer(str(path))


@pytest.mark.parametrize("bad", ["\u202e", "\x9b", "\u200f", "\u0080"])
def test_netlist_names_with_bidi_overrides_and_c1_controls_are_refused(tmp_path: Path, bad: str) -> None:
    """The same class in netlists: the readers refused ASCII control bytes but took C1 controls (U+009B is an
    8-bit ANSI escape) and bidirectional overrides in a net name, which `info`/`eval` print raw.  Whitespace
    (U+0085, U+2028, U+2029) separates names in a netlist, as in the kernel's readers, so it never is in one
    (tests/test_unicode_separators.py)."""
    from verified_aat.circuits.io import load_circuit

    path = tmp_path / "n.blif"
    path.write_text(f".model m\n.inputs a{bad}b c\n.outputs o\n.names a{bad}b c o\n11 1\n.end\n", encoding="utf-8")
    with pytest.raises(InputError, match="at column 10: names must be printable") as caught:  # its own column
        load_circuit(str(path))
    assert caught.value.line == 2
    path.write_text(".model m\n.inputs a\u00e9b c\n.outputs o\n.names a\u00e9b c o\n11 1\n.end\n", encoding="utf-8")
    assert load_circuit(str(path)).n_inputs == 2
    path.write_text(".model m\n.inputs a\u2028b\n.outputs o\n.names a b o\n11 1\n.end\n", encoding="utf-8")
    assert load_circuit(str(path)).n_inputs == 2  # a separator between two names
