"""Attention obligations: argmax sets from the transformer's own scores.

A construction claims a key decomposition of each score (:class:`ScoreHint`).
The claim is proven once per score function as an SMT lemma; then the
argmax set of every position follows from concrete keys by a join over the
sorted column keys, in time near-linear in the sequence length.  Argmax sets
with equal content are shared (one list object), which keeps huge fan-ins
from costing quadratic memory.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

from ..circuits.evaluate import compile_circuit
from ..circuits.ir import Circuit
from ..circuits.smtlib import LOGIC, SGN_DEFINITION, circuit_term, numeral, smt_symbol
from ..constructions.base import ScoreHint
from ..transformer.model import CircuitScore, Score, score_input_names
from .analysis import reads_of


def score_term(score: Score, coordinates: Sequence[str], i_params: Sequence[str], j_params: Sequence[str]) -> str:
    """The score as an SMT-LIB term over the two vectors' parameter names."""
    if isinstance(score, CircuitScore):
        return circuit_term(score.circuit, 0, list(i_params) + list(j_params))
    terms = [f"(* {numeral(q)} {i_params[r]} {j_params[c]})" for r, c, q in score.entries()]
    return "0.0" if not terms else terms[0] if len(terms) == 1 else f"(+ {' '.join(terms)})"


def hint_lemma(score: Score, hint: ScoreHint, coordinates: Sequence[str]) -> str:
    """SMT-LIB: score(x,y) + (rk(x) − ck(y))² + pen(y) does not depend on y."""
    d = list(coordinates)
    vec = {v: [f"{v}_{smt_symbol(c)}" for c in d] for v in ("x", "y", "z")}
    lines = [LOGIC, SGN_DEFINITION]
    for v in ("x", "y", "z"):
        lines += [f"(declare-const {p} Real)" for p in vec[v]]
    for name, value in sorted(hint.facts, key=lambda fact: d.index(fact[0])):
        k = d.index(name)
        lines += [f"(assert (= {vec[v][k]} {numeral(value)}))" for v in ("x", "y", "z")]

    def side(col: str) -> str:
        s = score_term(score, d, vec["x"], vec[col])
        rk = circuit_term(hint.row_key, 0, vec["x"])
        ck = circuit_term(hint.col_key, 0, vec[col])
        pen = circuit_term(hint.col_penalty, 0, vec[col])
        diff = f"(- {rk} {ck})"
        return f"(+ {s} (* {diff} {diff}) {pen})"

    lines.append(f"(assert (not (= {side('y')} {side('z')})))")
    lines.append("(check-sat)")
    return "\n".join(lines) + "\n"


def hint_reads_structure_only(hint: ScoreHint, structural: Sequence[int]) -> bool:
    allowed = set(structural)
    return all(reads_of(c) <= allowed for c in (hint.row_key, hint.col_key, hint.col_penalty))


@dataclass(frozen=True)
class ArgmaxSets:
    """``sets[p]`` is position p's argmax set (sorted positions); equal sets share one tuple.

    ``set_ids[p]`` numbers the distinct sets in order of first appearance.
    """

    sets: tuple[tuple[int, ...], ...]
    set_ids: tuple[int, ...]
    distinct: tuple[tuple[int, ...], ...]


def _share(sets: list[tuple[int, ...]]) -> ArgmaxSets:
    ids: list[int] = []
    distinct: list[tuple[int, ...]] = []
    by_identity: dict[int, int] = {}
    by_content: dict[tuple[int, ...], int] = {}
    for s in sets:
        key = id(s)
        if key not in by_identity:
            if s not in by_content:
                by_content[s] = len(distinct)
                distinct.append(s)
            by_identity[key] = by_content[s]
        ids.append(by_identity[key])
    return ArgmaxSets(tuple(distinct[i] for i in ids), tuple(ids), tuple(distinct))


def join_argmax(rows: Sequence[Sequence[Fraction | int]], hint: ScoreHint) -> ArgmaxSets:
    """argmin_j (rk(x_i) − ck(x_j))² + pen(x_j) for every i, by a sorted join."""
    rk, ck, pen = (compile_circuit(c) for c in (hint.row_key, hint.col_key, hint.col_penalty))
    row_keys = [rk(*row)[0] for row in rows]
    groups: dict[Fraction | int, dict[Fraction | int, list[int]]] = {}
    for j, row in enumerate(rows):
        groups.setdefault(ck(*row)[0], {}).setdefault(pen(*row)[0], []).append(j)
    keys = sorted(groups)
    best_pen = {k: min(g) for k, g in groups.items()}
    global_min = min(best_pen.values())
    by_row_key: dict[Fraction | int, tuple[int, ...]] = {}
    result: list[tuple[int, ...]] = []
    for a in row_keys:
        cached = by_row_key.get(a)
        if cached is None:
            cached = by_row_key[a] = _argmin_for(a, keys, best_pen, groups, global_min)
        result.append(cached)
    return _share(result)


def _argmin_for(a, keys, best_pen, groups, global_min) -> tuple[int, ...]:
    start = bisect.bisect_left(keys, a)
    best = None
    chosen: list = []
    for direction, first in ((-1, start - 1), (1, start)):
        k = first
        while 0 <= k < len(keys):
            key = keys[k]
            distance = (a - key) * (a - key)
            if best is not None and distance + global_min > best:
                break
            cost = distance + best_pen[key]
            if best is None or cost < best:
                best, chosen = cost, [key]
            elif cost == best:
                chosen.append(key)
            k += direction
    members: list[int] = []
    for key in chosen:
        members.extend(groups[key][best_pen[key]])
    return tuple(sorted(members))


def brute_force_argmax(rows: Sequence[Sequence[Fraction | int]], score: Score, limit: int = 1500) -> ArgmaxSets | None:
    """Evaluate the score on all pairs (only for short sequences); None if too long."""
    if len(rows) > limit:
        return None
    if isinstance(score, CircuitScore):
        f = compile_circuit(score.circuit)

        def s(x, y):
            return f(*x, *y)[0]
    else:
        entries = score.entries()

        def s(x, y):
            return sum(q * x[r] * y[c] for r, c, q in entries)
    sets = []
    for x in rows:
        values = [s(x, y) for y in rows]
        m = max(values)
        sets.append(tuple(j for j, v in enumerate(values) if v == m))
    return _share(sets)


def score_reads(score: Score, d: int) -> set[int]:
    """Coordinates (0..d-1) of either vector that the score reads."""
    if isinstance(score, CircuitScore):
        return {k % d for k in reads_of(score.circuit)}
    return {r for r, _, _ in score.entries()} | {c for _, c, _ in score.entries()}


__all__ = ["ArgmaxSets", "join_argmax", "brute_force_argmax", "hint_lemma", "score_term", "score_reads",
           "hint_reads_structure_only", "score_input_names", "Circuit"]
