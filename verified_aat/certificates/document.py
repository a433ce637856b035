"""The certificate: a versioned JSON document anyone can re-check.

It embeds the circuit, the transformer and the encoding (with their sha256
hashes), the structural coordinates, the schedule rules, the attention claims
(key-decomposition lemma and a digest of all argmax sets), every distinct
lemma as self-contained SMT-LIB text with its status and solver, and the
obligation counts.  Timings live under ``"timings"`` only, so the rest is
byte-identical for the same inputs.  Format details: docs/certificates.md.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from ..circuits.json_format import canonical_circuit_bytes, circuit_to_json
from ..circuits.text_format import print_circuit
from ..transformer.spec import transformer_to_json
from .attention_digest import sets_digest

FORMAT = "verified-aat/certificate"
VERSION = 1


def sha256_json(data: Any) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def build_certificate(result: Any, include_timings: bool = True) -> dict[str, Any]:
    """The certificate document for a :class:`~verified_aat.symbolic.certify.CertifyResult`."""
    circuit_json = circuit_to_json(result.circuit)
    transformer_json = transformer_to_json(result.transformer)
    encoding_json = result.encoding.to_json()
    lemmas = []
    for lemma in result.derivation.lemmas.values():
        verdict = result.verdicts.get(lemma.digest)
        lemmas.append({"id": lemma.digest, "kind": lemma.kind, "uses": lemma.uses,
                       "status": verdict.status if verdict else "unknown",
                       "solver": verdict.solver if verdict else "none", "smt2": lemma.text})
    attention = []
    for claim in result.attention:
        hint = result.hints.get(claim.head) if claim.method == "key-join" else None
        entry: dict[str, Any] = {"function": claim.function, "head": claim.head, "layers": list(claim.layers),
                                 "method": claim.method, "lemma": claim.lemma,
                                 "sets": {"positions": len(claim.sets.set_ids), "distinct": len(claim.sets.distinct),
                                          "members": sum(len(s) for s in claim.sets.distinct),
                                          "digest": sets_digest(claim.sets.set_ids, claim.sets.distinct)}}
        if hint is not None:
            entry["hint"] = {"row_key": print_circuit(hint.row_key, implicit_inputs=True),
                             "col_key": print_circuit(hint.col_key, implicit_inputs=True),
                             "col_penalty": print_circuit(hint.col_penalty, implicit_inputs=True),
                             "facts": {name: str(value) for name, value in hint.facts}}
        attention.append(entry)
    rules = result.construction_rules
    doc: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "claim": ("for every x in R^n, for every ordered ring Q ⊆ R ⊆ ℝ: the transformer on enc(C, x), read at "
                  "the read-out positions, equals C(x)"),
        "construction": result.construction,
        "depth_bound": result.depth_bound,
        "domain": "all of R^n (proofs over the reals; the circuit's intended domain is "
                  f"{result.circuit.domain.value})",
        "hashes": {"circuit": hashlib.sha256(canonical_circuit_bytes(result.circuit)).hexdigest(),
                   "transformer": sha256_json(transformer_json), "encoding": sha256_json(encoding_json)},
        "structural": list(result.structural),
        "schedule": {"layers": result.transformer.n_layers, "layers_needed": result.schedule.layers_needed,
                     "rules": {kind: {"scale": r.scale, "offset": r.offset, "ref": r.ref,
                                      "claims": [list(c) for c in r.claims],
                                      "kind_offsets": [list(k) for k in r.kind_offsets]}
                               for kind, r in sorted(rules.items())}},
        "attention": attention,
        "obligations": {kind: n for kind, n in sorted(result.derivation.kinds.items()) if n},
        "lemmas": lemmas,
        "result": {"status": result.status, "problems": list(result.problems),
                   "distinct_lemmas": len(lemmas), "solver_calls": result.solver_calls},
        "circuit": circuit_json,
        "transformer": transformer_json,
        "encoding": encoding_json,
    }
    if include_timings:
        doc["timings"] = {"phases": {k: round(v, 4) for k, v in sorted(result.seconds.items())},
                          "lemmas": {l.digest: round(result.verdicts[l.digest].seconds, 5)
                                     for l in result.derivation.lemmas.values() if l.digest in result.verdicts}}
    return doc


def dumps_certificate(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def write_certificate(doc: dict[str, Any], path: str | os.PathLike[str]) -> None:
    """Write atomically: a temporary file in the same folder, then a rename."""
    from ..circuits.io import write_atomically

    write_atomically(str(path), dumps_certificate(doc))


def export_smt(doc: dict[str, Any], directory: str | os.PathLike[str]) -> list[Path]:
    """Write every lemma as ``<kind>-<id12>.smt2`` (runnable by any SMT-LIB solver)."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for lemma in doc["lemmas"]:
        name = f"{lemma['kind'].replace(':', '-')}-{lemma['id'][:12]}.smt2"
        path = out / name
        path.write_text(f"; status in certificate: {lemma['status']} ({lemma['solver']}); expected: unsat\n"
                        + lemma["smt2"])
        written.append(path)
    return written
