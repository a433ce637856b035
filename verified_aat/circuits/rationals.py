"""Exact rationals as text: ``-3``, ``7/2``, ``-3/4``, ``0.25`` (never floats).

:func:`read_numeral` is the engine's one reader of a rational written in a user's file
(circuits, transformers, sequences, encodings, construction documents, ``refute --json``
results): ASCII digits only, an optional sign, ``p``, ``p/q`` and, where the format allows
them, decimals ``p.d`` (read exactly: ``0.1`` is 1/10); no exponent (``1e999999999`` would be
a number of 10⁹ digits), no ``_``, no spaces, no ``nan`` or ``inf``, no zero denominator, and
at most :data:`~verified_aat.limits.MAX_DIGITS` digits.  :func:`parse_rational` is the same
with the error located in a file; :func:`json_int` reads a JSON integer under the same digit
limit (``json.loads(parse_int=json_int)``).  :func:`format_rational` writes the canonical
form ``p`` or ``p/q``.  Reading and writing both work past Python's 4,300-digit limit on
int/str conversion.  (The trusted kernel has its own reader, ``kernel/data.read_numeral``.)
"""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction
from typing import Any

from ..errors import InputError
from ..limits import MAX_DIGITS

_RATIONAL_RE = re.compile(r"[+-]?(?:(\d+)(?:/(\d+))?|(\d+\.\d*|\.\d+))\Z", re.ASCII)
_NUMERIC_START = re.compile(r"[+-]?\.?\d", re.ASCII)
_PY_LIMIT = 4000  # safely below CPython's default int/str conversion limit


def _int_from_digits(digits: str) -> int:
    if len(digits) < _PY_LIMIT:
        return int(digits)
    return int(Decimal(digits))


def _int_to_digits(value: int) -> str:
    if value.bit_length() < 3 * _PY_LIMIT:  # < ~3600 decimal digits
        return str(value)
    return str(Decimal(value))


def is_rational_literal(token: str) -> bool:
    """Whether ``token`` has the syntax of a rational literal."""
    return _RATIONAL_RE.match(token) is not None


def looks_numeric(token: str) -> bool:
    """Whether ``token`` reads as some kind of number (``1e5``, ``nan``, ``-.5``, ``inf`` …)."""
    if _NUMERIC_START.match(token):
        return True
    if token[:1].isascii() and (token[:1].isalpha() or token[:1] == "_"):
        return token.lower() in ("nan", "inf", "infinity")  # the only words float() reads
    try:
        float(token)
    except (ValueError, OverflowError):
        return False
    return True


class NumeralError(ValueError):
    """A text that is not a rational numeral of the engine's formats; the message says why."""


def _shown(token: str) -> str:
    return repr(token if len(token) <= 40 else token[:40] + "...")


def read_numeral(token: str, *, decimals: bool = True, max_digits: int = MAX_DIGITS) -> Fraction:
    """The exact rational written as ``token`` (``p``, ``p/q``, and ``p.d`` if ``decimals``); else
    :class:`NumeralError`.  The digit limit is checked before any digit is converted."""
    if not isinstance(token, str):
        raise NumeralError(f"expected a rational as a string, got {type(token).__name__}")
    match = _RATIONAL_RE.match(token)
    if match is None or (not decimals and match.group(3) is not None):
        forms = "an integer, p/q or a decimal like 0.25" if decimals else "an integer or p/q"
        raise NumeralError(f"{_shown(token)} is not a rational number (write {forms} in ASCII digits; "
                           f"no exponents, spaces, '_', nan or inf)")
    numer_s, denom_s, decimal_s = match.groups()
    if len(token) - (token[0] in "+-") - (denom_s is not None or decimal_s is not None) > max_digits:
        raise NumeralError(f"number has more than {max_digits:,} digits (the digits-per-number limit)")
    negative = token.startswith("-")
    if decimal_s is not None:
        whole, _, frac = decimal_s.partition(".")
        value = Fraction(_int_from_digits((whole or "0") + frac), 10 ** len(frac))
    else:
        numer = _int_from_digits(numer_s)
        denom = _int_from_digits(denom_s) if denom_s is not None else 1
        if denom == 0:
            raise NumeralError(f"{_shown(token)} divides by zero")
        value = Fraction(numer, denom)
    return -value if negative else value


