"""Red team, round 18: forged *audit* certificates (U_N = T, listed N and every N), every hash, count, measure and
lemma recomputed with the kernel's own functions after each edit, the shipped proof objects carried over.

Nothing was accepted falsely; these tests record what held.  An edited transformer (a pooling rule swapped, layers
reversed or dropped, a score constant changed) gives a certificate the kernel accepts, but its theorem names the
*edited* T's sha256, never the original's, and the edited T does equal its unrolling: checked here by an evaluator of
the kernel form written apart from the kernel (hard attention over the argmax set, exact rationals), against the
kernel's U_N evaluated gate by gate.  The all-N theorem's size polynomial and depth are compared with the kernel's
unrollings at lengths it never built (6, 7, 9, 10); lengths lists and swapped proof objects are rejected.
"""

from __future__ import annotations

import copy
import json
import random
import re
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from verified_aat.kernel import check_certificate
from verified_aat.kernel.audit_family import derive_family_lemmas, derive_measures
from verified_aat.kernel.audit_proof import derive_lemmas
from verified_aat.kernel.data import load_transformer
from verified_aat.kernel.report import Options
from verified_aat.kernel.rules import sha256_json
from verified_aat.kernel.unroll import depth, structure, unroll

NO_SOLVER = Options(solver_trust=False, jobs=1)
AUDIT = Path(__file__).resolve().parent.parent / "proofs" / "audit"


def _shipped(name: str) -> dict[str, Any]:
    return json.loads((AUDIT / name).read_text(encoding="utf-8"))


# -- an evaluator of the kernel form, written apart from the kernel ----------------------------------------------

def _sign(x: Fraction) -> Fraction:
    return Fraction((x > 0) - (x < 0))


def _circuit(f: dict[str, Any], xs: list[Fraction]) -> list[Fraction]:
    v: list[Fraction] = []
    for g in f["gates"]:
        if g[0] == "input":
            v.append(xs[g[1]])
        elif g[0] == "const":
            v.append(Fraction(g[1]))
        elif g[0] == "add":
            v.append(sum((v[a] for a in g[1]), Fraction(0)))
        elif g[0] == "mul":
            p = Fraction(1)
            for a in g[1]:
                p *= v[a]
            v.append(p)
        else:
            v.append(_sign(v[g[1][0]]))
    return [v[o] for o in f["outputs"]]


def _run_T(tf: dict[str, Any], xs: list[list[Fraction]]) -> list[list[Fraction]]:
    for layer in tf["layers"]:
        pooled: list[list[Fraction]] = [[] for _ in xs]
        for head in layer["heads"]:
            for i, xi in enumerate(xs):
                s = head["score"]
                scores = [_circuit(tf["functions"][s], xi + xj)[0] if type(s) is int
                          else sum((Fraction(q) * xi[r] * xj[c] for r, c, q in s["bilinear"]), Fraction(0)) for xj in xs]
                argmax = [j for j, v in enumerate(scores) if v == max(scores)]
                if head["pooling"] == "average":
                    pooled[i] += [sum((xs[j][c] for j in argmax), Fraction(0)) / len(argmax) for c in range(len(xi))]
                else:
                    pooled[i] += xs[min(argmax) if head["pooling"] == "leftmost" else max(argmax)]
        xs = [_circuit(tf["functions"][layer["activation"]], xi + p) for xi, p in zip(xs, pooled)]
    return xs


def _run_U(b: Any, xs: list[Fraction]) -> list[Fraction]:
    v: list[Fraction] = []
    for g in b.gates:
        v.append(xs[g.index] if g.op == "input" else Fraction(g.value) if g.op == "const"
                 else sum((v[a] for a in g.args), Fraction(0)) if g.op == "add"
                 else v[g.args[0]] * v[g.args[1]] if g.op == "mul" else _sign(v[g.args[0]]))
    return [v[o] for o in b.outputs]


def _u_equals_t(tf: dict[str, Any], lengths: list[int], trials: int, seed: int) -> bool:
    rng, T, d = random.Random(seed), load_transformer(tf), len(tf["coordinates"])
    for n in lengths:
        b = unroll(T, n)
        for _ in range(trials):  # small values: ties, so argmax sets of several members
            xs = [[Fraction(rng.randint(-2, 2), rng.choice([1, 2])) for _ in range(d)] for _ in range(n)]
            if _run_U(b, [x for row in xs for x in row]) != [y for row in _run_T(tf, xs) for y in row]:
                return False
    return True


