"""docs/soundness.md N's branch and bound over y ∈ {0,1}^k: ``netlist_link.py`` enters it in threshold mode only."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from .data import Number
from .netlist_decide import Node, affine_literal, children

BRANCHES = 1 << 16            # branches of a threshold lemma over the y alone checked on {0,1}^k
BOUND_WORK = 2_000_000        # and node intervals computed for it in all (a few seconds)


def on_operands(order: list[Node], lhs: int, rhs: int, bs: list[int]) -> bool | None:
    """:func:`agree` on the lemma over the y alone (:func:`over_operands`); False only at a point where every
    hypothesis y_i = F_i holds (then a deeper cut may do), else None: not decided here."""
    sides = over_operands(order, lhs, rhs, bs)
    found = sides and agree(sides[0], len(bs), sides[1], sides[2], min(BRANCHES, BOUND_WORK // len(sides[0])), sides[3])
    return None if found is False and len(sides[3]) < len(bs) else found  # type: ignore[index]


def agree(order: list[Node], k: int, lhs: int, rhs: int, budget: int,
          hypotheses: Sequence[tuple[int, int]] = ()) -> bool | None:
    """Whether both sides (over the y only) are equal at every y ∈ {0,1}^k where each hypothesis y_i = node
    holds, by docs/soundness.md N's branch and bound over :func:`bounds`.  False: the sides differ at such a point
    (a leaf: every value exact); None: more than ``budget`` branches are open."""
    stack: list[tuple[int, ...]] = [()]
    while stack:
        bits, budget = stack.pop(), budget - 1
        values = bounds(order, bits)
        if any(values[n][0] > (bits[i] if i < len(bits) else 1) or values[n][1] < (bits[i] if i < len(bits) else 0)
               for i, n in hypotheses):
            continue  # y_i = F_i fails at every point of the branch
        if not values[lhs][0] == values[lhs][1] == values[rhs][0] == values[rhs][1]:
            if len(bits) == k or budget < 0:
                return False if len(bits) == k else None
            stack += [bits + (0,), bits + (1,)]
    return True


def over_operands(order: list[Node], lhs: int, rhs: int,
                  bs: list[int]) -> tuple[list[Node], int, int, list[tuple[int, int]]] | None:
    """The lemma over the y alone (docs/soundness.md N: v is (y_i − α)/β where F_i is α + β·v): the sides, and as
    hypotheses y_i = F_i each F_i then over the y alone.  None if a side has a v that no F_i is so."""
    solved: dict[int, tuple[int, Number, Number]] = {}  # v -> (i, α, β)
    for i, b in enumerate(bs):
        literal = affine_literal(order, order[b]) or (order[b], 0, 1)
        if literal[0][0] == "v":
            solved.setdefault(literal[0][1], (i, literal[1], literal[2]))
    out: list[Node] = []
    new: list[int] = []  # each node's place in out, -1 for a node over a v no F_i solves
    for item in order:
        kids = children(item)
        if item[0] == "v" and item[1] not in solved or any(new[m] < 0 for m in kids):
            new.append(-1)
            continue
        if item[0] == "v":
            i, alpha, beta = solved[item[1]]
            out += [("y", i), ("+", -Fraction(alpha) / beta, ((len(out), 1 / Fraction(beta)),))]
        elif item[0] == "+":
            out.append(("+", item[1], tuple((new[m], c) for m, c in item[2])))
        else:
            out.append((item[0], tuple(new[m] for m in kids)) if kids else item)
        new.append(len(out) - 1)
    if new[lhs] < 0 or new[rhs] < 0:
        return None
    return out, new[lhs], new[rhs], [(i, new[b]) for i, b in enumerate(bs) if new[b] >= 0]


def bounds(order: list[Node], bits: tuple[int, ...]) -> list[tuple[Number, Number]]:
    """Each node's exact [low, high] where y_i = bits[i] for the fixed y's and the others range over [0, 1]:
    sums and products by their end points, sign by the signs of the end points."""
    values: list[tuple[Number, Number]] = []
    for item in order:
        if item[0] == "n" or item[0] == "y" and item[1] < len(bits):
            values.append(((item[1] if item[0] == "n" else bits[item[1]]),) * 2)
        elif item[0] == "y":
            values.append((0, 1))
        elif item[0] == "+":
            low, high = item[1], item[1]
            for m, c in item[2]:
                ends = (c * values[m][0], c * values[m][1])
                low, high = low + min(ends), high + max(ends)
            values.append((low, high))
        elif item[0] == "mul":
            low, high = 1, 1
            for m in item[1]:
                ends = [x * y for x in (low, high) for y in values[m]]
                low, high = min(ends), max(ends)
            values.append((low, high))
        else:
            values.append(tuple((x > 0) - (x < 0) for x in values[item[1][0]]))  # type: ignore[arg-type]
    return values
