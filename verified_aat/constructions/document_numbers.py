"""Numbers of a construction document that the trusted kernel cannot read, refused where the document is read.

The kernel reads a numeral of at most ``MAX_CERTIFIED_DIGITS`` characters (``kernel/data.read_numeral``), in the
document's constants and rows and in the certificate's copy of T_K. A document with a longer one was read here, and
only certifying with it failed: ``certify -c DOC`` said *unknown*, with Python's own message when T_K's constant
passed 4,300 digits, or the kernel did not accept the engine's certificate. Now it is the document's error, at the
line of the string or number that holds it, as every other problem of a document is.
"""

from __future__ import annotations

import re
from typing import Any

from ..circuits.rationals import NumeralError, read_numeral
from ..errors import InputError
from ..limits import MAX_CERTIFIED_DIGITS, past_certified_digits
from ..transformer.jsonfile import Locator

SECTIONS = ("constants", "positions", "transformer", "schedule", "hints")  # not the prose: summary, description
_NUMBER = re.compile(r"(?<![\w.])[0-9][0-9.]*(?:/[0-9]+)?")  # a numeral, not the digits inside a name like g10


def check_numbers(data: dict[str, Any], file: str, locator: Locator) -> None:
    """InputError at the first number (a JSON number, or a numeral in a string) the kernel would not read."""
    stack: list[tuple[tuple[str | int, ...], Any]] = [((key,), data[key]) for key in SECTIONS if key in data]
    while stack:
        path, value = stack.pop()
        if isinstance(value, dict):
            stack += [(path + (k,), v) for k, v in value.items()]
        elif isinstance(value, list):
            stack += [(path + (k,), v) for k, v in enumerate(value)]
        elif isinstance(value, int) and not isinstance(value, bool) and past_certified_digits(value) or \
                isinstance(value, str) and any(_too_long(token) for token in _NUMBER.findall(value)):
            raise InputError(f"a number of more than {MAX_CERTIFIED_DIGITS:,} characters (as p/q), past what the "
                             "trusted kernel reads, so nothing made from this document could be checked",
                             file, locator.line(path))


def _too_long(token: str) -> bool:
    try:
        return past_certified_digits(read_numeral(token))
    except NumeralError:  # not a numeral the engine reads (its own reader says so, where it reads it)
        return len(token) > MAX_CERTIFIED_DIGITS + 2
