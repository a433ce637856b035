"""Tests' short way to ask the trusted kernel for a verdict."""

from __future__ import annotations

from typing import Any

from verified_aat.circuits.ir import Circuit
from verified_aat.circuits.json_format import canonical_circuit_bytes
from verified_aat.kernel import Options, Report, check_certificate, load_certificate  # noqa: F401


def check(doc: dict[str, Any], circuit: Circuit | None = None, solvers: tuple[str, ...] = ("z3",),
          **options: Any) -> Report:
    """The kernel's report on ``doc``; ``circuit`` (if given) must be the certified one."""
    given = ("<circuit>", canonical_circuit_bytes(circuit), "structure") if circuit is not None else None
    return check_certificate(doc, Options(solvers=solvers, circuit_file=given, **options))
