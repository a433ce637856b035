"""The kernel against forged certificates (issue: "check must accept no forged certificate").

Every certificate here is *derived* by ``forge.py`` with the kernel's own
derivation code, so hashes, ids, counts, digests and lemma texts are all
consistent and every lemma claims to be proved: only the kernel's rules and
the solver stand in the way.  Each forgery class must be REJECTED by the
check that enforces the broken rule, naming that rule and its step of
docs/soundness.md.  The honest forgeries at the top show that the forger is
faithful (the kernel accepts what the forger derives when nothing is wrong),
so a rejection below is the rule's doing, not the forger's mistake.
"""

from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import replace
from fractions import Fraction

import pytest

import mutants
from forge import Forgery, forge, honest_rules, verdict
from verified_aat.certificates.kernel_form import transformer_form
from verified_aat.circuits.builder import CircuitBuilder
from verified_aat.circuits.json_format import canonical_circuit_bytes
from verified_aat.constructions.gadgets import equals_indicator, key_distance_score, select_update
from verified_aat.constructions.gate_edge import EDGE, GateEdge
from verified_aat.constructions.registry import get_construction
from verified_aat.kernel.data import load_circuit
from verified_aat.kernel.encoding import build as build_encoding
from verified_aat.kernel.layouts import shipped_construction
from verified_aat.transformer.model import (CircuitScore, Head, Layer, Pooling, Transformer, activation_input_names,
                                            score_input_names)


def product(same: bool = False):
    b = CircuitBuilder("xx" if same else "xy")
    x = b.input("x")
    y = x if same else b.input("y")
    b.output(b.mul(x, y))
    return b.build()


def three_sum():
    b = CircuitBuilder("sum3")
    x, y, z = b.input("x"), b.input("y"), b.input("z")
    b.output(b.add(x, y, z))
    b.output(b.mul(b.add(x, y, z), y))
    return b.build()


def rejected_by(doc, check: str, **options):
    report = verdict(doc, **options)
    assert report.outcome == "rejected", (report.outcome, report.reasons)
    first = report.rejections[0]
    assert first.check == check, report.reasons
    assert f"docs/soundness.md {first.step}" in str(first) and first.rule in str(first)
    return first


def kernel_doc(construction: str, circuit, depth: int | None = None) -> dict:
    return transformer_form(get_construction(construction).compile(circuit, depth).transformer)


# -- the forger is faithful --------------------------------------------------------------

@pytest.mark.parametrize("construction,circuit", [
    ("gate-edge", mutants.probe_circuit()), ("gate-edge-dot", mutants.probe_circuit()),
    ("unique-hard", mutants.probe_fnc_circuit()), ("edge-only", mutants.probe_circuit())])
def test_an_honest_forgery_is_accepted(construction, circuit):
    report = verdict(forge(Forgery(circuit, construction=construction)))
    assert report.outcome == "accepted", report.reasons
    assert "reads out C(x)" in report.theorem


# -- S4/S5: schedules --------------------------------------------------------------------------

def test_negative_settle_layers_do_not_assume_claims_zero_layer_transformer():
    """Issue class 1: settle −1 made every claim a free hypothesis; a 0-layer T 'computed' x·y."""
    T = kernel_doc("gate-edge", product())
    T["layers"] = []
    rules = honest_rules("gate-edge")
    for rule in rules.values():
        rule["scale"], rule["offset"] = 0, -1
    found = rejected_by(forge(Forgery(product(), T, schedule=rules)), "base")
    assert "layer -1" in found.detail


def test_a_very_negative_settle_layer_is_a_base_case_too():
    rules = honest_rules("gate-edge")
    rules["gate"]["offset"] = -1000
    rejected_by(forge(Forgery(product(), schedule=rules)), "base")


def test_huge_settle_layers_never_reach_the_read_out():
    rules = honest_rules("gate-edge")
    rules["gate"]["offset"] = 10 ** 6
    rejected_by(forge(Forgery(product(), schedule=rules)), "readout")


