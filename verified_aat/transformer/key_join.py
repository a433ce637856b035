"""Key decompositions of attention scores and the sorted-key join (shared by ``certify`` and ``run``).

(This module is long because the lemma, the int64 join it licenses and the join's labels, which both
engines read, are one piece: splitting them would put the join's exactness argument in two places.)

A *key decomposition* of a score s (a construction's :class:`~verified_aat.constructions.base.ScoreHint`,
or one found by :func:`discover_hint`) claims: for all real vectors x, y satisfying its facts,

    s(x, y) + (rk(x) − ck(y))² + pen(y)   does not depend on y.

Then argmax_j s(x_i, x_j) = argmin_j (rk(x_i) − ck(x_j))² + pen(x_j), which :func:`join_argmax`
finds for every position by a join over the sorted column keys, in time near-linear in the
sequence length instead of quadratic.  The claim is an SMT lemma (:func:`hint_lemma`); nothing
here trusts it:

* ``certify`` (``symbolic/attention.py``) proves the lemma and records it in the certificate;
* the exact engine gets a :class:`KeyDecompositions`, which builds the lemma for the head's
  *own* score (so an edited score gets a new lemma), asks its prover once per lemma text, and
  hands the engine a decomposition only when the verdict is ``proved``.  The engine then checks
  the facts on the rows it joins; anything else is scored on all pairs.

This module needs only the circuit IR and the SMT-LIB printer, so both the engine
(``transformer/``) and the symbolic stage can use it.
"""

from __future__ import annotations

import bisect
import hashlib
from dataclasses import dataclass, field
from fractions import Fraction
from operator import itemgetter
from typing import Any, Callable, Iterator, Mapping, Protocol, Sequence

import numpy as np

from ..circuits.evaluate import compile_circuit
from ..circuits.ir import Circuit, Kind
from ..circuits.smtlib import LOGIC, SGN_DEFINITION, circuit_term, numeral, smt_symbol
from .exact_kernels import CircuitKernel, int64_values, live_gates
from .key_discovery import FoundHint, discover_hint
from .model import CircuitScore, Head, Score
from ..wording import plural

Number = int | Fraction


class KeyHint(Protocol):
    """What a key decomposition provides (``constructions.base.ScoreHint`` has these fields).

    Each circuit has ``d`` inputs (named ``v.<coord>``) and one output.
    """

    row_key: Circuit
    col_key: Circuit
    col_penalty: Circuit
    facts: tuple[tuple[str, Fraction], ...]


# -- the lemma ---------------------------------------------------------------------

def score_term(score: Score, coordinates: Sequence[str], i_params: Sequence[str], j_params: Sequence[str]) -> str:
    """The score as an SMT-LIB term over the two vectors' parameter names."""
    if isinstance(score, CircuitScore):
        return circuit_term(score.circuit, 0, list(i_params) + list(j_params))
    terms = [f"(* {numeral(q)} {i_params[r]} {j_params[c]})" for r, c, q in score.entries()]
    return "0.0" if not terms else terms[0] if len(terms) == 1 else f"(+ {' '.join(terms)})"


def hint_lemma(score: Score, hint: KeyHint, coordinates: Sequence[str]) -> str:
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


def hint_fits(hint: KeyHint, coordinates: Sequence[str]) -> bool:
    """Whether the hint's circuits and facts are over these coordinates (else its lemma is meaningless)."""
    d = len(coordinates)
    return (all(c.n_inputs == d and len(c.outputs) == 1 for c in (hint.row_key, hint.col_key, hint.col_penalty))
            and all(name in coordinates for name, _ in hint.facts))


def facts_hold(rows: Sequence[Sequence[Number]], hint: KeyHint, coordinates: Sequence[str]) -> bool:
    """Whether every row satisfies the hint's facts (the lemma assumes them of both vectors)."""
    for name, value in hint.facts:
        c = list(coordinates).index(name)
        if any(row[c] != value for row in rows):
            return False
    return True


# -- the join ----------------------------------------------------------------------

