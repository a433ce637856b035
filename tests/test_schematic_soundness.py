"""Whatever the every-K (schematic) kernel accepts must be true on concrete circuits.

Documents made from gate-edge (gate/edge layout) and edge-k (edge layout) get one more structural coordinate
``s`` whose edge rows depend on the edge (its slot, its ends) and one more head ``r`` over a gate's in-edges,
pooled by every rule (average, leftmost, rightmost); the activation adds ``op · r.s`` (or ``code · r.s``) to an
add's value.  Where the pooled ``s`` is 0 at every add (leftmost of ``slot``), T_K is still right; elsewhere it
is wrong for some fan-in.  The property: when ``prove-construction`` proves the document (its certificate then
accepted by the kernel), the exact engine agrees with the circuit on adds of fan-in 1 to 4 and the probe
circuit.  The rightmost head pooled the slot-0 in-edge's template at an add of symbolic fan-in k (its last
in-edge is slot k − 1), so the kernel accepted such documents for both layouts (a red-team find): those cases
are kept here, and one harmless case shows the property is not vacuous.
"""

from __future__ import annotations

import copy
import json
import random
from fractions import Fraction

import pytest

import mutants
from verified_aat.circuits.builder import CircuitBuilder
from verified_aat.circuits.evaluate import evaluate
from verified_aat.constructions.registry import construction_of_record, document_data, get_construction
from verified_aat.kernel import Options, check_certificate
from verified_aat.schematic import prove_construction
from verified_aat.transformer.exact_engine import run_exact

FORMULAS = ("slot", "min(slot, 1)", "dst - src")
POOLINGS = ("average", "leftmost", "rightmost")


def _gate_edge(pooling: str, formula: str) -> dict:
    d = copy.deepcopy(document_data(get_construction("gate-edge")))
    d["name"] = "ge-s"
    for key in ("description", "summary", "paper"):
        d.pop(key, None)
    d["coordinates"].insert(3, "s")
    d["structural"].append("s")
    d["positions"][0]["row"]["*"]["s"] = "0"
    d["positions"][1]["row"]["*"]["s"] = formula
    functions = d["transformer"]["functions"]
    fetch, gather = functions["activation-fetch"], functions["activation-gather"]
    fetch[-1] = fetch[-1].replace("output op=x.op a=x.a b=x.b", "output op=x.op a=x.a b=x.b s=x.s")
    total = next(n for n, line in enumerate(gather) if line.startswith("new_val = add x.val"))
    gather.insert(total, "r_term = mul is_add x.op r.s")
    gather[total + 1] += " r_term"
    gather[-1] = gather[-1].replace("output op=x.op a=x.a b=x.b", "output op=x.op a=x.a b=x.b s=x.s")
    d["transformer"]["block"][1]["heads"].append({"name": "r", "pooling": pooling, "score": "score-b"})
    return d


def _edge_k(pooling: str, formula: str) -> dict:
    d = copy.deepcopy(document_data(get_construction("edge-k")))
    d["name"] = "ek-s"
    for key in ("description", "summary", "paper"):
        d.pop(key, None)
    d["coordinates"].insert(3, "s")
    d["structural"].append("s")
    d["positions"][0]["row"]["*"]["s"] = formula
    d["positions"][1]["row"]["*"]["s"] = "0"
    step = d["transformer"]["functions"]["activation-step"]
    total = next(n for n, line in enumerate(step) if line.startswith("new_val = add x.val"))
    step.insert(total, "r_term = mul is_add code r.s")
    step[total + 1] += " r_term"
    step[-1] = step[-1].replace("output op=x.op src=x.src tgt=x.tgt", "output op=x.op src=x.src tgt=x.tgt s=x.s")
    d["transformer"]["block"][0]["heads"].append({"name": "r", "pooling": pooling, "score": "score-all"})
    d["attends"] = dict(d.get("attends", {}), r="in-edges")
    return d


def _circuits() -> list:
    found = [mutants.probe_circuit()]
    for k in (1, 2, 3, 4):
        b = CircuitBuilder(f"add{k}")
        xs = [b.input(f"x{i}") for i in range(k)]
        b.output(b.add(*xs, name="s"))
        found.append(b.build())
    return found


def _agrees(construction, circuit, rng: random.Random) -> bool:
    compiled = construction.compile(circuit)
    for _ in range(3):
        x = [Fraction(rng.randint(-9, 9), rng.randint(1, 4)) for _ in range(circuit.n_inputs)]
        run = run_exact(compiled.transformer, compiled.encoding.instantiate(x))
        if tuple(compiled.encoding.read(run.outputs)) != tuple(evaluate(circuit, x)):
            return False
    return True


