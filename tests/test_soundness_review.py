"""Soundness review (reading docs/soundness.md S1–S13 and N′ against ``kernel/checks.py``, its imports and the link by
binary steps): the edge cases the review built, each with the verdict the kernel must give.

No false ACCEPTED was found and no honest certificate was rejected against the argument; the one imprecision
(S5 said a claim settled at a layer ≤ 0 may be about any gate "whose value does not depend on x", while the kernel
evaluates a gate only when its cone holds no input, so mul(x, 0) is refused) is fixed in the document, and
``test_base_case_needs_a_gate_computed_from_constants`` pins what the code does.  Every accepted theorem here is
checked apart from the kernel: T (its kernel form, read by the small evaluator below: hard attention over all
positions, exact rationals) run on enc_X(C, x) and read out, against C evaluated gate by gate; every accepted
netlist link against the netlist evaluated gate by gate on {0,1}ⁿ (threshold) or at rational points (exact).
"""

from __future__ import annotations

import copy
import itertools
from fractions import Fraction

import pytest

from forge import Forgery, forge, honest_rules, verdict
from verified_aat.certificates.kernel_form import transformer_form
from verified_aat.circuits.builder import CircuitBuilder
from verified_aat.constructions.registry import get_construction
from verified_aat.kernel.context import Context
from verified_aat.kernel.data import Malformed, load_circuit, load_structure
from verified_aat.kernel.encoding import build
from verified_aat.kernel.layouts import shipped_construction
from verified_aat.kernel.netlist_steps import step_report
from verified_aat.kernel.report import Options

CONSTRUCTIONS = ["gate-edge", "gate-edge-dot", "unique-hard", "unique-hard-left", "unique-hard-right", "edge-only",
                 "edge-k"]
POINTS = [(0, 0), (1, -2), (Fraction(-3, 2), 5), (2, 2)]


# -- an evaluator written apart from the kernel and the engine --------------------------------------------------

def run_circuit(circuit: dict, x: list) -> list:
    """Every output of a kernel-form circuit at x (sign(0) = 0, an empty sum 0)."""
    v: list = []
    for op, arg in circuit["gates"]:
        if op == "input":
            v.append(Fraction(x[arg]))
        elif op == "const":
            v.append(Fraction(arg))
        elif op == "add":
            v.append(sum((v[a] for a in arg), Fraction(0)))
        elif op == "mul":
            product = Fraction(1)
            for a in arg:
                product *= v[a]
            v.append(product)
        else:
            v.append(Fraction((v[arg[0]] > 0) - (v[arg[0]] < 0)))
    return [v[o] for o in circuit["outputs"]]


def run_transformer(T: dict, seq: list[list]) -> list[list]:
    """T on a sequence: each head's argmax set over all positions, pooled by its rule, then the activation."""
    d = len(T["coordinates"])
    for layer in T["layers"]:
        pooled = []
        for head in layer["heads"]:
            score = head["score"]
            if type(score) is int:
                s = [[run_circuit(T["functions"][score], p + q)[0] for q in seq] for p in seq]
            else:
                s = [[sum(Fraction(w) * p[r] * q[c] for r, c, w in score["bilinear"]) for q in seq] for p in seq]
            sets = [[j for j, v in enumerate(row) if v == max(row)] for row in s]
            rule = head["pooling"]
            pooled.append([seq[A[0]] if rule == "leftmost" else seq[A[-1]] if rule == "rightmost" else
                           [sum(seq[j][c] for j in A) / len(A) for c in range(d)] for A in sets])
        act = T["functions"][layer["activation"]]
        seq = [run_circuit(act, seq[p] + [v for h in pooled for v in h[p]]) for p in range(len(seq))]
    return seq


def read_out(doc: dict, x: tuple) -> list:
    """T(enc_X(C, x)) at the read-out positions, enc_X as the kernel states it (rows, x in the slots)."""
    E = build(shipped_construction(doc["construction"]), load_structure(doc["circuit"], "$.circuit"))
    seq = [[Fraction(v) for v in row] for row in E.rows]
    for p, c, i in E.input_slots:
        seq[p][c] += Fraction(x[i])
    out = run_transformer(doc["transformer"], seq)
    return [out[p][c] for p, c in E.readout]


def assert_true_theorem(doc: dict, points) -> None:
    for x in points:
        assert read_out(doc, x) == run_circuit(doc["circuit"], list(x)), x


