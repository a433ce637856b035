"""Regenerate the hand-written example transformers: ``python specs/transformers/make_specs.py``.

Each is written here with the circuit builder and saved with :func:`verified_aat.transformer.spec.save_transformer`
(byte-stable: the same transformer always gives the same file).
"""

from fractions import Fraction
from pathlib import Path

from verified_aat.circuits.builder import CircuitBuilder
from verified_aat.transformer.model import (BilinearScore, CircuitScore, Head, Layer, Pooling, Transformer,
                                            activation_input_names, score_input_names)
from verified_aat.transformer.spec import save_transformer

HERE = Path(__file__).resolve().parent
COORDS = ("k", "v", "w")


def _closeness(coordinate: int, name: str) -> CircuitScore:
    """−(i.c − j.c)²: largest (0) where the two positions agree on coordinate c."""
    s = CircuitBuilder(name)
    x = s.inputs(score_input_names(COORDS))   # i.k i.v i.w j.k j.v j.w
    s.output(s.neg(s.square(s.sub(x[coordinate], x[3 + coordinate]))))
    return CircuitScore(s.build())


def mixed_pooling() -> Transformer:
    """One layer with an average, a leftmost and a rightmost head, an activation with a product of fan-in 3
    (binarised in U_N) and a sign; a second layer averaging again."""
    product = CircuitBuilder("act_mixed")
    y = product.inputs(activation_input_names(COORDS, ["avg", "left", "right"]))
    # x.k x.v x.w | avg.k avg.v avg.w | left.k left.v left.w | right.k right.v right.w
    product.output(y[0])
    product.output(product.add(y[4], product.sign(product.sub(y[8], y[11]))))     # avg.v + sign(left.w − right.w)
    product.output(product.mul(y[4], y[7], y[10]))                               # avg.v · left.v · right.v
    s = CircuitBuilder("lead")
    x = s.inputs(score_input_names(COORDS))
    s.output(s.mul(x[1], x[4]))                                                   # i.v · j.v
    second = CircuitBuilder("act_second")
    z = second.inputs(activation_input_names(COORDS, ["mean"]))
    second.output(z[0])
    second.output(z[1])
    second.output(second.add(z[2], second.mul(second.const(Fraction(1, 2)), z[5])))  # w + ½·mean.w
    return Transformer(COORDS, (
        Layer((Head("avg", _closeness(0, "same_k"), Pooling.AVERAGE),
               Head("left", CircuitScore(s.build()), Pooling.LEFTMOST),
               Head("right", _closeness(2, "same_w"), Pooling.RIGHTMOST)), product.build(), "mixed"),
        Layer((Head("mean", _closeness(1, "same_v"), Pooling.AVERAGE),), second.build(), "smooth")),
        "mixed-pooling")


def bilinear_scores() -> Transformer:
    """Every score a bilinear form i·A·j (sparse; fractions and negative entries), all three poolings."""
    q = Fraction
    first = BilinearScore(((q(0), q(1), q(0)), (q(0), q(0), q(0)), (q(0), q(0), q(-1, 2))))  # i.k·j.v − ½·i.w·j.w
    second = BilinearScore(((q(2), q(0), q(0)), (q(0), q(1), q(0)), (q(0), q(0), q(0))))      # 2·i.k·j.k + i.v·j.v
    third = BilinearScore(((q(0), q(0), q(0)), (q(0), q(0), q(0)), (q(3), q(0), q(-1))))      # 3·i.w·j.k − i.w·j.w
    a1 = CircuitBuilder("act_bilinear")
    y = a1.inputs(activation_input_names(COORDS, ["left", "avg"]))
    # x.k x.v x.w | left.k left.v left.w | avg.k avg.v avg.w
    a1.output(y[0])
    a1.output(a1.add(y[7], y[5]))                                                 # avg.v + left.w
    a1.output(a1.add(y[2], a1.mul(y[4], y[8])))                                   # w + left.v · avg.w
    a2 = CircuitBuilder("act_last")
    z = a2.inputs(activation_input_names(COORDS, ["right"]))
    a2.output(z[0])
    a2.output(a2.sub(z[1], z[4]))                                                 # v − right.v
    a2.output(z[2])
    return Transformer(COORDS, (
        Layer((Head("left", first, Pooling.LEFTMOST), Head("avg", second, Pooling.AVERAGE)), a1.build(), "pair"),
        Layer((Head("right", third, Pooling.RIGHTMOST),), a2.build(), "last")), "bilinear-scores")


if __name__ == "__main__":
    for name, build in (("mixed_pooling", mixed_pooling), ("bilinear_scores", bilinear_scores)):
        path = HERE / f"{name}.json"
        save_transformer(build(), path, notes=" ".join((build.__doc__ or "").split()))
        print(path)