def test_schedule_integers_beyond_the_limit_are_not_checked():
    """|scale| past 10⁶ is a size limit: not checked, never a verdict."""
    rules = honest_rules("gate-edge")
    rules["gate"]["scale"] = 10 ** 12
    report = verdict(forge(Forgery(product(), schedule=rules)))
    assert report.outcome == "not-checked" and "$.hints.schedule.gate.scale" in report.unchecked[0]


class SqIsVal(GateEdge):
    """Edges store sq := val (not val²)."""

    def _fetch_activation(self):
        b, w = self._activation_builder("fetch")
        is_edge = equals_indicator(b, w["x.op"], EDGE)
        val = select_update(b, w["x.val"], [(is_edge, w["fetch.val"])])
        sq = select_update(b, w["x.sq"], [(is_edge, w["fetch.val"])])
        return self._finish(b, w, {"val": val, "sq": sq})


@pytest.mark.parametrize("power", [3, 0, -1, True])
def test_claim_powers_other_than_1_and_2_are_refused(power):
    """Issue class 2: sq := val with 'power 3' was proved as a plain value but read as a square."""
    rules = honest_rules("gate-edge")
    rules["edge"]["claims"] = [["val", "source", 1], ["sq", "source", power]]
    T = SqIsVal().compile(product(True)).transformer
    found = rejected_by(forge(Forgery(product(True), T, schedule=rules)), "schedule")
    assert "power must be 1 or 2" in found.detail


def test_a_consistent_but_wrong_power_fails_in_the_solver_and_in_the_interpreter():
    rules = honest_rules("gate-edge")
    rules["edge"]["claims"] = [["val", "source", 1], ["sq", "source", 1]]
    doc = forge(Forgery(product(True), SqIsVal().compile(product(True)).transformer, schedule=rules))
    rejected_by(doc, "defence")
    found = rejected_by(doc, "solvers", defence_budget=0)
    assert "local-step:mul" in found.detail and "is false" in found.detail


def test_input_claims_squared_at_layer_zero_are_not_base_cases():
    rules = honest_rules("edge-only")
    rules["edge"]["claims"] = [["val", "source", 1], ["sq", "source", 2]]
    rules["edge"]["kind_offsets"] = [["input", "val", -1], ["input", "sq", -1]]
    rejected_by(forge(Forgery(product(), construction="edge-only", schedule=rules)), "base")


def test_a_schedule_that_claims_nothing_proves_nothing():
    rejected_by(forge(Forgery(product(), schedule={})), "readout")


def test_read_out_from_another_coordinate_is_refused():
    rules = honest_rules("gate-edge")
    rules["gate"]["claims"] = [["sq", "gate", 1]]
    found = rejected_by(forge(Forgery(product(), schedule=rules)), "readout")
    assert "no claim gives V(gate" in found.detail


def test_claims_about_the_wrong_gate_fail():
    rules = honest_rules("gate-edge")
    rules["edge"]["claims"] = [["val", "gate", 1], ["sq", "gate", 2]]  # an edge claiming its target's value
    rejected_by(forge(Forgery(three_sum(), schedule=rules)), "solvers", defence_budget=0)


# -- S4/S8: structural coordinates ------------------------------------------------------------------

def test_a_structural_coordinate_that_carries_an_input_is_refused():
    found = rejected_by(forge(Forgery(product(), structural=["op", "a", "b", "val"])), "structural")
    assert "input x_0" in found.detail


def test_claims_on_a_structural_coordinate_are_refused():
    rejected_by(forge(Forgery(product(), structural=["op", "a", "b", "sq"])), "schedule")


def test_a_structural_coordinate_computed_from_values_is_refused():
    rules = honest_rules("gate-edge")
    rules["edge"]["claims"] = [["val", "source", 1]]
    found = rejected_by(forge(Forgery(product(), structural=["op", "a", "b", "sq"], schedule=rules)),
                        "structural-frame")
    assert "sq" in found.detail


