"""A synthetic gate/edge transformer (MATH.md §4.1) for engine tests and timing.

Independent of ``constructions/``: seven coordinates (type, a, b, val, sq, k,
one), a fetch layer and a gather layer repeated K times, and an activation
padded with live gates to a chosen size so that engine timings are
comparable to real constructions.
"""

from __future__ import annotations

import random
from fractions import Fraction

from verified_aat.circuits.builder import CircuitBuilder
from verified_aat.circuits.evaluate import evaluate_gates
from verified_aat.circuits.ir import Circuit, Kind
from verified_aat.transformer.model import (CircuitScore, Head, Layer, Pooling, Transformer,
                                            activation_input_names, score_input_names)

COORDS = ("type", "a", "b", "val", "sq", "k", "one")
EDGE, INPUT, CONST, ADD, MUL, SIGN = range(6)
CODES = tuple(range(6))
KIND_CODE = {Kind.INPUT: INPUT, Kind.CONST: CONST, Kind.ADD: ADD, Kind.MUL: MUL, Kind.SIGN: SIGN}


def _lagrange(b: CircuitBuilder, t: int, code: int) -> int:
    factors = [b.mul(b.add(t, b.const(-c)), b.const(Fraction(1, code - c))) for c in CODES if c != code]
    return b.product_tree(factors)


def _score(key: str, penalise_gate: bool) -> Circuit:
    """−(key_i − key_j)² − [j is an edge] (fetch) or − [j is a gate] (gather)."""
    b = CircuitBuilder(f"score_{key}")
    ins = dict(zip(score_input_names(COORDS), b.inputs(score_input_names(COORDS))))
    diff = b.sub(ins[f"i.{key}"], ins[f"j.{key}"])
    s = b.sign(ins["j.type"])
    penalty = b.mul(s, s) if penalise_gate else b.sub(ins["j.one"], b.mul(s, s))
    b.output(b.neg(b.add(b.square(diff), penalty)))
    return b.build()


def _activation(gather: bool, size: int) -> Circuit:
    b = CircuitBuilder("gather" if gather else "fetch")
    names = activation_input_names(COORDS, ["h"])
    ins = dict(zip(names, b.inputs(names)))
    x = {c: ins[f"x.{c}"] for c in COORDS}
    h = {c: ins[f"h.{c}"] for c in COORDS}
    sel = {code: _lagrange(b, x["type"], code) for code in CODES}
    if gather:
        m1, m2 = h["val"], h["sq"]
        cases = [(sel[ADD], b.mul(x["k"], m1)),
                 (sel[MUL], b.sub(b.scale(2, b.square(m1)), m2)),
                 (sel[SIGN], b.sign(m1))]
        val = x["val"]
        for selector, new in cases:
            val = b.add(val, b.mul(selector, b.sub(new, x["val"])))
        sq = b.square(val)
    else:
        val = b.add(x["val"], b.mul(sel[EDGE], b.sub(h["val"], x["val"])))
        sq = b.add(x["sq"], b.mul(sel[EDGE], b.sub(h["sq"], x["sq"])))
    zero = b.const(0)
    pad = x["one"]
    while b.n_gates < size - 3:  # live padding: a chain multiplied by 0 at the end
        pad = b.add(b.mul(pad, x["one"]), x["k"])
    val = b.add(val, b.mul(zero, pad))
    for c in COORDS:
        b.output({"val": val, "sq": sq}.get(c, x[c]), c)
    return b.build()


def transformer(levels: int, activation_size: int = 120) -> Transformer:
    fetch = Layer((Head("h", CircuitScore(_score("a", False)), Pooling.AVERAGE),), _activation(False, activation_size),
                  "fetch")
    gather = Layer((Head("h", CircuitScore(_score("b", True)), Pooling.AVERAGE),), _activation(True, activation_size),
                   "gather")
    return Transformer(COORDS, (fetch, gather) * levels, "synthetic-gate-edge")


def random_circuit(rng: random.Random, n_inputs: int, levels: int, width: int) -> Circuit:
    """A layered circuit of add/mul/sign gates whose values stay small."""
    b = CircuitBuilder("random")
    previous = b.inputs([f"x{i}" for i in range(n_inputs)]) + [b.const(Fraction(1, 2))]
    signs: list[int] = []
    for _ in range(levels):
        level = []
        for _ in range(width):
            kind = rng.choice(["add", "add", "mul", "sign"])
            if kind == "add":
                level.append(b.add(*rng.sample(previous, k=min(len(previous), rng.randint(1, 3)))))
            elif kind == "mul" and signs:
                level.append(b.mul(rng.choice(signs), rng.choice(previous)))
            else:
                level.append(b.sign(rng.choice(previous)))
        signs.extend(w for w in level if b.gate(w).kind is Kind.SIGN)
        previous = level
    for w in previous:
        b.output(w)
    return b.build()


def encode(circuit: Circuit, x: list[Fraction | int]) -> tuple[list[list[Fraction | int]], list[int]]:
    """enc(C, x) for the synthetic transformer and the positions of the gates."""
    values = evaluate_gates(circuit, x)
    rows: list[list[Fraction | int]] = []
    gate_position = []
    for g, gate in enumerate(circuit.gates):
        known = gate.kind in (Kind.INPUT, Kind.CONST)
        val = values[g] if known else 0
        gate_position.append(len(rows))
        rows.append([KIND_CODE[gate.kind], g, g, val, val * val, gate.fan_in, 1])
        for src in gate.args:
            rows.append([EDGE, src, g, 0, 0, 0, 1])
    return rows, gate_position


def expected(circuit: Circuit, x: list[Fraction | int]) -> list[Fraction | int]:
    return evaluate_gates(circuit, x)
