"""Loading and saving circuits by file extension (or an explicit format), and reading input vectors.

==================================  ==========================================
``.circ``, ``.txt``                 the text format (:mod:`.text_format`)
``.json``                           the JSON form (:mod:`.json_format`)
``.bench``, ``.blif``, ``.bristol``  netlists, arithmetized (``mode`` exact/threshold)
``.aag``, ``.aig``                  AIGER netlists (:mod:`.aiger`), the same way
``.v``, ``.sv``                     Verilog, synthesized to AIGER by Yosys (:mod:`.verilog`)
==================================  ==========================================

``fmt`` (``text``, ``json``, ``bench``, ``blif``, ``bristol``, ``aiger``, ``verilog``; ``--format`` on the command
line) overrides the extension.  A ``.txt`` file whose first non-blank line is two whole
numbers is a Bristol Fashion netlist (:mod:`.bristol`; no circuit text file starts so).

Saving is atomic: the text goes to a temporary file in the target's
directory, which then replaces the target, so a failure never leaves a
half-written file behind.
"""

from __future__ import annotations

import os
import stat
import re
import tempfile
from fractions import Fraction

from ..errors import InputError
from ..files import STDIN_NAME  # how errors name standard input
from .ir import Circuit
from .json_format import dumps_circuit, parse_circuit_json
from .rationals import parse_rational
from .text_format import decode_circuit_bytes, parse_circuit_text, print_circuit, read_circuit_file

TEXT_EXTENSIONS = (".circ", ".txt")
JSON_EXTENSIONS = (".json",)
NETLIST_EXTENSIONS = (".bench", ".blif", ".bristol", ".aag", ".aig", ".v", ".sv")
NETLIST_FORMATS = ("bench", "blif", "bristol", "aiger")
FORMATS = ("text", "json") + NETLIST_FORMATS + ("verilog",)
MODES = ("exact", "threshold")


def _extension(path: str) -> str:
    return os.path.splitext(path)[1].lower()


def file_format(path: str, fmt: str | None = None) -> str:
    """The format a circuit file is read in: ``fmt`` if given, else by extension (a ``.txt``
    file with a Bristol Fashion header is ``bristol``)."""
    if fmt is not None:
        if fmt not in FORMATS:
            raise InputError(f"unknown circuit format '{fmt}' (expected {', '.join(FORMATS)})", path)
        return fmt
    ext = _extension(path)
    if ext == ".txt":
        from .bristol import looks_like_bristol
        from ..files import read_head
        head = read_head(path, 4096).decode("utf-8", errors="replace")  # "": reported when the file is read
        lines = head.split("\n")
        if len(head) == 4096:
            lines.pop()  # the last line read may be cut short
        return "bristol" if looks_like_bristol("\n".join(lines)) else "text"
    if ext in TEXT_EXTENSIONS:
        return "text"
    if ext in JSON_EXTENSIONS:
        return "json"
    if ext in NETLIST_EXTENSIONS:
        from .arithmetize import FOREIGN_EXTENSIONS
        return FOREIGN_EXTENSIONS.get(ext, ext[1:])
    known = ", ".join(TEXT_EXTENSIONS + JSON_EXTENSIONS + NETLIST_EXTENSIONS)
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:  # as read_input says it
        raise InputError(f"cannot read circuit: {exc.strerror or exc}", path) from None
    if not stat.S_ISREG(mode):  # a folder, a device or a FIFO has no type to guess: say what it is
        from ..files import file_kind
        raise InputError(f"{file_kind(mode)}, not a regular file: refusing to read it as the circuit", path)
    raise InputError(f"unknown circuit file type '{ext or '(none)'}' (expected {known}, or give the format)", path)


STDIN = "-"
"""The path that reads a circuit from standard input."""

_BENCH_LINE = re.compile(r"^\s*(?:INPUT|OUTPUT)\s*\(", re.MULTILINE | re.IGNORECASE)
# BLIF's directives are case-insensitive, as both of its readers take them (.MODEL, .Names); a Verilog module
# (the token ``module`` then its name) and an AIGER header with any whitespace after its magic are read off too
_BLIF_LINE = re.compile(r"^\s*\.(?:model|inputs|outputs|names)\b", re.MULTILINE | re.IGNORECASE)
_VERILOG_LINE = re.compile(r"^\s*module\s+[A-Za-z_\\]", re.MULTILINE)
_AIGER_HEADER = re.compile(rb"a[ai]g[ \t]")


def content_format(text: str) -> str:
    """The format of a circuit read without a file name: JSON, a netlist, or the text format."""
    from .bristol import looks_like_bristol
    if text.lstrip().startswith("{"):
        return "json"
    if looks_like_bristol(text):
        return "bristol"
    if _VERILOG_LINE.search(text):
        return "verilog"
    if _BLIF_LINE.search(text):
        return "blif"
    if _BENCH_LINE.search(text):
        return "bench"
    return "text"


