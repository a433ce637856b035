"""A BLIF cover in the link by binary steps (docs/soundness.md N′): the sum of disjoint cubes with the rows' union,
each cube a fold of AND steps; on {0,1}ᵏ the sum is the rows' OR, and it is multilinear, so it is the cover's
multilinear polynomial."""

from __future__ import annotations

from typing import Any

from .data import Gate, as_list, need, within
from .netlist_form import NGate
from .netlist_steps import STEP, _expand, _fold, _not, _parts, _wires
from .sparse_poly import Poly, add

MAX_CUBES = 10_000
MAX_COVER_WORK = 10_000_000  # cube characters compared (pairs of disjoint cubes, cubes against rows)


def cover(gate: NGate, xs: list[Poly], entry: Any, gates: list[Gate], where: str) -> Poly:
    need(type(entry) is list and len(entry) == 4 and entry[0] == "cover", where,
         "a cover takes [\"cover\", cubes, folds, sum]")
    k, rows = len(gate.args), gate.cubes
    cubes = as_list(entry[1], where + "[1]", MAX_CUBES)
    need(all(type(d) is str and len(d) == k and not set(d) - set("01-") for d in cubes), where + "[1]",
         "a cube is a string over 0, 1, - with one character per operand")
    within(len(cubes) * (len(cubes) + len(rows)) * k <= MAX_COVER_WORK, where, "a cover too large to compare")
    need(not any(_meet(d, e) for i, d in enumerate(cubes) for e in cubes[:i]), where + "[1]", "two cubes meet")
    need(all(any(all(b in ("-", a) for a, b in zip(d, r)) for r in rows) for d in cubes), where + "[1]",
         "a cube is not inside a row")
    for r in rows:  # the cubes are disjoint: their parts inside r have 2^(free places of r) points in all iff r ⊆ ∪ cubes
        parts = sum(2 ** sum(a == b == "-" for a, b in zip(d, r)) for d in cubes
                    if _meet(d, r))
        need(parts == 2 ** r.count("-"), where + "[1]", "the cubes do not cover row {r}", r=r)
    folds = as_list(entry[2], where + "[2]", MAX_CUBES, size=False)
    need(len(folds) == len(cubes), where + "[2]", "one fold per cube")
    roots = [_fold(STEP["AND"], [x if a == "1" else _not(x) for a, x in zip(d, xs) if a != "-"], f, gates,
                   f"{where}[2][{n}]") for n, (d, f) in enumerate(zip(cubes, folds))]
    total: Poly = {}
    for r in roots:
        add(total, r)
    c, b, w = _parts(entry[3], where + "[3]", len(gates))
    got = add({(): c} if c else {}, _expand(w, gates, _wires(roots), where + "[3]"), b) if w is not None else \
        ({(): c} if c else {})
    need(got == total, where + "[3]", "the sum's literal is not the sum of the cubes")
    s = total if w is None else add({(): c} if c else {}, {(w,): 1}, b)
    return s if gate.polarity == 1 else _not(s)


def _meet(d: str, e: str) -> bool:
    return all("-" in ab or ab[0] == ab[1] for ab in zip(d, e))