class _Members(Sequence[tuple[int, ...]]):
    """The distinct argmax sets as a read-only sequence of tuples over two arrays (offsets, members):
    a tuple is built only when asked for, so 10⁶ singleton sets cost two int64 arrays, not 10⁶ tuples."""

    __slots__ = ("offsets", "members")

    def __init__(self, offsets: Any, members: Any):
        self.offsets, self.members = offsets, members

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __getitem__(self, k: Any) -> Any:
        if isinstance(k, slice):
            start, stop, step = k.indices(len(self))
            assert step == 1, "argmax sets are sliced in order"
            flat, cuts = self.members[self.offsets[start]:self.offsets[max(start, stop)]].tolist(), \
                (self.offsets[start:max(start, stop) + 1] - self.offsets[start]).tolist()
            return [tuple(flat[a:b]) for a, b in zip(cuts, cuts[1:])]
        n = len(self)
        if not -n <= k < n:
            raise IndexError(k)
        k %= n
        return tuple(self.members[self.offsets[k]:self.offsets[k + 1]].tolist())

    def __iter__(self) -> Iterator[tuple[int, ...]]:
        for start in range(0, len(self), 65536):
            yield from self[start:start + 65536]


class _PerPosition(Sequence[tuple[int, ...]]):
    """``sets[p]``: position p's argmax set, looked up through its set number."""

    __slots__ = ("ids", "distinct")

    def __init__(self, ids: Any, distinct: _Members):
        self.ids, self.distinct = ids, distinct

    def __len__(self) -> int:
        return len(self.ids)

    def __getitem__(self, p: Any) -> Any:
        if isinstance(p, slice):
            return [self.distinct[k] for k in self.ids[p].tolist()]
        return self.distinct[int(self.ids[p])]

    def __iter__(self) -> Iterator[tuple[int, ...]]:
        built: dict[int, tuple[int, ...]] = {}  # per chunk: each set's tuple once (a shared set is not rebuilt)
        for start in range(0, len(self), 65536):
            built.clear()
            for k in self.ids[start:start + 65536].tolist():
                found = built.get(k)
                yield found if found is not None else built.setdefault(k, self.distinct[k])


class ArgmaxSets:
    """Position p's argmax set is ``distinct[set_ids[p]]`` (sorted positions), the sets numbered by first
    appearance.  Held as int64 arrays (``set_ids``; the distinct sets' ``offsets`` and ``members``), so the
    sets of 10⁶ positions take tens of megabytes; ``sets`` and ``distinct`` read them as tuples."""

    __slots__ = ("set_ids", "offsets", "members")

    def __init__(self, set_ids: Any, offsets: Any, members: Any):
        self.set_ids = np.asarray(set_ids, dtype=np.int64)
        self.offsets = np.asarray(offsets, dtype=np.int64)
        self.members = np.asarray(members, dtype=np.int64)

    @staticmethod
    def of(set_ids: Any, distinct: Sequence[Sequence[int]]) -> "ArgmaxSets":
        sizes = np.fromiter(map(len, distinct), np.int64, len(distinct))
        flat = np.fromiter((j for s in distinct for j in s), np.int64, int(sizes.sum()))
        return ArgmaxSets(set_ids, np.concatenate([[0], np.cumsum(sizes)]), flat)

    @property
    def distinct(self) -> _Members:
        return _Members(self.offsets, self.members)

    @property
    def sets(self) -> _PerPosition:
        return _PerPosition(self.set_ids, self.distinct)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ArgmaxSets) and all(
            np.array_equal(a, b) for a, b in ((self.set_ids, other.set_ids), (self.offsets, other.offsets),
                                              (self.members, other.members)))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ArgmaxSets({plural(len(self.set_ids), 'position')}, {plural(len(self.offsets) - 1, 'distinct set')})"


def share_sets(sets: list[tuple[int, ...]]) -> ArgmaxSets:
    """Number equal sets by first appearance."""
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
    return ArgmaxSets.of(ids, distinct)


def join_argmax(rows: Sequence[Sequence[Number]], hint: KeyHint, columns: dict | None = None) -> ArgmaxSets:
    """argmin_j (rk(x_i) − ck(x_j))² + pen(x_j) for every i, by a sorted join.

    With integer keys small enough for exact int64 arithmetic the join runs on numpy arrays
    (:func:`_join_int64`); otherwise, and for the few row keys whose nearest column keys do
    not settle the minimum, on Python ints/Fractions.  Both give the same sets.  ``columns``: a dict kept
    by the caller for one ``rows`` (the heads of one derivation read the same coordinates).
    """
    keys = _int64_keys(rows, hint, {} if columns is None else columns)
    if keys is not None:
        return _join_int64(*keys)
    return _join_python(rows, hint)


