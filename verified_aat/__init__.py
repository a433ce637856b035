"""verified-aat: machine-checked transformer–circuit constructions.

The public API (``verified_aat.api``) is re-exported here; the stages live in
sub-packages (``circuits`` → ``constructions`` → ``transformer`` →
``symbolic`` → ``certificates``; ``kernel`` is the trusted checker).

Every name is loaded on first use (PEP 562): importing a submodule, as the command line's
entry does before it installs its signal handlers, does not load the API.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (type checkers know the name)
if TYPE_CHECKING:
    from .api import (audit_transformer, certificate, certify, check, compile, construction, evaluate, family,
                      load_circuit, parse_circuit, prove_construction, refute, simulate, solver_options)
    from .circuits.ir import Circuit, Domain, Gate, Kind
    from .circuits.measures import measure
    from .errors import InputError
    from .results import Certificate, CheckReport
    from .status import Status, Verdict

__all__ = ["Circuit", "Domain", "Gate", "Kind", "InputError", "certificate", "certify", "check", "compile",
           "evaluate", "family", "load_circuit", "measure", "parse_circuit", "refute", "simulate"]
__all__ += ["Certificate", "CheckReport", "Status", "Verdict", "audit_transformer"]
__all__ += ["prove_construction", "construction", "solver_options"]
__version__ = "0.1.0"

_HOME = {name: "api" for name in ("audit_transformer", "certificate", "certify", "check", "compile", "construction",
                                  "evaluate", "family", "load_circuit", "parse_circuit", "prove_construction",
                                  "refute", "simulate", "solver_options")}
_HOME.update(Circuit="circuits.ir", Domain="circuits.ir", Gate="circuits.ir",
             Kind="circuits.ir", measure="circuits.measures", InputError="errors", Certificate="results",
             CheckReport="results", Status="status", Verdict="status")


def __getattr__(name: str) -> object:
    """A public name on first use, from the module that defines it (the kernel, the engine's stages and
    numpy load only when a name needs them)."""
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'verified_aat' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f".{home}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
