"""How the netlist link (``netlist_link.py``) evaluates a lemma on {0,1}^k: a lemma is a node listing (``v``
variable, ``y`` operand, ``n`` numeral, ``+`` affine sum, ``mul``, ``sign``); ``netlist_smt.py`` states one to the
solvers."""

from __future__ import annotations

import math
from typing import Any

from .data import Number

Node = tuple[Any, ...]


def evaluate(order: list[Node], bits: tuple[int, ...], lhs: int, rhs: int) -> bool:
    """Whether both sides (over the y only) are equal at y = bits, computed exactly."""
    values: list[Number] = []
    for item in order:
        if item[0] in ("y", "n"):
            values.append(bits[item[1]] if item[0] == "y" else item[1])
        elif item[0] == "+":
            values.append(item[1] + sum(c * values[m] for m, c in item[2]))
        elif item[0] == "mul":
            values.append(math.prod(values[m] for m in item[1]))
        else:
            values.append((values[item[1][0]] > 0) - (values[item[1][0]] < 0))
    return values[lhs] == values[rhs]