def _gate_edge_layers(extra_layer=None, gather_head=None, gather_activation=None):
    ge = GateEdge()
    T = ge.transformer(1)
    fetch, gather = T.layers
    if gather_head is not None:
        gather = Layer(gather.heads + (gather_head,), gather_activation, "gather")
    layers = (fetch, gather) + ((extra_layer,) if extra_layer is not None else ())
    return Transformer(T.coordinates, layers, "forged")


def test_a_leftmost_head_that_rewrites_edge_ids_is_caught_with_its_own_pooling():
    """Issue class 3: the structural frame pooled by the mean whatever the head's rule."""
    ge = GateEdge()
    names = activation_input_names(ge.coordinates, ["gather", "peek"])
    b = CircuitBuilder("gather-peek")
    w = {n: b.input(n) for n in names}
    inner = ge._gather_activation()
    from verified_aat.circuits.evaluate import fold_circuit
    outs = fold_circuit(inner, [w[n] for n in activation_input_names(ge.coordinates, ["gather"])],
                        b.const, lambda xs: b.add(*xs), lambda xs: b.mul(*xs), b.sign)
    is_edge = equals_indicator(b, w["x.op"], EDGE)
    new_a = select_update(b, w["x.a"], [(is_edge, w["peek.a"])])
    for c, wire in zip(ge.coordinates, outs):
        b.output(new_a if c == "a" else wire, c)
    gather_head = Head("peek", ge._score("b", False), Pooling.LEFTMOST)
    T = _gate_edge_layers(gather_head=gather_head, gather_activation=b.build())
    attention = [{"function": 1, "head": "peek", "method": "brute-force"}]
    found = rejected_by(forge(Forgery(product(), T, attention=attention)), "structural-frame")
    assert "changes structural coordinate a" in found.detail


def _keep_all_but(coordinate: str, build):
    ge = GateEdge()
    b = CircuitBuilder("extra")
    w = {n: b.input(n) for n in activation_input_names(ge.coordinates, [])}
    for c in ge.coordinates:
        b.output(build(b, w) if c == coordinate else w[f"x.{c}"], c)
    return Layer((), b.build(), "extra")


def test_an_extra_layer_that_moves_a_structural_coordinate_is_refused():
    layer = _keep_all_but("op", lambda b, w: b.add(w["x.op"], b.const(1)))
    found = rejected_by(forge(Forgery(product(), _gate_edge_layers(extra_layer=layer))), "structural-frame")
    assert "changes structural coordinate op" in found.detail


def test_an_extra_layer_that_writes_a_value_into_structure_is_refused():
    layer = _keep_all_but("b", lambda b, w: b.add(w["x.b"], b.mul(w["x.val"], b.const(0))))
    found = rejected_by(forge(Forgery(product(), _gate_edge_layers(extra_layer=layer))), "structural-frame")
    assert "computed from value coordinates" in found.detail


# -- S6: attention --------------------------------------------------------------------------------

def _fetch_score_with(extra):
    ge = GateEdge()
    b = CircuitBuilder("score-a")
    w = {n: b.input(n) for n in score_input_names(ge.coordinates)}
    is_edge = equals_indicator(b, w["j.op"], EDGE)
    b.output(key_distance_score(b, w["i.a"], w["j.a"], b.add(is_edge, extra(b, w))))
    return CircuitScore(b.build())


def _with_fetch_score(score):
    T = GateEdge().transformer(1)
    fetch = replace(T.layers[0], heads=(replace(T.layers[0].heads[0], score=score),))
    return Transformer(T.coordinates, (fetch, T.layers[1]), "forged")


def test_brute_force_on_a_value_reading_score_is_refused():
    """Issue class 4: brute force evaluated value coordinates at placeholder values."""
    T = _with_fetch_score(_fetch_score_with(lambda b, w: b.square(w["j.val"])))
    attention = [{"function": 0, "head": "fetch", "method": "brute-force"}]
    found = rejected_by(forge(Forgery(product(), T, attention=attention)), "attention")
    assert "reads value coordinates ['val']" in found.detail


