"""What separates tokens, in the engine's readers and the kernel's alike (docs/cli.md, "Standard input and output").

In the text formats (``.circ``, ``.bench``, ``.blif``, Bristol Fashion) every character Python counts as whitespace
separates tokens: ``str.split()`` and the regular expressions' ``\\s`` are the same 29 characters, U+00A0 and U+2003
among them, so ``a<U+00A0>b`` is two names to both sides, never one (in a netlist the ASCII controls among them,
vertical tab and U+001C to U+001F, are binary data to both).  AIGER is bytes: only ASCII's space, tab,
vertical tab and form feed separate (``bytes.split()``), in the header too; the engine's header split the decoded
text, so U+001C to U+001F separated there and the kernel refused the header it read.
"""

from __future__ import annotations

import pytest
from test_netlist_readers_agree import assert_agree

from verified_aat.circuits.aiger import parse_aiger_bytes
from verified_aat.circuits.ir import circuit_sha256
from verified_aat.circuits.text_format import parse_circuit_text
from verified_aat.errors import InputError
from verified_aat.kernel.circuit_file import read_circuit, sha256_json
from verified_aat.kernel.netlist_given import MalformedNetlist, read_given

SEPARATORS = [c for c in map(chr, range(0x3001)) if c.isspace() and c not in "\r\n"]  # U+3000 is the last
CONTROLS = "\x0b\x1c\x1d\x1e\x1f"  # binary data in a netlist, to both readers; separators in a .circ file
NETLISTS = {
    "bench": ("INPUT(a)\nINPUT(b)\nOUTPUT(y)\ny = NAND(a,{}b)\n", ["a", "b"]),
    "blif": (".model m\n.inputs a{}b\n.outputs y\n.names a b y\n11 0\n.end\n", ["a", "b"]),
    "bristol": ("1 3\n2 1{}1\n1 1\n2 1 0 1 2 AND\n", ["in0_b0", "in1_b0"]),
}


def test_the_separators_are_python_s_whitespace() -> None:
    assert len(SEPARATORS) == 27 and {"\t", "\x0b", "\x0c", "\x1c", "\x85", "\xa0", "\u2003", "\u3000"} <= set(SEPARATORS)


@pytest.mark.parametrize("fmt", sorted(NETLISTS))
@pytest.mark.parametrize("sep", SEPARATORS, ids=lambda c: f"U+{ord(c):04X}")
def test_a_netlist_reads_every_whitespace_as_a_separator(fmt: str, sep: str) -> None:
    """Except the ASCII controls among them (vertical tab, U+001C to U+001F), which both refuse as binary data."""
    text, inputs = NETLISTS[fmt]
    for placed in (text.format(sep), sep + text.format(" ").replace("\n", sep + "\n", 2)):  # between, around tokens
        netlist = assert_agree(placed, fmt)  # None: both refuse
        if sep in CONTROLS:
            assert netlist is None, (fmt, placed)
        else:
            assert netlist is not None and list(netlist.inputs) == inputs, (fmt, placed)


@pytest.mark.parametrize("sep", SEPARATORS, ids=lambda c: f"U+{ord(c):04X}")
def test_a_circ_file_reads_every_whitespace_as_a_separator(sep: str) -> None:
    text = f"circuit t\ninput x1\ninput{sep}x2\n{sep}g = add{sep}x1 x2{sep}\noutput g\n"
    engine = parse_circuit_text(text)
    assert engine.n_inputs == 2 and sha256_json(read_circuit(text.encode(), "text")[0]) == circuit_sha256(engine)


AIGER = b"aag 3 2 0 1 1\n2\n4\n6\n6 2 4\n"


@pytest.mark.parametrize("sep", [bytes([b]) for b in (9, 11, 12, 0x1C, 0x1D, 0x1E, 0x1F, 0x85, 0xA0)]
                         + ["\xa0".encode(), "\u2003".encode()], ids=lambda b: b.hex())
def test_aiger_separates_at_ascii_whitespace_only(sep: bytes) -> None:
    ascii_space = sep in (b"\t", b"\x0b", b"\x0c")
    for where in (AIGER.replace(b" ", sep, 1), AIGER.replace(b"6 2", b"6" + sep + b"2")):  # the header, an AND
        try:
            parse_aiger_bytes(where, "f")
            engine = True
        except InputError as exc:
            assert exc.line in (1, 5), exc
            engine = False
        try:
            read_given(where, "aiger")
            kernel = True
        except MalformedNetlist:
            kernel = False
        assert engine == kernel == ascii_space, (where, engine, kernel)
