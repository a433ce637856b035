"""How the netlist link (``netlist_link.py``) decides a lemma over {0,1}^k: a lemma is a node listing (``v``
variable, ``y`` operand, ``n`` numeral, ``+`` affine sum, ``mul``, ``sign``); ``netlist_smt.py`` states one to the
solvers."""

from __future__ import annotations

from typing import Any

from .data import Number

Node = tuple[Any, ...]


def agree(order: list[Node], k: int, lhs: int, rhs: int, budget: int) -> bool:
    """Whether both sides (over the y only) are equal at every y ∈ {0,1}^k, by branch and bound: a branch fixes
    the first y's, and where both sides are one and the same number over it (:func:`bounds`) it holds at all
    its points.  False: the sides differ at a point, or more than ``budget`` branches are open."""
    stack: list[tuple[int, ...]] = [()]
    while stack:
        bits, budget = stack.pop(), budget - 1
        values = bounds(order, bits)
        if not values[lhs][0] == values[lhs][1] == values[rhs][0] == values[rhs][1]:
            if len(bits) == k or budget < 0:
                return False
            stack += [bits + (0,), bits + (1,)]
    return True


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