def test_key_circuits_that_read_values_are_refused_even_with_a_true_lemma():
    T = _with_fetch_score(_fetch_score_with(lambda b, w: b.square(w["j.val"])))
    from verified_aat.certificates.kernel_form import circuit_structure
    from verified_aat.constructions.gadgets import unary_circuit
    names = [f"v.{c}" for c in GateEdge().coordinates]
    key = {"row_key": circuit_structure(unary_circuit(names, lambda b, w: w["v.a"])),
           "col_key": circuit_structure(unary_circuit(names, lambda b, w: w["v.a"])),
           "col_penalty": circuit_structure(unary_circuit(
               names, lambda b, w: b.add(equals_indicator(b, w["v.op"], EDGE), b.square(w["v.val"])))),
           "facts": []}
    attention = [{"function": 0, "head": "fetch", "method": "key-join", "key": key}]
    found = rejected_by(forge(Forgery(product(), T, attention=attention)), "attention")
    assert "key circuits read value coordinates" in found.detail


def test_a_value_reading_score_with_structure_only_keys_has_a_false_key_lemma():
    T = _with_fetch_score(_fetch_score_with(lambda b, w: b.square(w["j.val"])))
    found = rejected_by(forge(Forgery(product(), T)), "solvers", defence_budget=0)
    assert "attention:key-decomposition" in found.detail


def test_a_bilinear_score_on_a_value_coordinate_is_refused_under_brute_force():
    dot = GateEdge(dot=True)
    T = dot.transformer(1)
    d = dot.coordinates
    matrix = [list(row) for row in T.layers[0].heads[0].score.matrix]
    matrix[d.index("val")][d.index("val")] = Fraction(1)
    from verified_aat.transformer.model import BilinearScore
    head = replace(T.layers[0].heads[0], score=BilinearScore(tuple(tuple(r) for r in matrix)))
    T = Transformer(d, (replace(T.layers[0], heads=(head,)), T.layers[1]), "forged")
    attention = [{"function": 0, "head": "fetch", "method": "brute-force"}]
    rejected_by(forge(Forgery(product(), T, construction="gate-edge-dot", attention=attention)), "attention")


def _dot_key_with_facts(facts):
    from forge import honest_key
    key = honest_key("gate-edge-dot", "fetch", GateEdge(dot=True).coordinates)
    key["facts"] = facts
    return [{"function": 0, "head": "fetch", "method": "key-join", "key": key}]


def test_a_false_fact_is_refused():
    doc = forge(Forgery(product(), construction="gate-edge-dot", attention=_dot_key_with_facts([["a", "0"]])))
    assert "fails at some position" in rejected_by(doc, "attention").detail


def test_a_fact_about_a_value_coordinate_is_refused():
    doc = forge(Forgery(product(), construction="gate-edge-dot", attention=_dot_key_with_facts([["val", "0"]])))
    assert "may change" in rejected_by(doc, "attention").detail


def test_softmax_is_never_certified():
    T = kernel_doc("gate-edge", product())
    T["layers"][0]["heads"][0]["pooling"] = "softmax"
    rejected_by(forge(Forgery(product(), T, attention=[{"function": 0, "head": "fetch", "method": "brute-force"}])),
                "exact-pooling")


# -- S7: every pooling rule, used consistently: rejected exactly when wrong ------------------------------

