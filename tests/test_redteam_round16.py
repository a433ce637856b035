"""Red team round 16 (rt16a): false ACCEPTED verdicts of the trusted kernel, sought with the kernel's own derivation.

No false ACCEPTED was found; nothing in ``verified_aat/`` changed. What was tried, and held (ad hoc runs, counted
here; the tests below replay a cheap slice of each):

- *proof objects* (S12c, ``kernel/positivity.py``): every lemma with a proof object in ``proofs/constructions/`` and
  ``proofs/audit/`` had one numeral or comparison of its assertions changed (4,429 texts, seed 1); the shipped proof
  object still checked on 2,463 of them, and Z3 called none of those 2,463 satisfiable. 429 of the changed texts that
  Z3 does call satisfiable (false lemmas) met 20 random edits each of their proof object (a sign claim flipped,
  ``cases-on`` <-> ``at-most``, a positive leaf's constant or products changed, a case replaced by another or by an
  identity, negative, contradiction or bare-constant leaf): 0 of 8,580 checked.
- *a 10^4-gate circuit* (random-fsac, n = 2,500: 10,005 gates), certificates forged with ``tests/forge.py``: the
  certificate of the circuit with one add made a mul, checked with ``--circuit`` the original: rejected
  (``given-circuit``); one gate or edge kind claimed one layer early (15 rule edits), checked with the defence
  *removed* and ``--no-solver-trust``: 13 rejected (``solvers``, ``base``), the 2 accepted claim an input or a
  constant gate's value at layer -1, which S5 treats as 0 (true); one constant of one of T_K's four circuits changed
  (4 real edits): 4 rejected (``solvers``).
- *shards*: ``kernel/sharded.py``'s merge is the sequential derivation, already pinned by
  ``tests/test_parallel_derive.py`` with stripes of 3 positions on 2, 3 and forked workers (every boundary).
- *readers*, by reading the code against the engine's: the kernel's ``.circ`` / JSON circuit readers, the
  construction documents' formulas, numerals and constants, and the own-T_K comparison read every valid file or
  document as the engine does; where they differ (a lone CR inside a ``.circ`` line, a second ``domain`` line, an
  inline ``provenance=add`` gate name in a document's circuit, ``p.d/q`` numerals) the engine refuses the input, so
  no valid file is read two ways.
"""

from __future__ import annotations

import copy
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
import z3

from forge import Forgery, forge, honest_rules, verdict
from verified_aat.certificates.kernel_form import transformer_form
from verified_aat.circuits.families import build_family
from verified_aat.constructions.registry import get_construction
from verified_aat.kernel import checks
from verified_aat.kernel.positivity import BadProof, Unfinished, check_proof

ROOT = Path(__file__).resolve().parent.parent
_NUMERAL = re.compile(r"(?<![\w.])\d+\.0(?![\w.])")

# the ad hoc runs' counts (the docstring's), kept as data so a reader sees them next to the tests
HELD = {"changed lemma texts": 4_429, "of them still proved by the shipped object": 2_463, "of those sat": 0,
        "false lemmas x proof edits": 429 * 20, "of them checked": 0,
        "10^4-gate schedule edits": 15, "accepted and false": 0, "10^4-gate T_K constant edits": 4}
assert HELD["of those sat"] == HELD["of them checked"] == HELD["accepted and false"] == 0


def _sat(text: str) -> bool:
    solver = z3.Solver()
    solver.set("timeout", 3000)
    solver.from_string(text)
    return solver.check() == z3.sat


def _nodes(proof: Any, found: list[dict]) -> list[dict]:
    if isinstance(proof, dict):
        found.append(proof)
        for value in proof.values():
            _nodes(value, found)
    elif isinstance(proof, list):
        for value in proof:
            _nodes(value, found)
    return found