def _join_python(rows: Sequence[Sequence[Number]], hint: KeyHint) -> ArgmaxSets:
    rk, ck, pen = (compile_circuit(c) for c in (hint.row_key, hint.col_key, hint.col_penalty))
    row_keys = [rk(*row)[0] for row in rows]
    groups = _groups(rows, ck, pen)
    keys = sorted(groups)
    best_pen = {k: min(g) for k, g in groups.items()}
    global_min = min(best_pen.values())
    by_row_key: dict[Number, tuple[int, ...]] = {}
    result: list[tuple[int, ...]] = []
    for a in row_keys:
        cached = by_row_key.get(a)
        if cached is None:
            cached = by_row_key[a] = _argmin_for(a, keys, best_pen, groups, global_min)
        result.append(cached)
    return share_sets(result)


def _groups(rows: Sequence[Sequence[Number]], ck: Callable[..., Any], pen: Callable[..., Any]
            ) -> dict[Number, dict[Number, list[int]]]:
    """column key → penalty → positions (increasing)."""
    groups: dict[Number, dict[Number, list[int]]] = {}
    for j, row in enumerate(rows):
        groups.setdefault(ck(*row)[0], {}).setdefault(pen(*row)[0], []).append(j)
    return groups


KEY_LIMIT = 2 ** 29     # |rk|, |ck| below this: every (rk − ck)² is below 2**60
PENALTY_LIMIT = 2 ** 60  # |pen| below this: every cost (rk − ck)² + pen is below 2**61


def _int64_keys(rows: Sequence[Sequence[Number]], hint: KeyHint, columns: dict) -> tuple[Any, Any, Any] | None:
    """rk, ck, pen of every row as int64 arrays, when all are integers within the limits."""
    n, d = len(rows), len(rows[0]) if rows else 0
    if n == 0:
        return None
    out = []
    for circuit, limit in ((hint.row_key, KEY_LIMIT), (hint.col_key, KEY_LIMIT), (hint.col_penalty, PENALTY_LIMIT)):
        cols = sorted(_reads(circuit))
        read = [columns[c] if c in columns else columns.setdefault(c, int64_values(list(map(itemgetter(c), rows))))
                for c in cols]  # each coordinate read once per ``columns``
        values = None if None in read else CircuitKernel(circuit, cols, (), d).int64_column(
            [r[0] for r in read], [r[1] for r in read], n, limit)  # type: ignore[index]
        if values is None:
            return None
        out.append(values)
    return out[0], out[1], out[2]


def _reads(circuit: Circuit) -> set[int]:
    live = live_gates(circuit)
    return {g.index for k, g in enumerate(circuit.gates) if live[k] and g.kind is Kind.INPUT}  # type: ignore[misc]


@dataclass(frozen=True)
class JoinLabels:
    """The join's answer as arrays (:func:`join_labels`), before any Python tuple is built.

    ``order`` sorts the positions by (column key, penalty, position); key group ``k`` (the
    k-th distinct column key, ascending) has its least-penalty positions at
    ``order[first[k]:first[k] + count[k]]``, in increasing order.  ``row_of[p]`` is the index of
    position p's row key among the distinct row keys, and ``label[u]`` names that row key's
    argmax set: ``k`` is key group k alone, ``n_keys + k`` groups k and k + 1, and a larger
    label the groups ``chosen_of[label]``.
    """

    order: Any
    first: Any
    count: Any
    n_keys: int
    row_of: Any
    label: Any
    chosen_of: dict[int, tuple[int, ...]]

    def groups(self, label: int) -> tuple[int, ...]:
        """The key groups whose least-penalty positions make up the set named ``label``."""
        if label < self.n_keys:
            return (label,)
        if label < 2 * self.n_keys:
            return (label - self.n_keys, label - self.n_keys + 1)
        return self.chosen_of[label]


