"""Regenerate proofs/audit/: for every transformer in specs/transformers/, the all-N audit certificate
(``verified-aat audit MODEL --prove``: U_N = T for every N ≥ 1) and the listed-N one for N = 1 … 4
(``--lengths 1..4 --prove``).  Each is accepted by the kernel with no solver (``check
--no-solver-trust``).  Timings are left out, so regenerating gives the same bytes.
Usage: ``python proofs/make_audit_proofs.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from verified_aat.audit.prove import prove_audit
from verified_aat.audit.prove_all_n import prove_all_n
from verified_aat.certificates.document import write_certificate
from verified_aat.transformer.spec import load_transformer

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "proofs" / "audit"
LISTED = (1, 2, 3, 4)


def planned() -> list[tuple[Path, str, Path]]:
    """(transformer file, "every-N" or "N1-4", certificate path) for every audit certificate."""
    return [(model, kind, FOLDER / f"{model.stem}.{kind}.audit.json")
            for model in sorted((ROOT / "specs" / "transformers").glob("*.json")) for kind in ("every-N", "N1-4")]


def build(model: Path, kind: str) -> dict[str, Any]:
    """The certificate without timings; ValueError if it is not proved."""
    transformer = load_transformer(model)
    result = prove_all_n(transformer) if kind == "every-N" else prove_audit(transformer, list(LISTED))
    if result.status != "proved":
        raise ValueError(f"{model.name} ({kind}): {result.status}")
    doc = dict(result.certificate)  # type: ignore[arg-type]
    doc.pop("timings", None)
    return doc


def main() -> int:
    FOLDER.mkdir(exist_ok=True)
    for model, kind, path in planned():
        try:
            doc = build(model, kind)
        except ValueError as exc:
            print(exc, file=sys.stderr)
            return 1
        write_certificate(doc, path)
        print(f"{path.relative_to(ROOT)}: {len(doc['lemmas'])} lemmas")
    return 0


if __name__ == "__main__":
    sys.exit(main())