def _edit_proof(proof: Any, rng: random.Random) -> Any:
    """One random edit of a proof object (the ad hoc run's edits)."""
    edited = copy.deepcopy(proof)
    node = rng.choice(_nodes(edited, []))
    if "signs" in node:
        claim = rng.choice(node["signs"])
        claim[1] = "-" if claim[1] == "+" else "+"
    elif "cases-on" in node:
        node["at-most"] = node.pop("cases-on")
        node["cases"] = [node["cases"][0], node["cases"][rng.choice([1, 2])]]
    elif "at-most" in node:
        node["cases-on"] = node.pop("at-most")
        node["cases"] = [node["cases"][0], node["cases"][1], node["cases"][1]]
    elif "constant" in node:
        node["constant"] = rng.choice(["1", "1000000", "1/1000000"])
        node["products"] = node["products"][:-1]
    else:
        node.clear()
        node.update(rng.choice([{"identity": True}, {"negative": 0}, {"contradiction": 0},
                                {"positive": {"products": [], "squares": [], "constant": "1"}}]))
    return edited


@pytest.mark.parametrize("name", ["edge-k.every-K.schematic.json", "mixed_pooling.every-N.audit.json"])
def test_no_edited_proof_object_proves_a_false_lemma(name: str) -> None:
    """A lemma made false by one changed numeral is proved neither by its shipped proof object nor by an edit of it."""
    folder = "audit" if "audit" in name else "constructions"
    lemmas = [x for x in json.loads((ROOT / "proofs" / folder / name).read_text())["lemmas"] if "proof" in x]
    rng = random.Random(16)
    false = 0
    for lemma in lemmas[:24]:
        text = lemma["smt2"]
        goal = text.rfind("(assert (not")  # a numeral of the goal: the hypotheses' make most lemmas only weaker
        numerals = [m for m in _NUMERAL.finditer(text) if m.start() > goal]
        for m in rng.sample(numerals, min(2, len(numerals))):
            changed = text[:m.start()] + rng.choice(["0.0", "2.0", "(- 1.0)"]) + text[m.end():]
            if not _sat(changed):
                continue
            false += 1
            for proof in [lemma["proof"]] + [_edit_proof(lemma["proof"], rng) for _ in range(4)]:
                with pytest.raises((BadProof, Unfinished)):
                    check_proof(changed, proof)
    assert false >= 5  # the run met false lemmas at all


@pytest.fixture
def proof_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """The per-circuit checks without the defence (D is not part of the proof): what the proof alone rejects."""
    monkeypatch.setattr(checks, "CHECKS", tuple(c for c in checks.CHECKS if c.name != "defence"))


def test_a_large_circuit_with_one_kind_claimed_early_is_not_accepted_by_the_proof_alone(proof_alone: None) -> None:
    C = build_family("random-fsac", 300)
    rules = honest_rules("gate-edge")
    outcomes = {}
    for kind, coordinate, op in [("gate", "val", "mul"), ("gate", "val", "sign"), ("edge", "sq", "add"),
                                 ("edge", "val", "mul"), ("edge", "val", "input")]:
        edited = copy.deepcopy(rules)
        edited[kind]["kind_offsets"] = edited[kind]["kind_offsets"] + [[op, coordinate, -1]]
        report = verdict(forge(Forgery(C, schedule=edited)), solver_trust=False)
        outcomes[(kind, coordinate, op)] = (report.outcome, report.rejections[0].check if report.rejections else None)
    assert all(outcome == "rejected" for outcome, _ in outcomes.values()), outcomes
    assert outcomes[("edge", "val", "input")][1] == "base"


def test_a_large_circuit_under_an_edited_t_k_is_not_accepted_by_the_proof_alone(proof_alone: None) -> None:
    C = build_family("random-fsac", 300)
    T = transformer_form(get_construction("gate-edge").compile(C).transformer)
    for function, gate, value in [(2, 14, "2"), (3, 10, "3"), (1, 10, "3")]:  # a constant of three circuits
        edited = copy.deepcopy(T)
        assert edited["functions"][function]["gates"][gate][0] == "const"
        assert edited["functions"][function]["gates"][gate][1] != value
        edited["functions"][function]["gates"][gate][1] = value
        report = verdict(forge(Forgery(C, transformer=edited)), solver_trust=False)
        assert report.outcome == "rejected" and report.rejections[0].check == "solvers"
