"""Every limit on what a hostile input can make large, in one place.

Each limit is checked while reading, before any work starts, and an input
past it is an :class:`~verified_aat.errors.InputError` that names the limit
(and the option that raises it, where there is one).  ``docs/cli.md`` lists them.
The trusted kernel keeps its own copies (``kernel/data.py``); a test keeps
:data:`MAX_CERTIFIED_DIGITS` equal to the kernel's.
"""

from __future__ import annotations

import re
from typing import Any

MAX_DIGITS = 10_000
"""Digits in one number of a circuit, transformer or input vector."""

MAX_VALUE_BITS = 200_000
"""Bits (numerator and denominator together) of one exact value that ``eval`` or ``run``'s exact engine computes
(the kernel's ``MAX_BITS``): 40 squarings of 2 made ``eval`` grow without end (2^(2^40))."""

MAX_LAYERS = 100_000
"""Layers of a transformer: of a spec file, and of a construction document's T_K = prefix + K × block + suffix (the
kernel's ``MAX_LAYERS``).  A document whose block has 10,000 layers made ``compile -K 30`` build and write 300,000
layers in 83 s (the kernel then refuses them), and ``-K 10,000`` run out of memory (red team, round 14)."""

MAX_CERTIFIED_DIGITS = 2_000
"""Digits in one constant of a circuit or transformer that ``certify`` proves (the kernel's limit)."""


def past_certified_digits(value: Any) -> bool:
    """Whether the exact number ``value`` written as ``p`` or ``p/q`` has more than :data:`MAX_CERTIFIED_DIGITS`
    characters: the trusted kernel's reader refuses it (``kernel/data.read_numeral``)."""
    from fractions import Fraction
    q = Fraction(value)
    if max(q.numerator.bit_length(), q.denominator.bit_length()) > 4 * MAX_CERTIFIED_DIGITS:
        return True  # more than 2,400 digits (and str() would refuse past 4,300)
    return len(str(q)) > MAX_CERTIFIED_DIGITS

MAX_JSON_DEPTH = 200
"""Nesting depth of a JSON circuit or transformer file."""

MAX_K = 10_000
"""Largest depth bound ``-K`` (and ``depth_bound`` of a certificate)."""

MAX_AUDIT_LENGTH = 10_000
"""Largest sequence length N that ``audit`` takes (``--lengths``, ``--output-length``); U_N has Θ(N³) gates."""

MAX_AUDIT_LENGTHS = 10_000
"""Lengths in one ``audit --lengths`` list (after expanding ranges)."""

MAX_SAMPLES = 10_000
"""Random sequences per length of ``audit --samples``."""

MAX_ENCODED = 1_000
"""Encoded sequences enc(C, x) of ``audit --encoded``."""

MAX_AIGER_DIGITS = 18
"""Digits in one number of an AIGER file (a header count, a literal, a symbol index)."""

MAX_AIGER_VARIABLES = 10_000_000
"""The header's M of an AIGER file (the kernel's ``aiger_parse.MAX_VARIABLES``)."""

MAX_AIGER_IMPLICIT_INPUTS = 100_000
"""Inputs of a binary AIGER file, which states them in its header alone: 'aig 9999999 9999999 0 1 0' (28 bytes)
made ``info`` build 10⁷ inputs for 252 s and 15 GB.  An ASCII AIGER file (one line per input) may have more."""

MAX_VERILOG_AND_GATES = 1_000_000
"""And-gates a Verilog file's multiplications are estimated to need before Yosys runs (``circuits/verilog.py``)."""

_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_INNERMOST = re.compile(r"\[\]|\{\}")


