"""A differential check of construction documents against the naive exact engine (red team, round 8).

A document's verdicts (``prove-construction`` for every K, with the kernel's check; ``certify`` per circuit)
are compared with ground truth: the document's own T_K run by ``run_exact_reference`` (every score pair,
no joins, no settle layers) on enc(C, x), against ``eval`` of C.  Also the settled run with the document's
key hints (what ``run`` does) must give the reference's numbers.  ``mutant`` makes seeded random edits of a
document (row formulas, constants, schedules, poolings, activation lines, layer order, attends, class).
"""

from __future__ import annotations

import copy
import random
import re
from fractions import Fraction
from typing import Any, Sequence

from verified_aat.circuits.evaluate import evaluate
from verified_aat.circuits.ir import Circuit
from verified_aat.transformer.exact_engine import run_exact
from verified_aat.transformer.exact_reference import run_exact_reference

PARAMETERS = {"gate": ["id", "k", "c", "index"], "edge": ["src", "dst", "slot", "k", "c"],
              "sink": ["src", "dst", "slot", "k", "c"]}
SMALL = ["0", "1", "-1", "2", "1/2", "-3/2"]


def exact_mismatch(construction: Any, circuit: Circuit, k: int, xs: Sequence[Sequence[Fraction]]
                   ) -> tuple[list[Fraction], tuple, tuple] | None:
    """The first x on which T_K (reference engine) on enc(C, x) does not read out C(x): (x, C(x), read-out).
    Asserts that the settled run with the document's key hints gives the reference's read-out."""
    from verified_aat.symbolic.attention import engine_keys
    compiled = construction.compile(circuit, k)
    encoding = compiled.encoding
    keys = engine_keys(construction.score_hints())
    for x in xs:
        sequence = encoding.instantiate(list(x))
        reference = tuple(encoding.read(run_exact_reference(compiled.transformer, sequence).outputs))
        settled = run_exact(compiled.transformer, sequence, keys=keys, forget=encoding.settle, needed=encoding.readout)
        assert tuple(encoding.read(settled.outputs)) == reference, (circuit, k, x)
        expected = tuple(evaluate(circuit, list(x)))
        if reference != expected:
            return list(x), expected, reference
    return None


def replays(construction: Any, refutation: Any) -> bool:
    """A refutation's witness is a real mismatch of the T_K it names, by the reference engine."""
    from verified_aat.circuits.measures import depth
    counterexample = refutation.counterexample
    k = (construction.least_k_with(counterexample.layers) if counterexample.layers
         else max(1, depth(refutation.circuit)))
    return exact_mismatch(construction, refutation.circuit, k, [counterexample.inputs]) is not None


def _formula(rng: random.Random, text: str, role: str) -> str:
    names = PARAMETERS[role]
    return rng.choice([
        lambda: f"({text}) + 1", lambda: f"2*({text})", lambda: f"min({text}, {rng.choice(SMALL)})",
        lambda: f"max({text}, {rng.choice(SMALL)})", lambda: rng.choice(names), lambda: rng.choice(SMALL),
        lambda: f"({text}) + {rng.choice(names)}", lambda: f"min({text}, {rng.choice(names)})",
    ])()


def _layers(doc: dict[str, Any]) -> list[dict[str, Any]]:
    t = doc["transformer"]
    return [layer for part in ("prefix", "block", "suffix") for layer in t.get(part, [])]


def _edit_row(rng: random.Random, doc: dict[str, Any]) -> str:
    group = rng.choice(doc["positions"])
    kind = rng.choice(["*", "add", "mul", "sign", "input", "const"])
    coordinate = rng.choice(doc["coordinates"])
    rows = group["row"]
    old = rows.get(kind, {}).get(coordinate, rows.get("*", {}).get(coordinate, "0"))
    rows.setdefault(kind, {})[coordinate] = _formula(rng, old, group["role"])
    return f"row {group['role']}.{kind}.{coordinate} = {rows[kind][coordinate]}"


def _edit_constant(rng: random.Random, doc: dict[str, Any]) -> str | None:
    if not doc.get("constants"):
        return None
    name = rng.choice(sorted(doc["constants"]))
    doc["constants"][name] = rng.choice(["0", "1", "-5", "4", "1/2"])
    return f"constant {name} = {doc['constants'][name]}"


