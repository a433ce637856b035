"""The trusted base a verdict rests on, stated for the report (measured, not hard-coded)."""

from __future__ import annotations

import platform
from pathlib import Path


def trusted_base() -> list[str]:
    """One line per part of the trusted base: the kernel's size, the solvers' versions, Python."""
    kernel = Path(__file__).resolve().parent.parent / "kernel"
    files = sorted(kernel.glob("*.py"))
    lines = sum(len(f.read_text(encoding="utf-8").splitlines()) for f in files)
    out = [f"the trusted kernel verified_aat/kernel/: {lines:,} lines of Python in {len(files)} files, importing "
           f"nothing else from verified_aat (docs/soundness.md); only its verdict (`verified-aat check`) is trusted",
           f"the SMT solvers it runs: {_versions()}",
           f"Python {platform.python_version()} and its standard library (exact rationals: fractions, gmpy2 when "
           f"installed)",
           "not trusted: the engine that wrote the certificate, this report, the drawing and plotting libraries"]
    return out


def _versions() -> str:
    found = []
    try:
        import z3
        found.append(f"Z3 {z3.get_version_string()}")
    except ImportError:  # pragma: no cover - a dependency
        found.append("Z3 (not installed)")
    try:
        import cvc5
        found.append(f"cvc5 {getattr(cvc5, '__version__', '?')}")
    except ImportError:  # pragma: no cover - a dependency
        found.append("cvc5 (not installed)")
    return ", ".join(found)
