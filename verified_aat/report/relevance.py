"""Which rows of a head's heat-map cannot matter: positions whose activation provably ignores the head.

The head's pooled vector at position p is read only by p's own activation.  Fix the
structural coordinates of p (its encoded values: its kind, its operands) and fold the
activation circuit over exact rationals, treating every other coordinate and every head's
output as unknown; if no output of the folded circuit still depends on this head's inputs,
the attention at p cannot affect the result, for every input x.  Folding is sound, not
complete (``x - x`` is not noticed), so a row is greyed only when it provably does not matter.

The encoded structural values hold at every layer only if every layer keeps them; that is
checked by the same folding (each structural output must fold to its own input or to the
encoded value), else nothing is greyed and the page says why.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..circuits.ir import Circuit, Kind
from ..constructions.encoding import Encoding
from ..transformer.model import Layer, Transformer

FEW_VALUES = 64
"""On long sequences only structural coordinates with at most this many distinct values are fixed
(an operand index has one per gate); fewer fixed coordinates only grey fewer rows."""
SHORT = 300
"""Sequences up to this length fix every structural coordinate."""
FOLD_WORK = 10**7
"""Activation gates folded for one page (layer functions × distinct structural rows × (heads + 1) foldings); past it
nothing is greyed: 64 heads over 300 distinct rows folded each activation 19,500 times per layer function (red team,
round 12)."""

@dataclass(frozen=True)
class Relevance:
    """Per layer function number and head name: per position, True if the head's result there is ignored."""

    ignored: dict[tuple[int, str], tuple[bool, ...]]
    note: str  # why nothing is greyed, when it is not


def fold(circuit: Circuit, fixed: dict[int, Fraction], watched: set[int]) -> list[tuple[Any, Any, bool]]:
    """Per output of ``circuit``: (its value if constant, the input it equals if it is one, whether it
    depends on an input in ``watched``), with the inputs in ``fixed`` set to their values."""
    vals: list[tuple[Any, Any, bool]] = []
    for gate in circuit.gates:
        if gate.kind is Kind.INPUT:
            i = gate.index
            vals.append((fixed[i], None, False) if i in fixed else (None, i, i in watched))
        elif gate.kind is Kind.CONST:
            vals.append((gate.value, None, False))
        elif gate.kind is Kind.SIGN:
            q, _, dep = vals[gate.args[0]]
            vals.append(((q > 0) - (q < 0), None, False) if q is not None else (None, None, dep))
        else:
            args = [vals[a] for a in gate.args]
            known = [v[0] for v in args if v[0] is not None]
            unknown = [v for v in args if v[0] is None]
            if gate.kind is Kind.MUL:
                if any(q == 0 for q in known):
                    vals.append((Fraction(0), None, False))
                    continue
                c = Fraction(1)
                for q in known:
                    c *= q
                neutral = c == 1
            else:
                c = sum(known, Fraction(0))
                neutral = c == 0
            if not unknown:
                vals.append((c, None, False))
            elif len(unknown) == 1 and neutral:
                vals.append(unknown[0])
            else:
                vals.append((None, None, any(v[2] for v in unknown)))
    return [vals[o] for o in circuit.outputs]


def head_relevance(transformer: Transformer, encoding: Encoding, structural: tuple[str, ...],
                   functions: list[Any]) -> Relevance:
    """The ignored rows of every head of every distinct layer function (``symbolic.obligations.layer_functions``)."""
    d = transformer.dimension
    coords = [transformer.coordinates.index(c) for c in structural if c in transformer.coordinates]
    rows = encoding.rows
    if len(rows) > SHORT:
        coords = [c for c in coords if len({row[c] for row in rows}) <= FEW_VALUES]
    if not coords:
        return Relevance({}, "no structural coordinate to fix")
    keys = [tuple(row[c] for c in coords) for row in rows]
    distinct = list(dict.fromkeys(keys))
    ignored: dict[tuple[int, str], tuple[bool, ...]] = {}
    if sum(len(fn.layer.activation.gates) * (1 + len(fn.layer.heads)) for fn in functions) * len(distinct) > FOLD_WORK:
        return Relevance({}, f"the activations are too large to fold at every distinct row ({FOLD_WORK:,} gates)")
    for fn in functions:
        layer: Layer = fn.layer
        by_key: dict[tuple[Any, ...], list[bool]] = {}
        for key in distinct:
            fixed = {c: Fraction(v) for c, v in zip(coords, key)}
            if not _keeps_structure(layer.activation, fixed, coords):
                return Relevance({}, f"layer {fn.layers[0]} may change a structural coordinate, so the encoded "
                                     f"layout is not known at later layers")
            by_key[key] = [not any(out[2] for out in fold(layer.activation, fixed, set(range(d * (1 + h),
                                                                                           d * (2 + h)))))
                           for h in range(len(layer.heads))]
        for h, head in enumerate(layer.heads):
            ignored[(fn.number, head.name)] = tuple(by_key[k][h] for k in keys)
    return Relevance(ignored, "")


def _keeps_structure(activation: Circuit, fixed: dict[int, Fraction], coords: list[int]) -> bool:
    """Every fixed structural coordinate's output folds to its fixed value, whatever the other coordinates hold."""
    folded = fold(activation, fixed, set())
    return all(folded[c][0] == fixed[c] for c in coords)