@pytest.mark.slow
@pytest.mark.parametrize("layout", ["gate-edge", "edge-k"])
@pytest.mark.parametrize("pooling", POOLINGS)
@pytest.mark.parametrize("formula", FORMULAS)
def test_what_the_schematic_kernel_accepts_is_true(layout: str, pooling: str, formula: str) -> None:
    doc = (_gate_edge if layout == "gate-edge" else _edge_k)(pooling, formula)
    construction = construction_of_record(doc["name"], json.loads(json.dumps(doc)))
    result = prove_construction(construction, timeout_ms=10_000, witness_budget=3.0)
    wrong = [c.name for c in _circuits() if not _agrees(construction, c, random.Random(7))]
    if result.status == "proved":
        assert check_certificate(json.loads(json.dumps(result.certificate)), Options(solver_trust=False)).accepted
        assert not wrong, f"{layout}, {pooling} of {formula}: the kernel accepts a T_K that fails on {wrong}"
    if layout == "gate-edge" and pooling == "leftmost" and formula == "slot":
        assert result.status == "proved" and not wrong  # harmless: the leftmost in-edge has slot 0
    if pooling == "rightmost" and formula == "slot":
        assert wrong and result.status != "proved"  # the red-team case: k − 1 added at every add of fan-in k


# -- the red team's certificates: each ACCEPTED by the kernel of 8d401d6, its theorem false -------------------

DATA = __import__("pathlib").Path(__file__).parent / "data" / "redteam_schematic"
FOUND = {  # document: (circuit, input, what T_1 reads out there, what C is), the hole
    "ge-slot": ("add3", (1, 2, 3), 12, 6),         # rightmost in-edge of a symbolic add taken as slot 0 (gate/edge)
    "ek-slot": ("add3", (1, 2, 3), 12, 6),         # the same in the edge induction
    "edgek-sq": ("mul2", (3, 5), 32, 15),          # offset 0 with sq: input edges claimed to hold x_i² at layer 0
    "edge-input-z": ("add2", (1, 2), 6, 3),        # the edge group's input in a coordinate held at its formula
}


def _circuit(name: str):
    b = CircuitBuilder(name)
    xs = [b.input(f"x{i}") for i in range(int(name[-1]))]
    b.output(b.mul(*xs, name="p") if name.startswith("mul") else b.add(*xs, name="s"))
    return b.build()


@pytest.mark.parametrize("name", sorted(FOUND))
def test_a_red_team_certificate_of_a_false_theorem_is_rejected(name: str) -> None:
    from verified_aat.kernel import load_certificate
    report = check_certificate(load_certificate(str(DATA / f"{name}.schematic.json.gz")), Options(solver_trust=False))
    assert report.outcome == "rejected", report.reasons
    circuit, x, read, truth = FOUND[name]
    construction = construction_of_record(name, json.loads((DATA / f"{name}.json").read_text()))
    compiled = construction.compile(_circuit(circuit))
    outputs = run_exact(compiled.transformer, compiled.encoding.instantiate([Fraction(v) for v in x])).outputs
    assert tuple(compiled.encoding.read(outputs)) == (read,) and tuple(evaluate(_circuit(circuit), list(x))) == (truth,)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(FOUND))
def test_a_red_team_document_is_not_proved_for_every_k(name: str) -> None:
    construction = construction_of_record(name, json.loads((DATA / f"{name}.json").read_text()))
    assert prove_construction(construction, timeout_ms=10_000, witness_budget=3.0).status != "proved"


def test_own_for_every_k_needs_the_documents_t_k_to_be_the_repetition() -> None:
    """A differential fuzzer's find (2026-12-06): gate-edge with block [fetch] and suffix [gather]. Its T_1 is
    gate-edge's T_1, so every lemma held and the kernel ACCEPTED "for every K … T_K = the first 2 layers of T
    repeated K times, ge-split's own T_K"; but the document's T_K is fetch^K · gather, which reads out 0 for
    sign(x·y) at (2, −3) with K = 3.  Now P4 refuses 'own' for every K unless prefix + K × block + suffix is the
    repetition, and prove-construction refutes it with the document's T_3."""
    from verified_aat.kernel import load_certificate
    report = check_certificate(load_certificate(str(DATA / "ge-split.schematic.json.gz")), Options(solver_trust=False))
    assert report.outcome == "rejected" and report.rejections[0].check == "schematic-layers"
    construction = construction_of_record("ge-split", json.loads((DATA / "ge-split.json").read_text()))
    b = CircuitBuilder("sign_of_add_of_mul")
    x, y = b.input("x"), b.input("y")
    b.output(b.sign(b.add(b.mul(x, y, name="p"), name="s"), name="o"))
    circuit = b.build()
    compiled = construction.compile(circuit)  # K = 3
    run = run_exact(compiled.transformer, compiled.encoding.instantiate([Fraction(2), Fraction(-3)]))
    assert tuple(compiled.encoding.read(run.outputs)) == (0,) and tuple(evaluate(circuit, [2, -3])) == (-1,)
    # the witness budget is wall-clock seconds: generous where a witness is expected (the search stops when it finds
    # one, about 2 s alone), so a loaded machine (a test run beside others) does not turn "refuted" into "unknown"
    assert prove_construction(construction, timeout_ms=10_000, witness_budget=60.0).status == "refuted"


