"""Forge *schematic* (every-K) certificates from randomly edited construction documents (red team round 13).

The forger takes a shipped construction document, renames it (a built-in's name must be its shipped document),
applies one random edit to its T_K (a gate's op, an argument, a constant, an output, a head's pooling or score),
compiles T_1 from the edited document and derives the certificate exactly as ``prove-construction`` does
(``schematic.prove.schematic_document``: the kernel's own checks and lemma list), with no proof objects and every
lemma claimed proved. :func:`outcome` checks it under a solver answering unsat to everything and, where that
accepts, honestly (real z3): a *false ACCEPT* is a lying accept that the honest check does not repeat.

Run as a script for counts per construction: ``python tests/forge_schematic.py [EDITS_PER_CONSTRUCTION] [SEED]``.
"""

from __future__ import annotations

import copy
import json
import random
import re
import sys
from typing import Any

from verified_aat.kernel import Options, check_certificate, solvers

CONSTRUCTIONS = ("gate-edge", "gate-edge-dot", "edge-only", "edge-k", "unique-hard", "unique-hard-left",
                 "unique-hard-right")
POOLINGS = ("average", "leftmost", "rightmost")
CONSTANTS = (0, 1, -1, 2, -2, 3, 4, 5, "1/2", "-1/2", "1/3", "1/6")
_DEF = re.compile(r"\s*(\S+)\s*=\s*(const|add|mul|sign)\b(.*)\Z")


def shipped(name: str) -> dict[str, Any]:
    from verified_aat.constructions.document import builtin_document_path
    return json.loads(builtin_document_path(name).read_text(encoding="utf-8"))


def _inputs(coords: list[str], layers: list[dict[str, Any]], function: str) -> list[str]:
    """The names a function's lines may read: a score's i./j. coordinates, an activation's x. and heads'."""
    for layer in layers:
        if layer["activation"] == function:
            return [f"x.{c}" for c in coords] + [f"{h['name']}.{c}" for h in layer["heads"] for c in coords]
    return [f"i.{c}" for c in coords] + [f"j.{c}" for c in coords]


def edit_document(doc: dict[str, Any], rng: random.Random) -> tuple[dict[str, Any], str]:
    """A copy of construction document ``doc`` (renamed ``NAME-x``) with one random edit of its T_K, and the edit in
    words."""
    doc = copy.deepcopy(doc)
    doc["name"] = doc["name"] + "-x"
    spec = doc["transformer"]
    layers = [layer for part in ("prefix", "block", "suffix") for layer in spec.get(part, [])]
    return doc, edit_spec(spec["functions"], doc["coordinates"], layers, rng)


def edit_spec(functions: dict[str, list[str]], coords: list[str], layers: list[dict[str, Any]],
              rng: random.Random) -> str:
    """One random edit, in place, of a transformer written as named functions (text lines) and layers of heads."""
    heads = [h for layer in layers for h in layer["heads"]]
    if rng.random() < 0.12:
        head = rng.choice(heads)
        if rng.random() < 0.5:
            head["pooling"] = rng.choice([p for p in POOLINGS if p != head["pooling"]])
            return f"head {head['name']} pools {head['pooling']}"
        if isinstance(head["score"], dict):  # a bilinear form: one entry's value
            entries = head["score"]["bilinear"]
            key = rng.choice(sorted(entries))
            entries[key] = str(rng.choice([c for c in CONSTANTS if str(c) != entries[key]]))
            return f"head {head['name']} bilinear {key} = {entries[key]}"
        scores = sorted({h["score"] for h in heads if isinstance(h["score"], str)} - {head["score"]})
        if scores:
            head["score"] = rng.choice(scores)
            return f"head {head['name']} scores by {head['score']}"
    name = rng.choice(sorted(functions))
    lines = functions[name]
    k = rng.randrange(len(lines))
    line = lines[k]
    if line.startswith("output"):
        items = line.split()[1:]
        j = rng.randrange(len(items))
        defined = [m[1] for x in lines if (m := _DEF.match(x))] + _inputs(coords, layers, name)
        key, _, _ = items[j].rpartition("=")
        items[j] = (key + "=" if key else "") + rng.choice(defined)
        lines[k] = "output " + " ".join(items)
        return f"{name}: {lines[k]}"
    m = _DEF.match(line)
    assert m is not None, line
    target, op, args = m[1], m[2], m[3].split()
    earlier = [d[1] for x in lines[:k] if (d := _DEF.match(x))] + _inputs(coords, layers, name)
    choice = rng.random()
    if op == "const" or choice < 0.25:  # a constant
        lines[k] = f"{target} = const {rng.choice([c for c in CONSTANTS if str(c) != ' '.join(args)])}"
    elif choice < 0.5:  # the op
        new = rng.choice([o for o in ("add", "mul", "sign") if o != op])
        args = args[:1] if new == "sign" else args if len(args) > 1 else args + [rng.choice(earlier)]
        lines[k] = f"{target} = {new} {' '.join(args)}"
    else:  # an argument
        j = rng.randrange(len(args))
        args[j] = rng.choice([e for e in earlier if e != args[j]] or earlier)
        lines[k] = f"{target} = {op} {' '.join(args)}"
    return f"{name}: {line.strip()} -> {lines[k]}"


