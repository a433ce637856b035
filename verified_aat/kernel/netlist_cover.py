"""A BLIF cover in the link by binary steps (docs/soundness.md N′): the sum of disjoint cubes with the rows' union,
each cube a fold of AND steps; on {0,1}ᵏ the sum is the rows' OR, and it is multilinear, so it is the cover's
multilinear polynomial."""

from __future__ import annotations

from typing import Any, Callable

from .data import as_list, need, within
from .netlist_form import NGate
from .sparse_poly import Poly, add

MAX_CUBES = 10_000
MAX_COVER_WORK = 10_000_000  # cube characters compared (pairs of disjoint cubes, cubes against rows), all covers'


def cover(gate: NGate, xs: list[Poly], entry: Any, where: str, fold: Callable[[list[Poly], Any, str], Poly],
          literal: Callable[[Any, str, list[Poly]], tuple[Poly, Poly | None]], work: list[int]) -> Poly:
    """The cover's literal: ``fold`` an AND fold of steps (``netlist_steps._fold``), ``literal`` a literal read
    with its wire expanded over the wires of the given polynomials (``netlist_steps._literal``)."""
    def neg(x: Poly) -> Poly:
        return add({(): 1}, x, -1)
    need(type(entry) is list and len(entry) == 4 and entry[0] == "cover", where,
         "a cover takes [\"cover\", cubes, folds, sum]")
    k, rows = len(gate.args), gate.cubes
    cubes = as_list(entry[1], where + "[1]", MAX_CUBES)
    need(all(type(d) is str and len(d) == k and not set(d) - set("01-") for d in cubes), where + "[1]",
         "a cube is a string over 0, 1, - with one character per operand")
    work[0] += len(cubes) * (len(cubes) + len(rows)) * k  # in all: 10⁷ a gate let a section of many cost hours
    within(work[0] <= MAX_COVER_WORK, where, "the section's covers too large to compare (their cubes' pairs, in all)")
    need(not any(_meet(d, e) for i, d in enumerate(cubes) for e in cubes[:i]), where + "[1]", "two cubes meet")
    need(all(any(all(b in ("-", a) for a, b in zip(d, r)) for r in rows) for d in cubes), where + "[1]",
         "a cube is not inside a row")
    for r in rows:  # the cubes are disjoint: their parts inside r have 2^(free places of r) points in all iff r ⊆ ∪ cubes
        parts = sum(2 ** sum(a == b == "-" for a, b in zip(d, r)) for d in cubes
                    if _meet(d, r))
        need(parts == 2 ** r.count("-"), where + "[1]", "the cubes do not cover row {r}", r=r)
    folds = as_list(entry[2], where + "[2]", MAX_CUBES, size=False)
    need(len(folds) == len(cubes), where + "[2]", "one fold per cube")
    roots = [fold([x if a == "1" else neg(x) for a, x in zip(d, xs) if a != "-"], f, f"{where}[2][{n}]")
             for n, (d, f) in enumerate(zip(cubes, folds))]
    total: Poly = {}
    for root in roots:
        add(total, root)
    lit, value = literal(entry[3], where + "[3]", roots)
    need(value == total, where + "[3]", "the sum's literal is not the sum of the cubes")
    return lit if gate.polarity == 1 else neg(lit)


def _meet(d: str, e: str) -> bool:
    return all("-" in ab or ab[0] == ab[1] for ab in zip(d, e))