# -- slot classes: slot-0 and slot-1 heads under an unbounded add fan-in -------------------------------------

def _slotkey(edit: str | None = None) -> tuple[dict, object]:
    """A red-team helper's from-scratch construction: gates and edges keyed by target id, a mul of the slot-0 and
    slot-1 in-edges' values picked by two heads with slot penalties, an add as k times the mean of all in-edges.
    Certified per circuit, it was *unknown* for every K: the gate/edge induction had no slot classes for an
    unbounded fan-in (slots 0, 1 and every slot from 2 on, now)."""
    doc = json.loads((DATA / "slotkey.json").read_text())
    functions = doc["transformer"]["functions"]
    if edit == "mul of slot 0 twice":
        functions["activation-gather"][2] = "p = mul first.val first.val"
    doc["name"] = f"slotkey-{len(edit or '')}"
    return doc, construction_of_record(doc["name"], json.loads(json.dumps(doc)))


def test_slot_heads_under_an_unbounded_fan_in_are_proved_and_true() -> None:
    doc, construction = _slotkey()
    result = prove_construction(construction, timeout_ms=10_000, witness_budget=3.0)
    assert result.status == "proved", result.problems
    assert check_certificate(json.loads(json.dumps(result.certificate)), Options(solver_trust=False)).accepted
    rng = random.Random(11)
    for circuit in _circuits() + [_circuit("mul2")]:
        assert _agrees(construction, circuit, rng), circuit.name


def test_a_wrong_slot_head_is_not_proved() -> None:
    doc, construction = _slotkey("mul of slot 0 twice")
    assert prove_construction(construction, timeout_ms=10_000, witness_budget=3.0).status != "proved"
    assert not _agrees(construction, _circuit("mul2"), random.Random(3))


# -- P3 reads the base case's rows by their normal form, not their spelling ----------------------------------

def _respelled(base: str, role_index: int, coordinate: str, formula: str) -> object:
    doc = copy.deepcopy(document_data(get_construction(base)))
    doc["name"] = f"{base}-respelled"
    for key in ("description", "summary", "paper"):
        doc.pop(key, None)
    doc["positions"][role_index]["row"]["*"][coordinate] = formula
    return construction_of_record(doc["name"], json.loads(json.dumps(doc)))


@pytest.mark.parametrize("base, role, coordinate, formula, expected", [
    ("gate-edge", 0, "val", "(c) + 0", "proved"),
    ("gate-edge", 0, "val", "c + 1 - 1 + id*0 + c*0", "proved"),
    ("edge-only", 0, "sq", "c*(c + 0*src) + dst - dst", "proved"),
    ("edge-only", 1, "val", "(c + slot) - slot", "proved"),
    ("gate-edge", 0, "val", "c + c*c", "refuted"),   # a const of 3/2 holds 15/4
    ("edge-only", 0, "val", "c*c*0 + c + 1/2 - 1/2 + c*c", "refuted"),
    # not c² for every c: refused, though this T never reads a const's sq (so no witness exists)
    ("edge-only", 0, "sq", "c*c + c", "unknown"),
])
def test_the_base_case_is_read_by_its_normal_form(base: str, role: int, coordinate: str, formula: str,
                                                  expected: str) -> None:
    """A const row written `(c) + 0` was *unknown*: P3 compared rows by their spelling.  The kernel's normal form
    decides them now; a row that differs from c (or c²) for some c is still refused, and the exact engine
    agrees with the verdict on a circuit with constants."""
    construction = _respelled(base, role, coordinate, formula)
    result = prove_construction(construction, timeout_ms=10_000, witness_budget=60.0 if expected == "refuted" else 6.0)
    assert result.status == expected, result.problems
    b = CircuitBuilder("const_times_x")
    x = b.input("x")
    b.output(b.add(b.mul(x, b.const(Fraction(3, 2))), b.const(Fraction(-2))))
    circuit = b.build()
    compiled = construction.compile(circuit)
    run = run_exact(compiled.transformer, compiled.encoding.instantiate([Fraction(5)]))
    agrees = tuple(compiled.encoding.read(run.outputs)) == tuple(evaluate(circuit, [Fraction(5)]))
    assert agrees == (expected != "refuted")
    if expected == "proved":
        assert check_certificate(json.loads(json.dumps(result.certificate)), Options(solver_trust=False)).accepted
