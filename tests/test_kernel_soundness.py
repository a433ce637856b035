"""Random attacks on the kernel: whatever it accepts must be true.

Random mutations of the constructions' transformers (a constant, an argument, an operation,
a pooling rule, a layer) are turned into fully consistent certificates by the forger
(``forge.py``: every lemma claimed proved).  The property: if the kernel ACCEPTS, the
transformer really computes C — checked independently by the exact engine
(``transformer/exact_engine.py``, which the kernel shares no code with) on seeded rational
inputs.  Rejections are allowed (most mutants are wrong); an acceptance of a wrong
transformer would be a soundness bug.  Harmless mutants (the kernel accepts and the engine
agrees) show the property is not vacuous.
"""

from __future__ import annotations

import copy
import random
from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mutants
from forge import Forgery, forge, verdict
from verified_aat.certificates.kernel_form import transformer_form
from verified_aat.circuits.evaluate import evaluate
from verified_aat.circuits.ir import Circuit, Gate, Kind
from verified_aat.constructions.registry import get_construction
from verified_aat.transformer.exact_engine import run_exact
from verified_aat.transformer.model import BilinearScore, CircuitScore, Head, Layer, Pooling, Transformer

CASES = {"gate-edge": mutants.probe_circuit(), "unique-hard": mutants.probe_fnc_circuit(),
         "edge-only": mutants.probe_circuit(), "gate-edge-dot": mutants.probe_fnc_circuit(),
         "edge-k": mutants.probe_circuit()}


def engine_circuit(structure: dict) -> Circuit:
    gates = []
    for op, arg in structure["gates"]:
        if op == "input":
            gates.append(Gate(Kind.INPUT, index=arg))
        elif op == "const":
            gates.append(Gate(Kind.CONST, value=Fraction(arg)))
        else:
            gates.append(Gate(Kind(op), tuple(arg)))
    return Circuit(tuple(gates), tuple(structure["outputs"]))


def engine_transformer(doc: dict) -> Transformer:
    """The kernel form back as the engine's model (to run it with the engine, not the kernel)."""
    d = len(doc["coordinates"])
    functions = [engine_circuit(f) for f in doc["functions"]]
    layers = []
    for layer in doc["layers"]:
        heads = []
        for h in layer["heads"]:
            if isinstance(h["score"], int):
                score = CircuitScore(functions[h["score"]])
            else:
                matrix = [[Fraction(0)] * d for _ in range(d)]
                for r, c, q in h["score"]["bilinear"]:
                    matrix[r][c] = Fraction(q)
                score = BilinearScore(tuple(tuple(row) for row in matrix))
            heads.append(Head(h["name"], score, Pooling(h["pooling"])))
        layers.append(Layer(tuple(heads), functions[layer["activation"]]))
    return Transformer(tuple(doc["coordinates"]), tuple(layers))


def mutate(doc: dict, rng: random.Random) -> dict:
    doc = copy.deepcopy(doc)
    kind = rng.choice(["const", "arg", "op", "pooling", "layer", "const", "arg"])
    if kind == "pooling":
        heads = [h for layer in doc["layers"] for h in layer["heads"]]
        if heads:
            rng.choice(heads)["pooling"] = rng.choice(["average", "leftmost", "rightmost"])
        return doc
    if kind == "layer":
        layers = doc["layers"]
        k = rng.randrange(len(layers))
        if rng.random() < 0.5 and len(layers) > 1:
            del layers[k]
        else:
            layers.insert(k, copy.deepcopy(layers[k]))
        return doc
    function = rng.choice(doc["functions"])
    gates = function["gates"]
    candidates = [g for g, (op, _) in enumerate(gates) if (op == "const") == (kind == "const") and op != "input"]
    if not candidates:
        return doc
    g = rng.choice(candidates)
    op, arg = gates[g]
    if kind == "const":
        gates[g] = ["const", str(Fraction(arg) + rng.choice([-1, 1, Fraction(1, 2)]))]
    elif kind == "arg" and g > 0 and arg:
        arg = list(arg)
        arg[rng.randrange(len(arg))] = rng.randrange(g)
        gates[g] = [op, arg]
    elif kind == "op" and len(arg) >= 2:
        gates[g] = ["mul" if op == "add" else "add", arg]
    return doc


def engine_agrees(circuit: Circuit, construction: str, doc: dict, rng: random.Random) -> bool:
    T = engine_transformer(doc)
    encoding = get_construction(construction).encode(circuit)
    for _ in range(6):
        x = [Fraction(rng.randint(-5, 5), rng.randint(1, 3)) for _ in range(circuit.n_inputs)]
        out = run_exact(T, encoding.instantiate(x)).outputs
        if tuple(out[p][c] for p, c in encoding.readout) != tuple(evaluate(circuit, x)):
            return False
    return True


ACCEPTED_HARMLESS: list[str] = []


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(construction=st.sampled_from(sorted(CASES)), seed=st.integers(0, 10 ** 6))
def test_whatever_the_kernel_accepts_is_true(construction, seed):
    rng = random.Random(seed)
    circuit = CASES[construction]
    honest = transformer_form(get_construction(construction).compile(circuit).transformer)
    doc = mutate(honest, rng)
    report = verdict(forge(Forgery(circuit, doc, construction=construction)), defence_budget=0)
    if report.accepted:
        assert engine_agrees(circuit, construction, doc, rng), (construction, seed, doc != honest)
        ACCEPTED_HARMLESS.append(construction)
    else:
        assert report.rejections or report.unchecked


def test_the_random_attack_is_not_vacuous():
    rng = random.Random(1)
    circuit = CASES["gate-edge"]
    honest = transformer_form(get_construction("gate-edge").compile(circuit).transformer)
    verdicts = {verdict(forge(Forgery(circuit, mutate(honest, rng))), defence_budget=0).outcome for _ in range(25)}
    assert verdicts == {"accepted", "rejected"}
