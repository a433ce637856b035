"""Regenerate proofs/constructions/: one schematic certificate per construction the kernel states a
schematic proof for, covering every K (``verified-aat prove-construction NAME --all-K``), and gate-edge's
instantiated at the spec circuit mixed_depth6 (``certify --every-k``).  Timings are left out, so regenerating
gives the same bytes.  Usage: ``python proofs/make_schematic_proofs.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from verified_aat.certificates.document import write_certificate
from verified_aat.schematic.prove import schematic_builtins
from verified_aat.schematic import prove_construction

FOLDER = Path(__file__).resolve().parent / "constructions"
INSTANCE = FOLDER / "gate-edge.at-mixed_depth6.every-K.json"  # certify --every-k: the proof with one circuit in it
SPEC = FOLDER.parent.parent / "specs" / "circuits" / "mixed_depth6.circ"


def planned() -> list[tuple[str, Path]]:
    """(construction, certificate path) for every schematic certificate."""
    return [(name, FOLDER / f"{name}.every-K.schematic.json") for name in schematic_builtins()]


def main() -> int:
    FOLDER.mkdir(exist_ok=True)
    for name, path in planned():
        result = prove_construction(name)
        if result.status != "proved":
            print(f"{name}: {result.status}: {'; '.join(result.problems)}", file=sys.stderr)
            return 1
        doc = dict(result.certificate)  # type: ignore[arg-type]
        doc.pop("timings", None)
        write_certificate(doc, path)
        print(f"{path.relative_to(FOLDER.parent.parent)}: {result.lemmas} lemmas, {result.seconds:.2f}s")
    return write_instance()


def write_instance() -> int:
    """gate-edge's every-K certificate with the spec circuit mixed_depth6 embedded (``certify --every-k``)."""
    import verified_aat as va
    result = va.certify(va.load_circuit(str(SPEC)), "gate-edge", every_k=True)
    if result.status != "proved":
        print(f"{INSTANCE.name}: {result.status}: {'; '.join(result.problems)}", file=sys.stderr)
        return 1
    write_certificate(dict(va.certificate(result, timings=False)), INSTANCE)
    print(f"{INSTANCE.relative_to(FOLDER.parent.parent)}: {result.theorem[-120:]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