# -- edge-case circuits: zero inputs, an input that is an output, repeated outputs, no output, sign(0) ----------

def zero_inputs():
    b = CircuitBuilder("zero-inputs")
    k = b.const(3)
    s = b.sign(b.const(-2))
    b.output(k), b.output(b.add()), b.output(s), b.output(b.add(k, s))
    return b.build()


def inputs_out():
    b = CircuitBuilder("inputs-out")
    x, y = b.input("x"), b.input("y")
    b.output(x), b.output(b.const(5)), b.output(x), b.output(y), b.output(b.add(x, y)), b.output(x)
    return b.build()


def no_output():
    b = CircuitBuilder("no-output")
    x = b.input("x")
    b.input("y")
    b.add(x, x)
    return b.build()


def sign_of_zero():
    b = CircuitBuilder("sign-of-zero")
    x, y = b.input("x"), b.input("y")
    s = b.sign(b.mul(x, b.const(0)))
    b.output(s), b.output(b.mul(s, y)), b.output(b.sign(b.add(x, y)))
    return b.build()


def no_gate():
    return CircuitBuilder("no-gate").build()


CIRCUITS = [zero_inputs, inputs_out, no_output, sign_of_zero, no_gate]


@pytest.mark.parametrize("make", CIRCUITS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("construction", CONSTRUCTIONS)
def test_edge_case_circuits_are_accepted_and_true(construction: str, make) -> None:
    doc = forge(Forgery(make(), construction=construction))
    report = verdict(doc, solver_trust=False)
    assert report.outcome == "accepted", report.reasons
    n = load_structure(doc["circuit"], "$").n_inputs
    assert_true_theorem(doc, [p[:n] for p in POINTS])


def test_zero_layers_read_inputs_and_constants_at_layer_0() -> None:
    empty = {"coordinates": ["op", "a", "b", "val", "sq"], "functions": [], "layers": []}
    b = CircuitBuilder("inputs-and-a-constant")
    x, y = b.input("x"), b.input("y")
    b.output(y), b.output(b.const(5)), b.output(x), b.output(y)
    doc = forge(Forgery(b.build(), construction="gate-edge", transformer=empty))
    report = verdict(doc, solver_trust=False)
    assert report.outcome == "accepted" and "0 layers" in report.theorem, report.reasons
    assert_true_theorem(doc, POINTS)
    b = CircuitBuilder("depth-one")
    x = b.input("x")
    b.output(b.add(x, x))
    report = verdict(forge(Forgery(b.build(), construction="gate-edge", transformer=empty)), defence_budget=0)
    assert report.outcome == "rejected" and report.rejections[0].check == "readout"  # settles at 2 > L = 0


def test_a_layer_function_used_again_after_every_claim_settled() -> None:
    """(F G)^D then one more G, or one more F: each function's obligations at its first layer after each settle."""
    C = sign_of_zero()
    T = transformer_form(get_construction("gate-edge").compile(C).transformer)
    for extra in (T["layers"][-1], T["layers"][0]):
        doc = forge(Forgery(C, construction="gate-edge", transformer={**T, "layers": T["layers"] + [extra]}))
        report = verdict(doc, solver_trust=False)
        assert report.outcome == "accepted", report.reasons
        assert_true_theorem(doc, POINTS)


def test_a_last_layer_that_breaks_a_settled_claim_is_rejected_without_the_defence() -> None:
    C = sign_of_zero()
    T = transformer_form(get_construction("gate-edge").compile(C).transformer)
    f = copy.deepcopy(T["functions"][T["layers"][-1]["activation"]])
    f["gates"].append(["add", [f["outputs"][3], f["outputs"][3]]])  # val doubled
    f["outputs"][3] = len(f["gates"]) - 1
    T2 = {**T, "functions": T["functions"] + [f],
          "layers": T["layers"] + [{"heads": T["layers"][-1]["heads"], "activation": len(T["functions"])}]}
    doc = forge(Forgery(C, construction="gate-edge", transformer=T2))
    assert read_out(doc, (1, 1)) != run_circuit(doc["circuit"], [1, 1])  # the theorem would be false
    report = verdict(doc, defence_budget=0, solver_trust=False)
    assert report.outcome == "rejected" and report.rejections[0].check == "solvers", report.reasons


def test_base_case_needs_a_gate_computed_from_constants() -> None:
    """S5: a claim at a layer ≤ 0 on mul(x, 0) is refused although the row holds its value 0 for every x: the kernel
    evaluates a gate only when its cone holds no input (the document now says so)."""
    b = CircuitBuilder("times-zero")
    x = b.input("x")
    b.output(b.mul(x, b.const(0)))
    rules = honest_rules("gate-edge")
    rules["gate"]["kind_offsets"] = [["mul", "val", -2]]  # the depth-1 mul settles at 0
    report = verdict(forge(Forgery(b.build(), construction="gate-edge", schedule=rules)), defence_budget=0)
    assert report.outcome == "rejected" and report.rejections[0].check == "base", report.reasons


def test_a_read_out_claim_of_the_square_is_no_read_out() -> None:
    rules = honest_rules("gate-edge")
    rules["gate"]["claims"] = [["val", "gate", 2]]
    report = verdict(forge(Forgery(inputs_out(), construction="gate-edge", schedule=rules)), defence_budget=0)
    assert report.outcome == "rejected" and report.rejections[0].check == "readout", report.reasons


# -- the link by binary steps (N′): hand-built circuits and sections ---------------------------------------------

def link(gates: list, outputs: list, text: str, mode: str, steps: dict) -> tuple[list[str], str]:
    """(problems, theorem) of the step link for the circuit (kernel form) and a bench section."""
    import hashlib
    section = {"file": "t.bench", "format": "bench", "mode": mode, "text": text, "steps": steps,
               "sha256": hashlib.sha256(text.encode()).hexdigest()}
    ctx = Context({"netlist": section}, Options(solver_trust=False))
    ctx.circuit = load_circuit({"gates": gates, "outputs": outputs}, "$.circuit")
    try:
        problems, theorem = step_report(ctx)
    except Malformed as exc:  # a false step is a rejection at its path (rules.run_checks)
        return [str(exc)], ""
    return [str(p) for p in problems], theorem


def netlist_values(text: str, x: list) -> list:
    """The bench netlist's gate-wise multilinear values at x (its gates in file order here)."""
    lines = text.splitlines()
    ports = {kind: [t[len(kind) + 1:-1] for t in lines if t.startswith(kind + "(")] for kind in ("INPUT", "OUTPUT")}
    v = dict(zip(ports["INPUT"], map(Fraction, x)))

    def prod(terms: list) -> Fraction:
        out = Fraction(1)
        for t in terms:
            out *= t
        return out
    for line in (t for t in lines if "=" in t):
        name, rest = (t.strip() for t in line.split("="))
        op, args = rest[:rest.index("(")], [a.strip() for a in rest[rest.index("(") + 1:-1].split(",") if a.strip()]
        a = [v[n] for n in args]
        v[name] = {"NOT": lambda: 1 - a[0], "BUFF": lambda: a[0], "CONST1": lambda: Fraction(1),
                   "CONST0": lambda: Fraction(0), "AND": lambda: prod(a), "NOR": lambda: prod([1 - t for t in a]),
                   "XOR": lambda: (1 - prod([1 - 2 * t for t in a])) / 2}[op]()
    return [v[o] for o in ports["OUTPUT"]]


# C: a, b, 1, -1, -a, 1 - a, -2, ab, -2ab, a + b - 2ab, 0
PLAIN_GATES = [["input", 0], ["input", 1], ["const", "1"], ["const", "-1"], ["mul", [3, 0]], ["add", [2, 4]],
               ["const", "-2"], ["mul", [0, 1]], ["mul", [6, 7]], ["add", [0, 1, 8]], ["const", "0"]]
PLAIN = ("INPUT(a)\nINPUT(b)\nOUTPUT(n)\nOUTPUT(f)\nOUTPUT(one)\nOUTPUT(zero)\nOUTPUT(a)\nOUTPUT(x)\n"
         "n = NOT(a)\nf = BUFF(b)\none = CONST1()\nzero = CONST0()\nx = XOR(a, b)\n")
PLAIN_STEPS = {"n": [], "f": [], "one": [], "zero": [], "x": [[0, 1, [0, 1, 9]]]}


def test_not_buff_constants_and_an_input_output_exact_mode() -> None:
    outputs = [5, 1, 2, 10, 0, 9]
    problems, theorem = link(PLAIN_GATES, outputs, PLAIN, "exact", PLAIN_STEPS)
    assert not problems and "all of R^2" in theorem, problems
    for x in itertools.product([0, 1, Fraction(1, 3), -2], repeat=2):
        assert run_circuit({"gates": PLAIN_GATES, "outputs": outputs}, list(x)) == netlist_values(PLAIN, list(x))


@pytest.mark.parametrize("outputs,steps", [
    ([0, 1, 2, 10, 0, 9], PLAIN_STEPS),  # NOT read as a: its literal is 1 - a
    ([5, 1, 10, 10, 0, 9], PLAIN_STEPS),  # CONST1 read as 0
    ([5, 1, 2, 10, 0, 9], {**PLAIN_STEPS, "x": [[0, 1, [1, 1, 9]]]}),  # the step's c off by one
    ([5, 1, 2, 10, 0, 9], {**PLAIN_STEPS, "x": [[0, 1, [0, -1, 9]]]}),  # its b
    ([5, 1, 2, 10, 0, 9], {**PLAIN_STEPS, "n": [[0, 0, [0, 1, 5]]]}),  # a NOT with a step
    ([5, 1, 2, 10, 0, 9], {k: v for k, v in PLAIN_STEPS.items() if k != "one"}),  # an output without steps
])
def test_a_false_plain_link_is_rejected(outputs: list, steps: dict) -> None:
    problems, theorem = link(PLAIN_GATES, outputs, PLAIN, "exact", steps)
    assert problems and not theorem


# C: a, b, 2, -1, -a, -b, 2 - a - b, sign(2 - a - b), 1, -sign(..), 1 - sign(2 - a - b), a + b, sign(a + b), ...
SIGN_GATES = [["input", 0], ["input", 1], ["const", "2"], ["const", "-1"], ["mul", [3, 0]], ["mul", [3, 1]],
              ["add", [2, 4, 5]], ["sign", [6]], ["const", "1"], ["mul", [3, 7]], ["add", [8, 9]], ["add", [0, 1]],
              ["sign", [11]], ["mul", [3, 12]], ["add", [8, 13]]]
SIGNS = "INPUT(a)\nINPUT(b)\nOUTPUT(y)\nOUTPUT(z)\ny = AND(a, b)\nz = NOR(a, b)\n"
SIGN_STEPS = {"y": ["sign", [1, -1, 7]], "z": ["sign", [0, 1, 12]]}


def test_sign_forms_with_either_b_threshold_mode() -> None:
    """y = 1 − sign(2 − a − b) (b = −1: b·A = a + b − 2 = S), z = NOR = 1 − sign(a + b)."""
    problems, theorem = link(SIGN_GATES, [10, 14], SIGNS, "threshold", SIGN_STEPS)
    assert not problems and "{0,1}^2" in theorem, problems
    for x in itertools.product([0, 1], repeat=2):
        assert run_circuit({"gates": SIGN_GATES, "outputs": [10, 14]}, list(x)) == netlist_values(SIGNS, list(x))


@pytest.mark.parametrize("mode,steps", [
    ("exact", SIGN_STEPS),  # no sign form in exact mode
    ("threshold", {**SIGN_STEPS, "y": ["sign", [1, 1, 7]]}),  # b·A = −S: λ < 0
    ("threshold", {**SIGN_STEPS, "z": ["sign", [1, 1, 12]]}),  # an OR's sign form has c = 0
    ("threshold", {**SIGN_STEPS, "z": ["sign", [0, 1, 7]]}),  # the AND's sign gate for the NOR
])
def test_a_false_sign_form_is_rejected(mode: str, steps: dict) -> None:
    problems, theorem = link(SIGN_GATES, [10, 14], SIGNS, mode, steps)
    assert problems and not theorem


@pytest.mark.parametrize("literal,ok", [([1], True), ([0], False)])
def test_a_constant_sign_form(literal: list, ok: bool) -> None:
    """AND(k, k) of CONST1 k: S = 1 + 1 − 2 = 0, so the literal is the constant 1 + sign(0) = 1."""
    text = "INPUT(a)\nOUTPUT(y)\nk = CONST1()\ny = AND(k, k)\n"
    problems, theorem = link([["input", 0], ["const", "1"]], [1], text, "threshold", {"k": [], "y": ["sign", literal]})
    assert (not problems and bool(theorem)) is ok, problems


def test_a_netlist_of_no_input() -> None:
    problems, theorem = link([["const", "0"]], [0], "OUTPUT(z)\nz = CONST0()\n", "exact", {"z": []})
    assert not problems and "all of R^0" in theorem, problems
    assert link([["const", "1"]], [0], "OUTPUT(z)\nz = CONST0()\n", "exact", {"z": []})[0]
