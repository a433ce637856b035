"""Forge *audit* certificates (U_N = T, listed N and every N) from randomly edited transformers (red team round 13).

One random edit of a hand-written transformer of ``specs/transformers/`` (as ``forge_schematic.edit_spec``: a gate's
op, an argument, a constant, an output, a head's pooling or score), then the certificate the engine writes for it
(``audit.prove.build_certificate`` for N = 1 … 4, ``audit.prove_all_n.build_family_certificate`` for every N: the
kernel's own lemma list and unrolled hashes) with its proof objects removed and every lemma claimed proved; checked
under a solver answering unsat to everything and, where that accepts, honestly (``forge_schematic.outcome``).

Run as a script: ``python tests/forge_audit.py [EDITS_PER_MODEL] [SEED]``.
"""

from __future__ import annotations

import copy
import json
import random
import sys
from pathlib import Path
from typing import Any

from forge_schematic import edit_spec, outcome

MODELS = Path(__file__).resolve().parent.parent / "specs" / "transformers"


def edited_spec(name: str, rng: random.Random) -> tuple[dict[str, Any], str]:
    spec = json.loads((MODELS / f"{name}.json").read_text(encoding="utf-8"))
    spec = copy.deepcopy(spec)
    return spec, edit_spec(spec["functions"], spec["coordinates"], spec["layers"], rng)


def forge_audit(spec: dict[str, Any], every_n: bool) -> dict[str, Any] | None:
    """The engine's certificate for ``spec`` without proof objects; None where the reader or the engine refuses."""
    from verified_aat.audit.prove import build_certificate
    from verified_aat.audit.prove_all_n import build_family_certificate
    from verified_aat.transformer.spec import transformer_from_json
    try:
        T = transformer_from_json(spec, "forged.json")
        doc = build_family_certificate(T, proof_seconds=0.0) if every_n else build_certificate(T, [1, 2, 3, 4])[0]
    except Exception:  # noqa: BLE001 - an edit the reader or the engine refuses: not a forgery
        return None
    for lemma in doc["lemmas"]:
        lemma.pop("proof", None)
    return doc


def main(argv: list[str]) -> int:
    edits = int(argv[0]) if argv else 50
    seed = int(argv[1]) if len(argv) > 1 else 13
    for name in sorted(p.stem for p in MODELS.glob("*.json")):
        for every_n in (False, True):
            rng = random.Random(f"{seed}:{name}:{every_n}")
            counts: dict[str, int] = {}
            for _ in range(edits):
                spec, what = edited_spec(name, rng)
                result, report = outcome(forge_audit(spec, every_n))
                counts[result] = counts.get(result, 0) + 1
                if result not in ("refused", "rejected", "true"):
                    problems = [str(p)[:300] for p in getattr(report, "rejections", [])][:1]
                    unchecked = [str(u)[:300] for u in getattr(report, "unchecked", [])][:1]
                    print(f"  {name} {'every-N' if every_n else 'N1-4'}: {result}: {what} {problems} {unchecked}",
                          flush=True)
            print(name, "every-N" if every_n else "N1-4", dict(sorted(counts.items())), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
