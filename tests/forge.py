"""Forge certificates with the kernel's own derivation code.

A forger who wants ``check`` to accept a wrong transformer does not edit a
real certificate by hand: it *derives* one, exactly as the kernel will, from
whatever circuit, transformer, encoding and hints it likes — every hash, id,
count, digest and lemma text consistent, every lemma marked proved — and
skips only the kernel's rules.  Then only the solver and those rules stand
in the way.  :func:`forge` is that forger; the tests in
``test_kernel_forgery.py`` use it to attack every rule.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from verified_aat.certificates.kernel_form import circuit_structure, sha256_json, transformer_form
from verified_aat.circuits.ir import Circuit
from verified_aat.circuits.json_format import canonical_circuit_bytes
from verified_aat.constructions.registry import get_construction
from verified_aat.kernel import Options, check_certificate
from verified_aat.kernel.agreement import VERSION, summary
from verified_aat.kernel.attention import brute_force, budget_for, join, key_lemma
from verified_aat.kernel.circuits import depths
from verified_aat.kernel.data import as_rational, load_circuit, load_transformer
from verified_aat.kernel.agreement import encoding_digest
from verified_aat.kernel.encoding import Encoding
from verified_aat.kernel.encoding import build as build_encoding
from verified_aat.kernel.layouts import shipped_construction
from verified_aat.kernel.derivation import Derivation, layer_functions
from verified_aat.kernel.obligations import Deriver, Reads
from verified_aat.kernel.schedule import Claims
from verified_aat.transformer.model import Transformer

KEY_KIND = "attention:key-decomposition"


@dataclass
class Forgery:
    """What the forger chooses; ``None`` means "what the honest engine would use"."""

    circuit: Circuit
    transformer: Transformer | dict[str, Any] | None = None
    construction: str = "gate-edge"
    structural: list[str] | None = None
    schedule: dict[str, Any] | None = None
    attention: list[dict[str, Any]] | None = None  # per (function, head); default: the construction's keys
    encoding: Encoding | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # top-level fields to overwrite after deriving
    document: dict[str, Any] | None = None  # a construction document to embed (its name is the construction)
    honest: dict[str, Any] | None = None    # the document the engine side (T_K, hints) comes from; default: document


def _engine_construction(f: Forgery):  # type: ignore[no-untyped-def]
    """The construction whose T_K, schedule and keys an honest engine would use."""
    source = f.honest if f.honest is not None else f.document
    if source is None:
        return get_construction(f.construction)
    from verified_aat.constructions.document import parse_document
    from verified_aat.constructions.interpreted import DocumentConstruction
    return DocumentConstruction(parse_document(source, "forged.json"))


def honest_rules(construction: Any) -> dict[str, Any]:
    rules = (get_construction(construction) if isinstance(construction, str) else construction).schedule_rules()
    return {kind: {"scale": r.scale, "offset": r.offset, "ref": r.ref, "claims": [list(c) for c in r.claims],
                   "kind_offsets": [list(k) for k in r.kind_offsets]} for kind, r in sorted(rules.items())}


def honest_key(construction: Any, head: str, coordinates: tuple[str, ...]) -> dict[str, Any] | None:
    hint = (get_construction(construction) if isinstance(construction, str) else construction).score_hints().get(head)
    if hint is None:
        return None
    return {"row_key": circuit_structure(hint.row_key), "col_key": circuit_structure(hint.col_key),
            "col_penalty": circuit_structure(hint.col_penalty),
            "facts": [[n, str(v)] for n, v in sorted(hint.facts, key=lambda f: coordinates.index(f[0]))]}


def permissive_claims(rules: dict[str, Any], circuit, encoding: Encoding) -> Claims:
    """The rules' claims at every position, with none of the kernel's checks (any power, any integers)."""
    depth = depths(circuit)
    out: list[dict[int, tuple[int, int, int]]] = []  # a pattern per position: coordinate → (role field, power, settle)
    for role in encoding.roles:
        rule = rules.get(role.kind)
        if rule is None:
            out.append({})
            continue
        refs = {"gate": role.gate, "source": role.source}
        fields = {"gate": 1, "source": 2}  # the role's fields that name the gate
        anchor = refs[rule["ref"]]
        base = rule["scale"] * depth[anchor] + rule["offset"]
        op = circuit.gates[anchor].op
        delta = {(k, c): d for k, c, d in rule["kind_offsets"]}
        out.append({encoding.coordinates.index(c): (fields[r], power, base + delta.get((op, c), 0))
                    for c, r, power in rule["claims"]})
    return Claims(out, encoding.roles)


def forge(f: Forgery) -> dict[str, Any]:
    """A certificate for ``f``, consistent in every derived field, every lemma claimed proved."""
    construction = _engine_construction(f)
    circuit_doc = json.loads(canonical_circuit_bytes(f.circuit))
    T = f.transformer if f.transformer is not None else construction.compile(f.circuit).transformer
    transformer_doc = T if isinstance(T, dict) else transformer_form(T)
    kC = load_circuit(circuit_doc, "$.circuit", extra_keys={"format", "version", "domain"})
    kT = load_transformer(transformer_doc)
    if f.encoding is not None:
        E = f.encoding
    elif f.document is not None:
        from verified_aat.kernel.layouts import read_construction
        E = build_encoding(read_construction(f.document, "forged"), kC)
    else:
        E = build_encoding(shipped_construction(f.construction), kC)
    rows = list(E.rows)
    coords = E.coordinates
    structural_names = f.structural if f.structural is not None else list(construction.structural)
    structural = {coords.index(c) for c in structural_names if c in coords}
    rules = f.schedule if f.schedule is not None else honest_rules(construction)
    claims = permissive_claims(rules, kC, E)
    functions = layer_functions(kT)
    derivation = Derivation()
    sets, hints, derived_attention = {}, [], []
    given = {(a["function"], a["head"]): a for a in f.attention} if f.attention is not None else {}
    for fn in functions:
        for h, head in enumerate(fn.layer.heads):
            hint = given.get((fn.number, head.name))
            if hint is None:
                key = honest_key(construction, head.name, kT.coordinates)
                hint = {"function": fn.number, "head": head.name,
                        "method": "key-join" if key else "brute-force", **({"key": key} if key else {})}
            if hint["method"] == "key-join":
                keys = {n: load_circuit(hint["key"][n], n) for n in ("row_key", "col_key", "col_penalty")}
                facts = sorted((coords.index(c), as_rational(v, "fact")) for c, v in hint["key"]["facts"])
                derivation.use(key_lemma(head.score, keys, facts, kT.coordinates), KEY_KIND, count=False)
                sets[(fn.number, h)] = join(rows, keys, budget_for(rows))
            else:
                sets[(fn.number, h)] = brute_force(rows, head.score, budget_for(rows))
            hints.append(hint)
            derived_attention.append({"function": fn.number, "head": head.name, "layers": list(fn.layers),
                                      "method": hint["method"], "sets": summary(sets[(fn.number, h)])})
    deriver = Deriver(kC, kT, rows, claims, structural, sets, Reads(len(rows)))
    deriver.derivation = derivation
    deriver.set_roles([kC.gates[r.gate].op if r.kind == "gate" else r.kind for r in E.roles],
                      [r.kind for r in E.roles])
    deriver.run(functions)
    n = len(rows)
    counts = derivation.counts
    counts.update({"structure": n, "schedule": len(kC.outputs),
                   "base": sum(1 for claim in claims for _, _, s in claim.values() if s <= 0),
                   "attention": n * sum(len(fn.layer.heads) for fn in functions),
                   "frame:structure": n * len(structural) * len(functions)})
    readout_settles = [claims[p][c][2] for p, c in E.readout if c in claims[p]]
    doc: dict[str, Any] = {
        "format": "verified-aat/certificate", "version": VERSION, "claim": "forged", "construction": f.construction,
        "info": {"forged": True},
        "hashes": {"circuit": sha256_json(circuit_doc), "transformer": sha256_json(transformer_doc),
                   "encoding": encoding_digest(E)},
        "circuit": circuit_doc, "transformer": transformer_doc,
        "hints": {"structural": structural_names, "schedule": rules, "attention": hints},
        "derived": {"layers": len(kT.layers), "layers_needed": max(readout_settles, default=0),
                    "attention": derived_attention,
                    "obligations": {k: v for k, v in sorted(counts.items()) if v}},
        "lemmas": [{"id": d, "kind": l.kind, "uses": l.uses, "engine": "z3", "smt2": l.text}
                   for d, l in sorted(derivation.lemmas.items())],
        "result": {"status": "proved"},
    }
    if f.document is not None:
        doc["construction_document"] = f.document
    doc.update(f.extra)
    return doc


def verdict(doc: dict[str, Any], **options: Any):  # type: ignore[no-untyped-def]
    """The kernel's report on a (forged) certificate."""
    return check_certificate(json.loads(json.dumps(doc)), Options(**options))
