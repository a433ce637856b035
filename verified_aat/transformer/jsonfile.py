"""Reading JSON input files with line numbers for error messages.

:func:`read_json_file` turns an unreadable, empty, binary or malformed file
into an :class:`InputError` at ``file:line``.  :class:`Locator` maps a path in
the decoded document (keys and list indices, e.g. ``("layers", 0, "heads")``)
to the line of the raw text where that value starts, so that later
validation errors can point at the right line too.
"""

from __future__ import annotations

import json
import os
from fractions import Fraction
from typing import Any

from ..circuits.rationals import NumeralError, format_rational as _format_rational, json_loads, read_exact
from ..errors import InputError
from ..json_lines import JsonPath, Locator  # noqa: F401 - re-exported: the transformer and construction readers import it here
from ..limits import (LONE_SURROGATE, DuplicateKey, duplicate_key_line, json_depth_exceeds, json_depth_message,
                      json_line_of, lone_surrogate, no_duplicate_keys)

def parse_json_text(text: str, file: str | None = None) -> tuple[Any, Locator]:
    """Decode ``text``; duplicate keys, NaN and syntax errors become :class:`InputError`."""
    if not text.strip():
        raise InputError("empty file", file, 1 if text is not None else None)
    if "\x00" in text:
        raise InputError("binary file (contains NUL bytes), expected JSON", file,
                         text.count("\n", 0, text.index("\x00")) + 1)
    if json_depth_exceeds(text):
        raise InputError(json_depth_message(), file)
    try:
        data = json_loads(text, object_pairs_hook=no_duplicate_keys, parse_constant=_reject_constant)
    except NumeralError as exc:  # a JSON integer past the digit limit
        raise InputError(str(exc), file, json_line_of(text, "long-number")) from None
    except RecursionError:
        raise InputError(json_depth_message(), file) from None
    except json.JSONDecodeError as exc:
        raise InputError(f"malformed JSON: {exc.msg}", file, exc.lineno) from None
    except DuplicateKey as exc:
        raise InputError(f"duplicate key {exc.args[0]!r}", file,
                         duplicate_key_line(text) or _line_of_key(text, exc.args[0])) from None
    except ValueError as exc:  # NaN or Infinity (_reject_constant)
        raise InputError(f"malformed JSON: {exc}", file, json_line_of(text, "constant")) from None
    if lone_surrogate(text, data):
        raise InputError(LONE_SURROGATE, file, json_line_of(text, "surrogate"))
    return data, Locator(text)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed")


def _line_of_key(text: str, key: str) -> int | None:
    needle = json.dumps(key)
    first = text.find(needle)
    second = text.find(needle, first + 1) if first >= 0 else -1
    found = second if second >= 0 else first
    return None if found < 0 else text.count("\n", 0, found) + 1


def read_json_file(path: str | os.PathLike[str], what: str = "JSON file") -> tuple[Any, Locator]:
    """Read and decode a JSON file (UTF-8), ``-`` standard input (as ``what``); every problem is an
    :class:`InputError`."""
    from ..files import read_named
    file, raw = read_named(os.fspath(path), what)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise InputError("not a UTF-8 text file (binary junk?), expected JSON", file, line) from None
    return parse_json_text(text, file)


def parse_rational(value: Any, what: str, file: str | None = None, line: int | None = None,
                   decimals: bool = True) -> int | Fraction:
    """An exact rational from a JSON int or a string like ``"-3/4"`` or ``"0.25"``
    (:func:`~verified_aat.circuits.rationals.read_numeral`: no exponents, spaces, ``_``, non-ASCII digits)."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise InputError(f"{what}: expected a rational as a string or integer, got {_shown(value)}", file, line)
    if isinstance(value, int):
        return int(value)  # read by json_int, within the digit limit (a LongInt as a plain int)
    try:
        return read_exact(value, decimals=decimals)
    except NumeralError as exc:
        raise InputError(f"{what}: {exc}", file, line) from None


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:60] + "..."


def format_rational(value: int | Fraction) -> str:
    """The canonical string of an exact rational (``"3"``, ``"-3/4"``), of any length."""
    return _format_rational(value)


def write_text_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` safely (:func:`verified_aat.files.write_atomically`)."""
    from ..files import write_atomically
    write_atomically(os.fspath(path), text)