def join_labels(rk: Any, ck: Any, pen: Any) -> JoinLabels:
    """The join on int64 arrays (exact: the limits keep every cost below 2**61).

    Column keys are grouped with their least penalty; for each distinct row key the two nearest
    column keys below and the two above it are candidates, and they settle the minimum when the
    next keys out cannot reach it even with the least penalty of all.  Row keys they do not settle
    are walked in Python, as :func:`_argmin_for` does.
    """
    n = len(rk)
    positions = np.arange(n)
    order = np.lexsort((positions, pen, ck))          # by column key, penalty, position
    ck_s, pen_s = ck[order], pen[order]
    first = np.flatnonzero(np.r_[True, ck_s[1:] != ck_s[:-1]])
    keys, least = ck_s[first], pen_s[first]
    n_keys = len(keys)
    group = np.repeat(np.arange(n_keys), np.diff(np.r_[first, n]))
    count = np.bincount(group[pen_s == least[group]], minlength=n_keys)
    floor = int(least.min())
    row_keys, row_of = np.unique(rk, return_inverse=True)
    start = np.searchsorted(keys, row_keys)           # bisect_left
    big = np.int64(2 ** 62)
    # candidates: the two nearest column keys on each side (indices start − 2 … start + 1); they settle the
    # minimum when the next keys out cannot reach it even with the least penalty of all
    costs = []
    for offset in range(-2, 2):
        k = start + offset
        inside = (k >= 0) & (k < n_keys)
        kk = np.clip(k, 0, n_keys - 1)
        costs.append(np.where(inside, (row_keys - keys[kk]) ** 2 + least[kk], big))
    best = np.minimum.reduce(costs)
    far_l, far_r = start - 3, start + 2
    settled = (((far_l < 0) | ((row_keys - keys[np.clip(far_l, 0, n_keys - 1)]) ** 2 + floor > best))
               & ((far_r >= n_keys) | ((keys[np.clip(far_r, 0, n_keys - 1)] - row_keys) ** 2 + floor > best)))
    label, chosen_of = _set_labels([c == best for c in costs], settled, start, keys, least, row_keys, floor)
    return JoinLabels(order, first, count, n_keys, row_of, label, chosen_of)


def _set_labels(taken: list[Any], settled: Any, start: Any, keys: Any, least: Any, row_keys: Any, floor: int
                ) -> tuple[Any, dict[int, tuple[int, ...]]]:
    """Each row key's set as a :class:`JoinLabels` label, from which of its four candidate key groups
    (``taken[i]``: the group at start − 2 + i) attain the minimum; row keys not ``settled`` are walked."""
    n_keys = len(keys)
    # one key group k → k, groups k and k + 1 → n_keys + k, any other set (a wider window, or a row key
    # walked in Python) → 2 · n_keys and up, numbered as it comes
    mask = sum(t.astype(np.int64) << i for i, t in enumerate(taken))
    low = np.zeros(len(row_keys), dtype=np.int64)
    for i in (3, 2, 1, 0):                            # the lowest taken offset
        low = np.where(taken[i], i, low)
    lo, bits = start - 2 + low, mask >> low           # the lowest taken group, and the taken ones from it
    label = np.where(settled & (bits == 1), lo, np.where(settled & (bits == 3), n_keys + lo, -1))
    chosen_of: dict[int, tuple[int, ...]] = {}
    others = np.flatnonzero(label < 0).tolist()
    if others:
        sorted_keys = keys.tolist()
        least_of = dict(zip(sorted_keys, least.tolist()))
        index_of = {k: i for i, k in enumerate(sorted_keys)}
        by_chosen: dict[tuple[int, ...], int] = {}
        for u in others:
            if settled[u]:
                chosen = tuple(int(lo[u]) + i for i in range(4) if int(bits[u]) >> i & 1)
            else:
                chosen = tuple(index_of[k] for k in _argmin_keys(int(row_keys[u]), sorted_keys, least_of, floor))
            if len(chosen) == 1:
                label[u] = chosen[0]
            elif len(chosen) == 2 and chosen[1] == chosen[0] + 1:
                label[u] = n_keys + chosen[0]
            else:
                label[u] = by_chosen.setdefault(chosen, 2 * n_keys + len(by_chosen))
                chosen_of[int(label[u])] = chosen
    return label, chosen_of


def _join_int64(rk: Any, ck: Any, pen: Any) -> ArgmaxSets:
    """:func:`join_labels`, as arrays."""
    joined = join_labels(rk, ck, pen)
    order, first, count = joined.order, joined.first, joined.count
    labels = joined.label[joined.row_of]
    distinct_labels, first_at, inverse = np.unique(labels, return_index=True, return_inverse=True)
    rank = np.empty(len(distinct_labels), dtype=np.int64)
    by_appearance = np.argsort(first_at, kind="stable")
    rank[by_appearance] = np.arange(len(distinct_labels))
    set_ids = rank[inverse]
    in_order = distinct_labels[by_appearance]
    n_keys, m = joined.n_keys, len(in_order)
    single, pair = in_order < n_keys, (in_order >= n_keys) & (in_order < 2 * n_keys)
    low = np.where(single, in_order, np.where(pair, in_order - n_keys, 0))  # a set's (first) key group
    parts = [(np.arange(m), low, np.where(single | pair, count[low], 0)),
             (np.flatnonzero(pair), low[pair] + 1, count[low[pair] + 1])]
    for u in np.flatnonzero(~(single | pair)).tolist():  # wider sets: rare, one part each
        groups = np.array(joined.groups(int(in_order[u])), dtype=np.int64)
        parts.append((np.full(len(groups), u), groups, count[groups]))
    owner = np.concatenate([np.repeat(u, sizes) for u, _, sizes in parts])
    members = order[np.concatenate([_ranges(first[g], sizes) for _, g, sizes in parts])]
    if len(parts[1][0]) or len(parts) > 2:  # sets of several key groups: sort each set's members
        members = members[np.lexsort((members, owner))]
    sizes = np.bincount(owner, minlength=m)
    return ArgmaxSets(set_ids, np.concatenate([[0], np.cumsum(sizes)]), members)