@pytest.mark.parametrize("construction,poolings,wrong", [
    ("gate-edge", {"gather": "leftmost"}, True),       # add of fan-in 3 reads one in-edge
    ("gate-edge", {"gather": "rightmost"}, True),
    ("gate-edge", {"fetch": "leftmost"}, False),       # singleton sets: the same value
    ("gate-edge", {"fetch": "rightmost"}, False),
    ("unique-hard", {"left": "average"}, True),        # the product reads the mean twice
    ("unique-hard", {"left": "rightmost"}, True),      # both heads read the second operand
    ("unique-hard", {"left": "rightmost", "right": "leftmost"}, False),  # swapped: the operations commute
])
def test_each_pooling_rule_is_used_as_written(construction, poolings, wrong):
    circuit = three_sum() if construction == "gate-edge" else mutants.probe_fnc_circuit()
    T = kernel_doc(construction, circuit)
    for entry in T["layers"]:
        for h in entry["heads"]:
            h["pooling"] = poolings.get(h["name"], h["pooling"])
    doc = forge(Forgery(circuit, T, construction=construction))
    if wrong:
        rejected_by(doc, "defence")
        rejected_by(doc, "solvers", defence_budget=0)
    else:
        assert verdict(doc).outcome == "accepted", verdict(doc).reasons


# -- S2: the encoding --------------------------------------------------------------------------------------

def test_an_encoding_with_moved_rows_is_refused():
    C = product()
    kC = load_circuit(json.loads(canonical_circuit_bytes(C)), "$", extra_keys={"format", "version", "domain"})
    E = build_encoding(shipped_construction("gate-edge"), kC)
    rows = list(E.rows)
    rows[0], rows[1] = rows[1], rows[0]
    found = rejected_by(forge(Forgery(C, encoding=replace(E, rows=tuple(rows)))), "encoding")
    assert "enc(C) as the kernel builds it" in found.detail


def test_an_encoding_that_places_an_input_elsewhere_is_refused():
    C = product()
    kC = load_circuit(json.loads(canonical_circuit_bytes(C)), "$", extra_keys={"format", "version", "domain"})
    E = build_encoding(shipped_construction("gate-edge"), kC)
    slots = ((E.input_slots[0][0], E.input_slots[0][1], 1), (E.input_slots[1][0], E.input_slots[1][1], 0))
    rejected_by(forge(Forgery(C, encoding=replace(E, input_slots=slots))), "encoding")


def test_a_construction_the_kernel_cannot_read_is_not_checked():
    """A certificate naming a construction that is neither shipped nor embedded: the kernel cannot state its
    encoding (S2), so the certificate is *not checked* — never accepted, never rejected."""
    doc = forge(Forgery(product()))
    doc["construction"] = "my-own"
    report = verdict(doc)
    assert report.outcome == "not-checked" and not report.rejections, report.reasons
    assert report.reasons == ["not checked: construction: construction 'my-own' is not a built-in and the "
                              "certificate embeds no construction document: the kernel cannot state its encoding "
                              "(docs/soundness.md S2)"]


def test_a_circuit_outside_the_layout_is_refused():
    b = CircuitBuilder("wide")
    x = b.inputs(["x", "y", "z"])
    b.output(b.add(*x))
    doc = forge(Forgery(product()))
    doc["circuit"] = json.loads(canonical_circuit_bytes(b.build()))
    doc["construction"] = "unique-hard"
    doc["hashes"]["circuit"] = hashlib.sha256(canonical_circuit_bytes(b.build())).hexdigest()
    assert "outside unique-hard's encoding" in rejected_by(doc, "encoding").detail


# -- S11: lemma texts and names ----------------------------------------------------------------------------

def _relemma(doc, edit):
    doc = copy.deepcopy(doc)
    lemma = next(l for l in doc["lemmas"] if l["kind"] == "local-step:mul")
    lemma["smt2"] = edit(lemma["smt2"])
    lemma["id"] = hashlib.sha256(lemma["smt2"].encode()).hexdigest()
    return doc


def test_a_weakened_lemma_with_a_consistent_hash_is_refused():
    doc = _relemma(forge(Forgery(product())), lambda t: t.replace("(assert (not", "(assert (and false"))
    assert "is missing" in rejected_by(doc, "lemmas").detail


def test_a_duplicate_declaration_with_a_consistent_hash_is_refused():
    doc = _relemma(forge(Forgery(product())),
                   lambda t: t.replace("(declare-const y0 Real)\n", "(declare-const y0 Real)\n(declare-const y0 Real)\n"))
    rejected_by(doc, "lemmas")