def _edit_schedule(rng: random.Random, doc: dict[str, Any]) -> str:
    role = rng.choice(sorted(doc["schedule"]))
    rule = doc["schedule"][role]
    what = rng.choice(["scale", "offset", "kind_offsets"])
    if what == "kind_offsets":
        rule.setdefault("kind_offsets", []).append([rng.choice(["input", "const", "add", "mul", "sign"]),
                                                    rng.choice(doc["coordinates"]), rng.choice([-1, 1])])
    else:
        rule[what] = max(0, rule[what] + rng.choice([-1, 1]))
    return f"schedule {role}.{what}"


def _edit_pooling(rng: random.Random, doc: dict[str, Any]) -> str:
    head = rng.choice([h for layer in _layers(doc) for h in layer["heads"]])
    head["pooling"] = rng.choice([p for p in ("average", "leftmost", "rightmost") if p != head["pooling"]])
    return f"pooling {head['name']} = {head['pooling']}"


def _edit_line(rng: random.Random, doc: dict[str, Any]) -> str | None:
    name, lines = rng.choice(sorted(doc["transformer"]["functions"].items()))
    at = [n for n, line in enumerate(lines) if " = " in line and not line.startswith("output")]
    if not at:
        return None
    n = rng.choice(at)
    left, right = lines[n].split(" = ", 1)
    parts = right.split()
    earlier = [line.split(" = ")[0] for line in lines[:n] if " = " in line]
    inputs = sorted(set(re.findall(r"\b[a-z_]+\.[a-z_]+\b", " ".join(lines))))
    if parts[0] == "const":
        parts[1] = rng.choice(SMALL)
    elif parts[0] in ("add", "mul") and len(parts) == 3 and rng.random() < 0.3:
        parts[0] = "mul" if parts[0] == "add" else "add"
    elif len(parts) > 1 and earlier + inputs:
        parts[rng.randrange(1, len(parts))] = rng.choice(earlier + inputs)
    lines[n] = f"{left} = {' '.join(parts)}"
    return f"{name}: {lines[n]}"


def _edit_layers(rng: random.Random, doc: dict[str, Any]) -> str | None:
    block = doc["transformer"]["block"]
    if len(block) > 1 and rng.random() < 0.5:
        block.reverse()
        return "block reversed"
    doc["transformer"].setdefault("suffix", []).append(copy.deepcopy(rng.choice(block)))
    return "a block layer appended as suffix"


def _edit_attends(rng: random.Random, doc: dict[str, Any]) -> str:
    head = rng.choice([h["name"] for layer in _layers(doc) for h in layer["heads"]])
    doc.setdefault("attends", {})[head] = rng.choice(["in-edges", "slot-0", "slot-1"])
    return f"attends {head} = {doc['attends'][head]}"


def _edit_class(rng: random.Random, doc: dict[str, Any]) -> str:
    fan_in = doc.setdefault("class", {"message": "{construction}: {gate} is {a_kind} of fan-in {fan_in}"}
                            ).setdefault("fan_in", {})
    kind = rng.choice(["add", "mul"])
    fan_in[kind] = {"min": 2, "max": 3} if kind == "mul" else {"max": rng.choice([1, 2, 3])}
    return f"class {kind} {fan_in[kind]}"


EDITS = (_edit_row, _edit_row, _edit_constant, _edit_schedule, _edit_pooling, _edit_line, _edit_line,
         _edit_layers, _edit_attends, _edit_class)


def mutant(doc: dict[str, Any], seed: int, edits: int = 1) -> tuple[dict[str, Any], list[str]]:
    """``doc`` with ``edits`` seeded random edits (and a name of its own), and what they were."""
    rng = random.Random(seed)
    out = copy.deepcopy(doc)
    out["name"] = f"mutant-{seed}"
    out.pop("description", None)
    notes: list[str] = []
    while len(notes) < edits:
        note = rng.choice(EDITS)(rng, out)
        if note:
            notes.append(note)
    return out, notes
