"""Readers of a certificate's informational fields for the report: a field of the wrong type reads as absent.

The report shows what a certificate says and the kernel's verdict on it; the kernel alone judges the
certificate.  A field the kernel does not read (timings, a lemma's use count, the stated result) may
hold anything in a hand-edited file, so the report reads each through these, never by ``int(...)`` or
``.items()`` on whatever is there.
"""

from __future__ import annotations

import math
from typing import Any


def mapping(value: Any) -> dict[str, Any]:
    """``value`` if it is a JSON object, else {}."""
    return value if type(value) is dict else {}


def listing(value: Any) -> list[Any]:
    """``value`` if it is a JSON array, else []."""
    return value if type(value) is list else []


def count(value: Any) -> int:
    """``value`` if it is a JSON integer ≥ 0 (not a boolean), else 0."""
    return value if type(value) is int and value >= 0 else 0


def seconds(value: Any) -> float | None:
    """``value`` as seconds if it is a finite JSON number ≥ 0, else None."""
    if type(value) not in (int, float) or not math.isfinite(value) or value < 0:
        return None
    return float(value)


def stated_status(doc: dict[str, Any]) -> str:
    """The status the certificate states for itself (``result.status``), or "unknown"."""
    status = mapping(doc.get("result")).get("status", "unknown")
    return status if type(status) is str else "unknown"


def counts(value: Any) -> tuple[tuple[str, int], ...]:
    """A JSON object of counts, sorted by key, without its entries that are not counts."""
    return tuple(sorted((k, v) for k, v in mapping(value).items() if type(v) is int and v >= 0))


def phase_seconds(value: Any) -> tuple[tuple[str, float], ...]:
    """A JSON object of phase timings, sorted by name, without its entries that are not seconds."""
    timed = ((k, seconds(v)) for k, v in mapping(value).items())
    return tuple(sorted((k, s) for k, s in timed if s is not None))
