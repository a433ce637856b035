"""Argmax sets (docs/soundness.md S6), computed by the kernel from structure alone: a key join (the key lemma
score(x,y) + (rk(x) − ck(y))² + pen(y) = score(x,z) + (rk(x) − ck(z))² + pen(z), keys on structural coordinates)
or brute force (a score that reads structural coordinates only, on all pairs)."""

from __future__ import annotations

import bisect
from typing import Any, Sequence

from .circuits import compiled
from .data import Bilinear, Circuit, NotChecked, Number
from .smt import LOGIC, SGN, bilinear_term, numeral, term

BRUTE_FORCE_LIMIT = 1500
"""Longest sequence on which brute-force attention is evaluated (N² score evaluations)."""
WORK = 10**8  # score and key gates evaluated, keys walked, by all heads of a certificate beyond 100 a position: one
# budget (per head, 40 brute-force heads each within it took 93 s: red team, round 7); past it, not checked


def budget_for(rows: Sequence[Any]) -> list[int]:
    return [WORK + 100 * len(rows)]


def _spend(budget: list[int], work: int, what: str) -> None:
    budget[0] -= work
    if budget[0] < 0:
        raise NotChecked(f"{what}: the argmax sets of all heads cost more than {WORK:,} steps beyond 100 a position")

Sets = list[tuple[int, ...]]


def key_lemma(score: Circuit | Bilinear, keys: dict[str, Circuit], facts: Sequence[tuple[int, Number]],
              coordinates: Sequence[str]) -> str:
    """The key-decomposition lemma (docs/certificates.md): unsat ⇔ the decomposition holds."""
    vec = {v: [f"{v}_{c}" for c in coordinates] for v in "xyz"}
    lines = [LOGIC, SGN]
    lines += [f"(declare-const {name} Real)" for v in "xyz" for name in vec[v]]
    for c, value in facts:
        lines += [f"(assert (= {vec[v][c]} {numeral(value)}))" for v in "xyz"]

    def side(col: str) -> str:
        if isinstance(score, Bilinear):
            s = bilinear_term(score.entries, vec["x"], vec[col])
        else:
            s = term(score, 0, vec["x"] + vec[col])
        diff = f"(- {term(keys['row_key'], 0, vec['x'])} {term(keys['col_key'], 0, vec[col])})"
        return f"(+ {s} (* {diff} {diff}) {term(keys['col_penalty'], 0, vec[col])})"

    lines.append(f"(assert (not (= {side('y')} {side('z')})))")
    lines.append("(check-sat)")
    return "\n".join(lines) + "\n"


def join(rows: Sequence[Sequence[Number]], keys: dict[str, Circuit], budget: list[int]) -> Sets:
    """argmin_j (rk(row_i) − ck(row_j))² + pen(row_j) for every i; equal row keys, and row keys that choose
    the same column keys, share one tuple (built once: no n² when many rows attend to one wide set)."""
    _spend(budget, len(rows) * sum(len(c.gates) for c in keys.values()), "a key join")
    if not rows:
        return []
    rk, ck, pen = (compiled(keys[k], on_row=True) for k in ("row_key", "col_key", "col_penalty"))
    best: dict[Number, list] = {}  # column key → [its least penalty, the columns with it, increasing]
    for j, k, penalty in zip(range(len(rows)), map(ck, rows), map(pen, rows)):
        entry = best.get(k)
        if entry is None or penalty < entry[0]:
            best[k] = [penalty, j]
        elif penalty == entry[0]:
            entry.append(j)
    ordered, least = sorted(best), {k: entry[0] for k, entry in best.items()}
    floor = min(least.values())
    for k, entry in best.items():
        best[k] = tuple(entry[1:])  # then ``best``: column key → its columns of least penalty, one shared tuple
    chosen: dict[Number, tuple[int, ...]] = {}  # the other row keys' sets
    by_choice: dict[tuple[Number, ...], tuple[int, ...]] = {}  # many row keys can choose the same keys (all sinks)
    row_keys = list(map(rk, rows))
    for a in dict.fromkeys(row_keys):  # each row key once; at a column key whose penalty is the floor, a alone:
        if least.get(a) != floor:  # others pay (a − k)² > 0
            choice = sorted(_cheapest(a, ordered, least, floor, budget))
            chosen[a] = best[choice[0]] if len(choice) == 1 else by_choice.get(tuple(choice)) or by_choice.setdefault(
                tuple(choice), tuple(sorted(j for key in choice for j in best[key])))  # one key's are in order
    best.update(chosen)  # its own columns are no longer read: row key → its set
    return list(map(best.__getitem__, row_keys))


def _cheapest(a: Number, ordered: list[Number], least: dict[Number, Number], floor: Number,
              budget: list[int]) -> list[Number]:
    """The column keys k of least cost (a − k)² + least[k] (least penalty of a column with key k): walking outward
    from a, (a − k)² only grows, so a direction stops once (a − k)² + floor (the least penalty) exceeds the best."""
    best: Any = None
    chosen: list[Number] = []
    start = bisect.bisect_left(ordered, a)
    for k_range in (range(start - 1, -1, -1), range(start, len(ordered))):
        for k in k_range:
            _spend(budget, 10, "the key join walks too many keys (penalties that keep every key in reach)")  # a step: 10
            key = ordered[k]
            distance = (a - key) * (a - key)
            if best is not None and distance + floor > best:
                break
            cost = distance + least[key]
            if best is None or cost < best:
                best, chosen = cost, [key]
            elif cost == best:
                chosen.append(key)
    return chosen


def brute_force(rows: Sequence[Sequence[Number]], score: Circuit | Bilinear, budget: list[int]) -> Sets:
    """argmax_j score(row_i, row_j) on all pairs."""
    size = len(score.entries) if isinstance(score, Bilinear) else len(score.gates)
    _spend(budget, len(rows) ** 2 * size, f"brute force on {len(rows)} positions with a score of size {size}")
    entries, f = (score.entries, None) if isinstance(score, Bilinear) else ((), compiled(score))
    out: Sets = []
    for x in rows:
        values = [f(*x, *y)[0] if f else sum(q * x[r] * y[c] for r, c, q in entries) for y in rows]
        top = max(values)
        out.append(tuple(j for j, v in enumerate(values) if v == top))
    return out
