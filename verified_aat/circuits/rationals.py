"""Exact rationals as text: ``-3``, ``7/2``, ``-3/4``, ``0.25`` (never floats).

:func:`parse_rational` accepts integers, fractions ``p/q`` and decimals
(read exactly: ``0.1`` is 1/10) and rejects exponents, ``nan``, ``inf`` and
zero denominators.  :func:`format_rational` writes the canonical form
``p`` or ``p/q``.  Both work past Python's 4300-digit limit on int/str
conversion, up to :data:`MAX_DIGITS` digits.
"""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction

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


def parse_rational(token: str, file: str | None = None, line: int | None = None) -> Fraction:
    """The exact rational written as ``token``; :class:`InputError` otherwise."""
    match = _RATIONAL_RE.match(token)
    if match is None:
        shown = token if len(token) <= 40 else token[:40] + "..."
        raise InputError(f"'{shown}' is not a rational number (write an integer, p/q or a decimal "
                         f"like 0.25; no exponents, nan or inf)", file, line)
    if sum(c.isdigit() for c in token) > MAX_DIGITS:
        raise InputError(f"number has more than {MAX_DIGITS:,} digits (the digits-per-number limit)", file, line)
    negative = token.startswith("-")
    numer_s, denom_s, decimal_s = match.groups()
    if decimal_s is not None:
        whole, _, frac = decimal_s.partition(".")
        value = Fraction(_int_from_digits((whole or "0") + frac), 10 ** len(frac))
    else:
        numer = _int_from_digits(numer_s)
        denom = _int_from_digits(denom_s) if denom_s is not None else 1
        if denom == 0:
            raise InputError(f"'{token}' divides by zero", file, line)
        value = Fraction(numer, denom)
    return -value if negative else value


def format_rational(value: Fraction | int) -> str:
    """Canonical text ``p`` or ``p/q`` (q > 1, lowest terms)."""
    q = Fraction(value)
    text = _int_to_digits(q.numerator)
    if q.denominator != 1:
        text += "/" + _int_to_digits(q.denominator)
    return text
