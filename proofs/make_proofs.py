"""Regenerate proofs/: one certificate per circuit in specs/circuits/ and
construction that applies to it (no binarizing: the certified circuit is the
file as written).  Certificates leave timings out, so regenerating gives the
same bytes.  Usage: ``python proofs/make_proofs.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from verified_aat.certificates.document import build_certificate, write_certificate
from verified_aat.circuits.io import load_circuit
from verified_aat.constructions.registry import CONSTRUCTIONS
from verified_aat.errors import InputError
from verified_aat.symbolic.certify import certify

ROOT = Path(__file__).resolve().parent.parent
SPECS = ROOT / "specs" / "circuits"
PROOFS = ROOT / "proofs"
CONSTRUCTION_NAMES = ["gate-edge", "gate-edge-dot", "unique-hard", "unique-hard-left", "unique-hard-right", "edge-only", "edge-k"]


def planned() -> list[tuple[Path, str, Path]]:
    """(circuit file, construction, certificate path) for every applicable pair."""
    plan = []
    for path in sorted(SPECS.glob("*.circ")):
        circuit = load_circuit(str(path))
        for name in CONSTRUCTION_NAMES:
            if name not in CONSTRUCTIONS:
                continue
            try:
                CONSTRUCTIONS[name].check_class(circuit)
            except InputError:
                continue
            plan.append((path, name, PROOFS / name / f"{path.stem}.cert.json"))
    return plan


def main() -> int:
    failures = 0
    for path, name, target in planned():
        result = certify(load_circuit(str(path)), CONSTRUCTIONS[name])
        if result.status != "proved":
            print(f"{path.name:32} {name:14} {result.status.upper()}: {result.problems[:2]}")
            failures += 1
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        write_certificate(build_certificate(result, include_timings=False), target)
        print(f"{path.name:32} {name:14} proved  {len(result.derivation.lemmas):4} lemmas  -> "
              f"{target.relative_to(ROOT)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