def json_depth_exceeds(text: str, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether the JSON ``text`` nests arrays and objects more than ``limit`` deep (strings skipped)."""
    if text.count("[") + text.count("{") <= limit:
        return False
    brackets = _NOT_BRACKET.sub("", _JSON_STRING.sub("", text))
    peeled = 0
    while peeled < min(limit, 8):  # the usual shallow file: peel innermost pairs at C speed
        brackets = _INNERMOST.sub("", brackets)
        peeled += 1  # each pass lowers the depth by exactly 1
        if not brackets:
            return False
    depth = 0
    for char in brackets:
        if char in "[{":
            depth += 1
            if depth + peeled > limit:
                return True
        else:
            depth -= 1
    return False


def json_depth_message(limit: int = MAX_JSON_DEPTH) -> str:
    return f"JSON nested more than {limit} levels deep (the nesting-depth limit)"


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def json_line_of(text: str, what: str) -> int | None:
    """The line of the first token of kind ``what`` outside strings in a JSON text: ``"constant"`` (NaN, Infinity),
    ``"long-number"`` (more digits than :data:`MAX_DIGITS`), or of the first string holding a lone surrogate
    (``"surrogate"``); None when there is none.  Those readers' errors named the file and no line."""
    import json
    if what == "surrogate":
        for found in _JSON_STRING.finditer(text):
            if _SURROGATE_ESCAPE.search(found.group()) is None:
                continue
            try:
                json.loads(found.group()).encode("utf-8")
            except (UnicodeEncodeError, ValueError):
                return text.count("\n", 0, found.start()) + 1
        return None
    token = r"-?(?:NaN|Infinity)\b" if what == "constant" else rf"-?\d{{{MAX_DIGITS + 1},}}"
    for found in re.finditer(_JSON_STRING.pattern + "|" + token, text, re.DOTALL):
        if not found.group().startswith('"'):
            return text.count("\n", 0, found.start()) + 1
    return None


def lone_surrogate(text: str, value: object) -> bool:
    """Whether JSON ``value`` (decoded from ``text``) holds a string with a lone UTF-16 surrogate (a ``\\udXXX``
    escape not in a pair): no text, so it could be neither printed nor written back as UTF-8."""
    if _SURROGATE_ESCAPE.search(text) is None:  # the cheap test first: such a string needs such an escape
        return False
    stack = [value]  # a walk, not json.dumps (which raises on an integer past Python's 4,300 digits)
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


LONE_SURROGATE = "a string holds a lone UTF-16 surrogate (a \\udXXX escape outside a pair): not text"


class DuplicateKey(Exception):
    """A JSON object names a key twice (``args[0]``): every JSON reader refuses it (two readings)."""


_JSON_MARK = re.compile(r'["{}\[\]]')
_JSON_SPACE = re.compile(r"[ \t\r\n]*")


def duplicate_key_line(text: str) -> int | None:
    """The line of the first key that its object names a second time, or None (text the scan cannot read).  The
    readers named the second place the key's text occurs anywhere in the file: a duplicate "pooling" in the last
    head of a transformer was reported at the second head's line (red team, round 14)."""
    from json.decoder import scanstring  # type: ignore[attr-defined]
    stack: list[set[str] | None] = []  # per open container: the keys seen (an object) or None (an array)
    found = _JSON_MARK.search(text)
    try:
        while found is not None:
            pos, char = found.start(), found.group()
            if char == '"':
                key, pos = scanstring(text, pos + 1)
                after = _JSON_SPACE.match(text, pos).end()  # type: ignore[union-attr]
                if stack and stack[-1] is not None and text[after:after + 1] == ":":
                    if key in stack[-1]:
                        return text.count("\n", 0, found.start()) + 1
                    stack[-1].add(key)
            else:
                if char in "{[":
                    stack.append(set() if char == "{" else None)
                elif stack:
                    stack.pop()
                pos += 1
            found = _JSON_MARK.search(text, pos)
    except ValueError:
        return None
    return None


def no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json.loads``'s ``object_pairs_hook`` for the JSON readers: an object whose keys are distinct."""
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise DuplicateKey(key)
        result[key] = value
    return result

Z3_MEMORY_MB = 2_048
"""Z3's own memory cap (``memory_max_size``) in the engine's solver runs, as the kernel's
(``kernel/solvers.py``, which imports nothing of the engine; a test keeps the two equal)."""

MAX_ONNX_NODES = 20_000_000
"""The most nodes ``export --format onnx`` writes (counted before building, ``export.export_units``): protobuf refuses
a message past 2 GiB, and a node takes 57 bytes or more serialized (a 400,000-node export wrote 23 MB)."""
