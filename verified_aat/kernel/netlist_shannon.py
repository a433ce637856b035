"""What a BLIF cover means in the candidate link (docs/soundness.md N): the OR of its cubes by Shannon expansion."""

from __future__ import annotations

from typing import Any, Callable

from .data import Number
from .sparse_poly import TooLarge

MAX_SHANNON = 10_000_000  # cube characters copied into the distinct cofactors of one cover (one shared count)


def shannon(cubes: frozenset[str], b: list[Any], affine: Callable[[Number, list[tuple[Number, Any]]], Any],
             product: Callable[[list[Any]], Any], neg: Callable[[Any], Any], memo: dict[Any, Any]) -> Any:
    """The OR of ``cubes`` by docs/soundness.md N's Shannon expansion; no cube is 0, an unbound cube is 1."""
    if cubes in memo:
        return memo[cubes]
    work = memo.setdefault(None, [0])  # every cofactor is a copy of its cubes: 800 of 50 inputs in each of 60,000
    work[0] += sum(map(len, cubes))    # distinct cofactors took 93 s and 5 GB (red team, round 4)
    if work[0] > MAX_SHANNON:
        raise TooLarge(f"a cover whose cofactors hold more than {MAX_SHANNON} cube characters")
    if not cubes or any(set(c) == {"-"} for c in cubes):
        result = affine(int(bool(cubes)), [])
    else:
        i = min(next(k for k, ch in enumerate(c) if ch != "-") for c in cubes)
        half = [frozenset(c[:i] + "-" + c[i + 1:] for c in cubes if c[i] != other) for other in "01"]
        high, low = (shannon(h, b, affine, product, neg, memo) for h in half)  # f|b_i=1, f|b_i=0
        result = high if half[0] == half[1] else \
            affine(0, [(1, product([b[i], high])), (1, product([neg(b[i]), low]))])
    memo[cubes] = result
    return result
