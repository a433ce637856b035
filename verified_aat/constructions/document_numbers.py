"""Numbers of a construction document that the trusted kernel cannot read, refused where the document is read.

The kernel reads a numeral of at most ``MAX_CERTIFIED_DIGITS`` characters (``kernel/data.read_numeral``), in the
document's constants and rows and in the certificate's copy of T_K. A document with a longer one was read here, and
only certifying with it failed: ``certify -c DOC`` said *unknown*, with Python's own message when T_K's constant
passed 4,300 digits, or the kernel did not accept the engine's certificate. Now it is the document's error, at the
line of the string or number that holds it, as every other problem of a document is.

The kernel also reads some of them in a narrower syntax than the engine (red team, round 19): a constant or a sink
target as ``-p``, ``p/q`` or ``p.d`` (``kernel/layouts._rational``: no ``+``, ``.5`` or ``5.``; a JSON integer below
10^300), a bilinear entry of T_K only as such a string (``document_transformer._bilinear``), and a circuit literal by
its spelling, not its value (``4.000…0`` of 2,500 characters is refused there, where it reads 4 here). Each was taken
by ``certify -c DOC``, whose certificate the kernel then rejected; now each is this document's error too.
"""

from __future__ import annotations

import re
from typing import Any

from ..circuits.rationals import NumeralError, read_numeral
from ..errors import InputError
from ..limits import MAX_CERTIFIED_DIGITS, past_certified_digits
from ..transformer.jsonfile import Locator

SECTIONS = ("constants", "positions", "transformer", "schedule", "hints")  # not the prose: summary, description
_NUMBER = re.compile(r"(?<![\w.])\.?[0-9][0-9.]*(?:/[0-9]+)?")  # a numeral, not the digits inside a name like g10
_KERNEL_NUMERAL = re.compile(r"-?[0-9]+(?:\.[0-9]+)?(?:/[0-9]+)?\Z", re.ASCII)  # kernel/data.read_numeral's syntax
_KERNEL_INT = 10**300  # kernel/layouts._rational: a JSON integer below this, else a string


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
        elif _bare(path) and not _kernel_reads(value, strings_only=path[-2] == "bilinear"):
            what = "a bilinear entry as a string" if path[-2] == "bilinear" else "a document's rational"
            raise InputError(f"{_shown(value)}: the trusted kernel reads {what} '-p', 'p/q' or 'p.d' only (ASCII "
                             "digits; no '+', '.5' or '5.'; a JSON integer below 10^300), so nothing made from "
                             "this document could be checked", file, locator.line(path))


def _bare(path: tuple[str | int, ...]) -> bool:
    """Whether ``path`` holds a number the kernel reads by itself: a constant, a sink target, a bilinear entry."""
    return len(path) == 2 and path[0] == "constants" or len(path) == 3 and path[0] == "positions" and \
        path[2] == "target" or len(path) > 2 and path[0] == "transformer" and path[-2] == "bilinear"


def _kernel_reads(value: Any, strings_only: bool) -> bool:
    if isinstance(value, int) and not isinstance(value, bool):
        return not strings_only and abs(value) < _KERNEL_INT
    if not isinstance(value, str) or _KERNEL_NUMERAL.match(value) is not None:
        return True  # another kind of value: the engine's reader says what is wrong with it
    try:
        read_numeral(value)
    except NumeralError:
        return True  # not a numeral at all: the same (its one message for '1e5' wherever a number is read)
    return False


def _shown(value: Any) -> str:
    text = repr(value) if not isinstance(value, int) or abs(value) < 10**40 else f"an integer of {len(str(abs(value)))} digits"
    return text if len(text) <= 40 else text[:40] + "..."


def _too_long(token: str) -> bool:
    spelled = ("0" + token if token[0] == "." else token).removesuffix(".")  # as kernel read_literal passes it on
    if len(spelled) > MAX_CERTIFIED_DIGITS:
        return True  # the kernel reads a literal's spelling, whatever its value (4.000…0)
    try:
        return past_certified_digits(read_numeral(token))
    except NumeralError:  # not a numeral the engine reads (its own reader says so, where it reads it)
        return len(token) > MAX_CERTIFIED_DIGITS + 2