def forge_schematic(doc: dict[str, Any]) -> dict[str, Any] | None:
    """The certificate an honest prover would write for ``doc``'s T_1 (every K), every lemma claimed proved; None
    where the document does not parse or the kernel's checks before the lemmas already reject it."""
    from verified_aat.constructions.document import parse_document
    from verified_aat.constructions.interpreted import DocumentConstruction
    from verified_aat.errors import InputError
    from verified_aat.schematic.prove import schematic_document
    try:
        T = DocumentConstruction(parse_document(doc, "forged.json")).transformer(1)
        cert, ctx, report = schematic_document(doc["name"], None, T, 1, embedded=doc, own=True)
    except (InputError, Exception):  # noqa: BLE001 - an edit the reader or the kernel refuses: not a forgery
        return None
    if report.rejections or ctx.unchecked:
        return None
    return cert


def check(cert: dict[str, Any], lying: bool) -> Any:
    saved = dict(solvers.SOLVERS)
    try:
        if lying:
            for name in list(solvers.SOLVERS):
                solvers.SOLVERS[name] = lambda text, timeout_ms: solvers.UNSAT
        return check_certificate(json.loads(json.dumps(cert)), Options())
    finally:
        solvers.SOLVERS.update(saved)


def outcome(cert: dict[str, Any] | None) -> tuple[str, Any]:
    """'refused' (no certificate), 'rejected' (under the lying solver), 'true' (both accept), 'false ACCEPT'
    (the honest check rejects) or 'accept, honest not checked'."""
    if cert is None:
        return "refused", None
    lying = check(cert, True)
    if lying.outcome != "accepted":
        return "rejected" if lying.outcome == "rejected" else f"lying {lying.outcome}", lying
    honest = check(cert, False)
    if honest.outcome == "accepted":
        return "true", honest
    return ("false ACCEPT" if honest.outcome == "rejected" else "accept, honest not checked"), honest


def main(argv: list[str]) -> int:
    edits = int(argv[0]) if argv else 100
    seed = int(argv[1]) if len(argv) > 1 else 13
    only = argv[2:] or CONSTRUCTIONS
    for name in only:
        rng = random.Random(f"{seed}:{name}")
        counts: dict[str, int] = {}
        for _ in range(edits):
            edited, what = edit_document(shipped(name), rng)
            result, report = outcome(forge_schematic(edited))
            counts[result] = counts.get(result, 0) + 1
            if result not in ("refused", "rejected", "true"):
                problems = [str(p)[:300] for p in getattr(report, "rejections", [])][:1]
                print(f"  {name}: {result}: {what} {problems}", flush=True)
        print(name, dict(sorted(counts.items())), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
