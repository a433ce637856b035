"""verified-aat: machine-checked transformer–circuit constructions.

The public API (``verified_aat.api``) is re-exported here; the stages live in
sub-packages (``circuits`` → ``constructions`` → ``transformer`` →
``symbolic`` → ``certificates``; ``kernel`` is the trusted checker).
"""

from .api import certificate, certify, check, compile, family, load_circuit, parse_circuit, refute, simulate
from .circuits.evaluate import evaluate
from .circuits.ir import Circuit, Domain, Gate, Kind
from .circuits.measures import measure
from .errors import InputError

__all__ = ["Circuit", "Domain", "Gate", "Kind", "InputError", "certificate", "certify", "check", "compile",
           "evaluate", "family", "load_circuit", "measure", "parse_circuit", "refute", "simulate"]
__version__ = "0.1.0"