@pytest.mark.parametrize("edit", ["drop", "extra", "uses", "kind"])
def test_the_lemma_list_must_be_the_kernels(edit):
    doc = forge(Forgery(product()))
    if edit == "drop":
        doc["lemmas"] = doc["lemmas"][1:]
    elif edit == "extra":
        text = "(set-logic QF_NRA)\n(assert false)\n(check-sat)\n"
        doc["lemmas"].append({"id": hashlib.sha256(text.encode()).hexdigest(), "kind": "local-step:add",
                              "uses": 1, "smt2": text})
    elif edit == "uses":
        doc["lemmas"][0]["uses"] += 1
    else:
        doc["lemmas"][0]["kind"] = "frame:gate" if doc["lemmas"][0]["kind"] != "frame:gate" else "frame:edge"
    rejected_by(doc, "lemmas")


def test_activation_names_that_collide_in_smt_are_refused():
    T = kernel_doc("gate-edge", product())
    T["coordinates"] = ["op", "a_b", "b", "val", "sq"]
    T["layers"][1]["heads"][0]["name"] = "x_a"  # x_a_b (own) = x_a + _b? no: head x_a, coordinate b
    doc = forge(Forgery(product()))
    doc["transformer"] = T
    found = rejected_by(doc, "names")
    assert "same SMT name" in found.detail


# -- S1 and the derived fields --------------------------------------------------------------------------

def test_derived_fields_must_be_the_kernels():
    doc = forge(Forgery(product()))
    doc["derived"]["attention"][0]["sets"]["digest"] = "0" * 64
    rejected_by(doc, "obligations")
    doc = forge(Forgery(product()))
    doc["derived"]["obligations"]["local-step:mul"] += 1
    rejected_by(doc, "obligations")


def test_hashes_and_document_fields_are_checked():
    doc = forge(Forgery(product()))
    doc["hashes"]["transformer"] = "0" * 64
    rejected_by(doc, "hashes")
    for version in (2.0, True, "2", 1):
        doc = forge(Forgery(product()))
        doc["version"] = version
        assert "$.version" in rejected_by(doc, "document").detail
    doc = forge(Forgery(product()))
    doc["result"]["status"] = "unknown"
    rejected_by(doc, "document")


def test_a_certificate_about_another_circuit_is_refused_against_the_given_one():
    other = ("three_sum", canonical_circuit_bytes(three_sum()), "structure")
    rejected_by(forge(Forgery(product())), "given-circuit", circuit_file=other)


# -- wrong transformers with perfectly consistent certificates ------------------------------------------

@pytest.mark.parametrize("mutant", [mutants.MissingRescaling, mutants.SquareOfMean, mutants.SwappedCodes,
                                    mutants.OneLayerShort, mutants.NoGatherPenalty])
def test_wrong_transformers_with_consistent_certificates_are_rejected(mutant):
    C = mutants.probe_circuit()
    T = mutant().compile(C).transformer
    doc = forge(Forgery(C, T))
    first = verdict(doc).rejections[0].check
    assert first in ("defence", "readout", "solvers"), first
    assert verdict(doc, defence_budget=0).rejections[0].check in ("readout", "solvers")


def test_the_interpreter_reports_a_witness():
    C = mutants.probe_circuit()
    doc = forge(Forgery(C, mutants.MissingRescaling().compile(C).transformer))
    found = rejected_by(doc, "defence")
    assert found.detail.startswith("x = (") and "after layer" in found.detail


def test_only_informational_fields_may_change_unnoticed():
    doc = forge(Forgery(product()))
    doc["lemmas"][0]["engine"] = "normal-form"
    doc["claim"] = "anything at all"
    doc["info"] = {"depth_bound": 7}  # informational, but bounded: 10**9 is rejected (tests/test_limits_first.py)
    assert verdict(doc).outcome == "accepted"
