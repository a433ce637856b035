"""The certificate: a versioned JSON document the trusted kernel re-checks.

Version 2 (docs/certificates.md) embeds the circuit and the transformer in
the kernel's structural forms, the hash of the encoding (the kernel rebuilds
enc(C) from its own statement of the construction's layout), the engine's
*hints* (structural coordinates, schedule rules, attention methods and key
decompositions), what the engine *derived* (layer counts, argmax-set
summaries, obligation counts), and every distinct lemma as self-contained
SMT-LIB text.  The kernel trusts none of it: it re-derives everything and
verifies every hint.  Timings live under ``"timings"`` only, so the rest is
byte-identical for the same inputs.
"""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path
from typing import Any

from ..circuits.json_format import CANONICAL_FORMAT
from ..circuits.json_format import VERSION as CIRCUIT_VERSION
from ..errors import InputError
from ..gc_pause import gc_paused
from .attention_digest import sets_digest
from .kernel_form import circuit_structure, encoding_digest, sha256_json, transformer_form

FORMAT = "verified-aat/certificate"
VERSION = 3  # 3: the argmax-set digest of 64-bit numbers (attention_digest.py); 2 wrote its text
CLAIM = ("for every x in R^n and every ordered ring Q ⊆ R ⊆ ℝ: the transformer on enc(C, x), read at the "
         "read-out positions, equals C(x)")


def _canonical(circuit: Any) -> dict[str, Any]:
    """The canonical structure (as canonical_circuit_bytes writes it), built directly: no 10⁶-gate JSON round trip."""
    return {"format": CANONICAL_FORMAT, "version": CIRCUIT_VERSION, "domain": circuit.domain.value,
            **circuit_structure(circuit)}


def instance_section(circuit: Any) -> dict[str, Any]:
    """The ``instance`` section of a schematic certificate (``certify --every-k``, docs/soundness.md P10): the
    circuit the every-K theorem is instantiated at, in the canonical structure the kernel loads (as S1's)."""
    return {"circuit": _canonical(circuit)}


def original_section(original: Any, roots: tuple[int, ...]) -> dict[str, Any]:
    """The ``original`` section of a ``--binarize`` certificate (docs/soundness.md, B): the circuit before
    binarization, its hash, and per gate the root of its tree in the certified circuit (a hint)."""
    circuit = _canonical(original)
    return {"circuit": circuit, "sha256": sha256_json(circuit), "roots": list(roots)}


@gc_paused
# long because the certificate document is one dict literal, section by section, and reads best whole.
def build_certificate(result: Any, include_timings: bool = True, netlist: dict[str, Any] | None = None,
                      original: dict[str, Any] | None = None) -> dict[str, Any]:
    """The certificate document for a proved :class:`~verified_aat.symbolic.certify.CertifyResult`;
    ``original`` (``--binarize`` only) records the circuit before binarization."""
    circuit = _canonical(result.circuit)
    transformer = transformer_form(result.transformer)
    lemmas = []
    for lemma in sorted(result.derivation.lemmas.values(), key=lambda l: l.digest):
        verdict = result.verdicts.get(lemma.digest)
        lemmas.append({"id": lemma.digest, "kind": lemma.kind, "uses": lemma.uses,
                       "engine": verdict.solver if verdict else "none", "smt2": lemma.text})
    attention_hints, attention_derived = [], []
    for claim in result.attention:
        entry: dict[str, Any] = {"function": claim.function, "head": claim.head, "method": claim.method}
        hint = result.hints.get(claim.head) if claim.method == "key-join" else None
        if hint is not None:
            coords = result.transformer.coordinates
            entry["key"] = {"row_key": circuit_structure(hint.row_key), "col_key": circuit_structure(hint.col_key),
                            "col_penalty": circuit_structure(hint.col_penalty),
                            "facts": [[name, str(value)] for name, value in
                                      sorted(hint.facts, key=lambda f: coords.index(f[0]))]}
        attention_hints.append(entry)
        attention_derived.append({"function": claim.function, "head": claim.head, "layers": list(claim.layers),
                                  "method": claim.method,
                                  "sets": {"positions": len(claim.sets.set_ids), "distinct": len(claim.sets.distinct),
                                           "members": len(claim.sets.members),
                                           "digest": sets_digest(claim.sets.set_ids, claim.sets.distinct)}})
    rules = result.construction_rules
    doc: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "claim": CLAIM,
        "construction": result.construction,
        "info": {"depth_bound": result.depth_bound, "circuit": result.circuit.name,
                 "domain": ("all of R^n (proofs over the reals; the circuit was meant for "
                            f"{result.circuit.domain.value})")},
        "hashes": {"circuit": sha256_json(circuit), "transformer": sha256_json(transformer),
                   "encoding": encoding_digest(result.encoding)},
        "circuit": circuit,
        "transformer": transformer,
        "hints": {"structural": list(result.structural),
                  "schedule": {kind: {"scale": r.scale, "offset": r.offset, "ref": r.ref,
                                      "claims": [list(c) for c in r.claims],
                                      "kind_offsets": [list(k) for k in r.kind_offsets]}
                               for kind, r in sorted(rules.items())},
                  "attention": attention_hints},
        "derived": {"layers": result.transformer.n_layers, "layers_needed": result.schedule.layers_needed,
                    "attention": attention_derived,
                    "obligations": {kind: n for kind, n in sorted(result.derivation.kinds.items()) if n}},
        "lemmas": lemmas,
        "result": {"status": result.status,
                   "engine": {"problems": list(result.problems), "solver_calls": result.solver_calls}},
    }
    if netlist is not None:
        doc["netlist"] = netlist
    if result.construction_document is not None:
        doc["construction_document"] = result.construction_document
        if result.own_transformer:
            doc["info"]["transformer"] = "own"  # the kernel checks it against the document (S2)
    if original is not None:
        doc["original"] = original
    if include_timings:
        doc["timings"] = {"phases": {k: round(v, 4) for k, v in sorted(result.seconds.items())},
                          "lemmas": {l.digest: round(result.verdicts[l.digest].seconds, 5)
                                     for l in result.derivation.lemmas.values() if l.digest in result.verdicts}}
    return doc


