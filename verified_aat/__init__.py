"""verified-aat: machine-checked transformer–circuit constructions.

The public API (``verified_aat.api``) is re-exported here; the stages live in
sub-packages (``circuits`` → ``constructions`` → ``transformer`` →
``symbolic`` → ``certificates``; ``kernel`` is the trusted checker).
"""

from .api import (audit_transformer, certificate, certify, check, compile, construction, family, load_circuit,
                  parse_circuit, prove_construction, refute, simulate)
from .circuits.evaluate import evaluate
from .circuits.ir import Circuit, Domain, Gate, Kind
from .circuits.measures import measure
from .errors import InputError
from .status import Status, Verdict

__all__ = ["Circuit", "Domain", "Gate", "Kind", "InputError", "certificate", "certify", "check", "compile",
           "evaluate", "family", "load_circuit", "measure", "parse_circuit", "refute", "simulate"]
__all__ += ["Certificate", "CheckReport", "Status", "Verdict", "audit_transformer"]
__all__ += ["prove_construction", "construction"]
__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    """``Certificate`` and ``CheckReport`` on first use: they load the kernel, which the
    command line's start-up should not pay for."""
    if name in ("Certificate", "CheckReport"):
        from . import results
        return getattr(results, name)
    raise AttributeError(f"module 'verified_aat' has no attribute {name!r}")