# -- forgeries with the kernel's own derivation --------------------------------------------------------------

def _proofs(doc: dict[str, Any]) -> dict[str, Any]:
    return {e["id"]: e["proof"] for e in doc["lemmas"] if "proof" in e}


def forge_family(doc: dict[str, Any], tf: dict[str, Any]) -> dict[str, Any]:
    doc, T, proofs = copy.deepcopy(doc), load_transformer(tf), _proofs(doc)
    doc.update(transformer=tf, hashes={"transformer": sha256_json(tf)}, measures=derive_measures(T))
    doc["lemmas"] = [{"id": x.id, "kind": x.kind, "smt2": x.text, **({"proof": proofs[x.id]} if x.id in proofs else {})}
                     for x in derive_family_lemmas(T)]
    return doc


def forge_listed(doc: dict[str, Any], tf: dict[str, Any], lengths: list[int] | None = None) -> dict[str, Any]:
    doc, T, proofs = copy.deepcopy(doc), load_transformer(tf), _proofs(doc)
    doc.update(transformer=tf, hashes={"transformer": sha256_json(tf)}, unrolled=[])
    doc["lengths"] = doc["lengths"] if lengths is None else lengths
    uses = {}
    for n in doc["lengths"]:
        b = unroll(T, n)
        uses[n] = b.uses
        doc["unrolled"].append({"n": n, "sha256": sha256_json(structure(b)), "gates": len(b.gates), "depth": depth(b)})
    doc["lemmas"] = [{"id": x.id, "kind": x.kind, "scope": x.scope, "uses": x.uses, "smt2": x.text,
                      **({"proof": proofs[x.id]} if x.id in proofs else {})} for x in derive_lemmas(T, uses)]
    return doc


def _edited(tf: dict[str, Any], edit: str) -> dict[str, Any]:
    tf = copy.deepcopy(tf)
    if edit == "average->leftmost":
        tf["layers"][0]["heads"][0]["pooling"] = "leftmost"
    elif edit == "last average->rightmost":  # no average head left: RECIP leaves the lemma list
        tf["layers"][-1]["heads"][0]["pooling"] = "rightmost"
    elif edit == "layers reversed":
        tf["layers"].reverse()
    elif edit == "first layer dropped":
        del tf["layers"][0]
    else:  # a score's constant −1 becomes −2
        gate = next(g for g in tf["functions"][0]["gates"] if g == ["const", "-1"])
        gate[1] = "-2"
    return tf


EDITS = ["average->leftmost", "last average->rightmost", "layers reversed", "first layer dropped", "score -1->-2"]


@pytest.mark.parametrize("edit", EDITS)
def test_edited_transformer_theorem_names_the_edited_t_and_holds(edit: str, no_solver_at_all: None) -> None:
    """Forged from proofs/audit/mixed_pooling.*: accepted with no solver, about the edited T (its sha256, not the
    original's), and the edited T equals the kernel's U_N on sampled sequences, at lengths the kernel never built."""
    family, listed = _shipped("mixed_pooling.every-N.audit.json"), _shipped("mixed_pooling.N1-4.audit.json")
    original = sha256_json(family["transformer"])
    tf = _edited(family["transformer"], edit)
    assert sha256_json(tf) != original
    for doc in (forge_family(family, tf), forge_listed(listed, tf)):
        report = check_certificate(doc, NO_SOLVER)
        assert report.accepted, report.reasons
        assert sha256_json(tf) in report.theorem and original not in report.theorem
    assert _u_equals_t(tf, [1, 2, 3, 6], 4, seed=18)


def _size(theorem: str) -> tuple[dict[int, Fraction], int]:
    match = re.search(r"size (.*?)(?: for N ≥ (\d+))?;", theorem)
    assert match is not None, theorem
    terms = {}
    for term in match.group(1).replace("− ", "+ -").split(" + "):
        coeff, power = re.fullmatch(r"(-?[\d/]*)(N³|N²|N)?", term).groups()  # type: ignore[union-attr]
        terms[{"N³": 3, "N²": 2, "N": 1, None: 0}[power]] = Fraction(coeff) if coeff not in ("", "-") else \
            Fraction(-1 if coeff == "-" else 1)
    return terms, int(match.group(2) or 1)