@gc_paused
def dumps_certificate(doc: dict[str, Any]) -> str:
    """Compact JSON, sorted keys, one top-level key per line (readable with ``verified-aat show``)."""
    parts = [f"{json.dumps(k)}:{json.dumps(doc[k], sort_keys=True, separators=(',', ':'), ensure_ascii=False)}"
             for k in sorted(doc)]
    return "{\n" + ",\n".join(parts) + "\n}\n"


def certificate_bytes(doc: dict[str, Any], compressed: bool = False) -> bytes:
    """The file's bytes: the compact JSON text, gzip-compressed when asked.  Deterministic either
    way (gzip with mtime 0 and no file name), so equal certificates are equal files."""
    data = dumps_certificate(doc).encode("utf-8")
    return gzip.compress(data, compresslevel=6, mtime=0) if compressed else data


def write_certificate(doc: dict[str, Any], path: str | os.PathLike[str]) -> None:
    """Write atomically: a temporary file in the same folder, then a rename.  A path ending in
    ``.gz`` gets a gzip-compressed certificate (``check`` and ``show`` read both)."""
    from ..files import write_atomically

    write_atomically(str(path), certificate_bytes(doc, compressed=str(path).endswith(".gz")))


def smt_files(doc: dict[str, Any]) -> list[tuple[str, str]]:
    """Every lemma as (``<kind>-<id12>.smt2``, its text, runnable by any SMT-LIB solver)."""
    return [(f"{lemma['kind'].replace(':', '-')}-{lemma['id'][:12]}.smt2",
             f"; {lemma['kind']} lemma, closed by the engine with {lemma['engine']}; expected: unsat\n"
             + lemma["smt2"]) for lemma in doc["lemmas"]]


def export_smt(doc: dict[str, Any], directory: str | os.PathLike[str]) -> list[Path]:
    """Write every lemma as ``<kind>-<id12>.smt2`` (:func:`smt_files`) into ``directory``."""
    from ..files import write_into_directory

    return [Path(path) for path in write_into_directory(os.fspath(directory), smt_files(doc))]


def is_constructions_own(doc: dict[str, Any]) -> bool | None:
    """Whether the certificate's transformer is its construction's own T_K for the informational depth
    bound (None: the construction is unknown).  Never builds a T_K whose layer count differs from the
    certificate's, so a hostile ``depth_bound`` costs nothing."""
    from ..constructions.registry import CONSTRUCTIONS, construction_of_record

    name = doc.get("construction")
    construction = CONSTRUCTIONS.get(name) if isinstance(name, str) else None  # a list is unhashable
    if isinstance(name, str) and doc.get("construction_document") is not None:
        try:
            construction = construction_of_record(name, doc["construction_document"])
        except InputError:
            return None
    info = doc.get("info")
    depth = info.get("depth_bound") if isinstance(info, dict) else None
    transformer = doc.get("transformer")
    if construction is None or not isinstance(transformer, dict):
        return None
    layers = transformer.get("layers")
    if type(depth) is not int or depth < 1 or not isinstance(layers, list) or \
            construction.layers(depth) != len(layers):
        return False
    return transformer_form(construction.transformer(depth)) == transformer
