"""``verified-aat check``: re-check a certificate from scratch.

The checker trusts nothing in the certificate but the data it checks
against: it re-hashes the embedded circuit, transformer and encoding,
re-derives the structure, the schedule, every argmax set (via the key
lemma and a join, or by brute force) and every per-position obligation, and
compares them with the certificate before re-running a solver on every
lemma.  Any difference is a rejection with a precise reason.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..circuits.ir import Circuit, Kind
from ..circuits.json_format import canonical_circuit_bytes, circuit_from_json
from ..circuits.text_format import parse_circuit_text
from ..constructions.encoding import Encoding
from ..errors import InputError
from ..transformer.spec import transformer_from_json
from .derive import (PositionObligations, argmax_brute, argmax_by_keys, cone_inputs, depths, hint_lemma_text,
                     residual)
from .solvers import SOLVERS


@dataclass
class CheckReport:
    accepted: bool = False
    reasons: list[str] = field(default_factory=list)
    lemmas_checked: int = 0
    solver_runs: int = 0
    transformer_is_construction: bool | None = None  # T equals the construction's own T_K?
    obligations: int = 0
    seconds: float = 0.0

    def reject(self, reason: str) -> None:
        self.reasons.append(reason)


def _sha_json(data: Any) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def load_certificate(path: str) -> dict[str, Any]:
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
        doc = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise InputError("not a certificate (not UTF-8 text)", path, 1) from None
    except json.JSONDecodeError as exc:
        raise InputError(f"not a certificate: invalid JSON ({exc.msg})", path, exc.lineno) from None
    if not isinstance(doc, dict) or doc.get("format") != "verified-aat/certificate":
        raise InputError("not a verified-aat certificate", path, 1)
    if doc.get("version") != 1:
        raise InputError(f"unsupported certificate version {doc.get('version')!r}", path, 1)
    return doc


def check_certificate(doc: dict[str, Any], circuit: Circuit | None = None, solvers: tuple[str, ...] = ("z3",),
                      timeout_ms: int = 20_000) -> CheckReport:
    start = time.perf_counter()
    report = CheckReport()
    try:
        _check(doc, circuit, solvers, timeout_ms, report)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        report.reject(f"malformed certificate: {type(exc).__name__}: {exc}")
    report.accepted = not report.reasons
    report.seconds = time.perf_counter() - start
    return report


def _check_against_construction(doc: dict[str, Any], C: Circuit, embedded: Encoding, report: CheckReport) -> None:
    """The embedded encoding must be the named construction's encoding of C.

    The construction stage defines enc(C, ·); it is not the symbolic engine.
    Whether the transformer is the construction's own T_K is reported, not
    required: certificates may be about edited transformers.
    """
    from ..constructions.registry import CONSTRUCTIONS
    from ..transformer.spec import transformer_to_json

    construction = CONSTRUCTIONS.get(doc["construction"])
    if construction is None:
        report.reject(f"unknown construction {doc['construction']!r}")
        return
    try:
        expected = construction.encode(C)
    except InputError as exc:
        report.reject(f"structure: the circuit is outside {construction.name}'s class ({exc.message})")
        return
    if (expected.rows, expected.input_slots, expected.readout, expected.roles, expected.coordinates) != \
            (embedded.rows, embedded.input_slots, embedded.readout, embedded.roles, embedded.coordinates):
        report.reject(f"structure: the embedded encoding is not {construction.name}'s encoding of the circuit")
    own = transformer_to_json(construction.transformer(int(doc["depth_bound"])))
    report.transformer_is_construction = own == doc["transformer"]


def _check(doc, given_circuit, solvers, timeout_ms, report: CheckReport) -> None:
    # 1. data and hashes
    if doc.get("format") != "verified-aat/certificate" or doc.get("version") != 1:
        report.reject(f"not a version-1 verified-aat certificate (format {doc.get('format')!r}, "
                      f"version {doc.get('version')!r})")
        return
    C = circuit_from_json(doc["circuit"])
    T = transformer_from_json(doc["transformer"])
    E = Encoding.from_json(doc["encoding"])
    hashes = doc["hashes"]
    if hashlib.sha256(canonical_circuit_bytes(C)).hexdigest() != hashes["circuit"]:
        report.reject("hash mismatch: the embedded circuit does not have the certified hash")
    if _sha_json(doc["transformer"]) != hashes["transformer"]:
        report.reject("hash mismatch: the embedded transformer does not have the certified hash")
    if _sha_json(doc["encoding"]) != hashes["encoding"]:
        report.reject("hash mismatch: the embedded encoding does not have the certified hash")
    if given_circuit is not None and hashlib.sha256(canonical_circuit_bytes(given_circuit)).hexdigest() != hashes["circuit"]:
        report.reject("circuit mismatch: the given circuit is not the certified one")
    _check_against_construction(doc, C, E, report)
    if doc["result"]["status"] != "proved" or doc["result"]["problems"]:
        report.reject(f"the certificate does not claim a proof (status {doc['result']['status']!r})")
    if any(head.pooling.value == "softmax" for layer in T.layers for head in layer.heads):
        report.reject("the transformer uses softmax pooling, which is not exact: nothing can be certified")
        return
    if T.coordinates != E.coordinates:
        report.reject("the transformer's coordinates differ from the encoding's")
        return
    structural = {T.coordinates.index(c) for c in doc["structural"]}
    rows = [tuple(v.numerator if v.denominator == 1 else v for v in row) for row in E.rows]
    n_layers = T.n_layers
    if doc["schedule"]["layers"] != n_layers:
        report.reject("schedule: the layer count differs from the transformer's")
    derived: Counter = Counter()

    # 2. structure: roles, input slots, read-out
    gate_pos = {}
    for p, role in enumerate(E.roles):
        if role.kind == "gate":
            gate_pos.setdefault(role.gate, []).append(p)
    if any(len(v) != 1 or not 0 <= g < C.size for g, v in gate_pos.items()):
        report.reject("structure: a gate has more than one position")
    edges = Counter((r.source, r.gate, r.slot) for r in E.roles if r.kind == "edge")
    if edges != Counter((a, v, s) for v, g in enumerate(C.gates) for s, a in enumerate(g.args)):
        report.reject("structure: the encoding's edges are not the circuit's edges (multiset)")
    derived["structure"] = len(E.roles)
    if E.n_inputs != C.n_inputs:
        report.reject("structure: the encoding takes a different number of inputs")

    # 3. schedule from the rules, with depths computed here
    depth = depths(C)
    # claims[p] = {coordinate: (gate, power, settle layer)}
    claims: list[dict[int, tuple[int, int, int]]] = []
    rules = doc["schedule"]["rules"]
    for role in E.roles:
        rule = rules.get(role.kind)
        if rule is None:
            claims.append({})
            continue
        refs = {"gate": role.gate, "source": role.source}
        anchor = refs[rule["ref"]]
        settle = rule["scale"] * depth[anchor] + rule["offset"]
        shift = {c: d for k, c, d in rule.get("kind_offsets", []) if k == C.gates[anchor].kind.value}
        claims.append({T.coordinates.index(c): (refs[r], int(pw), settle + shift.get(c, 0))
                       for c, r, pw in rule["claims"]})
    slots = {(p, c): i for p, c, i in E.input_slots}
    for p, cl in enumerate(claims):
        for c, (g, power, settle) in cl.items():
            if settle != 0:
                continue
            derived["base"] += 1
            gate = C.gates[g]
            fine = (gate.kind is Kind.INPUT and power == 1 and slots.get((p, c)) == gate.index) or \
                   (gate.kind is Kind.CONST and (p, c) not in slots and rows[p][c] == gate.value ** power)
            if not fine:
                report.reject(f"base: position {p} does not hold its claim in the encoding")
    for i, (out, (p, c)) in enumerate(zip(C.outputs, E.readout)):
        derived["schedule"] += 1
        g, power, settle = claims[p].get(c, (None, None, 0))
        if (g, power) != (out, 1) or settle > n_layers:
            report.reject(f"schedule: output {i} is not proven right at its read-out position by layer {n_layers}")
    if len(E.readout) != len(C.outputs):
        report.reject("schedule: the read-out does not cover the outputs")
    needed_layers = max((claims[p][c][2] for p, c in E.readout if c in claims[p]), default=0)
    if doc["schedule"]["layers_needed"] != needed_layers:
        report.reject(f"schedule: {needed_layers} layers are needed, the certificate says "
                      f"{doc['schedule']['layers_needed']}")

    # 4. layer functions, attention
    functions: list[tuple[Any, list[int]]] = []
    for number, layer in enumerate(T.layers, start=1):
        for fn in functions:
            if fn[0] == layer:
                fn[1].append(number)
                break
        else:
            functions.append((layer, [number]))
    lemma_by_id = {l["id"]: l for l in doc["lemmas"]}
    needed: Counter = Counter()
    first_kind: dict[str, str] = {}
    attention = {(a["function"], a["head"]): a for a in doc["attention"]}
    sets: dict[int, list[list[tuple[int, ...]]]] = {}
    from ..certificates.attention_digest import sets_digest
    for f, (layer, used) in enumerate(functions):
        sets[f] = []
        for head in layer.heads:
            derived["attention"] += len(rows)
            claim = attention.pop((f, head.name), None)
            if claim is None:
                report.reject(f"attention: no claim for head {head.name!r} of layer {used[0]}")
                return
            if claim["layers"] != used:
                report.reject(f"attention: head {head.name!r} is used in layers {used}, not {claim['layers']}")
            if claim["method"] not in ("key-join", "brute-force"):
                report.reject(f"attention: unknown method {claim['method']!r}")
            if claim["method"] == "key-join":
                hint = {k: parse_circuit_text(claim["hint"][k], implicit_inputs=[f"v.{c}" for c in T.coordinates])
                        for k in ("row_key", "col_key", "col_penalty")}
                facts = {k: Fraction(v) for k, v in claim["hint"]["facts"].items()}
                if any(k % T.dimension not in structural for h in hint.values() for k in cone_inputs(h, h.outputs[0])):
                    report.reject(f"attention: the key circuits of head {head.name!r} read value coordinates")
                for name, value in facts.items():
                    if T.coordinates.index(name) not in structural:
                        report.reject(f"attention: fact {name} = {value} is about a coordinate that may change")
                    elif any(row[T.coordinates.index(name)] != value for row in rows):
                        report.reject(f"attention: fact {name} = {value} fails at some position")
                text = hint_lemma_text(head.score, hint, facts, list(T.coordinates))
                lemma_id = hashlib.sha256(text.encode()).hexdigest()
                if claim["lemma"] != lemma_id:
                    report.reject(f"attention: the key lemma of head {head.name!r} is not the one derived here")
                needed[lemma_id] += 1
                first_kind.setdefault(lemma_id, "attention:key-decomposition")
                head_sets = argmax_by_keys(rows, hint)
            else:
                head_sets = argmax_brute(rows, head.score)
            ids, distinct, seen = [], [], {}
            for s in head_sets:
                if s not in seen:
                    seen[s] = len(distinct)
                    distinct.append(s)
                ids.append(seen[s])
            summary = {"positions": len(rows), "distinct": len(distinct), "members": sum(map(len, distinct)),
                       "digest": sets_digest(ids, distinct)}
            if summary != claim["sets"]:
                report.reject(f"attention: the argmax sets of head {head.name!r} differ from the certificate's")
            sets[f].append(head_sets)
    if attention:
        report.reject(f"attention: claims for heads that no layer has: {sorted(attention)[:3]}")

    # 5. structural frame
    for f, (layer, used) in enumerate(functions):
        act = layer.activation
        for c in structural:
            derived["frame:structure"] += len(rows)
            root = act.gates[act.outputs[c]]
            if root.kind is Kind.INPUT and root.index == c:
                continue
            inputs = cone_inputs(act, act.outputs[c])
            for p, row in enumerate(rows):
                known = {}
                for k in inputs:
                    owner, cc = divmod(k, T.dimension)
                    if cc not in structural:
                        break
                    members = sets[f][owner - 1][p] if owner else None
                    known[k] = row[cc] if owner == 0 else Fraction(sum(rows[j][cc] for j in members), len(members))
                values, _ = residual(act, [act.outputs[c]], known)
                if values[0] != row[c]:
                    report.reject(f"frame: layer {used[0]} may change structural coordinate {T.coordinates[c]}")
                    break

    # 6. per-position obligations
    ob = PositionObligations(C, T, rows, claims, structural)
    kind_names: dict[tuple[str, str, bool], str] = {}
    for f, (layer, used) in enumerate(functions):
        plans: dict[frozenset[int], list[tuple[int, bool]]] = {}  # settle layers → (check layer, local?)
        for p, cl in enumerate(claims):
            settles = frozenset(s for _, _, s in cl.values())
            plan = plans.get(settles)
            if plan is None:
                ats = {next((l for l in used if l >= s), None) for s in settles} - {None}
                plan = plans[settles] = [(at, at in settles) for at in sorted(ats)]  # type: ignore[type-var]
            role = E.roles[p]
            gate_kind = C.gates[role.gate].kind.value if role.kind == "gate" else role.kind
            for at, local in plan:
                kind = kind_names.get((role.kind, gate_kind, local))
                if kind is None:
                    kind = kind_names[(role.kind, gate_kind, local)] = \
                        f"local-step:{gate_kind}" if local else f"frame:{role.kind}"
                derived[kind] += 1
                lemma_id = hashlib.sha256(ob.text(f, layer, sets[f], p, at).encode()).hexdigest()
                needed[lemma_id] += 1
                first_kind.setdefault(lemma_id, kind)
    report.obligations = sum(derived.values())

    # 7. compare with the certificate
    if {k: v for k, v in derived.items() if v} != doc["obligations"]:
        diff = sorted(set(derived.items()) ^ set(doc["obligations"].items()))
        report.reject(f"obligation counts differ from the certificate's: {diff[:4]}")
    for lemma in doc["lemmas"]:
        if hashlib.sha256(lemma["smt2"].encode()).hexdigest() != lemma["id"]:
            report.reject(f"lemma {lemma['id'][:12]}: its text was edited (hash mismatch)")
        if lemma["id"] not in needed:
            report.reject(f"lemma {lemma['id'][:12]} ({lemma['kind']}) is not an obligation of this construction")
        elif needed[lemma["id"]] != lemma["uses"]:
            report.reject(f"lemma {lemma['id'][:12]}: used {needed[lemma['id']]} times here, "
                          f"{lemma['uses']} in the certificate")
        if lemma["status"] != "proved":
            report.reject(f"lemma {lemma['id'][:12]} is not proved ({lemma['status']})")
        if lemma["id"] in first_kind and lemma["kind"] != first_kind[lemma["id"]]:
            report.reject(f"lemma {lemma['id'][:12]} is a {first_kind[lemma['id']]} obligation, not {lemma['kind']}")
        if lemma["solver"] not in ("normal-form", "z3"):
            report.reject(f"lemma {lemma['id'][:12]}: unknown solver {lemma['solver']!r}")
    result = doc["result"]
    if result["distinct_lemmas"] != len(doc["lemmas"]) or \
            result["solver_calls"] != sum(1 for l in doc["lemmas"] if l["solver"] != "normal-form"):
        report.reject("result: the lemma counts do not match the lemma list")
    for lemma_id in needed:
        if lemma_id not in lemma_by_id:
            report.reject(f"obligation {lemma_id[:12]} is missing from the certificate (dropped)")
    if report.reasons:
        return

    # 8. re-run the solvers on every lemma
    for lemma in doc["lemmas"]:
        report.lemmas_checked += 1
        for name in solvers:
            report.solver_runs += 1
            try:
                answer = SOLVERS[name](lemma["smt2"], timeout_ms)
            except ImportError:
                report.reject(f"solver {name} is not installed (pip install {name})")
                return
            except Exception as exc:  # noqa: BLE001 - a solver's parse error on a lemma is a rejection
                answer = f"an error ({type(exc).__name__}: {str(exc)[:80]})"
            if answer != "unsat":
                report.reject(f"lemma {lemma['id'][:12]} ({lemma['kind']}): {name} says {answer}, not unsat")
