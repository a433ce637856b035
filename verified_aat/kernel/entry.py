"""The kernel's one entry: a certificate's format chooses its checker, whose verdict is the kernel's. It imports a
kind's checker only for that kind's format, so a kind's trusted base is this module and what its checker runs."""

from __future__ import annotations

from importlib import import_module
from typing import Any

from .report import NOT_CHECKED, Options, Report

CHECKERS = {"verified-aat/schematic-certificate": ("schematic", "check_schematic"),  # P1-P10: every circuit of depth <= K
            "verified-aat/audit-certificate": ("audit_proof", "check_audit"),  # U1-U6: U_N = T, listed N
            "verified-aat/audit-family-certificate": ("audit_family", "check_audit_family")}  # V1-V6: every N
PER_CIRCUIT = ("checks", "check_per_circuit")  # any other format: S1 rejects what is not a per-circuit certificate


def check_certificate(doc: dict[str, Any], options: Options | None = None) -> Report:
    """The verdict of the checker that ``doc``'s format names, with ``options``."""
    options = options or Options()
    if not options.solvers:  # every kind rests on solver-proved lemmas: none given is no verdict (D)
        return not_checked("no solver was given: every certificate rests on solver-proved lemmas")
    fmt = doc.get("format")
    module, function = CHECKERS.get(fmt, PER_CIRCUIT) if type(fmt) is str else PER_CIRCUIT
    if (module.startswith("audit") and (options.circuit_file or options.netlist)) or (
            module == "schematic" and options.netlist):  # a given circuit instantiates a schematic theorem (P10)
        return not_checked("a given netlist links only a per-circuit certificate, and a given circuit a per-circuit "
                           "or a schematic one; this certificate's theorem is about T, or a netlist was given")
    return getattr(import_module(f".{module}", __package__), function)(doc, options)  # type: ignore[no-any-return]


def not_checked(reason: str) -> Report:
    """A run that cannot reach a verdict: neither accepted nor rejected."""
    report = Report()
    report.unchecked = [reason]
    report.outcome = NOT_CHECKED
    return report