def _ranges(starts: Any, lengths: Any) -> Any:
    """The concatenation of ``range(s, s + n)`` for each start s and length n, as one int64 array."""
    ends = np.cumsum(lengths)
    return np.repeat(starts - (ends - lengths), lengths) + np.arange(int(ends[-1]) if len(ends) else 0)


def hint_columns(hint: KeyHint, coordinates: Sequence[str]) -> set[int]:
    """The coordinates a decomposition reads: its three circuits' inputs and its facts."""
    d = list(coordinates)
    return set().union(*(_reads(c) for c in (hint.row_key, hint.col_key, hint.col_penalty))) | {
        d.index(name) for name, _ in hint.facts}


def _argmin_keys(a: Number, keys: list[Number], best_pen: dict[Number, Number], global_min: Number) -> list[Number]:
    """The column keys k minimising (a − k)² + best_pen[k], walking out from a's place in ``keys``."""
    start = bisect.bisect_left(keys, a)
    best: Number | None = None
    chosen: list[Number] = []
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
    return sorted(chosen)


def _argmin_for(a: Number, keys: list[Number], best_pen: dict[Number, Number],
                groups: dict[Number, dict[Number, list[int]]], global_min: Number) -> tuple[int, ...]:
    members: list[int] = []
    for key in _argmin_keys(a, keys, best_pen, global_min):
        members.extend(groups[key][best_pen[key]])
    return tuple(sorted(members))


# -- proved decompositions for the engine ----------------------------------------------

PROVED = "proved"


def lemma_digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass
class KeyDecompositions:
    """The key decompositions the exact engine may use, each only after its lemma is proved.

    ``hints`` maps head names to claimed decompositions (e.g. a construction's
    ``score_hints()``); with ``discover`` a circuit score of the form −(a(x) − b(y))² + pen(y)
    also gets one (:func:`discover_hint`).  ``prove(text)`` returns a verdict (``"proved"``,
    ``"failed"``, ``"unknown"``); only ``"proved"`` counts, so a timeout or an error falls back
    to all pairs.  Each lemma text (a content hash of the score, the hint and the coordinates)
    is proved at most once per object, so a run of many input vectors proves each once.
    """

    hints: Mapping[str, KeyHint]
    prove: Callable[[str], str]
    discover: bool = True
    verdicts: dict[str, str] = field(default_factory=dict)   # lemma digest → verdict
    _by_head: dict[tuple[int, str, tuple[str, ...]], tuple[Head, KeyHint | None]] = field(default_factory=dict)

    def proved(self, head: Head, coordinates: tuple[str, ...]) -> KeyHint | None:
        """A decomposition of ``head.score`` whose lemma is proved, or None."""
        key = (id(head), head.name, coordinates)
        cached = self._by_head.get(key)
        if cached is not None and cached[0] is head:
            return cached[1]
        found: KeyHint | None = None
        candidates: list[Any] = [self.hints.get(head.name)]
        if self.discover:
            candidates.append(discover_hint(head.score, len(coordinates)))
        for hint in candidates:
            if hint is None or not hint_fits(hint, coordinates):
                continue
            text = hint_lemma(head.score, hint, coordinates)
            digest = lemma_digest(text)
            verdict = self.verdicts.get(digest)
            if verdict is None:
                try:
                    verdict = self.prove(text)
                except Exception as exc:  # noqa: BLE001 - a prover error is not a proof
                    verdict = f"unknown: {type(exc).__name__}"
                self.verdicts[digest] = verdict
            if verdict == PROVED:
                found = hint
                break
        self._by_head[key] = (head, found)
        return found


__all__ = ["ArgmaxSets", "FoundHint", "JoinLabels", "KeyDecompositions", "KeyHint", "discover_hint", "facts_hold",
           "hint_columns", "hint_fits", "hint_lemma", "join_argmax", "join_labels", "lemma_digest",
           "score_term", "share_sets"]
