"""The per-position derivation grouped by signature (numpy): ``derive._derive_range``'s lemmas, uses,
kinds and first uses, built once per distinct signature instead of once per position.

A shape (``obligations.ObligationDeriver.shape``) depends on few facts about a (function, position,
check layer): the position's claim pattern and the layer, the structural values its template reads,
and, for each value the obligation names in the order the shape names them, whether it is a havoc
value, a gate value or a constant (and which constant), its power, and the first earlier named value
that it equals.  Here those facts are integer arrays over all positions at once.  Positions with equal
facts (equal *signatures*) take the same path through ``shape`` and so get equal shapes: the shape is
built once per signature, by the sequential code, on the signature's first position, and built again
on its last position as a check.  If the two differ, the whole range is derived sequentially instead,
so a fact missed here costs time and never a wrong lemma; the kernel re-derives every lemma anyway.
Positions outside the grouped path's limits (a mean over more than ``MAX_MEMBERS`` positions, a gate of
more than ``MAX_ARITY`` arguments) are derived one by one with ``shape`` itself.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Callable

import numpy as np

from ..circuits.ir import Circuit, Kind
from ..constructions.encoding import Encoding
from ..transformer.model import Pooling
from .obligations import LayerFunction, ObligationDeriver, check_layers, digest, kind_names, structural_mean

MAX_MEMBERS = 8  # a mean over more positions is named one position at a time
MAX_ARITY = 8    # so is the expected value of a gate with more arguments
_KINDS = {kind: number for number, kind in enumerate(Kind)}
_PAD = -1        # code of a missing argument; gates are 0.., constants -2 - value id, havoc values ≥ gates


class _Mismatch(Exception):
    """Two positions of one signature have different shapes: the signature misses a fact."""


def derive_range_grouped(deriver: ObligationDeriver, circuit: Circuit, encoding: Encoding,
                         functions: list[LayerFunction], blocks: list[range],
                         tick: Callable[[int], None] | None) -> tuple[dict, Counter] | None:
    """The result of ``derive._derive_range`` for the same arguments, or None when a signature proved
    too coarse (the caller then derives sequentially)."""
    try:
        return _Grouped(deriver, circuit, encoding).run(functions, blocks, tick)
    except _Mismatch:
        return None


class _Tables:
    """Integer arrays over positions, claim patterns, gates and argmax sets."""

    def __init__(self, deriver: ObligationDeriver, circuit: Circuit, encoding: Encoding):
        self.deriver, self.d = deriver, deriver.d
        schedule = deriver.schedule
        n = len(schedule.number)
        # the schedule's patterns renumbered by first use, as the positions meet them
        used, first = np.unique(schedule.number, return_index=True)
        first, used = first[used >= 0], used[used >= 0]
        order = used[np.argsort(first, kind="stable")]
        renumber = np.full(len(schedule.patterns) + 1, -1, np.int64)  # -1 (no claim) reads the trailing -1
        renumber[order] = np.arange(len(order))
        self.patterns: list[Any] = [schedule.patterns[k] for k in order.tolist()]
        self.pattern = renumber[schedule.number]
        self.gate, self.source = schedule.gate, schedule.source
        shape = (max(len(self.patterns), 1), self.d)
        self.has, self.names_source = np.zeros(shape, bool), np.zeros(shape, bool)
        self.power, self.settle = np.zeros(shape, np.int64), np.full(shape, np.iinfo(np.int64).max)
        for number, pattern in enumerate(self.patterns):
            for c, names_source, power, settle in pattern.entries:
                self.has[number, c], self.names_source[number, c] = True, names_source
                self.power[number, c], self.settle[number, c] = power, settle
        self._gates(circuit)
        names: dict[tuple, int] = {}
        gates = circuit.gates
        self.role = np.fromiter((names.setdefault((r.kind, gates[r.gate].kind if r.kind == "gate" else None),
                                                  len(names)) for r in encoding.roles), np.int64, n)
        self.role_names = [kind_names(role, kind) for role, kind in names]
        self._values: dict[Any, int] = {}
        self._columns: dict[int, np.ndarray] = {}
        self._sets: dict[int, tuple] = {}
        self._pooled: dict[tuple, np.ndarray] = {}

    def _gates(self, circuit: Circuit) -> None:
        gates, values = circuit.gates, {}
        self.n_gates = len(gates)
        self.kind = np.fromiter((_KINDS[g.kind] for g in gates), np.int64, len(gates))
        self.arity = np.fromiter((len(g.args) for g in gates), np.int64, len(gates))
        self.width = min(int(self.arity.max(initial=0)), MAX_ARITY)
        flat = [a for g in gates for a in (g.args + (_PAD,) * (self.width - len(g.args)) if len(g.args) <= self.width
                                           else (_PAD,) * self.width)]
        self.args = np.array(flat, np.int64).reshape(len(gates), self.width)
        const = np.fromiter((values.setdefault(g.value, len(values)) if g.kind is Kind.CONST else -1 for g in gates),
                            np.int64, len(gates))
        self.code = np.where(const >= 0, -2 - const, np.arange(len(gates)))  # a gate's token: itself or its constant

    def column(self, c: int) -> np.ndarray:
        """Codes of the rows' coordinate c (equal codes ⇔ equal values)."""
        found = self._columns.get(c)
        if found is None:
            values, rows = self._values, self.deriver.rows
            found = self._columns[c] = np.fromiter((values.setdefault(row[c], len(values)) for row in rows),
                                                   np.int64, len(rows))
        return found

    def sets(self, fn: LayerFunction, head: int) -> tuple:
        """(set id per position, first member, last member, size) per distinct set of the head's argmax sets."""
        sets = self.deriver.argmax[(fn.number, head)]
        found = self._sets.get(id(sets))
        if found is None:
            size = np.diff(sets.offsets)
            if size.size and size.min() == 0:
                raise _Mismatch("an empty argmax set")
            found = self._sets[id(sets)] = (sets.set_ids, sets.members[sets.offsets[:-1]],
                                            sets.members[sets.offsets[1:] - 1], size, sets, {})
        return found

    def members(self, fn: LayerFunction, head: int, set_ids: np.ndarray, size: int) -> np.ndarray:
        """The members of the sets ``set_ids`` (all of ``size`` members), one row per set."""
        ids, _, _, sizes, sets, by_size = self.sets(fn, head)
        table = by_size.get(size)
        if table is None:
            which = np.flatnonzero(sizes == size)
            table = by_size[size] = (which, sets.members[sets.offsets[which][:, None] + np.arange(size)])
        which, rows = table
        return rows[np.searchsorted(which, set_ids)]

    def pooled(self, fn: LayerFunction, head: int, c: int) -> np.ndarray:
        """Codes of the pooled structural value of coordinate c, per distinct set of the head."""
        key = (fn.number, head, c)
        found = self._pooled.get(key)
        if found is None:
            _, first, last, size, sets, _ = self.sets(fn, head)
            column = self.column(c)
            pooling = fn.layer.heads[head].pooling
            found = column[first] if pooling is Pooling.LEFTMOST else column[last].copy()
            if pooling not in (Pooling.LEFTMOST, Pooling.RIGHTMOST):
                rows, values = self.deriver.rows, self._values
                for i in np.flatnonzero(size > 1):  # the mean as StructureView._pooled_structural takes it
                    value = structural_mean(rows, sets.distinct[i], c)
                    found[i] = values.setdefault(value, len(values))
            self._pooled[key] = found
        return found

    def reference(self, j: np.ndarray, c: int, limit: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(code, class, power) of value_at(j, c) before ``limit``: class 0 havoc, 1 gate, 2 padding,
        3 + value id for a constant."""
        number = self.pattern[j]
        known = np.where(number >= 0, number, 0)
        settled = (number >= 0) & self.has[known, c] & (self.settle[known, c] <= limit)
        gate = np.where(self.names_source[known, c], self.source[j], self.gate[j])
        gate_code = self.code[np.where(settled, gate, 0)]
        code = np.where(settled, gate_code, self.n_gates + j * self.d + c)
        return code, np.where(settled, self.token_class(gate_code), 0), np.where(settled, self.power[known, c], 0)

    @staticmethod
    def token_class(code: np.ndarray) -> np.ndarray:
        return np.where(code >= 0, 1, np.where(code == _PAD, 2, 1 - code))


class _Grouped:
    """One range's derivation: the found lemmas and the kind counts, as ``derive._derive_range`` gives them."""

    def __init__(self, deriver: ObligationDeriver, circuit: Circuit, encoding: Encoding):
        self.deriver, self.t = deriver, _Tables(deriver, circuit, encoding)
        self.found: dict[str, tuple] = {}
        self.kinds: Counter = Counter()
        self.shapes: dict[tuple, str] = {}

    def run(self, functions: list[LayerFunction], blocks: list[range],
            tick: Callable[[int], None] | None) -> tuple[dict, Counter]:
        t, n_layers = self.t, self.deriver.transformer.n_layers
        positions = np.concatenate([np.arange(b.start, b.stop, dtype=np.int64) for b in blocks] or [np.zeros(0, np.int64)])
        derivable = np.array([bool(p.entries) and p.settle <= n_layers for p in t.patterns] + [False])
        number = t.pattern[positions]
        keep = derivable[number]  # -1 (no claim) reads the trailing False
        positions, number = positions[keep], number[keep]
        order = np.argsort(number, kind="stable")  # positions stay increasing within a pattern
        positions, number = positions[order], number[order]
        cuts = [0, *(np.flatnonzero(np.diff(number)) + 1).tolist(), len(number)]
        groups = [(int(number[a]), positions[a:b]) for a, b in zip(cuts, cuts[1:]) if b > a]
        for f_index, fn in enumerate(functions):
            for pattern_number, group in groups:
                settles = frozenset(s for s, _ in t.patterns[pattern_number].settle_pattern)
                for k, layer in enumerate(check_layers(fn.layers, settles)):
                    self._layer(fn, f_index, k, layer, group, layer in settles)
            if tick is not None:
                tick(sum(len(b) for b in blocks))
        return self.found, self.kinds

    def _layer(self, fn: LayerFunction, f_index: int, k: int, layer: int, group: np.ndarray, local: bool) -> None:
        """One pattern's positions at one check layer, split by the structural values their template reads."""
        t, deriver = self.t, self.deriver
        coords, static = deriver.plan(fn, int(group[0]), layer)[:2]
        columns = [t.column(c)[group] if owner == 0 else t.pooled(fn, owner - 1, c)[t.sets(fn, owner - 1)[0][group]]
                   for _, owner, c in static]
        for part in _split(group, _partition(columns, len(group))[0]):
            template = deriver.shape(fn, int(part[0]), layer)[0]
            self._template(fn, (f_index, k, layer, local), part, deriver.template_slots(template), coords)

    def _template(self, fn: LayerFunction, where: tuple, part: np.ndarray, slots: list[tuple],
                  coords: tuple[int, ...]) -> None:
        """One template's positions, split by the sizes of its mean-pooled sets; outsized ones one by one."""
        t = self.t
        pattern = t.patterns[int(t.pattern[part[0]])]
        means = [slot[1] for slot in slots if slot[0] == "pool" and slot[3] not in (Pooling.LEFTMOST, Pooling.RIGHTMOST)]
        sizes = [t.sets(fn, head)[3][t.sets(fn, head)[0][part]] for head in means]
        gates = [t.source[part] if pattern.by_coordinate[c][0] else t.gate[part] for c in coords]
        wide = np.zeros(len(part), bool)
        for size in sizes:
            wide |= size > MAX_MEMBERS
        for g in gates:
            wide |= t.arity[g] > t.width
        if wide.any():
            self._one_by_one(fn, where, part[wide])
            narrow = ~wide
            part, sizes, gates = part[narrow], [s[narrow] for s in sizes], [g[narrow] for g in gates]
        for index in _split(np.arange(len(part)), _partition(sizes, len(part))[0]):
            self._signatures(fn, where, part[index], slots, [g[index] for g in gates],
                             [int(s[index[0]]) for s in sizes])

    def _signatures(self, fn: LayerFunction, where: tuple, part: np.ndarray, slots: list[tuple],
                    gates: list[np.ndarray], sizes: list[int]) -> None:
        """Every named value in ``shape``'s order, as (code, class, power); equal signatures, one shape."""
        t, limit = self.t, where[2] - 1
        codes, classes, powers = [], [], []
        size_of = iter(sizes)
        for slot in slots:
            if slot[0] == "lit":
                continue
            if slot[0] == "own":
                refs, c = [part], slot[1]
            else:
                _, head, c, pooling = slot
                ids, first, last = t.sets(fn, head)[:3]
                set_ids = ids[part]
                if pooling is Pooling.LEFTMOST:
                    refs = [first[set_ids]]
                elif pooling is Pooling.RIGHTMOST:
                    refs = [last[set_ids]]
                else:
                    size = next(size_of)
                    refs = [last[set_ids]] if size == 1 else list(t.members(fn, head, set_ids, size).T)
            for j in refs:
                code, token, power = t.reference(j, c, limit)
                codes.append(code), classes.append(token), powers.append(power)
        facts = []
        for g in gates:  # the expected value: the gate, then its arguments
            width = int(t.arity[g].max(initial=0))
            for column in (g, *t.args[g][:, :width].T):
                code = np.where(column >= 0, t.code[np.maximum(column, 0)], _PAD)
                codes.append(code), classes.append(t.token_class(code))
            facts += [t.kind[g], t.arity[g]]
        columns = [*_first_equal(codes), *classes, *powers, *facts, t.role[part]]
        _, first, last, counts = _partition(columns, len(part))
        for a, b, count in zip(first.tolist(), last.tolist(), counts.tolist()):
            self._group(fn, where, int(part[a]), int(part[b]), count)

    def _group(self, fn: LayerFunction, where: tuple, p: int, last: int, count: int) -> None:
        f_index, k, layer, local = where
        shape = self.deriver.shape(fn, p, layer)
        if count > 1 and self.deriver.shape(fn, last, layer) != shape:
            raise _Mismatch(f"positions {p} and {last} share a signature but not a shape")
        kind = self.t.role_names[int(self.t.role[p])][0 if local else 1]
        self.kinds[kind] += count
        self._record(shape, count, (f_index, p, k), (layer, p), kind)

    def _one_by_one(self, fn: LayerFunction, where: tuple, positions: np.ndarray) -> None:
        for p in positions.tolist():
            self._group(fn, where, p, p, 1)

    def _record(self, shape: tuple, count: int, order: tuple, first_use: tuple, kind: str) -> None:
        key = self.shapes.get(shape)
        if key is None:
            text = self.deriver.render(shape)
            key = self.shapes[shape] = digest(text)
            if key not in self.found:
                self.found[key] = (text, kind, count, order, first_use)
                return
        text, first_kind, uses, first_order, use = self.found[key]
        if order < first_order:
            self.found[key] = (text, kind, uses + count, order, first_use)
        else:
            self.found[key] = (text, first_kind, uses + count, first_order, use)


def _first_equal(codes: list[np.ndarray]) -> list[np.ndarray]:
    """Per column, the first column with the same code in that row: the names ``shape`` gives by first
    occurrence."""
    out = []
    for k, code in enumerate(codes):
        first = np.full(len(code), k, np.int64)
        for earlier in range(k - 1, -1, -1):  # downwards, so the smallest equal column is written last
            first[codes[earlier] == code] = earlier
        out.append(first)
    return out


def _partition(columns: list[np.ndarray], n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Rows with equal values in every column, numbered: (number per row, first row, last row, count) per
    number.  Columns are packed into one int64 key, renumbered whenever the packing would overflow."""
    key, bound = np.zeros(n, np.int64), 1
    for column in columns:
        if n == 0:
            break
        low = int(column.min())
        span = int(column.max()) - low + 1
        if span == 1:
            continue
        column = column - low
        if span >= 1 << 31:
            _, column = np.unique(column, return_inverse=True)
            span = int(column.max()) + 1
        if bound * span >= 1 << 62:
            _, key = np.unique(key, return_inverse=True)
            bound = int(key.max()) + 1
        key, bound = key * span + column.ravel(), bound * span
    _, first, inverse, counts = np.unique(key, return_index=True, return_inverse=True, return_counts=True)
    last = n - 1 - np.unique(key[::-1], return_index=True)[1]
    return inverse.ravel(), first, last, counts


def _split(items: np.ndarray, numbers: np.ndarray) -> list[np.ndarray]:
    """``items`` split by ``numbers``, each part in its original order."""
    if len(items) == 0:
        return []
    order = np.argsort(numbers, kind="stable")
    cuts = [0, *(np.flatnonzero(np.diff(numbers[order])) + 1).tolist(), len(items)]
    return [items[order[a:b]] for a, b in zip(cuts, cuts[1:])]