def read_exact(token: str, *, decimals: bool = True) -> int | Fraction:
    """:func:`read_numeral`, an ``int`` when integral."""
    q = read_numeral(token, decimals=decimals)
    return q.numerator if q.denominator == 1 else q


def read_json_rational(value: object) -> Fraction:
    """A decoded JSON value that is an integer or a numeral string (:func:`read_numeral`), as a Fraction;
    :class:`NumeralError` for anything else (a float, a boolean, ``"1e999999999"``)."""
    if isinstance(value, int) and not isinstance(value, bool):  # a LongInt too
        return Fraction(int(value))
    return read_numeral(value)  # type: ignore[arg-type]  # a non-string is refused there


def json_loads(text: str, **hooks: Any) -> Any:
    """``json.loads`` with integers of up to :data:`MAX_DIGITS` digits: Python's own ``int`` in the usual case (a
    ``parse_int`` hook costs a call per integer, +1.3 s for the 9.6 million of a 10⁶-gate encoding's roles) and
    :func:`json_int` only for a text with an integer past Python's 4,300-digit limit."""
    import json
    try:
        return json.loads(text, **hooks)
    except ValueError as exc:
        if isinstance(exc, json.JSONDecodeError) or "integer string conversion" not in str(exc):
            raise
    return json.loads(text, parse_int=json_int, **hooks)


def json_int(digits: str) -> int:
    """``json.loads``'s ``parse_int``: a JSON integer of at most :data:`MAX_DIGITS` digits (Python's own
    conversion stops at 4,300 with its own words); :class:`NumeralError` past it.  One past
    :data:`_PY_LIMIT` digits is a :class:`LongInt`, which prints where a plain int would raise."""
    if len(digits) - digits.startswith("-") > MAX_DIGITS:
        raise NumeralError(f"a number has more than {MAX_DIGITS:,} digits (the digits-per-number limit)")
    value = _int_from_digits(digits)
    return LongInt(value) if len(digits) >= _PY_LIMIT else value


class LongInt(int):
    """A JSON integer of more digits than Python's ``str``/``repr`` of an int write (4,300): ``str`` gives its
    digits, ``repr`` (what a reader's message shows, ``{value!r}``) the first and last and their count.  Without
    it, a message about such a number where another kind of value belongs (``"version": 999…9``) raised
    ValueError while it was being written: *limit reached*, exit 3, and no file or line.  Arithmetic on it gives
    plain ints; a reader that keeps one as a number converts it (``int(value)``)."""
    __slots__ = ()

    def __str__(self) -> str:
        return _int_to_digits(int(self))

    def __repr__(self) -> str:
        digits = str(self)
        return f"{digits[:12]}...{digits[-6:]} (an integer of {len(digits.lstrip('-')):,} digits)"

    def __format__(self, spec: str) -> str:
        return str(self) if not spec else repr(self)  # a spec such as ',' would convert past the limit


def parse_rational(token: str, file: str | None = None, line: int | None = None) -> Fraction:
    """The exact rational written as ``token`` (:func:`read_numeral`); :class:`InputError` otherwise."""
    try:
        return read_numeral(token)
    except NumeralError as exc:
        raise InputError(str(exc), file, line) from None


def format_rational(value: Fraction | int) -> str:
    """Canonical text ``p`` or ``p/q`` (q > 1, lowest terms), of any length."""
    q = Fraction(value)
    text = _int_to_digits(q.numerator)
    if q.denominator != 1:
        text += "/" + _int_to_digits(q.denominator)
    return text


def format_rational_short(value: Fraction | int, max_chars: int = 40) -> str:
    """:func:`format_rational`, its middle elided past ``max_chars`` characters (``1234…6789 (5,000 digits)``)."""
    text = format_rational(value)
    if len(text) <= max_chars:
        return text
    digits = sum(c.isdigit() for c in text)
    return f"{text[:max_chars // 2]}…{text[-8:]} ({digits:,} digits)"
