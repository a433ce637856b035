"""The JSON objects of every ``--json`` result and of the report pages: one envelope, rationals as strings.

Every object has the same envelope (schema in ``docs/cli.md``)::

    {"command": "certify", "status": "proved", "exit_code": 0, "reasons": [...],
     "counts": {...}, "timings": {...}, ...command-specific fields}

``status`` is one of :data:`STATUSES`; ``exit_code`` is the process's exit code, always the
one :data:`EXIT_FOR_STATUS` gives for the status.  Rationals are strings (``"-3/4"``), so
nothing is lost to floating point.  Printing them is :mod:`verified_aat.cli.json_output`.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Any

from .errors import EXIT_OK, EXIT_REFUTED, EXIT_UNKNOWN

SCHEMA = "verified-aat/cli-result/1"

EXIT_FOR_STATUS = {
    "proved": EXIT_OK,          # certify
    "refuted": EXIT_REFUTED,    # certify, refute
    "unknown": EXIT_UNKNOWN,    # certify, refute (nothing found: not a proof)
    "accepted": EXIT_OK,        # check
    "rejected": EXIT_REFUTED,   # check
    "not-checked": EXIT_UNKNOWN,  # check (a solver gave up)
    "passed": EXIT_OK,          # audit
    "failed": EXIT_REFUTED,     # audit
    "ok": EXIT_OK,              # info
}
STATUSES = tuple(EXIT_FOR_STATUS)


def rational(value: Any) -> Any:
    """A rational as a string (``"3/4"``, ``"-2"``), of any length; ``None`` and other values unchanged."""
    if isinstance(value, (Fraction, int)) and not isinstance(value, bool):
        q = Fraction(value)
        return _digits(q.numerator) + ("" if q.denominator == 1 else "/" + _digits(q.denominator))
    return value


def _digits(n: int) -> str:
    """``str(n)`` past Python's 4,300-digit limit on int/str conversion (``circuits.rationals`` does the same)."""
    return str(n) if n.bit_length() < 12_000 else str(Decimal(n))


def envelope(command: str, status: str, reasons: list[str] | None = None, counts: dict[str, Any] | None = None,
             timings: dict[str, float] | None = None, **fields: Any) -> dict[str, Any]:
    """The common fields, then ``fields``; ``exit_code`` follows from ``status``."""
    if status not in EXIT_FOR_STATUS:
        raise AssertionError(f"unknown --json status {status!r}")
    doc: dict[str, Any] = {"schema": SCHEMA, "command": command, "status": status,
                           "exit_code": EXIT_FOR_STATUS[status], "reasons": list(reasons or []),
                           "counts": dict(counts or {}),
                           "timings": {k: round(float(v), 6) for k, v in (timings or {}).items()}}
    for key, value in fields.items():
        doc.setdefault(key, value)
    return doc


def counterexample_json(cex: Any) -> dict[str, Any] | None:
    """A replayed counterexample: inputs, outputs on both sides, the gate-by-gate steps, the first mismatch."""
    if cex is None:
        return None
    steps = [{"gate": s.gate, "kind": s.kind, "layer": s.layer, "position": s.position,
              "circuit_value": rational(s.circuit_value), "transformer_value": rational(s.transformer_value),
              "agrees": bool(s.agrees)} for s in cex.steps]
    mismatch = next((s for s in steps if not s["agrees"]), None)
    outputs = [{"name": n, "circuit": rational(e), "transformer": rational(a), "agrees": e == a}
               for n, e, a in zip(cex.output_names, cex.expected, cex.actual)]
    return {"rational": bool(cex.rational), "transformer_layers": getattr(cex, "layers", None),
            "inputs": {n: rational(v) for n, v in zip(cex.input_names, cex.inputs)},
            "input_vector": [rational(v) for v in cex.inputs],
            "outputs": outputs, "steps": steps, "first_mismatch": mismatch}
