"""Hypothesis strategies for small random transformers and sequences (shared by the engine tests)."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import strategies as st

from verified_aat.circuits.builder import CircuitBuilder
from verified_aat.circuits.ir import Circuit
from verified_aat.transformer.model import (BilinearScore, CircuitScore, Head, Layer, Pooling, Transformer,
                                            activation_input_names, score_input_names)

HARD = [Pooling.AVERAGE, Pooling.LEFTMOST, Pooling.RIGHTMOST]
SMALL = [Fraction(v) for v in ("-2", "-1", "0", "1", "2", "1/2", "-3/4")]
INTEGERS = [Fraction(v) for v in (-2, -1, 0, 1, 2, 3)]


@st.composite
def circuits(draw: st.DrawFn, inputs: list[str], n_outputs: int, constants: list[Fraction] = SMALL,
             max_gates: int = 6, allow_sign: bool = True, name: str = "circuit", score: bool = False) -> Circuit:
    """A random circuit with ``inputs`` named as given; outputs drawn from its gates."""
    b = CircuitBuilder(name)
    pool = b.inputs(inputs)
    kinds = ["add", "mul", "const"] + (["sign"] if allow_sign else [])
    for _ in range(draw(st.integers(0, max_gates))):
        kind = draw(st.sampled_from(kinds))
        if kind == "const":
            pool.append(b.const(draw(st.sampled_from(constants))))
        elif kind == "sign":
            pool.append(b.sign(draw(st.sampled_from(pool))))
        else:
            args = draw(st.lists(st.sampled_from(pool), min_size=2 if kind == "mul" else 0, max_size=3))
            pool.append(b.add(*args) if kind == "add" else b.mul(*args))
    if score and draw(st.booleans()):
        # often add −(i.c − j.c′)², so that argmax sets are neither everything nor random
        half = len(inputs) // 2
        diff = b.sub(pool[draw(st.integers(0, half - 1))], pool[half + draw(st.integers(0, half - 1))])
        pool.append(b.add(pool[-1], b.neg(b.square(diff))))
        b.output(pool[-1])
        return b.build()
    for k in range(n_outputs):
        # the last gate first, so that circuits usually use what they build
        b.output(pool[-1] if k == 0 and draw(st.booleans()) else draw(st.sampled_from(pool)))
    return b.build()


@st.composite
def transformers(draw: st.DrawFn, poolings: list[Pooling] = HARD, constants: list[Fraction] = SMALL,
                 allow_sign: bool = True, allow_bilinear: bool = True, max_layers: int = 3) -> Transformer:
    """1–``max_layers`` layers of 1–2 heads over d ≤ 4 coordinates; score circuits are often shared."""
    d = draw(st.integers(1, 4))
    coords = tuple(f"c{k}" for k in range(d))
    shared = [draw(circuits(score_input_names(coords), 1, constants, 6, allow_sign, f"s{k}", True)) for k in range(2)]
    layers = []
    for number in range(draw(st.integers(1, max_layers))):
        heads = []
        for h in range(draw(st.integers(1, 2))):
            choice = draw(st.sampled_from(["shared0", "shared1", "fresh", "bilinear"] if allow_bilinear
                                          else ["shared0", "shared1", "fresh"]))
            if choice == "bilinear":
                matrix = tuple(tuple(draw(st.sampled_from(constants[:5])) for _ in coords) for _ in coords)
                score: CircuitScore | BilinearScore = BilinearScore(matrix)
            elif choice == "fresh":
                score = CircuitScore(draw(circuits(score_input_names(coords), 1, constants, 6, allow_sign, "s", True)))
            else:
                score = CircuitScore(shared[int(choice[-1])])
            heads.append(Head(f"h{h}", score, draw(st.sampled_from(poolings))))
        names = activation_input_names(coords, [h.name for h in heads])
        act = draw(circuits(names, d, constants, 8, allow_sign, f"act{number}"))
        layers.append(Layer(tuple(heads), act, f"L{number}"))
    return Transformer(coords, tuple(layers), "random")


def sequences(d: int, values: list[Fraction] = SMALL, max_len: int = 6) -> st.SearchStrategy[list[list[Fraction]]]:
    return st.lists(st.lists(st.sampled_from(values), min_size=d, max_size=d), min_size=1, max_size=max_len)