def _load_stdin(mode: str | None, fmt: str | None, cap: int | None) -> Circuit:
    """Read a circuit from standard input (``-``); the format is ``fmt`` or read off the content."""
    from dataclasses import replace

    if fmt is not None and fmt not in FORMATS:
        raise InputError(f"unknown circuit format '{fmt}' (expected {', '.join(FORMATS)})", STDIN_NAME)
    from ..files import read_stdin
    data = read_stdin("circuit", STDIN_NAME)
    if fmt is None and _AIGER_HEADER.match(data):
        fmt = "aiger"
    text = "" if fmt == "aiger" else decode_circuit_bytes(data, STDIN_NAME)  # binary AIGER is bytes
    fmt = fmt or content_format(text)
    if fmt == "text":
        return parse_circuit_text(text, file=STDIN_NAME, name="stdin")
    if fmt == "json":
        return parse_circuit_json(text, file=STDIN_NAME)
    from .arithmetize import import_netlist
    with tempfile.TemporaryDirectory() as directory:
        temp = os.path.join(directory, f"stdin.{fmt}")
        with open(temp, "wb") as out:
            out.write(data)
        try:
            circuit = import_netlist(temp, mode or "exact", cap, fmt)
        except InputError as exc:
            raise InputError(exc.message.replace(temp, STDIN_NAME), STDIN_NAME, exc.line) from None
    if circuit.provenance is not None:
        circuit = replace(circuit, provenance=replace(circuit.provenance, source_path=STDIN_NAME))
    return circuit


def load_circuit(path: str, mode: str | None = None, fmt: str | None = None, cap: int | None = None,
                 drop_dead: bool = False) -> Circuit:
    """Read a circuit; ``mode`` (default exact), ``cap`` (default: the linear construction,
    :mod:`.arithmetize`) and ``drop_dead`` (drop netlist gates no output depends on) only
    matter for netlists; ``fmt`` overrides the file's extension.  ``-`` reads standard input."""
    if mode is not None and mode not in MODES:
        raise InputError(f"unknown arithmetization mode '{mode}' (expected exact or threshold)", path)
    if path == STDIN:
        return _load_stdin(mode, fmt, cap)
    fmt = file_format(path, fmt)
    if fmt == "text":
        return parse_circuit_text(read_circuit_file(path), file=path)
    if fmt == "json":
        return parse_circuit_json(read_circuit_file(path), file=path)
    from .arithmetize import import_netlist
    return import_netlist(path, mode or "exact", cap, fmt, drop_dead)


def save_circuit(circuit: Circuit, path: str) -> None:
    """Write ``circuit`` as text (``.circ``/``.txt``) or JSON (``.json``), atomically."""
    ext = _extension(path)
    if ext in TEXT_EXTENSIONS:
        text = print_circuit(circuit)
    elif ext in JSON_EXTENSIONS:
        text = dumps_circuit(circuit)
    else:
        raise InputError(f"cannot write circuits as '{ext or '(none)'}' (use .circ, .txt or .json)", path)
    from ..files import write_atomically
    write_atomically(path, text)


_BLANK = " \t\r\f\v"  # ASCII whitespace only: ``\s`` also matched U+00A0, U+2003, U+001C, ... (read as a space)
_SEPARATORS = re.compile(f"[{_BLANK},]+")
_EMPTY_ENTRY = re.compile(f"^[{_BLANK}]*,|,[{_BLANK}]*,|,[{_BLANK}]*$")
_DOUBLE_COMMA = re.compile(f",[{_BLANK}]*,")  # a file's vector may end a line with a comma and go on in the next
_STRAY = re.compile(f"[^\x20-\x7e{_BLANK}]")  # not printable ASCII or ASCII whitespace: refused, never skipped


def stray_character(line: str) -> str | None:
    """What is wrong with a character of an input vector's line that is not printable ASCII or ASCII whitespace
    (a no-break space, an em space, a control character, another script's digit), or None."""
    found = _STRAY.search(line)
    if found is None:
        return None
    import unicodedata
    c = found.group()
    return (f"character U+{ord(c):04X} ({unicodedata.name(c, 'a control character')}) at column {found.start() + 1}: "
            "an input vector is numbers separated by commas and ASCII spaces or tabs")


def parse_input_vector(text: str, n: int, file: str | None = None) -> list[Fraction]:
    """``n`` rationals from ``1,-3/4,2``, ``1 -3/4 2`` or ``@path`` (a file of them, ``#`` comments).

    Raises :class:`InputError` for a wrong count (``expected N inputs, got M``)
    or an entry that is not an exact rational; errors in a file name its line.
    """
    from_file = text.startswith("@")
    if from_file:
        file = text[1:]
        if not file:
            raise InputError("'@' must be followed by a file name", "--input")
        from ..files import read_named
        file, raw = read_named(file, "input vector")
        text = decode_circuit_bytes(raw, file)
    values: list[Fraction] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if from_file:
            line = line.split("#", 1)[0]  # files may carry comments
        stray = stray_character(line)
        if stray:
            raise InputError(stray, file, number if from_file else None)
        if (_DOUBLE_COMMA if from_file else _EMPTY_ENTRY).search(line):  # "1,,2" (or "1,2," given inline): an entry left out
            raise InputError("an empty entry between commas (or a comma at the end)", file, number if from_file else None)
        for token in _SEPARATORS.split(line):
            if token:
                values.append(parse_rational(token, file, number if from_file else None))
    if len(values) != n:
        raise InputError(f"expected {n} input{'s' if n != 1 else ''}, got {len(values)}", file)
    return values