def _inputs(k: int) -> list[list[Any]]:
    return [["input", i] for i in range(k)]


SIGN_SCORE = {"gates": _inputs(4) + [["const", "-1"], ["mul", [4, 2]], ["add", [0, 5]], ["sign", [6]]], "outputs": [7]}
CONST_SCORE = {"gates": _inputs(4) + [["const", "3"]], "outputs": [4]}
ACT = {"gates": _inputs(4), "outputs": [2, 3]}
ACT_CONSTS = {"gates": _inputs(4) + [["const", "-7"], ["const", "1/9"], ["mul", [0, 2, 3, 4, 5]], ["add", [6, 1]]],
              "outputs": [7, 3]}


def _one_head(pooling: str, score: Any, functions: list[Any], activation: int) -> dict[str, Any]:
    return {"coordinates": ["a", "b"], "functions": functions,
            "layers": [{"heads": [{"name": "h", "pooling": pooling, "score": score}], "activation": activation}]}


EDGES = {
    "no layers": {"coordinates": ["a", "b"], "functions": [], "layers": []},
    "sign score, average": _one_head("average", 0, [SIGN_SCORE, ACT], 1),
    "constant score (all ties), average": _one_head("average", 0, [CONST_SCORE, ACT], 1),
    "constant score, rightmost": _one_head("rightmost", 0, [CONST_SCORE, ACT], 1),
    "empty bilinear, average": _one_head("average", {"bilinear": []}, [ACT], 0),
    "constants -7 and 1/9 already in U_1": _one_head("average", {"bilinear": [[0, 1, "-1/3"]]}, [ACT_CONSTS], 0),
}


@pytest.mark.parametrize("name", list(EDGES))
def test_all_n_measures_hold_past_the_lengths_the_kernel_built(name: str, no_solver_at_all: None) -> None:
    """Edge transformers forged into the shipped all-N certificate: accepted, U_N = T independently, and the
    theorem's size polynomial (from the N it names) and depth match the kernel's unrollings at N = 6, 7, 9, 10."""
    tf = EDGES[name]
    report = check_certificate(forge_family(_shipped("mixed_pooling.every-N.audit.json"), tf), NO_SOLVER)
    assert report.accepted, report.reasons
    terms, start = _size(report.theorem)
    deep = int(re.search(r"of depth (\d+)", report.theorem).group(1))  # type: ignore[union-attr]
    T = load_transformer(tf)
    for n in (1, 2, 6, 7, 9, 10):
        b = unroll(T, n)
        if n >= start:
            assert sum(c * n ** e for e, c in terms.items()) == len(b.gates), (n, report.theorem)
        assert depth(b) == deep if n >= 2 else depth(b) <= deep
    assert _u_equals_t(tf, [1, 2, 3, 7], 4, seed=18)


@pytest.mark.parametrize("lengths", [[0], [33], [2, 1], [1, 1], [], [True], [1.0], ["3"], [-1]])
def test_listed_lengths_out_of_rule_are_rejected(lengths: list[Any]) -> None:
    """Every other field recomputed by the kernel for the lengths it accepts (N = 1 … 4), the list replaced."""
    doc = forge_listed(_shipped("mixed_pooling.N1-4.audit.json"), _shipped("mixed_pooling.N1-4.audit.json")["transformer"])
    doc["lengths"] = lengths
    report = check_certificate(doc, NO_SOLVER)
    assert report.outcome == "rejected" and "$.lengths" in str(report.reasons[0])


def test_swapped_proof_objects_are_not_accepted(no_solver_at_all: None) -> None:
    """The RECIP cases' proof objects exchanged (and GT's filed under NONE): never believed, so never accepted."""
    doc = _shipped("mixed_pooling.every-N.audit.json")
    recip = [e for e in doc["lemmas"] if e["kind"] == "recip"]
    recip[0]["proof"], recip[2]["proof"] = recip[2]["proof"], recip[0]["proof"]
    assert not check_certificate(copy.deepcopy(doc), NO_SOLVER).accepted
    doc = _shipped("mixed_pooling.every-N.audit.json")
    by_kind = {e["kind"]: e for e in doc["lemmas"]}
    by_kind["none"]["proof"] = by_kind["gt"]["proof"]
    assert not check_certificate(doc, NO_SOLVER).accepted
